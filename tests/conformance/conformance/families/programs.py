"""Whole programs as users write them, each with a float64 NumPy reference:
MLP forward, softmax, log-softmax, layernorm, a small CNN, a training step
(jax.grad + SGD), tiny attention and a while-loop program."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import Case
from ..tolerance import Program
from .dot_conv import _conv_ref

R = np.random.default_rng(3100)


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _softmax_ref(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _mlp(x, w1, b1, w2, b2):
    return jnp.maximum(x @ w1 + b1, 0.0) @ w2 + b2


def _mlp_ref(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0.0) @ w2 + b2


def _layernorm(x, g, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)
    return xc * lax.rsqrt(var + 1e-5) * g + b


def _layernorm_ref(x, g, b):
    xc = x - x.mean(-1, keepdims=True)
    return xc / np.sqrt((xc * xc).mean(-1, keepdims=True) + 1e-5) * g + b


def _cnn(x, k1, k2, w):
    dn = ("NHWC", "HWIO", "NHWC")
    h = jax.nn.relu(lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn))
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.nn.relu(lax.conv_general_dilated(h, k2, (2, 2), "VALID", dimension_numbers=dn))
    return jax.nn.log_softmax(h.reshape(h.shape[0], -1) @ w)


def _cnn_ref(x, k1, k2, w):
    dn = ("NHWC", "HWIO", "NHWC")
    h = np.maximum(_conv_ref(x, k1, (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1), 1, 1, dn), 0)
    n, hh, ww, c = h.shape
    h = h[:, :hh // 2 * 2, :ww // 2 * 2].reshape(n, hh // 2, 2, ww // 2, 2, c).max(axis=(2, 4))
    h = np.maximum(_conv_ref(h, k2, (2, 2), [(0, 0), (0, 0)], (1, 1), (1, 1), 1, 1, dn), 0)
    z = h.reshape(n, -1) @ w
    return z - z.max(-1, keepdims=True) - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True))


def _train_step(params, x, y):
    w1, b1, w2, b2 = params

    def loss(p):
        return jnp.mean((_mlp(x, *p) - y) ** 2)
    value, grads = jax.value_and_grad(loss)(params)
    return value, tuple(p - 0.1 * g for p, g in zip(params, grads))


def _train_step_ref(w1, b1, w2, b2, x, y):
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    out = h @ w2 + b2
    diff = out - y
    loss = np.mean(diff ** 2)
    d_out = 2 * diff / diff.size
    g_w2, g_b2 = h.T @ d_out, d_out.sum(0)
    d_pre = (d_out @ w2.T) * (pre > 0)
    g_w1, g_b1 = x.T @ d_pre, d_pre.sum(0)
    return (loss, w1 - 0.1 * g_w1, b1 - 0.1 * g_b1, w2 - 0.1 * g_w2, b2 - 0.1 * g_b2)


def _attention(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    mask = jnp.tril(jnp.ones((q.shape[2], k.shape[2]), bool))
    s = jnp.where(mask, s, -jnp.inf)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)


def _attention_ref(q, k, v):
    s = np.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(q.shape[-1])
    s = np.where(np.tril(np.ones((q.shape[2], k.shape[2]), bool)), s, -np.inf)
    return np.einsum("bhqk,bhkd->bhqd", _softmax_ref(s), v)


def _power_iteration(a):
    """Dominant eigenvalue by power iteration until the estimate stops changing (or 200 steps)."""
    def cond(s):
        _, lam, prev, i = s
        return jnp.logical_and(jnp.abs(lam - prev) > 1e-6 * jnp.abs(lam), i < 200)

    def body(s):
        v, lam, _, i = s
        w = a @ v
        return w / jnp.linalg.norm(w), v @ w, lam, i + 1
    v0 = jnp.ones(a.shape[0], a.dtype) / np.sqrt(a.shape[0]).astype(np.float32)
    _, lam, _, _ = lax.while_loop(cond, body, (v0, jnp.float32(0), jnp.float32(np.inf), jnp.int32(0)))
    return lam


def _power_ref(a):
    """The same iteration in float64."""
    v, lam, prev, i = np.ones(len(a)) / np.sqrt(len(a)), 0.0, np.inf, 0
    while abs(lam - prev) > 1e-6 * abs(lam) and i < 200:
        w = a @ v
        v, lam, prev, i = w / np.linalg.norm(w), v @ w, lam, i + 1
    return lam


def cases():
    x, w1, b1, w2, b2 = _f32(8, 16), _f32(16, 32, scale=0.25), _f32(32), _f32(32, 4, scale=0.2), _f32(4)
    yield Case("program", "mlp_forward", _mlp, [x, w1, b1, w2, b2], "dot", Program(), _mlp_ref,
               notes="relu(x W1 + b1) W2 + b2")
    logits = _f32(5, 13, scale=4)
    logits[0, :3] = [80.0, -80.0, 80.0]
    yield Case("program", "softmax", lambda z: jax.nn.softmax(z, axis=-1), [logits], "exponential", Program(),
               _softmax_ref, notes="jax.nn.softmax (max-subtracted); large logits in row 0")
    yield Case("program", "log_softmax", lambda z: jax.nn.log_softmax(z, axis=-1), [logits], "log", Program(),
               lambda z: z - z.max(-1, keepdims=True) - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1,
                                                                                                      keepdims=True)),
               notes="jax.nn.log_softmax")
    yield Case("program", "layernorm", _layernorm, [_f32(6, 24, scale=3) + 2, _f32(24), _f32(24)], "rsqrt",
               Program(), _layernorm_ref, notes="mean/variance over the last dimension, epsilon 1e-5")
    img = _f32(2, 8, 8, 3)
    yield Case("program", "cnn_forward", _cnn, [img, _f32(3, 3, 3, 4, scale=0.3), _f32(3, 3, 4, 6, scale=0.3),
                                                 _f32(6, 5, scale=0.5)], "convolution", Program(), _cnn_ref,
               notes="conv SAME + relu, 2x2 max pool, conv stride 2 + relu, dense, log_softmax")
    y = _f32(8, 4)
    yield Case("program", "train_step_sgd",
               lambda w1_, b1_, w2_, b2_, x_, y_: _train_step((w1_, b1_, w2_, b2_), x_, y_),
               [w1, b1, w2, b2, x, y], "dot", Program(), _train_step_ref,
               notes="jax.value_and_grad of an MSE loss through the MLP, then p - 0.1 grad; outputs: loss, "
               "then the updated w1, b1, w2, b2 (tree_leaves order)")
    q, k, v = _f32(1, 2, 5, 8), _f32(1, 2, 5, 8), _f32(1, 2, 5, 8)
    yield Case("program", "attention_causal", _attention, [q, k, v], "dot", Program(), _attention_ref,
               notes="scaled dot-product attention with a causal mask (-inf) and softmax")
    m = R.standard_normal((6, 6))
    a = (m @ m.T + np.diag([10.0, 0, 0, 0, 0, 0])).astype(np.float32)
    yield Case("program", "power_iteration_while", _power_iteration, [a], "while", Program(), _power_ref,
               notes="dominant eigenvalue by power iteration in a while loop that stops when the estimate "
               "changes by less than 1e-6 (relative); reference: the same iteration in float64")
