"""How a runner's host thread waits for its GPU (runner.cuda_sync).

CUDA's default ("auto") makes a process with one context on a host of more
cores than contexts spin on a core while it waits for the GPU: in a sync, in a
blocking copy, or while the launch queue is full. Many runners sharing one GPU
then spend cores spinning that Triton's compiler and ptxas need. "blocking"
puts the waiting thread to sleep until the GPU signals instead.

The flag belongs to the device's primary context (the one torch and Triton
use) and is set through the driver before the context exists, which is why
the runner calls set_sync() before it imports the library under test.
"""

import ctypes

# CU_CTX_SCHED_AUTO, _SPIN, _YIELD, _BLOCKING_SYNC
MODES = {"auto": 0, "spin": 1, "yield": 2, "blocking": 4}
SCHED_MASK = 0x07


def _driver():
    return ctypes.CDLL("libcuda.so.1")


def _devices(cu):
    rc = cu.cuInit(0)
    if rc != 0:
        raise OSError(f"cuInit failed with CUresult {rc}")
    n = ctypes.c_int()
    rc = cu.cuDeviceGetCount(ctypes.byref(n))
    if rc != 0:
        raise OSError(f"cuDeviceGetCount failed with CUresult {rc}")
    out = []
    for i in range(n.value):
        dev = ctypes.c_int()
        rc = cu.cuDeviceGet(ctypes.byref(dev), i)
        if rc != 0:
            raise OSError(f"cuDeviceGet({i}) failed with CUresult {rc}")
        out.append(dev)
    return out


def _state(cu, dev):
    flags, active = ctypes.c_uint(), ctypes.c_int()
    rc = cu.cuDevicePrimaryCtxGetState(dev, ctypes.byref(flags), ctypes.byref(active))
    if rc != 0:
        raise OSError(f"cuDevicePrimaryCtxGetState failed with CUresult {rc}")
    return flags.value, bool(active.value)


def mode_of(flags):
    for name, bit in MODES.items():
        if flags & SCHED_MASK == bit:
            return name
    return f"flags {flags:#x}"


def set_sync(mode):
    """Sets every visible device's primary context to `mode`. Returns what is
    in effect afterwards ({"mode": ...}) or why it could not be set
    ({"error": ...}); a runner that cannot set it goes on with the driver's
    default."""
    if mode not in MODES:
        return {"error": f"unknown mode {mode!r} (one of {', '.join(MODES)})"}
    try:
        cu = _driver()
        devs = _devices(cu)
        # _v2 (CUDA 11+) also applies to a context that is already active
        setf = getattr(cu, "cuDevicePrimaryCtxSetFlags_v2", None) \
            or cu.cuDevicePrimaryCtxSetFlags
        modes = set()
        for dev in devs:
            flags, _ = _state(cu, dev)
            rc = setf(dev, (flags & ~SCHED_MASK) | MODES[mode])
            if rc != 0:
                raise OSError(f"cuDevicePrimaryCtxSetFlags failed with CUresult {rc}")
            modes.add(mode_of(_state(cu, dev)[0]))
    except (OSError, AttributeError) as e:
        return {"error": str(e)}
    if not devs:
        return {"error": "no CUDA device is visible"}
    return {"mode": ",".join(sorted(modes))}


def current():
    """The scheduling mode of visible device 0's primary context, and whether
    it is active: ("blocking", True)."""
    cu = _driver()
    flags, active = _state(cu, _devices(cu)[0])
    return mode_of(flags), active
