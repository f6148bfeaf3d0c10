"""Element types: NumPy dtypes <-> HLO names, bit views and float properties."""
import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)

# HLO element-type name -> NumPy dtype (bf16 from ml_dtypes).
BY_NAME = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": BF16,
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
}
NAME_OF = {dt: name for name, dt in BY_NAME.items()}

SIGNED = ["s8", "s16", "s32", "s64"]
UNSIGNED = ["u8", "u16", "u32", "u64"]
INTS = SIGNED + UNSIGNED
FLOATS = ["f16", "bf16", "f32", "f64"]
COMPLEX = ["c64", "c128"]
WIDE = {"s64", "u64", "f64", "c128"}  # types that need jax_enable_x64


def dt(name):
    """The NumPy dtype of an HLO element-type name."""
    return BY_NAME[name]


def name(dtype):
    """The HLO element-type name of a NumPy dtype."""
    return NAME_OF[np.dtype(dtype)]


def is_float(name_):
    return name_ in FLOATS


def is_complex(name_):
    return name_ in COMPLEX


def uint_of(dtype):
    """The unsigned integer dtype with the same width as `dtype`."""
    return np.dtype(f"u{np.dtype(dtype).itemsize}")


def bits(a):
    """The bit patterns of `a` as unsigned integers of the same width."""
    a = np.asarray(a)
    return a.view(uint_of(a.dtype))


def from_bits(pattern, dtype):
    """Values of `dtype` with the given bit patterns."""
    return np.asarray(pattern, dtype=uint_of(dtype)).view(dtype)


def finfo(dtype):
    return ml_dtypes.finfo(dtype)


def component(dtype):
    """Real component dtype of a complex dtype (identity for real dtypes)."""
    dtype = np.dtype(dtype)
    if dtype == np.complex64:
        return np.dtype(np.float32)
    if dtype == np.complex128:
        return np.dtype(np.float64)
    return dtype


def flushes_subnormals(dtype):
    """True if XLA:CPU flushes subnormals of this floating type when computing.

    f32/f64 run with FTZ/DAZ; bf16 is computed in f32, where every bf16 subnormal
    is an f32 subnormal; f16 subnormals are normal f32 values and survive.
    """
    return component(dtype) in (np.dtype(np.float32), np.dtype(np.float64), BF16)


def flush(a):
    """`a` with subnormal values replaced by zeros of the same sign (floats only)."""
    a = np.array(a)
    if a.dtype.kind == "c":
        out = np.empty_like(a)
        out.real = flush(a.real)
        out.imag = flush(a.imag)
        return out
    if a.dtype.kind != "f" and a.dtype != BF16:
        return a
    tiny = finfo(a.dtype).smallest_normal
    sub = (a != 0) & (np.abs(a.astype(np.float64)) < float(tiny))
    a[sub] = np.copysign(0.0, a[sub].astype(np.float64)).astype(a.dtype)
    return a
