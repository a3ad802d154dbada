# opscreen repro: case 27243, round_ served by flag_gems.round_ (bfloat16, class noncontig), after the calls
# flag_gems 5.0.2 (source sha256 74831636e8a1cc69), torch 2.11.0+cu130, triton 3.6.0, cuda 13.0, driver 580.159.04, NVIDIA H200, python 3.12.3
# judged: fail raises: ValueError: round Triton kernel currently supports only contiguous tensors.
# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls native PyTorch in the library's place.
import base64, contextlib, io, os, torch
import flag_gems as lib
D, nan, inf = 'cuda', float('nan'), float('inf')
X = torch.load(io.BytesIO(base64.b64decode("UEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAQABIAYXJjaGl2ZS9kYXRhLnBrbEZCDgBaWlpaWlpaWlpaWlpaWoACfXEAWAIAAAB0MHEBY3RvcmNoLl91dGlscwpfcmVidWlsZF90ZW5zb3JfdjIKcQIoKFgHAAAAc3RvcmFnZXEDY3RvcmNoCkJGbG9hdDE2U3RvcmFnZQpxBFgBAAAAMHEFWAMAAABjcHVxBk0xAnRxB1FLAE0xAoVxCEsBhXEJiWNjb2xsZWN0aW9ucwpPcmRlcmVkRGljdApxCilScQt0cQxScQ1zLlBLBwhbNB/3qAAAAKgAAABQSwMEAAAICAAAAAAAAAAAAAAAAAAAAAAAABcAEwBhcmNoaXZlLy5mb3JtYXRfdmVyc2lvbkZCDwBaWlpaWlpaWlpaWlpaWloxUEsHCLfv3IMBAAAAAQAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAGgA3AGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50RkIzAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWjY0UEsHCD93cekCAAAAAgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAAEQA/AGFyY2hpdmUvYnl0ZW9yZGVyRkI7AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpabGl0dGxlUEsHCIU94xkGAAAABgAAAFBLAwQAAAgIAAAAAAAAAAAAAAAAAAAAAAAADgA+AGFyY2hpdmUvZGF0YS8wRkI6AFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlqqvwo+wz6wPzo+cT8fvke+eD6cP0a/Vz+APj5AvL8mwOk/8L0nP0i/BT5gv789pb9Iv0Q/8T8JQOw9xL4nP4S/EL6fv7W/Yr/qPyy/Hj8PwHs/Sz8AP9a/p7/nPlO/5r4NP0I/p79fP/m+QD9HP5y/9D08v1G/Sb6YPMa+hD4WvQ4/vT/dP8W/pr+XP9i+LT+WP6u+LD84vxzAxD/nPhPA5b8Fv2y/DT9Tvp+/r76KvzG/fT+XPju/Vz+qP4q9C78lPnM8LT+Rvwq/kz7cvhK8qb5Cv5k/mL9CP9o/qb9Bv6u+3b85vqg/nb7LP4Q/T78YP6W+Db9JP2+/7D/QPfi/fj+IP8M+qb8AP2M/Bj83P6q+gT+Vv7M+iz9QPy4/Fj8rPxG7kr/8PTi+ir5MP8k/mL8SPw2/YT9hv1M/Hb9uP0C/0D5VP4i/hz0ivgw+Gz+qPzg+cj+lPuu82r+ivsQ/L78Ov4O96zxgv6M+lz3nPhY+hT4Tvwk/mr/Dv3m9MD97vdK+ir8yv4m+rD5JvxY/Dj+Kv5c/cr9GP6i/pD29P4a9Bb/RPza/Hr/0vhdAcj8sP8W/EkB/P6s/bL3pvou+5r1pvqS/w78Avpo+JMD9vg8/nL8qPyA/wD/3vU48Er+4v9m/1D5dvpU7lT+APiQ/Zz7DvUe/mL1vvqW/PT9CP8g//r7rvl++x77JPqO/Ur3NP6I+uz4FwEc/4z6Wv5+8db5bvtM/nr8/v70/AT+Qv6Q/EMC8vgVAZr9gv4w/Lb1EP14/3b8bv5G/ST8nvqK7mD/Dv7Q+mT4WPpA/kT8GwOS9mD/gv0s9Cj6zPm6/lz4iv7U/Ub+zvyK/+725P9c/lz/UPX0+a7/aPWg/HsAsPg3AGL8Gv9y/eL0BPqq+F7+0vjI/jb4hv2M/W78avr+/Uj9Wv8K+Cz/NvlI/yD9MP3I+Er+aPl2/rL6xv2W/TL84va4+wT9CvrG+hDwfQJU/+T/KP8I/X78pwOO/rb+fv9o/J0CVvpg+UL9yPrM/c761vq0/VT1Lv3k/kz+yv3M+ir6UvG8/9j1nPo4/bD+KO5G9kL2ivy8/7r0jvrs/D0BPPy4+gb/HPmG/+j0wQJ895D6YP94+vj/QP6Y/Fj+YP6+99D7Uvbk//T7Lvxg/B7+Tv9A/QD7gPhW/+z0LPxC/3b9ovra+tj6nv+Q8YT0wv94+GT90vk8/GL1Gv+y+cD4av3e/K8CoP2E+wD6qvnW+/7+Hvqe//DzPP9o+pL6jv1o/Yr4HwMS+br+TPxq/gj66PwO/ur8eQBq9fD4sPg5Amj/0vki/Gr/Rv7e+u78LP8A/lz9Kv9m/qr5FPgo/XD/HPnY/az+jv6w+Ir/dPuc+Dz+Tv7M/I7/Nvxe+v79jPw3AOb0Ov4q9l73vvc2/NL0kwMk+Lj/ev6+/cL+Tv76/Ar8uQB8+or9AvwRAAMBlvrc/tj6BP7K+Dr0dP5k/JbsEP/W85T/NvxE9fD+ivo+/ub9QSwcIyBhlBWIEAABiBAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAPACEAYXJjaGl2ZS92ZXJzaW9uRkIdAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaMwpQSwcI0Z5nVQIAAAACAAAAUEsDBAAACAgAAAAAAAAAAAAAAAAAAAAAAAAeADIAYXJjaGl2ZS8uZGF0YS9zZXJpYWxpemF0aW9uX2lkRkIuAFpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWloxNTcyODE5OTUxMTg1NDY0MzAyNjA3NDA5NDg3NzI1ODMzMzM4MTMwUEsHCLnlKOIoAAAAKAAAAFBLAQIAAAAACAgAAAAAAABbNB/3qAAAAKgAAAAQAAAAAAAAAAAAAAAAAAAAAABhcmNoaXZlL2RhdGEucGtsUEsBAgAAAAAICAAAAAAAALfv3IMBAAAAAQAAABcAAAAAAAAAAAAAAAAA+AAAAGFyY2hpdmUvLmZvcm1hdF92ZXJzaW9uUEsBAgAAAAAICAAAAAAAAD93cekCAAAAAgAAABoAAAAAAAAAAAAAAAAAUQEAAGFyY2hpdmUvLnN0b3JhZ2VfYWxpZ25tZW50UEsBAgAAAAAICAAAAAAAAIU94xkGAAAABgAAABEAAAAAAAAAAAAAAAAA0gEAAGFyY2hpdmUvYnl0ZW9yZGVyUEsBAgAAAAAICAAAAAAAAMgYZQViBAAAYgQAAA4AAAAAAAAAAAAAAAAAVgIAAGFyY2hpdmUvZGF0YS8wUEsBAgAAAAAICAAAAAAAANGeZ1UCAAAAAgAAAA8AAAAAAAAAAAAAAAAAMgcAAGFyY2hpdmUvdmVyc2lvblBLAQIAAAAACAgAAAAAAAC55SjiKAAAACgAAAAeAAAAAAAAAAAAAAAAAJIHAABhcmNoaXZlLy5kYXRhL3NlcmlhbGl6YXRpb25faWRQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAAHAAAAAAAAAAcAAAAAAAAAzwEAAAAAAAA4CAAAAAAAAFBLBgcAAAAABwoAAAAAAAABAAAAUEsFBgAAAAAHAAcAzwEAADgIAAAAAA==")))
t0 = X["t0"].to(D).as_strided([17, 33], [1, 17])
flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else [t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]
base = lambda t: torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,)); fresh = lambda t: base(t).clone().as_strided(t.shape, t.stride(), t.storage_offset())  # fresh: a copy of t's storage, viewed as t
def call():
    global w; r = torch.ops.aten.round_.default((w := fresh(t0)))
    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), "it returned a new tensor, not the one it wrote"
    return flat(r)
native = call()
oracle = flat(torch.ops.aten.round_.default(t0.to(torch.float64, copy=True)))  # fp64: the op on float64 copies
BOUNDS = None
with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else lib.use_gems(include=['round_']):
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
