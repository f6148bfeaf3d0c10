//! `tanh` and `logistic` (the sigmoid `1 / (1 + e^-x)`).
//!
//! tanh: an odd polynomial near 0, `1 - 2 / (e^(2|x|) + 1)` beyond, the sign
//! restored last. logistic: `e = e^-|x|`, then `1 / (1 + e)` for `x >= 0`
//! and `e / (1 + e)` for `x < 0`, which underflows gracefully instead of
//! dividing by an infinite `1 + e^-x`. In f64 the exponential is carried as a
//! double-word and the quotient corrected by one Newton step on the
//! residual, so that the only significant rounding is the last one.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::Value;

use super::coefficients::*;
use super::exp_log::exp_parts;
use super::lanes::{LaneOps, Lanes};

/// Below this `|x|` tanh uses its polynomial.
fn tanh_split(l: &Lanes) -> f64 {
    l.pick(0.875, 0.5625)
}

/// `tanh(x)`.
pub(super) fn tanh(l: &mut Lanes, x: Value) -> Value {
    let a = l.abs(x);
    let z = l.mul(a, a);
    let p = l.poly(z, l.pick(&TANH_F32[..], &TANH_F64[..]));
    let az = l.mul(a, z);
    let small = l.fma(az, p, a);
    // tanh(a) rounds to 1 beyond 9.01 (f32) or 19.06 (f64).
    let a2 = l.add(a, a);
    let a2 = l.min_c(a2, l.pick(20.0, 40.0));
    let e = exp_parts(l, a2, None);
    let s = l.pow2(e.n);
    let large = if l.is_f32() {
        let v = l.add(e.hi, e.lo);
        let ev = l.mul(v, s);
        let d = l.add_c(ev, 1.0);
        let two = l.c(2.0);
        let q = l.div(two, d);
        let one = l.c(1.0);
        l.sub(one, q)
    } else {
        // d = e + 1 as a double-word (e >= 1), q = 2 / d with its residual.
        let (h, lo) = l.fast_two_sum(e.hi, e.lo);
        let eh = l.mul(h, s);
        let el = l.mul(lo, s);
        let one = l.c(1.0);
        let (dh, dl) = l.fast_two_sum(eh, one);
        let dl = l.add(dl, el);
        let two = l.c(2.0);
        let (q, q_lo) = l.div_dd(two, None, dh, dl);
        let t = l.sub(one, q);
        l.sub(t, q_lo)
    };
    let is_small = l.cmp_c(FloatCC::LessThan, a, tanh_split(l));
    let mag = l.select(is_small, small, large);
    l.or_sign(mag, x)
}

/// `logistic(x) = 1 / (1 + e^-x)`.
pub(super) fn logistic(l: &mut Lanes, x: Value) -> Value {
    // -|x|: x with the sign bit set.
    let m0 = l.c(-0.0);
    let na = l.or(x, m0);
    // Below this e^-|x| is 0 (and logistic(x) for x < 0 too).
    let na = l.max_c(na, l.pick(-104.0, -746.0));
    let e = exp_parts(l, na, None);
    // e^-|x| = (h + lo) 2^n as a double-word, scaled in two halves (it may be
    // subnormal); d = 1 + e as a double-word; the quotient with its residual.
    let (h, lo) = l.fast_two_sum(e.hi, e.lo);
    let n1 = l.sshr(e.n, 1);
    let n2 = l.isub(e.n, n1);
    let s1 = l.pow2(n1);
    let s2 = l.pow2(n2);
    let eh = l.mul(h, s1);
    let eh = l.mul(eh, s2);
    let el = l.mul(lo, s1);
    let el = l.mul(el, s2);
    let one = l.c(1.0);
    let (dh, dl) = l.fast_two_sum(one, eh);
    let dl = l.add(dl, el);
    let neg = l.cmp_c(FloatCC::LessThan, x, 0.0);
    let nh = l.select(neg, eh, one);
    let zero = l.c(0.0);
    let nl = l.select(neg, el, zero);
    let (q, q_lo) = l.div_dd(nh, Some(nl), dh, dl);
    l.add(q, q_lo)
}
