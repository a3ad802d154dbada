# opscreen repro: case 17533, index_put_ served by flag_gems.index_put_ (complex64, class dtype_exotic), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: KeyError: 'complex64'
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([-0.58597696, 0.0823425, -1.876065, 0.94913787, -1.8508319, 0.72801435, -0.77993786, -1.1832737, 0.6305877, -1.128316, -2.162237, 0.15704848, -0.40511778, 1.762728, 0.4271217, 0.13428172, 0.9093733, 0.48671222, 0.59488434, -0.7463652, -1.458691, -0.75600004, 1.023314, -1.4641848, 0.81043196, -0.36480367, 0.4086563, 1.8130004, 0.48732167, 0.8804914, -1.2799245, -0.9592401, -0.5918545, -0.81351495, -0.52364594, -0.7850289, -0.71865374, 0.8100357, 1.1899475, -1.0994933, 0.41708964, -0.3540964, -0.7817759, -0.2861382, -1.23065, -0.548, 0.7326195, -0.480552, -0.7152414, -0.23542856, 0.70011675, -2.1711652, -1.432891, -0.0016106084, 0.993015, -0.111628555, -0.46243024, 0.19859989, -0.5647103, -0.41528067, 3.5112102, 2.0056398, 1.371308, 0.44984823, 1.5367863, 0.57001644, 1.7922671, 0.40688094, 2.1635852, -0.8572484], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([7, 5])
t1 = torch.tensor([0, 1, 2, 3], dtype=torch.int64, device=D)
t2 = torch.tensor([-0.5917114, 0.107437074, 0.34387773, 1.2530779, -0.39038408, -0.59041476, -0.8345613, 0.0011634124, 0.31971776, 0.22395816, 0.48153138, 0.07693925, -0.4118638, -0.93470293, -0.5902783, 1.4467536, 0.018463252, -1.238578, -1.0587149, 0.7978956, -0.17746873, 0.23206893, -1.4259994, -0.24755372, 0.089912914, 1.8201928, -1.1572082, -1.1023552, 1.3109972, 0.9435854, 1.2145698, -0.23860757, 0.018096957, -0.059313655, 0.116404004, -0.16854414, -0.9709768, -0.52417994, 1.6861826, 0.33793378], dtype=torch.float64, device=D).to(torch.float32).view(torch.complex64).view([4, 5])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
def call():
    r = torch.ops.aten.index_put_.default((w := t0.clone()), [t1], t2, False)
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.index_put_.default(t0.to(torch.complex128, copy=True), [t1], t2.to(torch.complex128), False))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['index_put_']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
