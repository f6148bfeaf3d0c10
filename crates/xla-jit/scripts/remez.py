#!/usr/bin/env python3
"""Generates crates/xla-jit/src/math/coefficients.rs: every polynomial and
split constant of the JIT's vector math library.

    python3 crates/xla-jit/scripts/remez.py            # rewrites coefficients.rs
    python3 crates/xla-jit/scripts/remez.py EXP_F32    # prints one fit

Only the standard library is used: reference functions are evaluated in
`decimal` with 70 significant digits (series with argument reduction), and
each fit is a Remez exchange on a weighted error
`w(x) * (g(x) - sum_k c_k t^k)`. Coefficients are rounded to the target type;
the reported error is that of the *rounded* polynomial, evaluated exactly,
which is the budget the algorithms in the Rust code are built on.
"""

import math
import os
import struct
import textwrap
import sys
from decimal import Decimal as D, getcontext

getcontext().prec = 70
VERBOSE = "-v" in sys.argv

ONE = D(1)
TWO = D(2)


def pi():
    """pi to the context precision (Machin's formula)."""
    getcontext().prec += 10

    def arctan_inv(n):
        x = ONE / n
        x2 = x * x
        s, t, k = D(0), x, 1
        while True:
            term = t / k
            if abs(term) < D(10) ** -(getcontext().prec + 2):
                break
            s += term if (k // 2) % 2 == 0 else -term
            t *= x2
            k += 2
        return s

    p = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    getcontext().prec -= 10
    return +p


PI = pi()


def series(terms):
    """Sums a generator of terms until they stop mattering."""
    eps = D(10) ** -(getcontext().prec + 5)
    s = D(0)
    for t in terms:
        s += t
        if abs(t) <= eps * max(abs(s), eps):
            break
    return s


def exp(x):
    return x.exp()


def expm1(x):
    if abs(x) > D("0.5"):
        return x.exp() - 1

    def terms():
        t = x
        k = 1
        while True:
            yield t
            k += 1
            t = t * x / k

    return series(terms())


def log1p(x):
    return (1 + x).ln()


def sin(x):
    def terms():
        t, k = x, 1
        while True:
            yield t
            t = -t * x * x / ((k + 1) * (k + 2))
            k += 2

    return series(terms())


def cos(x):
    def terms():
        t, k = ONE, 0
        while True:
            yield t
            t = -t * x * x / ((k + 1) * (k + 2))
            k += 2

    return series(terms())


def atan(x):
    # atan(x) = 2 atan(x / (1 + sqrt(1 + x^2))), applied until |x| < 0.1.
    halvings = 0
    while abs(x) > D("0.1"):
        x = x / (1 + (1 + x * x).sqrt())
        halvings += 1

    def terms():
        t, k = x, 1
        while True:
            yield t / k
            t = -t * x * x
            k += 2

    return series(terms()) * (2**halvings)


def erf(x):
    # 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)); the terms grow to about
    # exp(x^2), so the sum runs with extra digits.
    getcontext().prec += 40
    x = +x

    def terms():
        t, n = x, 0
        while True:
            yield t / (2 * n + 1)
            n += 1
            t = -t * x * x / n

    s = series(terms()) * 2 / PI.sqrt()
    getcontext().prec -= 40
    return +s


def erfc(x):
    getcontext().prec += 40
    r = 1 - erf(x)
    getcontext().prec -= 40
    return +r


def tanh(x):
    e = expm1(2 * x)
    return e / (e + 2)


def cbrt(x):
    y = D(float(x) ** (1.0 / 3.0))
    for _ in range(8):
        y = y - (y * y * y - x) / (3 * y * y)
    return y


# --- Remez exchange --------------------------------------------------------


def solve(a, b):
    """Gaussian elimination with partial pivoting (Decimal)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [D(0)] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def pw(x, e):
    return ONE if e == 0 else x**e


def poly(c, exps, x):
    return sum(ck * pw(x, e) for ck, e in zip(c, exps))


def weight(w, x):
    """|w(x)|, kept away from zero where a weight vanishes at an endpoint."""
    return max(abs(w(x)), D("1e-40"))


def remez(g, exps, a, b, w, iters=40, grid=3000):
    """Coefficients c minimising max |w(x) (g(x) - sum c_k x^exps[k])| on [a, b]."""
    n = len(exps)
    a, b = D(a), D(b)
    mid, half = (a + b) / 2, (b - a) / 2
    cos = math.cos
    ref = [mid - half * D(cos(math.pi * i / n)) for i in range(n + 1)]
    xs = [mid - half * D(cos(math.pi * (i + 0.5) / grid)) for i in range(grid)]
    xs = [a] + xs + [b]
    gx = [g(x) for x in xs]
    wx = [weight(w, x) for x in xs]
    cache = dict(zip(xs, zip(gx, wx)))

    def gw(x):
        if x not in cache:
            cache[x] = (g(x), weight(w, x))
        return cache[x]

    def err(c, x):
        gv, wv = gw(x)
        return wv * (gv - poly(c, exps, x))

    best = None
    for _ in range(iters):
        rows, rhs = [], []
        for i, x in enumerate(ref):
            gv, wv = gw(x)
            rows.append([pw(x, e) for e in exps] + [D((-1) ** i) / wv])
            rhs.append(gv)
        sol = solve(rows, rhs)
        c, level = sol[:n], abs(sol[n])
        es = [err(c, x) for x in xs]
        # Local extrema of the error on the grid, refined by golden section.
        ext = []
        for i in range(len(xs)):
            left = es[i - 1] if i > 0 else None
            right = es[i + 1] if i + 1 < len(xs) else None
            v = es[i]
            if (left is None or abs(v) >= abs(left) or (left * v < 0)) and (
                right is None or abs(v) >= abs(right) or (right * v < 0)
            ):
                if (left is not None and left * v > 0 and abs(left) > abs(v)) or (
                    right is not None and right * v > 0 and abs(right) > abs(v)
                ):
                    continue
                lo = xs[max(i - 1, 0)]
                hi = xs[min(i + 1, len(xs) - 1)]
                x = golden(lambda t: -abs(err(c, t)), lo, hi) if 0 < i < len(xs) - 1 else xs[i]
                ext.append((x, err(c, x)))
        # Alternating subsequence keeping the larger of equal-sign neighbours.
        alt = []
        for x, e in ext:
            if alt and (alt[-1][1] > 0) == (e > 0):
                if abs(e) > abs(alt[-1][1]):
                    alt[-1] = (x, e)
            else:
                alt.append((x, e))
        while len(alt) > n + 1:
            if abs(alt[0][1]) < abs(alt[-1][1]):
                alt.pop(0)
            else:
                alt.pop()
        peak = max(abs(e) for e in es)
        if VERBOSE:
            print(f"   level {float(level):.3e} peak {float(peak):.3e} extrema {len(alt)}")
        if best is None or peak < best[1]:
            best = (c, peak)
        if len(alt) < n + 1:
            break
        ref = [x for x, _ in alt]
        if peak - level <= level * D("1e-4"):
            break
    return best[0]


def golden(f, lo, hi, steps=40):
    """Maximises f on [lo, hi]."""
    r = (D(5).sqrt() - 1) / 2
    a, b = lo, hi
    c, d = b - r * (b - a), a + r * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - r * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + r * (b - a)
            fd = f(d)
    return (a + b) / 2


def round_to(x, ty):
    if ty == "f32":
        return struct.unpack("f", struct.pack("f", float(x)))[0]
    return float(x)


def split(x, bits):
    """x rounded to `bits` significant bits (a float when bits <= 53)."""
    x = D(x)
    e = 0
    while abs(x) * 2**e >= 2**bits:
        e -= 1
    while abs(x) * 2**e < 2 ** (bits - 1):
        e += 1
    return float((x * D(2) ** e).to_integral_value() / D(2) ** e)


# --- the fits --------------------------------------------------------------

LN2 = D(2).ln()
HALF_LN2 = LN2 / 2 * D("1.0001")


def exp_rem(r):
    """(e^r - 1 - r) / r^2: the part of exp and expm1 after the exact terms."""
    return D("0.5") if r == 0 else (expm1(r) - r) / (r * r)


def exp_rem3(r):
    """(e^r - 1 - r - r^2/2) / r^3."""
    return ONE / 6 if r == 0 else (expm1(r) - r - r * r / 2) / (r * r * r)


def log_rem(f):
    """(log1p(f) - f) / f^2."""
    return D("-0.5") if f == 0 else (log1p(f) - f) / (f * f)


def log_r2(z):
    """R2(z) with log((1+s)/(1-s)) = 2s + 2/3 s^3 + s^5 R2(s^2)."""
    if z == 0:
        return D(2) / 5
    s = z.sqrt()
    return (((1 + s) / (1 - s)).ln() - 2 * s - D(2) / 3 * s**3) / s**5


def odd_rem(f, lead):
    """(f(x) - x) / x^3 as a function of z = x^2 (sin, tanh, atan)."""

    def g(z):
        if z == 0:
            return lead
        x = z.sqrt()
        return (f(x) - x) / x**3

    return g


def odd_weight(f):
    """x^3 / f(x) as a function of z = x^2: relative error of the x^3 term."""
    return lambda z: ZERO if z == 0 else z.sqrt() ** 3 / f(z.sqrt())


ZERO = D(0)


def erf_rem(z):
    """(erf(x) - x) / x with z = x^2."""
    if z == 0:
        return 2 / PI.sqrt() - 1
    x = z.sqrt()
    return (erf(x) - x) / x


def cos_rem(z):
    """(cos(x) - 1 + x^2/2) / x^4 with z = x^2."""
    if z == 0:
        return ONE / 24
    return (cos(z.sqrt()) - 1 + z / 2) / (z * z)


class Fit:
    """One polynomial: P(t) ~ g(x) on [a, b] with t = x, or with
    t = (x - c) / h mapping [a, b] onto [-1, 1] when `centered`."""

    def __init__(self, name, doc, g, n, a, b, w, ty, centered=False):
        self.name, self.doc, self.g, self.n = name, doc, g, n
        self.a, self.b, self.w, self.ty, self.centered = D(a), D(b), w, ty, centered

    def run(self):
        g, w, a, b = self.g, self.w, self.a, self.b
        if self.centered:
            self.c, self.h = (a + b) / 2, (b - a) / 2
            c, h = self.c, self.h
            g, w, a, b = (lambda t: self.g(c + h * t)), (lambda t: self.w(c + h * t)), -ONE, ONE
        exps = list(range(self.n))
        coeffs = remez(g, exps, a, b, w)
        self.coeffs = [round_to(ck, self.ty) for ck in coeffs]
        peak, where = ZERO, a
        for i in range(4001):
            x = a + (b - a) * i / 4000
            e = abs(w(x) * (g(x) - poly([D(ck) for ck in self.coeffs], exps, x)))
            if e > peak:
                peak, where = e, x
        self.error = -math.log2(float(peak)) if peak > 0 else 99.0
        if self.centered:
            where = self.c + self.h * where
        self.where = float(where)
        return self

    def rust(self):
        span = f"[{float(self.a):.6g}, {float(self.b):.6g}]"
        var = f"t = (x - {float(self.c)}) / {float(self.h)}" if self.centered else "t"
        out = [f"/// {line}" for line in textwrap.wrap(self.doc, 90)] + [
            "///",
            f"/// {self.n} {self.ty} coefficients of P({var}) on {span}, lowest degree",
            f"/// first; max weighted error of the rounded polynomial 2^-{self.error:.1f}"
            f" (at {self.where:.4g}).",
        ]
        out.append(f"pub(super) const {self.name}: [f64; {self.n}] = [")
        for ck in self.coeffs:
            out.append(f"    f64::from_bits(0x{struct.unpack('<Q', struct.pack('<d', ck))[0]:016x}), // {ck:.17e}")
        out.append("];")
        if self.centered:
            out.append(f"/// Centre of the interval of [`{self.name}`].")
            out.append(f"pub(super) const {self.name}_CENTER: f64 = {float(self.c)!r};")
            out.append(f"/// Inverse half-width of the interval of [`{self.name}`].")
            out.append(f"pub(super) const {self.name}_INV_HALF_WIDTH: f64 = {float(1 / self.h)!r};")
        return "\n".join(out)


Q = PI / 4 * D("1.0001")
ATAN_SPAN = D(7) / 16 * D("1.0001")
ERF_SPLIT = D("0.921875")


def fits():
    r2_over_expm1 = lambda r: ZERO if r == 0 else r * r / expm1(r)
    tanh_w, sin_w, atan_w = odd_weight(tanh), odd_weight(sin), odd_weight(atan)
    erf_small_w = lambda z: ONE if z == 0 else z.sqrt() / erf(z.sqrt())
    erf_large_w = lambda x: erfc(x) / erf(x)
    smax = 3 - 2 * D(2).sqrt()
    return [
        Fit("EXP_F32", "exp(r) = 1 + r + r^2 P(r), |r| <= ln2/2; weighted: error of r^2 P "
            "relative to expm1(r).",
            exp_rem, 5, -HALF_LN2, HALF_LN2, r2_over_expm1, "f32"),
        Fit("EXPM1_F32", "expm1(r) = r + r^2 P(r), |r| <= ln2/2; weighted: error of r^2 P relative "
            "to expm1(r) (one degree more than EXP_F32, which exp's budget allows).",
            exp_rem, 6, -HALF_LN2, HALF_LN2, r2_over_expm1, "f32"),
        Fit("EXP_F64", "exp(r) = 1 + r + r^2/2 + r^3 P(r), |r| <= ln2/2; weighted: error of "
            "r^3 P relative to expm1(r).",
            exp_rem3, 9, -HALF_LN2, HALF_LN2, lambda r: r * r2_over_expm1(r), "f64"),
        Fit("LOG_F32", "log1p(f) = f + f^2 P(f), |f| <= 1/3; weighted: relative to log1p(f).",
            log_rem, 10, -ONE / 3, ONE / 3, lambda f: ZERO if f == 0 else f * f / log1p(f), "f32"),
        Fit("LOG_F64", "log((1+s)/(1-s)) = 2s + 2/3 s^3 + s^5 P(s^2), |s| <= 3 - 2 sqrt(2) "
            "(s = f/(2+f), 1+f in [sqrt(1/2), sqrt(2))); absolute error of P.",
            log_r2, 7, 0, smax * smax * D("1.0001"), lambda z: ONE, "f64"),
        Fit("TANH_F32", "tanh(x) = x + x^3 P(x^2), |x| <= 0.875; weighted: relative to tanh(x).",
            odd_rem(tanh, -ONE / 3), 7, 0, D("0.875") ** 2, tanh_w, "f32"),
        Fit("TANH_F64", "tanh(x) = x + x^3 P(x^2), |x| <= 0.5625; weighted: relative to tanh(x).",
            odd_rem(tanh, -ONE / 3), 11, 0, D("0.5625") ** 2, tanh_w, "f64"),
        Fit("ERF_SMALL_F32", "erf(x) = x + x P(x^2), |x| <= 0.921875; weighted: relative to erf(x).",
            erf_rem, 7, 0, ERF_SPLIT**2, erf_small_w, "f32"),
        Fit("ERF_SMALL_F64", "erf(x) = x + x P(x^2), |x| <= 0.921875; weighted: relative to erf(x).",
            erf_rem, 13, 0, ERF_SPLIT**2, erf_small_w, "f64"),
        Fit("ERF_LARGE_F32", "erf(x) = 1 - exp(P(t)) for x in [0.921875, 4]; weighted: "
            "effect on erf (erfc(x) / erf(x)).",
            lambda x: erfc(x).ln(), 9, ERF_SPLIT, 4, erf_large_w, "f32"),
        Fit("ERF_LARGE_F64", "erf(x) = 1 - exp(-x^2 + P(t)) for x in [0.921875, 6]; weighted: "
            "effect on erf (erfc(x) / erf(x)).",
            lambda x: erfc(x).ln() + x * x, 22, ERF_SPLIT, 6, erf_large_w, "f64", centered=True),
        Fit("SIN_F32", "sin(r) = r + r^3 P(r^2), |r| <= pi/4; weighted: relative to sin(r).",
            odd_rem(sin, -ONE / 6), 4, 0, Q * Q, sin_w, "f32"),
        Fit("COS_F32", "cos(r) = 1 - r^2/2 + r^4 P(r^2), |r| <= pi/4; weighted: relative to "
            "cos(r).",
            cos_rem, 4, 0, Q * Q, lambda z: z * z / cos(z.sqrt()), "f32"),
        Fit("COS_SHORT_F32", "cos(r) = 1 - r^2/2 + r^4 P(r^2), |r| <= pi/4, one degree less than "
            "COS_F32 (for the single-word f32 sin and cos); weighted: relative to cos(r).",
            cos_rem, 3, 0, Q * Q, lambda z: z * z / cos(z.sqrt()), "f32"),
        Fit("SIN_F64", "sin(r) = r + r^3 P(r^2), |r| <= pi/4; weighted: relative to sin(r).",
            odd_rem(sin, -ONE / 6), 6, 0, Q * Q, sin_w, "f64"),
        Fit("COS_F64", "cos(r) = 1 - r^2/2 + r^4 P(r^2), |r| <= pi/4; weighted: relative to cos(r).",
            cos_rem, 6, 0, Q * Q, lambda z: z * z / cos(z.sqrt()), "f64"),
        Fit("ATAN_F32", "atan(x) = x + x^3 P(x^2), |x| <= 7/16; weighted: relative to atan(x).",
            odd_rem(atan, -ONE / 3), 6, 0, ATAN_SPAN**2, atan_w, "f32"),
        Fit("ATAN_F64", "atan(x) = x + x^3 P(x^2), |x| <= 7/16; weighted: relative to atan(x).",
            odd_rem(atan, -ONE / 3), 12, 0, ATAN_SPAN**2, atan_w, "f64"),
        Fit("CBRT_SEED", "cbrt(m) ~ P(m), 1 <= m <= 2, refined by Newton steps; relative error.",
            cbrt, 5, 1, 2, lambda m: 1 / cbrt(m), "f64"),
    ]


def remez_atan_half():
    return atan(ONE / 2)


def f64_bits(x):
    return f"f64::from_bits(0x{struct.unpack('<Q', struct.pack('<d', float(x)))[0]:016x})"


def constants():
    """Split constants: hi parts with few bits so that k * hi is exact."""
    getcontext().prec = 420
    pi_long = pi()
    two_over_pi = 2 / pi_long
    words = []
    v = two_over_pi
    for _ in range(20):
        v *= D(2) ** 64
        w = int(v)
        words.append(w)
        v -= w
    getcontext().prec = 70
    pio2 = PI / 2
    p1 = split(pio2, 33)
    p2 = split(pio2 - D(p1), 33)
    p3 = split(pio2 - D(p1) - D(p2), 33)
    p4 = float(pio2 - D(p1) - D(p2) - D(p3))
    p2_f32 = float(pio2 - D(p1))
    ln2_hi32 = split(LN2, 16)
    ln2_hi64 = split(LN2, 42)

    def f32(x):
        return round_to(x, "f32")

    rows = [
        ("LOG2E", "log2(e).", float(1 / LN2)),
        ("LN2_HI_F32", "ln 2 to 16 bits: k * LN2_HI_F32 is exact for |k| < 2^8.", ln2_hi32),
        ("LN2_LO_F32", "ln 2 - LN2_HI_F32, as an f32.", f32(LN2 - D(ln2_hi32))),
        ("LN2_HI_F64", "ln 2 to 42 bits: k * LN2_HI_F64 is exact for |k| < 2^11.", ln2_hi64),
        ("LN2_LO_F64", "ln 2 - LN2_HI_F64.", float(LN2 - D(ln2_hi64))),
        ("TWO_OVER_PI", "2/pi.", float(2 / PI)),
        ("PIO2_1", "pi/2 to 33 bits: j * PIO2_1 is exact for |j| < 2^20.", p1),
        ("PIO2_2", "The next 33 bits of pi/2.", p2),
        ("PIO2_3", "The next 33 bits of pi/2.", p3),
        ("PIO2_4", "pi/2 - PIO2_1 - PIO2_2 - PIO2_3.", p4),
        ("PIO2_1T", "pi/2 - PIO2_1 (for f32 arguments, where 86 bits suffice).", p2_f32),
        ("PIO2_HI", "pi/2 as a double-double: high part.", float(pio2)),
        ("PIO2_LO", "pi/2 as a double-double: low part.", float(pio2 - D(float(pio2)))),
        ("PI_HI_F32", "pi rounded to f32.", f32(PI)),
        ("PI_LO_F32", "pi - PI_HI_F32, as an f32.", f32(PI - D(f32(PI)))),
        ("PIO2_HI_F32", "pi/2 rounded to f32.", f32(pio2)),
        ("PIO2_LO_F32", "pi/2 - PIO2_HI_F32, as an f32.", f32(pio2 - D(f32(pio2)))),
        ("PI_HI_F64", "pi rounded to f64.", float(PI)),
        ("PI_LO_F64", "pi - PI_HI_F64.", float(PI - D(float(PI)))),
        ("PIO2_HI_F64", "pi/2 rounded to f64.", float(pio2)),
        ("PIO2_LO_F64", "pi/2 - PIO2_HI_F64.", float(pio2 - D(float(pio2)))),
        ("ATAN_HALF_HI_F32", "atan(1/2) rounded to f32.", f32(remez_atan_half())),
        ("ATAN_HALF_LO_F32", "atan(1/2) - ATAN_HALF_HI_F32, as an f32.",
         f32(remez_atan_half() - D(f32(remez_atan_half())))),
        ("ATAN_HALF_HI_F64", "atan(1/2) rounded to f64.", float(remez_atan_half())),
        ("ATAN_HALF_LO_F64", "atan(1/2) - ATAN_HALF_HI_F64.",
         float(remez_atan_half() - D(float(remez_atan_half())))),
        ("PIO4_HI_F32", "pi/4 rounded to f32.", f32(PI / 4)),
        ("PIO4_LO_F32", "pi/4 - PIO4_HI_F32, as an f32.", f32(PI / 4 - D(f32(PI / 4)))),
        ("PIO4_HI_F64", "pi/4 rounded to f64.", float(PI / 4)),
        ("PIO4_LO_F64", "pi/4 - PIO4_HI_F64.", float(PI / 4 - D(float(PI / 4)))),
        ("TWO_THIRDS_HI", "2/3 rounded to f64.", float(D(2) / 3)),
        ("TWO_THIRDS_LO", "2/3 - TWO_THIRDS_HI.", float(D(2) / 3 - D(float(D(2) / 3)))),
        ("CBRT2", "2^(1/3).", float(cbrt(D(2)))),
        ("CBRT4", "2^(2/3).", float(cbrt(D(4)))),
    ]
    out = []
    for name, doc, value in rows:
        out.append(f"/// {doc}")
        out.append(f"pub(super) const {name}: f64 = {f64_bits(value)}; // {value!r}")
    out.append("/// The bits of 2/pi after the binary point, most significant first")
    out.append("/// (1280 bits: enough for the large-argument reduction of every f64).")
    out.append("pub(super) const TWO_OVER_PI_BITS: [u64; 20] = [")
    for w in words:
        out.append(f"    0x{w:016x},")
    out.append("];")
    return "\n".join(out)


HEADER = """//! Polynomial coefficients and split constants of the vector math library.
//!
//! Generated by `crates/xla-jit/scripts/remez.py` (`python3 remez.py`); do not
//! edit by hand. Each polynomial is a minimax fit whose documented error is
//! that of the coefficients as rounded here, evaluated exactly.
"""


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "-v"]
    all_fits = fits()
    if args:
        for f in all_fits:
            if f.name in args:
                print(f.run().rust())
        if "CONSTANTS" in args:
            print(constants())
    else:
        parts = [HEADER]
        for f in all_fits:
            print(f"{f.name} ...", file=sys.stderr, flush=True)
            parts.append(f.run().rust())
            print(f"  2^-{f.error:.1f}", file=sys.stderr)
        parts.append(constants())
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "math", "coefficients.rs")
        with open(path, "w") as out:
            out.write("\n\n".join(parts) + "\n")
