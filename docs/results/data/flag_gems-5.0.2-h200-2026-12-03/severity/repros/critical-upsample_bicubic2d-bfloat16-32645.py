# opscreen repro: case 32645, upsample_bicubic2d served by flag_gems.upsample_bicubic2d (bfloat16, class options), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail numeric_error: out0: err_ulp 3.731e+04 > max(2*err_ulp_n=1, 1); err_abs too
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAWAIAAAB0MHEBY3RvcmNoLl91dGlscwpfcmVidWlsZF90ZW5zb3JfdjIKcQIoKFgHAAAAc3RvcmFnZXEDY3RvcmNoCkJGbG9hdDE2U3RvcmFnZQpxBFgBAAAAMHEFWAMAAABjcHVxBkvSdHEHUUsAS9KFcQhLAYVxCYljY29sbGVjdGlvbnMKT3JkZXJlZERpY3QKcQopUnELdHEMUnENcy5QSwcIBJKYGKYAAACmAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAXABUAYXJjaGl2ZS8uZm9ybWF0X3ZlcnNpb25GQhEAWlpaWlpaWlpaWlpaWlpaWloxUEsHCLfv3IMBAAAAAQAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAGgA3AGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50RkIzAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWjY0UEsHCD93cekCAAAAAgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAEQA/AGFyY2hpdmUvYnl0ZW9yZGVyRkI7AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpabGl0dGxlUEsHCIU94xkGAAAABgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgA+AGFyY2hpdmUvZGF0YS8wRkI6AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWloiP6I/+b7lPmk/zz4wPsS/yr5cP+e+nr8OPiC/Lz2RP1W+UEDUPqg+vj95P3m9wD/wvts+1z9VP7a/hr8mvhQ/uj+Wv1S+lTzRPh6+J72GvwtALz8mP6M/978zv4W/yT8TQBi/XT6Gvt0/G7/4PgrAmj5GP5C/sj6tP8k+AT8yP0a6o7+Dv5m9er8NQPQ/tz+3P3q+gT+pPsS/Uj8DP8M/jj8AP1y+9L8ePri/Vr+DP0W/z76bvw9AoL5ivd+95r3Lvl2/Uj6wvje+QD8lwKS/XD75PpW/rj+nPqW/u79cv8y/K8CDPVq5UL4QQCM9gr6HPyW+Cr4KPx+/xT/5vbe/Aj8JPwk/qT+gvvy/Fr8PP0+/0T84P1S/Sj+rvwY/oL9lvyo/0r0SwFQ+hL/2vhW/yL0vQMG+XD+tvhg/lL9NP1E+Y7/DvwTAO7/LPhbAfT5GPwZAvD4VvzS/VL7avoE/Oz/3vfk+pT0rv80+yj/Hvyw+lb+GP4i/W7/SPBI/AD87P6O/kT/9Ppo+jr1PP6e/Bb/PvgBAyT0UQM89h7+VPSQ/jT9QSwcIqZjIY6QBAACkAQAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPAB8AYXJjaGl2ZS92ZXJzaW9uRkIbAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWjMKUEsHCNGeZ1UCAAAAAgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAHgAyAGFyY2hpdmUvLmRhdGEvc2VyaWFsaXphdGlvbl9pZEZCLgBaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMTU3MjgxOTk1MTE4NTQ2NDMwMjYwMzUxMjEyMDUyODQ0MzYwMjY2OFBLBwjbUqteKAAAACgAAABQSwECAAAAAAgIAAAAAAAABJKYGKYAAACmAAAAEAAAAAAAAAAAAAAAAAAAAAAAYXJjaGl2ZS9kYXRhLnBrbFBLAQIAAAAACAgAAAAAAAC379yDAQAAAAEAAAAXAAAAAAAAAAAAAAAAAPYAAABhcmNoaXZlLy5mb3JtYXRfdmVyc2lvblBLAQIAAAAACAgAAAAAAAA/d3HpAgAAAAIAAAAaAAAAAAAAAAAAAAAAAFEBAABhcmNoaXZlLy5zdG9yYWdlX2FsaWdubWVudFBLAQIAAAAACAgAAAAAAACFPeMZBgAAAAYAAAARAAAAAAAAAAAAAAAAANIBAABhcmNoaXZlL2J5dGVvcmRlclBLAQIAAAAACAgAAAAAAACpmMhjpAEAAKQBAAAOAAAAAAAAAAAAAAAAAFYCAABhcmNoaXZlL2RhdGEvMFBLAQIAAAAACAgAAAAAAADRnmdVAgAAAAIAAAAPAAAAAAAAAAAAAAAAAHQEAABhcmNoaXZlL3ZlcnNpb25QSwECAAAAAAgIAAAAAAAA21KrXigAAAAoAAAAHgAAAAAAAAAAAAAAAADSBAAAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkUEsGBiwAAAAAAAAAHgMtAAAAAAAAAAAABwAAAAAAAAAHAAAAAAAAAM8BAAAAAAAAeAUAAAAAAABQSwYHAAAAAEcHAAAAAAAAAQAAAFBLBQYAAAAABwAHAM8BAAB4BQAAAAA=")))
t0 = X["t0"].to(D).view([2, 3, 7, 5])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
call = lambda: flat(torch.ops.aten.upsample_bicubic2d.default(t0, [15, 11], False, 2.0))
native = call()
oracle = flat(torch.ops.aten.upsample_bicubic2d.default(t0.to(torch.float64), [15, 11], False, 2.0))  # fp64: the op on float64 copies
BOUNDS = [(0.0147037355636499, 1)]  # per output, what the daemon's rule allowed: (abs, ULP) error, a test's level
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['upsample_bicubic2d']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
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
