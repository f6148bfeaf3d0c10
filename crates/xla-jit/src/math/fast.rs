//! The f32 `exp`, `tanh` and `logistic` of [`Accuracy::Xla`]: about half
//! the instructions of the full-accuracy forms, with errors within XLA:CPU's
//! own (measured in the table of [`crate::math`]). They apply the project's
//! flush-to-zero rule themselves, whatever the MXCSR mode: subnormal
//! inputs act as zeros and no result is subnormal (see
//! [`super::flushes_subnormals`]).
//!
//! - exp: `n = round(x log2 e)`, `r = x - n ln2` (two-part ln2),
//!   `e^r = 1 + r + r^2 P(r)`, and `n` added to the exponent field of the
//!   result as an integer (no multiplication); beyond the range of normal
//!   results a mask gives `0` or `inf`, and NaN passes through.
//! - tanh: the odd/even rational approximation XLA:CPU (and Eigen) use,
//!   `x P(x^2) / Q(x^2)` on the argument clamped to `±7.99881172`, where it
//!   reaches ±1, and `x` itself below `0.0004` (±0 for subnormal `x`).
//! - logistic: `e = e^-|x|` by the exp above, then `1 / (1 + e)` for
//!   `x >= 0` and `e / (1 + e)` for `x < 0` (one division).
//!
//! The special cases (exp's `|x| > 87.33` and NaN, tanh's clamp, tiny
//! arguments and NaN) are fixed up behind a branch taken only when some
//! lane of the vector needs it ([`Lanes::rare_branch`]): on Zen 5 the
//! compares and blends share the two FMA pipes with the polynomial, and
//! skipping them makes exp 30%, tanh 15% and logistic 10% faster on
//! ordinary data (math_ulp `--bench`; a vector with a special lane pays
//! both paths).
//!
//! [`Accuracy::Xla`]: super::Accuracy::Xla

use cranelift_codegen::ir::condcodes::FloatCC;

use super::coefficients::{EXP_F32, LN2_HI_F32, LN2_LO_F32, LOG2E};
use super::lanes::LaneOps;

/// `ln(FLT_MAX)` rounded down to f32: above it `e^x` overflows.
const EXP_OVERFLOW: f64 = 88.722_831_726_074_22;
/// `ln(FLT_MIN)` rounded up to f32: below it `e^x` is subnormal (flushed).
const EXP_UNDERFLOW: f64 = -87.336_540_222_167_97;

/// Below this `|x|`, `e^x` and `e^-x` are normal floats: no special case.
const EXP_PLAIN: f64 = 87.33;

/// `e^x` on f32 lanes.
pub(crate) fn exp<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let special = exp_special(l, x);
    let plain = exp_plain(l, x);
    l.rare_branch(special, plain, |l, plain| {
        let y = exp_no_overflow(l, x, plain);
        let over = l.cmp_c(FloatCC::GreaterThan, x, EXP_OVERFLOW);
        let inf = l.c(f64::INFINITY);
        l.select(over, inf, y)
    })
}

/// The lanes where `e^x` or `e^-x` needs a special case: `|x| > EXP_PLAIN`
/// or NaN, marked by their sign bits (see [`Lanes::rare_branch`]).
/// Computed on the bit pattern of `|x|` (NaN's are above every finite
/// one), in integer instructions that leave the FMA pipes to the
/// polynomial (see [`tanh_special`]): `|x| + (2^31 - 1 - limit)` passes
/// `2^31` exactly when `|x|` passes the limit.
fn exp_special<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let a = l.abs(x);
    let a = l.bits(a);
    let limit = i64::from((EXP_PLAIN as f32).to_bits());
    l.iadd_c(a, i64::from(i32::MAX) - limit)
}

/// `e^x` for `x <= EXP_OVERFLOW` or NaN (larger `x` give garbage), from
/// `y`, [`exp_plain`] of `x`.
fn exp_no_overflow<L: LaneOps>(l: &mut L, x: L::V, y: L::V) -> L::V {
    let under = l.cmp_c(FloatCC::LessThan, x, EXP_UNDERFLOW);
    let zero = l.c(0.0);
    let y = l.select(under, zero, y);
    let nan = l.cmp(FloatCC::Unordered, x, x);
    l.select(nan, x, y)
}

/// `e^x` for `x` in `[EXP_UNDERFLOW, EXP_OVERFLOW]` (other `x` give
/// garbage).
pub(super) fn exp_plain<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let (n, t) = l.round_mul(x, LOG2E);
    let r = l.fma_c(n, -LN2_HI_F32, x);
    let r = l.fma_c(n, -LN2_LO_F32, r);
    let r2 = l.mul(r, r);
    let p = l.poly(r, &EXP_F32);
    let u = l.fma(r2, p, r);
    let v = l.add_c(u, 1.0);
    // The low bits of `t` hold `n` (see `Lanes::round_mul`); shifted into
    // the exponent field they scale `v` (in [0.7, 1.42]) by 2^n. Within
    // [EXP_UNDERFLOW, EXP_OVERFLOW] the sum stays a normal float: n = 128
    // only with r < 0 (so v < 1), n = -126 only with r >= 0 (so v >= 1).
    let shift = l.mant_bits();
    let scale = l.shl(t, shift);
    let vb = l.bits(v);
    let yb = l.iadd(vb, scale);
    l.float_bits(yb)
}

/// Where XLA's tanh rational reaches ±1 in f32 with FMA.
const TANH_CLAMP: f64 = 7.998_811_721_801_758;
/// Below this `|x|`, `tanh(x)` is `x` in f32.
const TANH_TINY: f64 = 0.0004;
/// Numerator coefficients (odd powers 1, 3, …, 13) of XLA's f32 tanh.
const TANH_NUM: [f64; 7] = [
    4.893_524_558_917_86e-3,
    6.372_619_288_754_36e-4,
    1.485_722_357_179_79e-5,
    5.122_297_090_371_14e-8,
    -8.604_671_522_137_35e-11,
    2.000_187_904_824_77e-13,
    -2.760_768_477_423_55e-16,
];
/// Denominator coefficients (even powers 0, 2, 4, 6) of XLA's f32 tanh.
const TANH_DEN: [f64; 4] = [
    4.893_525_185_543_85e-3,
    2.268_434_632_439e-3,
    1.185_347_056_866_54e-4,
    1.198_258_394_667_02e-6,
];

/// `tanh(x)` on f32 lanes.
pub(crate) fn tanh<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let clamped = tanh_stage(l, 0, x, &[]);
    let parts = tanh_stage(l, 1, x, &clamped);
    tanh_stage(l, 2, x, &parts)[0]
}

/// The stages [`tanh_stage`] splits [`tanh`] into.
pub(super) const TANH_STAGES: usize = 3;

/// Stage `stage` of `tanh(x)` on the values the previous stage returned
/// (none for stage 0): 0 squares `x` to `[x^2]`, 1 evaluates the
/// polynomials to `[num, den]`, 2 divides to `[tanh(x)]`, with the clamp
/// and the tiny arguments behind a branch ([`tanh_special`]). The last
/// value a stage returns depends on the others.
///
/// Each stage's dependency chain is a third of the function's: a kernel
/// that emits stage `k` for several vectors before stage `k + 1` keeps more
/// independent work in the core's scheduler than one that emits each
/// vector's whole chain in turn.
pub(super) fn tanh_stage<L: LaneOps>(l: &mut L, stage: usize, x: L::V, v: &[L::V]) -> Vec<L::V> {
    match (stage, v) {
        (0, []) => vec![l.mul(x, x)],
        (1, &[z]) => {
            let (num, den) = tanh_parts(l, x, z);
            vec![num, den]
        }
        (2, &[num, den]) => {
            let q = l.div(num, den);
            let special = tanh_special(l, x);
            vec![l.rare_branch(special, q, |l, q| {
                let q = tanh_saturated(l, x, q);
                tanh_tiny(l, x, q)
            })]
        }
        _ => unreachable!("tanh has stages 0 to 2 (stage {stage}, {} values)", v.len()),
    }
}

/// `q`, the rational at `x`, with `±1` where `|x| > TANH_CLAMP`: XLA
/// clamps `x` to `±TANH_CLAMP`, where its rational is `±1` exactly. (A
/// NaN `x` passes the clamp, so `q` is already XLA's NaN there.)
fn tanh_saturated<L: LaneOps>(l: &mut L, x: L::V, q: L::V) -> L::V {
    let a = l.abs(x);
    let big = l.cmp_c(FloatCC::GreaterThan, a, TANH_CLAMP);
    let sign = l.sign_bit(x);
    let one = l.c(1.0);
    let one = l.or(sign, one);
    l.select(big, one, q)
}

/// The numerator `c P(z)` and denominator `Q(z)` of the rational at the
/// clamped `c` and `z = c^2`.
fn tanh_parts<L: LaneOps>(l: &mut L, c: L::V, z: L::V) -> (L::V, L::V) {
    let p = l.poly(z, &TANH_NUM);
    let num = l.mul(c, p);
    (num, l.poly(z, &TANH_DEN))
}

/// The lanes where the rational on the unclamped `x` is not `tanh(x)`:
/// `|x| < TANH_TINY`, `|x| > TANH_CLAMP` or NaN, marked by their sign
/// bits (see [`Lanes::rare_branch`]).
///
/// The test is on the bit pattern of `|x|` (the order of non-negative
/// floats is that of their bits), in integer instructions that run beside
/// the FMA pipes: the float compares and min/max of the clamp would take
/// the pipes that the polynomials need. `|x| - tiny` is negative below
/// the tiny bound, and `|x| + (2^31 - 1 - clamp)` passes `2^31` above the
/// clamp; their or has the sign bit of either.
fn tanh_special<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let tiny = i64::from((TANH_TINY as f32).to_bits());
    let clamp = i64::from((TANH_CLAMP as f32).to_bits());
    let a = l.abs(x);
    let a = l.bits(a);
    let below = l.iadd_c(a, -tiny);
    let above = l.iadd_c(a, i64::from(i32::MAX) - clamp);
    l.or(below, above)
}

/// `tanh(x)` where some lane has `|x| < TANH_TINY`: `x` there (±0 for a
/// subnormal `x`), `q` elsewhere.
fn tanh_tiny<L: LaneOps>(l: &mut L, x: L::V, q: L::V) -> L::V {
    let a = l.abs(x);
    let subnormal = l.cmp_c(FloatCC::LessThan, a, f64::from(f32::MIN_POSITIVE));
    let sign = l.sign_bit(x);
    let small = l.select(subnormal, sign, x);
    let tiny = l.cmp_c(FloatCC::LessThan, a, TANH_TINY);
    l.select(tiny, small, q)
}

/// `logistic(x) = 1 / (1 + e^-x)` on f32 lanes.
pub(crate) fn logistic<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let m0 = l.c(-0.0);
    let na = l.or(x, m0);
    let special = exp_special(l, x);
    let plain = exp_plain(l, na);
    let e = l.rare_branch(special, plain, |l, plain| exp_no_overflow(l, na, plain));
    let d = l.add_c(e, 1.0);
    let neg = l.cmp_c(FloatCC::LessThan, x, 0.0);
    let one = l.c(1.0);
    let n = l.select(neg, e, one);
    l.div(n, d)
}
