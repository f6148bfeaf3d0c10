//! `exp`, `expm1`, `log`, `log1p`, and the kernels `tanh`, `logistic`,
//! `erf` and `pow` build on.
//!
//! exp: `x = n ln2 + r` (Cody–Waite: `n ln2_hi` is exact, so `x - n ln2_hi`
//! is exact by Sterbenz's lemma), `e^r = 1 + r + r^2 P(r)` carried as a
//! double-word `hi + lo`, then `2^n` applied in two halves so that
//! subnormal results are rounded once. log: `x = 2^k (1 + f)` by integer
//! arithmetic on the bits, `log1p(f)` by a polynomial (f32) or by
//! `s = f / (2 + f)` and an odd series in `s` (f64, as fdlibm), and
//! `k ln2 + log1p(f)` summed with the rounding error of the large part kept.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value;

use super::coefficients::*;
use super::lanes::{LaneOps, Lanes};

/// `e^r` for the reduced argument as an unnormalized pair `hi + lo` (in
/// `[0.7, 1.42]`; `hi = 1 + r`, `|lo| < 0.1`), with `n` the power of two
/// still to apply (integer lanes).
pub(super) struct ExpParts {
    pub hi: Value,
    pub lo: Value,
    pub n: Value,
}

/// `x = n ln2 + r + r_lo`: returns `(n in integer lanes, r, r_lo)`. `x_lo`
/// is an optional low part of the argument (a double-word input). Requires
/// `|x| < 2^21`.
fn reduce_ln2(l: &mut Lanes, x: Value, x_lo: Option<Value>) -> (Value, Value, Value) {
    let (n, bits) = l.round_mul(x, LOG2E);
    let ni = l.round_int(bits);
    let (ln2_hi, ln2_lo) = l.pick((LN2_HI_F32, LN2_LO_F32), (LN2_HI_F64, LN2_LO_F64));
    let nn = l.neg(n);
    let r1 = l.fma_c(nn, ln2_hi, x);
    let r = l.fma_c(nn, ln2_lo, r1);
    // The rounding error of `r` (exact: `r1 - r` is exact and small).
    let d = l.sub(r1, r);
    let mut r_lo = l.fma_c(nn, ln2_lo, d);
    if let Some(x_lo) = x_lo {
        r_lo = l.add(r_lo, x_lo);
    }
    (ni, r, r_lo)
}

/// `e^r - 1 - r` for the reduced argument: `r^2 P(r)`; `f32_coeffs` is
/// the f32 polynomial (exp's or expm1's, which is one degree longer).
fn expm1_tail(l: &mut Lanes, r: Value, f32_coeffs: &[f64]) -> Value {
    let r2 = l.mul(r, r);
    if l.is_f32() {
        let p = l.poly(r, f32_coeffs);
        l.mul(r2, p)
    } else {
        let p = l.poly(r, &EXP_F64);
        let half = l.c(0.5);
        let h = l.fma(r, p, half);
        l.mul(r2, h)
    }
}

/// `e^(x + x_lo)` before scaling, for `x` already clamped to the range
/// where the result is neither 0 nor infinite.
pub(super) fn exp_parts(l: &mut Lanes, x: Value, x_lo: Option<Value>) -> ExpParts {
    let (n, r, r_lo) = reduce_ln2(l, x, x_lo);
    let q = expm1_tail(l, r, &EXP_F32);
    let one = l.c(1.0);
    let (hi, s_lo) = l.fast_two_sum(one, r);
    // e^(r + r_lo) = e^r (1 + r_lo) = (1 + r + q) + r_lo (1 + r + q) + O(r_lo^2)
    // (r_lo is not tiny when the argument is a double-word, as in pow).
    let er = l.add(hi, q);
    let t = l.fma(r_lo, er, q);
    let lo = l.add(s_lo, t);
    ExpParts { hi, lo, n }
}

/// `e^x` for `x` in the normal-result range (no clamping, no subnormal
/// results), rounded twice (`1 + r + r^2 P(r)` with the given polynomial,
/// then `2^n`): within about 1 ulp for callers whose own error budget
/// absorbs it, or far more accurate than f32 when computed in f64 lanes.
pub(super) fn exp_plain(l: &mut Lanes, x: Value, coeffs: &[f64]) -> Value {
    let (n, r, _) = reduce_ln2(l, x, None);
    let r2 = l.mul(r, r);
    let p = l.poly(r, coeffs);
    let u = l.fma(r2, p, r);
    let v = l.add_c(u, 1.0);
    let s = l.pow2(n);
    l.mul(v, s)
}

/// The clamping range of exp's argument: below it the result is +0, above
/// it +inf, and `2^n` stays within [`Lanes::ldexp`]'s range.
fn exp_range(l: &Lanes) -> (f64, f64) {
    l.pick((-104.0, 89.0), (-746.0, 710.0))
}

/// `e^x`.
pub(super) fn exp(l: &mut Lanes, x: Value) -> Value {
    let (lo, hi) = exp_range(l);
    let x = l.max_c(x, lo);
    let x = l.min_c(x, hi);
    let p = exp_parts(l, x, None);
    let v = l.add(p.hi, p.lo);
    l.ldexp(v, p.n)
}

/// `e^x - 1`: `2^n (e^r - 1) + (2^n - 1)` evaluated as
/// `2 (2^(n-1) r + (2^(n-1) - 1/2) + 2^(n-1) q)` where the first two terms
/// are exact (as double-words) and summed without error.
pub(super) fn expm1(l: &mut Lanes, x: Value) -> Value {
    // Below the lower bound the result rounds to -1; above the upper one it
    // overflows.
    let (lo, hi) = l.pick((-18.0, 89.0), (-38.0, 710.0));
    let xc = l.max_c(x, lo);
    let xc = l.min_c(xc, hi);
    let (n, r, r_lo) = reduce_ln2(l, xc, None);
    let q = expm1_tail(l, r, &EXPM1_F32);
    // w = e^(r + r_lo) - 1 - r.
    let one = l.c(1.0);
    let one_r = l.add(one, r);
    let w = l.fma(r_lo, one_r, q);
    let nm1 = l.iadd_c(n, -1);
    let s = l.pow2(nm1);
    // a + a_lo = s - 1/2 exactly (a alone rounds once 2^(n-1) exceeds
    // 2^mant_bits), b = s r exactly.
    let half = l.c(0.5);
    let a = l.sub(s, half);
    let sa = l.sub(s, a);
    let a_lo = l.sub(sa, half);
    let b = l.mul(s, r);
    let (h, e) = l.fast_two_sum(a, b);
    let e = l.add(e, a_lo);
    let t = l.fma(s, w, e);
    let v = l.add(h, t);
    let v = l.add(v, v);
    // expm1(x) rounds to x for tiny |x| (this also keeps the sign of ±0 and
    // the subnormals the halving above would lose).
    let tiny = l.pick(2f64.powi(-30), 2f64.powi(-60));
    let ax = l.abs(x);
    let is_tiny = l.cmp_c(FloatCC::LessThan, ax, tiny);
    l.select(is_tiny, x, v)
}

/// `(k, f)` with `x = 2^k (1 + f)` for positive normal `x`: `k` in integer
/// lanes, `1 + f` in `[2/3, 4/3)` (f32) or `[sqrt(1/2), sqrt(2))` (f64).
fn log_split<L: LaneOps>(l: &mut L, x: L::V) -> (L::V, L::V) {
    let offset = l.pick(0x3f2a_aaab, 0x3fe6_a09e_667f_3bcd);
    let xb = l.bits(x);
    let u = l.iadd_c(xb, -offset);
    let k = l.sshr(u, l.mant_bits());
    let ks = l.shl(k, l.mant_bits());
    let mb = l.isub(xb, ks);
    let m = l.float_bits(mb);
    let f = l.add_c(m, -1.0);
    (k, f)
}

/// `k ln2 + log1p(f) + c` for `f` from [`log_split`], `kf` = k as a float and
/// a small correction `c`.
fn log_kernel<L: LaneOps>(l: &mut L, kf: L::V, f: L::V, c: Option<L::V>) -> L::V {
    if l.is_f32() {
        // k ln2_hi is exact; its sum with f is split into hi + e exactly.
        let a = l.mul_c(kf, LN2_HI_F32);
        let (hi, e) = l.fast_two_sum(a, f);
        let p = l.poly(f, &LOG_F32);
        let f2 = l.mul(f, f);
        let mut w = l.fma(f2, p, e);
        if let Some(c) = c {
            w = l.add(w, c);
        }
        let lo = l.fma_c(kf, LN2_LO_F32, w);
        l.add(hi, lo)
    } else {
        // fdlibm: log1p(f) = f - (f^2/2 - s (f^2/2 + R)) with s = f/(2+f),
        // R = z (2/3 + z P(z)), z = s^2.
        let two = l.c(2.0);
        let d = l.add(two, f);
        let s = l.div(f, d);
        let z = l.mul(s, s);
        let p = l.poly(z, &LOG_F64);
        let c23 = l.c(2.0 / 3.0);
        let p = l.fma(z, p, c23);
        let r = l.mul(z, p);
        let half = l.c(0.5);
        let hf = l.mul(half, f);
        let hfsq = l.mul(hf, f);
        let t = l.add(hfsq, r);
        let mut lo = l.mul_c(kf, LN2_LO_F64);
        if let Some(c) = c {
            lo = l.add(lo, c);
        }
        let st = l.fma(s, t, lo);
        let a = l.sub(hfsq, st);
        let b = l.sub(a, f);
        let khi = l.mul_c(kf, LN2_HI_F64);
        l.sub(khi, b)
    }
}

/// `(k, f)` with `x = 2^k (1 + f)` as in [`log_split`], `k` as a float,
/// for any positive finite `x`: subnormals are scaled into the normal range
/// first.
fn log_reduce<L: LaneOps>(l: &mut L, x: L::V) -> (L::V, L::V) {
    let (min_normal, scale, scale_log2) = l.pick(
        (f64::from(f32::MIN_POSITIVE), 2f64.powi(23), 23.0),
        (f64::MIN_POSITIVE, 2f64.powi(54), 54.0),
    );
    let sub = l.cmp_c(FloatCC::LessThan, x, min_normal);
    let xs = l.mul_c(x, scale);
    let xs = l.select(sub, xs, x);
    let (k, f) = log_split(l, xs);
    let kf = l.int_to_float(k);
    let adj = l.c(scale_log2);
    let zero = l.c(0.0);
    let adj = l.select(sub, adj, zero);
    (l.sub(kf, adj), f)
}

/// `log(x)`.
pub(super) fn log<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let (kf, f) = log_reduce(l, x);
    let y = log_kernel(l, kf, f, None);
    log_specials(l, x, 0.0, y)
}

/// The special values of `log(a + x)` (`a = 0` for log, `1` for log1p):
/// `x < -a` → NaN (x86's default NaN), `x == -a` → -inf, +inf and NaN →
/// themselves.
fn log_specials<L: LaneOps>(l: &mut L, x: L::V, a: f64, y: L::V) -> L::V {
    let neg = l.cmp_c(FloatCC::LessThan, x, -a);
    let nan = l.default_nan();
    let y = l.select(neg, nan, y);
    let pole = l.cmp_c(FloatCC::Equal, x, -a);
    let minf = l.c(f64::NEG_INFINITY);
    let y = l.select(pole, minf, y);
    let big = l.cmp_c(FloatCC::UnorderedOrGreaterThanOrEqual, x, f64::INFINITY);
    l.select(big, x, y)
}

/// `log(1 + x)`: `u = 1 + x` rounded, `log(u)` by the log kernel, plus the
/// correction `((1 + x) - u) / u` for the rounding of `u` (fdlibm).
pub(super) fn log1p(l: &mut Lanes, x: Value) -> Value {
    let one = l.c(1.0);
    let u = l.add(one, x);
    let (k, f) = log_split(l, u);
    let kf = l.int_to_float(k);
    // c = (1 + x) - u exactly: 1 - (u - x) when u >= 2, else x - (u - 1)
    // (each subtraction is exact by Sterbenz's lemma in its range).
    let ux = l.sub(u, x);
    let c_big = l.sub(one, ux);
    let u1 = l.sub(u, one);
    let c_small = l.sub(x, u1);
    let big = l.cmp_c(FloatCC::GreaterThanOrEqual, u, 2.0);
    let c = l.select(big, c_big, c_small);
    let c = l.div(c, u);
    let y = log_kernel(l, kf, f, Some(c));
    let y = log_specials(l, x, 1.0, y);
    // log1p(±0) = ±0.
    let zero = l.cmp_c(FloatCC::Equal, x, 0.0);
    l.select(zero, x, y)
}

/// `log(x)` as a double-word `hi + lo`, relative error about 2^-100 (f64
/// lanes): the logarithm `pow` multiplies by `y`. With `s = f / (2 + f)`
/// carried as `s + s_lo`, `log1p(f) = 2s + 2/3 s^3 + s^5 P(s^2)` where the
/// first two terms are summed as double-words. `x = 0`, `inf` and NaN give
/// `hi = -inf`, `inf`, NaN (and a meaningless `lo`); negative `x` is not
/// expected.
pub(super) fn log_dd(l: &mut Lanes, x: Value) -> (Value, Value) {
    let (kf, f) = log_reduce(l, x);
    // s + s_lo = f / (2 + f): the residual f - s (2 + f) is exact.
    let d = l.add_c(f, 2.0);
    let s = l.div(f, d);
    let s2x = l.add(s, s);
    let e1 = l.sub(f, s2x);
    let ns = l.neg(s);
    let e2 = l.fma(ns, f, e1);
    let s_lo = l.div(e2, d);
    // s^3 and 2/3 s^3 as double-words.
    let (s2, s2_lo) = l.two_prod(s, s);
    let (s3, s3_err) = l.two_prod(s2, s);
    let t = l.mul_c(s2, 3.0);
    let s3_lo = l.fma(t, s_lo, s3_err);
    let s3_lo = l.fma(s2_lo, s, s3_lo);
    let (c3, c3_err) = {
        let c = l.c(TWO_THIRDS_HI);
        l.two_prod(c, s3)
    };
    let c3_lo = l.fma_c(s3, TWO_THIRDS_LO, c3_err);
    let c3_lo = l.fma_c(s3_lo, TWO_THIRDS_HI, c3_lo);
    let p = l.poly(s2, &LOG_F64);
    let s5 = l.mul(s3, s2);
    let tail = l.mul(s5, p);
    // k ln2_hi + 2s + 2/3 s^3 (hi parts, exact sums) + all the low parts.
    let a0 = l.mul_c(kf, LN2_HI_F64);
    let (a, ea) = l.fast_two_sum(a0, s2x);
    let (b, eb) = l.fast_two_sum(a, c3);
    let lo = l.add(ea, eb);
    let s_lo2 = l.add(s_lo, s_lo);
    let lo = l.add(lo, s_lo2);
    let lo = l.add(lo, c3_lo);
    let lo = l.add(lo, tail);
    let lo = l.fma_c(kf, LN2_LO_F64, lo);
    let (hi, lo) = l.fast_two_sum(b, lo);
    (log_specials(l, x, 0.0, hi), lo)
}
