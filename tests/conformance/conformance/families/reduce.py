"""reduce (incl. variadic argmax/argmin), reduce-window (pooling, dilations,
cumulative ops) and select-and-scatter (the gradient of max pooling)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.lax import windowed_reductions

from .. import dtypes as D
from .. import values as V
from ..core import Case
from ..tolerance import Accum, Fixed, eps


def accum_bound(abs_sums, n, dtype, result_dtype=None):
    """Forward error bound of a sum of n terms in `dtype` arithmetic: n * eps * sum|terms|,
    plus one rounding of the result to `result_dtype` (when it is narrower)."""
    bound = n * eps(dtype) * float(np.max(abs_sums, initial=0.0))
    if result_dtype is not None:
        bound += eps(result_dtype) * float(np.max(abs_sums, initial=0.0))
    return bound


def _sum(dims):
    return lambda x: jnp.sum(x, axis=dims)


def _nan_max(x, axis):
    return np.where(np.isnan(x).any(axis=axis), np.nan, np.max(np.where(np.isnan(x), -np.inf, x), axis=axis))


def _reduce_cases():
    x = V.floats("f32", (7, 13), 1800, sample=V.normal(3), with_specials=False)
    for dims in [(0,), (1,), (0, 1)]:
        n = int(np.prod([x.shape[d] for d in dims]))
        bound = accum_bound(np.sum(np.abs(x.astype(np.float64)), axis=dims), n, np.float32)
        name = "".join(map(str, dims))
        yield Case("reduce", f"sum_f32_dims{name}", _sum(dims), [x], "reduce", Accum(bound),
                   lambda v, dims=dims: np.sum(v, axis=dims),
                   notes=f"sum over dimensions {dims}; association unspecified: tolerance = n*eps*sum|x|")
    y = V.floats("f32", (3, 5, 4), 1801, sample=V.normal(1), with_specials=False)
    bound = accum_bound(np.sum(np.abs(y.astype(np.float64)), axis=(0, 2)), 12, np.float32)
    yield Case("reduce", "sum_f32_rank3_dims02", _sum((0, 2)), [y], "reduce", Accum(bound),
               lambda v: np.sum(v, axis=(0, 2)), notes="non-adjacent reduced dimensions")
    z = V.floats("f32", (1023,), 1802, sample=V.normal(1), with_specials=False)
    yield Case("reduce", "sum_f32_1023", _sum((0,)), [z], "reduce",
               Accum(accum_bound(np.sum(np.abs(z.astype(np.float64))), 1023, np.float32)), lambda v: np.sum(v),
               notes="1023 elements")
    ints = np.random.default_rng(1803).integers(-1000, 1000, (9, 11)).astype(np.float32)
    yield Case("reduce", "sum_f32_integers_exact", _sum((1,)), [ints], "reduce", reference=lambda v: np.sum(v, 1),
               notes="integer-valued floats: every association gives the exact sum")
    bf = V.floats("bf16", (4, 33), 1804, with_specials=False)
    yield Case("reduce", "sum_bf16_jnp", _sum((1,)), [bf], "reduce",
               Accum(accum_bound(np.sum(np.abs(bf.astype(np.float64)), 1), 33, np.float32, D.BF16)),
               lambda v: np.sum(v, 1), notes="jnp.sum of bf16: JAX converts to f32, reduces, converts back")
    f16 = V.floats("f16", (5, 16), 1805, with_specials=False)
    yield Case("reduce", "sum_f16_lax", lambda v: lax.reduce(v, np.float16(0), lax.add, (1,)), [f16], "reduce",
               Accum(accum_bound(np.sum(np.abs(f16.astype(np.float64)), 1), 16, np.float16)),
               lambda v: np.sum(v, 1), notes="lax.reduce in f16: each add rounds to f16 (order unspecified)")
    special = V.floats("f32", (4, 8), 1806)
    for kind, fn, ref in [("max", jnp.max, _nan_max), ("min", jnp.min, lambda v, axis: -_nan_max(-v, axis))]:
        yield Case("reduce", f"{kind}_f32_specials", lambda v, fn=fn: fn(v, axis=1), [special], "reduce",
                   reference=lambda v, ref=ref: ref(v, 1),
                   notes=f"{kind} with NaN, infinities, signed zeros and subnormals (flushed: the computation "
                   "is arithmetic); NaN wins")
    zeros = np.array([[0.0, -0.0], [-0.0, 0.0], [-0.0, -0.0], [0.0, 0.0]], np.float32)
    yield Case("reduce", "max_signed_zeros", lambda v: jnp.max(v, axis=1), [zeros], "reduce",
               notes="max over {+0,-0} in either order")
    yield Case("reduce", "min_signed_zeros", lambda v: jnp.min(v, axis=1), [zeros], "reduce",
               notes="min over {+0,-0} in either order")
    p = V.floats("f32", (3, 6), 1807, sample=V.uniform(0.5, 2.0), with_specials=False)
    yield Case("reduce", "prod_f32", lambda v: jnp.prod(v, axis=1), [p], "reduce", Fixed(rtol=6 * eps(np.float32)),
               lambda v: np.prod(v, 1), notes="product: rtol = n * eps")
    b = np.random.default_rng(1808).integers(0, 2, (5, 6)).astype(bool)
    b[0] = True
    b[1] = False
    yield Case("reduce", "all_pred", lambda v: jnp.all(v, axis=1), [b], "reduce", reference=lambda v: v.all(1))
    yield Case("reduce", "any_pred", lambda v: jnp.any(v, axis=0), [b], "reduce", reference=lambda v: v.any(0))
    for t in ("s8", "u32", "s64"):
        v = V.with_specials(t, (4, 7), 1809)
        init = np.zeros((), D.dt(t))
        yield Case("reduce", f"sum_{t}_wraps", lambda a, init=init: lax.reduce(a, init, lax.add, (1,)), [v],
                   "reduce", notes=f"lax.reduce add in {t}: wraps (jnp.sum would widen s8)")
        yield Case("reduce", f"xor_{t}", lambda a, init=init: lax.reduce(a, init, lax.bitwise_xor, (0,)), [v],
                   "reduce", notes="bitwise xor reduction")
    u = V.with_specials("u64", (3, 5), 1810)
    yield Case("reduce", "max_u64", lambda a: jnp.max(a, axis=0), [u], "reduce")
    yield Case("reduce", "and_s16", lambda a: lax.reduce(a, np.int16(-1), lax.bitwise_and, (1,)),
               [V.with_specials("s16", (3, 5), 1811)], "reduce")
    yield Case("reduce", "empty_dim_sum", _sum((1,)), [np.zeros((3, 0), np.float32)], "reduce",
               notes="reducing a size-0 dimension gives the init value (JAX may fold it)")
    arg = V.floats("f32", (4, 9), 1812, sample=V.normal(1))
    arg[1] = [1, 3, 3, 2, -np.inf, 3, 0, 0, 1]
    arg[2] = [np.nan, 5, np.nan, 1, 1, 1, 1, 1, 1]
    arg[3] = [-0.0, 0.0, -0.0, 0.0, -1, -1, -2, -2, -0.0]
    for kind, fn in [("argmax", jnp.argmax), ("argmin", jnp.argmin)]:
        yield Case("reduce", f"{kind}_f32", lambda v, fn=fn: fn(v, axis=1), [arg], "reduce",
                   notes=f"jnp.{kind}: variadic reduce over (value, iota); NaN wins (first NaN), ties pick the "
                   "lowest index; -0 and +0 are equal")
    yield Case("reduce", "argmax_s8_dim0", lambda v: jnp.argmax(v, axis=0), [V.with_specials("s8", (6, 5), 1813)],
               "reduce")
    xs, ys = V.floats("f32", (3, 7), 1814, with_specials=False), V.with_specials("s32", (3, 7), 1815)

    def variadic(a, b):
        def comp(acc, val):
            return (lax.add(acc[0], val[0]), lax.max(acc[1], val[1]))
        return lax.reduce((a, b), (np.float32(0), np.int32(np.iinfo(np.int32).min)), comp, (1,))
    yield Case("reduce", "variadic_sum_and_max", variadic, [xs, ys], "reduce",
               Accum(accum_bound(np.sum(np.abs(xs.astype(np.float64)), 1), 7, np.float32)),
               lambda a, b: (np.sum(a, 1), np.max(b, 1)), notes="two operands of different types, tuple result")


def _window(kind, dims, strides, padding, base=None, win=None):
    op = {"max": lax.max, "min": lax.min, "add": lax.add}[kind]

    def fn(x):
        if kind == "add":
            init = np.zeros((), x.dtype)
        elif np.issubdtype(x.dtype, np.integer):
            info = np.iinfo(x.dtype)
            init = np.array(info.min if kind == "max" else info.max, x.dtype)
        else:
            init = np.array(-np.inf if kind == "max" else np.inf, x.dtype)
        return lax.reduce_window(x, init, op, dims, strides, padding,
                                 base_dilation=base, window_dilation=win)
    return fn


def _reduce_window_cases():
    X = np.array([[7, 2, 5, 3, 10, 2], [3, 8, 9, 3, 4, 2], [1, 5, 7, 5, 6, 1], [0, 6, 2, 7, 2, 8]], np.float32)
    yield Case("reduce_window", "spec_max_2x3_stride_2x3", _window("max", (2, 3), (2, 3), "VALID"), [X],
               "reduce-window", notes="`docs/semantics.md`, *Reduce-window*")
    yield Case("reduce_window", "spec_max_2x3_stride_1", _window("max", (2, 3), (1, 1), "VALID"), [X],
               "reduce-window", notes="`docs/semantics.md`, *Reduce-window*")
    v = np.array([10000, 1000, 100, 10, 1], np.float32)
    yield Case("reduce_window", "spec_min_valid", _window("min", (3,), (2,), "VALID"), [v], "reduce-window")
    yield Case("reduce_window", "spec_min_same", _window("min", (3,), (2,), "SAME"), [v], "reduce-window",
               notes="SAME padding (1,1) filled with the init value +inf")
    w = np.array([1, 2, 3, 4, 5], np.float32)
    yield Case("reduce_window", "spec_sum_base_dilation", _window("add", (2,), (1,), "VALID", base=(2,)), [w],
               "reduce-window", notes="base dilation 2: holes hold the init value")
    yield Case("reduce_window", "spec_sum_window_dilation", _window("add", (2,), (1,), "VALID", win=(2,)), [w],
               "reduce-window")
    yield Case("reduce_window", "spec_sum_padding", _window("add", (2,), (1,), [(1, 1)]), [w], "reduce-window")

    def init_in_padding(x):
        return (lax.reduce_window(x, np.float32(100), lax.add, (3,), (1,), [(1, 1)]),
                lax.reduce_window(x, np.float32(100), lax.add, (2,), (1,), "VALID", base_dilation=(2,)),
                lax.reduce_window(x, np.float32(2), lax.mul, (2,), (2,), [(1, 1)]))
    yield Case("reduce_window", "init_not_identity_with_padding", init_in_padding, [w], "reduce-window",
               notes="an init value that is not the reducer's identity, with padding and base-dilation holes: "
                     "XLA:CPU reduces only the operand's elements into one copy of the init value (sum of "
                     "window [pad, 1, 2] = 103), while `docs/semantics.md`, *Reduce-window* (and XLA's operation semantics) fill "
                     "padding and holes with the init value (203)")
    img = V.floats("f32", (2, 9, 7, 3), 1900, sample=V.normal(1), with_specials=False)
    yield Case("reduce_window", "maxpool_nhwc_3x3_s2_same", _window("max", (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), [img],
               "reduce-window", notes="max pooling NHWC, 3x3 window, stride 2, SAME padding")
    bound = accum_bound(np.full(1, 4.0 * float(np.max(np.abs(img)))), 4, np.float32)
    yield Case("reduce_window", "sumpool_nhwc_2x2_pad", _window("add", (1, 2, 2, 1), (1, 1, 2, 1),
                                                                [(0, 0), (1, 0), (0, 1), (0, 0)]),
               [img], "reduce-window", Accum(bound), notes="sum pooling with asymmetric explicit padding")
    yield Case("reduce_window", "max_dilations_2d", _window("max", (2, 2), (2, 1), [(1, 2), (0, 1)], base=(2, 1),
                                                            win=(1, 3)),
               [V.floats("f32", (5, 8), 1901)], "reduce-window",
               notes="base dilation, window dilation, padding and stride together; edge values inside")
    yield Case("reduce_window", "max_s8_window_larger_than_input", _window("max", (7,), (1,), "VALID"),
               [V.with_specials("s8", (5,), 1902)], "reduce-window", notes="window larger than the base: empty result")
    cum = V.floats("f32", (3, 7), 1903, sample=V.uniform(0.5, 1.5), with_specials=False)
    for kind, fn in [("cumsum", lax.cumsum), ("cumprod", lax.cumprod), ("cummax", lax.cummax),
                     ("cummin", lax.cummin)]:
        exact = kind in ("cummax", "cummin")
        tol = "exact" if exact else Fixed(atol=0.0, rtol=7 * eps(np.float32))
        ref = {"cumsum": np.cumsum, "cumprod": np.cumprod, "cummax": np.maximum.accumulate,
               "cummin": np.minimum.accumulate}[kind]
        yield Case("reduce_window", f"{kind}_f32", lambda a, fn=fn: fn(a, axis=1), [cum], "reduce-window", tol,
                   lambda a, ref=ref: ref(a, axis=1),
                   notes=f"lax.{kind}: JAX lowers it to reduce-window with padding (n-1, 0) on XLA:CPU")
    yield Case("reduce_window", "cumsum_s32_reverse", lambda a: lax.cumsum(a, axis=0, reverse=True),
               [V.with_specials("s32", (5, 3), 1904)], "reduce-window", notes="reverse cumsum, wrapping")
    xa, xb = V.floats("f32", (6,), 1905, with_specials=False), np.arange(6, dtype=np.int32)

    def argmax_pool(a, i):
        def comp(acc, val):
            take = lax.gt(val[0], acc[0])
            return (lax.select(take, val[0], acc[0]), lax.select(take, val[1], acc[1]))
        return lax.reduce_window((a, i), (np.float32(-np.inf), np.int32(-1)), comp, (3,), (1,), "VALID")
    yield Case("reduce_window", "variadic_argmax_pool", argmax_pool, [xa, xb], "reduce-window",
               notes="variadic reduce-window over (value, index)")


def _select_and_scatter_cases():
    def grad_of_maxpool(dims, strides, padding):
        pool = _window("max", dims, strides, padding)

        def fn(x, g):
            _, vjp = jax.vjp(pool, x)
            return vjp(g)[0]
        return fn
    X = np.array([[7, 2, 5, 3, 10, 2], [3, 8, 9, 3, 4, 2], [1, 5, 7, 5, 6, 1], [0, 6, 2, 7, 2, 8]], np.float32)
    src = np.array([[2, 6], [3, 1]], np.float32)
    yield Case("select_and_scatter", "spec_non_overlapping", grad_of_maxpool((2, 3), (2, 3), "VALID"), [X, src],
               "select-and-scatter", notes="`docs/semantics.md`, *Select-and-scatter* example 1 via the VJP of max pooling")
    Y = np.array([[7, 2, 5, 3, 8], [3, 8, 9, 3, 4], [1, 5, 7, 5, 6], [0, 6, 2, 10, 2]], np.float32)
    yield Case("select_and_scatter", "spec_overlapping", grad_of_maxpool((2, 3), (2, 2), "VALID"), [Y, src],
               "select-and-scatter", notes="`docs/semantics.md`, *Select-and-scatter* example 2: overlapping windows add")
    yield Case("select_and_scatter", "spec_1d", grad_of_maxpool((3,), (1,), "VALID"),
               [np.array([1, 9, 3, 7, 5, 6], np.float32), np.array([34, 42, 53, 19], np.float32)],
               "select-and-scatter", notes="`docs/semantics.md`, *Select-and-scatter* example 3")
    ties = np.array([[1, 1, 1, 1], [1, 1, 1, 1], [2, 0, 2, 2]], np.float32)
    yield Case("select_and_scatter", "ties_first_wins", grad_of_maxpool((2, 2), (1, 1), "VALID"),
               [ties, np.arange(1, 7, dtype=np.float32).reshape(2, 3)], "select-and-scatter",
               notes="equal maxima: the first in window order is selected (select is GE)")
    img = V.floats("f32", (1, 7, 9, 2), 1950, sample=V.normal(1), with_specials=False)
    g = V.floats("f32", (1, 4, 5, 2), 1951, sample=V.normal(1), with_specials=False)
    yield Case("select_and_scatter", "maxpool_grad_same_padding", grad_of_maxpool((1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
               [img, g], "select-and-scatter",
               notes="SAME padding: padding positions are never selected; overlapping windows accumulate "
               "(additions of up to 4 sources in an unspecified order)",
               tolerance=Accum(accum_bound(np.full(1, 4 * float(np.max(np.abs(g)))), 4, np.float32)))

    def direct(select, scatter, dims, strides, padding):
        """select-and-scatter with padding in its window attribute (JAX's max-pool VJP pads
        the operand itself and passes no padding)."""
        def fn(x, src, init):
            return windowed_reductions._select_and_scatter(x, select, dims, strides, padding, src, init, scatter)
        return fn
    x = V.floats("f32", (5, 7), 1952, sample=V.normal(2), with_specials=False)
    src = V.floats("f32", (3, 4), 1953, sample=V.normal(2), with_specials=False)
    yield Case("select_and_scatter", "padded_ge_add", direct(lax.ge, lax.add, (2, 3), (2, 2), ((1, 0), (1, 1))),
               [x, src, np.float32(0)], "select-and-scatter",
               tolerance=Accum(accum_bound(np.full(1, 2 * float(np.max(np.abs(src)))), 2, np.float32)),
               notes="padding (1,0)x(1,1) in the instruction's window: padding positions are never selected")
    xi = V.with_specials("s32", (4, 6), 1954)
    si = np.arange(1, 10, dtype=np.int32).reshape(3, 3) * 7
    yield Case("select_and_scatter", "padded_le_max_s32", direct(lax.le, lax.max, (2, 2), (1, 2), ((0, 0), (0, 0))),
               [xi, si, np.int32(-5)], "select-and-scatter",
               notes="select = LE (the minimum, first wins on ties), scatter = max, init -5; s32")


def cases():
    yield from _reduce_cases()
    yield from _reduce_window_cases()
    yield from _select_and_scatter_cases()
