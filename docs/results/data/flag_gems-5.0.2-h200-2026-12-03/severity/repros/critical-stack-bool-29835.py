# opscreen repro: case 29835, stack served by flag_gems.stack (bool, class same_shape), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail mismatch: out0 (exact): 21 of 2147483664 positions differ from the oracle, first at [0,512] (native: 0)
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
def arange_mod(n, start, m, dt):  # element i holds (start + i) % m, made 2^26 at a time
    t = torch.empty(n, dtype=dt, device=D)
    for i in range(0, n, 1 << 26):
        t[i:i + (1 << 26)] = torch.arange(start + i, start + min(n, i + (1 << 26)), device=D) % m
    return t
t0 = arange_mod(1073741832, 0, 3, torch.bool)
t1 = arange_mod(1073741832, 1, 3, torch.bool)
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.stack.default([t0, t1], 0))
native = call()
oracle = native  # data movement computes nothing: native's bytes are the answer
BOUNDS = [None]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['stack']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
def same(tag, c, n, o, b):  # native's bytes, position for position
    assert torch.equal(c, n), f"{tag}: {int((c != n).sum())} of {c.numel()} positions differ from native's"
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [same])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
