#!/usr/bin/env python3
"""Measures f64 results of the JIT's math library against exact values.

    cargo run --release -p xla-jit --example math_ulp -- --dump /tmp/m
    python3 crates/xla-jit/scripts/accuracy.py /tmp/m [exp tanh ...]

`math_ulp --dump` writes, per function, the f64 samples where the JIT's
result differs from Rust's `std` (the system libm) plus a random subset, as
little-endian `(x, y, result, std)` quadruples. This script evaluates each
function exactly enough with `decimal` (the series of remez.py, pi to 400
digits for the reduction of large trigonometric arguments) and prints the
maximum error in ulp of both the JIT and `std`. Non-finite arguments and
results are skipped (their exact values are checked by the tests).
"""

import math
import os
import struct
import sys
from decimal import Decimal as D, getcontext

import remez

getcontext().prec = 420
getcontext().Emax = 10**6
getcontext().Emin = -(10**6)
PI_LONG = remez.pi()
getcontext().prec = 70


def reduce_pio2(x):
    """(r, q) with x = q pi/2 + r, |r| <= pi/4, exact to ~70 digits."""
    getcontext().prec = 420
    k = (x / (PI_LONG / 2)).to_integral_value()
    r = x - k * (PI_LONG / 2)
    getcontext().prec = 70
    return +r, int(k) % 4


def sin(x):
    r, q = reduce_pio2(x)
    return [remez.sin(r), remez.cos(r), -remez.sin(r), -remez.cos(r)][q]


def cos(x):
    r, q = reduce_pio2(x)
    return [remez.cos(r), -remez.sin(r), -remez.cos(r), remez.sin(r)][q]


def log1p(x):
    if abs(x) < D("1e-10"):
        return x - x * x / 2 + x**3 / 3 - x**4 / 4
    return (1 + x).ln()


def erf(x):
    if abs(x) > 7:
        return D(1).copy_sign(x)
    return remez.erf(x)


def atan2(y, x):
    if x == 0 and y == 0:
        return None
    if x == 0:
        return (PI_LONG / 2).copy_sign(y)
    a = remez.atan(y / x) if abs(y) <= abs(x) else (PI_LONG / 2).copy_sign(y / x) - remez.atan(x / y)
    if x < 0:
        a += PI_LONG.copy_sign(y) if y != 0 else PI_LONG
    return +a


def pow_(x, y):
    if x == 0 or (x < 0 and y != y.to_integral_value()):
        return None
    p = y * abs(x).ln()
    if abs(p) > 800:
        return None
    m = p.exp()
    return -m if x < 0 and int(y) % 2 else m


FUNCTIONS = {
    "exp": lambda x, y: x.exp() if abs(x) < 800 else None,
    "expm1": lambda x, y: remez.expm1(x) if abs(x) < 800 else None,
    "log": lambda x, y: x.ln() if x > 0 else None,
    "log1p": lambda x, y: log1p(x) if x > -1 else None,
    "logistic": lambda x, y: 1 / (1 + (-x).exp()) if abs(x) < 800 else None,
    "tanh": lambda x, y: remez.tanh(x) if abs(x) < 40 else D(1).copy_sign(x),
    "erf": lambda x, y: erf(x),
    "sin": lambda x, y: sin(x),
    "cos": lambda x, y: cos(x),
    "tan": lambda x, y: sin(x) / cos(x),
    "cbrt": lambda x, y: remez.cbrt(abs(x)).copy_sign(x) if x != 0 else None,
    "sqrt": lambda x, y: x.sqrt() if x >= 0 else None,
    "rsqrt": lambda x, y: 1 / x.sqrt() if x > 0 else None,
    "atan2": lambda x, y: atan2(x, y),
    "pow": lambda x, y: pow_(x, y),
}

MAX = D(2) ** 1024 * (1 - D(2) ** -54)


def ulp_error(got, exact):
    """|got - exact| in ulp of exact (f64, subnormals included)."""
    if exact == 0:
        return 0.0 if got == 0 else math.inf
    if abs(exact) >= MAX:
        return 0.0 if math.isinf(got) else math.inf
    e = max(exact.adjusted() * 3.3219280948873626 - 2, -1100)
    e = int(math.floor(e))
    while D(2) ** (e + 1) <= abs(exact):
        e += 1
    ulp = D(2) ** (max(e, -1022) - 52)
    if math.isinf(got) or math.isnan(got):
        return math.inf
    return float(abs(D(got) - exact) / ulp)


def main():
    folder = sys.argv[1]
    for name in sys.argv[2:] or sorted(FUNCTIONS):
        path = os.path.join(folder, name + ".f64")
        if not os.path.exists(path):
            continue
        data = open(path, "rb").read()
        worst = {"jit": (0.0, None), "std": (0.0, None)}
        count = 0
        for i in range(0, len(data), 32):
            x, y, got, std = struct.unpack("<4d", data[i : i + 32])
            if not all(math.isfinite(v) for v in (x, y)):
                continue
            exact = FUNCTIONS[name](D(x), D(y))
            if exact is None:
                continue
            count += 1
            for who, v in (("jit", got), ("std", std)):
                err = ulp_error(v, exact)
                if err > worst[who][0]:
                    worst[who] = (err, (x, y, v))
        (ej, at), (es, _) = worst["jit"], worst["std"]
        print(f"{name:<9} {count:>7} samples: jit max {ej:.3f} ulp at {at}, std max {es:.3f} ulp")


if __name__ == "__main__":
    main()
