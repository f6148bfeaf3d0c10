"""Helpers shared by the benchmark scripts: timing, summaries, result
errors. Importing it imports neither jax nor numpy (jax_time.py sets thread
limits before either loads)."""
import math
import statistics
import time


def stats_ms(seconds):
    ms = [s * 1e3 for s in seconds]
    return {"median": statistics.median(ms), "min": min(ms), "max": max(ms), "n": len(ms)}


def time_runs(call, min_time, min_runs=10):
    """Times `call` after up to 3 warm-up calls: at least `min_time` seconds
    and `min_runs` calls (or 3 calls once ten times `min_time` has passed)."""
    warm = time.perf_counter()
    for _ in range(3):
        call()
        if time.perf_counter() - warm > 0.3:
            break
    times = []
    start = time.perf_counter()
    while True:
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
        elapsed = time.perf_counter() - start
        enough = len(times) >= min_runs or (len(times) >= 3 and elapsed > 10 * min_time)
        if enough and elapsed >= min_time:
            return times


def compile_times(fresh, args, reps):
    """The lowering and compile times (seconds) of `reps` fresh jitted
    functions (`fresh()` makes one, so no jit cache can answer)."""
    lowers, compiles = [], []
    for _ in range(reps):
        g = fresh()
        t0 = time.perf_counter()
        lowered = g.lower(*args)
        t1 = time.perf_counter()
        lowered.compile()
        t2 = time.perf_counter()
        lowers.append(t1 - t0)
        compiles.append(t2 - t1)
    return lowers, compiles


def median(xs):
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return statistics.median(xs) if xs else float("nan")


def ratio(a, b):
    return a / b if b and not math.isnan(a) and not math.isnan(b) else float("nan")


def geomean(xs):
    xs = [x for x in xs if x > 0 and not math.isnan(x) and not math.isinf(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def relative_error(got, want):
    """max|got - want| / max|want| of two arrays of the same shape (0 when
    empty, inf when NaN where the other has a number)."""
    import numpy as np

    if not want.size:
        return 0.0
    wide = np.complex128 if np.iscomplexobj(want) else np.float64
    g64, w64 = got.astype(wide), want.astype(wide)
    scale = max(float(np.max(np.abs(w64))), 1e-30)
    err = float(np.max(np.abs(g64 - w64))) / scale
    return err if not math.isnan(err) else float("inf")
