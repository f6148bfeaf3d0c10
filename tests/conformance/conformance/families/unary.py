"""Element-wise unary operations on every type class, with edge values."""
import math

import numpy as np
from jax import lax

from .. import dtypes as D
from .. import raw
from .. import values as V
from ..core import EXACT, Case
from ..tolerance import Rel, Ulp

SHAPE = (5, 13)  # 65 elements: the specials and 34 samples


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _logistic(x):
    with np.errstate(over="ignore"):
        return np.where(x >= 0, 1.0 / (1.0 + np.exp(-x)), np.exp(x) / (1.0 + np.exp(x)))


def _logistic_rounded(dtype):
    """Reference for 16-bit logistic: JAX expands logistic to 1 / (1 + exp(-x)) and
    each of those operations rounds to the 16-bit type."""
    def ref(x):
        r = lambda v: np.asarray(v).astype(dtype).astype(np.float64)  # noqa: E731
        with np.errstate(over="ignore"):
            return r(1.0 / r(1.0 + r(np.exp(-x))))
    return ref


def _sign(x):
    return np.where(np.isnan(x), np.nan, np.where(x == 0, x, np.sign(x)))


def _round_afz(x):
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        away = np.abs(x - t) >= 0.5
    return np.where(np.isfinite(x), np.copysign(t + np.where(away, np.sign(x), 0.0), x), x)


# name: (HLO opcode, JAX function, float64 reference, sampler of extra values)
TRANSCENDENTAL = {
    "exp": ("exponential", lax.exp, np.exp, V.normal(40)),
    "expm1": ("exponential-minus-one", lax.expm1, np.expm1, V.log_uniform(-9, 2)),
    "log": ("log", lax.log, np.log, V.log_uniform(-30, 30, signed=False)),
    "log1p": ("log-plus-one", lax.log1p, np.log1p, V.log_uniform(-9, 3)),
    "logistic": ("logistic", lax.logistic, _logistic, V.normal(20)),
    "tanh": ("tanh", lax.tanh, np.tanh, V.log_uniform(-6, 1.3)),
    "sin": ("sine", lax.sin, np.sin, V.uniform(-10, 10)),
    "cos": ("cosine", lax.cos, np.cos, V.uniform(-10, 10)),
    "tan": ("tan", lax.tan, np.tan, V.uniform(-4, 4)),
    "sqrt": ("sqrt", lax.sqrt, np.sqrt, V.log_uniform(-35, 35, signed=False)),
    "rsqrt": ("rsqrt", lax.rsqrt, lambda x: 1.0 / np.sqrt(x), V.log_uniform(-35, 35, signed=False)),
    "cbrt": ("cbrt", lax.cbrt, np.cbrt, V.log_uniform(-35, 35)),
    "erf": ("erf", lax.erf, _erf, V.normal(2.5)),
}

# name: (HLO opcode, JAX function, reference)
EXACT_FLOAT = {
    "abs": ("abs", lax.abs, np.abs),
    "neg": ("negate", lax.neg, np.negative),
    "ceil": ("ceil", lax.ceil, np.ceil),
    "floor": ("floor", lax.floor, np.floor),
    "round_afz": ("round-nearest-afz", lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO), _round_afz),
    "round_even": ("round-nearest-even", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), np.rint),
    "sign": ("sign", lax.sign, _sign),
    "is_finite": ("is-finite", lax.is_finite, np.isfinite),
}

ROUNDING_TIES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 4503599627370497.0,
                 8388609.0, 8388608.5, 1e30, -7.5, 1023.5]


def _float_cases():
    for key, (op, fn, ref, sample) in TRANSCENDENTAL.items():
        for i, t in enumerate(D.FLOATS):
            x = V.floats(t, SHAPE, seed=100 + 10 * i + len(key), sample=sample)
            notes = f"{key} on {t}: specials (first 31 elements, see values.py) then samples."
            reference = ref
            if key == "cbrt" and t in ("f32", "bf16"):
                notes += (" XLA:CPU quirk: cbrt of a non-zero subnormal returns -5.595e-16 (f32 bits 0xA6214518, "
                          "bf16 0xA621) whatever its sign; those elements are unchecked.")
            if key == "logistic":
                notes += " JAX expands logistic to 1 / (1 + exp(-x)); there is no logistic opcode."
                if t in ("f16", "bf16"):
                    reference = _logistic_rounded(D.dt(t))
                    notes += " The reference rounds after each of those operations, as XLA does."
            yield Case("unary", f"{key}_{t}", fn, [x], key if key == "logistic" else op, Ulp(), reference,
                       notes=notes)
    for key, (op, fn, ref) in EXACT_FLOAT.items():
        for i, t in enumerate(D.FLOATS):
            x = V.floats(t, SHAPE, seed=200 + 10 * i + len(key), sample=V.normal(3))
            if key.startswith("round") or key in ("ceil", "floor"):
                ties = np.array(ROUNDING_TIES).astype(D.dt(t))
                x.reshape(-1)[31:31 + len(ties)] = ties
            keeps = key in ("abs", "neg")
            yield Case("unary", f"{key}_{t}", fn, [x], op, EXACT, ref, flushes=not keeps,
                       notes=f"{op} on {t}: specials, rounding ties and samples."
                       + (" Subnormals are kept (not flushed)." if keeps else ""))


def _logistic_instruction():
    """The HLO logistic instruction itself (JAX never emits it; raw.logistic does)."""
    for i, t in enumerate(D.FLOATS):
        x = V.floats(t, SHAPE, seed=150 + i, sample=V.normal(20))
        yield Case("unary", f"logistic_hlo_{t}", raw.logistic, [x], "logistic", Ulp(), _logistic,
                   notes=f"the logistic instruction on {t} (emitted directly; lax.logistic expands it)")


def _trig_large():
    """Large arguments exercise the argument reduction of sin/cos/tan."""
    for t in ("f32", "f64"):
        x = V.floats(t, (4, 16), seed=300, sample=V.log_uniform(1, 30 if t == "f32" else 300),
                     with_specials=False)
        x.reshape(-1)[:6] = np.array([1e4, 1e6, 16777216.0, 1e22, 3.4e38 if t == "f32" else 1e300,
                                      -710.0]).astype(D.dt(t))
        for key in ("sin", "cos", "tan"):
            op, fn, ref, _ = TRANSCENDENTAL[key]
            yield Case("unary", f"{key}_{t}_large_args", fn, [x], op, Ulp(), ref,
                       notes=f"{op} on {t} with |x| from 10 to 1e30 (f32) / 1e300 (f64): range reduction.")


def _bit_patterns(a):
    """The two's-complement patterns of integer array `a` as Python ints."""
    return [int(v) % (1 << (8 * a.itemsize)) for v in a.ravel()]


def _popcnt(a):
    return np.array([bin(v).count("1") for v in _bit_patterns(a)]).astype(a.dtype).reshape(a.shape)


def _clz(a):
    width = 8 * a.itemsize
    return np.array([width - v.bit_length() for v in _bit_patterns(a)]).astype(a.dtype).reshape(a.shape)


def _int_cases():
    for i, t in enumerate(D.INTS):
        x = V.with_specials(t, (3, 7), seed=400 + i)
        yield Case("unary", f"not_{t}", lax.bitwise_not, [x], "not", notes="bitwise not")
        yield Case("unary", f"neg_{t}", lax.neg, [x], "negate",
                   notes="wraps: neg(MIN) = MIN; unsigned: 2^bits - x")
        yield Case("unary", f"popcnt_{t}", lax.population_count, [x], "popcnt", reference=_popcnt,
                   notes="population count of the two's-complement pattern")
        yield Case("unary", f"clz_{t}", lax.clz, [x], "count-leading-zeros", reference=_clz,
                   notes="count leading zeros (clz(0) = bit width)")
        if t in D.SIGNED:
            yield Case("unary", f"abs_{t}", lax.abs, [x], "abs", notes="abs(MIN) = MIN (wraps)")
            yield Case("unary", f"sign_{t}", lax.sign, [x], "sign", reference=np.sign, notes="-1/0/1")
    yield Case("unary", "not_pred", lax.bitwise_not, [np.array([False, True, True, False])], "not",
               notes="logical not")


def _complex_cases():
    for i, t in enumerate(D.COMPLEX):
        x = V.floats(t, (3, 13), seed=500 + i, sample=V.normal(2))
        yield Case("unary", f"real_{t}", lax.real, [x], "real", notes="real part (NaN payloads kept)")
        yield Case("unary", f"imag_{t}", lax.imag, [x], "imag", notes="imaginary part")
        yield Case("unary", f"conj_{t}", lax.conj, [x], "conj",
                   notes="complex conjugate; JAX lowers it to complex(real(x), -imag(x))")
        yield Case("unary", f"neg_{t}", lax.neg, [x], "negate")
        yield Case("unary", f"abs_{t}", lax.abs, [x], "abs", Ulp(), np.abs,
                   notes="magnitude, real result; hypot-style (no overflow for large components)")
        for key, op, fn, ref in [("exp", "exponential", lax.exp, np.exp), ("log", "log", lax.log, np.log),
                                 ("sqrt", "sqrt", lax.sqrt, np.sqrt), ("sign", "sign", lax.sign,
                                                                      lambda z: np.where(z == 0, 0, z / np.abs(z))),
                                 ("tanh", "tanh", lax.tanh, np.tanh)]:
            z = V.floats(t, (4, 8), seed=600 + i + len(key), sample=V.normal(2), with_specials=False)
            z.reshape(-1)[:4] = np.array([0, 1j, -1, -1 + 0j]).astype(z.dtype)
            yield Case("unary", f"{key}_{t}", fn, [z], op, Rel(), ref,
                       notes=f"complex {op} on finite values (branch cut of log/sqrt on the negative real axis)")


def _shape_cases():
    """Odd shapes: rank 0, size-0 and size-1 dimensions, 1023 elements."""
    yield Case("unary", "exp_f32_scalar", lax.exp, [np.float32(1.5)], "exponential", Ulp(), np.exp,
               notes="rank-0 operand")
    yield Case("unary", "neg_f32_empty", lax.neg, [np.zeros((3, 0, 2), np.float32)], "negate",
               notes="size-0 dimension: empty result")
    yield Case("unary", "abs_s32_size1_dims", lax.abs, [V.with_specials("s32", (1, 7, 1, 3), 700)], "abs",
               notes="rank 4 with size-1 dimensions")
    x = V.floats("f32", (1023,), seed=701, sample=V.normal(10))
    yield Case("unary", "tanh_f32_1023", lax.tanh, [x], "tanh", Ulp(), np.tanh,
               notes="1023 elements: not a multiple of any vector width")
    yield Case("unary", "sqrt_f16_13", lax.sqrt, [V.floats("f16", (13,), seed=702, sample=V.uniform(0, 9))],
               "sqrt", Ulp(), np.sqrt, notes="13 elements of f16")


def cases():
    yield from _float_cases()
    yield from _logistic_instruction()
    yield from _trig_large()
    yield from _int_cases()
    yield from _complex_cases()
    yield from _shape_cases()
