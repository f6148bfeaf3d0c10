#!/usr/bin/env python3
"""Times benchmark programs on JAX (XLA:CPU) in this process and writes the
results as JSON. `benches/compare.py` runs it once per round, in a fresh
process, so that the thread settings below are in place before jax is
imported and nothing is shared with the orchestrating script.

Per program:
  run      jax.jit(f) on device-resident inputs: warm-up, then timed calls (each
           ending in block_until_ready) for at least --min-time seconds and 10 calls;
           median, min, max in ms
  compile  `lowered.compile()` of `jax.jit(f).lower(*args)` for a freshly built f,
           --compile-reps times (the persistent compilation cache disabled); median ms.
           The trace-and-lower time before it is reported as lower_ms.

Usage (from the repository root):

    python3 benches/jax_time.py --set suite --cases softmax,dot_1024 --threads 2 --out jax.json

Needs jax: `python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/jax_time.py ...`.
"""
import argparse
import json
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_hlo import add_selection, cpu_subset, programs  # noqa: E402  (does not import jax)
from timing import compile_times, stats_ms, time_runs  # noqa: E402

ap = argparse.ArgumentParser(description="Time benchmark programs on JAX (XLA:CPU).")
add_selection(ap, "suite")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--min-time", type=float, default=1.0, help="seconds of timed calls per program")
ap.add_argument("--compile-reps", type=int, default=5, help="fresh compiles per program")
ap.add_argument("--out", required=True, help="JSON file to write")
args = ap.parse_args()

# --- thread limits: must be in the environment before jax (and numpy) are imported -------
T = str(args.threads)
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = T
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["JAX_ENABLE_COMPILATION_CACHE"] = "false"
if args.threads == 1:
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_cpu_multi_thread_eigen=false"
                               " intra_op_parallelism_threads=1").strip()
cpus = cpu_subset(args.threads)
if cpus:  # fewer threads than CPUs: keep the process on that many CPUs
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        pass

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_enable_compilation_cache", False)


def measure(case):
    host_args = case.inputs()
    dev_args = jax.device_put(host_args)
    jax.block_until_ready(dev_args)

    f = jax.jit(case.build(jax, jnp))
    jax.block_until_ready(f(*dev_args))  # first call: trace, compile, run
    run = time_runs(lambda: jax.block_until_ready(f(*dev_args)), args.min_time)

    lowers, compiles = compile_times(lambda: jax.jit(case.build(jax, jnp)), dev_args,
                                     args.compile_reps)
    return {"name": case.name, "run_ms": stats_ms(run), "compile_ms": stats_ms(compiles),
            "lower_ms": stats_ms(lowers)}


def main():
    todo = [c for _, c in programs(args.set, args.cases)]
    # initialize the backend outside every measurement
    jax.block_until_ready(jax.jit(lambda z: z * 2)(jnp.ones(8)))
    results = []
    for case in todo:
        r = measure(case)
        results.append(r)
        print(f"[jax] {case.name}: run {r['run_ms']['median']:.3f} ms, "
              f"compile {r['compile_ms']['median']:.1f} ms", file=sys.stderr, flush=True)
    import jaxlib
    out = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "numpy": np.__version__,
           "python": platform.python_version(), "threads": args.threads,
           "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
           "xla_flags": os.environ.get("XLA_FLAGS", ""), "results": results}
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
