"""convert (every pair of element types), bitcast-convert and reduce-precision."""
import numpy as np
from jax import lax

from .. import dtypes as D
from .. import values as V
from ..core import Case

ALL = ["pred"] + D.INTS + D.FLOATS + D.COMPLEX

# Values that probe each conversion rule: saturation, NaN -> 0, truncation, rounding
# ties of f32 -> f16/bf16 and int -> float, overflow to inf, double rounding via f32.
FLOAT_PROBES = [2.7, -2.7, 1e10, -1e10, 300.0, -3.5, 255.5, 127.5, -128.5, 65504.0, 65520.0, 70000.0,
                1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 2.0 ** 31, -(2.0 ** 31),
                2.0 ** 31 - 128, 2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 4294967296.0, 1e-40, -1e-40, 1e-5,
                1 + 2 ** -11 + 2 ** -40, 3.0e38, 1e300, -0.9, 0.9, 6e-8, 1e-45]
INT_PROBES = [16777217, 16777219, 16777218, 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63), 2 ** 31 - 1, 300, -129,
              200, 65535, 65536, 2 ** 24 + 3, 2 ** 24 + 2 ** 16 + 1, 2 ** 60 + 2 ** 36 + 1, 2049, 2 ** 63 + 2 ** 39 + 1]


def _source_values(src):
    if src == "pred":
        return np.array([False, True, True, False])
    dtype = D.dt(src)
    if src in D.INTS:
        probes = np.array([_wrap(v, dtype) for v in INT_PROBES], dtype=object).astype(dtype)
        return np.concatenate([V.int_specials(src), probes])
    probes = np.array(FLOAT_PROBES, dtype=np.float64)
    if src in D.FLOATS:
        return np.concatenate([V.float_specials(src), probes.astype(dtype)])
    out = np.empty(len(probes) + 4, dtype)
    out.real[: len(probes)] = probes
    out.imag[: len(probes)] = np.roll(probes, 5)
    out[len(probes):] = np.array([np.nan, complex(0, np.nan), complex(0, 1), complex(-0.0, -1)])
    return out


def _wrap(v, dtype):
    bits = 8 * np.dtype(dtype).itemsize
    v %= 1 << bits
    if np.issubdtype(dtype, np.signedinteger) and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _float_to_float(x, src, dst):
    """XLA:CPU's float conversions. f32 <-> bf16 work on the bit pattern and keep
    subnormals; f32 <-> f64 flush subnormal inputs and results; every conversion
    between f64 and a 16-bit type goes through f32 (double rounding, and the f32
    step flushes); f16 <-> bf16 go through f32."""
    if src == dst:
        return x
    f32 = np.dtype(np.float32)
    if src == "f64" and dst in ("f16", "bf16"):
        return D.flush(D.flush(x).astype(f32)).astype(D.dt(dst))
    if src == "bf16" and dst == "f64":
        return D.flush(x.astype(f32)).astype(np.float64)
    if src in ("f32", "f64") and dst in ("f32", "f64"):
        return D.flush(D.flush(x).astype(D.dt(dst)))
    if {src, dst} == {"f16", "bf16"}:
        return x.astype(f32).astype(D.dt(dst))
    return x.astype(D.dt(dst))


def _int_to_float(x, dst):
    """Integers round to nearest even; 16-bit targets go through f32."""
    if dst in ("f16", "bf16"):
        return _int_to_float(x, "f32").astype(D.dt(dst))
    return x.astype(D.dt(dst))


def _float_to_int(x, src, dst):
    """Truncation toward zero, saturation to the target range, NaN -> 0."""
    d = D.dt(dst)
    info = np.iinfo(d)
    f = (D.flush(x) if src in ("f32", "f64") else x).astype(np.float64)
    vals = []
    for v in f.ravel():
        if np.isnan(v):
            vals.append(0)
        elif np.isinf(v):
            vals.append(info.max if v > 0 else info.min)
        else:
            vals.append(min(max(int(np.trunc(v)), info.min), info.max))
    return np.array(vals, dtype=object).astype(d).reshape(x.shape)


def _convert(x, src, dst):
    """XLA:CPU's convert from `src` to `dst` on values of type `src` (`docs/semantics.md`, *Convert*,
    with the subnormal details of _float_to_float)."""
    if src in D.COMPLEX and dst not in D.COMPLEX:
        return _convert(x.real, D.name(D.component(D.dt(src))), dst)  # real() keeps subnormals
    if dst in D.COMPLEX:
        comp = D.name(D.component(D.dt(dst)))
        out = np.zeros(x.shape, D.dt(dst))
        if src in D.COMPLEX:
            src_comp = D.name(D.component(D.dt(src)))
            out.real = _convert(x.real, src_comp, comp)
            out.imag = _convert(x.imag, src_comp, comp)
        else:
            out.real = _convert(x, src, comp)
        return out
    if dst == "pred":
        return (D.flush(x) if src in ("f32", "f64") else x) != 0
    if src == "pred" or src in D.INTS:
        if dst in D.INTS:
            return np.array([_wrap(int(v), D.dt(dst)) for v in x.ravel()], dtype=object).astype(
                D.dt(dst)).reshape(x.shape)
        return _int_to_float(x.astype(np.int64) if src == "pred" else x, dst)
    if dst in D.INTS:
        return _float_to_int(x, src, dst)
    return _float_to_float(x, src, dst)


def _convert_cases():
    for src in ALL:
        x = _source_values(src)
        targets = [t for t in ALL if t != src and not (src in D.COMPLEX and t == "pred")]

        def fn(v, targets=tuple(targets)):
            return tuple(lax.convert_element_type(v, D.dt(t)) for t in targets)

        def ref(v, src=src, targets=tuple(targets)):
            v = v.astype(D.dt(src)) if src != "pred" else v
            return tuple(_convert(v, src, t) for t in targets)

        yield Case("convert", f"from_{src}", fn, [x], "convert", reference=ref, flushes=False, x64=True,
                   notes=f"{src} converted to each of {', '.join(targets)} (out0 ... out{len(targets) - 1} in "
                   "that order). Rules: `docs/semantics.md`, *Convert* (float -> int truncates and saturates, NaN -> 0; "
                   "-> pred is x != 0, JAX emits compare NE). XLA:CPU details: f32 <-> bf16 keep subnormals; "
                   "f32 <-> f64 flush them; f64 -> f16/bf16 goes through f32 (double rounding: "
                   "1 + 2^-11 + 2^-40 -> f16 1.0); bf16 -> f64 flushes bf16 subnormals; int -> f16/bf16 "
                   "goes through f32 (2^24 + 2^16 + 1 -> bf16 2^24); s64/u64 -> f32 round once; "
                   "real -> complex of the same width keeps subnormals; complex -> real takes real() first.")


def _bitcast_cases():
    r = np.random.default_rng(1400)
    f32 = V.float_specials("f32")
    cases = [
        ("f32_to_s32", f32, "s32", "same width: bits reinterpreted; NaN payloads kept"),
        ("s32_to_f32", V.int_specials("s32"), "f32", "same width; patterns of NaN, subnormals kept"),
        ("f32_to_f16x2", f32, "f16", "narrower: new minor dimension of 2, least-significant half first"),
        ("s32_to_s8x4", np.array([0x01020304, -1, 0, 2 ** 31 - 1, -(2 ** 31), 0x7F80FF01], np.int32), "s8",
         "narrower: new minor dimension of 4, little-endian byte order"),
        ("f16x2_to_f32", f32.view(np.float16).reshape(-1, 2), "f32", "wider: minor dimension of 2 removed"),
        ("u8x8_to_f64", r.integers(0, 256, (5, 8), dtype=np.uint8), "f64", "wider: 8 bytes to one f64"),
        ("f64_to_u16x4", V.float_specials("f64"), "u16", "narrower by 4"),
        ("bf16_to_s16", V.float_specials("bf16"), "s16", "same width"),
        ("u64_to_f32x2", V.int_specials("u64"), "f32", "narrower by 2"),
        ("f32_scalar_to_f16x2", np.float32(1.0), "f16", "rank-0 operand gets shape [2]: 1.0 -> [0.0, 1.875]"),
        ("c64_to_c64", V.floats("c64", (7,), 1401), "c64", "complex to complex (identity); JAX emits no op"),
    ]
    for name, x, to, notes in cases:
        yield Case("bitcast", name, lambda v, to=to: lax.bitcast_convert_type(v, D.dt(to)), [x],
                   "bitcast-convert", notes=notes, x64=to in D.WIDE)


def _reduce_precision_ref(x, exponent_bits, mantissa_bits, src):
    """`docs/semantics.md`, *Reduce-precision* on the bit pattern of each value."""
    dtype = D.dt(src)
    fi = D.finfo(dtype)
    M, w = fi.nmant, 8 * dtype.itemsize
    E = w - 1 - M
    out = []
    for v in D.bits(x.astype(dtype)).ravel().astype(object):
        orig = v
        if mantissa_bits < M:
            last = 1 << (M - mantissa_bits)
            base_bias = (last >> 1) - 1
            last_bit = (v & last) >> (M - mantissa_bits)
            v = (v + last_bit + base_bias) & ~(last - 1) & ((1 << w) - 1)
        if exponent_bits < E:
            exp_mask = ((1 << E) - 1) << M
            bias = (1 << (E - 1)) - 1
            red = (1 << (exponent_bits - 1)) - 1
            e = v & exp_mask
            sign = v & (1 << (w - 1))
            if e > ((bias + red) << M):
                v = sign | exp_mask
            elif e <= ((bias - red) << M):
                v = sign
        is_nan = (orig & ((1 << (w - 1)) - 1)) > (((1 << E) - 1) << M)
        out.append(orig if is_nan else v)
    return D.from_bits(np.array(out, dtype=object).astype(D.uint_of(dtype)), dtype).reshape(x.shape)


def _reduce_precision_cases():
    ties = [1.00390625, 1.01171875, 3.1415927, 65504.0, 65520.0, 1e-5, -1e6, 6e-5, 6.1e-5, 5.96e-8]
    for src in D.FLOATS:
        x = np.concatenate([V.float_specials(src), np.array(ties).astype(D.dt(src)),
                            V.floats(src, (16,), 1500, sample=V.log_uniform(-8, 8))])
        configs = [(8, 7), (5, 10), (4, 3), (5, 2), (2, 1), (11, 52), (8, 23)]
        for e, m in configs:
            yield Case("reduce_precision", f"{src}_e{e}m{m}",
                       lambda v, e=e, m=m: lax.reduce_precision(v, exponent_bits=e, mantissa_bits=m), [x],
                       "reduce-precision",
                       reference=lambda v, e=e, m=m, src=src: _reduce_precision_ref(v, e, m, src), flushes=False,
                       notes=f"exponent_bits={e}, mantissa_bits={m} on {src}: round to nearest even, "
                       "overflow to inf, underflow (incl. subnormals) to zero, NaN kept")


def cases():
    yield from _convert_cases()
    yield from _bitcast_cases()
    yield from _reduce_precision_cases()
