#!/usr/bin/env python3
"""Lowers every benchmark program to HLO text as JAX prints it (before XLA's own
optimization) and writes one module per program:

    suite  (benches/suite.py)  -> benches/hlo/<case>.hlo
    models (benches/models.py) -> benches/models/<name>.hlo
    slow   (benches/slow.py)   -> benches/slow/<name>.hlo
    grads  (benches/grads.py)  -> benches/grads/<name>.hlo
    layers (benches/layers.py) -> benches/layers/<name>.hlo

Each module is `jax.jit(f, keep_unused=True).lower(*args).as_text(dialect="hlo")`;
for the grads set, `f` is the forward loss (written as <name>.forward.hlo) and
the module is what `xla grad` (the release binary) derives from it.

Usage (from the repository root):

    python3 benches/gen_hlo.py                  # every set
    python3 benches/gen_hlo.py --set models     # one set
    python3 benches/gen_hlo.py --cases gpt2_block,softmax
    python3 benches/gen_hlo.py --out-dir some/dir   # elsewhere (all modules in one folder)

Needs jax: `python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/gen_hlo.py`. The modules in the repository were made with
the JAX version pinned there (and named in benches/README.md); another version may print
them differently.

This module imports no jax (nor numpy) at the top level: the other scripts take their
shared helpers (program selection, module paths, the xla binary, CPU affinity) from it
before jax is imported.
"""
import argparse
import importlib
import os
import sys

BENCHES = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCHES)
sys.path.insert(0, BENCHES)

# set (defined in benches/<set>.py) -> its modules' folder under benches/
SETS = {"suite": "hlo", "models": "models", "slow": "slow", "grads": "grads", "layers": "layers"}


def add_selection(ap, default_set):
    """The --set and --cases arguments, which programs() takes."""
    ap.add_argument("--set", choices=[*SETS, "all"], default=default_set)
    ap.add_argument("--cases", default=None, help="comma-separated names (default: every one in the set)")


def programs(which, cases=None):
    """[(set, Case)] for --set suite|models|slow|all, only the comma-separated
    `cases` when given (exits naming any unknown one)."""
    out = []
    for name in SETS:
        if which in (name, "all"):
            out += [(name, c) for c in importlib.import_module(name).CASES.values()]
    if cases:
        wanted = cases.split(",")
        unknown = set(wanted) - {c.name for _, c in out}
        if unknown:
            sys.exit(f"unknown case(s) for --set {which}: {', '.join(sorted(unknown))}")
        out = [(s, c) for s, c in out if c.name in wanted]
    return out


def module_path(which, case, out_dir=None):
    """The module of `case` of set `which`: benches/<folder>/<case>.hlo, or <out_dir>/<case>.hlo."""
    return os.path.join(out_dir or os.path.join(BENCHES, SETS[which]), case.name + ".hlo")


def existing_modules(todo):
    """module_path() of each (set, Case) in `todo`; exits naming any that is missing."""
    modules = [module_path(s, c) for s, c in todo]
    missing = [m for m in modules if not os.path.isfile(m)]
    if missing:
        sys.exit(f"missing modules ({', '.join(os.path.relpath(m) for m in missing)}): "
                 "run benches/gen_hlo.py first")
    return modules


def find_xla(path):
    """The executable `path`, as given or relative to the repository root; exits if neither is."""
    for cand in (path, os.path.join(ROOT, path)):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    sys.exit(f"no xla binary at {path}: build it with `cargo build --release --bin xla` "
             "or pass --xla PATH")


def cpu_subset(threads):
    """The CPUs to keep a process on when `threads` is below the machine's, else None."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:
        return None
    return cpus[:threads] if threads < len(cpus) else None


def hlo_text(case, jax, jnp):
    fn = case.build(jax, jnp)
    return jax.jit(fn, keep_unused=True).lower(*case.inputs()).as_text(dialect="hlo")


def write_gradient(case, path, jax, jnp):
    """A grads case: its forward loss lowered to <name>.forward.hlo, and
    `xla grad` of it with respect to the parameters' leaves written to `path`."""
    import subprocess
    inputs = case.inputs()
    forward = jax.jit(case.forward(jax, jnp), keep_unused=True).lower(*inputs).as_text(dialect="hlo")
    source = path[: -len(".hlo")] + ".forward.hlo"
    with open(source, "w") as fh:
        fh.write(forward)
    leaves = len(jax.tree_util.tree_leaves(inputs[0]))
    wrt = ",".join(str(i) for i in range(leaves))
    xla = find_xla(os.path.join("target", "release", "xla"))
    text = subprocess.run([xla, "grad", source, "--wrt", wrt], check=True, capture_output=True,
                          text=True).stdout
    with open(path, "w") as fh:
        fh.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_selection(ap, "all")
    ap.add_argument("--out-dir", default=None,
                    help="write every module here instead of its set's folder under benches/")
    args = ap.parse_args()

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp

    todo = programs(args.set, args.cases)

    for which, case in todo:
        path = module_path(which, case, args.out_dir)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if which == "grads":
            text = write_gradient(case, path, jax, jnp)
        else:
            text = hlo_text(case, jax, jnp)
            with open(path, "w") as fh:
                fh.write(text)
        print(f"{os.path.relpath(path)}  ({len(text)} bytes)")


if __name__ == "__main__":
    main()
