"""runner.autotune_rep: how long a library's Triton autotuner benchmarks each
config on a first call of a new tuning key.

Triton's benchmarker (triton.testing.do_bench, what Autotuner uses unless a
library passes its own) spends about 25 ms warming up and 100 ms measuring
every config: a launch loop of thousands of calls for a kernel of
microseconds. In the cold whole-table screen of 2026-12-01 on the H200 (build
2c2664f, before the cap) that
was 5,194 of 10,635 runner-s of first calls (7,473 configs), on a GPU that 14
runners share, where the timings choose among configs no better than a short
loop would (docs/bench/screen.md). Capping them leaves every config compiled
and run as before; only the benchmark loop is shorter, so the config chosen
may differ from a full benchmark's, as it already differs from an idle GPU's.
"""
_orig = None


def cap(rep_ms):
    """Caps every do_bench call at rep_ms of measuring and rep_ms / 4 of
    warm-up (Triton's own ratio). Call before the library's first autotune.
    Returns the cap in ms, or None when Triton is not importable."""
    global _orig
    try:
        import triton.testing as tt
    except Exception:
        return None
    if _orig is None:
        _orig = tt.do_bench
    warm = rep_ms / 4.0

    def do_bench(fn, warmup=25, rep=100, *args, **kwargs):
        return _orig(fn, min(warmup, warm), min(rep, rep_ms), *args, **kwargs)

    tt.do_bench = do_bench
    return rep_ms
