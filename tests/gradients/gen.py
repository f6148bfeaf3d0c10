"""Gradient cases: forward modules as JAX prints them and `jax.grad`'s outputs.

Each case is a scalar function written as a JAX user writes it. The folder
`cases/<name>/` holds `module.hlo` (the forward function,
`jax.jit(f).lower(*args).as_text(dialect="hlo")`), `case.json` (argument and
output types, the parameters differentiated, the tolerance), the arguments
`arg<i>.npy` (seeded) and the expected gradients `out<j>.npy`
(`jax.grad(f, argnums=wrt)(*args)` on CPU). The Rust tests run
`autodiff::grad` on the module and compare with them.

Run from the repository root with JAX installed (0.10.2 made the files):

    python3 tests/gradients/gen.py
"""

import json
import os
import shutil

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REPO = os.path.dirname(os.path.dirname(HERE))
rng = np.random.default_rng(20261207)
DTYPES = {np.float32: "f32", np.float64: "f64", np.float16: "f16", ml_dtypes.bfloat16: "bf16",
          np.int32: "s32", np.int64: "s64"}


def normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def uniform(lo, hi, *shape, dtype=np.float32):
    return rng.uniform(lo, hi, shape).astype(dtype)


def dtype_name(a):
    return DTYPES[np.asarray(a).dtype.type]


def case(name, fn, args, wrt=None, rtol=2e-4, atol=2e-5, optimized=False):
    """Writes one case; `wrt` defaults to every floating-point argument;
    `optimized` writes the module XLA:CPU compiled (fusions, layouts) instead
    of the one JAX lowered."""
    args = [np.asarray(a) for a in args]
    if wrt is None:
        wrt = [i for i, a in enumerate(args) if jnp.issubdtype(a.dtype, jnp.floating)]
    jargs = [jnp.asarray(a) for a in args]
    lowered = jax.jit(fn).lower(*jargs)
    module = lowered.compile().as_text() if optimized else lowered.as_text(dialect="hlo")
    module = module.replace(REPO + os.sep, "")
    grads = jax.jit(jax.grad(fn, argnums=tuple(wrt)))(*jargs)
    folder = os.path.join(CASES, name)
    os.makedirs(folder)
    with open(os.path.join(folder, "module.hlo"), "w") as f:
        f.write(module)
    for i, a in enumerate(args):
        np.save(os.path.join(folder, f"arg{i}.npy"), a, allow_pickle=False)
    for j, g in enumerate(grads):
        np.save(os.path.join(folder, f"out{j}.npy"), np.asarray(g), allow_pickle=False)
    meta = {
        "name": name,
        "wrt": wrt,
        "args": [{"dtype": dtype_name(a), "shape": list(a.shape)} for a in args],
        "outs": [{"dtype": dtype_name(g), "shape": list(np.shape(g))} for g in grads],
        "exact": False,
        "tolerance": {"atol": atol, "rtol": rtol},
    }
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


def f32(*shape):
    return normal(*shape)


shutil.rmtree(CASES, ignore_errors=True)

# ------------------------------------------------------------ element-wise

case("unary_smooth", lambda x: jnp.sum(jnp.exp(x) + jnp.log1p(x * x) + jnp.sin(x) * jnp.cos(x)
                                        + jnp.tanh(x) + jax.nn.sigmoid(x) + jnp.expm1(x) + jnp.tan(x / 4)
                                        + lax.erf(x)), [f32(5, 7)])
case("unary_roots", lambda x: jnp.sum(jnp.sqrt(x) + lax.rsqrt(x) + jnp.cbrt(x) + jnp.log(x)),
     [uniform(0.5, 3.0, 6, 4)])
case("unary_kinks", lambda x: jnp.sum(jnp.abs(x) * 2 + jnp.sign(x) + jnp.floor(x) + jnp.round(x) + jnp.ceil(x) * x),
     [f32(33)])
case("binary_arith", lambda x, y: jnp.sum(x * y - x / y + jnp.power(jnp.abs(x) + 1, y) + jnp.arctan2(x, y)
                                          + jnp.remainder(x, y + 3)), [f32(4, 5), uniform(0.5, 2.0, 4, 5)])
case("max_min_ties", lambda x, y: jnp.sum(jnp.maximum(x, y) * 3 + jnp.minimum(x, y)),
     [np.array([1.0, 2.0, 3.0, -1.0, 0.5], np.float32), np.array([1.0, 0.0, 4.0, -1.0, 0.25], np.float32)])
case("relu_at_zero", lambda x: jnp.sum(jax.nn.relu(x) * x), [np.array([-1.0, 0.0, 2.0, 0.0, 3.0], np.float32)])
case("clamp_bounds", lambda lo, x, hi: jnp.sum(lax.clamp(lo, x, hi) ** 2),
     [np.array([-0.5, -0.5, -1.0, 0.0, 0.5, 1.5], np.float32), np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], np.float32),
      np.array([0.5, 0.5, 0.5, 1.0, 0.5, 1.0], np.float32)])
case("select_where", lambda x, y: jnp.sum(jnp.where(x > y, x * x, y * 3)), [f32(3, 4), f32(3, 4)])
case("mixed_precision", lambda x: jnp.sum((x.astype(jnp.bfloat16) * 2).astype(jnp.float32) ** 2 + x),
     [f32(8)], rtol=2e-2, atol=1e-2)
case("bf16_layer", lambda x, w: jnp.sum(jnp.tanh(x @ w).astype(jnp.float32)) + jnp.sum(w.astype(jnp.float32) ** 2),
     [f32(8, 16).astype(ml_dtypes.bfloat16), (0.3 * f32(16, 4)).astype(ml_dtypes.bfloat16)], rtol=3e-2, atol=3e-2)
case("f16_chain", lambda x, y: jnp.sum(jnp.exp(x) * y + jnp.sin(x * y)), [f32(12).astype(np.float16),
                                                                          f32(12).astype(np.float16)],
     rtol=1e-2, atol=1e-2)
case("f64_chain", lambda x: jnp.sum(jnp.exp(jnp.sin(x)) / (1 + x * x)), [normal(10, dtype=np.float64)],
     rtol=1e-10, atol=1e-12)

case("special_functions", lambda x: jnp.sum(jax.scipy.special.erfinv(jnp.tanh(x) * 0.9)
                                             + jax.scipy.special.gammaln(jnp.abs(x) + 1.0)
                                             + jnp.arcsin(x * 0.3) + jnp.arcsinh(x) + jnp.logaddexp(x, 1 - x)),
     [f32(6, 5)], rtol=1e-3, atol=1e-4)
case("activations", lambda x: jnp.sum(jax.nn.gelu(x, approximate=False) + jax.nn.softplus(x) + jax.nn.elu(x)
                                       + jax.nn.silu(x) * jax.nn.log_sigmoid(x)), [f32(6, 5)])

# ------------------------------------------------------------ data movement

case("broadcast_reshape_transpose", lambda x, b: jnp.sum(jnp.tanh((x.reshape(6, 4).T + b[:, None]) ** 2)),
     [f32(2, 3, 4), f32(4)])
case("slice_pad_concat_reverse", lambda x: jnp.sum(jnp.concatenate([x[1:5:2], jnp.flip(x[:3], 0),
                                                                    jnp.pad(x[2:], ((1, 2), (0, 0)))], 0) ** 2),
     [f32(7, 3)])
case("pad_negative_interior", lambda x, v: jnp.sum(lax.pad(x, v, [(-1, 2, 1), (2, -1, 2)]) ** 2),
     [f32(5, 4), np.float32(0.5)])
case("dynamic_slice_update", lambda x, u, i: jnp.sum(lax.dynamic_update_slice(x, u * 2, (i, jnp.int32(1))) ** 2
                                                     + lax.dynamic_slice(x, (i + 1, jnp.int32(0)), (2, 3)).sum() * x[0, 0]),
     [f32(6, 5), f32(2, 3), np.int32(2)])
case("gather_take", lambda x, idx: jnp.sum(x[idx] ** 2) + jnp.sum(jnp.take(x, idx[:2], axis=1)),
     [f32(6, 5), np.array([0, 3, 3, 5], np.int32)])
case("scatter_add_set", lambda x, u: jnp.sum(x.at[jnp.array([1, 3, 1])].add(u) ** 2)
     + jnp.sum(x.at[jnp.array([0, 2])].set(u[:2] * 3) ** 3), [f32(5, 3), f32(3, 3)])

case("scatter_multiply_segment_sum", lambda x, u, s: jnp.sum(x.at[jnp.array([0, 3])].multiply(u, unique_indices=True) ** 2)
     + jnp.sum(jax.ops.segment_sum(x, s, 3) ** 2), [f32(5, 3), f32(2, 3), np.array([0, 2, 2, 1, 0], np.int32)])
case("scatter_extrema", lambda x, u, v: jnp.sum(x.at[jnp.array([0, 2])].min(u) * jnp.arange(3.0))
     + jnp.sum(x.at[jnp.array([1, 1, 3])].max(v) ** 2),
     [np.array([[1, 2, 3], [4, 5, 6], [0, 0, 0], [1, -1, 2]], np.float32),
      np.array([[1, 5, 2], [0, -1, 7]], np.float32), f32(3, 3)])
case("norms_and_clip", lambda x: jnp.linalg.norm(x) + jnp.sum(jnp.linalg.norm(x, axis=1))
     + jnp.sum(jnp.clip(x, -0.5, 0.7) ** 2) + jnp.sum(jnp.median(x, 1)), [f32(6, 5)])

# ------------------------------------------------------------ reductions

case("reduce_sum_mean", lambda x: jnp.sum(jnp.mean(x, axis=1) ** 2) + jnp.sum(x[0]), [f32(4, 6)])
case("reduce_max_ties", lambda x: jnp.sum(jnp.max(x, axis=1) * jnp.arange(3.0)) + jnp.min(x),
     [np.array([[1.0, 3.0, 3.0], [2.0, -1.0, 0.0], [5.0, 5.0, 5.0]], np.float32)])
case("reduce_prod", lambda x: jnp.sum(jnp.prod(x, axis=0)) + jnp.prod(x[:, 1]),
     [np.array([[1.5, 0.0, 2.0], [2.0, 3.0, 0.0], [0.5, -1.0, 0.0]], np.float32)])
case("argmax_value", lambda x: jnp.sum(jnp.take_along_axis(x, jnp.argmax(x, axis=1)[:, None], axis=1))
     + jnp.sum(lax.reduce_max(x, (1,))), [f32(4, 6)])
case("softmax_logsumexp", lambda x: jnp.sum(jax.nn.softmax(x, axis=-1) * jnp.arange(5.0))
     + jnp.sum(jax.nn.logsumexp(x, axis=0)), [f32(3, 5)])
case("cumsum_cumprod_cummax", lambda x: jnp.sum(jnp.cumsum(x, axis=1) ** 2) + jnp.sum(lax.cummax(x, axis=0))
     + jnp.sum(jnp.cumprod(x, axis=1)) + jnp.sum(lax.cumprod(x, axis=0, reverse=True)), [f32(4, 5)])
case("cumlogsumexp", lambda x: jnp.sum(lax.cumlogsumexp(x, axis=1) ** 2)
     + jnp.sum(lax.cumlogsumexp(x, axis=0, reverse=True) * jnp.arange(5.0)[:, None]), [f32(5, 9)], rtol=1e-3, atol=1e-4)
case("sort_values", lambda x: jnp.sum(jnp.sort(x, axis=1) * jnp.arange(6.0)), [f32(3, 6)])
case("top_k", lambda x: jnp.sum(lax.top_k(x, 3)[0] * jnp.array([3.0, 2.0, 1.0])), [f32(4, 7)])

# ------------------------------------------------------------ windows

case("avg_pool", lambda x: jnp.sum(lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") ** 2),
     [f32(2, 7, 7, 3)])
case("max_pool", lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
                                   * jnp.arange(3.0)), [f32(2, 6, 6, 3)])

# ------------------------------------------------------------ dots and convolutions

case("matmul_chain", lambda x, w, v: jnp.sum(jnp.tanh(x @ w) @ v), [f32(5, 4), f32(4, 6), f32(6, 3)])
case("dot_general_batched", lambda a, b: jnp.sum(jnp.einsum("bij,bkj->bik", a, b) ** 2)
     + jnp.sum(jnp.einsum("ijb,kb->kji", a, b[0]) ** 3), [f32(3, 4, 5), f32(3, 2, 5)])
case("conv_nhwc", lambda x, k: jnp.sum(lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                                              dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2),
     [f32(2, 6, 6, 3), f32(3, 3, 3, 4)])
case("conv_strided_dilated", lambda x, k: jnp.sum(jnp.tanh(lax.conv_general_dilated(
    x, k, (2, 1), [(1, 2), (0, 1)], lhs_dilation=(1, 2), rhs_dilation=(2, 1),
    dimension_numbers=("NCHW", "OIHW", "NCHW")))), [f32(2, 3, 9, 7), f32(4, 3, 2, 3)])
case("conv_feature_groups", lambda x, k: jnp.sum(lax.conv_general_dilated(
    x, k, (1, 1), "VALID", feature_group_count=2, dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2),
     [f32(2, 5, 5, 4), f32(3, 3, 2, 6)])
case("conv_batch_groups", lambda x, k: jnp.sum(lax.conv_general_dilated(
    x, k, (1, 1), "VALID", batch_group_count=2, dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2),
     [f32(4, 5, 5, 3), f32(2, 2, 3, 4)])

# ------------------------------------------------------------ control flow


def fori(x, w):
    return jnp.sum(lax.fori_loop(0, 5, lambda i, c: jnp.tanh(c @ w) + i * 0.1, x))


def scan_rnn(h, xs, w, u):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u)
        return h, jnp.sum(h * h)
    h, ys = lax.scan(step, h, xs)
    return jnp.sum(h) + jnp.sum(ys)


def cond(p, x):
    return jnp.sum(lax.cond(p > 0, lambda x: jnp.sin(x) * 2, lambda x: x ** 3, x))


def switch(i, x):
    return jnp.sum(lax.switch(i, [lambda x: x * x, jnp.exp, lambda x: -x], x))


def nested_loops(x):
    inner = lambda c: lax.fori_loop(0, 3, lambda j, d: jnp.sin(d) * 1.1, c)
    return jnp.sum(lax.fori_loop(0, 4, lambda i, c: inner(c) + c * 0.5, x))


case("fori_loop", fori, [f32(2, 3), 0.5 * f32(3, 3)])
case("scan_rnn", scan_rnn, [f32(2, 4), f32(6, 2, 3), 0.5 * f32(4, 4), 0.5 * f32(3, 4)])
case("cond_true", cond, [np.float32(1.0), f32(4)])
case("cond_false", cond, [np.float32(-1.0), f32(4)])
case("switch_index", switch, [np.int32(1), f32(4)])
case("nested_loops", nested_loops, [f32(5)])

# ------------------------------------------------------------ linear algebra (LAPACK custom calls)


def well_conditioned(*batch, n=4, dtype=np.float32):
    return (normal(*batch, n, n, dtype=dtype) * 0.3 + np.eye(n, dtype=dtype) * 2).astype(dtype)


def spd(n=4):
    a = normal(n, n)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


jsl = jax.scipy.linalg
case("linalg_solve", lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2), [well_conditioned(), f32(4, 3)],
     rtol=1e-3, atol=1e-4)
case("linalg_solve_batched", lambda a, b: jnp.sum(jnp.sin(jnp.linalg.solve(a, b))),
     [well_conditioned(2), f32(2, 4, 2)], rtol=1e-3, atol=1e-4)
case("linalg_inv_slogdet", lambda a: jnp.sum(jnp.linalg.inv(a)) + jnp.linalg.slogdet(a)[1],
     [well_conditioned()], rtol=1e-3, atol=1e-4)
case("linalg_cholesky", lambda a: jnp.sum(jnp.linalg.cholesky(a) * jnp.arange(16.0).reshape(4, 4)),
     [spd()], rtol=1e-3, atol=1e-4)
case("linalg_cho_solve", lambda a, b: jnp.sum(jsl.cho_solve((jnp.linalg.cholesky(a), True), b) ** 2),
     [spd(), f32(4, 2)], rtol=1e-3, atol=1e-4)
case("linalg_eigh", lambda a: jnp.sum(jnp.linalg.eigvalsh(a) * jnp.arange(4.0))
     + jnp.sum(jnp.abs(jnp.linalg.eigh(a)[1][:, 0])), [spd()], rtol=1e-3, atol=1e-4)
case("linalg_singular_values", lambda a, b: jnp.sum(jnp.linalg.svd(a, compute_uv=False) * jnp.arange(1.0, 4.0))
     + jnp.linalg.norm(b, 2) + jnp.sum(jnp.linalg.svd(b, full_matrices=False)[1]), [f32(5, 3), f32(3, 4)],
     rtol=1e-3, atol=1e-4)
case("linalg_qr", lambda a: jnp.sum(jnp.linalg.qr(a)[0] ** 3) + jnp.sum(jnp.linalg.qr(a)[1] * jnp.arange(3.0))
     + jnp.sum(jnp.sin(jnp.linalg.qr(a[:3])[0])), [f32(5, 3)], rtol=1e-3, atol=1e-4)
# Singular vectors are unique up to sign, so the losses are even in them.
case("linalg_svd_vectors_pinv", lambda a, b: jnp.sum(jnp.linalg.svd(a, full_matrices=False)[0] ** 4)
     + jnp.sum(jnp.linalg.svd(b, full_matrices=False)[2] ** 2 * jnp.arange(5.0)) + jnp.sum(jnp.linalg.pinv(a)),
     [f32(5, 3), f32(3, 5)], rtol=1e-3, atol=1e-4)
case("linalg_solve_triangular", lambda a, b: jnp.sum(jsl.solve_triangular(a, b, lower=True) ** 2)
     + jnp.sum(jsl.solve_triangular(a, b, trans=1, lower=False, unit_diagonal=True)),
     [well_conditioned(), f32(4, 3)], rtol=1e-3, atol=1e-4)

case("conv_transpose_depthwise", lambda x, k, d: jnp.sum(lax.conv_transpose(
    x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2) + jnp.sum(lax.conv_general_dilated(
        x, d, (1, 1), "SAME", feature_group_count=3, dimension_numbers=("NHWC", "HWIO", "NHWC")) ** 2),
     [f32(1, 5, 5, 3), f32(3, 3, 3, 2), f32(3, 3, 1, 3)])

# ------------------------------------------------------------ complex intermediates and FFT


case("fft_spectral_losses", lambda x, y, k: jnp.sum(jnp.abs(jnp.fft.fft(x + 1j * y)) ** 2 * jnp.arange(8.0))
     + jnp.sum(jnp.fft.irfft(jnp.fft.rfft(x) * jnp.fft.rfft(k), n=8) ** 2)
     + jnp.sum(jnp.real(jnp.fft.fft2(jnp.outer(x, y))) ** 2), [f32(8), f32(8), f32(8)], rtol=1e-3, atol=1e-3)
case("complex_arithmetic", lambda x, y: jnp.sum(jnp.abs(jnp.exp((x + 1j * y) * (0.3 - 0.2j)) / (1 + (x + 1j * y) ** 2))),
     [f32(6), f32(6)], rtol=1e-3, atol=1e-4)

# ------------------------------------------------------------ second order (gradients of gradients)


def _pool_net(k, x):
    h = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.sum(jnp.sin(lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")))


def _small_mlp(w1, w2, x):
    return jnp.sum(jnp.tanh(jax.nn.relu(x @ w1) @ w2) ** 2)


case("second_order", lambda k, x, w1, w2, v: jnp.sum(jax.grad(_pool_net)(k, x) ** 2)
     + jnp.sum(jax.grad(_small_mlp, argnums=(0, 1))(w1, w2, v)[0] ** 2),
     [0.3 * f32(3, 3, 2, 3), f32(1, 6, 6, 2), 0.5 * f32(4, 5), 0.5 * f32(5, 3), f32(6, 4)], rtol=1e-3, atol=1e-4)

# ------------------------------------------------------------ models


def mlp_loss(w1, b1, w2, b2, x, labels):
    h = jax.nn.gelu(x @ w1 + b1)
    logits = h @ w2 + b2
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, 10) * logp, axis=-1))


case("mlp_cross_entropy", mlp_loss, [f32(16, 32) * 0.3, f32(32), f32(32, 10) * 0.3, f32(10), f32(8, 16),
                                     rng.integers(0, 10, 8).astype(np.int32)])
case("mlp_cross_entropy_optimized", mlp_loss, [f32(16, 32) * 0.3, f32(32), f32(32, 10) * 0.3, f32(10), f32(8, 16),
                                               rng.integers(0, 10, 8).astype(np.int32)], optimized=True)


def layer_norm(x, g, b):
    mean = jnp.mean(x, -1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, -1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * g + b


def attention_block(x, wq, wk, wv, wo, g, b):
    h = layer_norm(x, g, b)
    q, k, v = h @ wq, h @ wk, h @ wv
    q = q.reshape(6, 2, 4).transpose(1, 0, 2)
    k = k.reshape(6, 2, 4).transpose(1, 0, 2)
    v = v.reshape(6, 2, 4).transpose(1, 0, 2)
    s = jnp.einsum("hqd,hkd->hqk", q, k) / 2.0
    mask = jnp.tril(jnp.ones((6, 6), bool))
    s = jnp.where(mask, s, -1e9)
    o = jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, -1), v).transpose(1, 0, 2).reshape(6, 8)
    return jnp.sum((x + o @ wo) ** 2)


case("attention_block", attention_block, [f32(6, 8), f32(8, 8) * 0.4, f32(8, 8) * 0.4, f32(8, 8) * 0.4,
                                          f32(8, 8) * 0.4, 1 + 0.1 * f32(8), 0.1 * f32(8)])


def conv_net(x, k1, k2, w):
    h = jax.nn.relu(lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.nn.relu(lax.conv_general_dilated(h, k2, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    return jnp.sum(jnp.mean(h, (1, 2)) @ w)


case("conv_net", conv_net, [f32(2, 8, 8, 3), 0.3 * f32(3, 3, 3, 4), 0.3 * f32(3, 3, 4, 6), f32(6, 2)])

