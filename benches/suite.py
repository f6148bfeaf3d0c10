#!/usr/bin/env python3
"""The 14-kernel suite: small f32 programs, one per kind of kernel the JIT emits.

Each case is a JAX function (positional float32 arguments) with the shapes of
its arguments. `benches/gen_hlo.py` lowers them into `benches/hlo/<case>.hlo`;
`benches/compare.py` times them on JAX and, through those modules, on
`xla bench`.

This file only defines the cases; running it lists them:

    python3 benches/suite.py

(Needs numpy; the functions need jax. Set up a venv with
`python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/suite.py`.)
"""
import math

import numpy as np

SEED = 12345
LN_EPS = 1e-5
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

N_BIG = 1 << 24   # 16M elements: 64 MiB per f32 array
N_GELU = 1 << 22  # 4M elements


class Case:
    """One benchmark program.

    name   -- the case (and the HLO file's stem)
    build  -- a function (jax, jnp) -> a *new* Python function each call,
              so that no JAX cache can return an earlier compilation
    make   -- a function seed -> the arguments in call order (numpy arrays,
              or pytrees of them)
    note   -- one line for the README and listings
    """

    def __init__(self, name, build, make, note):
        self.name = name
        self.build = build
        self.make = make
        self.note = note

    def inputs(self, seed=SEED):
        return self.make(seed)


def normal_args(params, scale=None):
    """An input maker: one seeded standard-normal array per (name, shape) in
    `params`, float32, multiplied by scale[name] where given (shape () is a scalar)."""
    scale = scale or {}

    def make(seed):
        out = []
        for i, (arg, shape) in enumerate(params):
            rng = np.random.default_rng(seed + i)
            x = np.asarray(rng.standard_normal(shape, dtype=np.float32))
            x = x * np.float32(scale.get(arg, 1.0))
            out.append(x if shape else np.float32(x))
        return out
    return make


# --- the programs ---------------------------------------------------------------------
# Argument names matter: JAX names the HLO parameters after them.

def _axpby(jax, jnp):
    def f(a, x, b, y):
        return a * x + b * y
    return f


def _chain(jax, jnp):
    def f(x, a, b):
        return jnp.tanh(x * a + b) * jax.nn.sigmoid(x)
    return f


def _gelu(jax, jnp):
    def f(x):
        return 0.5 * x * (1.0 + jnp.tanh(SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))))
    return f


def _sum_axis(axis):
    def build(jax, jnp):
        def f(x):
            return jnp.sum(x, axis=axis)
        return f
    return build


def _max_all(jax, jnp):
    def f(x):
        return jnp.max(x)
    return f


def _softmax(jax, jnp):
    def f(x):
        shifted = x - jnp.max(x, axis=-1, keepdims=True)
        num = jnp.exp(shifted)
        return num / jnp.sum(num, axis=-1, keepdims=True)
    return f


def _layernorm(jax, jnp):
    def f(x, scale, bias):
        centered = x - jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.mean(centered * centered, axis=-1, keepdims=True)
        return centered * jax.lax.rsqrt(variance + LN_EPS) * scale + bias
    return f


def _dot(jax, jnp):
    def f(a, b):
        return a @ b
    return f


def _matvec(jax, jnp):
    def f(A, v):
        return A @ v
    return f


def _bmm(jax, jnp):
    def f(A, B):
        return jnp.matmul(A, B)
    return f


def _mlp(jax, jnp):
    def f(x, W1, b1, W2, b2):
        hidden = jnp.maximum(x @ W1 + b1, 0.0)
        return hidden @ W2 + b2
    return f


def _case(name, build, params, note, scale=None):
    return Case(name, build, normal_args(params, scale), note)


def _dot_case(n):
    return _case(f"dot_{n}", _dot, [("a", (n, n)), ("b", (n, n))],
                 f"{n}x{n} @ {n}x{n}", scale={"b": 1.0 / math.sqrt(n)})


ROWS = 4096
_ALL = [
    _case("ew_axpby", _axpby, [("a", ()), ("x", (N_BIG,)), ("b", ()), ("y", (N_BIG,))],
          "a*x + b*y over 16M elements (a, b scalars)"),
    _case("ew_chain", _chain, [("x", (N_BIG,)), ("a", ()), ("b", ())],
          "tanh(a*x + b) * sigmoid(x) over 16M elements"),
    _case("ew_gelu", _gelu, [("x", (N_GELU,))], "tanh-approximated GELU over 4M elements"),
    _case("reduce_row_sum", _sum_axis(1), [("x", (ROWS, 4096))], "row sums (last axis) of 4096x4096"),
    _case("reduce_col_sum", _sum_axis(0), [("x", (ROWS, 4096))], "column sums (first axis) of 4096x4096"),
    _case("reduce_all_max", _max_all, [("x", (N_BIG,))], "maximum of 16M elements"),
    _case("softmax", _softmax, [("x", (ROWS, 1024))], "softmax over the last axis of 4096x1024"),
    _case("layernorm", _layernorm, [("x", (ROWS, 1024)), ("scale", (1024,)), ("bias", (1024,))],
          "layernorm over the last axis of 4096x1024 (eps 1e-5, scale and bias)"),
    _dot_case(256),
    _dot_case(1024),
    _dot_case(2048),
    _case("matvec", _matvec, [("A", (4096, 4096)), ("v", (4096,))], "4096x4096 @ 4096"),
    _case("bmm", _bmm, [("A", (64, 128, 64)), ("B", (64, 64, 128))], "64 batched 128x64 @ 64x128"),
    _case("mlp", _mlp, [("x", (256, 1024)), ("W1", (1024, 4096)), ("b1", (4096,)),
                        ("W2", (4096, 1024)), ("b2", (1024,))],
          "relu(x@W1 + b1) @ W2 + b2: 256x1024 -> 4096 -> 1024",
          scale={"W1": 1.0 / 32, "W2": 1.0 / 64}),
]

CASES = {c.name: c for c in _ALL}


def describe(case):
    """'name(shape, ...)' of a case's inputs, pytrees flattened."""
    leaves = []

    def walk(v):
        if isinstance(v, dict):
            for k in sorted(v):
                walk(v[k])
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        else:
            a = np.asarray(v)
            leaves.append(f"{a.dtype}{list(a.shape)}")
    walk(case.inputs())
    return ", ".join(leaves)


def list_cases(cases):
    """Prints each case's name, note and inputs (what running suite.py or models.py shows)."""
    for c in cases:
        print(f"{c.name:16} {c.note}\n{'':16} inputs: {describe(c)}")


if __name__ == "__main__":
    list_cases(_ALL)
