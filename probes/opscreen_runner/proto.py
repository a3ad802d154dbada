"""Length-framed JSON on the daemon's private fd (docs/protocol.md, Transport)."""

import json
import math
import os
import struct
import sys

MAX_FRAME = 16 << 20


class ProtocolError(Exception):
    pass


def _read_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def recv(fd):
    """Next message as a dict, or None at end of stream."""
    head = _read_exact(fd, 4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    if n > MAX_FRAME:
        raise ProtocolError(f"frame of {n} bytes exceeds {MAX_FRAME}")
    body = _read_exact(fd, n)
    if body is None:
        raise ProtocolError("end of stream inside a frame")
    return json.loads(body.decode("utf-8"))


def _finite(obj):
    # jansson rejects NaN/Infinity; an infinite error becomes the largest double
    # so it still compares as "worse than anything".
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else math.copysign(sys.float_info.max, obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def send(fd, msg):
    body = json.dumps(_finite(msg), allow_nan=False).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise ProtocolError(f"message of {len(body)} bytes exceeds {MAX_FRAME}")
    data = struct.pack(">I", len(body)) + body
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
