//! Dimension sizes: concrete (`i64`) or symbolic.
//!
//! Shape inference is written once, generic over [`Dim`], so that the
//! `XlaBuilder` runs it on concrete sizes and the `xla!` macro runs the very
//! same rules on symbolic sizes such as `B * N` at compile time.

use crate::arith::ceil_div;
use std::cmp::Ordering;
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// A dimension size: an `i64`, or a symbolic expression over named sizes.
///
/// Arithmetic is exact, except that `i64` saturates at the ends of its
/// range: a size that overflows stays beyond every buffer the layout and
/// memory checks accept, instead of wrapping into a small, valid-looking
/// size (a pad of `i64::MAX` on each side is not `-2` wide). Comparisons
/// answer only what is *known*: for a
/// symbolic size, `B < B + 1` is known but `B < N` is not, and a rule that
/// cannot decide must not report an error (the builder re-checks it with
/// concrete sizes at run time).
pub trait Dim: Clone + PartialEq + Eq + Hash + Debug + Display + Send + Sync + 'static {
    /// Text placed between the dimensions of a shape when it is printed:
    /// `","` for concrete shapes (XLA's `f32[2,3]`), `", "` for symbolic ones
    /// (`f32[B, N]`).
    const SEPARATOR: &'static str;

    /// A known constant size.
    fn constant(value: i64) -> Self;

    /// The value, if it is a known constant.
    fn as_const(&self) -> Option<i64>;

    /// `self + other`.
    fn add(&self, other: &Self) -> Self;

    /// `self - other`.
    fn sub(&self, other: &Self) -> Self;

    /// `self * other`.
    fn mul(&self, other: &Self) -> Self;

    /// `self / divisor` when the division is known to be exact; `None` when it
    /// is not, or cannot be expressed.
    fn exact_div(&self, divisor: &Self) -> Option<Self>;

    /// `⌊self / divisor⌋` for a positive constant divisor; `None` when the
    /// result cannot be expressed (a symbolic size not divisible by it).
    fn floor_div(&self, divisor: i64) -> Option<Self>;

    /// The ordering of `self` and `other` when it is known.
    fn known_cmp(&self, other: &Self) -> Option<Ordering>;

    /// `self` is known to be the constant `value`.
    fn is(&self, value: i64) -> bool {
        self.as_const() == Some(value)
    }

    /// `self` is known to be less than `other`.
    fn known_lt(&self, other: &Self) -> bool {
        self.known_cmp(other) == Some(Ordering::Less)
    }

    /// `self` is known to be greater than `other`.
    fn known_gt(&self, other: &Self) -> bool {
        self.known_cmp(other) == Some(Ordering::Greater)
    }

    /// `self` is known to differ from `other`.
    fn known_ne(&self, other: &Self) -> bool {
        matches!(
            self.known_cmp(other),
            Some(Ordering::Less | Ordering::Greater)
        )
    }

    /// `⌈self / divisor⌉` for a positive constant divisor, when expressible.
    fn ceil_div(&self, divisor: i64) -> Option<Self> {
        self.add(&Self::constant(divisor - 1)).floor_div(divisor)
    }
}

impl Dim for i64 {
    const SEPARATOR: &'static str = ",";

    fn constant(value: i64) -> Self {
        value
    }

    fn as_const(&self) -> Option<i64> {
        Some(*self)
    }

    fn add(&self, other: &Self) -> Self {
        self.saturating_add(*other)
    }

    fn sub(&self, other: &Self) -> Self {
        self.saturating_sub(*other)
    }

    fn mul(&self, other: &Self) -> Self {
        self.saturating_mul(*other)
    }

    fn exact_div(&self, divisor: &Self) -> Option<Self> {
        if *divisor == 0 || self % divisor != 0 {
            None
        } else {
            Some(self / divisor)
        }
    }

    fn floor_div(&self, divisor: i64) -> Option<Self> {
        (divisor > 0).then(|| self.div_euclid(divisor))
    }

    fn ceil_div(&self, divisor: i64) -> Option<Self> {
        (divisor > 0).then(|| ceil_div(*self, divisor))
    }

    fn known_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concrete_arithmetic() {
        assert_eq!(7i64.ceil_div(2), Some(4));
        assert_eq!(8i64.ceil_div(2), Some(4));
        assert_eq!(0i64.ceil_div(3), Some(0));
        assert_eq!((-7i64).ceil_div(4), Some(-1));
        assert_eq!(i64::MAX.ceil_div(2), Some(i64::MAX / 2 + 1));
        assert_eq!(i64::MAX.ceil_div(1), Some(i64::MAX));
        assert_eq!(7i64.ceil_div(0), None);
        assert_eq!(12i64.exact_div(&4), Some(3));
        assert_eq!(12i64.exact_div(&5), None);
        assert!(3i64.known_lt(&4));
        assert!(!3i64.known_ne(&3));
        // Overflow saturates (fuzzing found a pad of i64::MAX on each side
        // wrapping to a small size that verified).
        assert_eq!(i64::MAX.add(&i64::MAX), i64::MAX);
        assert_eq!(i64::MIN.sub(&1), i64::MIN);
        assert_eq!((1i64 << 62).mul(&4), i64::MAX);
        assert_eq!((1i64 << 62).mul(&-4), i64::MIN);
    }
}
