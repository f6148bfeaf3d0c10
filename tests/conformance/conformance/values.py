"""Input values: edge cases of every element type mixed with seeded random data.

Every generator is deterministic: the seed is derived from the caller's `seed`
argument only.
"""
import numpy as np

from . import dtypes as D


def rng(seed):
    return np.random.default_rng(seed)


def float_specials(name):
    """Edge values of a floating type: signed zeros, infinities, NaNs (quiet, negative,
    with payload), extremes, smallest normals, subnormals, rounding ties, 1±eps."""
    dtype = D.dt(name)
    fi = D.finfo(dtype)
    mant = fi.nmant
    sign = 1 << (8 * dtype.itemsize - 1)
    exp_all = ((1 << (8 * dtype.itemsize - 1)) - 1) ^ ((1 << mant) - 1)
    patterns = [
        exp_all | (1 << (mant - 1)) | 1,          # quiet NaN with a payload
        sign | exp_all | (1 << (mant - 1)),       # negative quiet NaN
        1,                                        # smallest subnormal
        sign | 1,
        (1 << mant) - 1,                          # largest subnormal
        sign | ((1 << mant) - 1),
    ]
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, float(fi.max), -float(fi.max),
            float(fi.smallest_normal), -float(fi.smallest_normal),
            1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -0.5 * (1.0 - float(fi.epsneg)),
            1.0 + float(fi.eps), 1.0 - float(fi.epsneg), np.pi, -np.e, 100.0, -1000.0]
    return np.concatenate([np.array(vals, dtype=np.float64).astype(dtype), D.from_bits(patterns, dtype)])


def int_specials(name):
    """Edge values of an integer type: min, min+1, -1, 0, 1, 2, max-1, max and small values."""
    dtype = D.dt(name)
    ii = np.iinfo(dtype)
    vals = [ii.min, ii.min + 1, ii.max, ii.max - 1, 0, 1, 2, 3, 7, 100 % (ii.max + 1)]
    if ii.min < 0:
        vals += [-1, -2, -3, -7]
    else:
        vals += [ii.max // 2, ii.max // 2 + 1]
    unique = list(dict.fromkeys(int(v) for v in vals))
    return np.array(unique, dtype=object).astype(dtype)


def specials(name):
    if name == "pred":
        return np.array([False, True])
    if D.is_float(name):
        return float_specials(name)
    if D.is_complex(name):
        re = float_specials("f32" if name == "c64" else "f64")
        out = np.empty(len(re), D.dt(name))
        out.real = re
        out.imag = np.roll(re, 3)
        return out
    return int_specials(name)


def random(name, shape, seed, scale=1.0, low=None, high=None):
    """Seeded random values of `name` and `shape`: normal(0, scale) for floats,
    uniform over [low, high] (default: the whole range) for integers."""
    r = rng(seed)
    dtype = D.dt(name)
    if name == "pred":
        return r.integers(0, 2, size=shape).astype(bool)
    if D.is_float(name):
        return (r.standard_normal(shape) * scale).astype(dtype)
    if D.is_complex(name):
        out = np.empty(shape, dtype)
        out.real = r.standard_normal(shape) * scale
        out.imag = r.standard_normal(shape) * scale
        return out
    ii = np.iinfo(dtype)
    lo = ii.min if low is None else low
    hi = ii.max if high is None else high
    return r.integers(lo, hi, size=shape, endpoint=True, dtype=dtype)


def with_specials(name, shape, seed, scale=1.0, low=None, high=None, specials_=None):
    """Random values whose first elements (row-major) are the type's specials."""
    a = random(name, shape, seed, scale, low, high).reshape(-1)
    s = specials(name) if specials_ is None else np.asarray(specials_).astype(D.dt(name))
    n = min(len(s), a.size)
    a[:n] = s[:n]
    return a.reshape(shape)


def pairs(a, b=None):
    """All pairs (x, y) of the values of `a` and `b` as two flat arrays."""
    b = a if b is None else b
    x = np.repeat(np.asarray(a), len(b))
    y = np.tile(np.asarray(b), len(a))
    return x, y


def iota(name, shape, start=0):
    """start, start+1, ... in `shape` (row-major), converted to `name`."""
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(n) + start).astype(D.dt(name)).reshape(shape)


def floats(name, shape, seed, sample=None, with_specials=True):
    """Float (or complex) values: the type's specials first (row-major, if
    `with_specials`), then `sample(generator, n)` (float64; default normal(0, 1))."""
    n = int(np.prod(shape, dtype=np.int64))
    r = rng(seed)
    sample = sample or (lambda g, k: g.standard_normal(k))
    dtype = D.dt(name)
    if D.is_complex(name):
        out = np.empty(n, dtype)
        out.real = sample(r, n)
        out.imag = sample(r, n)
    else:
        out = sample(r, n).astype(dtype)
    if with_specials:
        s = specials(name)
        k = min(len(s), n)
        out[:k] = s[:k]
    return out.reshape(shape)


def log_uniform(lo_exp, hi_exp, signed=True):
    """A sampler of 10**uniform(lo_exp, hi_exp), with random signs if `signed`."""
    def sample(g, n):
        mag = 10.0 ** g.uniform(lo_exp, hi_exp, n)
        return mag * (g.choice([-1.0, 1.0], n) if signed else 1.0)
    return sample


def uniform(lo, hi):
    return lambda g, n: g.uniform(lo, hi, n)


def normal(scale):
    return lambda g, n: g.standard_normal(n) * scale


def pair_specials(name):
    """A shorter list of float specials for all-pairs binary cases."""
    dtype = D.dt(name)
    fi = D.finfo(dtype)
    sub = D.from_bits([1], dtype)[0]
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, float(fi.max), -float(fi.max),
            float(fi.smallest_normal), -float(fi.smallest_normal), 1.0, -1.0, 0.5, 2.5, -1.5, 3.0, np.pi]
    return np.concatenate([np.array(vals).astype(dtype), np.array([sub, -sub], dtype)])
