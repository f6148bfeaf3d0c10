//! `pow`, `cbrt`, `sqrt` and `rsqrt`.
//!
//! pow: `|x|^y = exp(y log|x|)`. f32 computes in f64 lanes, where the f64
//! `log` and a short `exp` polynomial leave an error far below an f32 ulp
//! (about 2^-28 relative); f64 multiplies `y` by
//! a double-word `log|x|` ([`log_dd`]) and feeds the double-word product to
//! `exp`, so that exactly representable results (`pow(-2, 3) = -8`) come out
//! exact. The C99 special cases are then applied by lane masks.
//!
//! cbrt: `x = m 2^(3k + j)`, a polynomial seed for `cbrt(m)` times
//! `2^(j/3)`, Newton steps on `y^3 = m 2^j` with the residual computed
//! exactly (FMA), and the exponent `2^k` applied last.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value};

use super::coefficients::*;
use super::exp_log::{exp_parts, exp_plain, log, log_dd};
use super::lanes::Lanes;
use super::via_f64;

/// `|x|^y` before the special cases: f32 lanes compute it in f64 lanes
/// (two halves), f64 lanes with a double-word logarithm.
fn pow_core(l: &mut Lanes, ax: Value, y: Value) -> Value {
    if l.is_f32() {
        // |x|^y = e^p to about 2^-28 (EXPM1_F32 in f64 lanes); beyond the
        // clamps the f32 result is 0 or inf.
        return via_f64(l, &[ax, y], |l, v| {
            let lg = log(l, v[0]);
            let p = l.mul(v[1], lg);
            let p = l.max_c(p, -104.0);
            let p = l.min_c(p, 89.0);
            exp_plain(l, p, &EXPM1_F32)
        });
    }
    let (lh, ll) = log_dd(l, ax);
    let ph = l.mul(y, lh);
    let nph = l.neg(ph);
    let pl = l.fma(y, lh, nph);
    let pl = l.fma(y, ll, pl);
    // Where y log|x| over- or underflows (or is NaN) the low part is noise.
    let aph = l.abs(ph);
    let finite = l.cmp_c(FloatCC::LessThan, aph, 1000.0);
    let zero = l.c(0.0);
    let pl = l.select(finite, pl, zero);
    let ph = l.max_c(ph, -746.0);
    let ph = l.min_c(ph, 710.0);
    let e = exp_parts(l, ph, Some(pl));
    let v = l.add(e.hi, e.lo);
    l.ldexp(v, e.n)
}

/// `pow(x, y)`: the magnitude from [`pow_core`], then the C99 special
/// cases by lane masks (in the lanes' own type).
pub(super) fn pow(l: &mut Lanes, x: Value, y: Value) -> Value {
    let ax = l.abs(x);
    let core = pow_core(l, ax, y);
    let one = l.c(1.0);
    // (-1)^±inf = 1 (y log 1 = inf * 0 is NaN above).
    let ay = l.abs(y);
    let unit = l.cmp_c(FloatCC::Equal, ax, 1.0);
    let y_inf = l.cmp_c(FloatCC::Equal, ay, f64::INFINITY);
    let m = l.and(unit, y_inf);
    let core = l.select(m, one, core);
    // A negative base (sign bit set, -0 and -inf included) with an odd
    // integer exponent gives a negative result.
    let yt = l.b.ins().trunc(y);
    let y_int = l.cmp(FloatCC::Equal, yt, y);
    let yh = l.mul_c(y, 0.5);
    let yht = l.b.ins().trunc(yh);
    let y_half_frac = l.cmp(FloatCC::NotEqual, yht, yh);
    let y_odd = l.and(y_int, y_half_frac);
    let xb = l.bits(x);
    let izero = l.ci(0);
    let x_sign = l.icmp(IntCC::SignedLessThan, xb, izero);
    let neg = l.and(x_sign, y_odd);
    let ncore = l.neg(core);
    let v = l.select(neg, ncore, core);
    // A finite negative base with a non-integer exponent: NaN.
    let x_neg = l.cmp_c(FloatCC::LessThan, x, 0.0);
    let x_fin = l.cmp_c(FloatCC::GreaterThan, x, f64::NEG_INFINITY);
    let bad = l.and(x_neg, x_fin);
    let y_frac = l.cmp(FloatCC::NotEqual, yt, y);
    let bad = l.and(bad, y_frac);
    let nan = l.default_nan();
    let v = l.select(bad, nan, v);
    // pow(1, y) = pow(x, ±0) = 1, even for NaN.
    let x_one = l.cmp_c(FloatCC::Equal, x, 1.0);
    let y_zero = l.cmp_c(FloatCC::Equal, y, 0.0);
    let m = l.or(x_one, y_zero);
    l.select(m, one, v)
}

/// `cbrt(x)`.
pub(super) fn cbrt(l: &mut Lanes, x: Value) -> Value {
    let ax = l.abs(x);
    // Subnormals are scaled by 2^(3s) first.
    let (min_normal, s) = l.pick((f32::MIN_POSITIVE as f64, 8), (f64::MIN_POSITIVE, 18));
    let sub = l.cmp_c(FloatCC::LessThan, ax, min_normal);
    let scaled = l.mul_c(ax, 2f64.powi(3 * s));
    let xs = l.select(sub, scaled, ax);
    let adj = l.c(f64::from(s));
    let zero = l.c(0.0);
    let adj = l.select(sub, adj, zero);
    // xs = m 2^e, m in [1, 2); e = 3k + j.
    let xb = l.bits(xs);
    let mant_bits = l.mant_bits();
    let eb = l.b.ins().ushr_imm_u(xb, mant_bits);
    let e = l.iadd_c(eb, -l.bias());
    let mant = l.iand_c(xb, (1 << l.mant_bits()) - 1);
    let one_bits = l.pick(0x3f80_0000, 0x3ff0_0000_0000_0000);
    let one_b = l.ci(one_bits);
    let mb = l.b.ins().bor(mant, one_b);
    let m = l.float_bits(mb);
    let ef = l.int_to_float(e);
    let k = l.fma_cc(ef, 1.0 / 3.0, 1.0 / 6.0);
    let k = l.b.ins().floor(k);
    let j = l.fma_c(k, -3.0, ef);
    let j1 = l.cmp_c(FloatCC::Equal, j, 1.0);
    let j2 = l.cmp_c(FloatCC::Equal, j, 2.0);
    let (c1, c2, c4) = (l.c(1.0), l.c(2.0), l.c(4.0));
    let scale = l.select(j1, c2, c1);
    let scale = l.select(j2, c4, scale);
    let target = l.mul(m, scale);
    let (r2, r4) = (l.c(CBRT2), l.c(CBRT4));
    let root = l.select(j1, r2, c1);
    let root = l.select(j2, r4, root);
    let seed = l.poly(m, &CBRT_SEED);
    let mut y = l.mul(seed, root);
    if !l.is_f32() {
        y = newton_cbrt(l, y, target, false);
    }
    let y = newton_cbrt(l, y, target, true);
    // 2^(k - adj), k - adj a small integer.
    let kk = l.sub(k, adj);
    let (_, kb) = l.round_mul(kk, 1.0);
    let ki = l.round_int(kb);
    let p = l.pow2(ki);
    let v = l.mul(y, p);
    // ±0, ±inf and NaN are their own cube roots.
    let pos = l.cmp_c(FloatCC::GreaterThan, ax, 0.0);
    let fin = l.cmp_c(FloatCC::LessThan, ax, f64::INFINITY);
    let ordinary = l.and(pos, fin);
    let v = l.select(ordinary, v, ax);
    l.or_sign(v, x)
}

/// One Newton step for `y^3 = t`: `y - (y^3 - t) / (3 y^2)`; `exact`
/// computes the residual without rounding error (for the last step).
fn newton_cbrt(l: &mut Lanes, y: Value, t: Value, exact: bool) -> Value {
    let nt = l.neg(t);
    let (y2, y2_lo) = l.two_prod(y, y);
    let mut res = l.fma(y2, y, nt);
    if exact {
        res = l.fma(y2_lo, y, res);
    }
    let d = l.mul_c(y2, 3.0);
    let corr = l.div(res, d);
    l.sub(y, corr)
}

/// `sqrt(x)` (correctly rounded by the hardware).
pub(super) fn sqrt(l: &mut Lanes, x: Value) -> Value {
    l.sqrt(x)
}

/// `1 / sqrt(x)`: `r = 1 / sqrt(x)` from the correctly rounded square root
/// and division (within 1.5 ulp), then one Newton step on the residual
/// `1 - x r^2`, computed as `1 - (x r) r` with `x r` split exactly so that
/// nothing overflows (not the 12-bit `rsqrtps` estimate).
pub(super) fn rsqrt(l: &mut Lanes, x: Value) -> Value {
    let s = l.sqrt(x);
    let one = l.c(1.0);
    let r = l.div(one, s);
    let (xr, xr_lo) = l.two_prod(x, r);
    let nxr = l.neg(xr);
    let rho = l.fma(nxr, r, one);
    let nxr_lo = l.neg(xr_lo);
    let rho = l.fma(nxr_lo, r, rho);
    let half_r = l.mul_c(r, 0.5);
    let refined = l.fma(half_r, rho, r);
    // 0, inf and NaN (and negative x) keep the plain quotient.
    let pos = l.cmp_c(FloatCC::GreaterThan, x, 0.0);
    let fin = l.cmp_c(FloatCC::LessThan, x, f64::INFINITY);
    let ordinary = l.and(pos, fin);
    l.select(ordinary, refined, r)
}
