//! Complex semantics: `c64` computes in `f32` components, `c128` in `f64`
//! (`docs/semantics.md`, *Element-wise arithmetic*). The formulas follow XLA:CPU's elemental
//! emitter (Smith's division with its corner cases, `sqrt` and `pow` by polar form,
//! overflow-safe `abs`). Components are flushed like real values (see
//! [`super::float`]); `neg` keeps bit patterns.

use num_complex::Complex;

use super::float::Real;
use super::table::{Cmp, Fn2};
use crate::hlo::ComparisonDirection;
use crate::hlo::Opcode;

type Cx<R> = Complex<R>;

#[inline]
fn cx<R: Real>(re: R, im: R) -> Cx<R> {
    Complex::new(re, im)
}

/// Both components flushed.
#[inline]
fn ftz<R: Real>(z: Cx<R>) -> Cx<R> {
    cx(z.re.ftz(), z.im.ftz())
}

#[inline]
fn add<R: Real>(a: Cx<R>, b: Cx<R>) -> Cx<R> {
    cx(a.re + b.re, a.im + b.im)
}

#[inline]
fn sub<R: Real>(a: Cx<R>, b: Cx<R>) -> Cx<R> {
    cx(a.re - b.re, a.im - b.im)
}

#[inline]
fn mul<R: Real>(a: Cx<R>, b: Cx<R>) -> Cx<R> {
    cx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}

/// Smith's algorithm, with C99-style results where it gives (NaN, NaN):
/// a zero denominator, an infinite numerator over a finite denominator, a
/// finite numerator over an infinite denominator.
fn div<R: Real>(a: Cx<R>, b: Cx<R>) -> Cx<R> {
    let (ar, ai, br, bi) = (a.re, a.im, b.re, b.im);
    let result = if br.abs() < bi.abs() {
        let ratio = br / bi;
        let denom = bi + ratio * br;
        cx((ratio * ar + ai) / denom, (ratio * ai - ar) / denom)
    } else {
        let ratio = bi / br;
        let denom = br + ratio * bi;
        cx((ratio * ai + ar) / denom, (ai - ratio * ar) / denom)
    };
    if !(result.re.is_nan() && result.im.is_nan()) {
        return result;
    }
    let inf = R::INFINITY;
    let is_inf = |x: R| x.abs() == inf;
    let finite = |x: R| x.is_finite();
    if br == R::ZERO && bi == R::ZERO && (!ar.is_nan() || !ai.is_nan()) {
        let s = inf.copysign(br);
        return cx(s * ar, s * ai);
    }
    let unit = |x: R, on: bool| (if on { R::ONE } else { R::ZERO }).copysign(x);
    if (is_inf(ar) || is_inf(ai)) && finite(br) && finite(bi) {
        let (ur, ui) = (unit(ar, is_inf(ar)), unit(ai, is_inf(ai)));
        return cx(inf * (ur * br + ui * bi), inf * (ui * br - ur * bi));
    }
    if (is_inf(br) || is_inf(bi)) && finite(ar) && finite(ai) {
        let (ur, ui) = (unit(br, is_inf(br)), unit(bi, is_inf(bi)));
        return cx(R::ZERO * (ar * ur + ai * ui), R::ZERO * (ai * ur - ar * ui));
    }
    result
}

/// `|z| = sqrt(re² + im²)`, computed without overflow (`hypot`); NaN when
/// a part is NaN, even if the other is infinite, as the formula and XLA
/// give (C's `hypot` gives `+∞` there).
pub(super) fn abs<R: Real>(z: Cx<R>) -> R {
    let z = ftz(z);
    if z.re.is_nan() || z.im.is_nan() {
        return R::NAN;
    }
    z.re.hypot(z.im).ftz()
}

/// `(min, max, s)` of `|re|`, `|im|`, with `s = sqrt(1 + (min/max)²)` (or
/// the square's argument when `root` is false).
fn abs_parts<R: Real>(z: Cx<R>, root: bool) -> (R, R, R) {
    let (x, y) = (z.re.abs(), z.im.abs());
    let (max, min) = (super::float::max(x, y), super::float::min(x, y));
    let q = min / max;
    let s = R::ONE + q * q;
    (min, max, if root { s.sqrt() } else { s })
}

/// `e^re·(cos im + i·sin im)`, as XLA computes it: where `e^re` overflows
/// but the product need not (`re` up to twice the overflow threshold), as
/// `(e^(re/2)·cos im)·e^(re/2)`; a zero imaginary part stays as it is
/// (`exp(∞ + 0i) = ∞ + 0i`, not `∞·0 = NaN`).
fn exp<R: Real>(z: Cx<R>) -> Cx<R> {
    let (x, y) = (z.re, z.im);
    let e = x.exp();
    let (cos, sin) = (y.cos(), y.sin());
    let (re, im) = if e == R::INFINITY {
        let half = (x * R::HALF).exp();
        (half * cos * half, half * sin * half)
    } else {
        (e * cos, e * sin)
    };
    cx(re, if y == R::ZERO { y } else { im })
}

/// `e^z − 1`: the real part `expm1(re)·cos im − 2·sin²(im/2)` keeps its
/// precision near zero (`expm1(1e-8 + 1e-8i) = 1e-8 + 1e-8i` in f32,
/// where `e^re·cos im − 1` gives 0), and a zero imaginary part stays as it
/// is, as in XLA.
fn expm1<R: Real>(z: Cx<R>) -> Cx<R> {
    let (x, y) = (z.re, z.im);
    let s = (y * R::HALF).sin();
    let re = x.expm1() * y.cos() - R::TWO * s * s;
    cx(re, if y == R::ZERO { y } else { x.exp() * y.sin() })
}

fn log<R: Real>(z: Cx<R>) -> Cx<R> {
    cx(abs(z).ln(), z.im.atan2(z.re))
}

fn log1p<R: Real>(z: Cx<R>) -> Cx<R> {
    let (a, b) = (z.re, z.im);
    let sum = a * a + R::TWO * a + b * b;
    cx(R::HALF * sum.ln_1p(), b.atan2(a + R::ONE))
}

/// `sqrt(|z|)·(cos(t/2) + i·sin(t/2))`, `t = atan2(im, re)`, with the
/// infinite and zero cases of C99.
fn sqrt<R: Real>(z: Cx<R>) -> Cx<R> {
    let (a, b) = (z.re, z.im);
    let (min, max, s) = abs_parts(z, false);
    let r = max.sqrt() * s.pow(R::HALF * R::HALF);
    let r = if r.is_nan() { min } else { r };
    if r == R::ZERO {
        return cx(R::ZERO, R::ZERO);
    }
    let t = b.atan2(a) * R::HALF;
    let (cos, sin) = (t.cos(), t.sin());
    let inf = R::INFINITY;
    let re = if b.abs() == inf || a == inf {
        inf
    } else if a == -inf {
        R::ZERO
    } else {
        r * cos
    };
    let im = if b.abs() == inf || a == -inf {
        inf.copysign(b)
    } else if r.is_nan() {
        R::NAN
    } else if sin == R::ZERO {
        sin
    } else {
        r * sin
    };
    cx(re, im)
}

/// `rsqrt(|z|)·(cos(−t/2) + i·sin(−t/2))`, `t = atan2(im, re)`.
fn rsqrt<R: Real>(z: Cx<R>) -> Cx<R> {
    let (a, b) = (z.re, z.im);
    if a == R::ZERO && b == R::ZERO {
        return cx(R::INFINITY, R::NAN);
    }
    let (min, max, s) = abs_parts(z, true);
    let r = R::ONE / max.sqrt() * (R::ONE / s.sqrt());
    let r = if r.is_nan() { R::ONE / min.sqrt() } else { r };
    let t = -(b.atan2(a) * R::HALF);
    let inf = R::INFINITY;
    if (b.abs() == inf && a.is_nan()) || a.abs() == inf {
        return cx(R::ZERO.copysign(a), -R::ZERO.copysign(b));
    }
    cx(r * t.cos(), r * t.sin())
}

fn cos<R: Real>(z: Cx<R>) -> Cx<R> {
    let e = z.im.exp();
    let (half_e, half_inv) = (R::HALF * e, R::HALF / e);
    cx(
        z.re.cos() * (half_inv + half_e),
        z.re.sin() * (half_inv - half_e),
    )
}

fn sin<R: Real>(z: Cx<R>) -> Cx<R> {
    let e = z.im.exp();
    let (half_e, half_inv) = (R::HALF * e, R::HALF / e);
    cx(
        z.re.sin() * (half_e + half_inv),
        z.re.cos() * (half_e - half_inv),
    )
}

/// `(e^2a − e^−2a + 2i·sin 2b) / (e^2a + e^−2a + 2 cos 2b)`, evaluated
/// with `expm1` and the limits `±1` for large `|a|`.
fn tanh<R: Real>(z: Cx<R>) -> Cx<R> {
    let (a, b) = (z.re, z.im);
    let two_a = a + a;
    let (em, en) = (two_a.expm1(), (-two_a).expm1());
    let real_numerator = em - en;
    let (cos_b, sin_b) = (b.cos(), b.sin());
    let four = R::TWO * R::TWO;
    let denom_cos = cos_b * cos_b * four;
    let imag_numerator = four * (cos_b * sin_b);
    let a_sq = a * a;
    let small: R = R::ONE / (R::from_f64(1e8));
    let exp_sum_m2 = if a_sq < small { a_sq } else { em + en };
    let denom = exp_sum_m2 + denom_cos;
    let inf = R::INFINITY;
    let mut re = if exp_sum_m2 == inf {
        R::ONE.copysign(a)
    } else {
        real_numerator / denom
    };
    let mut im = imag_numerator / denom;
    let a_is_inf = a.abs() == inf;
    let sin_2b_nan = imag_numerator.is_nan();
    if sin_2b_nan && !a_is_inf {
        re = R::NAN;
    }
    if b == R::ZERO || (a_is_inf && sin_2b_nan) {
        im = R::ZERO;
    }
    cx(re, im)
}

/// `tan(z) = −i·tanh(i·z)`.
fn tan<R: Real>(z: Cx<R>) -> Cx<R> {
    let t = tanh(cx(-z.im, z.re));
    cx(t.im, -t.re)
}

fn logistic<R: Real>(z: Cx<R>) -> Cx<R> {
    let one = cx(R::ONE, R::ZERO);
    div(one, add(one, exp(cx(-z.re, -z.im))))
}

/// `z / |z|`, `0 → 0`.
fn sign<R: Real>(z: Cx<R>) -> Cx<R> {
    let r = abs(z);
    if r == R::ZERO {
        cx(R::ZERO, R::ZERO)
    } else {
        cx(z.re / r, z.im / r)
    }
}

/// `(a+bi)^(c+di) = r^c · e^(−d·t) · (cos q + i sin q)` with `r = |a+bi|`
/// (`hypot`, so that neither `a² + b²` overflows for a base beyond
/// `sqrt(MAX)` nor underflows for a tiny one), `t = atan2(b, a)` and
/// `q = c·t + d·ln r`; `0^0 = 1`, and `0^c = 0` for real `c > 0`.
fn pow<R: Real>(x: Cx<R>, y: Cx<R>) -> Cx<R> {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    let r = a.hypot(b);
    if r == R::ZERO && d == R::ZERO && c >= R::ZERO {
        return cx(if c == R::ZERO { R::ONE } else { R::ZERO }, R::ZERO);
    }
    let t = b.atan2(a);
    let coeff = r.pow(c) * (-d * t).exp();
    let q = c * t + d * r.ln();
    cx(coeff * q.cos(), coeff * q.sin())
}

/// `atan2(y, x) = −i·log((x + i·y) / sqrt(x² + y²))`.
fn atan2<R: Real>(y: Cx<R>, x: Cx<R>) -> Cx<R> {
    let root = sqrt(add(mul(x, x), mul(y, y)));
    let x_plus_iy = add(x, cx(-y.im, y.re));
    let l = log(div(x_plus_iy, root));
    cx(l.im, -l.re)
}

/// `f` on flushed components, with a flushed result.
#[inline]
fn flushed<R: Real>(z: Cx<R>, f: fn(Cx<R>) -> Cx<R>) -> Cx<R> {
    ftz(f(ftz(z)))
}

#[inline]
fn flushed2<R: Real>(a: Cx<R>, b: Cx<R>, f: fn(Cx<R>, Cx<R>) -> Cx<R>) -> Cx<R> {
    ftz(f(ftz(a), ftz(b)))
}

/// The complex → complex unary function `op`; `None` for the ops that are
/// not defined on complex values or that produce a real value (`abs`,
/// `real`, `imag`: see [`to_real`]).
pub(super) fn unary<R: Real>(op: Opcode) -> Option<fn(Cx<R>) -> Cx<R>> {
    use Opcode::*;
    Some(match op {
        Negate => |z: Cx<R>| cx(-z.re, -z.im),
        Exp => |z| flushed(z, exp),
        Expm1 => |z| flushed(z, expm1),
        Log => |z| flushed(z, log),
        Log1p => |z| flushed(z, log1p),
        Sqrt => |z| flushed(z, sqrt),
        Rsqrt => |z| flushed(z, rsqrt),
        Cos => |z| flushed(z, cos),
        Sin => |z| flushed(z, sin),
        Tan => |z| flushed(z, tan),
        Tanh => |z| flushed(z, tanh),
        Logistic => |z| flushed(z, logistic),
        Sign => |z| flushed(z, sign),
        _ => return None,
    })
}

/// The complex → component unary function `op`: `abs`, `real`, `imag`.
pub(super) fn to_real<R: Real>(op: Opcode) -> Option<fn(Cx<R>) -> R> {
    Some(match op {
        Opcode::Abs => abs,
        Opcode::Real => |z: Cx<R>| z.re,
        Opcode::Imag => |z: Cx<R>| z.im,
        _ => return None,
    })
}

/// The binary function `op` on complex values.
pub(super) fn binary<R: Real>(op: Opcode) -> Option<Fn2<Cx<R>>> {
    use Opcode::*;
    Some(match op {
        Add => |a, b| flushed2(a, b, add),
        Subtract => |a, b| flushed2(a, b, sub),
        Multiply => |a, b| flushed2(a, b, mul),
        Divide => |a, b| flushed2(a, b, div),
        Power => |a, b| flushed2(a, b, pow),
        Atan2 => |a, b| flushed2(a, b, atan2),
        _ => return None,
    })
}

/// `EQ`/`NE` on both components (flushed); `None` for the orderings.
pub(super) fn compare<R: Real>(direction: ComparisonDirection) -> Option<Cmp<Cx<R>>> {
    match direction {
        ComparisonDirection::Eq => Some(|a, b| {
            let (a, b) = (ftz(a), ftz(b));
            a.re == b.re && a.im == b.im
        }),
        ComparisonDirection::Ne => Some(|a, b| {
            let (a, b) = (ftz(a), ftz(b));
            a.re != b.re || a.im != b.im
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        let (a, b) = (cx(1.0f64, 2.0), cx(3.0, -4.0));
        assert_eq!(mul(a, b), cx(11.0, 2.0));
        assert_eq!(div(cx(11.0, 2.0), b), a);
        assert_eq!(
            div(cx(1.0f64, 1.0), cx(0.0, 0.0)),
            cx(f64::INFINITY, f64::INFINITY)
        );
        let z = div(cx(1.0f64, 1.0), cx(f64::INFINITY, 0.0));
        assert_eq!((z.re, z.im), (0.0, 0.0));
        assert_eq!(abs(cx(3.0f32, -4.0)), 5.0);
        assert_eq!(abs(cx(f32::INFINITY, 1.0)), f32::INFINITY);
        assert_eq!(abs(cx(0.0f32, 0.0)), 0.0);
        assert_eq!(sign(cx(3.0f64, -4.0)), cx(0.6, -0.8));
        assert_eq!(sign(cx(0.0f64, 0.0)), cx(0.0, 0.0));
        assert_eq!(pow(cx(0.0f64, 0.0), cx(0.0, 0.0)), cx(1.0, 0.0));
        let s = sqrt(cx(-4.0f64, 0.0));
        assert!((s.re).abs() < 1e-15 && (s.im - 2.0).abs() < 1e-15);
    }

    /// Both parts within 1e-6 relative.
    fn near(got: Cx<f32>, want: Cx<f32>) -> bool {
        let close = |g: f32, w: f32| (g - w).abs() <= 1e-6 * w.abs();
        close(got.re, want.re) && close(got.im, want.im)
    }

    /// The special and extreme values where XLA's results (JAX 0.10.2 on
    /// CPU) differ from the textbook formulas.
    #[test]
    fn extremes_as_xla() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        assert!(abs(cx(inf, nan)).is_nan() && abs(cx(nan, -inf)).is_nan());
        assert_eq!(abs(cx(inf, 1.0)), inf);
        // A base beyond sqrt(f32::MAX): a² + b² would overflow.
        let p = pow(cx(1e20f32, 0.0), cx(-1.0, 0.5));
        assert!(near(p, cx(-5.107_823_3e-21, -8.597_1e-21)), "{p}");
        let p = pow(cx(1e20f32, 1e20), cx(0.5, 0.0));
        assert!(near(p, cx(1.098_684_1e10, 4.550_899e9)), "{p}");
        let p = pow(cx(1e300f64, 0.0), cx(-1.0, 0.5));
        assert!((p.re - 9.824_867_42e-301).abs() < 1e-309, "{p}");
        // A tiny one: a² + b² would underflow to a zero base.
        assert!(near(pow(cx(1e-30f32, 0.0), cx(0.5, 0.0)), cx(1e-15, 0.0)));
        // exp and expm1 keep a zero imaginary part.
        assert_eq!(exp(cx(100.0f32, 0.0)), cx(inf, 0.0));
        assert_eq!(exp(cx(inf, 0.0f32)), cx(inf, 0.0));
        let e = exp(cx(nan, 0.0f32));
        assert!(e.re.is_nan() && e.im == 0.0);
        assert_eq!(expm1(cx(100.0f32, 0.0)), cx(inf, 0.0));
        assert_eq!(expm1(cx(-inf, 0.0f32)), cx(-1.0, 0.0));
        // exp beyond the overflow threshold, with a factor that brings the
        // product back.
        let e = exp(cx(89.0f32, 1e-30));
        assert!(
            e.re == inf && near(cx(0.0, e.im), cx(0.0, 4.489_612_8e8)),
            "{e}"
        );
        // expm1 near zero keeps the real part's precision.
        assert!(near(expm1(cx(1e-8f32, 1e-8)), cx(1e-8, 1e-8)));
        let m = expm1(cx(1.0f32, inf));
        assert!(m.re.is_nan() && m.im.is_nan());
    }
}
