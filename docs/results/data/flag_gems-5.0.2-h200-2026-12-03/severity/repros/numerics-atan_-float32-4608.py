# opscreen repro: case 4608, atan_ served by flag_gems.atan_ (float32, class views), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail numeric_error: out0: err_abs 1.19497e-07 > max(2*err_abs_n=8.27112e-08, 2R=5.79851e-08)
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAWAIAAAB0MHEBY3RvcmNoLl91dGlscwpfcmVidWlsZF90ZW5zb3JfdjIKcQIoKFgHAAAAc3RvcmFnZXEDY3RvcmNoCkZsb2F0U3RvcmFnZQpxBFgBAAAAMHEFWAMAAABjcHVxBktRdHEHUUsAS1GFcQhLAYVxCYljY29sbGVjdGlvbnMKT3JkZXJlZERpY3QKcQopUnELdHEMUnENcy5QSwcIJNHDxKMAAACjAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAXABgAYXJjaGl2ZS8uZm9ybWF0X3ZlcnNpb25GQhQAWlpaWlpaWlpaWlpaWlpaWlpaWloxUEsHCLfv3IMBAAAAAQAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAGgA3AGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50RkIzAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWjY0UEsHCD93cekCAAAAAgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAEQA/AGFyY2hpdmUvYnl0ZW9yZGVyRkI7AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpabGl0dGxlUEsHCIU94xkGAAAABgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgA+AGFyY2hpdmUvZGF0YS8wRkI6AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlqE1qE+kBhqPoPRQb8mG5E/81fzPhx+KD/k3jA/zgOYvpzwF0BTe0E+BNlBveDgTD5lCXm9rgeLP33waD58ei0+uZE9P4Kpjb5cJ/m+Jh8Gv8BvY75NaBg+WWwqPx2itr9u+vo/dTD9vnzNcT9copi/IlCnPnE9ur8NY5O/BDpQPljJdT7i/dw/r1s0vyUdRD9L8qU/EsjkvyrjKL+ouNO/xvAxvLqlFT+QnK0/Qau5P6o/hz6xJcc/Gn6mP7mS37/Kvjs/v6ADPly7Yj+emJ2/47l2v7akCECcGHw/CQkov7nJBL4ry7s/ZSaqv9V6kL2GM5i/bJyovdhRGT9hBEs+AHyFv37Ijr9OnQFAe0OJP/skIb/olYG/lhQmQEh+nL8amqM/XSqNv0IbH7/oYKa/eKGpPk33IT1Wrpk/xzS6PkNJTz9QSwcIRbn3v0QBAABEAQAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPAD8AYXJjaGl2ZS92ZXJzaW9uRkI7AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWloxNTcyODE5OTUxMTg1NDY0MzAyNjA2NzIyMTUyNDMyOTIzNDI4NDIxUEsHCJqmVg8oAAAAKAAAAFBLAQIAAAAACAgAAAAAAAAk0cPEowAAAKMAAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAA8wAAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAAUQEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAA0gEAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAEW5979EAQAARAEAAA4AAAAAAAAAAAAAAAAAVgIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAAFAQAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAACaplYPKAAAACgAAAAeAAAAAAAAAAAAAAAAAJIEAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAHAAAAAAAAAAcAAAAAAAAAzwEAAAAAAAA4BQAAAAAAAFBLBgcAAAAABwcAAAAAAAABAAAAUEsFBgAAAAAHAAcAzwEAADgFAAAAAA==")))
t0 = X["t0"].to(D).as_strided([4, 9], [2, 9], 1)
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
base = lambda t: torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,)); fresh = lambda t: base(t).clone().as_strided(t.shape, t.stride(), t.storage_offset())  # fresh: a copy of t's storage, viewed as t
def call():
    global w; r = torch.ops.aten.atan_.default((w := fresh(t0)))
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.atan_.default(t0.to(torch.float64, copy=True)))  # fp64: the op on float64 copies
BOUNDS = [(8.2711156590420387e-08, 1.8912136852741241)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['atan_']):
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
