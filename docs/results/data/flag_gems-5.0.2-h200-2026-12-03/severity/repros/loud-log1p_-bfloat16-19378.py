# opscreen repro: case 19378, log1p_ served by flag_gems.log1p_ (bfloat16, class noncontig), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: RecursionError: maximum recursion depth exceeded
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAWAIAAAB0MHEBY3RvcmNoLl91dGlscwpfcmVidWlsZF90ZW5zb3JfdjIKcQIoKFgHAAAAc3RvcmFnZXEDY3RvcmNoCkJGbG9hdDE2U3RvcmFnZQpxBFgBAAAAMHEFWAMAAABjcHVxBk0xAnRxB1FLAE0xAoVxCEsBhXEJiWNjb2xsZWN0aW9ucwpPcmRlcmVkRGljdApxCilScQt0cQxScQ1zLlBLBwhbNB/3qAAAAKgAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABcAEwBhcmNoaXZlLy5mb3JtYXRfdmVyc2lvbkZCDwBaWlpaWlpaWlpaWlpaWloxUEsHCLfv3IMBAAAAAQAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAGgA3AGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50RkIzAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWjY0UEsHCD93cekCAAAAAgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAEQA/AGFyY2hpdmUvYnl0ZW9yZGVyRkI7AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpabGl0dGxlUEsHCIU94xkGAAAABgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgA+AGFyY2hpdmUvZGF0YS8wRkI6AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlrCPz8/sD/7PyI/yD+QP6Y/nj+iP6w/0j9FP5w/7z84P4Y/iz+cPyk/jT9kP4s/Dz8fP48/5T8MPxc/3T+5P5A/lj/nP2U/sD+fP9s/BT/XP9M/tj8JPxY/tD/JP9A/0j/GP9U/Tj/lP6o/+D8JPxw/vz/rP9Q/2j+cP5M/PT9lP5k/aD+APy0/nz/mP58/oD+WPx8/3z+sP/c/wj/dPxU/Zz/3P6E/0D/aP30/oj/OP2Q/JT+tP6Q/Fj/nP5g/sT9qP7A/iT9HP8k/Fj+iP4U/4z/OPx8/iD+1P+4/gj+4P70/tD/wPzQ/2j/uP78/GD9PP9c/fz/yP5U/rj/aP0w/TD/iPw4/oj/WP/M/tj/kP6w/jT+4PyU/bT+wP9Y/wD/fP94/lT+fP/w/nz/1P8M/zT/NP1s/yj/+P7U/yT/YP2I/jj+8Pwc/uT/SP2k/ST+SP2U/aD/ZP9Q/Fj/hP8Y/qD+yP3o/Az+UP3Y/tT+YP6I/UD9FP/U/+T/OPxk/3j/kPzM/sT/vP4M/8z+qP2o/XT8UP/4/sT/AP4I/rj9OP6A/2T8aP/U/6z+dP4M/1j/kPzs/wz/bP4A/qj9+P6M/qD/sPwQ/0z/UP6U/KT/iP84/5T/nP2c/Yj/HPzA/nz/TPxE/Gj+BP68/Tz/CP1E/jD9TP/o/FT/CP8E/Vj/aP2Q/Yj9eP7A/JD8zPzY/1T/rP+s/mj/lP1Q/gT/jP0M/Kj+hP7c/6j+GP7M/5j/UP8w/oD/FP2s/8j+8P8U/cD+EP34/3j9HP5Q/6z8SP6Y/oT8lP4Y/Kj+cPxk/yD/MP5E/fj/mP2U/ij9QP/Y/jT+wP+U/dT/cP6k/rD+sP2I/nT9aP/8/kj8WP6E/ij8aP98/6z/pP98/rj+OP58/kz84P84/vT+VPxw/wT+uP+s/zj/4P/M/xj8UP7M/0z/gPxY/iT94Pw0/PT8cP8Q/hj/NP1Q/hD+TP4U/Wz/HP7Y/PT+tP20/6j9oP/s/kT/YP3Q/9z8PP28/Nj/GPzc/OT9hP/w/oD9FPyk/tD9OP/E/Rz+aP30/1D+sP5E/qD81P3Y/zT+mP5g//T+xP7k//j8iP5s/dj9VP9A/8T/hP/E/gD/8P4Q/6z/HP3U/VD/EP7E/Kz+5P6g/bj/2P8k/UD+VP54/0D9gP7c/QT/MPxk/5j8qP10/oj9KP2o/Qj+0P6U/8T/8P8s//j9HP44/uz9eP9k/+z+WP+E/yj9uP6o/5T/VP84/3D93P8U/lz+8P8M/2z9dP/Y/Fz/7P0k/3z8rPyI/rT8+PxM/9T/VP8Y/WT/mP4k/iz/TPyo/Kz8KP8Y/uj+MP54/VD8OP3g/BD+rP1M/tD8vP8g/FT/OP90/eT/OP6E/oz9pP6I/wj/fP5I/hz8nP6Q/SD91P0g/Gj+HPxs/vj/DP+E/Bj+xP58/nT8tP18/Xj/xP24/vj/rP9k/CT9iP2c/IT+jP4U/bz96P6I/ij+BPz0/4j+1P4U/ID9QSwcIe4cjImIEAABiBAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPACEAYXJjaGl2ZS92ZXJzaW9uRkIdAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWloxNTcyODE5OTUxMTg1NDY0MzAyNjA3NDA5NDg3NzU1MzExODE0MDQyUEsHCHT5oGYoAAAAKAAAAFBLAQIAAAAACAgAAAAAAABbNB/3qAAAAKgAAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAA+AAAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAAUQEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAA0gEAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAHuHIyJiBAAAYgQAAA4AAAAAAAAAAAAAAAAAVgIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAAMgcAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAAB0+aBmKAAAACgAAAAeAAAAAAAAAAAAAAAAAJIHAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAHAAAAAAAAAAcAAAAAAAAAzwEAAAAAAAA4CAAAAAAAAFBLBgcAAAAABwoAAAAAAAABAAAAUEsFBgAAAAAHAAcAzwEAADgIAAAAAA==")))
t0 = X["t0"].to(D).as_strided([17, 33], [1, 17])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
base = lambda t: torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,)); fresh = lambda t: base(t).clone().as_strided(t.shape, t.stride(), t.storage_offset())  # fresh: a copy of t's storage, viewed as t
def call():
    global w; r = torch.ops.aten.log1p_.default((w := fresh(t0)))
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.log1p_.default(t0.to(torch.float64, copy=True)))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['log1p_']):
    try:
        cands = [call() for _ in range(1)]
    except Exception as e:
        raise AssertionError(f"it raises where native does not: {e!r}") from e
m = torch.ones_like(base(t0), dtype=torch.bool); m.as_strided(t0.shape, t0.stride(), t0.storage_offset()).fill_(False); bits = lambda t: t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])  # m: outside the view
out_c = int((bits(base(w)) != bits(base(t0)))[m].sum())
assert not out_c, f"writes_outside_view: it changed {out_c} elements of the base outside the view"
for k, C in enumerate(cands, 1):
    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"
    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, [])):
        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} {list(c.shape)}, native {n.dtype} {list(n.shape)}"
        check and c.numel() and check(f"call {k} out{i}", c, n, o.to(c.device), BOUNDS and BOUNDS[i])
