# opscreen repro: case 22024, masked_select served by flag_gems.masked_select (bfloat16, class same_shape), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: CompilationError: at 5:33: def masked_select_single_pass_kernel(     inp_ptr, mask_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr ):     pid = tl.program_id(0)     offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)                                  ^ arange's end argument must be greater than the start argument
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([], dtype=torch.float64, device=D).to(torch.bfloat16)
t1 = torch.tensor([], dtype=torch.bool, device=D)
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.masked_select.default(t0, t1))
native = call()
oracle = flat(torch.ops.aten.masked_select.default(t0.to(torch.float64), t1))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['masked_select']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
