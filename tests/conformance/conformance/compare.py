"""The comparison rule every consumer of the cases applies (README.md, "Comparing").

An element of a candidate output `got` matches the stored XLA output `want` when:
* integers and pred: the values are equal;
* floats, exact case: the bit patterns are equal, or both are NaN (any payload/sign);
* floats, toleranced case: both are NaN; or they are equal (+0 == -0, inf == inf);
  or both are finite and |got - want| <= atol + rtol * |want|; or their ulp
  distance (below) is <= ulp;
* complex: the real parts match and the imaginary parts match under the float rule
  with the same tolerance, or both values are finite and
  |got - want| <= atol + rtol * |want| (complex magnitudes).

The ulp distance of two values of one floating type is the difference of their
positions in the ordered sequence of that type's values, with -0 and +0 sharing
position 0 (so the largest finite value and infinity are 1 apart, and the smallest
positive and negative subnormals are 2 apart).
"""
import numpy as np

from . import dtypes as D


def order_key(a):
    """Position of every float in the ordered sequence of its type's values (int64, or
    Python ints for 64-bit types): +-0 -> 0, the smallest positive subnormal -> 1, ..."""
    a = np.asarray(a)
    width = 8 * a.dtype.itemsize
    raw = D.bits(a)
    if width == 64:
        raw = raw.astype(object)
    else:
        raw = raw.astype(np.int64)
    sign = 1 << (width - 1)
    magnitude = raw & (sign - 1)
    negative = (raw & sign) != 0
    return np.where(negative, -magnitude, magnitude)


def ulp_distance(got, want):
    """|order_key(got) - order_key(want)| as float64 (NaNs give +inf)."""
    got, want = np.asarray(got), np.asarray(want)
    dist = np.abs(order_key(got) - order_key(want)).astype(np.float64)
    nan = np.isnan(got.astype(np.float64)) | np.isnan(want.astype(np.float64))
    return np.where(nan, np.inf, dist)


def _float_ok(got, want, exact, tol):
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    if exact:
        return both_nan | (D.bits(got) == D.bits(want))
    ok = both_nan | (g == w)
    finite = np.isfinite(g) & np.isfinite(w)
    with np.errstate(invalid="ignore", over="ignore"):
        ok |= finite & (np.abs(g - w) <= tol.get("atol", 0.0) + tol.get("rtol", 0.0) * np.abs(w))
    if tol.get("ulp") is not None:
        ok |= ulp_distance(got, want) <= tol["ulp"]
    return ok


def matches(got, want, exact, tol):
    """Boolean array: which elements of `got` match `want` (same dtype and shape)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise ValueError(f"dtype/shape differ: {got.dtype}{got.shape} vs {want.dtype}{want.shape}")
    if got.dtype.kind in "biu":
        return got == want
    if got.dtype.kind == "c":
        parts = _float_ok(got.real, want.real, exact, tol) & _float_ok(got.imag, want.imag, exact, tol)
        if exact:
            return parts
        g, w = got.astype(np.complex128), want.astype(np.complex128)
        finite = np.isfinite(g) & np.isfinite(w)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.abs(g - w) <= tol.get("atol", 0.0) + tol.get("rtol", 0.0) * np.abs(w)
        return parts | (finite & close)
    return _float_ok(got, want, exact, tol)


def bit_identical(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
