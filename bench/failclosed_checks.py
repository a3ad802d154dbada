"""The fail-closed checks of the served lists against a live opscreend and the
installed library (docs/reliability.md, "On an H200 host").

    python3 bench/failclosed_checks.py early PORT OUTDIR   # before any complete screen
    python3 bench/failclosed_checks.py scopes PORT OUTDIR  # after a complete screen

early: every list format's 503 body, each saved, and the YAML bodies loaded
the way a deployment script that ignores the status would load them
(flag_gems.only_enable(include=...) and flag_gems.enable(unused=...)): the
number of names each registers must be 0.
scopes: the allow-list under each dtype and device scope (names allowed,
withheld, denied) and the provenance every format carries.
"""
import json
import os
import sys
import urllib.error
import urllib.request


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def registered_after(kind, path):
    import torch
    import flag_gems
    lib = torch.library.Library("aten", "IMPL")
    try:
        if kind == "include":
            flag_gems.only_enable(lib=lib, include=path)
        else:
            flag_gems.enable(lib=lib, unused=path)
    except Exception as e:  # a body the loader refuses enables nothing either
        return f"0 (the loader raised {type(e).__name__}: {e})"
    try:
        return sorted(set(flag_gems.all_registered_ops()))
    except AttributeError as e:
        # flag_gems 5.0.2's only_enable returns before it creates its
        # registrar when the include list is empty: nothing was registered
        return f"0 (no registrar was created: {e})"
    finally:
        lib._destroy()


def early(port, out):
    for lst in ("allowlist", "denylist"):
        for fmt in ("json", "text", "csv", "yaml"):
            st, body = get(port, f"/{lst}?format={fmt}")
            p = os.path.join(out, f"{lst}-503.{fmt}")
            open(p, "w").write(body)
            lines = body.count("\n")
            print(f"{lst} format={fmt}: status {st}, {len(body)} bytes, {lines} lines")
    for lst, kind in (("allowlist", "include"), ("denylist", "unused")):
        got = registered_after(kind, os.path.join(out, f"{lst}-503.yaml"))
        n = len(got) if isinstance(got, list) else got
        print(f"503 {lst}.yaml loaded as {kind}=: names registered: {n}")


SCOPES = ["", "dtypes=bfloat16", "dtypes=float16", "dtypes=float32",
          "dtypes=bfloat16,float16", "dtypes=float64", "dtypes=float8_e4m3fn",
          "gpu=0", "gpu=1"]


def scopes(port, out):
    rows = []
    for s in SCOPES:
        st, body = get(port, "/allowlist?" + s)
        try:
            j = json.loads(body)
        except ValueError:
            j = {}
        std, dbody = get(port, "/denylist?" + s)
        try:
            dj = json.loads(dbody)
        except ValueError:
            dj = {}
        rows.append((s or "(unscoped)", st, len(j.get("names", [])),
                     len(j.get("withheld", [])), len(dj.get("names", [])),
                     j.get("error", "")))
    print("| scope | status | allowed | withheld | denied | error |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s | %s |" % r)
    st, body = get(port, "/allowlist")
    j = json.loads(body)
    print("provenance (JSON runs[]):", json.dumps(j.get("runs"), indent=1))
    print("policy:", j.get("policy"), "mode:", j.get("mode"))
    for fmt in ("yaml", "text", "csv"):
        st, body = get(port, f"/allowlist?format={fmt}")
        open(os.path.join(out, f"allowlist.{fmt}"), "w").write(body)
        head = [l for l in body.splitlines() if l.startswith("#")]
        print(f"--- allowlist format={fmt}: status {st}, header:")
        print("\n".join(head))
    for lst, kind in (("allowlist", "include"), ("denylist", "unused")):
        st, body = get(port, f"/{lst}?format=yaml")
        p = os.path.join(out, f"{lst}-scoped.yaml")
        open(p, "w").write(body)
        got = registered_after(kind, p)
        n = len(got) if isinstance(got, list) else got
        print(f"{lst}.yaml loaded as {kind}=: names registered: {n}")


if __name__ == "__main__":
    what, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    {"early": early, "scopes": scopes}[what](port, out)
