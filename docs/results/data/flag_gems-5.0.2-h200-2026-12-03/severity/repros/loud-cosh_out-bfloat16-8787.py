# opscreen repro: case 8787, cosh.out served by flag_gems.cosh_out (bfloat16, class contract), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: RuntimeError: out tensor at index 0 shape is invalid, should be torch.Size([5, 6]) but is torch.Size([0])!
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([-2.94, 2.67, 1.51, -3.39, -3.73, -1.79, -2.02, -2.19, -0.1455, -0.396, 3.8, 1.76, 0.154, -1.086, -3.45, 1.5, -1.13, 3.55, 1.11, -1.28, 0.582, 0.441, -0.0625, 1.586, 0.805, 0.63, 3.3, 2.03, -2.27, 2.52], dtype=torch.float64, device=D).to(torch.bfloat16).view([5, 6])
t1 = torch.tensor([], dtype=torch.float64, device=D).to(torch.bfloat16)
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
def call():
    r = torch.ops.aten.cosh.out(t0, out=(w := t1.clone()))
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.cosh.out(t0.to(torch.float64), out=t1.to(torch.float64, copy=True)))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['cosh_out']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
