"""The per-key source digests (probes/opscreen_runner/sourcehash.py) on a
library written for the test, shaped like FlagGems: ops that call helpers,
Triton-like JIT objects (`src`, `fn`, autotuner `configs`), a library wrapper
that remembers the pid it was built in and caches, a helper module reached
as `utils.helper`, a per-architecture module loaded under another name, a
flag read from the environment. A digest must move when, and only when,
what the key's function depends on moves, and be the same in every
process."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

PROBES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "probes")

LIB = {
    "__init__.py": """
        import importlib.util, os
        from . import ops, utils
        _here = os.path.dirname(__file__)
        _spec = importlib.util.spec_from_file_location(
            "hopper.ops.mm", os.path.join(_here, "arch", "mm.py"))
        _arch = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_arch)
        _FULL_CONFIG = (("add.Tensor", ops.add), ("sub.Tensor", ops.sub),
                        ("neg", ops.neg), ("mm", _arch.mm), ("abs", ops.abs_),
                        ("deep", ops.deep))
    """,
    "utils/__init__.py": """
        from . import helper
    """,
    "utils/helper.py": """
        def scale(x):
            return x * 2

        def unused():
            return 0
    """,
    "jit.py": """
        import os

        class Config:
            def __init__(self, **kw):
                self.kw = kw
            def __str__(self):
                return ", ".join("%s: %s" % kv for kv in sorted(self.kw.items()))

        class JIT:                       # like triton.JITFunction
            def __init__(self, fn):
                self.fn = fn
                self.src = "def %s(): pass  # v1" % fn.__name__
                self.__module__ = fn.__module__

        class Tuner:                     # like triton's Autotuner
            def __init__(self, fn, configs):
                self.fn = fn
                self.configs = configs

        class Wrapper:                   # like pointwise_dynamic's object
            def __init__(self, kernel):
                self.kernel = kernel
                self.pid = os.getpid()
                self._cache_key = str(id(self))
    """,
    "ops.py": """
        import os
        from . import utils
        from .jit import JIT, Tuner, Config, Wrapper

        _BREAK = frozenset(os.environ.get("SH_BREAK", "").split(","))
        _SEEN = set()

        def _binary(x, y, op):
            return op(x, y)

        def _kernel():
            return 1

        kernel = Tuner(JIT(_kernel), [Config(BLOCK=64, warps=4)])
        wrapped = Wrapper(kernel)

        def add(x, y):
            if "add" in _BREAK:
                return x + y + 1
            return _binary(x, y, lambda a, b: a + b)

        def sub(x, y):
            _SEEN.add(1)                 # an attribute named add: not add()
            return _binary(x, y, lambda a, b: a - b)

        def neg(x):
            return utils.helper.scale(-x) // 2

        def abs_(x):
            return wrapped.kernel.fn.fn() and abs(x)

        def _chain0(x):
            return x
    """ + "".join(f"""
        def _chain{i}(x):
            return _chain{i - 1}(x)
    """ for i in range(1, 1500)) + """
        def deep(x):
            return _chain1499(x)
    """,
    "arch/mm.py": """
        def _dot(a, b):
            return a * b

        def mm(a, b):
            return _dot(a, b)
    """,
}

DIGESTS = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import shlib
from opscreen_runner.sourcehash import key_source_hashes
keys = [k for k, _ in shlib._FULL_CONFIG]
print(json.dumps(dict(zip(keys, key_source_hashes([f for _, f in shlib._FULL_CONFIG], "shlib")))))
"""


def write_lib(root, edits=None):
    for rel, text in LIB.items():
        text = textwrap.dedent(text)
        for old, new in (edits or {}).get(rel, []):
            assert old in text, (rel, old)
            text = text.replace(old, new)
        path = root / "shlib" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def digests(root, **env):
    r = subprocess.run([sys.executable, "-c", DIGESTS, str(root), PROBES],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, **env))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def base(tmp_path):
    write_lib(tmp_path / "a")
    return digests(tmp_path / "a")


def moved(tmp_path, base, edits=None, **env):
    root = tmp_path / ("b%d" % len(list(tmp_path.iterdir())))
    write_lib(root, edits)
    after = digests(root, **env)
    assert set(after) == set(base)
    return {k for k in base if after[k] != base[k]}


def test_every_key_has_a_digest_the_same_in_every_process(tmp_path, base):
    assert all(len(h) == 64 for h in base.values()), base
    assert len(set(base.values())) == len(base)
    assert digests(tmp_path / "a") == base          # another process


def test_a_helper_moves_only_its_callers(tmp_path, base):
    assert moved(tmp_path, base, {"ops.py": [
        ("return op(x, y)", "return op(y, x)")]}) == {"add.Tensor", "sub.Tensor"}


def test_a_module_reached_through_attributes(tmp_path, base):
    assert moved(tmp_path, base, {"utils/helper.py": [
        ("return x * 2", "return x * 3")]}) == {"neg"}


def test_a_jit_kernels_source_and_autotune_configs(tmp_path, base):
    assert moved(tmp_path, base, {"jit.py": [
        ('"def %s(): pass  # v1"', '"def %s(): pass  # v2"')]}) == {"abs"}
    assert moved(tmp_path, base, {"ops.py": [
        ("Config(BLOCK=64, warps=4)", "Config(BLOCK=128, warps=4)")]}) == {"abs"}


def test_an_architecture_module_loaded_under_another_name(tmp_path, base):
    assert moved(tmp_path, base, {"arch/mm.py": [
        ("return a * b", "return a @ b")]}) == {"mm"}


def test_an_environment_flag_the_code_reads(tmp_path, base):
    assert moved(tmp_path, base, SH_BREAK="add") == {"add.Tensor"}


def test_comments_elsewhere_and_unused_code_move_nothing(tmp_path, base):
    assert moved(tmp_path, base, {"utils/helper.py": [
        ("return 0", "return 1")]}) == set()


def test_a_long_call_chain_is_followed(tmp_path, base):
    assert moved(tmp_path, base, {"ops.py": [
        ("def _chain0(x):\n    return x", "def _chain0(x):\n    return -x")]}) == {"deep"}
