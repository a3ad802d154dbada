"""Renders a case as a standalone Python script of about 30 lines that a
person can paste into an upstream issue (docs/protocol.md, "Repro").

The script imports torch and the library only. It holds the case's inputs
as explicit tensors: the values of each input's storage, written so that
they come back bit for bit, then its view (`.view`, `.as_strided`); inputs
of more than INLINE elements in all travel as one line of base64 of a
torch.save'd dict. It calls the aten operator through the dispatcher
without the library (native) and with only the case's name enabled
(`use_gems(include=[name])`), computes the fp64 oracle as the runner does
(the same op on float64 copies) and asserts what the daemon judges: the
candidate does not raise where native does not, shapes and dtypes are
native's, exact outputs equal the oracle, NaN/inf stand where the oracle's
do (or native's), float errors stay within BOUNDS. BOUNDS (per output, the
bounds the rule allowed) and the `# judged:` line are written by the daemon
from its verdict (daemon/repro.c); the runner writes no threshold.

Two renderings: `pre_call` before any call (sent with STARTED; it stands for
a crash or a hang, and embeds at most PRE_CALL_BYTES of inputs, random
values of the same shapes, dtypes and strides beyond), and the one after the
calls (sent with a RESULT whose figures leave the candidate worse than
native somewhere: `may_fail`), which also knows the outputs' kinds, whether
later calls or the guard mattered, and embeds up to EMBED_BYTES.
"""

import ast
import base64
import functools
import inspect
import io
import json
import os
import platform
import shlex
import textwrap

import torch

from . import figures, inputs, kernels, modes

INLINE = 64  # elements of all inputs written as literals; more: base64
PRE_CALL_BYTES = 64 << 10
EMBED_BYTES = 4 << 20  # a RESULT frame stays well under the 16 MiB bound
# inputs whose torch.save'd bytes pass this go to a file beside the script
# (when the caller takes files: render's `files`), so that a repro stays a
# page a person reads (the demo's uniform_ repro held 354 KB of base64)
FILE_BYTES = 8 << 10
GUARD = inputs.GUARD

_INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
_TAG = "opscreen repro: case "
# CUDA reports a kernel's fault at the next synchronisation: inside the
# candidate's try, so that a fault reads "it raises where native does not"
# (on the H200 a 2^31-element mul faulted at the sampling after it)
_SYNC = "; torch.cuda.synchronize() if D.startswith('cuda') else None"


def _bits(t):
    """t's bytes as integers of its size (bitwise comparison for any dtype)."""
    t = t.contiguous()
    if t.is_complex():
        t = torch.view_as_real(t).contiguous()
    if t.dtype == torch.bool:
        return t.view(torch.uint8)
    return t.view(_INT_OF_SIZE[t.element_size()])


def _dtype(dt):
    return "torch." + inputs.dtype_name(dt)


def _num(v):
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return None


def _float_literals(flat):
    """Shortest decimal strings that give flat's values back bit for bit
    through torch.tensor(..., dtype=VIA).to(flat.dtype)."""
    # float64 as the runner casts (inputs._cast: its NaN is float64's, which
    # float32 would carry to bfloat16 as another NaN); e8m0 through float32
    via = torch.float32 if flat.dtype == getattr(torch, "float8_e8m0fnu", None) \
        else torch.float64
    vals = flat.to(torch.float64).tolist()
    out = [_num(v) for v in vals]
    want = _bits(flat)
    for p in range(1, 18):
        todo = [i for i, s in enumerate(out) if s is None]
        if not todo:
            break
        strs = ["%.*g" % (p, vals[i]) for i in todo]
        back = torch.tensor([float(s) for s in strs], dtype=via).to(flat.dtype)
        ok = (_bits(back) == want[todo]).tolist()
        for i, s, good in zip(todo, strs, ok):
            if good:
                out[i] = s if any(ch in s for ch in ".e") else s + ".0"
    return [s if s is not None else repr(v) for s, v in zip(out, vals)], via


def _literal(flat):
    """A torch expression on device D holding the 1-D CPU tensor flat."""
    dt = flat.dtype
    if dt.is_complex:
        real = torch.view_as_real(flat).reshape(-1)
        return f"{_literal(real)}.view({_dtype(dt)})"
    if dt.is_floating_point:
        lits, via = _float_literals(flat)
        back = torch.tensor([float(v) for v in lits], dtype=via).to(dt)
        if torch.equal(_bits(back), _bits(flat)):
            to = "" if dt == via else f".to({_dtype(dt)})"
            return f"torch.tensor([{', '.join(lits)}], dtype={_dtype(via)}, device=D){to}"
        # a NaN payload no literal carries: the bits themselves
        ints = _bits(flat)
        return f"torch.tensor({ints.tolist()}, dtype={_dtype(ints.dtype)}, device=D)" \
            f".view({_dtype(dt)})"
    vals = [int(v) for v in flat.tolist()]
    return f"torch.tensor({vals}, dtype={_dtype(dt)}, device=D)"


def _storage(t):
    """(t's storage as a flat tensor of t.dtype on its device, no copy; the
    view of it that is t, as a suffix)."""
    n = t.untyped_storage().nbytes() // t.element_size()
    shape, stride = list(t.shape), list(t.stride())
    if t.is_contiguous() and t.storage_offset() == 0 and n == t.numel():
        return t.detach().reshape(-1), "" if len(shape) == 1 else f".view({shape})"
    flat = torch.empty(0, dtype=t.dtype, device=t.device).set_(
        t.untyped_storage(), 0, (n,), (1,))
    off = t.storage_offset()
    return flat, f".as_strided({shape}, {stride}" + (f", {off})" if off else ")")


def _on_device(t):
    return t.device.type != "cpu"


def _to_host(flats):
    """Host copies of 1-D contiguous tensors, bit for bit, in one transfer:
    their bytes concatenated on their device and copied back once. Reading
    each input back twice (the constant check, then the copy) was a GPU
    round trip each, and under cuda_sync = auto a synchronisation with 14
    runners on one GPU spins a core: a repro took 2.3 ms a case in the warm
    whole-table screen of 2026-12-04 (docs/results/
    flag_gems-5.0.2-h200-severity.md)."""
    if not flats:
        return []
    raw = torch.cat([f.detach().view(torch.uint8) for f in flats]).cpu()
    out, off = [], 0
    for f in flats:
        nb = f.numel() * f.element_size()
        out.append(raw[off:off + nb].clone().view(f.dtype))
        off += nb
    return out


def _constant(flat):
    """The one value of a non-empty flat tensor whose elements are all the
    same bits (an out= buffer), else None."""
    if flat.numel() < 2:
        return None
    b = _bits(flat)
    if not bool((b == b[0]).all()):
        return None
    v = flat[0].item()
    if isinstance(v, float):
        return _num(v) or repr(v)
    return repr(v)


def _random(t):
    """Values of the same shape, dtype and strides (inputs not embedded)."""
    n = t.untyped_storage().nbytes() // t.element_size()
    dt = t.dtype
    if dt == torch.bool:
        gen = f"torch.randint(0, 2, [{n}], device=D).bool()"
    elif dt.is_floating_point or dt.is_complex:
        gen = f"torch.randn([{n}], dtype=torch.float64, device=D).to({_dtype(dt)})"
    else:
        gen = f"torch.randint(0, 100, [{n}], device=D).to({_dtype(dt)})"
    return gen


_ARANGE = ["def arange_mod(n, start, m, dt):  # element i holds (start + i) % m, "
           "made 2^26 at a time",
           "    t = torch.empty(n, dtype=dt, device=D)",
           "    for i in range(0, n, 1 << 26):",
           "        t[i:i + (1 << 26)] = torch.arange(start + i, start + min(n, i + (1 << 26)), "
           "device=D) % m",
           "    return t"]


class _Inputs:
    """The input tensors of one case as named script lines. arange: tensors
    (by id) whose spec has "gen": "arange", written as that index arithmetic."""

    def __init__(self, args, kwargs, budget, arange=None, files=None, file_name=None):
        self.lines, self.names, self.data, self.note = [], {}, {}, ""
        arange = arange or {}
        tensors = []

        def walk(v):
            if isinstance(v, torch.Tensor) and id(v) not in self.names:
                self.names[id(v)] = f"t{len(tensors)}"
                tensors.append(v)
            elif isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
        for a in list(args) + [kwargs[k] for k in sorted(kwargs)]:
            walk(a)
        stores = [_storage(t) for t in tensors]
        if any(_on_device(f) for f, _ in stores) and \
                sum(f.numel() * f.element_size() for f, _ in stores) <= budget:
            stores = list(zip(_to_host([f for f, _ in stores]), [v for _, v in stores]))
        consts = [None if id(t) in arange else _constant(f)
                  for t, (f, _) in zip(tensors, stores)]
        varied = [f for t, (f, _), c in zip(tensors, stores, consts)
                  if c is None and id(t) not in arange]
        count = sum(f.numel() for f in varied)
        size = sum(f.numel() * f.element_size() for f in varied)
        embed = count > INLINE and size <= budget
        if count > INLINE and not embed:
            self.note = (f"# The inputs ({size / 2**20:.1f} MiB) are not embedded: random "
                         "values of the case's shapes, dtypes and strides.")
        if arange:
            self.lines += _ARANGE
        for t, (flat, view), c in zip(tensors, stores, consts):
            name = self.names[id(t)]
            if id(t) in arange:
                sp = arange[id(t)]
                src = (f"arange_mod({flat.numel()}, {int(sp.get('start', 0))}, "
                       f"{int(sp.get('mod', 251))}, {_dtype(t.dtype)})")
            elif c is not None:
                src = f"torch.full([{flat.numel()}], {c}, dtype={_dtype(t.dtype)}, device=D)"
            elif count <= INLINE:
                src = _literal(flat.cpu().clone())
            elif embed:
                self.data[name] = flat.cpu().clone()
                src = f'X["{name}"].to(D)'
            else:
                src = _random(t)
            self.lines.append(f"{name} = {src}{view}")
        if self.data:
            buf = io.BytesIO()
            torch.save(self.data, buf)
            blob = base64.b64encode(buf.getvalue()).decode()
            if files is not None and file_name and len(buf.getvalue()) > FILE_BYTES:
                # the same bytes, in a file the daemon serves beside the script
                files["inputs"] = blob
                self.lines.insert(0, "X = torch.load(io.BytesIO(base64.b64decode(open(os.path."
                                  "join(os.path.dirname(os.path.abspath(__file__)), "
                                  f'"{file_name}")).read())))  # its inputs, a file beside it')
            else:
                self.lines.insert(0, f'X = torch.load(io.BytesIO(base64.b64decode("{blob}")))')

    def name(self, t):
        return self.names[id(t)]


def _scalar(v, oracle):
    if isinstance(v, torch.dtype):
        return _dtype(inputs.upcast(v) if oracle else v)
    if isinstance(v, torch.device):
        return "torch.device(D)"
    if isinstance(v, torch.memory_format):
        return str(v)
    if isinstance(v, float):
        return _num(v) or repr(v)
    return repr(v)


def _expr(v, ins, oracle, written, guard):
    """The script expression of one argument value."""
    if isinstance(v, torch.Tensor):
        n = ins.name(v)
        fl = v.is_floating_point() or v.is_complex()
        up = "torch.complex128" if v.is_complex() else "torch.float64"
        if oracle:
            if fl:
                return f"{n}.to({up}, copy=True)" if written else f"{n}.to({up})"
            return f"{n}.clone()" if written else n
        if guard is not None and inputs.poison(v.dtype, guard) is not None and \
                v.numel() and v.is_contiguous():
            return f"beside({n}, {_scalar(inputs.poison(v.dtype, guard), False)})"
        return f"{n}.clone()" if written else n
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_expr(x, ins, oracle, written, guard) for x in v) + "]"
    return _scalar(v, oracle)


def _gapped(t):
    """Whether t is a view with gaps or a window into a larger storage (the
    views class): its writes are checked outside the view too."""
    n = t.untyped_storage().nbytes() // max(t.element_size(), 1)
    return not t.is_contiguous() or t.storage_offset() != 0 or n != t.numel()


def _call(op, args, kwargs, ins, mutates, oracle=False, guard=None, callee=None):
    def arg(v, written):
        if written and not oracle and isinstance(v, torch.Tensor) and _gapped(v):
            return f"(w := fresh({ins.name(v)}))"  # the whole storage, viewed
        e = _expr(v, ins, oracle, written, guard)
        return f"(w := {e})" if written and not oracle else e

    parts = [arg(a, mutates == "self" and i == 0) for i, a in enumerate(args)]
    parts += [f"{k}={arg(v, mutates == 'out' and k == 'out')}" for k, v in kwargs.items()]
    if callee is None:
        name = op._schema.name.removeprefix("aten::")
        callee = f"torch.ops.aten.{name}.{op._overloadname}"
    return f"{callee}({', '.join(parts)})"


# The candidate of a case of a deployment mode or of an entry point: OP is
# native (aten, or opscreen's reference of the entry point) until the
# `candidate` context rebinds it to the library's call, compiled (trace) or
# captured in a CUDA graph and replayed (graph).
_MODE_WRAP = {
    "trace": ["CANDIDATE = torch.compile(lambda *a, **k: {c}(*a, **k), fullgraph=True{b})"],
    "graph": ["def captured(fn, st={{}}):  # captured once on copies, replayed on each call",
              "    def run(*a, **k):",
              "        if not st:",
              "            st['a'] = [x.clone() if torch.is_tensor(x) else x for x in a]; "
              "fn(*st['a'], **k); torch.cuda.synchronize(); st['g'] = torch.cuda.CUDAGraph()",
              "            with torch.cuda.graph(st['g']): st['o'] = fn(*st['a'], **k)",
              "        [c.copy_(x) for c, x in zip(st['a'], a) if torch.is_tensor(x)]; "
              "st['g'].replay(); torch.cuda.synchronize(); return st['o']",
              "    return run",
              "CANDIDATE = captured({c})"],
}


@functools.lru_cache(maxsize=None)
def _source(fn):
    """fn's source without its docstring and comments (a repro is short);
    once per function and runner (every case of an entry point renders it)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant) and \
            isinstance(body[0].value.value, str):
        del body[0]
    return ast.unparse(tree)


def _mode_prelude(case, op, entry):
    """Lines defining OP (native) and `candidate` (the with-block in which
    OP is the library's call) for an entry point's or a mode's case, or
    None for an eager aten case (rendered as before)."""
    from . import references
    mode = case.get("class") if case.get("class") in _MODE_WRAP else None
    if not entry and mode is None:
        return None
    name = case.get("name")
    if entry:
        impl, conv = references.IMPLS[name], references.CALLS[name]
        src = "\n".join(_source(f) for f in references.HELPERS.get(name, ()) + (impl,))
        L = (["import torch.nn.functional as F"] if "F." in src else []) + [src]
        cand = f"lib.fused.{name}"
        if conv is not references._direct:
            L.append(_source(conv))
            cand = f"lambda *a, **k: {conv.__name__}(lib.fused.{name}, *a, **k)"
        L.append(f"OP = {impl.__name__}  # native and the oracle: opscreen's reference")
        L.append(f"CANDIDATE = {cand}  # called directly" if mode is None else
                 f"LIBRARY = {cand}  # called directly")
        ctx = "contextlib.nullcontext"
    else:
        o = op._schema.name.removeprefix("aten::")
        L = [f"OP = LIBRARY = torch.ops.aten.{o}.{op._overloadname}"]
        ctx = f"lambda: lib.use_gems(include=[{name!r}])"
        if mode is None:
            L.append("CANDIDATE = OP")
    if mode is not None:
        # the case's backend (runner.compile_backend) where it is not Inductor,
        # read as the runner's call read it
        backend = modes.backend_of(case)
        b = f", backend={backend!r}" if backend != "inductor" else ""
        L += [x.format(c="LIBRARY", b=b) for x in _MODE_WRAP[mode]]
    # the library's call in OP's place for the with-block
    return L + [f"candidate = lambda: (globals().update(OP=CANDIDATE), ({ctx})())[1]"]


def _fingerprint(fp):
    fp = fp or {}
    return (f"# {fp.get('library', '?')} {fp.get('library_version') or '?'} (source sha256 "
            f"{(fp.get('library_hash') or '?')[:16]}), torch {fp.get('torch', torch.__version__)}"
            f", triton {fp.get('triton') or '-'}, cuda {fp.get('cuda') or '-'}, driver "
            f"{fp.get('driver') or '-'}, {fp.get('gpu_name') or 'cpu'}, python "
            f"{fp.get('python', platform.python_version())}")


_FLAT = ("flat = lambda o: [] if o is None else [o] if isinstance(o, torch.Tensor) else "
         "[t for x in o for t in flat(x)] if isinstance(o, (list, tuple)) else [torch.tensor(o)]")

_CHECKS = {
    "exact": '''def exact(tag, c, n, o, b):  # every value the oracle's (NaN where it has NaN)
    o = o.to(c.dtype)
    c, o = (c.double(), o.double()) if c.is_floating_point() else (c, o)
    bad = (c != o) & ~((c != c) & (o != o))
    assert not bad.any(), f"{tag}: {int(bad.sum())} of {c.numel()} positions differ from the oracle"''',
    "float": '''def close(tag, c, n, o, b):  # NaN/inf where the oracle's (or native's) are; errors within b
    cls, fi = lambda t: t.isnan() + 2 * t.isposinf() + 3 * t.isneginf(), torch.finfo(c.dtype)
    r, c, n = o.to(c.dtype).double(), c.double(), n.double()
    bad = (cls(c) != cls(r)) & ~((c == n) | c.isnan() & n.isnan())
    assert not bad.any(), f"{tag}: {int(bad.sum())} positions where NaN/inf differ from the oracle and from native"
    d, m = torch.where(o.isfinite() & c.isfinite(), (c - o).abs(), 0), torch.where(o.isfinite(), o.abs(), 0)
    ulp = torch.ldexp(torch.full_like(m, fi.eps), torch.frexp(m.clamp(min=2 ** -10 * m.max().item()))[1] - 1)
    e = (d.max().item(), (d / ulp.clamp(min=fi.smallest_normal * fi.eps)).max().item())
    assert b is None or e[0] <= b[0] and e[1] <= b[1], f"{tag}: error {e[0]:.6g} ({e[1]:.4g} ULP), the rule allows {b[0]:.6g} ({b[1]:.4g} ULP)"''',
    "stat": '''def stat(tag, c, n, o, b):  # two-sample Kolmogorov-Smirnov test at the daemon's level b
    x, y = c.double().flatten().sort()[0], n.double().flatten().sort()[0]
    cdf = lambda s: torch.searchsorted(s, torch.cat([x, y]), right=True) / s.numel()
    k = (cdf(x) - cdf(y)).abs().max().item()
    lim = (-0.5 * math.log(b / 2) * (x.numel() + y.numel()) / (x.numel() * y.numel())) ** 0.5
    assert b is None or k <= lim, f"{tag}: KS distance {k:.4g} from native's samples > {lim:.4g}"''',
}
_CHECKS["same"] = '''def same(tag, c, n, o, b):  # native's bytes, position for position
    assert torch.equal(c, n), f"{tag}: {int((c != n).sum())} of {c.numel()} positions differ from native's"'''
_KIND = {"float": "close", "exact": "exact", "sort_values": "exact", "stat": "stat",
         "routed_weights": "routed_w", "routed_ids": "routed",
         "sort_indices": "picks", "shape_only": "None", "bootstrap": "None"}


def _picks(op, args, kwargs, ins):
    """Indices of a sort or a routing: right when they pick the value the
    oracle's pick from the input."""
    dim = figures.bound_arg(op, args, kwargs, "dim")
    x = ins.name(args[0])
    return (f"def picks(tag, c, n, o, b):  # an index is right when it picks the oracle's value\n"
            f"    d = {-1 if dim is None else dim}\n"
            f"    exact(tag, {x}.gather(d, c.long()), n, {x}.gather(d, o.long()), b)")


def _routed(op, args, kwargs, ins):
    """A grouped routing's checks (figures.grouped_routing): the expert ids
    a right routing in fp64 (references.grouped_routing_ok, embedded), the
    weights against fp64's at the experts the candidate picked (C: the
    call's outputs being checked)."""
    from . import references
    arg = lambda name: figures.bound_arg(op, args, kwargs, name)  # noqa: E731
    x, bias = ins.name(arg("scores")), ins.name(arg("bias"))
    sf, ng = int(arg("scoring_func") or 0), int(arg("n_group"))
    tol = references.grouped_tolerance(arg("scores").dtype)
    return [_source(references.grouped_routing_ok),
            "def routed(tag, c, n, o, b):  # a right routing, ties within the tolerance "
            "broken any way",
            f"    ok = grouped_routing_ok({x}, {ng}, {int(arg('topk_group'))}, {bias}, {sf}, "
            f"c, {tol!r})",
            '    assert ok.all(), f"{tag}: {int((~ok).sum())} of {len(ok)} tokens routed '
            'wrong"',
            "def routed_w(tag, c, n, o, b):  # against fp64's weights of the experts it picked",
            f"    s = _grouped_scores({x}.double(), {bias}.double(), {ng}, {sf})[0]",
            f"    close(tag, c, n, _grouped_weights(s, C[1].long().clamp(0, s.shape[1] - 1), "
            f"{bool(arg('renormalize'))}, {float(arg('routed_scaling_factor'))!r}), b)"]


def _kinds(case, result):
    """The checks of each output: from the runner's figures, or None."""
    if not result or not isinstance(result.get("outputs"), list):
        return None
    return [_KIND.get(o.get("kind"), "None") for o in result["outputs"]]


def may_fail(result):
    """Whether a RESULT's figures leave the candidate worse than native
    somewhere (another status, shape, dtype or output count; positions that
    differ from the oracle; an error above native's; a lower p-value; a
    later or guarded call reported; an in-place call that returned a new
    tensor; bytes outside a written view changed). Every failing verdict of daemon/verdict.c needs one of these;
    a result without any is not sent a repro (it would cost a copy of its
    inputs for nothing)."""
    if result.get("status") not in ("ok", "native_error", "both_error", "skipped"):
        return True
    if result.get("status") != "ok":
        return False
    if result.get("repeat") or result.get("guard") or result.get("alias_c") is False:
        return True
    if ((result.get("outside_view_changed") or {}).get("c") or 0) > 0:
        return True  # writes_outside_view
    for o in result.get("outputs") or []:
        if o.get("kind") == "bootstrap":
            if not (o.get("resolves") and o.get("registers")):
                return True
            continue
        if (o.get("cand") is None) != (o.get("native") is None) or o.get("cand") != o.get("native"):
            c, n = o.get("cand") or {}, o.get("native") or {}
            if (c.get("shape"), c.get("dtype")) != (n.get("shape"), n.get("dtype")):
                return True
        if (o.get("mismatch_c") or 0) > 0 or (o.get("nonfinite_mismatch_c") or 0) > 0:
            return True
        for f in ("err_abs", "err_ulp"):
            if (o.get(f + "_c") or 0) > (o.get(f + "_n") or 0):
                return True
        if o.get("p_c") is not None and o["p_c"] < (o.get("p_n") or 1.0):
            return True
    return False


def _arange_specs(case, args, kwargs):
    """id(tensor) -> its spec, for the tensors the case makes by "gen": "arange"."""
    out = {}

    def walk(spec, v):
        if not isinstance(spec, dict):
            return
        if spec.get("gen") == "arange" and isinstance(v, torch.Tensor):
            out[id(v)] = spec
        elif spec.get("t") == "tensors" and isinstance(v, (list, tuple)):
            for sp, x in zip(spec.get("v") or [], v):
                walk(sp, x)
    for sp, v in zip(case.get("args") or [], args):
        walk(sp, v)
    for k, v in kwargs.items():
        walk((case.get("kwargs") or {}).get(k), v)
    return out


def _run_line(case):
    """How to run the script: as a file (a hang's or crash's script runs
    itself again in a child process, daemon/repro.c), with the import path
    the runner had (the demo library is on no default path)."""
    path = os.environ.get("PYTHONPATH", "")
    return (f"Run: {'PYTHONPATH=' + shlex.quote(path) + ' ' if path else ''}"
            f"python3 case-{case.get('id')}.py (saved as a file).")


def inputs_file(case_id):
    """The name of case case_id's inputs file, beside its script (the daemon
    serves it as GET /cases/{id}/inputs)."""
    return f"case-{case_id}.inputs.b64"


def render(case, module, fingerprint, device, op, args, kwargs, result=None, files=None):
    """The script of one case: `pre_call` (result None) or after the calls.
    With files (a dict), inputs of more than FILE_BYTES are not embedded:
    files["inputs"] gets their base64 text, which the script reads from
    inputs_file(case id) beside it."""
    name, mutates = case.get("name"), inputs.mutated(case)
    stat = case.get("compare") == "stat"
    guard = None
    g = (result or {}).get("guard")
    if g and (not g.get("intact", True) or (g.get("changed") and g.get("reproduced"))):
        guard = g.get("poison", "low")
    # data movement past 2^31 elements: native's bytes are the oracle
    moved = bool(case.get("huge")) and case.get("oracle") == "native"
    ins = _Inputs(args, kwargs, EMBED_BYTES if result is not None else PRE_CALL_BYTES,
                  _arange_specs(case, args, kwargs) if moved else None, files,
                  inputs_file(case.get("id")))
    kinds = _kinds(case, result)
    if moved and kinds:
        kinds = ["same" if k == "exact" else k for k in kinds]
    rep = (result or {}).get("repeat")
    calls = int(rep.get("call", 1)) if isinstance(rep, dict) else 1
    imports = ["contextlib", "os", "torch"] + (["base64", "io"] if ins.data else []) + \
        (["math"] if kinds and "stat" in kinds else [])
    what = "pre-call (the runner's calls had not returned)" if result is None else \
        "after the calls"
    L = [f"# {_TAG}{case.get('id')}, {case.get('key')} served by {module}.{name} "
         f"({case.get('dtype')}, class {case.get('class')}), {what}",
         _fingerprint(fingerprint),
         "# judged: not by the daemon (it writes its verdict here)",
         "# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls "
         "native PyTorch in the library's place. " + _run_line(case)]
    if ins.note:
        L.append(ins.note)
    L += ["import " + ", ".join(sorted(imports)), f"import {module} as lib",
          f"D, nan, inf = {device!r}, float('nan'), float('inf')"]
    L += ins.lines
    if guard is not None:
        L += ["G = []",
              f"def beside(t, p):  # t between {GUARD} elements of p either side "
              "(the runner's guard)",
              f"    G.append((torch.full([t.numel() + {2 * GUARD}], p, dtype=t.dtype, "
              "device=D), p))",
              f"    G[-1][0][{GUARD}:-{GUARD}] = t.reshape(-1)",
              f"    return G[-1][0][{GUARD}:-{GUARD}].view(t.shape)"]
    L.append(_FLAT)
    written = kwargs.get("out") if mutates == "out" else \
        args[0] if mutates == "self" and args else None
    if isinstance(written, torch.Tensor) and _gapped(written):
        L += ["base = lambda t: torch.empty(0, dtype=t.dtype, device=t.device).set_("
              "t.untyped_storage(), 0, (t.untyped_storage().nbytes() // t.element_size(),), (1,))"
              "; fresh = lambda t: base(t).clone().as_strided(t.shape, t.stride(), "
              "t.storage_offset())  # fresh: a copy of t's storage, viewed as t"]
    from . import references
    prelude = _mode_prelude(case, op, references.is_entry(case.get("key")))
    callee = "OP" if prelude is not None else None
    if prelude is not None:
        L += prelude
    expr = _call(op, args, kwargs, ins, mutates, guard=guard, callee=callee)
    if stat:  # random: both draw from the case's seed
        expr = f"(torch.manual_seed({int(case.get('seed', 0))}), {expr})[1]"
    if isinstance(written, torch.Tensor):
        L += ["def call():", ("    global w; " if _gapped(written) else "    ") + f"r = {expr}",
              '    assert isinstance(r, torch.Tensor) and r.data_ptr() == w.data_ptr(), '
              '"it returned a new tensor, not the one it wrote"',
              "    return flat(r)"]
    else:
        L.append(f"call = lambda: flat({expr})")
    L.append("native = call()")
    if stat:
        L.append("oracle = native  # random: the candidate's samples against native's")
    elif moved:
        L.append("oracle = native  # data movement computes nothing: native's bytes are "
                 "the answer")
    elif (result or {}).get("oracle_error"):
        L.append("oracle = native  # native refuses float64 here: it stands in, as in the "
                 "runner's figures")
    else:
        L.append(f"oracle = flat({_call(op, args, kwargs, ins, mutates, oracle=True, callee=callee)})"
                 "  # fp64: the op on float64 copies")
    if kinds and any(k in ("close", "stat") for k in kinds):
        L.append("BOUNDS = None  # per output: what the rule allowed (the daemon writes them)")
    else:
        L.append("BOUNDS = None")
    L += ['with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else '
          + ("candidate():" if prelude is not None else f'lib.use_gems(include=[{name!r}]):'),
          "    try:", f"        cands = [call() for _ in range({calls})]" + _SYNC,
          "    except Exception as e:",
          '        raise AssertionError(f"it raises where native does not: {e!r}") from e']
    if guard is not None:
        L.append(f'assert all(bool((b[:{GUARD}] == p).all() and (b[-{GUARD}:] == p).all()) '
                 'for b, p in G), "it wrote outside its inputs"')
    if isinstance(written, torch.Tensor) and _gapped(written):
        x = ins.name(written)
        L += [f"m = torch.ones_like(base({x}), dtype=torch.bool); m.as_strided({x}.shape, "
              f"{x}.stride(), {x}.storage_offset()).fill_(False); "
              f"bits = lambda t: t.view({{1: torch.uint8, 2: torch.int16, 4: torch.int32, "
              f"8: torch.int64}}[t.element_size()])  # m: outside the view",
              f"out_c = int((bits(base(w)) != bits(base({x})))[m].sum())",
              'assert not out_c, f"writes_outside_view: it changed {out_c} elements of the '
              'base outside the view"']
    need = set(kinds or [])
    if "picks" in need:
        need.add("exact")
    if "routed_w" in need:
        need.add("close")
    for k, fn in (("exact", "exact"), ("close", "float"), ("stat", "stat"), ("same", "same")):
        if k in need:
            L += _CHECKS[fn].splitlines()
    if "picks" in need:
        L += _picks(op, args, kwargs, ins).splitlines()
    if need & {"routed", "routed_w"}:
        L += "\n".join(_routed(op, args, kwargs, ins)).splitlines()
    kind_list = "[" + ", ".join(kinds) + "]" if kinds is not None else "[None] * len(native)"
    L += ["for k, C in enumerate(cands, 1):",
          '    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"',
          f"    for i, (c, n, o, check) in enumerate(zip(C, native, oracle, {kind_list})):",
          '        assert (c.shape, c.dtype) == (n.shape, n.dtype), f"out{i}: {c.dtype} '
          '{list(c.shape)}, native {n.dtype} {list(n.shape)}"',
          "        check and c.numel() and check(f\"call {k} out{i}\", c, n, o.to(c.device), "
          "BOUNDS and BOUNDS[i])"]
    return "\n".join(L) + "\n"


# torch's generator in place of kernels/' Philox, per domain (docs/protocol.md,
# Domains): the values differ from the screen's, the sizes, dtypes and
# ranges are its
_HUGE_GEN = {
    "normal": "torch.randn({shape}, generator=g, device=D).to({dt})",
    "uniform": "(torch.rand({shape}, generator=g, device=D) * ({hi} - {lo}) + {lo}).to({dt})",
    "positive": "(torch.rand({shape}, generator=g, device=D) * ({hi} - {lo}) + {lo}).to({dt})",
    "nonzero": "(torch.rand({shape}, generator=g, device=D) + 0.5).to({dt})",
    "int": "torch.randint({lo}, {hi}, {shape}, generator=g, device=D).to({dt})",
    "index": "torch.randint({lo}, {hi}, {shape}, generator=g, device=D).to({dt})",
    "bool": "torch.randint(0, 2, {shape}, generator=g, device=D).to({dt})",
}


def _huge_arg(a, i, built):
    """The line that makes operand i of a 2^31-element case, or a literal
    (the value the runner built)."""
    if not (isinstance(a, dict) and a.get("t") == "tensor"):
        return None, _scalar(built, False)
    dom = a.get("domain", "normal")
    if dom == "edge":  # as kernels/' generator reads it, without the edge values
        dom = "normal" if getattr(torch, a.get("dtype", "float32")).is_floating_point \
            else "int"
    if dom not in _HUGE_GEN:
        raise ValueError(f"domain {dom!r} has no torch generator")
    lo, hi = kernels._BOUNDS.get(dom, (0, 0))  # the generator's default ranges
    lo = a["low"] if a.get("low") is not None else lo
    hi = a["high"] if a.get("high") is not None else hi
    shape = list(a.get("shape", []))
    tr = a.get("layout") == "transposed" and len(shape) >= 2
    gshape = shape[:-2] + [shape[-1], shape[-2]] if tr else shape
    line = f"t{i} = " + _HUGE_GEN[dom].format(shape=gshape, lo=lo, hi=hi,
                                               dt="torch." + a.get("dtype", "float32"))
    return line + (f".transpose(-1, -2)" if tr else ""), f"t{i}"


def render_huge(case, module, fingerprint, device, op, args):
    """A 2^31-element elementwise case, standalone: its operands drawn by
    torch's generator from the case's seed (the screen's came from kernels/'
    Philox: other values, the same sizes, dtypes, ranges and layouts), the
    call with and without the library, the fp64 oracle on the positions the
    runner samples (every `every`-th and the last `tail`: past 2^31, where an
    int32 index wraps), judged there within BOUNDS."""
    smp = case.get("sample") or {}
    every, tail = int(smp.get("every", 65521)), int(smp.get("tail", 4096))
    made, names = [], []
    for i, a in enumerate(case.get("args", [])):
        line, name = _huge_arg(a, i, args[i] if i < len(args) else None)
        if line:
            made.append(line)
        names.append(name)
    name = op._schema.name.removeprefix("aten::")
    call = f"torch.ops.aten.{name}.{op._overloadname}"
    L = [f"# {_TAG}{case.get('id')}, {case.get('key')} served by {module}."
         f"{case.get('name')} ({case.get('dtype')}, class {case.get('class')}), "
         "2^31-element operands",
         _fingerprint(fingerprint),
         "# judged: not by the daemon (it writes its verdict here)",
         "# Operands from torch's generator (the screen drew them with kernels/' Philox: "
         "other values, the same sizes, dtypes and ranges).",
         "# AssertionError while the defect is there; OPSCREEN_REPRO_NATIVE=1 calls "
         "native PyTorch in the library's place.",
         "import contextlib, os, torch", f"import {module} as lib",
         f"D, nan, inf = {device!r}, float('nan'), float('inf')",
         f"g = torch.Generator(D).manual_seed({int(case.get('seed', 0))})"] + made
    L += [_FLAT, f"call = lambda: flat({call}({', '.join(names)}))", "native = call()",
          'with contextlib.nullcontext() if os.environ.get("OPSCREEN_REPRO_NATIVE") else '
          f'lib.use_gems(include=[{case.get("name")!r}]):',
          "    try:", "        cands = [call()]" + _SYNC,
          "    except Exception as e:",
          '        raise AssertionError(f"it raises where native does not: {e!r}") from e',
          f"n = {names[0]}.numel()  # the positions the runner samples",
          f"idx = torch.cat([torch.arange(0, n, {every}, device=D), "
          f"torch.arange(max(n - {tail}, 0), n, device=D)]).unique()",
          "pick = lambda t: t.reshape(-1)[idx] if isinstance(t, torch.Tensor) and "
          "t.numel() == n else t",
          "up = lambda t: t.double() if isinstance(t, torch.Tensor) and "
          "t.is_floating_point() else t",
          f"oracle = flat({call}({', '.join(f'up(pick({x}))' for x in names)}))"
          "  # fp64 on the sample",
          "BOUNDS = None"]
    L += _CHECKS["float"].splitlines()
    L += ["for k, C in enumerate(cands, 1):",
          '    assert len(C) == len(native), f"call {k}: {len(C)} outputs, native {len(native)}"',
          "    for i, (c, nv, o) in enumerate(zip(C, native, oracle)):",
          '        assert (c.shape, c.dtype) == (nv.shape, nv.dtype), f"out{i}: {c.dtype} '
          '{list(c.shape)}, native {nv.dtype} {list(nv.shape)}"',
          '        close(f"call {k} out{i}", pick(c), pick(nv), o.to(c.device), '
          "BOUNDS and BOUNDS[i])"]
    return "\n".join(L) + "\n"


def stub(case, why):
    """The repro of a case whose inputs were never built."""
    cid = case.get("id") if isinstance(case, dict) else None
    key = case.get("key") if isinstance(case, dict) else None
    why = " ".join(str(why).split())  # one comment line, whatever the message
    return f"# {_TAG}{cid}, {key}: no repro ({why})\n"
