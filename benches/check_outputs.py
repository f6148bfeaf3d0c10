#!/usr/bin/env python3
"""Runs benchmark programs on JAX and through `xla run` on the same seeded
inputs, and compares the results leaf by leaf.

For each program: its inputs (pytrees flattened in JAX's order, which is the
HLO module's parameter order) are written as .npy files, `xla run
MODULE.hlo in0.npy ... --out DIR` writes DIR/0.npy, DIR/1.npy, ... (one per
result leaf), and each is compared with jax.jit(f) on the same inputs. The
error printed is max|ours - jax| / max|jax|, accepted up to --tol (up to one
ulp at 1 for a bf16 or f16 result: 2^-7, 2^-10).

Usage (from the repository root, after `cargo build --release --bin xla` and
benches/gen_hlo.py):

    python3 benches/check_outputs.py                          # every program of every set
    python3 benches/check_outputs.py --cases gpt2_decode,mlp_train_adam
    python3 benches/check_outputs.py --set suite --tol 1e-4 --xla path/to/xla

Needs jax: `python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/check_outputs.py`.
"""
import argparse
import os
import subprocess
import sys
import tempfile

BENCHES = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCHES)
from gen_hlo import add_selection, existing_modules, find_xla, programs  # noqa: E402
from timing import relative_error  # noqa: E402

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def to_npy(x):
    """numpy has no bf16: the project reads bf16 .npy files as raw 16-bit words."""
    a = np.asarray(x)
    if a.dtype.name == "bfloat16":
        return a.view(np.uint16)
    return a


def from_npy(a, like):
    if np.asarray(like).dtype.name == "bfloat16":
        return a.view(np.asarray(like).dtype)
    return a


def result_resolution(w):
    """The least relative error a result of w's type can be asked for: one
    ulp at 1 (2^-7 for bf16, 2^-10 for f16; 0 for wider types, which --tol
    bounds): a 16-bit result rounded once the other way after another
    summation order is one ulp off."""
    import ml_dtypes  # installed with jax
    if w.dtype.name in ("bfloat16", "float16"):
        return float(ml_dtypes.finfo(w.dtype).eps)
    return 0.0


def main():
    ap = argparse.ArgumentParser(description="Compare `xla run` with JAX on the benchmark programs.")
    add_selection(ap, "all")
    ap.add_argument("--xla", default=os.path.join("target", "release", "xla"), help="the xla binary")
    ap.add_argument("--tol", type=float, default=1e-3, help="largest accepted relative error")
    args = ap.parse_args()

    xla = find_xla(args.xla)
    todo = programs(args.set, args.cases)
    modules = existing_modules(todo)
    failed = []
    for (_, case), module in zip(todo, modules):
        inputs = case.inputs()
        leaves = jax.tree_util.tree_leaves(inputs)
        want = jax.tree_util.tree_leaves(jax.jit(case.build(jax, jnp))(*inputs))
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for i, leaf in enumerate(leaves):
                files.append(os.path.join(tmp, f"in{i}.npy"))
                np.save(files[-1], to_npy(leaf))
            out = os.path.join(tmp, "out")
            r = subprocess.run([xla, "run", module, *files, "--out", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{case.name}: xla run failed: {r.stderr.strip()}")
                failed.append(case.name)
                continue
            worst, tol = 0.0, args.tol
            for j, w in enumerate(want):
                got = from_npy(np.load(os.path.join(out, f"{j}.npy")), w)
                w = np.asarray(w)
                if got.shape != w.shape or got.dtype != w.dtype:
                    print(f"{case.name}: result {j} is {got.dtype}{list(got.shape)}, "
                          f"JAX gives {w.dtype}{list(w.shape)}")
                    worst = float("inf")
                    continue
                worst = max(worst, relative_error(got, w))
                tol = max(tol, result_resolution(w))
        ok = worst <= tol
        print(f"{case.name:16} {len(want)} result(s), max relative error {worst:.2e}  "
              f"{'ok' if ok else 'MISMATCH'}")
        if not ok:
            failed.append(case.name)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
