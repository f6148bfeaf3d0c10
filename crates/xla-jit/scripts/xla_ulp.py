#!/usr/bin/env python3
"""Measures XLA:CPU's own f32 accuracy (through JAX) for comparison with
the JIT's math library (numbers quoted in mod.rs).

    python3 crates/xla-jit/scripts/xla_ulp.py [--stride N] [exp tanh ...]

Inputs: every N-th f32 bit pattern (default 16: 2^28 inputs covering every
binade). The reference is numpy's (scipy's for erf and logistic) f64
result; the error is in ulp of the f32 result, as in examples/math_ulp.rs.
XLA:CPU flushes subnormal inputs and results to zero, so the maximum is
taken over inputs and exact results in the normal range.
"""

import sys

import jax

jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import scipy.special as sp  # noqa: E402

FUNCTIONS = {
    "exp": (jnp.exp, np.exp),
    "log": (jnp.log, np.log),
    "tanh": (jnp.tanh, np.tanh),
    "logistic": (jax.nn.sigmoid, sp.expit),
    "erf": (jax.scipy.special.erf, sp.erf),
}


def ulp_error(got, want):
    """|got - want| in ulp of f32 at want (f64 arrays); inf on class mismatch."""
    err = np.zeros_like(want)
    nan = np.isnan(want) | np.isnan(got)
    big = 2.0**128
    w = np.where(np.abs(want) >= big, np.copysign(big, want), want)
    g = np.where(np.isinf(got), np.copysign(big, got), got)
    _, e = np.frexp(w)
    e = np.maximum(e - 1, -126)
    ulp = np.ldexp(1.0, e - 23)
    err = np.abs(g - w) / ulp
    err[nan] = np.where(np.isnan(want[nan]) & np.isnan(got[nan]), 0.0, np.inf)
    return err


def main():
    args = sys.argv[1:]
    stride = 16
    if "--stride" in args:
        i = args.index("--stride")
        stride = int(args[i + 1])
        del args[i : i + 2]
    names = args or list(FUNCTIONS)
    chunk = 1 << 24
    for name in names:
        f, ref = FUNCTIONS[name]
        jf = jax.jit(f)
        worst, at, bad = 0.0, None, 0
        for start in range(0, 1 << 32, chunk):
            bits = np.arange(start, start + chunk, stride, dtype=np.uint64).astype(np.uint32)
            x = bits.view(np.float32)
            got = np.asarray(jf(x)).astype(np.float64)
            with np.errstate(all="ignore"):
                want = ref(x.astype(np.float64))
                err = ulp_error(got, want)
            tiny = np.float64(np.finfo(np.float32).tiny)
            normal = (np.abs(x) >= tiny) | (x == 0)
            normal &= (np.abs(want) >= tiny) | (want == 0) | np.isnan(want)
            err[~normal] = 0
            bad += int(np.isinf(err).sum())
            err[np.isinf(err)] = 0
            i = int(np.argmax(err))
            if err[i] > worst:
                worst, at = float(err[i]), float(x[i])
        print(f"{name:<9} XLA:CPU f32 max {worst:.3f} ulp at x={at!r}, {bad} class mismatches", flush=True)


if __name__ == "__main__":
    main()
