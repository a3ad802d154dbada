"""ctypes wrapper of kernels/osk_nccl.c (libopscreen_nccl.so): NCCL for
several GPUs of one host, one rank a process: a unique id, a communicator on
the current CUDA device, an all-gather of uint64 digests, and classify(), which
names NCCL's refusal of several ranks on one GPU.

The library is $OPSCREEN_NCCL_LIB, else libopscreen_nccl.so beside
$OPSCREEN_KERNELS, else in the directories kernels.py searches (build/ of the
checkout, PREFIX/lib/opscreen for an installed runner).  Imports only ctypes
and the standard library, never torch: the multi-rank probe's parent uses it
without a GPU context (a unique id needs no GPU).
"""

import ctypes
import os
import re

ID_BYTES = 128  # NCCL_UNIQUE_ID_BYTES, OSK_NCCL_ID_BYTES
BUSID_LEN = 32
MAX_U64 = 1 << 24
TIMEOUT = 120.0  # seconds a communicator waits for every rank by default
_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "..", ".."))
# enum osk_nccl_error
ERRORS = {-1: "invalid argument", -2: "CUDA error", -3: "NCCL error",
          -4: "out of memory", -5: "timed out"}

_P = ctypes.POINTER
_SIGS = {
    "osk_nccl_version": (ctypes.c_int, []),
    "osk_nccl_error": (ctypes.c_char_p, []),
    "osk_nccl_bus_id": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t]),
    "osk_nccl_unique_id": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t]),
    "osk_nccl_new": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                    ctypes.c_int, ctypes.c_int, _P(ctypes.c_void_p)]),
    "osk_nccl_allgather_u64": (ctypes.c_int, [ctypes.c_void_p, _P(ctypes.c_uint64),
                                              ctypes.c_size_t, _P(ctypes.c_uint64),
                                              ctypes.c_int]),
    "osk_nccl_free": (ctypes.c_int, [ctypes.c_void_p]),
}
_LIB = []  # [library or None] once looked for
_WHY = []  # why it did not load


class NcclError(RuntimeError):
    """A failure of libopscreen_nccl: `code` (osk_nccl_error, 0 where the
    library is missing) and the library's text, NCCL's explanation included."""

    def __init__(self, message, code=0):
        super().__init__(message)
        self.code = code
        self.kind = classify(message)


# NCCL's refusals of several ranks on one GPU, by version (NVIDIA/nccl,
# src/init.cc and src/graph/topo.cc): "Duplicate GPU detected : rank %d and
# rank %d both on CUDA device %lx" (2.13 to 2.29), "Multiple ranks detected
# using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 ..." (2.30.3,
# the host's first rank only), "Multiple Ranks are using the same
# GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 ..." (2.30.7); with that
# variable set, 2.30 accepts them, except with NVLS forced ("Multiple ranks
# detected using the same GPU on this node and NCCL_NVLS_ENABLE ...").  Each
# comes with ncclInvalidUsage, "invalid usage (run with NCCL_DEBUG=WARN for
# details)", which alone does not say why.
_SAME_GPU = re.compile(r"duplicate\s+gpu\s+detected"
                       r"|multiple\s+ranks\s+(are\s+using|detected\s+using|on)"
                       r"\s+the\s+same\s+gpu", re.IGNORECASE)
_INVALID_USAGE = re.compile(r"invalid\s+usage", re.IGNORECASE)


def classify(message):
    """The kind of an NCCL failure's text: "same_gpu" (several ranks on one
    GPU), "invalid_usage" (ncclInvalidUsage with no cause given) or "other"."""
    message = message or ""
    if _SAME_GPU.search(message):
        return "same_gpu"
    if _INVALID_USAGE.search(message):
        return "invalid_usage"
    return "other"


def _libdirs(root=_ROOT):
    """kernels._libdirs (kernels.py imports torch, which this module must not):
    build/ of the checkout, then PREFIX/lib/opscreen when `root` is
    PREFIX/share/opscreen."""
    out = [os.path.join(root, "build")]
    share = os.path.dirname(root)
    if os.path.basename(root) == "opscreen" and os.path.basename(share) == "share":
        out.append(os.path.join(os.path.dirname(share), "lib", "opscreen"))
    return out


def _paths(root=_ROOT):
    env = os.environ.get("OPSCREEN_NCCL_LIB")
    if env:
        return [env]
    kern = os.environ.get("OPSCREEN_KERNELS")
    out = [os.path.join(os.path.dirname(kern), "libopscreen_nccl.so")] if kern else []
    return out + [os.path.join(d, "libopscreen_nccl.so") for d in _libdirs(root)]


def _load():
    if _LIB:
        return _LIB[0]
    lib, why = None, []
    for p in _paths():
        if not os.path.exists(p):
            why.append(f"{p}: missing")
            continue
        try:
            lib = ctypes.CDLL(p)
        except OSError as e:
            why.append(f"{p}: {e}")
            continue
        for name, (res, argtypes) in _SIGS.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, argtypes
        break
    _LIB.append(lib)
    _WHY.append("; ".join(why))
    return lib


def available():
    return _load() is not None


def _lib():
    lib = _load()
    if lib is None:
        raise NcclError("libopscreen_nccl.so not loaded (make builds it where nvcc "
                        f"and nccl.h are): {_WHY[0]}")
    return lib


def _check(lib, rc, what):
    if rc < 0:
        text = (lib.osk_nccl_error() or b"").decode(errors="replace")
        raise NcclError(f"{what}: {text or ERRORS.get(rc, 'error')}", rc)
    return rc


def _ms(timeout):
    if timeout is None or timeout <= 0:
        return 0
    return max(1, min(int(timeout * 1000), 2**31 - 1))


def version():
    """The NCCL version loaded, as (major, minor, patch)."""
    lib = _lib()
    v = _check(lib, lib.osk_nccl_version(), "version")
    return (v // 10000, v // 100 % 100, v % 100)


def unique_id():
    """A new unique id (ID_BYTES bytes) for the ranks of one communicator;
    needs no GPU."""
    lib = _lib()
    buf = ctypes.create_string_buffer(ID_BYTES)
    _check(lib, lib.osk_nccl_unique_id(buf, ID_BYTES), "unique id")
    return buf.raw


def bus_id():
    """(index, PCI bus id) of the current CUDA device, as the process sees it."""
    lib = _lib()
    buf = ctypes.create_string_buffer(BUSID_LEN)
    dev = _check(lib, lib.osk_nccl_bus_id(buf, BUSID_LEN), "bus id")
    return dev, buf.value.decode()


class Comm:
    """Rank `rank` of `nranks` in the communicator of unique id `uid`, on the
    current CUDA device; every rank must join within `timeout` seconds (None:
    no limit).  NCCL refuses two ranks on one GPU here (NcclError, kind
    "same_gpu")."""

    def __init__(self, uid, nranks, rank, timeout=TIMEOUT):
        self._h = None
        self._lib = _lib()
        uid = bytes(uid)
        if len(uid) != ID_BYTES:
            raise NcclError(f"communicator: a unique id is {ID_BYTES} bytes, not {len(uid)}",
                            -1)
        self.nranks, self.rank = int(nranks), int(rank)
        h = ctypes.c_void_p()
        _check(self._lib, self._lib.osk_nccl_new(uid, ID_BYTES, self.nranks, self.rank,
                                                 _ms(timeout), ctypes.byref(h)),
               "communicator")
        self._h = h

    def allgather_u64(self, values, timeout=TIMEOUT):
        """Every rank's `values` (the same count on every rank, each 0 <= v <
        2**64): a list of nranks lists, rank r's at index r.  A failure or
        timeout aborts the communicator (NcclError; later calls fail)."""
        if self._h is None:
            raise NcclError("all-gather: the communicator is closed", -1)
        values = [int(v) for v in values]
        n = len(values)
        if n > MAX_U64 or any(v < 0 or v >= 1 << 64 for v in values):
            raise NcclError(f"all-gather: {n} values, each must be a uint64 "
                            f"(at most {MAX_U64})", -1)
        inp = (ctypes.c_uint64 * max(n, 1))(*values)
        out = (ctypes.c_uint64 * max(n * self.nranks, 1))()
        _check(self._lib, self._lib.osk_nccl_allgather_u64(self._h, inp, n, out, _ms(timeout)),
               "all-gather")
        return [list(out[r * n:(r + 1) * n]) for r in range(self.nranks)]

    def close(self):
        """Finalizes and destroys the communicator (aborted where that fails);
        raises the failure after freeing it.  Closing twice does nothing."""
        h, self._h = self._h, None
        if h is not None:
            _check(self._lib, self._lib.osk_nccl_free(h), "close")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
