# opscreen repro: case 6479, bmm served by flag_gems.bmm (bfloat16, class same_shape), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: ValueError: math domain error
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([], dtype=torch.float64, device=D).to(torch.bfloat16).view([2, 0, 5])
t1 = torch.tensor([-0.625, 1.055, 0.16, 1.5, 0.479, -0.875, -0.96, 0.832, -1.16, -0.254, -0.86, -0.832, -0.586, -0.668, 1.16, -0.086, -0.977, 1.28, -1.03, 0.84, -2.12, 1.336, -2.25, -0.167, -1.26, 1.42, 0.0466, 0.645, 0.77, 0.418], dtype=torch.float64, device=D).to(torch.bfloat16).view([2, 5, 3])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.bmm.default(t0, t1))
native = call()
oracle = flat(torch.ops.aten.bmm.default(t0.to(torch.float64), t1.to(torch.float64)))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['bmm']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
