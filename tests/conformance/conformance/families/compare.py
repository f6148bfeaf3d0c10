"""Comparisons (IEEE and total order), select and clamp."""
import numpy as np
from jax import lax
from jax._src.lax import lax as lax_internal

from .. import dtypes as D
from .. import values as V
from ..core import Case
from .binary import _nan_max_min

_MAX, _MIN = _nan_max_min(True), _nan_max_min(False)

DIRECTIONS = {
    "eq": (lax.eq, np.equal),
    "ne": (lax.ne, np.not_equal),
    "lt": (lax.lt, np.less),
    "le": (lax.le, np.less_equal),
    "gt": (lax.gt, np.greater),
    "ge": (lax.ge, np.greater_equal),
}


def _total_order_key(a):
    """The total-order key of `docs/semantics.md`, *Comparisons* (signed integer of the bits, with the
    non-sign bits flipped for negative values)."""
    width = 8 * a.dtype.itemsize
    b = D.bits(a).astype(object)
    signed = [v - (1 << width) if v >> (width - 1) else v for v in b.ravel()]
    keys = [v ^ ((1 << (width - 1)) - 1) if v < 0 else v for v in signed]
    return np.array(keys, dtype=object).reshape(a.shape)


TOTAL_ORDER = {
    # JAX's total-order primitives (used by its sort comparators): compare type=TOTALORDER
    "eq_total": (lax_internal.eq_to_p.bind, np.equal),
    "lt_total": (lax_internal.lt_to_p.bind, np.less),
    "le_total": (lax_internal.le_to_p.bind, np.less_equal),
}


def _float_cases():
    for t in D.FLOATS:
        x, y = V.pairs(V.pair_specials(t))
        for key, (fn, ref) in DIRECTIONS.items():
            yield Case("compare", f"{key}_{t}", fn, [x, y], "compare",
                       reference=lambda a, b, ref=ref: ref(a, b),
                       notes=f"compare direction={key.upper()} type=FLOAT on all pairs of {t} edge values: "
                       "NaN compares false except NE; -0 == +0; subnormals compare as zero (flushed).")
        for key, (fn, ref) in TOTAL_ORDER.items():
            def total_ref(a, b, ref=ref, t=t):
                return ref(_total_order_key(a.astype(D.dt(t))), _total_order_key(b.astype(D.dt(t))))
            yield Case("compare", f"{key}_{t}", fn, [x, y], "compare", reference=total_ref, flushes=False,
                       notes=f"compare type=TOTALORDER on all pairs of {t} edge values: "
                       "-NaN < -inf < -finite < -0 < +0 < +finite < +inf < +NaN, by bit pattern; "
                       "subnormals are distinct from zero.")


def _int_cases():
    for t in D.INTS:
        x, y = V.pairs(V.int_specials(t))
        for key, (fn, ref) in DIRECTIONS.items():
            yield Case("compare", f"{key}_{t}", fn, [x, y], "compare", reference=ref,
                       notes=f"compare direction={key.upper()} type={'SIGNED' if t in D.SIGNED else 'UNSIGNED'}")
    a, b = V.pairs(np.array([False, True]))
    for key, (fn, ref) in DIRECTIONS.items():
        yield Case("compare", f"{key}_pred", fn, [a, b], "compare", reference=ref, notes="false < true")


def _complex_cases():
    for t in D.COMPLEX:
        x = V.floats(t, (31,), seed=1100)
        y = x.copy()
        y[1::2] = np.conj(x[1::2])
        y[2::3] = -y[2::3]
        for key in ("eq", "ne"):
            fn, ref = DIRECTIONS[key]
            yield Case("compare", f"{key}_{t}", fn, [x, y], "compare", reference=ref,
                       notes="complex compares only EQ/NE; both components compared")


def _select_cases():
    r = np.random.default_rng(1200)
    for t, seed in [("f32", 1), ("s8", 2), ("pred", 3), ("c64", 4), ("bf16", 5), ("u64", 6)]:
        shape = (3, 7)
        pred = r.integers(0, 2, shape).astype(bool)
        on_true = V.with_specials(t, shape, 1210 + seed) if t != "c64" else V.floats(t, shape, 1210 + seed)
        on_false = V.random(t, shape, 1220 + seed)
        yield Case("select", f"select_{t}", lax.select, [pred, on_true, on_false], "select",
                   notes="element-wise choice; NaN payloads and subnormals pass through unchanged")
    x = V.floats("f32", (2, 5), 1230)
    y = V.floats("f32", (2, 5), 1231, with_specials=False)
    yield Case("select", "select_scalar_pred_true", lax.select, [np.bool_(True), x, y], "select",
               notes="scalar pred selects a whole array; JAX broadcasts the pred first")
    yield Case("select", "select_scalar_pred_false", lax.select, [np.bool_(False), x, y], "select")
    yield Case("select", "select_n_s32_index", lambda i, a, b, c: lax.select_n(i, a, b, c),
               [np.array([0, 1, 2, 2, 1, 0], np.int32), np.arange(6, dtype=np.float32),
                np.arange(6, dtype=np.float32) * 10, np.arange(6, dtype=np.float32) * 100],
               "select", notes="lax.select_n with an s32 case index: JAX builds a tree of compares and selects")


def _clamp_cases():
    spec = V.specials("f32")
    lo, hi = np.float32(-1.5), np.float32(2.0)
    yield Case("clamp", "clamp_f32_scalar_bounds", lax.clamp, [lo, spec, hi], "clamp",
               reference=lambda a, v, b: _MIN(_MAX(a, v), b),
               notes="scalar bounds; NaN operand gives NaN")
    x = V.floats("f32", (4, 5), 1300, sample=V.normal(3))
    lo = V.floats("f32", (4, 5), 1301, sample=V.normal(1), with_specials=False)
    hi = lo + np.float32(1)
    lo.reshape(-1)[:4] = [np.nan, 0.0, -0.0, 3.0]
    hi.reshape(-1)[:4] = [5.0, -0.0, 0.0, 1.0]
    yield Case("clamp", "clamp_f32_array_bounds", lax.clamp, [lo, x, hi], "clamp",
               reference=lambda a, v, b: _MIN(_MAX(a, v), b),
               notes="array bounds: NaN bound, signed zeros, min > max (gives max)")
    for t in ("s8", "u32", "s64", "bf16", "f16", "f64"):
        v = V.with_specials(t, (3, 9), 1310) if not D.is_float(t) else V.floats(t, (3, 9), 1310)
        if D.is_float(t):
            a, b = np.array(-2.5).astype(D.dt(t)), np.array(100.0).astype(D.dt(t))
        else:
            info = np.iinfo(D.dt(t))
            a, b = np.array(info.min // 2 + 1).astype(D.dt(t)), np.array(info.max // 3).astype(D.dt(t))
        yield Case("clamp", f"clamp_{t}", lax.clamp, [a, v, b], "clamp", notes=f"scalar bounds on {t}")


def cases():
    yield from _float_cases()
    yield from _int_cases()
    yield from _complex_cases()
    yield from _select_cases()
    yield from _clamp_cases()
