# opscreen repro: case 16913, hstack served by flag_gems.hstack (complex64, class dtype_exotic), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: KeyError: 'complex64'
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([-0.53384113, 0.2503566, -1.8597972, 0.78763485, -0.34609842, -1.3473942, -0.59809154, -1.9436418, -1.4676715, -0.5884279, 1.2063946, -0.050635632, -0.86602527, -1.0468929, 0.29443312, 0.71349806, -0.78419304, -0.45840865, 0.45495015, -0.7832888, 0.16433743, 1.4704777, -0.31340012, -0.36179647], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([3, 4])
t1 = torch.tensor([1.1488602, -0.10064796, -0.08556214, -0.15383302, 0.25434142, 0.22906822, -1.1673932, -2.132195, 0.40284657, -0.8685645, -0.74828774, 0.6037709, 1.3471729, -0.5462213, -1.2683253, -0.23410212, -0.23954773, -1.0629505, -0.27050275, -1.4073402, -0.80432993, -1.0573955, -0.98597693, -0.83607304, -0.09210437, -1.0068412, 2.0538054, 0.373489, -0.059017166, 0.14880943], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([3, 5])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.hstack.default([t0, t1]))
native = call()
oracle = flat(torch.ops.aten.hstack.default([t0.to(torch.complex128), t1.to(torch.complex128)]))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['hstack']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
