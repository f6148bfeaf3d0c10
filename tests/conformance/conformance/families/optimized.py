"""Modules as XLA:CPU prints them after its own optimization
(`jax.jit(f).lower(*args).compile().as_text()`): fusion instructions of every kind
(`kLoop`, `kInput`, `kOutput`, YNNPACK's `kCustom`), explicit layouts and copies,
the total-order sort comparator XLA writes with `s32[] bitcast(f32[])`, and its
`TopK` custom call. The float programs' reference is the same function in float64."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import EXACT, Case
from ..tolerance import Program
from .programs_grad import _in_float64

R = np.random.default_rng(2211)


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _with_edges(x):
    flat = x.copy().reshape(-1)
    flat[:6] = [np.nan, -np.inf, np.inf, -0.0, 0.0, flat[7]]
    return flat.reshape(x.shape)


def _softmax_layernorm(x, g, b):
    sm = jax.nn.softmax(x, axis=-1)
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return sm, (x - mu) * lax.rsqrt(var + 1e-5) * g + b


def _mlp(x, w1, b1, w2):
    return jax.nn.gelu(x @ w1 + b1) @ w2


def _transposed_dots(a, b):
    return a.T @ b, jnp.einsum("ij,kj->ik", a, b), jnp.transpose(a @ b.T, (1, 0)) * 2.0


def _sorts(x, i):
    return (jnp.sort(x, axis=1), jnp.argsort(x, axis=0), jnp.sort(x, axis=1, descending=True),
            jnp.sort(i, axis=1), lax.sort((x, i), dimension=1, num_keys=1))


def _top_k(x, i):
    v, j = lax.top_k(x, 5)
    w, k = lax.top_k(i, 3)
    u, m = lax.top_k(x.T, 2)
    return v, j, w, k, u, m


def _scan(x):
    def step(c, row):
        c = jnp.tanh(c * 0.9 + row)
        return c, c.sum()
    return lax.scan(step, jnp.zeros(x.shape[1], x.dtype), x)


def cases():
    yield Case("optimized", "softmax_layernorm", _softmax_layernorm, [_f32(6, 33), _f32(33), _f32(33)],
               "fusion", Program(), _in_float64(_softmax_layernorm), optimized=True,
               notes="XLA's loop, input and custom (YNNPACK) fusions of a softmax and a layer norm.")
    yield Case("optimized", "mlp_gelu", _mlp, [_f32(5, 16), _f32(16, 24, scale=0.3), _f32(24), _f32(24, 7)],
               "fusion", Program(), _in_float64(_mlp), optimized=True,
               notes="Dots in YNNPACK fusions with a GELU between them.")
    yield Case("optimized", "transposed_dots", _transposed_dots, [_f32(9, 6), _f32(9, 6)],
               "dot", Program(), _in_float64(_transposed_dots), optimized=True,
               notes="Transposed operands and results: copies and bitcasts with explicit layouts.")
    x = _with_edges(_f32(5, 13))
    i = R.integers(-50, 50, size=(5, 13)).astype(np.int32)
    yield Case("optimized", "sort_total_order", _sorts, [x, i], "sort", EXACT, optimized=True,
               notes="XLA writes the float comparator as a total order on the bits: "
                     "s32[] bitcast(f32[]), xor and select; NaN, ±inf and ±0 among the keys.")
    x = _with_edges(_f32(4, 19))
    i = R.integers(-5, 5, size=(3, 20)).astype(np.int32)
    yield Case("optimized", "top_k_custom_call", _top_k, [x, i], "custom-call TopK", EXACT, optimized=True,
               notes="lax.top_k becomes custom_call_target=\"TopK\" with a total-order comparator: "
                     "NaN first, ties by lower index (the s32 rows have many ties).")
    yield Case("optimized", "scan_tanh", _scan, [_f32(7, 10)], "while", Program(), _in_float64(_scan),
               optimized=True, notes="A scan as XLA optimizes it: a while loop over fused bodies.")
