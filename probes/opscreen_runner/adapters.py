"""The FlagGems-style library adapter, parameterised by module name.

A FlagGems-style library exposes
_FULL_CONFIG = ((aten_key, fn[, condition[, dispatch_keys]]), ...) and
use_gems(include=[names]); the enable name of a key is fn.__name__.
"""

import contextlib
import hashlib
import importlib
import logging
import os
import platform
import subprocess
import time

import torch

from .inputs import resolve_op
from .sourcehash import key_source_hashes

log = logging.getLogger("opscreen_runner")

MODULES = {"flag_gems": "flag_gems", "demolib": "opscreen_demolib"}

# The dispatch keys of an item's own (its fourth element) that a case's plain
# call reaches: torch's Autograd alias, which every call outside
# inference_mode goes through (no_grad included; the runner calls no op in
# inference_mode), so the library's kernel there is the one measured. Any
# other key (FlagGems 5.3.4 registers cholesky_solve for Conjugate, reached
# only by conjugated inputs) is reached by no case: not screened, never listed.
REACHED_KEYS = frozenset({"Autograd"})


def _source_hash(module):
    """sha256 over (relative path, NUL, contents, NUL) of every .py, sorted by path."""
    root = os.path.dirname(os.path.abspath(module.__file__))
    paths = []
    for d, _, files in os.walk(root):
        paths += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".py")]
    h = hashlib.sha256()
    for rel in sorted(paths):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(f.read() + b"\0")
    return h.hexdigest()


def _driver_version():
    try:
        import pynvml
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:
        pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                              "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else ""
    except Exception:
        return ""


def registered(module):
    """The (aten key, function) pairs of a FlagGems-style library's
    _FULL_CONFIG that it registers here: those whose condition (None: none)
    holds on this host, and not in its config's aten_patch_list. An item
    with dispatch keys of its own (a fourth element: FlagGems 5.3.4 registers
    ctc_loss for Autograd and cholesky_solve for Conjugate) is screened only
    when a plain call reaches each of them (REACHED_KEYS); else a case would
    measure native against native: never screened, never listed."""
    config = getattr(module, "config", None)
    patched = set(getattr(config, "aten_patch_list", None) or [])
    out = []
    for item in module._FULL_CONFIG:
        if not item or len(item) < 2:
            continue
        key, fn = item[0], item[1]
        if len(item) > 3 and item[3] and not set(map(str, item[3])) <= REACHED_KEYS:
            log.info("%s is registered for %s, which no plain call reaches; "
                     "not screened", key, ", ".join(map(str, item[3])))
            continue
        if len(item) > 2 and item[2] is not None:
            try:
                if not item[2]():
                    continue
            except Exception as e:
                log.warning("condition of %s raised %r; skipped", key, e)
                continue
        if key in patched:
            continue
        out.append((key, fn))
    return out


class FlagGemsStyle:
    def __init__(self, library):
        self.library = library
        self.modname = MODULES.get(library, library)
        self.module = None
        self.served = set()
        self.entry_fns = {}  # "fused::NAME" -> the library's function
        self.import_info = {}

    def load(self):
        t0 = time.perf_counter()
        self.module = importlib.import_module(self.modname)
        # Whether importing touched CUDA is a deployment hazard the daemon reports.
        self.import_info = {"seconds": round(time.perf_counter() - t0, 3),
                            "cuda_initialized": bool(torch.cuda.is_initialized())}

    def entries(self):
        out = []
        for key, fn in registered(self.module):
            name = getattr(fn, "__name__", str(fn))
            try:
                schema = str(resolve_op(key)._schema).removeprefix("aten::")
            except Exception:
                schema = ""
            self.served.add((key, name))
            out.append({"key": key, "name": name, "schema": schema, "fn": fn})
        out += self._entry_points({id(e["fn"]) for e in out},
                                  {e["name"] for e in out})
        # what each key's code depends on: an upgrade re-screens the changed
        package = self.modname.split(".")[0]
        for e, h in zip(out, key_source_hashes([e.pop("fn") for e in out], package)):
            e["source"] = h
        return out

    def _entry_points(self, table_fns, table_names):
        """The library's own entry points, which engines call outside aten:
        the public functions of its `fused` module (its __all__), each as key
        "fused::NAME" with the schema of opscreen's reference (empty: none,
        so no probes and never allowed). One that the table already serves
        (the same function) or whose name the table uses is left to the
        table."""
        from . import references
        fused = getattr(self.module, "fused", None)
        out = []
        for name in sorted(set(getattr(fused, "__all__", None) or [])):
            fn = getattr(fused, name, None)
            if not callable(fn) or id(fn) in table_fns or name in table_names:
                continue
            key = references.PREFIX + name
            self.served.add((key, name))
            self.entry_fns[key] = fn
            out.append({"key": key, "name": name, "entry": True,
                        "schema": references.schema(name), "fn": fn})
        return out

    def serves(self, key, name):
        return (key, name) in self.served

    def candidate(self, name, key=None):
        """The library's context for one call of NAME: its aten override
        enabled; nothing for an entry point, which is called directly."""
        if key in self.entry_fns:
            return contextlib.nullcontext()
        return self.module.use_gems(include=[name])

    def callable(self, key, op):
        """What the candidate's calls of a case of `key` call: the aten
        operator `op` (the library's override is enabled around it), or the
        library's own function for an entry point."""
        fn = self.entry_fns.get(key)
        if fn is None:
            return op
        from . import references
        return references.candidate(key[len(references.PREFIX):], fn)

    def fingerprint(self, device):
        fp = {"library": self.library, "library_version": "", "library_hash": "",
              "torch": torch.__version__, "triton": "", "cuda": "", "driver": "",
              "gpu_name": "cpu", "gpu_uuid": "", "device": device,
              "python": platform.python_version()}
        if self.module is not None:
            fp["library_version"] = str(getattr(self.module, "__version__", ""))
            try:
                fp["library_hash"] = _source_hash(self.module)
            except Exception as e:
                log.warning("library hash: %r", e)
        if device != "cuda":
            return fp
        try:
            import triton
            fp["triton"] = triton.__version__
        except Exception:
            pass
        fp["cuda"] = torch.version.cuda or ""
        fp["driver"] = _driver_version()
        try:
            props = torch.cuda.get_device_properties(0)
            fp["gpu_name"] = props.name
            uuid = str(getattr(props, "uuid", ""))
            fp["gpu_uuid"] = uuid if not uuid or uuid.startswith("GPU-") else "GPU-" + uuid
        except Exception as e:
            fp["gpu_name"] = ""
            log.warning("device properties: %r", e)
        return fp
