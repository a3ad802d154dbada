# opscreen repro: case 10757, div_.Tensor served by flag_gems.true_divide_ (float32, class views), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail numeric_error: out0: err_abs 5.8502e-07 > max(2*err_abs_n=2.16365e-07, 2R=2.16365e-07); err_ulp too
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAKFgCAAAAdDBxAWN0b3JjaC5fdXRpbHMKX3JlYnVpbGRfdGVuc29yX3YyCnECKChYBwAAAHN0b3JhZ2VxA2N0b3JjaApGbG9hdFN0b3JhZ2UKcQRYAQAAADBxBVgDAAAAY3B1cQZLOHRxB1FLAEs4hXEISwGFcQmJY2NvbGxlY3Rpb25zCk9yZGVyZWREaWN0CnEKKVJxC3RxDFJxDVgCAAAAdDFxDmgCKChoA2gEWAEAAAAxcQ9oBkskdHEQUUsASySFcRFLAYVxEoloCilScRN0cRRScRV1LlBLBwgoEqXb3gAAAN4AAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABcAHQBhcmNoaXZlLy5mb3JtYXRfdmVyc2lvbkZCGQBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMVBLBwi379yDAQAAAAEAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABoANwBhcmNoaXZlLy5zdG9yYWdlX2FsaWdubWVudEZCMwBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo2NFBLBwg/d3HpAgAAAAIAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABEAPwBhcmNoaXZlL2J5dGVvcmRlckZCOwBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWmxpdHRsZVBLBwiFPeMZBgAAAAYAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAAA4APgBhcmNoaXZlL2RhdGEvMEZCOgBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaeYfuPf53zz8K6ei/giO6PQ7nkD6Lomg+TuxUPrEDwD9uzLw+KtFTPa75Xj/ncCM/I4XFvV3Tgj2GwQY/IpspP1z6Xr7oBxO/Z+whP3KqHj81rd6+VFDjv/24676snoA/DrCZPiRtAr9hhJC+cEJ6v0G5qT/NdeA+3B7VPtj8HL+2bK++atImv1VCcr7BIHe+eRHLvzczC7+N6wjAfiuav4KefT4DZJI9g9I4P7uX3L5UgQrA03UiP6PH2b8xepW/SLNwP4NYuD+oWww9gRWMv901UL9xXmE+/L3CvnNolr9QSwcIz69WAuAAAADgAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAOACQAYXJjaGl2ZS9kYXRhLzFGQiAAWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpF/I8/UJYpP+OPwj49duU/OWREP2O3oz70/XG/KXjOvppGwb8OdS0/ju38PsoOgb9X3qU+ZMzcP2Qfqz7lEOs+of3uvht0Iz89aeq+HR3kvkLU4b7IP4K/XmVGv0XOuT7tYZy/8QKiPmFO7b4iF52/XyZvP5/aGT8vvlk/7aeqP7ChYL8AMHc/Qx4sPxgnlj9QSwcINnDtCpAAAACQAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPADMAYXJjaGl2ZS92ZXJzaW9uRkIvAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlowNTYxMTA4NTIzNjE5NjcwNTI5NDE2NTIwMzU1NzgxMDIzODU3OTA0UEsHCJA/5xYoAAAAKAAAAFBLAQIAAAAACAgAAAAAAAAoEqXb3gAAAN4AAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAALgEAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAAkQEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAAEgIAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAM+vVgLgAAAA4AAAAA4AAAAAAAAAAAAAAAAAlgIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAADZw7QqQAAAAkAAAAA4AAAAAAAAAAAAAAAAA8AMAAGFyY2hpdmUvZGF0YS8xUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAA4AQAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAACQP+cWKAAAACgAAAAeAAAAAAAAAAAAAAAAAFIFAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAIAAAAAAAAAAgAAAAAAAAACwIAAAAAAAD4BQAAAAAAAFBLBgcAAAAAAwgAAAAAAAABAAAAUEsFBgAAAAAIAAgACwIAAPgFAAAAAA==")))
t0 = X["t0"].to(D).as_strided([4, 9], [14, 1], 3)
t1 = X["t1"].to(D).view([4, 9])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
base = lambda t: torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,)); fresh = lambda t: base(t).clone().as_strided(t.shape, t.stride(), t.storage_offset())  # fresh: a copy of t's storage, viewed as t
def call():
    global w; r = torch.ops.aten.div_.Tensor((w := fresh(t0)), t1)
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.div_.Tensor(t0.to(torch.float64, copy=True), t1.to(torch.float64)))  # fp64: the op on float64 copies
BOUNDS = [(2.1636507696598528e-07, 1)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['true_divide_']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
m = torch.ones_like(base(t0), dtype=torch.bool); m.as_strided(t0.shape, t0.stride(), t0.storage_offset()).fill_(False); bits = lambda t: t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])  # m: outside the view
out_c = int((bits(base(w)) != bits(base(t0)))[m].sum())
assert not out_c, f"writes_outside_view: it changed {out_c} elements of the base outside the view"
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
