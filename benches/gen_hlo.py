#!/usr/bin/env python3
"""Lowers every benchmark program to HLO text as JAX prints it (before XLA's own
optimization) and writes one module per program:

    suite  (benches/suite.py)  -> benches/hlo/<case>.hlo
    models (benches/models.py) -> benches/models/<name>.hlo

Each module is `jax.jit(f, keep_unused=True).lower(*args).as_text(dialect="hlo")`.

Usage (from the repository root):

    python3 benches/gen_hlo.py                  # both sets
    python3 benches/gen_hlo.py --set models     # one set
    python3 benches/gen_hlo.py --cases gpt2_block,softmax
    python3 benches/gen_hlo.py --out-dir some/dir   # elsewhere (all modules in one folder)

Needs jax: `python3 -m venv .venv && .venv/bin/pip install jax jaxlib numpy`, then
`.venv/bin/python benches/gen_hlo.py`. The modules in the repository were made with
the JAX version named in benches/README.md; another version may print them differently.
"""
import argparse
import os
import sys

BENCHES = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCHES)

SETS = {"suite": "hlo", "models": "models"}  # set -> folder under benches/


def programs(which, cases=None):
    """[(set, Case)] for --set suite|models|all, only the comma-separated
    `cases` when given (exits naming any unknown one)."""
    out = []
    if which in ("suite", "all"):
        import suite
        out += [("suite", c) for c in suite.CASES.values()]
    if which in ("models", "all"):
        import models
        out += [("models", c) for c in models.CASES.values()]
    if cases:
        wanted = cases.split(",")
        unknown = set(wanted) - {c.name for _, c in out}
        if unknown:
            sys.exit(f"unknown case(s) for --set {which}: {', '.join(sorted(unknown))}")
        out = [(s, c) for s, c in out if c.name in wanted]
    return out


def hlo_text(case, jax, jnp):
    fn = case.build(jax, jnp)
    return jax.jit(fn, keep_unused=True).lower(*case.inputs()).as_text(dialect="hlo")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=["suite", "models", "all"], default="all")
    ap.add_argument("--cases", default=None, help="comma-separated names (default: every one in the set)")
    ap.add_argument("--out-dir", default=None,
                    help="write every module here instead of benches/hlo and benches/models")
    args = ap.parse_args()

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp

    todo = programs(args.set, args.cases)

    for which, case in todo:
        folder = args.out_dir or os.path.join(BENCHES, SETS[which])
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, case.name + ".hlo")
        text = hlo_text(case, jax, jnp)
        with open(path, "w") as fh:
            fh.write(text)
        print(f"{os.path.relpath(path)}  ({len(text)} bytes)")


if __name__ == "__main__":
    main()
