# opscreen repro: case 28271, silu_ served by flag_gems.silu_ (float32, class views), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail numeric_error: out0: err_ulp 1.629 > max(2*err_ulp_n=1.588, 1)
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import contextlib, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
t0 = torch.tensor([-0.084735565, 0.6724408, 1.4479146, -0.4846103, 1.3278028, -0.5091969, 1.1207927, 0.29395172, -0.8037732, 1.3651518, -0.08185624, 0.32726404, -2.7357879, -0.62822527, 1.2807059, -0.38466957, 1.9502441, -0.17726424, -1.0100424, -0.336379, 0.55224603, 0.05625982, 0.027160311, 1.0659201, -0.86263204, 1.4258649, -1.5915014, 1.3133806, -2.025605, -0.48774478, -0.6372686, -0.15290621, -0.12112907, -2.0102627, 0.077032015, -0.15508564, 1.1194649, -0.0326492, -0.3975387, -0.24502797, 0.89254117, 1.6770523, -0.44486538, -1.1054139, -0.3083331, 1.2808232, -0.011998161, -1.7352867, -1.110781, 1.3650172, 0.04568189, -0.4478127, -0.94226336, 1.3035086, -0.10306647, -0.48645085], dtype=torch.float64, device=D).to(torch.float32).as_strided([4, 9], [14, 1], 3)
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
base = lambda t: torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,)); fresh = lambda t: base(t).clone().as_strided(t.shape, t.stride(), t.storage_offset())  # fresh: a copy of t's storage, viewed as t
def call():
    global w; r = torch.ops.aten.silu_.default((w := fresh(t0)))
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.silu_.default(t0.to(torch.float64, copy=True)))  # fp64: the op on float64 copies
BOUNDS = [(1.2188905174070896e-07, 1.5876298025250435)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['silu_']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
m = torch.ones_like(base(t0), dtype=torch.bool); m.as_strided(t0.shape, t0.stride(), t0.storage_offset()).fill_(False); bits = lambda t: t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])  # m: outside the view
out_c = int((bits(base(w)) != bits(base(t0)))[m].sum())
assert not out_c, f"writes_outside_view: it changed {out_c} elements of the base outside the view"
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
