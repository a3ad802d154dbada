"""opscreen_runner: the worker process of opscreend (see docs/protocol.md).

It builds tensors, calls the library through the dispatcher and reports figures;
every decision about verdicts is the daemon's.
"""
