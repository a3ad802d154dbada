"""The source a registered function depends on, as one digest per key.

An upgrade re-screens only the keys whose code changed (docs/design.md,
"Carried verdicts"). What serves a key is found by following the function
in the installed library, not by a table of names: its source, then every
object its code names that the library defines (functions, classes and their
methods, Triton JIT functions and their autotuner configs, library objects
such as a pointwise_dynamic wrapper and what they hold, library modules
named as a whole), transitively, plus the value of each plain data global a
function reads (a flag set from the environment changes what the op does).
Objects outside the library (torch, triton, numpy) are the environment's;
the daemon compares their versions separately.
"""

import dis
import functools
import hashlib
import inspect
import os
import re
import sys
import types

# plain data a function may read: hashed by value (bounded)
_DATA = (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset,
         type(None))
_DATA_MAX = 4096


def _root(package):
    mod = sys.modules.get(package)
    f = getattr(mod, "__file__", None)
    return os.path.dirname(os.path.abspath(f)) if f else None


def _in_library(obj, package, root=None):
    """Whether the library defines obj: by its module's name, or by the file
    it comes from (a library may load per-architecture modules under other
    names, e.g. FlagGems' `hopper.ops.mul` from its backend directory)."""
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else \
        getattr(obj, "__module__", None)
    if not isinstance(mod, str):
        mod = getattr(type(obj), "__module__", None)
    if isinstance(mod, str) and (mod == package or mod.startswith(package + ".")):
        return True
    if root is None:
        return False
    f = getattr(getattr(obj, "__code__", None), "co_filename", None)
    if f is None:
        m = obj if isinstance(obj, types.ModuleType) else sys.modules.get(mod or "")
        f = getattr(m, "__file__", None)
    return isinstance(f, str) and os.path.abspath(f).startswith(root + os.sep)


_SOURCES = {}		# id -> (object, source) while hashing a table


def _source(obj):
    hit = _SOURCES.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    text = _source_of(obj)
    _SOURCES[id(obj)] = (obj, text)
    return text


def _source_of(obj):
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        if code is not None:
            return code.co_code.hex() + repr(code.co_consts)
        return repr(type(obj))


_NAMES = {}		# code -> _names(code) while hashing a table


def _names(code):
    hit = _NAMES.get(code)
    if hit is None:
        hit = _NAMES[code] = _names_of(code)
    return hit


def _names_of(code):
    """The global names a code object (and the code nested in it) loads, and
    for each global followed by attribute loads (`mod.fn`), the attribute
    chain: [(name, (attr, ...)), ...]. Attribute names alone are not globals
    (`_COMPILED.add(...)` does not name the function `add`)."""
    out = []
    stack = [code]
    while stack:
        c = stack.pop()
        chain = None
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(ins.argval, str):
                chain = [ins.argval, []]
                out.append(chain)
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and chain is not None \
                    and isinstance(ins.argval, str):
                chain[1].append(ins.argval)
            else:
                chain = None
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return [(n, tuple(a)) for n, a in out]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _stable(value, depth=0):
    """A rendering of a value that is the same in every process: containers
    item by item (sets sorted), an object by its own __str__ when its type
    has one (a Triton Config: its kwargs, warps, stages), else by its type
    and attributes; memory addresses are dropped."""
    if depth > 4:
        return "..."
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_stable(v, depth + 1) for v in value)
        return ("[%s]" if isinstance(value, list) else "(%s)") % inner
    if isinstance(value, (set, frozenset)):
        return "{%s}" % ", ".join(sorted(_stable(v, depth + 1) for v in value))
    if isinstance(value, dict):
        return "{%s}" % ", ".join(sorted("%s: %s" % (_stable(k, depth + 1),
                                                     _stable(v, depth + 1))
                                         for k, v in value.items()))
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return repr(value)
    if callable(value):
        return "%s:%s" % (getattr(value, "__module__", "?"),
                          getattr(value, "__qualname__", type(value).__name__))
    if type(value).__str__ is not object.__str__:
        return _ADDRESS.sub("", "%s(%s)" % (type(value).__name__, value))
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return "%s%s" % (type(value).__name__, _stable(attrs, depth + 1))
    return _ADDRESS.sub("", repr(value))


class _Walk:
    """Follows objects from a worklist (no recursion: a library's object
    graph can be deeper than Python's stack)."""

    def __init__(self, package):
        self.package = package
        self.root = _root(package)
        self.seen = set()
        self.parts = []
        self.todo = []
        self.pid = os.getpid()

    def visit(self, obj):
        self.todo.append(obj)

    def run(self, obj):
        self.visit(obj)
        while self.todo:
            self.one(self.todo.pop())

    def add(self, label, text):
        self.parts.append(label + "\0" + text)

    def data(self, where, name, value):
        # this process's identity is not the library's (a wrapper that
        # remembers the pid it was built in)
        if type(value) is int and value == self.pid:
            return
        try:
            r = _stable(value)
        except Exception:
            return
        if len(r) > _DATA_MAX:
            r = r[:_DATA_MAX] + "...%d" % len(r)
        self.add("data:%s.%s" % (where, name), r)

    def function(self, fn):
        label = "fn:%s.%s" % (getattr(fn, "__module__", "?"),
                              getattr(fn, "__qualname__", "?"))
        self.add(label, _source(fn))
        g = getattr(fn, "__globals__", {})
        code = getattr(fn, "__code__", None)
        for n, attrs in sorted(set(_names(code))) if code is not None else ():
            if n not in g:
                continue
            v = g[n]
            # mod.sub.fn through library modules: the object reached, not the
            # modules on the way as a whole
            for a in attrs:
                if not isinstance(v, types.ModuleType) or \
                        not _in_library(v, self.package, self.root):
                    break
                nxt = getattr(v, a, None)
                if nxt is None:
                    break
                n, v = a, nxt
            if isinstance(v, _DATA):
                self.data(g.get("__name__", "?"), n, v)
            else:
                self.visit(v)
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if isinstance(v, _DATA):
                self.data(label, "<closure>", v)
            else:
                self.visit(v)
        for v in (getattr(fn, "__defaults__", None) or ()):
            if not isinstance(v, _DATA):
                self.visit(v)

    def one(self, obj):
        if id(obj) in self.seen:
            return
        self.seen.add(id(obj))
        if isinstance(obj, types.ModuleType):
            if _in_library(obj, self.package, self.root):
                self.add("module:" + obj.__name__, _source(obj))
            return
        if isinstance(obj, (types.FunctionType, types.MethodType)):
            fn = obj.__func__ if isinstance(obj, types.MethodType) else obj
            if _in_library(fn, self.package, self.root):
                self.function(fn)
            return
        if isinstance(obj, functools.partial):
            self.visit(obj.func)
            for v in obj.args + tuple(obj.keywords.values()):
                if not isinstance(v, _DATA):
                    self.visit(v)
            return
        if isinstance(obj, type):
            if _in_library(obj, self.package, self.root):
                self.add("class:%s.%s" % (obj.__module__, obj.__qualname__),
                         _source(obj))
                for v in vars(obj).values():
                    if isinstance(v, (staticmethod, classmethod)):
                        v = v.__func__
                    if isinstance(v, (types.FunctionType, property)):
                        for f in ((v.fget, v.fset) if isinstance(v, property) else (v,)):
                            if f is not None:
                                self.visit(f)
            return
        # a Triton JIT function, an autotuner or heuristics around one, a
        # library wrapper (LibEntry, pointwise_dynamic): what it wraps and,
        # for an autotuner, the configs it chooses among
        src = getattr(obj, "src", None)
        if isinstance(src, str):
            self.add("jit:%s" % getattr(obj, "__name__", type(obj).__name__), src)
        configs = getattr(obj, "configs", None)
        if configs is not None and not callable(configs):
            self.data(type(obj).__name__, "configs", configs)
        inner = getattr(obj, "fn", None)
        if inner is not None and inner is not obj:
            self.visit(inner)
        # an instance of a library class (LibEntry, a pointwise_dynamic
        # wrapper): its class and what it holds. Not a Triton JITFunction,
        # whose __module__ is the kernel's but whose attributes (its
        # module's globals, parsed parameters) follow from its source.
        if _in_library(type(obj), self.package, self.root):
            self.visit(type(obj))
            for k, v in sorted(getattr(obj, "__dict__", {}).items()):
                # caches hold what the code computed, not what it is (a
                # Triton cache key is not stable across processes)
                if "cache" in k:
                    continue
                if isinstance(v, _DATA):
                    self.data(type(obj).__name__, k, v)
                else:
                    self.visit(v)


def key_source_hashes(fns, package):
    """key_source_hash of each function of fns, sharing the sources read."""
    try:
        return [key_source_hash(fn, package) for fn in fns]
    finally:
        _SOURCES.clear()
        _NAMES.clear()


def key_source_hash(fn, package):
    """sha256 over what `fn` (a function registered for a key) depends on in
    `package`, as described above; "" when it cannot be followed."""
    try:
        w = _Walk(package)
        w.run(fn)
        if not w.parts:
            return ""
        h = hashlib.sha256()
        for p in sorted(w.parts):
            h.update(p.encode("utf-8", "surrogatepass") + b"\0")
        return h.hexdigest()
    except Exception as e:		# a library object that resists inspection
        print("opscreen_runner: source of %r: %r" % (fn, e), file=sys.stderr)
        return ""
