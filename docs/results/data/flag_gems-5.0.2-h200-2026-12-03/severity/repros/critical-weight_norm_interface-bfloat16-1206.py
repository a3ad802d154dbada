# opscreen repro: case 1206, _weight_norm_interface served by flag_gems.weight_norm_interface (bfloat16, class same_shape), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail dtype_mismatch: out1: dtype bfloat16, native float32
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAKFgCAAAAdDBxAWN0b3JjaC5fdXRpbHMKX3JlYnVpbGRfdGVuc29yX3YyCnECKChYBwAAAHN0b3JhZ2VxA2N0b3JjaApCRmxvYXQxNlN0b3JhZ2UKcQRYAQAAADBxBVgDAAAAY3B1cQZLpXRxB1FLAEulhXEISwGFcQmJY2NvbGxlY3Rpb25zCk9yZGVyZWREaWN0CnEKKVJxC3RxDFJxDVgCAAAAdDFxDmgCKChoA2gEWAEAAAAxcQ9oBksFdHEQUUsASwWFcRFLAYVxEoloCilScRN0cRRScRV1LlBLBwi9wE/W4QAAAOEAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABcAGgBhcmNoaXZlLy5mb3JtYXRfdmVyc2lvbkZCFgBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMVBLBwi379yDAQAAAAEAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABoANwBhcmNoaXZlLy5zdG9yYWdlX2FsaWdubWVudEZCMwBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo2NFBLBwg/d3HpAgAAAAIAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABEAPwBhcmNoaXZlL2J5dGVvcmRlckZCOwBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWmxpdHRsZVBLBwiFPeMZBgAAAAYAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAAA4APgBhcmNoaXZlL2RhdGEvMEZCOgBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMb7kPrq+lr+HvoO/jLxKPxm/pD9Wv00/Sr8QP9E/VUAkv/q9iD+CP62/ij9rv6C/9LwOP1i/772TvgY/ID1bv04+fz/0v3m9776/vTY/Wb9DvuU9776Uv3u+ij94vxW+Ub9ZPhm/ub6Hvwm/jDwZPx+/679vvD4/I7+Jvjc/H8DqP9S+K7/CP4K/TD/yPVW+tD/dvf6+zr68PglA7D52P4E/W76qv3C/ib8NvuI+eD9wP4K+Bz+xvz0//76sv5C+G0Bovz2/7j9kvxy+KcAOvzG/k71uv2y/fb+yP1K/zz8ivw2/lz3Uv5s/pr9SvUG/r7/UPog+gL+MvAPAMr6sva8/wb97Pxi+SD9LvrM9MD+DPhjAQLoqP2a/A0DGPxs/Lr8MwOs+Ur88vus/W75/PkE/KD4xP5U+ND/CPwo/JD+hPxq/CD+CPpU+UEsHCGpVZQlKAQAASgEAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgA6AGFyY2hpdmUvZGF0YS8xRkI2AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWnI/d7+VPwe+ST9QSwcIZQ8GOwoAAAAKAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPADkAYXJjaGl2ZS92ZXJzaW9uRkI1AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlowNTYxMTA4NTIzNjE5NjcwNTI5NDAzNTczNjUxMTkwMTM3MTY4MzczUEsHCCOZw2koAAAAKAAAAFBLAQIAAAAACAgAAAAAAAC9wE/W4QAAAOEAAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAAMQEAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAAkQEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAAEgIAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAGpVZQlKAQAASgEAAA4AAAAAAAAAAAAAAAAAlgIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAAGUPBjsKAAAACgAAAA4AAAAAAAAAAAAAAAAAWgQAAGFyY2hpdmUvZGF0YS8xUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAA2gQAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAAAjmcNpKAAAACgAAAAeAAAAAAAAAAAAAAAAAFIFAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAIAAAAAAAAAAgAAAAAAAAACwIAAAAAAAD4BQAAAAAAAFBLBgcAAAAAAwgAAAAAAAABAAAAUEsFBgAAAAAIAAgACwIAAPgFAAAAAA==")))
t0 = X["t0"].to(D).view([5, 33])
t1 = X["t1"].to(D).view([5, 1])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten._weight_norm_interface.default(t0, t1, 0))
native = call()
oracle = flat(torch.ops.aten._weight_norm_interface.default(t0.to(torch.float64), t1.to(torch.float64), 0))  # fp64: the op on float64 copies
BOUNDS = [(0.001951563954414981, 1), (9.5367431640625e-07, 2)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['weight_norm_interface']):
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
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [close, close])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
