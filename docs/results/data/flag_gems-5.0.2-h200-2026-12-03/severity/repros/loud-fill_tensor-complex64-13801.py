# opscreen repro: case 13801, fill.Tensor served by flag_gems.fill_tensor (complex64, class dtype_exotic), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: KeyError: 'complex64'
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([-0.9160332, -0.17412832, -0.9019652, -0.3207333, -1.097589, 0.72157276, 1.299149, 0.32752848, -1.3980742, -1.0618409, -0.70912606, -1.2010796, 0.6118509, 0.033550087, -0.3006766, -1.681103, 0.6423118, -0.05776527, -1.9381422, -0.210563, -0.9765748, 0.23681433, 1.3779619, 1.6637733, 0.08247378, -0.40329295, -0.20784986, -0.19294399, 0.8006873, 0.164904, 0.20781887, -0.01705035, -0.7695502, -0.674842, 0.5391246, -0.5040083, 1.7271274, 0.9203226, 0.38707682, -0.19571477], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([5, 4])
t1 = torch.tensor([0.07150104, 0.076564334], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.fill.Tensor(t0, t1))
native = call()
oracle = flat(torch.ops.aten.fill.Tensor(t0.to(torch.complex128), t1.to(torch.complex128)))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['fill_tensor']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
