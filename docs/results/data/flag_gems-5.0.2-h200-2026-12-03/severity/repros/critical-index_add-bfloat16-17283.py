# opscreen repro: case 17283, index_add served by flag_gems.index_add (bfloat16, class noncontig), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail numeric_error: out0: err_ulp 3120 > max(2*err_ulp_n=1, 1); err_abs too
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAKFgCAAAAdDBxAWN0b3JjaC5fdXRpbHMKX3JlYnVpbGRfdGVuc29yX3YyCnECKChYBwAAAHN0b3JhZ2VxA2N0b3JjaApCRmxvYXQxNlN0b3JhZ2UKcQRYAQAAADBxBVgDAAAAY3B1cQZLRnRxB1FLAEtGhXEISwGFcQmJY2NvbGxlY3Rpb25zCk9yZGVyZWREaWN0CnEKKVJxC3RxDFJxDVgCAAAAdDFxDmgCKChoA2N0b3JjaApMb25nU3RvcmFnZQpxD1gBAAAAMXEQaAZLBHRxEVFLAEsEhXESSwGFcROJaAopUnEUdHEVUnEWWAIAAAB0MnEXaAIoKGgDaARYAQAAADJxGGgGSxR0cRlRSwBLFIVxGksBhXEbiWgKKVJxHHRxHVJxHnUuUEsHCLBNJzguAQAALgEAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAFwANAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uRkIJAFpaWlpaWlpaWjFQSwcIt+/cgwEAAAABAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAaADcAYXJjaGl2ZS8uc3RvcmFnZV9hbGlnbm1lbnRGQjMAWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaNjRQSwcIP3dx6QIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAARAD8AYXJjaGl2ZS9ieXRlb3JkZXJGQjsAWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpsaXR0bGVQSwcIhT3jGQYAAAAGAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAOAD4AYXJjaGl2ZS9kYXRhLzBGQjoAWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWpE+Tz7rv6C+/D7LP7O+L75vv/i+TL4TP+K/TD/rPtM/mD++PoA/LL9LP/O/5T6zv2a/Rb7Tv5S+zT/nvow/o76lv/m9jT5PPRK+CD8GQEG9g74yv54+rz7gPfA+Gb9vPxk/gD+2vqI/nj2MP4W/g75FP6K/674EQNY/oD8dv7o+w78NP46+lL5eP0E+UEsHCPmeam6MAAAAjAAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgA4AGFyY2hpdmUvZGF0YS8xRkI0AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWloFAAAAAAAAAAMAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAFBLBwhmxuRGIAAAACAAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAAA4AJABhcmNoaXZlL2RhdGEvMkZCIABaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlC/Rb8xvqk+fb8yP+4/Az9gPhk+Uj+MPz+/EL9DvwPA6b3wP1c/iT9QSwcIe8503SgAAAAoAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPABsAYXJjaGl2ZS92ZXJzaW9uRkIXAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlowODQ5NDg4ODQ3OTY1MDQ4NzM1MDA2ODAwNDE0Mzg1NzE4ODIwMTUxUEsHCCbrZFgoAAAAKAAAAFBLAQIAAAAACAgAAAAAAACwTSc4LgEAAC4BAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAAfgEAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAA0QEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAAUgIAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAPmeam6MAAAAjAAAAA4AAAAAAAAAAAAAAAAA1gIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAAGbG5EYgAAAAIAAAAA4AAAAAAAAAAAAAAAAA3AMAAGFyY2hpdmUvZGF0YS8xUEsBAgAAAAAICAAAAAAAAHvOdN0oAAAAKAAAAA4AAAAAAAAAAAAAAAAAcAQAAGFyY2hpdmUvZGF0YS8yUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAA+AQAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAAAm62RYKAAAACgAAAAeAAAAAAAAAAAAAAAAAFIFAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAJAAAAAAAAAAkAAAAAAAAARwIAAAAAAAD4BQAAAAAAAFBLBgcAAAAAPwgAAAAAAAABAAAAUEsFBgAAAAAJAAkARwIAAPgFAAAAAA==")))
t0 = X["t0"].to(D).as_strided([7, 5], [10, 2])
t1 = X["t1"].to(D)
t2 = X["t2"].to(D).view([4, 5])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.index_add.default(t0, 0, t1, t2, alpha=2))
native = call()
oracle = flat(torch.ops.aten.index_add.default(t0.to(torch.float64), 0, t1, t2.to(torch.float64), alpha=2))  # fp64: the op on float64 copies
BOUNDS = [(0.015625, 1)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['index_add']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
def close(tag, c, n, o, b):  # NaN/inf where the oracle's (or native's) are; errors within b
    cls, fi = lambda t: t.isnan() + 2 * t.isposinf() + 3 * t.isneginf(), torch.finfo(c.dtype)
    r, c, n = o.to(c.dtype).double(), c.double(), n.double()
    bad = (cls(c) != cls(r)) & ~((c == n) | c.isnan() & n.isnan())
    assert not bad.any(), f"{tag}: {int(bad.sum())} positions where NaN/inf differ from the oracle and from native"
    d, m = torch.where(o.isfinite() & c.isfinite(), (c - o).abs(), 0), torch.where(o.isfinite(), o.abs(), 0)
    ulp = torch.ldexp(torch.full_like(m, fi.eps), torch.frexp(m.clamp(min=2 ** -10 * m.max().item()))[1] - 1)
    e = (d.max().item(), (d / ulp.clamp(min=fi.smallest_normal * fi.eps)).max().item())
    assert b is None or e[0] <= b[0] and e[1] <= b[1], f"{tag}: error {e[0]:.6g} ({e[1]:.4g} ULP), the rule allows {b[0]:.6g} ({b[1]:.4g} ULP)"
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [close])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
