# opscreen repro: case 12237, embedding_dense_backward served by flag_gems.embedding_dense_backward (float32, class same_shape), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail nondeterministic: call 4 on the same inputs: out0: err_ulp 3.5 > max(2*err_ulp_n=1.75, 1) (call 1 passed)
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAKFgCAAAAdDBxAWN0b3JjaC5fdXRpbHMKX3JlYnVpbGRfdGVuc29yX3YyCnECKChYBwAAAHN0b3JhZ2VxA2N0b3JjaApGbG9hdFN0b3JhZ2UKcQRYAQAAADBxBVgDAAAAY3B1cQZLNnRxB1FLAEs2hXEISwGFcQmJY2NvbGxlY3Rpb25zCk9yZGVyZWREaWN0CnEKKVJxC3RxDFJxDVgCAAAAdDFxDmgCKChoA2N0b3JjaApMb25nU3RvcmFnZQpxD1gBAAAAMXEQaAZLEnRxEVFLAEsShXESSwGFcROJaAopUnEUdHEVUnEWdS5QSwcI4MVANvEAAADxAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAXAAoAYXJjaGl2ZS8uZm9ybWF0X3ZlcnNpb25GQgYAWlpaWlpaMVBLBwi379yDAQAAAAEAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABoANwBhcmNoaXZlLy5zdG9yYWdlX2FsaWdubWVudEZCMwBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo2NFBLBwg/d3HpAgAAAAIAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABEAPwBhcmNoaXZlL2J5dGVvcmRlckZCOwBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWmxpdHRsZVBLBwiFPeMZBgAAAAYAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAAA4APgBhcmNoaXZlL2RhdGEvMEZCOgBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaN5SsPiNe0j5obM09BPSEP2CF87xAvyy/hmAVP2Oiq75c0lQ/H56nP7LyKr8y/7c/e1MjvmBIij4NwPA+aJjbPogl9r4aABA/wkPBPUgVxr7QesU+zfN0v/R8ZT8PspE/crnLP06t9b5mehNA1WjHP0gZ7L51NyA++wzLP+1xXj8SzKW/gW/Qv0HRTL92Fky/Sa3zPvnABD8oRzY/jWnpv1oArz+/SsA/S3aCPzb+az+cYeE/LfUlP5+kZL2Jcoy/Uqjqv2fGY798DDW9pu8SPz2xPD+f4s0/UEsHCGeUDSjYAAAA2AAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgAsAGFyY2hpdmUvZGF0YS8xRkIoAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWloEAAAAAAAAAAMAAAAAAAAAAQAAAAAAAAACAAAAAAAAAAQAAAAAAAAABAAAAAAAAAADAAAAAAAAAAQAAAAAAAAABAAAAAAAAAABAAAAAAAAAAMAAAAAAAAAAwAAAAAAAAACAAAAAAAAAAEAAAAAAAAAAQAAAAAAAAACAAAAAAAAAAIAAAAAAAAAAgAAAAAAAABQSwcIf8HEIZAAAACQAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPADMAYXJjaGl2ZS92ZXJzaW9uRkIvAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlowNTYxMTA4NTIzNjE5NjcwNTI5NDE2MzQ0ODM1NDg2NzQyMTkwMTY0UEsHCO9B8vsoAAAAKAAAAFBLAQIAAAAACAgAAAAAAADgxUA28QAAAPEAAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAAQQEAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAAkQEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAAEgIAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAGeUDSjYAAAA2AAAAA4AAAAAAAAAAAAAAAAAlgIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAAH/BxCGQAAAAkAAAAA4AAAAAAAAAAAAAAAAA6AMAAGFyY2hpdmUvZGF0YS8xUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAA4AQAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAADvQfL7KAAAACgAAAAeAAAAAAAAAAAAAAAAAFIFAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAIAAAAAAAAAAgAAAAAAAAACwIAAAAAAAD4BQAAAAAAAFBLBgcAAAAAAwgAAAAAAAABAAAAUEsFBgAAAAAIAAgACwIAAPgFAAAAAA==")))
t0 = X["t0"].to(D).view([2, 9, 3])
t1 = X["t1"].to(D).view([2, 9])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.embedding_dense_backward.default(t0, t1, 5, -1, True))
native = call()
oracle = flat(torch.ops.aten.embedding_dense_backward.default(t0.to(torch.float64), t1, 5, -1, True))  # fp64: the op on float64 copies
BOUNDS = [(8.3446502596729033e-08, 1.75)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['embedding_dense_backward']):
    try:
        cands = [call() for _ in range(4)]
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
