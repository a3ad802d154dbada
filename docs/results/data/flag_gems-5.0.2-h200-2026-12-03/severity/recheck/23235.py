# opscreen repro: case 23235, mul.Tensor served by flag_gems.mul (bfloat16, class same_shape), 2^31-element operands
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: AcceleratorError: CUDA error: an illegal memory access was encountered Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information. CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1 Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions. 
# Operands from torch's generator (the screen drew them with kernels/' Philox: other values, the same sizes, dtypes and ranges).
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
g = torch.Generator(D).manual_seed(802499456)
t0 = torch.randn([2147483665], generator=g, device=D).to(torch.bfloat16)
t1 = torch.randn([2147483665], generator=g, device=D).to(torch.bfloat16)
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.mul.Tensor(t0, t1))
native = call()
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['mul']):
    try:
        cands = [call()]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
n = t0.numel()  # the positions the runner samples
idx = torch.cat([torch.arange(0, n, 65521, device=D), torch.arange(max(n - 4096, 0), n, device=D)]).unique()
pick = lambda t: t.reshape(-1)[idx] if isinstance(t, torch.Tensor) and t.numel() == n else t
up = lambda t: t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t
oracle = flat(torch.ops.aten.mul.Tensor(up(pick(t0)), up(pick(t1))))  # fp64 on the sample
BOUNDS = None
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
    for i, (c, nv, o) in enumerate(zip(C, native, oracle)):
        assert (c.shape, c.dtype) == (nv.shape, nv.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {nv.dtype} {list(nv.shape)}"
        close(f"call {k} out{i}", pick(c), pick(nv), o.to(c.device), BOUNDS and BOUNDS[i])
