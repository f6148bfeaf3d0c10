//! `erf`.
//!
//! `|x| < 0.921875`: `erf(x) = x + x P(x^2)`. Beyond, `erf(x) = 1 - erfc(x)`
//! with `erfc` written as an exponential: `exp(P(|x|))` in f32 (P fits
//! `log erfc`), `exp(-x^2 + P(t))` in f64 where `x^2` is split exactly into
//! two doubles and the exponent summed as a double-word. `|x|` is clamped at
//! 4 (f32) or 6 (f64), beyond which `erf` rounds to ±1. The sign is
//! restored last, so `erf(-0) = -0`. The f32 form is written over
//! [`LaneOps`], so the native kernels run the same code.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value;

use super::coefficients::*;
use super::exp_log::exp_parts;
use super::fast;
use super::lanes::{LaneOps, Lanes};

/// `erf(x)` of f32 lanes.
pub(crate) fn erf_f32<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let a = l.abs(x);
    let z = l.mul(a, a);
    let p = l.poly(z, &ERF_SMALL_F32);
    let small = l.fma(a, p, a);
    // erfc <= 0.19 here, so its rounding weighs at most 0.23 ulp of erf;
    // |x| is clamped at 4 (NaN kept: `4 < NaN` is false).
    let four = l.c(4.0);
    let above = l.cmp(FloatCC::LessThan, four, a);
    let t = l.select(above, four, a);
    let q = l.poly(t, &ERF_LARGE_F32);
    // q is in [log erfc(4), log erfc(0.921875)]: a normal exp.
    let erfc = fast::exp_plain(l, q);
    let one = l.c(1.0);
    let large = l.sub(one, erfc);
    let is_small = l.cmp_c(FloatCC::LessThan, a, 0.921875);
    let mag = l.select(is_small, small, large);
    let sign = l.sign_bit(x);
    let v = l.or(mag, sign);
    let nan = l.cmp(FloatCC::Unordered, x, x);
    l.select(nan, x, v)
}

/// `erf(x)`.
pub(super) fn erf(l: &mut Lanes, x: Value) -> Value {
    if l.is_f32() {
        return erf_f32(l, x);
    }
    let a = l.abs(x);
    let z = l.mul(a, a);
    let p = l.poly(z, &ERF_SMALL_F64);
    let small = l.fma(a, p, a);
    let erfc = {
        let t = l.min_c(a, 6.0);
        let t = l.max_c(t, 0.921875);
        let c = l.c(-ERF_LARGE_F64_CENTER * ERF_LARGE_F64_INV_HALF_WIDTH);
        let u = l.fma_c(t, ERF_LARGE_F64_INV_HALF_WIDTH, c);
        let h = l.poly(u, &ERF_LARGE_F64);
        // -t^2 + h as a double-word: t^2 = p + p_lo exactly.
        let (p, p_lo) = l.two_prod(t, t);
        let np = l.neg(p);
        let (s, s_lo) = l.two_sum(np, h);
        let lo = l.sub(s_lo, p_lo);
        let e = exp_parts(l, s, Some(lo));
        let v = l.add(e.hi, e.lo);
        let sc = l.pow2(e.n);
        l.mul(v, sc)
    };
    let one = l.c(1.0);
    let large = l.sub(one, erfc);
    let is_small = l.cmp_c(FloatCC::LessThan, a, 0.921875);
    let mag = l.select(is_small, small, large);
    l.or_sign(mag, x)
}
