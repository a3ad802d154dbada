"""A stand-in library whose import initialises CUDA, as a library that
allocates or queries a device at import does: tests/gpu/test_nccl.py's
import-order hazard for the multi-rank probe."""
import torch

_AT_IMPORT = torch.zeros(1, device="cuda")
