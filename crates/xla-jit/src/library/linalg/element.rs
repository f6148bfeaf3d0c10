//! The element types the routines compute in: [`Float`] (`f32`, `f64`)
//! and [`Element`] (those and their complex numbers), as faer takes them.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use faer::traits::ComplexField;
use num_complex::Complex;

/// The real numbers of an [`Element`]: `f32` or `f64`.
pub(crate) trait Float:
    Copy
    + PartialOrd
    + Debug
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + SubAssign
{
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// A NaN.
    const NAN: Self;
    /// The smallest positive normal number.
    const MIN_POSITIVE: Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// `√(self² + other²)` without overflow.
    fn hypot(self, other: Self) -> Self;
    /// NaN.
    fn is_nan(self) -> bool;
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// The sign bit is set (`−0` included).
    fn is_sign_negative(self) -> bool;
}

macro_rules! float {
    ($t:ident) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const NAN: Self = $t::NAN;
            const MIN_POSITIVE: Self = $t::MIN_POSITIVE;
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            fn hypot(self, other: Self) -> Self {
                $t::hypot(self, other)
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
            fn is_sign_negative(self) -> bool {
                $t::is_sign_negative(self)
            }
        }
    };
}

float!(f32);
float!(f64);

/// A matrix element: `f32`, `f64`, `Complex<f32>` or `Complex<f64>`,
/// which faer computes with.
pub(crate) trait Element:
    ComplexField<Real: Float>
    + Copy
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// The complex conjugate (the identity for reals).
    fn conj(self) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part (0 for reals).
    fn im(self) -> Self::Real;
    /// A real number.
    fn real(x: Self::Real) -> Self;
    /// The modulus `|x|`.
    fn modulus(self) -> Self::Real;
    /// `|re| + |im|`, which LAPACK's `i?amax` ranks pivots by.
    fn abs1(self) -> Self::Real;

    /// `0`.
    fn zero() -> Self {
        Self::real(Self::Real::ZERO)
    }

    /// `1`.
    fn one() -> Self {
        Self::real(Self::Real::ONE)
    }

    /// A NaN (its real part; the imaginary part is 0).
    fn nan() -> Self {
        Self::real(Self::Real::NAN)
    }

    /// A NaN real or imaginary part.
    fn has_nan(self) -> bool {
        self.re().is_nan() || self.im().is_nan()
    }

    /// Finite real and imaginary parts.
    fn finite(self) -> bool {
        self.re().is_finite() && self.im().is_finite()
    }
}

macro_rules! real_element {
    ($t:ident) => {
        impl Element for $t {
            fn conj(self) -> Self {
                self
            }
            fn re(self) -> Self {
                self
            }
            fn im(self) -> Self {
                0.0
            }
            fn real(x: Self) -> Self {
                x
            }
            fn modulus(self) -> Self {
                $t::abs(self)
            }
            fn abs1(self) -> Self {
                $t::abs(self)
            }
        }
    };
}

macro_rules! complex_element {
    ($t:ident) => {
        impl Element for Complex<$t> {
            fn conj(self) -> Self {
                Complex::conj(&self)
            }
            fn re(self) -> $t {
                self.re
            }
            fn im(self) -> $t {
                self.im
            }
            fn real(x: $t) -> Self {
                Complex::new(x, 0.0)
            }
            fn modulus(self) -> $t {
                self.re.hypot(self.im)
            }
            fn abs1(self) -> $t {
                self.re.abs() + self.im.abs()
            }
        }
    };
}

real_element!(f32);
real_element!(f64);
complex_element!(f32);
complex_element!(f64);
