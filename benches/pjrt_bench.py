#!/usr/bin/env python3
"""Times programs through JAX on the xla_rs PJRT plugin and on XLA:CPU, in one
process, and prints per program:

  xla_rs ms / cpu ms     steady run time: median of timed calls of the jitted
                         function on device-resident inputs, each ending in
                         block_until_ready (after warm-up calls)
  speed                  cpu ms / xla_rs ms (> 1: the plugin is faster)
  xla_rs 1st / cpu 1st   the first call of a fresh jax.jit(f) (trace, lower,
                         compile, run: what a user waits for), in the first round
  xla_rs cmp / cpu cmp   cold compile time: that first call minus the lowering
                         (median time of `jax.jit(f).lower(*args)` for freshly
                         built f) minus the steady run time
  cmp x                  cpu cmp / xla_rs cmp (> 1: the plugin compiles faster)
  rel err                max|xla_rs - cpu| / max|cpu| over the outputs

The compile time is taken from the first call because the plugin keeps a cache
of compiled programs: a second `lowered.compile()` of the same program is a cache
hit there (XLA:CPU compiles again). Those repeat compiles are in the JSON
(compile_repeat_ms) for both. Only the first round sees a cold compiler, so the
compile columns come from it; run the script again for more cold samples.

Programs come from the benchmark sets (benches/suite.py, models.py, slow.py,
grads.py); the default selection is a few suite kernels plus models.py's MLP
training step (784 -> 512 -> 10, Adam, batch 128) and GPT-2 small block (seq 128).

Usage (from the repository root, after `cargo build --release -p xla-pjrt`):

    XLA_RS_PJRT_LIBRARY=target/release/libxla_pjrt.so .venv/bin/python benches/pjrt_bench.py
    .venv/bin/python benches/pjrt_bench.py --set models --json pjrt.json
    .venv/bin/python benches/pjrt_bench.py --cases softmax,gpt2_block --rounds 3 --threads 2

(JAX_PLATFORMS defaults to xla_rs,cpu; without an installed plugin package the
checkout's python/ folder provides `jax_plugins.xla_rs`, which loads
$XLA_RS_PJRT_LIBRARY or target/release/libxla_pjrt.so.)
"""
import argparse
import json
import math
import os
import platform
import sys
import time

BENCHES = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCHES)
sys.path.insert(0, BENCHES)
from gen_hlo import SETS, cpu_subset, programs  # noqa: E402  (imports no jax)
from timing import compile_times, geomean, median, ratio, relative_error, stats_ms, time_runs  # noqa: E402

DEFAULT_CASES = "ew_chain,reduce_row_sum,softmax,layernorm,dot_1024,mlp,mlp_train_adam,gpt2_block"
TARGET, REF = "xla_rs", "cpu"


def parse_args():
    ap = argparse.ArgumentParser(description="Time programs on the xla_rs PJRT plugin and on XLA:CPU through JAX.")
    ap.add_argument("--set", choices=[*SETS, "all"], default="all",
                    help="program set to draw from (default: all, with the --cases default selection)")
    ap.add_argument("--cases", default=None,
                    help=f"comma-separated programs (default with --set all: {DEFAULT_CASES}; "
                         "with another --set: every program of it)")
    ap.add_argument("--rounds", type=int, default=1, help="alternations xla_rs, cpu per program (medians over rounds)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds of timed calls per program, backend and round")
    ap.add_argument("--min-runs", type=int, default=10, help="timed calls at least")
    ap.add_argument("--compile-reps", type=int, default=3,
                    help="fresh lowerings (and repeat compiles) per program, backend and round")
    ap.add_argument("--threads", type=int, default=0,
                    help="keep the process on this many CPUs (default: all); 1 also makes XLA:CPU single-threaded")
    ap.add_argument("--json", default=None, metavar="FILE", help="write the rows and raw timings here")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    return ap.parse_args()


ARGS = parse_args()

# --- environment: before jax is imported ----------------------------------------------
os.environ.setdefault("JAX_PLATFORMS", f"{TARGET},{REF}")
os.environ["JAX_ENABLE_COMPILATION_CACHE"] = "false"
if ARGS.threads:
    T = str(ARGS.threads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ.setdefault(var, T)
    if ARGS.threads == 1:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
                                   " intra_op_parallelism_threads=1").strip()
    cpus = cpu_subset(ARGS.threads)
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass
sys.path.append(os.path.join(ROOT, "python"))  # the checkout's jax_plugins.xla_rs, unless one is installed

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_enable_compilation_cache", False)


def measure(case, dev, host_args):
    """One backend, one round: {first_call_ms, run_ms, lower_ms, compile_repeat_ms}
    and the outputs."""
    with jax.default_device(dev):
        args = jax.device_put(host_args, dev)
        jax.block_until_ready(args)

        fresh = jax.jit(case.build(jax, jnp))
        t0 = time.perf_counter()
        out = jax.block_until_ready(fresh(*args))  # trace, lower, compile, run
        first = time.perf_counter() - t0
        for leaf in jax.tree_util.tree_leaves(out):
            if leaf.devices() != {dev}:
                raise RuntimeError(f"output on {leaf.devices()}, not on {dev}")

        run = time_runs(lambda: jax.block_until_ready(fresh(*args)), ARGS.min_time, ARGS.min_runs)

        lowers, compiles = compile_times(lambda: jax.jit(case.build(jax, jnp)), args,
                                         max(ARGS.compile_reps, 1))
    return ({"first_call_ms": first * 1e3, "run_ms": stats_ms(run), "lower_ms": stats_ms(lowers),
             "compile_repeat_ms": stats_ms(compiles)}, jax.device_get(out))


def rel_err(got, want):
    worst = 0.0
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return float("inf")
        worst = max(worst, relative_error(g, w))
    return worst


COLUMNS = [("case", "case", "{}"), ("xla_rs_ms", "xla_rs ms", "{:.3f}"), ("cpu_ms", "cpu ms", "{:.3f}"),
           ("speed", "speed", "{:.2f}"), ("xla_rs_first_ms", "xla_rs 1st", "{:.1f}"),
           ("cpu_first_ms", "cpu 1st", "{:.1f}"), ("xla_rs_compile_ms", "xla_rs cmp", "{:.1f}"),
           ("cpu_compile_ms", "cpu cmp", "{:.1f}"), ("compile_ratio", "cmp x", "{:.2f}"),
           ("rel_err", "rel err", "{:.1e}")]


def cell(row, key, fmt):
    v = row.get(key, float("nan"))
    if isinstance(v, float) and math.isnan(v):
        return "ERROR" if key == "xla_rs_ms" and row.get("error") else "n/a"
    return fmt.format(v)


def print_table(rows, summary, markdown):
    heads = [h for _, h, _ in COLUMNS]
    table = [[cell(r, k, f) for k, _, f in COLUMNS] for r in rows]
    geo = {"case": "geomean", "speed": summary["speed_geomean"], "compile_ratio": summary["compile_ratio_geomean"]}
    foot = [fmt.format(geo[k]) if k in geo and not (isinstance(geo[k], float) and math.isnan(geo[k]))
            else ("geomean" if k == "case" else "") for k, _, fmt in COLUMNS]
    if markdown:
        print("| " + " | ".join(heads) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(heads) - 1)) + "|")
        for line in table + [foot]:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(x) for x in col) for col in zip(heads, *table, foot)]

    def fmt(line):
        return "  ".join([line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:], widths[1:])]).rstrip()
    print(fmt(heads))
    for line in table:
        print(fmt(line))
    print(fmt(foot))


def main():
    cases = ARGS.cases or (DEFAULT_CASES if ARGS.set == "all" else None)
    todo = programs(ARGS.set, cases)
    try:
        target, ref = jax.devices(TARGET)[0], jax.devices(REF)[0]
    except Exception as e:
        sys.exit(f"cannot get the {TARGET} and {REF} devices (JAX_PLATFORMS="
                 f"{os.environ.get('JAX_PLATFORMS')!r}): {type(e).__name__}: {e}")
    # initialize both backends outside every measurement
    for dev in (target, ref):
        with jax.default_device(dev):
            jax.block_until_ready(jax.jit(lambda z: z * 2)(jax.device_put(np.ones(8, np.float32), dev)))

    rows, raw = [], []
    for set_name, case in todo:
        host_args = case.inputs()
        rounds = {TARGET: [], REF: []}
        outs, error = {}, None
        for rnd in range(ARGS.rounds):
            for name, dev in ((TARGET, target), (REF, ref)):
                if name == TARGET and error:
                    continue
                print(f"[{case.name}] round {rnd + 1}/{ARGS.rounds}: {name} ...", file=sys.stderr, flush=True)
                try:
                    r, out = measure(case, dev, host_args)
                except Exception as e:  # noqa: BLE001  (a failing program must not stop the others)
                    if name == REF:
                        raise
                    error = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
                    print(f"[{case.name}] {name} failed: {error}", file=sys.stderr, flush=True)
                    continue
                rounds[name].append(r)
                outs[name] = out
        med = {name: {k: median([r[k]["median"] for r in rs])
                      for k in ("run_ms", "lower_ms", "compile_repeat_ms")}
               for name, rs in rounds.items()}
        for name, rs in rounds.items():  # the cold numbers: the first round's
            first = rs[0]["first_call_ms"] if rs else float("nan")
            med[name]["first_call_ms"] = first
            med[name]["compile_ms"] = max(first - med[name]["lower_ms"] - med[name]["run_ms"], 0.0)
        row = {"case": case.name, "set": set_name,
               "xla_rs_ms": med[TARGET]["run_ms"], "cpu_ms": med[REF]["run_ms"],
               "xla_rs_compile_ms": med[TARGET]["compile_ms"], "cpu_compile_ms": med[REF]["compile_ms"],
               "xla_rs_first_ms": med[TARGET]["first_call_ms"], "cpu_first_ms": med[REF]["first_call_ms"],
               "xla_rs_lower_ms": med[TARGET]["lower_ms"], "cpu_lower_ms": med[REF]["lower_ms"],
               "xla_rs_compile_repeat_ms": med[TARGET]["compile_repeat_ms"],
               "cpu_compile_repeat_ms": med[REF]["compile_repeat_ms"],
               "rel_err": rel_err(outs[TARGET], outs[REF]) if TARGET in outs else float("nan")}
        row["speed"] = ratio(row["cpu_ms"], row["xla_rs_ms"])
        row["compile_ratio"] = ratio(row["cpu_compile_ms"], row["xla_rs_compile_ms"])
        if error:
            row["error"] = error
        rows.append(row)
        raw.append({"case": case.name, "rounds": rounds})

    summary = {"speed_geomean": geomean([r["speed"] for r in rows]),
               "compile_ratio_geomean": geomean([r["compile_ratio"] for r in rows])}
    import jaxlib
    info = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "python": platform.python_version(),
            "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "xla_rs_platform_version": getattr(target.client, "platform_version", None),
            "xla_flags": os.environ.get("XLA_FLAGS", ""), "rounds": ARGS.rounds, "min_time": ARGS.min_time,
            "compile_reps": ARGS.compile_reps}
    print(f"# jax={info['jax']} jaxlib={info['jaxlib']} cpus={info['cpus']} rounds={ARGS.rounds} "
          f"xla_rs={str(info['xla_rs_platform_version']).splitlines()[-1]!r}")
    print_table(rows, summary, ARGS.markdown)
    for r in rows:
        if r.get("error"):
            print(f"error: {r['case']}: {r['error']}")
    if ARGS.json:
        with open(ARGS.json, "w") as fh:
            json.dump({"info": info, "rows": rows, "summary": summary, "raw": raw}, fh, indent=1)


if __name__ == "__main__":
    main()
