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


# runner.autotune one config on zero-size calls: see one_config().
_one = {"on": False, "done": set()}


def install_one_config():
    """Patches Triton's Autotuner (FlagGems' LibTuner inherits both methods)
    so that, inside one_config(True), a new tuning key benchmarks its
    configs only until one runs: the rest are reported as failed configs
    (inf, what Triton reports for a config that does not fit), never
    compiled. Install after jitstats, so its counts are of real benchmarks.
    Returns False when Triton is not importable."""
    try:
        from triton.runtime.autotuner import Autotuner
    except Exception:
        return False
    if getattr(Autotuner, "_opscreen_one", False):
        return True
    prune, bench = Autotuner.prune_configs, Autotuner._bench
    inf = float("inf")

    def prune_configs(self, *args, **kwargs):
        # called once per new tuning key, before its benchmark loop
        _one["done"].discard(id(self))
        return prune(self, *args, **kwargs)

    def _bench(self, *args, **kwargs):
        if _one["on"] and id(self) in _one["done"]:
            return [inf, inf, inf]
        t = bench(self, *args, **kwargs)
        if _one["on"]:
            first = t[0] if isinstance(t, (list, tuple)) else t
            if first != inf:
                _one["done"].add(id(self))
        return t

    Autotuner.prune_configs, Autotuner._bench = prune_configs, _bench
    Autotuner._opscreen_one = True
    return True


class one_config:
    """The empty class's calls: a call on a zero-size input does no work, so
    the timings an autotuner would choose a config by are noise, and a new
    tuning key (a zero in a size argument, itself a new Triton
    specialisation) compiled every config again for nothing. In the cold
    screen of 2026-12-03 on the H200 that was 921 of the empty class's
    1,079 runner-s of compile() (docs/bench/screen.md, "Empty cases and the
    autotuner"). Inside one_config(True) such a key runs the first config
    that compiles and fits, one any benchmark could have chosen."""

    def __init__(self, active):
        self.active = bool(active)

    def __enter__(self):
        if self.active:
            _one["on"] = True
            _one["done"].clear()
        return self

    def __exit__(self, *exc):
        if self.active:
            _one["on"] = False
            _one["done"].clear()
        return False
