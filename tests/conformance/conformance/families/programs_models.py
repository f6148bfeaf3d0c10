"""Whole programs from model code, each with a float64 reference: depthwise and
transposed convolutions (their gradients use feature and batch groups),
rematerialization (jax.checkpoint: opt-barrier), int8 quantized matmul, a
complex DFT, vmap of a while loop, top-2 mixture-of-experts routing, sliding
windows by dynamic_slice, a key-value sort, transposed results (column-major
entry layouts), and a residual MLP block."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import Case
from ..tolerance import Program
from .programs_grad import NHWC, _in_float64

R = np.random.default_rng(3106)


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _depthwise_grad(x, k, pw):
    """A MobileNet block: depthwise 3x3 (feature_group_count = channels), relu6, pointwise 1x1."""
    def loss(x, k, pw):
        h = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=NHWC,
                                     feature_group_count=x.shape[-1])
        h = jnp.clip(h, 0.0, 6.0)
        return jnp.mean(lax.conv_general_dilated(h, pw, (1, 1), "VALID", dimension_numbers=NHWC) ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1, 2))(x, k, pw)


def _upsample(z, k):
    """A decoder step: lax.conv_transpose stride 2 (lhs dilation), then a sigmoid."""
    return jax.nn.sigmoid(lax.conv_transpose(z, k, (2, 2), "SAME", dimension_numbers=NHWC))


def _remat_grad(x, w1, w2):
    """jax.checkpoint around each layer: the backward pass recomputes them (opt-barrier)."""
    def layer(h, w):
        return jnp.tanh(h @ w)

    def loss(w1, w2):
        h = jax.checkpoint(layer)(x, w1)
        h = jax.checkpoint(layer)(h, w2)
        return jnp.sum(h ** 2)
    return jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)


def _int8_matmul(xq, wq, x_scale, w_scale, bias):
    """int8 x int8 -> s32 accumulation, dequantized by per-row and per-column scales."""
    acc = lax.dot(xq, wq, preferred_element_type=jnp.int32)
    return acc, acc.astype(jnp.float32) * x_scale[:, None] * w_scale[None, :] + bias


def _int8_matmul_ref(xq, wq, x_scale, w_scale, bias):
    acc = xq.astype(np.int64) @ wq.astype(np.int64)
    return acc, acc * x_scale[:, None] * w_scale[None, :] + bias


def _dft(x):
    """A DFT as a complex matmul, then magnitude and phase."""
    n = x.shape[-1]
    k = jnp.arange(n)
    w = jnp.exp(-2j * jnp.pi * (k[:, None] * k[None, :] / n)).astype(jnp.complex64)
    spectrum = x.astype(jnp.complex64) @ w.T
    return spectrum, jnp.abs(spectrum), jnp.angle(spectrum[:, 1:n // 2])


def _dft_ref(x):
    n = x.shape[-1]
    spectrum = np.fft.fft(x, axis=-1)
    return spectrum, np.abs(spectrum), np.angle(spectrum[:, 1:n // 2])


def _vmap_newton(a):
    """vmap of a while loop (cube roots by Newton): the batched loop runs until every lane stops."""
    def cbrt(v):
        def cond(s):
            x, prev, i = s
            return jnp.logical_and(jnp.abs(x - prev) > 1e-6 * jnp.abs(x), i < 60)

        def body(s):
            x, _, i = s
            return x - (x * x * x - v) / (3 * x * x), x, i + 1
        x, _, _ = lax.while_loop(cond, body, (jnp.maximum(jnp.abs(v), 1.0) * jnp.sign(v), jnp.zeros_like(v), 0))
        return x
    return jax.vmap(cbrt)(a)


def _moe_top2(x, gate, experts):
    """Top-2 mixture of experts: softmax gate, lax.top_k, per-token expert matmuls gathered by index."""
    probs = jax.nn.softmax(x @ gate, axis=-1)
    weights, idx = lax.top_k(probs, 2)
    weights = weights / weights.sum(-1, keepdims=True)
    all_out = jnp.einsum("td,edh->teh", x, experts)
    picked = jnp.take_along_axis(all_out, idx[:, :, None], axis=1)
    load = jnp.zeros(gate.shape[1], jnp.int32).at[idx.reshape(-1)].add(1)
    return jnp.sum(picked * weights[:, :, None], axis=1), idx, load


def _moe_top2_ref(x, gate, experts):
    logits = x @ gate
    e = np.exp(logits - logits.max(-1, keepdims=True))
    probs = e / e.sum(-1, keepdims=True)
    idx = np.argsort(-probs, axis=-1, kind="stable")[:, :2]
    weights = np.take_along_axis(probs, idx, -1)
    weights = weights / weights.sum(-1, keepdims=True)
    out = np.stack([sum(w * (xt @ experts[i]) for w, i in zip(wt, it)) for xt, wt, it in zip(x, weights, idx)])
    return out, idx, np.bincount(idx.reshape(-1), minlength=gate.shape[1])


def _windows(signal, starts):
    """Windows of 4 at traced starts (dynamic_slice, clamped into range), their means and maxima."""
    wins = jax.vmap(lambda s: lax.dynamic_slice(signal, (s,), (4,)))(starts)
    return wins, wins.mean(axis=1), jnp.max(wins, axis=1)


def _windows_ref(signal, starts):
    n = len(signal)
    wins = np.stack([signal[min(max(s + n if s < 0 else s, 0), n - 4):][:4] for s in starts])
    return wins, wins.mean(1), wins.max(1)


def _key_value_sort(keys, values):
    k, v = lax.sort((keys, values), num_keys=1)
    return k, v, jnp.cumsum(v)


def _key_value_sort_ref(keys, values):
    order = np.argsort(keys, kind="stable")
    return keys[order], values[order], np.cumsum(values[order])


def _transposed(x, w, b, y):
    """Results returned transposed: JAX gives them column-major entry layouts, so the final
    transposes become layout-swapping bitcasts (some of square arrays)."""
    return (jax.nn.softmax(x, axis=0).T, (x @ w).T + b[:, None], jnp.swapaxes(jnp.einsum("bij,bjk->bik", y, y), 0, 2),
            jnp.tanh(x).T.sum(0), jnp.exp(x).T * 2.0)


def _residual_block(x, w1, w2, g):
    """x + W2 gelu(W1 layernorm(x)) on a 32 x 64 batch."""
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    h = (x - mu) * lax.rsqrt(var + 1e-5) * g
    return x + jax.nn.gelu(h @ w1) @ w2


def _case(name, fn, args, op, notes):
    return Case("program", name, fn, args, op, Program(), _in_float64(fn),
                notes=notes + "; reference: the same JAX function in float64")


def cases():
    yield _case("depthwise_conv_grad", _depthwise_grad,
                [_f32(2, 6, 6, 4), _f32(3, 3, 1, 4, scale=0.5), _f32(1, 1, 4, 3, scale=0.5)], "convolution",
                "jax.value_and_grad of a depthwise 3x3 convolution (feature_group_count=4), relu6 (clip) and a "
                "pointwise 1x1 convolution; the kernel gradient is a convolution with batch_group_count; "
                "outputs: loss, d/dx, d/dk, d/dpointwise")
    yield _case("conv_transpose_upsample", _upsample, [_f32(2, 3, 3, 4), _f32(3, 3, 4, 2, scale=0.5)],
                "convolution", "lax.conv_transpose with stride 2 and SAME padding (an lhs-dilated convolution) "
                "then a sigmoid: a decoder upsampling step")
    yield _case("remat_grad", _remat_grad, [_f32(4, 6), _f32(6, 6, scale=0.5), _f32(6, 3, scale=0.5)],
                "opt-barrier", "jax.value_and_grad through two jax.checkpoint'ed tanh layers: the backward pass "
                "recomputes the activations behind opt-barrier; outputs: loss, d/dw1, d/dw2")
    xq = R.integers(-128, 128, (5, 32)).astype(np.int8)
    wq = R.integers(-128, 128, (32, 6)).astype(np.int8)
    xq[0, :] = -128
    wq[:, 0] = -128
    yield Case("program", "int8_quantized_matmul", _int8_matmul,
               [xq, wq, R.uniform(0.01, 0.05, 5).astype(np.float32), R.uniform(0.01, 0.05, 6).astype(np.float32),
                _f32(6)], "dot", Program(), _int8_matmul_ref,
               notes="s8 x s8 lax.dot with preferred_element_type=s32 (row 0 and column 0 all -128: 32 * 2^14), "
               "dequantized with f32 per-row and per-column scales plus a bias; outputs: the s32 accumulator, "
               "the f32 result")
    yield Case("program", "complex_dft", _dft, [_f32(3, 8)], "dot", Program(), _dft_ref,
               notes="a DFT as a c64 matmul with exp(-2 pi i jk / n) (complex exponential of an iota product), "
               "then jnp.abs and jnp.angle (atan2) of the bins strictly between 0 and n/2 (the others are real: their "
               "phase is +-pi by rounding); reference: numpy.fft.fft")
    a = np.concatenate([R.uniform(-30, 30, 6), [0.5, -8.0, 1000.0, 1e-3]]).astype(np.float32)
    yield Case("program", "vmap_while_newton", _vmap_newton, [a], "while", Program(), np.cbrt,
               notes="jax.vmap of a lax.while_loop (Newton's cube root, stopping at relative change 1e-6 or 60 "
               "steps): the batched loop runs while any lane continues and selects the finished lanes' values; "
               "reference: numpy.cbrt")
    yield Case("program", "moe_top2_routing", _moe_top2, [_f32(6, 8), _f32(8, 4), _f32(4, 8, 5, scale=0.4)],
               "topk", Program(), _moe_top2_ref,
               notes="top-2 mixture-of-experts routing: softmax gate, lax.top_k, renormalized weights, every "
               "expert's output by einsum, take_along_axis of the chosen two, expert load by .at[].add; "
               "outputs: mixed output, expert indices, load")
    starts = np.array([0, 3, 7, 12, -2, 20, 5], np.int32)
    yield Case("program", "sliding_windows", _windows, [_f32(14), starts], "dynamic-slice", Program(), _windows_ref,
               notes="jax.vmap of lax.dynamic_slice (windows of 4; JAX wraps the negative start -2 to 12, then "
               "the gather it becomes clamps 12 and 20 to 10), window means and maxima")
    keys = R.permutation(12).astype(np.float32) - 6
    keys[[2, 5, 9]] = 1.5  # equal keys keep their order (JAX's sort is stable)
    yield Case("program", "key_value_sort", _key_value_sort, [keys, _f32(12)], "sort", Program(),
               _key_value_sort_ref, notes="lax.sort of (keys, values) with num_keys=1 (stable: three equal keys "
               "keep their order), then jnp.cumsum of the values")
    yield _case("transposed_results", _transposed, [_f32(5, 5), _f32(5, 4), _f32(4), _f32(2, 3, 3)], "transpose",
                "results returned transposed (softmax over axis 0 then .T, (x @ w).T + bias, swapaxes of a batched "
                "matmul, a sum over a transposed axis, exp(x).T * 2): the entry layouts are column-major, so the "
                "transposes are layout-swapping bitcasts, several of square arrays")
    yield _case("residual_mlp_block", _residual_block,
                [_f32(32, 64), _f32(64, 64, scale=0.15), _f32(64, 64, scale=0.15), 1 + _f32(64, scale=0.1)], "dot",
                "a pre-layernorm residual MLP block (layernorm without shift, gelu) on a 32 x 64 batch: a row "
                "kernel and two dots with epilogues")
