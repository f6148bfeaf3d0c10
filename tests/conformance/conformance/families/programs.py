"""Whole programs as users write them, each with a float64 NumPy reference:
MLP forward, softmax, log-softmax, layernorm, a small CNN, a training step
(jax.grad + SGD), tiny attention and a while-loop program; then data programs
(cumulative ops, ranking, top-k, segment sums, masked norms, batch norm in
training mode, an Adam step). The other program modules (programs_*.py) add
control flow, other element types, gradients, array-library and model code,
all in the family `program`."""
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
    yield from _data_cases()


R2 = np.random.default_rng(3101)


def _distinct(*shape):
    """Distinct f32 values in random order (no ties for argmax/argsort)."""
    n = int(np.prod(shape))
    return (R2.permutation(n).reshape(shape) * 0.37 - n * 0.15 + R2.uniform(0, 0.1, shape)).astype(np.float32)


def _cumulative(x):
    return jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0), lax.cummax(x, axis=1), lax.cummin(x, axis=0, reverse=True)


def _cumulative_ref(x):
    return (np.cumsum(x, 1), np.cumprod(x, 0), np.maximum.accumulate(x, 1),
            np.minimum.accumulate(x[::-1], 0)[::-1])


def _ranking(x):
    return jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), jnp.argsort(x, axis=1), jnp.sort(x, axis=0), jnp.max(x)


def _ranking_ref(x):
    return np.argmax(x, 1), np.argmin(x, 0), np.argsort(x, 1, kind="stable"), np.sort(x, 0), x.max()


def _topk_gather(scores, values):
    top, idx = lax.top_k(scores, 3)
    picked = jnp.take_along_axis(values, idx[:, :, None], axis=1)
    return top, idx, jnp.einsum("bk,bkd->bd", jax.nn.softmax(top, axis=-1), picked)


def _topk_gather_ref(scores, values):
    idx = np.argsort(-scores, axis=1, kind="stable")[:, :3]
    top = np.take_along_axis(scores, idx, 1)
    picked = np.take_along_axis(values, idx[:, :, None], 1)
    return top, idx, np.einsum("bk,bkd->bd", _softmax_ref(top), picked)


def _segments(data, ids):
    counts = jnp.zeros(5, jnp.int32).at[ids].add(1)
    return (jax.ops.segment_sum(data, ids, num_segments=5), jax.ops.segment_max(data, ids, num_segments=5),
            counts, jnp.zeros((5, data.shape[1]), data.dtype).at[ids].add(data * 2.0, mode="drop"))


def _segments_ref(data, ids):
    s = np.zeros((5, data.shape[1]))
    m = np.full((5, data.shape[1]), -np.inf)
    c, wrapped = np.zeros(5, np.int64), np.zeros((5, data.shape[1]))
    for row, i in zip(data, ids):
        if 0 <= i < 5:
            s[i] += row
            m[i] = np.maximum(m[i], row)
        if -5 <= i < 5:
            c[i] += 1
            wrapped[i] += 2 * row
    return s, m, c, wrapped


def _masked_norms(x, y):
    mask = x > 0.3
    count = mask.sum(axis=1)
    mean = jnp.where(mask, x, 0.0).sum(axis=1) / jnp.maximum(count, 1)
    return (mean, count, jnp.linalg.norm(x, axis=1), jnp.linalg.norm(x), jnp.linalg.norm(x, ord=jnp.inf),
            jnp.where(mask, x, y).max(axis=0), jnp.any(mask & (y > 1.0), axis=1))


def _masked_norms_ref(x, y):
    mask = x > 0.3
    count = mask.sum(1)
    return (np.where(mask, x, 0).sum(1) / np.maximum(count, 1), count, np.sqrt((x * x).sum(1)),
            np.sqrt((x * x).sum()), np.abs(x).sum(1).max(), np.where(mask, x, y).max(0),
            (mask & (y > 1.0)).any(1))


def _batchnorm_train(x, g, b, running_mean, running_var):
    n = x.shape[0] * x.shape[1] * x.shape[2]
    mean = jnp.mean(x, axis=(0, 1, 2))
    var = jnp.mean(jnp.square(x - mean), axis=(0, 1, 2))
    y = jax.nn.relu((x - mean) * lax.rsqrt(var + 1e-5) * g + b)
    return y, 0.9 * running_mean + 0.1 * mean, 0.9 * running_var + 0.1 * var * (n / (n - 1))


def _batchnorm_train_ref(x, g, b, running_mean, running_var):
    n = x.shape[0] * x.shape[1] * x.shape[2]
    mean, var = x.mean((0, 1, 2)), x.var((0, 1, 2))
    y = np.maximum((x - mean) / np.sqrt(var + 1e-5) * g + b, 0)
    return y, 0.9 * running_mean + 0.1 * mean, 0.9 * running_var + 0.1 * var * n / (n - 1)


def _adam(w, b, gw, gb, mw, mb, vw, vb, step, xp=jnp):
    """One Adam step (lr 1e-2, betas 0.9/0.999, eps 1e-8) on two parameters; `step` counts
    the steps already taken. Returns the new step, parameters, first and second moments."""
    step = step + 1
    t = step.astype(w.dtype)
    params, ms, vs = [], [], []
    for p, g, m, v in ((w, gw, mw, vw), (b, gb, mb, vb)):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        m_hat, v_hat = m / (1 - 0.9 ** t), v / (1 - 0.999 ** t)
        params.append(p - 0.01 * m_hat / (xp.sqrt(v_hat) + 1e-8))
        ms.append(m)
        vs.append(v)
    return step, *params, *ms, *vs


def _data_cases():
    x = _f32(4, 6, scale=0.9) + 0.3
    yield Case("program", "cumulative", _cumulative, [x], "reduce-window", Program(), _cumulative_ref,
               notes="jnp.cumsum (axis 1), jnp.cumprod (axis 0), lax.cummax (axis 1), lax.cummin reversed "
               "(axis 0): reduce-windows padded (n-1, 0) or (0, n-1)")
    yield Case("program", "ranking", _ranking, [_distinct(5, 7)], "reduce", Program(), _ranking_ref,
               notes="jnp.argmax (axis 1), jnp.argmin (axis 0), jnp.argsort (axis 1), jnp.sort (axis 0), "
               "jnp.max; distinct values (no ties)")
    yield Case("program", "topk_gather", _topk_gather, [_distinct(4, 10), _f32(4, 10, 3)], "topk", Program(),
               _topk_gather_ref, notes="lax.top_k (k=3), take_along_axis of a value table with the indices, "
               "softmax-weighted sum of the picked rows")
    ids = np.array([0, 2, 1, 0, 4, 2, 2, 1, 0, 4, 7, -1], np.int32)
    yield Case("program", "segments", _segments, [_f32(12, 3), ids], "scatter", Program(), _segments_ref,
               notes="jax.ops.segment_sum / segment_max over 5 segments (segment 3 is empty: max gives -inf), "
               "counts by .at[ids].add(1), .at[ids].add(mode='drop'); id 7 is dropped by all four, id -1 by "
               "the segment ops while .at[] wraps it to segment 4 (mode='drop' drops only what is out of range "
               "after wrapping)")
    yield Case("program", "masked_norms", _masked_norms, [_f32(6, 8), _f32(6, 8)], "select", Program(),
               _masked_norms_ref, notes="jnp.where with a boolean mask, masked mean with counts, "
               "jnp.linalg.norm (rows, Frobenius, ord=inf), jnp.any over a combined mask")
    yield Case("program", "batchnorm_train", _batchnorm_train,
               [_f32(4, 5, 5, 3, scale=2) + 1, _f32(3), _f32(3), _f32(3), np.abs(_f32(3)) + 0.5],
               "reduce", Program(), _batchnorm_train_ref,
               notes="batch norm in training mode written out (mean and biased variance over N, H, W of an "
               "NHWC batch, rsqrt, scale, shift, relu) and the running statistics update (momentum 0.9, "
               "unbiased variance)")
    shapes = [(8, 4), (4)]
    grads = [_f32(*np.atleast_1d(s)) for s in shapes]
    adam_args = ([_f32(8, 4), _f32(4)] + grads + [_f32(8, 4, scale=0.1), _f32(4, scale=0.1)]
                 + [np.abs(_f32(8, 4, scale=0.1)) ** 2, np.abs(_f32(4, scale=0.1)) ** 2] + [np.int32(4)])
    yield Case("program", "adam_step", _adam, adam_args, "power", Program(),
               lambda *a: _adam(*a, xp=np), notes="one Adam step (bias-corrected with 0.9**t and 0.999**t, "
               "t the new step count as f32) on a weight matrix and a bias; outputs: the step (s32), the "
               "new parameters, first moments, second moments")
