#!/usr/bin/env python3
"""The per-key source digests the runner sends (probes/opscreen_runner/
sourcehash.py) of an installed FlagGems-style library, read on a machine
without a GPU, and what two versions' digests say changed.

  digests: python3 bench/source_digests.py dump flag_gems > v502.json
           (the library on PYTHONPATH; GEMS_VENDOR=nvidia for FlagGems)
  compare: python3 bench/source_digests.py compare v500.json v502.json \
               [old.db new.db]

`dump` imports the library with torch.cuda answering as one H200 would
(is_available, device_count, properties of compute capability 9.0), which is
enough for FlagGems to import and register its table; nothing is run on a
device. `compare` counts the keys whose digest changed, is new or is the
same, and, given two opscreen stores that screened the two versions, how
many key x dtype verdicts of each group moved between them: a digest that
stays the same while the verdict moves would be a dependency the digest
misses (or a nondeterministic key).
"""
import json
import os
import sqlite3
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stub_cuda():
    import torch
    props = types.SimpleNamespace(name="NVIDIA H200", major=9, minor=0,
                                  multi_processor_count=132,
                                  total_memory=141 << 30, uuid="stub",
                                  L2_cache_size=60 << 20, warp_size=32)
    torch.cuda.is_available = lambda: True
    torch.cuda.device_count = lambda: 1
    torch.cuda.current_device = lambda: 0
    torch.cuda.get_device_name = lambda *a, **k: props.name
    torch.cuda.get_device_properties = lambda *a, **k: props
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)
    torch.cuda._lazy_init = lambda: None


def dump(module):
    stub_cuda()
    sys.path.insert(0, os.path.join(ROOT, "probes"))
    import importlib
    from opscreen_runner.sourcehash import key_source_hashes
    lib = importlib.import_module(module)
    items = [it for it in lib._FULL_CONFIG if it and len(it) >= 2]
    t = time.perf_counter()
    hs = key_source_hashes([it[1] for it in items], module.split(".")[0])
    out = {"library": module, "version": str(getattr(lib, "__version__", "")),
           "seconds": round(time.perf_counter() - t, 2), "keys": {}}
    for it, h in zip(items, hs):
        out["keys"][it[0]] = {"name": getattr(it[1], "__name__", str(it[1])),
                              "source": h}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


def verdicts(path):
    db = sqlite3.connect(path)
    run = db.execute("SELECT max(id) FROM runs WHERE state='complete' AND "
                     "full=1").fetchone()[0]
    return {(k, d): v for k, d, v in db.execute(
        "SELECT key, dtype, verdict FROM verdicts WHERE run_id=?", (run,))}


def compare(a_path, b_path, old_db=None, new_db=None):
    a = json.load(open(a_path))
    b = json.load(open(b_path))
    ka, kb = a["keys"], b["keys"]
    common = set(ka) & set(kb)
    changed = {k for k in common if not kb[k]["source"] or
               ka[k]["source"] != kb[k]["source"]}
    same = common - changed
    print(f"{a['library']} {a['version']} -> {b['version']}: {len(kb)} keys; "
          f"{len(same)} unchanged, {len(changed)} changed, "
          f"{len(set(kb) - set(ka))} new, {len(set(ka) - set(kb))} gone; "
          f"{sum(1 for k in kb if not kb[k]['source'])} without a digest")
    print(f"a screen of {b['version']} after {a['version']} measures "
          f"{len(changed) + len(set(kb) - set(ka))} of {len(kb)} keys "
          f"({100.0 * (len(changed) + len(set(kb) - set(ka))) / len(kb):.1f}%)")
    if old_db and new_db:
        va, vb = verdicts(old_db), verdicts(new_db)
        for label, group in (("unchanged", same), ("changed", changed)):
            both = [kd for kd in va if kd[0] in group and kd in vb]
            moved = sorted(kd for kd in both if va[kd] != vb[kd])
            print(f"{label} keys: {len(both)} key x dtype verdicts in both "
                  f"screens, {len(moved)} moved"
                  + (": " + ", ".join("%s %s %s->%s" % (k, d, va[(k, d)],
                                                        vb[(k, d)])
                                      for k, d in moved[:12])
                     if moved and label == "unchanged" else ""))
    print("unchanged keys:", " ".join(sorted(same)))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif len(sys.argv) in (4, 6) and sys.argv[1] == "compare":
        compare(*sys.argv[2:])
    else:
        sys.exit(__doc__)
