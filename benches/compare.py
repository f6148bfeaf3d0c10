#!/usr/bin/env python3
"""Benchmarks the programs on JAX (XLA:CPU) and on this project's `xla bench`,
alternately in one run (JAX, ours, JAX, ours, ... for --rounds rounds), and prints
per program:

  ours ms     our run time: median over rounds of `xla bench`'s median
  jax ms      JAX's run time: median over rounds of jax_time.py's median
  speed       jax ms / ours ms (> 1: we are faster); geometric mean at the bottom
  ours cmp    our compile time (xla bench's median of cold compiles), ms
  jax cmp     JAX's compile time (median of fresh `lowered.compile()`), ms
  cmp x       jax cmp / ours cmp (> 1: we compile faster)
  peak MiB    our peak resident memory for the program (xla bench's peak_rss_bytes)
  fallback    ops that ran through our interpreter instead of compiled code

Each JAX round is a fresh Python process (benches/jax_time.py) so its thread
settings apply before jax is imported; our side runs the modules that
benches/gen_hlo.py wrote (benches/hlo/*.hlo, benches/models/*.hlo, benches/slow/*.hlo).

Usage (from the repository root, after `cargo build --release --bin xla`):

    python3 benches/compare.py                         # the 14-kernel suite, 3 rounds
    python3 benches/compare.py --set models            # the model programs
    python3 benches/compare.py --set slow              # loops, FFTs, linear algebra
    python3 benches/compare.py --set all --rounds 5 --json results.json
    python3 benches/compare.py --cases softmax,dot_1024 --markdown
    python3 benches/compare.py --threads 1 --xla path/to/xla

JAX must be importable by the interpreter running this script (or the one given
with --python): `python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/compare.py`.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

BENCHES = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCHES)
from gen_hlo import (add_selection, cpu_subset, existing_modules,  # noqa: E402  (no jax)
                     find_xla, programs)
from timing import geomean, median, ratio  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description="Compare `xla bench` with JAX on the benchmark programs.")
    add_selection(ap, "suite")
    ap.add_argument("--rounds", type=int, default=3, help="JAX/ours alternations")
    ap.add_argument("--threads", type=int, default=2,
                    help="threads for both sides (JAX through env vars and XLA_FLAGS; "
                         "both kept on that many CPUs when fewer than the machine has)")
    ap.add_argument("--xla", default=os.path.join("target", "release", "xla"), help="the xla binary")
    ap.add_argument("--python", default=sys.executable, help="interpreter that has jax (default: this one)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds of timed runs per program and side")
    ap.add_argument("--compile-reps", type=int, default=5, help="fresh JAX compiles per program and round")
    ap.add_argument("--json", default=None, metavar="FILE", help="save the rows (and raw rounds) here")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    return ap.parse_args()


def run_ours(xla, modules, min_time, cpus):
    """`xla bench MODULES --json` -> {name: report}; a module that fails is retried
    alone so the others still count, and reported under its name with an error."""
    pre = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None

    def bench(mods):
        return subprocess.run([xla, "bench", *mods, "--json", f"--min-time={min_time}"],
                              capture_output=True, text=True, preexec_fn=pre)

    r = bench(modules)
    if r.returncode == 0:
        return {o["name"]: o for o in json.loads(r.stdout)}
    out = {}
    for m in modules:
        r = bench([m])
        name = os.path.splitext(os.path.basename(m))[0]
        if r.returncode == 0:
            out.update({o["name"]: o for o in json.loads(r.stdout)})
        else:
            err = r.stderr.strip().splitlines()
            out[name] = {"name": name, "error": err[0] if err else f"exit status {r.returncode}"}
            print(f"[ours] {name} failed: {r.stderr.strip()}", file=sys.stderr)
    return out


def run_jax(args, names, tmp, rnd):
    out = os.path.join(tmp, f"jax_{rnd}.json")
    cmd = [args.python, os.path.join(BENCHES, "jax_time.py"), "--set", args.set,
           "--cases", ",".join(names), "--threads", str(args.threads),
           "--min-time", str(args.min_time), "--compile-reps", str(args.compile_reps), "--out", out]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"jax_time.py failed (status {r.returncode}):\n{r.stderr.strip()[-2000:]}")
    with open(out) as fh:
        return json.load(fh)


COLUMNS = [("case", "case", "{}"), ("ours_ms", "ours ms", "{:.3f}"), ("jax_ms", "jax ms", "{:.3f}"),
           ("speed", "speed", "{:.2f}"), ("ours_compile_ms", "ours cmp ms", "{:.2f}"),
           ("jax_compile_ms", "jax cmp ms", "{:.2f}"), ("compile_ratio", "cmp x", "{:.1f}"),
           ("peak_mib", "peak MiB", "{:.1f}"), ("fallback", "fallback", "{}")]


def cell(row, key, fmt):
    v = row[key]
    if key == "fallback":
        return ",".join(v) if v else ("ERROR" if row.get("error") else "-")
    if isinstance(v, float) and math.isnan(v):
        return "n/a"
    return fmt.format(v)


def print_table(rows, summary, markdown):
    table = [[cell(r, k, f) for k, _, f in COLUMNS] for r in rows]
    heads = [h for _, h, _ in COLUMNS]
    geomeans = {"case": "geomean", "speed": summary["speed_geomean"],
                "compile_ratio": summary["compile_ratio_geomean"]}
    foot = [fmt.format(geomeans[k]) if k in geomeans else "" for k, _, fmt in COLUMNS]
    if markdown:
        print("| " + " | ".join(heads) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(heads) - 2) + ["---"]) + "|")
        for line in table + [foot]:
            print("| " + " | ".join(line) + " |")
        return
    widths = [max(len(x) for x in col) for col in zip(heads, *table, foot)]

    def fmt(line):
        parts = [line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:-1], widths[1:-1])]
        return "  ".join(parts + [line[-1]]).rstrip()
    print(fmt(heads))
    for line in table:
        print(fmt(line))
    print(fmt(foot))


def main():
    args = parse_args()
    xla = find_xla(args.xla)
    todo = programs(args.set, args.cases)
    names = [c.name for _, c in todo]
    modules = existing_modules(todo)

    cpus = cpu_subset(args.threads)
    ours_rounds, jax_rounds = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            print(f"round {rnd + 1}/{args.rounds}: jax ...", file=sys.stderr, flush=True)
            jax_rounds.append(run_jax(args, names, tmp, rnd))
            print(f"round {rnd + 1}/{args.rounds}: xla bench ...", file=sys.stderr, flush=True)
            ours_rounds.append(run_ours(xla, modules, args.min_time, cpus))

    rows = []
    for name in names:
        ours = [r[name] for r in ours_rounds if name in r and "error" not in r[name]]
        errors = sorted({r[name]["error"] for r in ours_rounds if name in r and "error" in r[name]})
        jax = [x for j in jax_rounds for x in j["results"] if x["name"] == name]
        row = {
            "case": name,
            "ours_ms": median([o["run_ms"]["median"] for o in ours]),
            "jax_ms": median([j["run_ms"]["median"] for j in jax]),
            "ours_compile_ms": median([o["compile_ms"] for o in ours]),
            "jax_compile_ms": median([j["compile_ms"]["median"] for j in jax]),
            "jax_lower_ms": median([j["lower_ms"]["median"] for j in jax]),
            "peak_mib": max([o["peak_rss_bytes"] for o in ours], default=float("nan")) / 2**20,
            "fallback": sorted({op for o in ours for op in o.get("fallback_ops", [])}),
        }
        row["speed"] = ratio(row["jax_ms"], row["ours_ms"])
        row["compile_ratio"] = ratio(row["jax_compile_ms"], row["ours_compile_ms"])
        if errors:
            row["error"] = "; ".join(errors)
        rows.append(row)

    summary = {"speed_geomean": geomean([r["speed"] for r in rows]),
               "compile_ratio_geomean": geomean([r["compile_ratio"] for r in rows])}
    j0 = jax_rounds[0] if jax_rounds else {}
    print(f"# set={args.set} rounds={args.rounds} threads={args.threads} "
          f"jax={j0.get('jax')} jaxlib={j0.get('jaxlib')} xla={os.path.relpath(xla)}")
    print_table(rows, summary, args.markdown)
    for r in rows:
        if r.get("error"):
            print(f"error: {r['case']}: {r['error']}")

    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"set": args.set, "rounds": args.rounds, "threads": args.threads,
                       "min_time": args.min_time, "jax": j0.get("jax"), "jaxlib": j0.get("jaxlib"),
                       "rows": rows, "summary": summary,
                       "raw": {"ours": ours_rounds, "jax": jax_rounds}}, fh, indent=1)


if __name__ == "__main__":
    main()
