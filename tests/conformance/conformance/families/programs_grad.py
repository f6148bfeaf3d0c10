"""Whole programs with gradients (jax.grad, value_and_grad, vmap of grad) and a
small transformer. The reference of each is the same JAX function run in float64
(jax_enable_x64): writing every backward pass out in NumPy would be a second,
error-prone copy of JAX's autodiff, and a float64 run measures the same thing —
how far XLA:CPU's float32 program is from the exact function."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import Case
from ..tolerance import Program
from .programs import _attention, _layernorm

R = np.random.default_rng(3104)
NHWC = ("NHWC", "HWIO", "NHWC")


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _in_float64(fn):
    """A reference: `fn` run by JAX on the (float64) reference arguments with x64 on."""
    def reference(*args):
        with jax.enable_x64(True):
            outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
            return [np.asarray(o) for o in outs]
    return reference


def _xent_onehot(x, w, b, labels):
    def loss(w, b):
        logits = x @ w + b
        one_hot = jax.nn.one_hot(labels, w.shape[1], dtype=logits.dtype)
        return -jnp.mean(jnp.sum(one_hot * jax.nn.log_softmax(logits), axis=-1))
    return jax.value_and_grad(loss, argnums=(0, 1))(w, b)


def _xent_take(x, w1, b1, w2, b2, labels):
    def loss(params):
        w1, b1, w2, b2 = params
        logp = jax.nn.log_softmax(jnp.tanh(x @ w1 + b1) @ w2 + b2)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))
    return jax.value_and_grad(loss)((w1, b1, w2, b2))


def _mlp_gelu_grad(x, w1, w2, t):
    def loss(x, w1, w2):
        h = jnp.tanh(jax.nn.gelu(x @ w1, approximate=False) @ w2)
        return jnp.sum((h - t) ** 2)
    return jax.grad(loss, argnums=(0, 1, 2))(x, w1, w2)


def _layernorm_grad(x, g, b, t):
    return jax.grad(lambda x, g, b: jnp.sum(_layernorm(x, g, b) * t), argnums=(0, 1, 2))(x, g, b)


def _conv_grad(x, k1, k2):
    def loss(x, k1, k2):
        h = jax.nn.relu(lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=NHWC))
        h = lax.conv_general_dilated(h, k2, (2, 2), "VALID", dimension_numbers=NHWC)
        return jnp.mean(jax.nn.relu(h) ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1, 2))(x, k1, k2)


def _attention_grad(q, k, v, t):
    return jax.grad(lambda q, k, v: jnp.sum(_attention(q, k, v) * t), argnums=(0, 1, 2))(q, k, v)


def _gru_grad(xs, h0, w, u, b):
    """A GRU over the sequence (lax.scan); gradient of the mean squared states."""
    def loss(w, u, b):
        def step(h, x):
            z = jax.nn.sigmoid(x @ w[0] + h @ u[0] + b[0])
            r = jax.nn.sigmoid(x @ w[1] + h @ u[1] + b[1])
            cand = jnp.tanh(x @ w[2] + (r * h) @ u[2] + b[2])
            h = (1 - z) * h + z * cand
            return h, h
        _, hs = lax.scan(step, h0, xs)
        return jnp.mean(hs ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1, 2))(w, u, b)


def _embedding_grad(table, ids, w):
    def loss(table):
        pooled = jnp.take(table, ids, axis=0).mean(axis=1)
        return jnp.sum(jnp.tanh(pooled @ w))
    return jax.value_and_grad(loss)(table)


def _per_example_clipped(w, b, xs, ys):
    """DP-SGD style: per-example gradients (vmap of grad), clipped to norm 1, averaged."""
    def loss(w, b, x, y):
        return jnp.sum((jnp.tanh(x @ w + b) - y) ** 2)
    gw, gb = jax.vmap(jax.grad(loss, argnums=(0, 1)), in_axes=(None, None, 0, 0))(w, b, xs, ys)
    norms = jnp.sqrt(jnp.sum(gw ** 2, axis=(1, 2)) + jnp.sum(gb ** 2, axis=1))
    scale = jnp.minimum(1.0, 1.0 / norms)
    return norms, jnp.mean(gw * scale[:, None, None], axis=0), jnp.mean(gb * scale[:, None], axis=0)


def _transformer(x, ln, wqkv, wo, w1, w2):
    """Two pre-layernorm transformer blocks (2 heads, causal attention, gelu MLP) and a
    final layernorm; layer l uses ln[l] = (g1, b1, g2, b2) and the l-th weights."""
    batch, seq, d = x.shape
    heads = 2
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    for layer in range(wqkv.shape[0]):
        g1, b1, g2, b2 = ln[layer]
        qkv = _layernorm(x, g1, b1) @ wqkv[layer]
        q, k, v = (a.reshape(batch, seq, heads, d // heads) for a in jnp.split(qkv, 3, axis=-1))
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(d // heads)
        p = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
        x = x + jnp.einsum("bhqk,bkhd->bqhd", p, v).reshape(batch, seq, d) @ wo[layer]
        x = x + jax.nn.gelu(_layernorm(x, g2, b2) @ w1[layer]) @ w2[layer]
    return _layernorm(x, jnp.ones(d, x.dtype), jnp.zeros(d, x.dtype))


def _pool_net_grad(x, k, w):
    """conv, relu, 2x2 max pool (its gradient: select-and-scatter), 2x2 average pool, dense, MSE."""
    def loss(k, w):
        h = jax.nn.relu(lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC))
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "SAME") / 4.0
        return jnp.mean((h.reshape(h.shape[0], -1) @ w) ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1))(k, w)


def _strided_pool_grad(x, k):
    """A stride-2 3x3 average pool after a convolution: its gradient spreads through a reduce-window
    over the interior-padded (dilated) cotangent."""
    def loss(x, k):
        h = jnp.tanh(lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC))
        h = lax.reduce_window(h, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "VALID") / 9.0
        return jnp.sum(h ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1))(x, k)


def _fake_quant_grad(x, w):
    """Quantization-aware training: weights fake-quantized to int8 levels (round half to even, clip)
    with the straight-through estimator (stop_gradient)."""
    def quant(w):
        scale = jnp.max(jnp.abs(w)) / 127.0
        q = jnp.clip(jnp.round(w / scale), -127, 127) * scale
        return w + lax.stop_gradient(q - w)

    def loss(w):
        return jnp.mean(jax.nn.relu(x @ quant(w)) ** 2)
    return jax.value_and_grad(loss)(w)


def _case(name, fn, args, op, notes):
    return Case("program", name, fn, args, op, Program(), _in_float64(fn),
                notes=notes + "; reference: the same JAX function in float64")


def cases():
    x, labels = _f32(8, 6), np.array([0, 3, 4, 1, 4, 2, 0, 3], np.int32)
    yield _case("xent_onehot_grad", _xent_onehot, [x, _f32(6, 5, scale=0.5), _f32(5, scale=0.1), labels], "dot",
                "jax.value_and_grad of softmax cross-entropy (jax.nn.one_hot of s32 labels, log_softmax) of a "
                "linear classifier; outputs: loss, d/dw, d/db")
    yield _case("xent_take_along_grad", _xent_take,
                [x, _f32(6, 12, scale=0.4), _f32(12, scale=0.1), _f32(12, 5, scale=0.4), _f32(5, scale=0.1), labels],
                "gather", "jax.value_and_grad of cross-entropy picked with take_along_axis (gather; its gradient "
                "a scatter) through a tanh MLP; outputs: loss, then the gradients of w1, b1, w2, b2")
    yield _case("mlp_gelu_grad", _mlp_gelu_grad, [_f32(5, 8), _f32(8, 16, scale=0.4), _f32(16, 3, scale=0.3),
                                                  _f32(5, 3, scale=0.5)],
                "erf", "jax.grad of a squared error through gelu (exact, erf) and tanh layers, with respect to the "
                "input and both weights")
    yield _case("layernorm_grad", _layernorm_grad, [_f32(6, 16, scale=2) + 1, _f32(16), _f32(16), _f32(6, 16)],
                "rsqrt", "jax.grad of sum(layernorm(x) * t) with respect to x, the scale and the shift")
    yield _case("conv_grad", _conv_grad, [_f32(2, 6, 6, 3), _f32(3, 3, 3, 4, scale=0.3), _f32(2, 2, 4, 2, scale=0.3)],
                "convolution", "jax.value_and_grad of the mean squared relu of two NHWC convolutions (SAME stride 1, "
                "VALID stride 2): transposed convolutions with lhs dilation for the input gradient; outputs: loss, "
                "d/dx, d/dk1, d/dk2")
    yield _case("attention_grad", _attention_grad, [_f32(1, 2, 5, 8), _f32(1, 2, 5, 8), _f32(1, 2, 5, 8),
                                                    _f32(1, 2, 5, 8)],
                "dot", "jax.grad of sum(attention(q, k, v) * t) with the causal -inf mask, with respect to q, k, v")
    yield _case("gru_scan_grad", _gru_grad, [_f32(6, 2, 3), _f32(2, 4), _f32(3, 3, 4, scale=0.5),
                                             _f32(3, 4, 4, scale=0.5), _f32(3, 4, scale=0.1)],
                "while", "jax.value_and_grad through a GRU over 6 steps (lax.scan forward, the reversed scan of "
                "its transpose backward); outputs: loss, d/dw, d/du, d/db")
    ids = np.array([[1, 3, 3, 0, 9], [2, 2, 2, 7, 1], [5, 0, 9, 9, 4]], np.int32)
    yield _case("embedding_grad", _embedding_grad, [_f32(10, 4), ids, _f32(4, 3)], "scatter",
                "jax.value_and_grad of an embedding lookup (jnp.take, gather with fill mode) mean-pooled through "
                "tanh; the table's gradient is a scatter-add with repeated ids (3, 2, 9 several times; 6 and 8 "
                "unused); outputs: loss, d/dtable")
    yield _case("per_example_grad_clip", _per_example_clipped, [_f32(5, 3, scale=0.5), _f32(3), _f32(4, 5),
                                                               _f32(4, 3)],
                "dot", "jax.vmap of jax.grad (per-example gradients of a tanh regression), per-example norms, "
                "clipping to norm 1 and the mean; outputs: norms, clipped mean gradients of w and b")
    yield _case("pool_net_grad", _pool_net_grad, [_f32(2, 8, 8, 2), _f32(3, 3, 2, 3, scale=0.4),
                                                  _f32(48, 2, scale=0.2)],
                "select-and-scatter", "jax.value_and_grad through a SAME convolution, relu, 2x2 max pool "
                "(backward: pad with -inf and select-and-scatter), 2x2 SAME sum pool / 4 (backward: a padded "
                "reduce-window), a dense layer and a mean square; outputs: loss, d/dkernel, d/dw")
    yield _case("strided_avg_pool_grad", _strided_pool_grad, [_f32(2, 7, 7, 2), _f32(3, 3, 2, 3, scale=0.4)],
                "reduce-window", "jax.value_and_grad through a SAME convolution, tanh and a 3x3 stride-2 VALID "
                "average pool: the pool's transpose is a reduce-window over the interior-padded cotangent; "
                "outputs: loss, d/dx, d/dkernel")
    yield _case("fake_quant_ste_grad", _fake_quant_grad, [_f32(6, 8), _f32(8, 5)], "round-nearest-even",
                "jax.value_and_grad of a relu layer with int8 fake-quantized weights (jnp.round half to even, "
                "jnp.clip, max-abs scale) and the straight-through estimator (w + stop_gradient(q - w)); "
                "outputs: loss, d/dw")
    d = 16
    ln = np.stack([np.stack([1 + _f32(d, scale=0.1), _f32(d, scale=0.1), 1 + _f32(d, scale=0.1),
                             _f32(d, scale=0.1)]) for _ in range(2)])
    yield _case("transformer_2layer", _transformer,
                [_f32(2, 6, d), ln, _f32(2, d, 3 * d, scale=0.25), _f32(2, d, d, scale=0.25),
                 _f32(2, d, 4 * d, scale=0.25), _f32(2, 4 * d, d, scale=0.125)],
                "dot", "two pre-layernorm transformer blocks (2 heads, causal mask by -1e9, gelu MLP, residuals) "
                "and a final layernorm, forward only")
