"""Element-wise binary operations: arithmetic, min/max, pow, atan2, bitwise logic,
shifts and complex arithmetic, each over all pairs of edge values."""
import numpy as np
from jax import lax

from .. import dtypes as D
from .. import raw
from .. import values as V
from ..core import EXACT, Case
from ..tolerance import Rel, Ulp


def _nan_max_min(pick_max):
    """Max/Min under the project rule: NaN wins; -0 is smaller than +0."""
    def ref(x, y):
        nan = np.isnan(x) | np.isnan(y)
        # Compare (value, sign) so that -0 < +0.
        x_gt = (x > y) | ((x == y) & ~np.signbit(x) & np.signbit(y))
        pick_x = x_gt if pick_max else ~x_gt
        return np.where(nan, np.nan, np.where(pick_x, x, y))
    return ref


def _float_rem(dtype):
    """fmod with XLA:CPU's subnormal handling: the divisor is flushed (so a subnormal
    divisor gives NaN) but the dividend is not (a subnormal dividend smaller than the
    divisor is returned unchanged)."""
    def ref(x, y):
        if D.flushes_subnormals(dtype):
            tiny = float(D.finfo(dtype).smallest_normal)
            y = np.where(np.abs(y) < tiny, 0.0 * y, y)
        return np.fmod(x, y)
    return ref


FLOAT_OPS = {
    # name: (HLO opcode, JAX function, float64 reference or a function of the dtype
    #        giving it, exact?, flushes subnormal operands?, notes)
    "add": ("add", lax.add, np.add, True, True, ""),
    "sub": ("subtract", lax.sub, np.subtract, True, True, ""),
    "mul": ("multiply", lax.mul, np.multiply, True, True, ""),
    "div": ("divide", lax.div, np.divide, True, True, ""),
    "rem": ("remainder", lax.rem, _float_rem, True, False,
            "XLA:CPU flushes a subnormal divisor (rem(x, subnormal) = NaN) but not the dividend: "
            "rem(subnormal, y) with |y| > |x| returns x unchanged, not 0."),
    "max": ("maximum", lax.max, _nan_max_min(True), True, True, "NaN wins; max(-0, +0) = +0."),
    "min": ("minimum", lax.min, _nan_max_min(False), True, True, "NaN wins; min(-0, +0) = -0."),
    "pow": ("power", lax.pow, np.power, False, True, "Subnormal operands: see pow_*_subnormal."),
    "atan2": ("atan2", lax.atan2, np.arctan2, False, True, "Subnormal operands: see atan2_*_subnormal."),
}

# Cases with subnormal operands for the functions whose subnormal handling is irregular.
SUBNORMAL_NOTES = {
    "pow": ("power", lax.pow, np.power, False,
            "XLA:CPU does not flush a subnormal exponent (pow(0, -tiny) = inf, pow(inf, tiny) = inf, "
            "pow(NaN, tiny) = NaN, pow(-x, tiny) = NaN: the reference does not flush either) and a "
            "subnormal base gives wrong results (pow(2^-149, 0.5) = 2^-75, not 2^-74.5; "
            "pow(largest subnormal, -1) = inf): those elements are unchecked. Subnormal results are flushed."),
    "atan2": ("atan2", lax.atan2, np.arctan2, True,
              "XLA:CPU quirk: atan2(y, x) with y and x both non-zero subnormals gives NaN, and "
              "atan2(subnormal, +-0) gives +-pi/2 (y is not flushed, x is), where the reference flushes "
              "both operands; those elements are unchecked. atan2(subnormal, 1) returns the subnormal."),
}


def _subnormal_pairs(t):
    dtype = D.dt(t)
    sub = D.from_bits([1, (1 << D.finfo(dtype).nmant) - 1], dtype)
    vals = np.concatenate([sub, -sub, np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.0, np.inf, -np.inf, np.nan,
                                                 float(D.finfo(dtype).max)]).astype(dtype)])
    x, y = V.pairs(vals)
    keep = (np.abs(x.astype(np.float64)) < float(D.finfo(dtype).smallest_normal)) & (x != 0)
    keep |= (np.abs(y.astype(np.float64)) < float(D.finfo(dtype).smallest_normal)) & (y != 0)
    return x[keep], y[keep]


def _float_cases():
    for key, (op, fn, ref, exact, flushes, rule) in FLOAT_OPS.items():
        for t in D.FLOATS:
            specials = V.pair_specials(t)
            if key in SUBNORMAL_NOTES:
                specials = specials[:-2]  # without the two subnormals
            x, y = V.pairs(specials)
            if key == "pow":
                extra = np.array([-8.0, 1 / 3, -2.0, 3.0, -2.0, 0.5, 2.0, -1074.0, 10.0, 39.0, 0.0, -0.0,
                                  -1.0, np.inf, -1.0, -np.inf, 1.0, np.nan]).astype(D.dt(t)).reshape(-1, 2)
                x = np.concatenate([x, extra[:, 0]])
                y = np.concatenate([y, extra[:, 1]])
            tol = EXACT if exact else Ulp()
            reference = ref(D.dt(t)) if ref is _float_rem else ref
            yield Case("binary", f"{key}_{t}", fn, [x, y], op, tol, reference, flushes=flushes,
                       notes=f"{op} on {t} over all pairs of 18 edge values (values.pair_specials). {rule}"
                       + (" f16/bf16 are computed in f32 and rounded once." if t in ("f16", "bf16") else ""))
        if key in SUBNORMAL_NOTES:
            op_, fn_, ref_, flushes_, rule_ = SUBNORMAL_NOTES[key]
            for t in ("bf16", "f32", "f64"):
                x, y = _subnormal_pairs(t)
                yield Case("binary", f"{key}_{t}_subnormal", fn_, [x, y], op_, Ulp(), ref_, flushes=flushes_,
                           notes=f"{op_} on {t} pairs with a subnormal operand. {rule_}")
        x = V.floats("f32", (7, 13), seed=800 + len(key), sample=V.normal(4), with_specials=False)
        y = V.floats("f32", (7, 13), seed=900 + len(key), sample=V.normal(4), with_specials=False)
        if key == "pow":
            x = np.abs(x)
        reference = ref(np.dtype(np.float32)) if ref is _float_rem else ref
        yield Case("binary", f"{key}_f32_random", fn, [x, y], op, EXACT if exact else Ulp(), reference,
                   notes=f"{op} on normal(0, 4) samples" + (" (|x| for pow)" if key == "pow" else ""))


def _wrap(v, dtype):
    bits = 8 * np.dtype(dtype).itemsize
    v %= 1 << bits
    if np.issubdtype(dtype, np.signedinteger) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _int_ref(scalar_fn):
    """Reference applying scalar_fn(x, y, bits, signed) to Python ints, wrapped to the type."""
    def ref(x, y):
        dtype = x.dtype
        bits = 8 * dtype.itemsize
        signed = np.issubdtype(dtype, np.signedinteger)
        vals = [_wrap(scalar_fn(int(a), int(b), bits, signed), dtype) for a, b in zip(x.ravel(), y.ravel())]
        return np.array(vals, dtype=object).astype(dtype).reshape(x.shape)
    return ref


def _div(a, b, bits, signed):
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q  # wraps INT_MIN / -1 to INT_MIN


def _rem(a, b, bits, signed):
    if b == 0:
        return a
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _pow(a, b, bits, signed):
    """XLA:CPU's integer power: the exponent's bits are read as signed even for unsigned
    types; a negative exponent gives 0 unless the base is 1 or -1 (all ones); otherwise
    only the low 6 bits of the exponent are used (exponentiation by squaring over 6
    bits), so x^64 = 1 and x^65 = x."""
    b_signed = _wrap(b, np.int64 if bits == 64 else np.dtype(f"i{bits // 8}"))
    a_signed = _wrap(a, np.int64 if bits == 64 else np.dtype(f"i{bits // 8}"))
    if b_signed < 0:
        if a_signed == 1:
            return 1
        if a_signed == -1:
            return -1 if b_signed % 2 else 1
        return 0
    return pow(a, b_signed & 63, 1 << bits)


def _amount(b, bits):
    return b % (1 << bits)  # shift amounts are read as unsigned


def _shl(a, b, bits, signed):
    n = _amount(b, bits)
    return 0 if n >= bits else a << n


def _shr_logical(a, b, bits, signed):
    n = _amount(b, bits)
    return 0 if n >= bits else (a % (1 << bits)) >> n


def _shr_arith(a, b, bits, signed):
    n = min(_amount(b, bits), bits - 1)
    top = (a % (1 << bits)) >> (bits - 1)
    a_signed = (a % (1 << bits)) - (top << bits)
    return a_signed >> n


INT_OPS = {
    "add": ("add", lax.add, lambda a, b, *_: a + b, "wraps"),
    "sub": ("subtract", lax.sub, lambda a, b, *_: a - b, "wraps"),
    "mul": ("multiply", lax.mul, lambda a, b, *_: a * b, "wraps"),
    "div": ("divide", lax.div, _div, "truncates; x/0 = -1 (all ones), MIN/-1 = MIN"),
    "rem": ("remainder", lax.rem, _rem, "sign of the dividend; x rem 0 = x, MIN rem -1 = 0"),
    "max": ("maximum", lax.max, lambda a, b, *_: max(a, b), ""),
    "min": ("minimum", lax.min, lambda a, b, *_: min(a, b), ""),
    "and": ("and", lax.bitwise_and, lambda a, b, *_: a & b, "bitwise"),
    "or": ("or", lax.bitwise_or, lambda a, b, *_: a | b, "bitwise"),
    "xor": ("xor", lax.bitwise_xor, lambda a, b, *_: a ^ b, "bitwise"),
    "shl": ("shift-left", lax.shift_left, _shl, "amount read as unsigned; >= bit width gives 0"),
    "shr_logical": ("shift-right-logical", lax.shift_right_logical, _shr_logical,
                    "amount read as unsigned; >= bit width gives 0"),
    "shr_arith": ("shift-right-arithmetic", lax.shift_right_arithmetic, _shr_arith,
                  "amount read as unsigned; >= bit width gives the sign fill (also for unsigned types)"),
    "pow": ("power", raw.power, _pow,
            "HLO power on integers (emitted directly: jnp.power expands it). XLA:CPU reads the exponent "
            "as signed even for unsigned types; a negative exponent gives 0 unless the base is 1 or -1 "
            "(all ones); otherwise only the exponent's low 6 bits count (x^64 = 1, x^65 = x)."),
}


def _shift_amounts(t):
    bits = 8 * D.dt(t).itemsize
    amounts = [0, 1, 3, bits - 1, bits, bits + 1, 2 * bits, 100 % (1 << bits)]
    if t in D.SIGNED:
        amounts += [-1, -bits, np.iinfo(D.dt(t)).min]
    else:
        amounts += [np.iinfo(D.dt(t)).max]
    return np.array(amounts, dtype=object).astype(D.dt(t))


def _int_cases():
    for key, (op, fn, scalar, rule) in INT_OPS.items():
        for t in D.INTS:
            spec = V.int_specials(t)
            if key.startswith("sh"):
                x, y = V.pairs(spec, _shift_amounts(t))
            elif key == "pow":
                ones = np.iinfo(D.dt(t)).max
                bases = np.array([0, 1, 2, 3, 7, -1, -2, -3] if t in D.SIGNED else [0, 1, 2, 3, 7, ones],
                                 dtype=object).astype(D.dt(t))
                top = 1 << (8 * D.dt(t).itemsize - 1)
                exps = np.array([0, 1, 2, 3, 5, 7, 8, 15, 31, 63, 64, 65, 100]
                                + ([-1, -2, -3] if t in D.SIGNED else [top, top + 1, 2 * top - 1]),
                                dtype=object).astype(D.dt(t))
                x, y = V.pairs(np.concatenate([bases, spec[:2]]), exps)
            else:
                x, y = V.pairs(spec)
            yield Case("binary", f"{key}_{t}", fn, [x, y], op, EXACT, _int_ref(scalar),
                       notes=f"{op} on {t} over all pairs of edge values. {rule}".strip())
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    for key, op, fn in [("and", "and", lax.bitwise_and), ("or", "or", lax.bitwise_or),
                        ("xor", "xor", lax.bitwise_xor), ("max", "maximum", lax.max), ("min", "minimum", lax.min)]:
        yield Case("binary", f"{key}_pred", fn, [a, b], op, notes=f"{op} on pred (max = or, min = and)")


def _textbook_mul(dtype):
    """(a+bi)(c+di) = (ac - bd) + (ad + bc)i in the component precision of `dtype`,
    without C99 Annex G infinity recovery: what XLA:CPU computes (inf * finite can give
    NaN components, and products can overflow in f32)."""
    comp = D.component(dtype)

    def ref(x, y):
        a, b, c, d = (v.astype(comp) for v in (x.real, x.imag, y.real, y.imag))
        out = np.empty(x.shape, np.complex128)
        out.real, out.imag = a * c - b * d, a * d + b * c
        return out
    return ref


def _complex_cases():
    for t in D.COMPLEX:
        comp = "f32" if t == "c64" else "f64"
        re, im = V.pairs(V.pair_specials(comp)[:12])
        yield Case("binary", f"complex_{comp}", lax.complex, [re, im], "complex", flushes=False,
                   notes="complex(re, im) from edge values; builds the pair without arithmetic")
        x = V.floats(t, (4, 9), seed=1000, sample=V.normal(3))
        y = V.floats(t, (4, 9), seed=1001, sample=V.normal(3), with_specials=False)
        ops = [("add", "add", lax.add, np.add, EXACT), ("sub", "subtract", lax.sub, np.subtract, EXACT),
               ("mul", "multiply", lax.mul, _textbook_mul(D.dt(t)), Rel()),
               ("div", "divide", lax.div, np.divide, Rel()), ("pow", "power", lax.pow, np.power, Rel())]
        for key, op, fn, ref, tol in ops:
            xs = V.floats(t, (4, 9), seed=1002, sample=V.normal(2), with_specials=False) if key == "pow" else x
            yield Case("binary", f"{key}_{t}", fn, [xs, y], op, tol, ref,
                       notes=f"complex {op}; the first operand holds complex edge values (pow: finite samples)"
                       + ("; component-wise IEEE arithmetic: exact" if tol == EXACT else ""))


def cases():
    yield from _float_cases()
    yield from _int_cases()
    yield from _complex_cases()
