"""The GPU suite: the real runner and daemon against flag_gems on a CUDA GPU.
Every test here skips, with the reason, on a machine without one."""
import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "runner"), os.path.join(HERE, "..", "e2e")]


def gpu_missing():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU on this machine: the GPU suite is skipped"
    if importlib.util.find_spec("flag_gems") is None:
        return "flag_gems is not importable: the GPU suite is skipped"
    return None


def pytest_collection_modifyitems(config, items):
    # This hook sees the whole session's items: mark only this suite's.
    why = gpu_missing()
    if why:
        for item in items:
            if str(item.fspath).startswith(HERE + os.sep):
                item.add_marker(pytest.mark.skip(reason=why))
