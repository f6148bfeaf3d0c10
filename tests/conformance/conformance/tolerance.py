"""Tolerances: measured against a float64 NumPy reference, then widened by a margin.

A policy turns the measured error of XLA:CPU's output into the tolerance stored in
case.json. The margins are fixed here so every case is derived the same way:

* `Ulp()`: ulp = max(1, 2 * measured max ulp error), rtol = 0. For element-wise
  float functions; the doubling leaves room for the candidate's own rounding error.
  Elements more than outlier_ulps(dtype) ulps off (1024 for f32/f64, 64 for
  f16/bf16) are not approximation error but XLA:CPU computing something else (e.g.
  cbrt of a subnormal): they are excluded from the measurement and listed as
  unchecked in case.json.
* `Rel()`: rtol = max(2 * measured max relative error, 4 eps), atol = 2 * measured max
  absolute error where the reference is 0. For complex functions (componentwise ulp
  is meaningless under cancellation).

Every derived atol is at least the smallest normal number of the output type when
XLA:CPU flushes that type's subnormals (f32, f64, bf16, and complex): whether a
function's tiny result is flushed or passed through is an implementation detail
(XLA:CPU's sin(x) returns a subnormal x unchanged while x * 1 flushes it), so in
toleranced cases a subnormal matches zero. Exact cases still compare bits.
* `Accum(bound)`: atol = the a-priori forward error bound of a summation of n terms
  (gamma_n * sum |terms|, computed by the case), ulp = 1. For dot, conv and sums,
  whose association order is unspecified.
* `Normwise(k)`: atol = k * eps * max|reference|, ulp = 1. For factorizations,
  solves and FFTs, whose error bounds are normwise (k: a multiple of the size).
* `Program(factor)`: atol = factor * max(measured max absolute error,
  eps * max|reference|), ulp = 1. For whole programs, whose error has no simple
  a-priori bound; the factor (8 by default) is the margin.
* `Fixed(atol, rtol, ulp)`: given directly (with the measured error recorded next to
  it when the case has a reference).
"""
import dataclasses

import numpy as np

from . import compare as C
from . import dtypes as D


def eps(dtype):
    return float(D.finfo(D.component(dtype)).eps)


def outlier_ulps(dtype):
    """Beyond this many ulps an element is a disagreement, not an approximation error
    (1024 for f32/f64; 64 for the 16-bit types, whose ulp is already 2^-8..2^-11)."""
    return 64 if np.dtype(dtype).itemsize == 2 else 1024


@dataclasses.dataclass
class Ulp:
    minimum: int = 1
    outliers = True  # elements beyond outlier_ulps(dtype) are unchecked disagreements

    def derive(self, measured, dtype):
        return {"atol": subnormal_atol(dtype), "rtol": 0.0,
                "ulp": int(max(self.minimum, 2 * measured["max_ulp"]))}


@dataclasses.dataclass
class Rel:
    def derive(self, measured, dtype):
        return {"atol": max(_sig(2 * measured["max_abs_at_zero"]), subnormal_atol(dtype)),
                "rtol": _sig(max(2 * measured["max_rel"], 4 * eps(dtype)))}


@dataclasses.dataclass
class Accum:
    """`bound`: the absolute forward-error bound (already including the term count)."""
    bound: float

    def derive(self, measured, dtype):
        return {"atol": _sig(self.bound), "rtol": 0.0, "ulp": 1}


@dataclasses.dataclass
class Normwise:
    k: float

    def derive(self, measured, dtype):
        atol = _sig(self.k * eps(dtype) * measured["max_reference"])
        return {"atol": max(atol, subnormal_atol(dtype)), "rtol": 0.0, "ulp": 1}


@dataclasses.dataclass
class Program:
    factor: float = 8.0

    def derive(self, measured, dtype):
        atol = self.factor * max(measured["max_abs"], eps(dtype) * measured["max_reference"])
        return {"atol": max(_sig(atol), subnormal_atol(dtype)), "rtol": 0.0, "ulp": 1}


@dataclasses.dataclass
class Fixed:
    atol: float = 0.0
    rtol: float = 0.0
    ulp: int | None = None

    def derive(self, measured, dtype):
        tol = {"atol": self.atol, "rtol": self.rtol}
        if self.ulp is not None:
            tol["ulp"] = self.ulp
        return tol


def subnormal_atol(dtype):
    """The smallest normal number of `dtype` if XLA:CPU flushes its subnormals, else 0."""
    if not D.flushes_subnormals(dtype):
        return 0.0
    return float(D.finfo(D.component(dtype)).smallest_normal)


def _sig(x):
    """`x` rounded up to two significant digits (readable tolerances)."""
    if x == 0 or not np.isfinite(x):
        return float(x)
    e = np.floor(np.log10(x)) - 1
    return float(np.ceil(x / 10.0 ** e) * 10.0 ** e)


def rounded_reference(ref, dtype, flushes=True):
    """The float64/complex128 reference rounded to `dtype`, with subnormals flushed
    where XLA:CPU flushes them (if the operation `flushes`). f16 and bf16 results go
    through f32 first: XLA:CPU computes them in f32 and rounds (a double rounding)."""
    r = np.asarray(ref)
    if np.dtype(dtype) in (np.dtype(np.float16), D.BF16):
        r = r.astype(np.float32)
    r = r.astype(dtype)
    return D.flush(r) if flushes and D.flushes_subnormals(dtype) else r


def measure(got, ref, flushes=True, outliers=False):
    """Errors of XLA's output `got` against the float64 reference `ref`.

    Returns (statistics, disagreement mask, reference rounded to got's dtype). An
    element disagrees when exactly one side is NaN, or one side is infinite and the
    other is not within 1 ulp of it, or (with `outliers`) it is more than
    outlier_ulps(dtype) ulps and more than the subnormal atol away: XLA:CPU is then not
    approximating the function there. Disagreements are excluded from the
    statistics; toleranced cases list them as unchecked (the notes explain them).
    """
    got = np.asarray(got)
    dtype = got.dtype
    want = rounded_reference(ref, dtype, flushes)
    if flushes and D.flushes_subnormals(dtype):
        got = D.flush(got)  # a subnormal matches zero (see subnormal_atol)
    wide = np.complex128 if dtype.kind == "c" else np.float64
    g, w = got.astype(wide), want.astype(wide)
    if dtype.kind == "c":
        ulps = np.maximum(C.ulp_distance(got.real, want.real), C.ulp_distance(got.imag, want.imag))
    else:
        ulps = C.ulp_distance(got, want)
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        inf_mismatch = ~nan_g & ~nan_w & (np.isinf(g) != np.isinf(w)) & (ulps > 1)
        disagree = (nan_g != nan_w) | inf_mismatch
        if outliers:
            far = np.abs(np.where(np.isfinite(g) & np.isfinite(w), g - w, 0.0)) > subnormal_atol(dtype)
            disagree |= ~nan_g & ~nan_w & (ulps > outlier_ulps(dtype)) & far
        finite = np.isfinite(g) & np.isfinite(w) & ~disagree
        err = np.where(finite, np.abs(g - w), 0.0)
        rel = np.where(finite & (w != 0), err / np.abs(np.where(w == 0, 1, w)), 0.0)
        at_zero = np.where(finite & (w == 0), err, 0.0)
    ulps = np.where(nan_g | nan_w | disagree, 0.0, ulps)
    ulps = np.where(err <= subnormal_atol(dtype), 0.0, ulps)  # matched by the subnormal atol anyway
    stats = {
        "max_ulp": float(ulps.max(initial=0.0)),
        "max_abs": float(err.max(initial=0.0)),
        "max_rel": float(rel.max(initial=0.0)),
        "max_abs_at_zero": float(at_zero.max(initial=0.0)),
        "max_reference": float(np.abs(np.where(np.isfinite(w), w, 0.0)).max(initial=0.0)),
        "disagreements": int(disagree.sum()),
    }
    return stats, disagree, want
