//! `square`, `sinh`, `cosh` and the inverse trigonometric and hyperbolic
//! functions, as `ChloLegalizeToStablehlo.cpp` and
//! `ChloDecompositionPatternsMath.td` expand them. Of the complex forms,
//! `square`, `sinh` and `cosh` are expanded; the others (Hull et al.'s
//! algorithm, over a hundred instructions each) are an error naming the op.

use super::{OpResult, G};
use crate::hlo::ComparisonDirection::{Eq, Ge, Gt, Lt};
use crate::XlaOp;

/// An error for the complex forms not expanded here.
fn complex_unsupported(g: &G, x: XlaOp, op: &str) -> OpResult<()> {
    let t = g.ty(x)?;
    if t.is_complex() {
        return Err(format!("`chlo.{op}` of {t} is not supported"));
    }
    Ok(())
}

/// `x·x`; for complex `z = x + iy`: `(x−y)(x+y) + i·2xy`, the real part
/// exactly 0 where `|x| = |y|` (finite `x`).
pub(super) fn square(g: &G, z: XlaOp) -> OpResult<XlaOp> {
    if !g.ty(z)?.is_complex() {
        return g.mul(z, z);
    }
    let (x, y) = (g.real(z)?, g.imag(z)?);
    let same = g.and(g.is_finite(x)?, g.cmp(g.abs(x)?, g.abs(y)?, Eq)?)?;
    let re = g.select(same, g.k(x, 0.0)?, g.mul(g.sub(x, y)?, g.add(x, y)?)?)?;
    let im = g.mul(g.k(x, 2.0)?, g.mul(x, y)?)?;
    g.complex(re, im)
}

/// `e^(x + log ½)` and `e^(log ½ − x)`.
fn half_exps(g: &G, x: XlaOp) -> OpResult<(XlaOp, XlaOp)> {
    let log_half = g.log(g.k(x, 0.5)?)?;
    Ok((g.exp(g.add(x, log_half)?)?, g.exp(g.sub(log_half, x)?)?))
}

/// `sinh`: `½(expm1(x) + expm1(x)/(expm1(x)+1))` for `|x| < 1`, else
/// `e^(x + log ½) − e^(log ½ − x)` (the latter alone for complex).
pub(super) fn sinh(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    if g.ty(x)?.is_complex() {
        let (plus, minus) = half_exps(g, x)?;
        return g.sub(plus, minus);
    }
    g.upcast(&[x], |g, a| {
        let x = a[0];
        let (plus, minus) = half_exps(g, x)?;
        let large = g.sub(plus, minus)?;
        let expm1 = g.expm1(x)?;
        let one = g.k(x, 1.0)?;
        let ratio = g.div(expm1, g.add(expm1, one)?)?;
        let small = g.mul(g.k(x, 0.5)?, g.add(expm1, ratio)?)?;
        g.select(g.cmp(g.abs(x)?, one, Lt)?, small, large)
    })
}

/// `cosh`: `e^(x + log ½) + e^(log ½ − x)`.
pub(super) fn cosh(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    let f = |g: &G, a: &[XlaOp]| {
        let (plus, minus) = half_exps(g, a[0])?;
        g.add(plus, minus)
    };
    if g.ty(x)?.is_complex() {
        return f(g, &[x]);
    }
    g.upcast(&[x], f)
}

/// `sqrt((1 − x)(1 + x))` and the constant 1.
fn sqrt_one_minus_square(g: &G, x: XlaOp) -> OpResult<(XlaOp, XlaOp)> {
    let one = g.k(x, 1.0)?;
    Ok((g.sqrt(g.mul(g.sub(one, x)?, g.add(one, x)?)?)?, one))
}

/// `asin(x) = 2·atan2(x, 1 + sqrt((1 − x)(1 + x)))`.
pub(super) fn asin(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    complex_unsupported(g, x, "asin")?;
    let (root, one) = sqrt_one_minus_square(g, x)?;
    let ta = g.atan2(x, g.add(one, root)?)?;
    g.add(ta, ta)
}

/// `acos(x) = atan2(sqrt((1 − x)(1 + x)), x)`.
pub(super) fn acos(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    complex_unsupported(g, x, "acos")?;
    let (root, _) = sqrt_one_minus_square(g, x)?;
    g.atan2(root, x)
}

/// `atan(x) = atan2(x, 1)`.
pub(super) fn atan(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    complex_unsupported(g, x, "atan")?;
    g.atan2(x, g.k(x, 1.0)?)
}

/// `atanh(x) = ½(log1p(x) − log1p(−x))`, NaN for `|x| > 1`.
pub(super) fn atanh(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    complex_unsupported(g, x, "atanh")?;
    let outside = g.cmp(g.abs(x)?, g.k(x, 1.0)?, Gt)?;
    let value = g.mul(g.sub(g.log1p(x)?, g.log1p(g.neg(x)?)?)?, g.k(x, 0.5)?)?;
    g.select(outside, g.k(x, f64::NAN)?, value)
}

/// `acosh(x) = log1p(sqrt(x − 1)·(sqrt(x + 1) + sqrt(x − 1)))`, or
/// `log 2 + log x` from `max / 2` on.
pub(super) fn acosh(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    complex_unsupported(g, x, "acosh")?;
    let two = g.k(x, 2.0)?;
    let large = g.cmp(x, g.div(g.max_finite(x)?, two)?, Ge)?;
    let logs = g.add(g.log(two)?, g.log(x)?)?;
    let one = g.k(x, 1.0)?;
    let root_minus = g.sqrt(g.sub(x, one)?)?;
    let root_plus = g.sqrt(g.add(x, one)?)?;
    let small = g.log1p(g.mul(root_minus, g.add(root_plus, root_minus)?)?)?;
    g.select(large, logs, small)
}

/// `asinh(x) = sign(x)·log1p(|x| + x²/(1 + sqrt(1 + x²)))`, or
/// `sign(x)·(log 2 + log |x|)` from `sqrt(max)` on.
pub(super) fn asinh(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    complex_unsupported(g, x, "asinh")?;
    let ax = g.abs(x)?;
    let large = g.cmp(ax, g.sqrt(g.max_finite(x)?)?, Ge)?;
    let logs = g.add(g.log(g.k(x, 2.0)?)?, g.log(ax)?)?;
    let ax2 = g.mul(ax, ax)?;
    let one = g.k(x, 1.0)?;
    let small = g.log1p(g.add(ax, g.div(ax2, g.add(one, g.sqrt(g.add(one, ax2)?)?)?)?)?)?;
    g.mul(g.sign(x)?, g.select(large, logs, small)?)
}
