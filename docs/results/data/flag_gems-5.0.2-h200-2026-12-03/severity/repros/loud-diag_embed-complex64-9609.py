# opscreen repro: case 9609, diag_embed served by flag_gems.diag_embed (complex64, class dtype_exotic), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: KeyError: 'complex64'
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([0.70870554, -0.41749766, -0.7266481, 1.4218792, -0.7268083, -1.9795082, 1.3402753, -1.5597776, 0.09153668, -0.6098894, 0.29614693, -0.7874906, 0.9422764, -0.29739693, 0.032571428, -0.5900293, 0.43022764, -1.1690137, -0.9570021, -0.9859342, -0.94026667, 0.09245762, 0.5239813, -0.16466789, 1.0202987, -1.0711584, 0.0072764372, 0.41571593, -2.324602, -1.2993059], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([3, 5])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.diag_embed.default(t0, 1))
native = call()
oracle = flat(torch.ops.aten.diag_embed.default(t0.to(torch.complex128), 1))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['diag_embed']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
