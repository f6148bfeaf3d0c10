//! Floating-point semantics on the compute types `f32` and `f64`
//! (`docs/semantics.md`, *Element-wise arithmetic*, *Comparisons*, *Unary functions*). `f16` and
//! `bf16` are computed in `f32` (see [`super::table`]).
//!
//! **Subnormals** (project rule, flush-to-zero and denormals-are-zero): every
//! computation reads a subnormal input as a zero of the same sign and
//! replaces a subnormal result by a zero of the same sign ([`Real::ftz`]).
//! `Neg`, `Abs`, `Real` keep bit patterns, and the total-order comparison
//! works on bit patterns, so none of them flush.
//!
//! Transcendental functions come from the `libm` crate, so results do not
//! depend on the platform's C library.

use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

use crate::hlo::ComparisonDirection;
use crate::hlo::Opcode;

/// `f32` or `f64`: the operations the element-wise table needs.
pub(crate) trait Real:
    Copy
    + PartialOrd
    + Default
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
    const TWO: Self;
    const INFINITY: Self;
    const NAN: Self;
    /// The smallest positive normal value.
    const MIN_POSITIVE: Self;

    fn abs(self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_finite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn round_ties_even(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn expm1(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn tanh(self) -> Self;
    fn cbrt(self) -> Self;
    fn erf(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn hypot(self, y: Self) -> Self;
    fn pow(self, y: Self) -> Self;
    /// The nearest value to `v` (rounded to nearest even).
    fn from_f64(v: f64) -> Self;
    /// The total-order key of `docs/semantics.md`, *Comparisons*: the bits as a signed
    /// integer, with every bit but the sign flipped for negative values.
    fn total_order_key(self) -> i64;

    /// A subnormal value replaced by a zero of the same sign; other values
    /// (NaN included) unchanged.
    #[inline]
    fn ftz(self) -> Self {
        if self.abs() < Self::MIN_POSITIVE {
            Self::ZERO.copysign(self)
        } else {
            self
        }
    }
}

macro_rules! real {
    ($t:ty, $bits:ty, $atan2:path, $pow:path, $hypot:path, { $($name:ident => $libm:path),* $(,)? }) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            const TWO: Self = 2.0;
            const INFINITY: Self = <$t>::INFINITY;
            const NAN: Self = <$t>::NAN;
            const MIN_POSITIVE: Self = <$t>::MIN_POSITIVE;

            #[inline] fn abs(self) -> Self { <$t>::abs(self) }
            #[inline] fn copysign(self, sign: Self) -> Self { <$t>::copysign(self, sign) }
            #[inline] fn is_nan(self) -> bool { <$t>::is_nan(self) }
            #[inline] fn is_finite(self) -> bool { <$t>::is_finite(self) }
            #[inline] fn is_sign_negative(self) -> bool { <$t>::is_sign_negative(self) }
            #[inline] fn floor(self) -> Self { <$t>::floor(self) }
            #[inline] fn ceil(self) -> Self { <$t>::ceil(self) }
            #[inline] fn round(self) -> Self { <$t>::round(self) }
            #[inline] fn round_ties_even(self) -> Self { <$t>::round_ties_even(self) }
            #[inline] fn sqrt(self) -> Self { <$t>::sqrt(self) }
            $(#[inline] fn $name(self) -> Self { $libm(self) })*
            #[inline] fn atan2(self, x: Self) -> Self { $atan2(self, x) }
            #[inline] fn pow(self, y: Self) -> Self { $pow(self, y) }
            #[inline] fn hypot(self, y: Self) -> Self { $hypot(self, y) }
            #[inline] fn from_f64(v: f64) -> Self { v as $t }
            #[inline]
            fn total_order_key(self) -> i64 {
                let b = self.to_bits() as $bits;
                i64::from(if b < 0 { b ^ <$bits>::MAX } else { b })
            }
        }
    };
}

real!(f32, i32, libm::atan2f, libm::powf, libm::hypotf, {
    exp => libm::expf, expm1 => libm::expm1f, ln => libm::logf, ln_1p => libm::log1pf,
    sin => libm::sinf, cos => libm::cosf, tan => libm::tanf, tanh => libm::tanhf,
    cbrt => libm::cbrtf, erf => libm::erff,
});
real!(f64, i64, libm::atan2, libm::pow, libm::hypot, {
    exp => libm::exp, expm1 => libm::expm1, ln => libm::log, ln_1p => libm::log1p,
    sin => libm::sin, cos => libm::cos, tan => libm::tan, tanh => libm::tanh,
    cbrt => libm::cbrt, erf => libm::erf,
});

/// `f(x)` on the flushed input, with the result flushed.
#[inline]
fn flushed<F: Real>(x: F, f: fn(F) -> F) -> F {
    f(x.ftz()).ftz()
}

/// `f(a, b)` on flushed inputs, with the result flushed.
#[inline]
fn flushed2<F: Real>(a: F, b: F, f: fn(F, F) -> F) -> F {
    f(a.ftz(), b.ftz()).ftz()
}

/// The unary function `op` on a real floating type; `None` where the op is
/// not a same-type float function (`is-finite`, the integer ops).
pub(super) fn unary<F: Real>(op: Opcode) -> Option<fn(F) -> F> {
    use Opcode::*;
    Some(match op {
        Abs => F::abs,
        Negate => |x: F| -x,
        Real => |x| x,
        Imag => |_| F::ZERO,
        Ceil => |x| flushed(x, F::ceil),
        Floor => |x| flushed(x, F::floor),
        RoundNearestAfz => |x| flushed(x, F::round),
        RoundNearestEven => |x| flushed(x, F::round_ties_even),
        Sqrt => |x| flushed(x, F::sqrt),
        Rsqrt => |x| flushed(x, |x| F::ONE / x.sqrt()),
        Cbrt => |x| flushed(x, F::cbrt),
        Exp => |x| flushed(x, F::exp),
        Expm1 => |x| flushed(x, F::expm1),
        Log => |x| flushed(x, F::ln),
        Log1p => |x| flushed(x, F::ln_1p),
        Logistic => |x| flushed(x, logistic),
        Sin => |x| flushed(x, F::sin),
        Cos => |x| flushed(x, F::cos),
        Tan => |x| flushed(x, F::tan),
        Tanh => |x| flushed(x, F::tanh),
        Erf => |x| flushed(x, F::erf),
        Sign => |x| sign(x.ftz()),
        _ => return None,
    })
}

/// `1 / (1 + e^−x)`.
#[inline]
fn logistic<F: Real>(x: F) -> F {
    F::ONE / (F::ONE + (-x).exp())
}

/// `−1`, `−0`, `+0`, `1` or NaN (the input NaN).
#[inline]
pub(super) fn sign<F: Real>(x: F) -> F {
    if x.is_nan() || x == F::ZERO {
        x
    } else {
        F::ONE.copysign(x)
    }
}

/// The binary function `op` on a real floating type; `None` where it is
/// not defined (bitwise ops, shifts, `complex`).
pub(super) fn binary<F: Real>(op: Opcode) -> Option<fn(F, F) -> F> {
    use Opcode::*;
    Some(match op {
        Add => |a, b| flushed2(a, b, |a, b| a + b),
        Subtract => |a, b| flushed2(a, b, |a, b| a - b),
        Multiply => |a, b| flushed2(a, b, |a, b| a * b),
        Divide => |a, b| flushed2(a, b, |a, b| a / b),
        Remainder => |a, b| flushed2(a, b, |a, b| a % b),
        Power => |a, b| flushed2(a, b, F::pow),
        Atan2 => |a, b| flushed2(a, b, F::atan2),
        Maximum => |a, b| max(a.ftz(), b.ftz()),
        Minimum => |a, b| min(a.ftz(), b.ftz()),
        _ => return None,
    })
}

/// NaN if either is NaN (the first NaN); otherwise the larger, with
/// `−0 < +0`.
#[inline]
pub(super) fn max<F: Real>(a: F, b: F) -> F {
    if a.is_nan() {
        a
    } else if b.is_nan() || b > a || (b == a && a.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// NaN if either is NaN (the first NaN); otherwise the smaller, with
/// `−0 < +0`.
#[inline]
pub(super) fn min<F: Real>(a: F, b: F) -> F {
    if a.is_nan() {
        a
    } else if b.is_nan() || b < a || (b == a && b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// The IEEE comparison on flushed inputs (NaN is unordered: only `NE`
/// holds).
pub(super) fn compare<F: Real>(direction: ComparisonDirection) -> fn(F, F) -> bool {
    use ComparisonDirection::*;
    match direction {
        Eq => |a: F, b: F| a.ftz() == b.ftz(),
        Ne => |a: F, b: F| a.ftz() != b.ftz(),
        Lt => |a: F, b: F| a.ftz() < b.ftz(),
        Le => |a: F, b: F| a.ftz() <= b.ftz(),
        Gt => |a: F, b: F| a.ftz() > b.ftz(),
        Ge => |a: F, b: F| a.ftz() >= b.ftz(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_min_nan_and_signed_zeros() {
        let (p, n) = (0.0f32, -0.0f32);
        for (a, b) in [(p, n), (n, p)] {
            assert!(max(a, b).is_sign_positive() && max(a, b) == 0.0);
            assert!(min(a, b).is_sign_negative() && min(a, b) == 0.0);
        }
        assert!(max(f32::NAN, 1.0).is_nan() && max(1.0, f32::NAN).is_nan());
        assert!(min(f32::NAN, 1.0).is_nan() && min(1.0, f32::NAN).is_nan());
        assert_eq!(max(1.0f64, 2.0), 2.0);
        assert_eq!(min(1.0f64, 2.0), 1.0);
        assert_eq!(max(-3.0f32, -2.0), -2.0);
    }

    #[test]
    fn total_order_keys_follow_the_spec_bit_patterns() {
        let bits = [
            0xFFC0_0000u32,
            0xFF80_0000,
            0xBF80_0000,
            0x8000_0000,
            0x0000_0000,
            0x3F80_0000,
            0x7F80_0000,
            0x7FC0_0000,
        ];
        for w in bits.windows(2) {
            let (a, b) = (f32::from_bits(w[0]), f32::from_bits(w[1]));
            assert!(
                a.total_order_key() < b.total_order_key(),
                "{:x} {:x}",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn flush_to_zero_keeps_the_sign() {
        assert_eq!((-1e-40f32).ftz().to_bits(), 0x8000_0000);
        assert_eq!(1e-40f32.ftz().to_bits(), 0);
        assert_eq!(1e-300f64.ftz(), 1e-300);
        assert!(f32::NAN.ftz().is_nan());
        assert_eq!(
            unary::<f32>(Opcode::Floor).unwrap()(-1e-40).to_bits(),
            0x8000_0000
        );
        assert_eq!(binary::<f32>(Opcode::Multiply).unwrap()(1e-20, 1e-20), 0.0);
    }
}
