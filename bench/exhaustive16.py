"""Exhaustive 16-bit screen: every unary pointwise aten key of FlagGems on all
65,536 bfloat16 and all 65,536 float16 bit patterns, against the fp64 oracle of
kernels/ (torch fp64 where kernels/ has none), with native PyTorch beside it.

Usage (GPU host, repository root, after make):
    python3 bench/exhaustive16.py OUT.md [--ops exp,log] [--device cuda]

Per-element ULP here is ulp_D(|O_i|) (no 2^-10 max|O| floor: over all bit
patterns max|O| is huge or infinite, and the floor would hide the small
values). Positions where O is not finite or rounds out of range in D are not
in the ULP figure; nonfinite mismatches compare NaN/inf positions with those
of round_D(O), the best answer in D (exp overflowing to inf is right).
The table is rewritten after every op, so a killed run leaves what it did.
"""
import argparse
import os
import platform
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))

from opscreen_runner import kernels  # noqa: E402
from opscreen_runner.adapters import FlagGemsStyle  # noqa: E402
from opscreen_runner.figures import PRECISION  # noqa: E402
from opscreen_runner.inputs import resolve_op  # noqa: E402

F64 = torch.float64
# unary elementwise aten ops (a key qualifies when its schema is unary too)
EXTRA = {"bitwise_not", "angle", "deg2rad", "rad2deg", "sgn", "digamma", "erfinv", "i0",
         "sinc", "logit", "nan_to_num", "positive", "expit", "log_sigmoid", "signbit",
         "special_i0e", "special_i1", "special_ndtri", "special_erfcx", "gelu_tanh"}


def unary_entries(entries):
    """(key, name) of FlagGems entries that are unary pointwise ops."""
    names = set(kernels.UNARY) | EXTRA
    out = []
    for e in entries:
        key = e["key"]
        base, _, overload = key.partition(".")
        if base.endswith("_") or overload == "out" or base not in names:
            continue
        try:
            schema = resolve_op(key)._schema
        except ValueError:
            continue
        args = schema.arguments
        if not args or str(args[0].type) != "Tensor" or len(schema.returns) != 1:
            continue
        if any(not a.has_default_value() for a in args[1:]):
            continue
        out.append((key, e["name"]))
    return sorted(set(out))


def ulp_of(o, dtype):
    p, tiny = PRECISION[dtype]
    mag = o.abs()
    _, e = torch.frexp(mag)
    u = torch.ldexp(torch.ones_like(mag), e - p)
    return torch.where(mag > 0, u.clamp(min=tiny), torch.full_like(mag, tiny))


def nonfinite_mismatch(x, o):
    return ((torch.isnan(x) != torch.isnan(o)) | (torch.isposinf(x) != torch.isposinf(o))
            | (torch.isneginf(x) != torch.isneginf(o)))


def worst(x, o, inp, dtype):
    """(worst ULP, index, nonfinite mismatches) of x against oracle o."""
    X = x.to(F64)
    rounded = o.to(dtype).to(F64)
    ok = torch.isfinite(o) & torch.isfinite(rounded) & torch.isfinite(X)
    err = torch.where(ok, (X - o).abs() / ulp_of(o, dtype), torch.zeros_like(o))
    at = int(torch.argmax(err).item())
    return err[at].item(), at, int(nonfinite_mismatch(X, rounded).sum().item())


def fmt_bits(x, at):
    bits = int(x.view(torch.int16)[at].item()) & 0xffff
    return f"{x[at].item():.6g} (0x{bits:04x})"


def screen(gems, key, name, dtype, device):
    op = resolve_op(key)
    x = kernels.exhaustive16(dtype, device)
    if x is None:
        x = torch.arange(65536, dtype=torch.int32, device=device).to(torch.int16).view(dtype)
    row = {"key": key, "name": name, "dtype": str(dtype).replace("torch.", "")}
    try:
        native = op(x)
    except Exception as e:
        row["error"] = f"native raised {type(e).__name__}"
        return row
    try:
        with gems.use_gems(include=[name]):
            cand = op(x)
        if x.is_cuda:
            torch.cuda.synchronize()
    except Exception as e:
        row["error"] = f"library raised {type(e).__name__}: {str(e)[:80]}"
        return row
    o = kernels.oracle(key, [x], {})
    row["oracle"] = "kernels" if o is not None else "torch fp64"
    if o is None:
        o = op(x.to(F64))
    if not native.dtype.is_floating_point or native.dtype not in PRECISION:
        bad_c = int((cand.to(native.dtype) != o.to(native.dtype)).sum().item())
        bad_n = int((native != o.to(native.dtype)).sum().item())
        row.update(exact=True, bad_c=bad_c, bad_n=bad_n)
        return row
    o = o.to(F64)
    uc, ac, nfc = worst(cand, o, x, native.dtype)
    un, an, nfn = worst(native, o, x, native.dtype)
    row.update(ulp_c=uc, in_c=fmt_bits(x, ac), c=cand[ac].item(), o=o[ac].item(),
               ulp_n=un, in_n=fmt_bits(x, an), nf_c=nfc, nf_n=nfn)
    return row


def write(path, rows, header):
    lines = header + [
        "| key | name | dtype | worst ULP (library) | at input | library | oracle "
        "| worst ULP (native) | at input | nonfinite mismatches lib / native | oracle from |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['key']} | {r['name']} | {r['dtype']} | {r['error']} "
                         "| | | | | | | |")
        elif r.get("exact"):
            lines.append(f"| {r['key']} | {r['name']} | {r['dtype']} | exact: {r['bad_c']} "
                         f"differ | | | | exact: {r['bad_n']} differ | | | "
                         f"{r['oracle']} |")
        else:
            lines.append(
                f"| {r['key']} | {r['name']} | {r['dtype']} | {r['ulp_c']:.3g} | {r['in_c']} "
                f"| {r['c']:.6g} | {r['o']:.6g} | {r['ulp_n']:.3g} | {r['in_n']} "
                f"| {r['nf_c']} / {r['nf_n']} | {r['oracle']} |")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ops", default="", help="comma-separated keys or names")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--library", default="flag_gems", help="adapter name (tests: demolib)")
    a = ap.parse_args()
    ad = FlagGemsStyle(a.library)
    ad.load()
    entries = unary_entries(ad.entries())
    if a.ops:
        want = set(a.ops.split(","))
        entries = [(k, n) for k, n in entries if k in want or n in want
                   or k.partition(".")[0] in want]
    fp = ad.fingerprint(a.device)
    header = [
        "# Exhaustive 16-bit screen of unary pointwise ops", "",
        f"Command: `python3 bench/exhaustive16.py {' '.join(sys.argv[1:])}`  ",
        f"Machine: {fp.get('gpu_name')} (driver {fp.get('driver')}), {platform.node()}  ",
        f"Versions: flag_gems {fp.get('library_version')}, torch {fp.get('torch')}, "
        f"triton {fp.get('triton')}, CUDA {fp.get('cuda')}  ",
        f"Date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  ",
        f"Keys: {len(entries)} unary pointwise FlagGems entries: "
        + ", ".join(f"`{k}`" for k, _ in entries), "",
        "Every one of the 65,536 bit patterns of the dtype is an input. ULP is "
        "ulp_D(|O_i|) with D the native output dtype; positions whose oracle is "
        "not finite in D are left out of it. Nonfinite mismatches: positions whose "
        "NaN/+inf/-inf differs from that of round_D(O).", ""]
    rows = []
    for key, name in entries:
        for dt in (torch.bfloat16, torch.float16):
            t0 = time.time()
            rows.append(screen(ad.module, key, name, dt, a.device))
            print(f"{key} {dt}: {time.time() - t0:.1f}s", flush=True)
            write(a.out, rows, header)
    write(a.out, rows, header)


if __name__ == "__main__":
    main()
