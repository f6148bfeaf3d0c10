"""Whole programs that combine what the other families test one at a time, the way
users write them: einsum patterns, depthwise and dilated convolutions with their
transposes, pooling with SAME padding, argsort and take_along_axis, scatter and
gather modes, bit manipulation, complex arithmetic, broadcasting matmuls,
statistics with keepdims, in-place updates in loops, multi-key sorts, vmapped
dynamic slices, while loops over mixed element types, float64 chains and layout
permutations. Integer and data-movement programs are exact; the float programs'
reference is the same JAX function run in float64 (the f64 chain's is NumPy's)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import EXACT, Case
from ..tolerance import Program
from .programs_grad import _in_float64

R = np.random.default_rng(3107)


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _einsums(a, b, c, q, k):
    return (jnp.einsum("bij,bjk->bik", a, b), jnp.einsum("ij,ij->i", a[0], c),
            jnp.einsum("ii->i", c[:, :3]), jnp.einsum("bhqd,bhkd->bhqk", q, k),
            jnp.einsum("ijk,kj->i", a, c.T), jnp.tensordot(a, b[0], axes=([2], [0])))


def _convolutions(x, dw, k):
    depthwise = lax.conv_general_dilated(x, dw, (2, 2), "SAME", rhs_dilation=(2, 2),
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                         feature_group_count=x.shape[3])
    transposed = lax.conv_transpose(x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    nchw = lax.conv_general_dilated(jnp.transpose(x, (0, 3, 1, 2)), jnp.transpose(k, (3, 2, 0, 1)), (1, 2),
                                    ((1, 0), (2, 1)), lhs_dilation=(1, 1), rhs_dilation=(1, 1))
    return depthwise, transposed, nchw


def _pooling(x):
    window, strides = (1, 3, 3, 1), (1, 2, 2, 1)
    total = lax.reduce_window(x, 0.0, lax.add, window, strides, "SAME")
    count = lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, window, strides, "SAME")
    peak = lax.reduce_window(x, -jnp.inf, lax.max, window, strides, "SAME")
    dilated = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "VALID",
                                window_dilation=(1, 2, 2, 1))
    return total / count, peak, dilated, lax.cummax(x, axis=2), jnp.cumprod(x[0, :, :, 0] * 0.5 + 1, axis=0)


def _ordering(x, v):
    order = jnp.argsort(x, axis=1, stable=True)
    top_values, top_index = lax.top_k(x, 3)
    return (order, jnp.take_along_axis(v, order, axis=1), jnp.sort(x, axis=0, descending=True),
            top_values, top_index, jnp.argmax(x, axis=1), jnp.argmin(x, axis=0))


def _scatter_gather_modes(x, idx, upd):
    return (x.at[idx].add(upd, mode="drop"), x.at[idx].max(upd, mode="drop"),
            x.at[idx].mul(upd, mode="drop"), x.at[idx].min(upd, mode="clip"),
            jnp.take(x, idx, mode="fill", fill_value=-7), jnp.take(x, idx, mode="clip"),
            x.at[idx].set(upd, mode="promise_in_bounds", unique_indices=False)[:2])


def _bits(x, y, s):
    u = lax.bitcast_convert_type(y, jnp.uint32)
    exponent = (u >> 23) & 0xFF
    doubled = lax.bitcast_convert_type(u + (1 << 23), jnp.float32)
    rotated = (x << (s & 31)) | lax.shift_right_logical(x, (32 - s) & 31)
    return (lax.population_count(x), lax.clz(x), lax.shift_right_logical(x, s), lax.shift_right_arithmetic(x, s),
            rotated, exponent, doubled, x * jnp.int32(-1640531535), ~x & 0x0F0F0F0F)


def _complex(re, im):
    z = lax.complex(re, im)
    w = z[::-1] + 0.5j
    return (jnp.exp(z), jnp.abs(z), jnp.angle(z), z * jnp.conj(z), 1 / z, jnp.sqrt(z), jnp.log(z),
            z / w, jnp.sum(z * w), jnp.tanh(z * 0.3))


def _matmuls(a, b, u, v):
    return (jnp.matmul(a, b), jnp.outer(u, v), jnp.kron(u[:3].reshape(3, 1), v[:2].reshape(1, 2)),
            jax.vmap(jnp.dot)(a[:, 0], b[:2, :, :3]))


def _statistics(x, w):
    centered = x - jnp.mean(x, axis=(0, 2), keepdims=True)
    return (jnp.mean(x, axis=(0, 2), keepdims=True), jnp.var(x, axis=1, ddof=1), jnp.std(x, axis=(1, 2)),
            jnp.average(x, axis=2, weights=w), jax.nn.logsumexp(x, axis=1, b=w[:4, None, None]),
            jnp.max(jnp.abs(centered), axis=None), jnp.linalg.norm(x[0], axis=1), jnp.linalg.norm(x[1]))


def _inplace_loop(x, start):
    def body(i, state):
        buf, acc = state
        first = (i + start).astype(jnp.int32)
        window = lax.dynamic_slice(x, (first, jnp.int32(0)), (3, x.shape[1]))
        row = jnp.sum(window, axis=0) * (i + 1)
        at = i.astype(jnp.int32)
        return lax.dynamic_update_slice(buf, row[None, :], (at, jnp.int32(0))), acc + jnp.max(window)
    buf = jnp.zeros((5, x.shape[1]), x.dtype)
    return lax.fori_loop(0, 5, body, (buf, jnp.zeros((), x.dtype)))


def _selects(code, a, b, c):
    picked = lax.select_n(code, a, b, c)
    chosen = jnp.select([a > 1, a < -1, b > 0], [a, -a, b * 2], default=c)
    return picked, chosen, jnp.where(a > b, a, 0.1 * b), jnp.clip(a, b, jnp.maximum(b, c))


def _float64_chain(x, m):
    y = jnp.tanh(jnp.exp(-x * x) + jnp.log1p(jnp.abs(x))) * jnp.sin(3 * x)
    return y, jnp.cumsum(y), m @ m.T + jnp.expm1(m * 1e-3), jnp.arctan2(y, x), jnp.cbrt(x) ** 2


def _float64_chain_ref(x, m):
    y = np.tanh(np.exp(-x * x) + np.log1p(np.abs(x))) * np.sin(3 * x)
    return y, np.cumsum(y), m @ m.T + np.expm1(m * 1e-3), np.arctan2(y, x), np.cbrt(x) ** 2


def _multi_key_sort(k1, k2, v):
    return lax.sort((k1, k2, v), dimension=0, num_keys=2, is_stable=True)


def _vmapped_slices(xs, idx, upd):
    def take(x, i):
        return lax.dynamic_slice(x, (i, 0), (2, 3))

    def put(x, i, u):
        return lax.dynamic_update_slice(x, u, (i, i))
    return jax.vmap(take)(xs, idx), jax.vmap(put)(xs, idx, upd)


def _collatz(n0, flags):
    def cond(state):
        n, steps, _, _ = state
        return jnp.any(n != 1) & (steps < 200)

    def body(state):
        n, steps, visits, seen_big = state
        n = jnp.where(n == 1, n, jnp.where(n % 2 == 0, n // 2, 3 * n + 1))
        visits = visits + (n > 10).astype(jnp.uint8)
        return n, steps + 1, visits, seen_big | (n > 100)
    return lax.while_loop(cond, body, (n0, jnp.int32(0), jnp.zeros(n0.shape, jnp.uint8), flags))


def _layouts(x, y):
    t = jnp.transpose(x, (2, 0, 1))
    r = jnp.reshape(t[::-1], (x.shape[2], -1))
    c = jnp.concatenate([r, jnp.flip(r, axis=1)], axis=1)
    p = lax.pad(c, 0.0, ((1, -1, 0), (-2, 1, 1)))
    return p, jnp.sum(p, axis=0), p.T @ y[: p.shape[0]], jnp.max(t, axis=(0, 2))


def _cross_entropy(logits, labels, mask):
    log_p = jax.nn.log_softmax(logits, axis=-1)
    smooth = 0.1
    target = jax.nn.one_hot(labels, logits.shape[-1]) * (1 - smooth) + smooth / logits.shape[-1]
    per_example = -jnp.sum(target * log_p, axis=-1)
    loss = jnp.sum(per_example * mask) / jnp.maximum(jnp.sum(mask), 1)
    accuracy = jnp.mean((jnp.argmax(logits, axis=-1) == labels).astype(jnp.float32))
    return loss, accuracy, per_example


def cases():
    a, b, c = _f32(2, 3, 4), _f32(2, 4, 5), _f32(3, 4)
    yield Case("program", "einsum_patterns", _einsums, [a, b, c, _f32(2, 2, 3, 4), _f32(2, 2, 5, 4)], "dot",
               Program(), _in_float64(_einsums),
               notes="jnp.einsum batched matmul, row-wise dot, diagonal, attention scores (two batch "
               "dimensions), a contraction over two dimensions, and jnp.tensordot")
    yield Case("program", "depthwise_dilated_transposed_conv", _convolutions,
               [_f32(2, 7, 6, 3), _f32(3, 3, 1, 3), _f32(3, 2, 3, 4)], "convolution", Program(),
               _in_float64(_convolutions),
               notes="a depthwise (feature_group_count 3) convolution with rhs_dilation 2, stride 2 and SAME "
               "padding; lax.conv_transpose with stride 2 (lhs dilation); an NCHW convolution with "
               "asymmetric padding")
    yield Case("program", "pooling_same", _pooling, [_f32(2, 7, 5, 3)], "reduce-window", Program(),
               _in_float64(_pooling),
               notes="average pooling with SAME padding (sum over a count of valid positions), max pooling, "
               "a max with window_dilation 2, lax.cummax and jnp.cumprod")
    x = R.permutation(40).reshape(5, 8).astype(np.float32) - 20
    yield Case("program", "argsort_take_along", _ordering, [x, _f32(5, 8)], "sort", EXACT,
               notes="jnp.argsort (stable), take_along_axis, a descending sort, lax.top_k, argmax and argmin "
               "over distinct values")
    idx = np.array([0, 3, 3, 9, -1, 2, 12, -11], np.int32)
    yield Case("program", "scatter_gather_modes", _scatter_gather_modes,
               [_f32(10), idx, _f32(8)], "scatter", EXACT,
               notes=".at[].add/max/mul with mode='drop' (indices 12 and -11 are out of range, -1 wraps), "
               ".at[].min with mode='clip', jnp.take with mode='fill' and 'clip', duplicate indices (3 twice) "
               "in add, max and mul")
    ints = np.array([0, 1, -1, 2**31 - 1, -2**31, 0x12345678, -0x1234, 255, 1 << 20, 7], np.int32)
    floats = np.array([1.0, -2.5, 3e-38, 1e38, 0.0, -0.0, 0.1, 7.0, 65504.0, -1.0], np.float32)
    shifts = np.array([0, 1, 31, 5, 4, 12, 33, -1, 16, 3], np.int32)
    yield Case("program", "bit_manipulation", _bits, [ints, floats, shifts], "popcnt", EXACT,
               notes="population_count, clz, logical and arithmetic shifts by 0..33 and -1 (out-of-range "
               "shifts give 0 or the sign fill), a rotation, the exponent field of floats and doubling by "
               "integer addition on the bits, wrapping multiplication, not/and")
    re = np.array([1.0, -2.0, 0.5, 3.0, -0.25, 0.0, 2.0], np.float32)
    im = np.array([0.5, 1.0, -3.0, 0.0, -0.75, 1.5, -2.0], np.float32)
    yield Case("program", "complex_arithmetic", _complex, [re, im], "complex", Program(), _in_float64(_complex),
               notes="exp, abs, angle, z conj(z), reciprocal, sqrt, log, division, a complex sum of "
               "products and tanh of c64 values built by lax.complex")
    yield Case("program", "broadcast_matmuls", _matmuls,
               [_f32(2, 1, 3, 4), _f32(5, 4, 6), _f32(4), _f32(3)], "dot", Program(), _in_float64(_matmuls),
               notes="jnp.matmul broadcasting batch dimensions (2,1,3,4) @ (5,4,6), jnp.outer, jnp.kron and "
               "a vmapped dot")
    yield Case("program", "statistics_keepdims", _statistics,
               [_f32(4, 5, 6), np.abs(_f32(6)) + 0.1], "reduce", Program(), _in_float64(_statistics),
               notes="mean over two axes with keepdims, var with ddof=1, std over two axes, a weighted "
               "average, logsumexp with weights, max-abs of everything, vector and Frobenius norms")
    yield Case("program", "inplace_loop", _inplace_loop, [_f32(9, 4), np.int32(1)], "dynamic-update-slice",
               Program(), _in_float64(_inplace_loop),
               notes="a fori_loop reading sliding 3-row windows by dynamic_slice and writing one row "
               "per step by dynamic_update_slice into a carried buffer")
    yield Case("program", "select_chains", _selects,
               [np.array([0, 1, 2, 2, 1, 0, 1], np.int32), _f32(7, scale=2), _f32(7), _f32(7)], "select",
               EXACT, notes="lax.select_n over three cases, jnp.select with a default, a leaky where and "
               "jnp.clip with array bounds")
    yield Case("program", "float64_chain", _float64_chain,
               [R.standard_normal(9), R.standard_normal((4, 4))], "exponential", Program(), _float64_chain_ref,
               notes="f64: tanh, exp, log1p, sin, cumsum, a matmul, expm1, atan2, cbrt and a power")
    k1 = np.array([2, 1, 2, 1, 0, 2, 1, 0], np.int32)
    k2 = np.array([0.5, 0.5, -1.0, 0.5, 3.0, 0.5, -2.0, 3.0], np.float32)
    yield Case("program", "multi_key_sort", _multi_key_sort, [k1, k2, np.arange(8, dtype=np.int32)], "sort",
               EXACT, notes="lax.sort of three operands with num_keys=2, stable: ties on both keys keep "
               "their order")
    yield Case("program", "vmapped_slices", _vmapped_slices,
               [_f32(4, 5, 6), np.array([0, 3, 1, 9], np.int32), _f32(4, 2, 3)], "gather", EXACT,
               notes="vmapped dynamic_slice (a batched gather; start 9 is clamped) and dynamic_update_slice "
               "(a batched scatter)")
    yield Case("program", "collatz_while", _collatz,
               [np.array([6, 7, 1, 27, 12], np.int32), np.array([False, True, False, False, False])], "while",
               EXACT, notes="a while loop over (s32 vector, s32 counter, u8 counts, pred flags) until every "
               "lane reaches 1 (27 takes 111 steps)")
    yield Case("program", "layout_permutations", _layouts, [_f32(3, 4, 5), _f32(12, 3)], "transpose", Program(),
               _in_float64(_layouts),
               notes="transpose, reversal, reshape, concatenate with a flip, lax.pad with negative and "
               "interior padding, then a column sum, a product with the transpose and a max over two axes")
    logits = _f32(6, 5, scale=2)
    labels = np.array([0, 4, 2, 2, 1, 3], np.int32)
    yield Case("program", "cross_entropy_smoothing", _cross_entropy,
               [logits, labels, np.array([1, 1, 0, 1, 0, 1], np.float32)], "reduce", Program(),
               _in_float64(_cross_entropy),
               notes="log_softmax, one_hot with label smoothing 0.1, a masked mean loss and argmax accuracy")
