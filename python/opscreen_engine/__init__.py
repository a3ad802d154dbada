"""The engine side of opscreen: enable exactly the operators opscreend verified
for this host, this GPU and the library build this process imported.

    import torch
    torch.cuda.set_device(local_rank)          # pin first
    import opscreen_engine
    names = opscreen_engine.enable_verified("flag_gems", device=local_rank)

Standard library only (torch and the library are the engine's own). Every
failure raises, and nothing is enabled then: a list screened for another
build of the library, torch or triton (ProvenanceError), no verified list
(ListUnavailable: the daemon's 503 or no daemon), or a process whose CUDA
was initialised before it was pinned to its GPU (PinningError: importing
FlagGems initialises CUDA, and done before pinning every rank lands on
device 0).
"""

import hashlib
import importlib
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["enable_verified", "fetch_list", "check_pinning", "check_provenance",
           "source_hash", "OpscreenError", "ListUnavailable", "ProvenanceError",
           "PinningError"]

DEFAULT_URL = "http://127.0.0.1:8470"


class OpscreenError(RuntimeError):
    """Nothing was enabled."""


class ListUnavailable(OpscreenError):
    """The daemon served no verified list (503, unreachable, malformed)."""


class ProvenanceError(OpscreenError):
    """The list was screened for another library, torch or triton build."""


class PinningError(OpscreenError):
    """CUDA was initialised before this process was pinned to its GPU."""


def source_hash(module):
    """sha256 over (relative path, NUL, contents, NUL) of every .py file of the
    module's package, sorted by path: the hash opscreend's runner reports as
    library_hash."""
    root = os.path.dirname(os.path.abspath(module.__file__))
    paths = []
    for d, _, files in os.walk(root):
        paths += [os.path.relpath(os.path.join(d, f), root)
                  for f in files if f.endswith(".py")]
    h = hashlib.sha256()
    for rel in sorted(paths):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(f.read() + b"\0")
    return h.hexdigest()


def _expected_index(device):
    """The CUDA index this process should be on: device, else LOCAL_RANK,
    counted in CUDA_VISIBLE_DEVICES when it names exactly one GPU (then 0)."""
    if device is None and os.environ.get("LOCAL_RANK", "").isdigit():
        device = int(os.environ["LOCAL_RANK"])
    if device is None:
        return None
    visible = [v for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
               if v.strip()]
    return 0 if len(visible) == 1 else int(device)


def check_pinning(torch, device=None):
    """Raises PinningError when CUDA is already initialised on another device
    than this process's own; pins it (torch.cuda.set_device) when CUDA is not
    initialised yet. Returns the CUDA index, or None on a CPU-only process."""
    want = _expected_index(device)
    if not torch.cuda.is_available():
        return None
    if torch.cuda.is_initialized():
        cur = torch.cuda.current_device()
        if want is not None and cur != want:
            raise PinningError(
                f"CUDA was initialised before this process was pinned to its "
                f"GPU: the current device is cuda:{cur}, this rank's is "
                f"cuda:{want}. Something (importing FlagGems does) touched "
                f"CUDA before torch.cuda.set_device({want}) or "
                f"CUDA_VISIBLE_DEVICES: pin the process first, then import the "
                f"library and call enable_verified; NCCL would otherwise fail "
                f"with 'Multiple ranks are using the same GPU'")
        return cur
    if want is not None:
        torch.cuda.set_device(want)
        return want
    return torch.cuda.current_device()


def _get(url, timeout):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        raise ListUnavailable(f"cannot reach opscreend at {url}: {e}") from None


def fetch_list(url=DEFAULT_URL, gpu=None, dtypes=None, policy=None,
               timeout=10):
    """The /allowlist JSON for one GPU (its daemon index, or "cpu"); raises
    ListUnavailable on anything but a 200 with names."""
    q = {"format": "json"}
    if gpu is not None:
        q["gpu"] = str(gpu)
    if dtypes:
        q["dtypes"] = dtypes if isinstance(dtypes, str) else ",".join(dtypes)
    if policy:
        q["policy"] = policy
    full = url.rstrip("/") + "/allowlist?" + urllib.parse.urlencode(q)
    status, body = _get(full, timeout)
    try:
        data = json.loads(body)
    except ValueError:
        raise ListUnavailable(f"{full}: HTTP {status}, not JSON") from None
    if status != 200:
        why = data.get("error") if isinstance(data, dict) else None
        raise ListUnavailable(f"{full}: HTTP {status}: {why or body[:200]!r}")
    if not isinstance(data, dict) or not isinstance(data.get("names"), list) \
            or not isinstance(data.get("runs"), list) or not data["runs"]:
        raise ListUnavailable(f"{full}: a list without names or provenance")
    return data


def _gpu_uuid(torch, index):
    if index is None:
        return ""
    uuid = str(getattr(torch.cuda.get_device_properties(index), "uuid", ""))
    return uuid if not uuid or uuid.startswith("GPU-") else "GPU-" + uuid


def _daemon_gpu(url, uuid, timeout):
    """The daemon's index of the GPU with this UUID (the daemon numbers GPUs
    as NVML does; CUDA_VISIBLE_DEVICES renumbers them in this process)."""
    status, body = _get(url.rstrip("/") + "/healthz", timeout)
    try:
        devices = json.loads(body).get("devices", [])
    except (ValueError, AttributeError):
        raise ListUnavailable(f"/healthz: HTTP {status}, not JSON") from None
    for d in devices:
        fp = d.get("fingerprint") or {}
        if fp.get("gpu_uuid") == uuid:
            return d.get("device")
    raise ListUnavailable(f"opscreend at {url} screens no GPU with UUID {uuid} "
                          f"(it knows {[(d.get('fingerprint') or {}).get('gpu_uuid') for d in devices]})")


def _triton_version():
    try:
        import triton
        return triton.__version__
    except Exception:
        return ""


def check_provenance(data, module, torch, uuid=""):
    """Raises ProvenanceError unless every run the list was built from
    screened this library version and source, this torch and this triton
    (and, on a GPU, this GPU)."""
    have = {"library_version": str(getattr(module, "__version__", "")),
            "library_hash": source_hash(module), "torch": torch.__version__}
    if uuid:
        have["triton"] = _triton_version()
        have["gpu_uuid"] = uuid
    bad = []
    for run in data["runs"]:
        for k, v in have.items():
            if str(run.get(k, "")) != v:
                bad.append(f"{k}: list {run.get(k)!r} (run {run.get('run')}), "
                           f"this process {v!r}")
    if bad:
        raise ProvenanceError("the list was screened for another build: " +
                              "; ".join(bad) + ". Re-screen this host "
                              "(opscreenctl run --wait) or run the build "
                              "that was screened")


def enable_verified(library="flag_gems", url=None, device=None, dtypes=None,
                    policy=None, module=None, timeout=10):
    """Enables exactly the verified list for this process's GPU in the
    library (imported here, after the pinning check), and returns its names.
    `library` is the module name; `url` defaults to $OPSCREEN_URL or
    http://127.0.0.1:8470."""
    import torch
    url = url or os.environ.get("OPSCREEN_URL") or DEFAULT_URL
    already = library in sys.modules
    index = check_pinning(torch, device)
    uuid = _gpu_uuid(torch, index)
    gpu = _daemon_gpu(url, uuid, timeout) if uuid else "cpu"
    data = fetch_list(url, gpu=gpu, dtypes=dtypes, policy=policy,
                      timeout=timeout)
    mod = module or importlib.import_module(library)
    if not already and index is not None and torch.cuda.current_device() != index:
        raise PinningError(f"importing {library} moved this process to "
                           f"cuda:{torch.cuda.current_device()}")
    check_provenance(data, mod, torch, uuid)
    names = list(data["names"])
    if not names:
        # only_enable(include=[]) must not be left to mean "everything"
        return []
    mod.only_enable(include=names)
    return names
