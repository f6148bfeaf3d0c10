//! Dot and convolution accumulation per element type (`docs/semantics.md`,
//! *Accumulation in dot and convolution*): integers wrap in their own type; `f32` accumulates in
//! `f32` and `f64` in `f64`, every product and partial sum flushed like any
//! `f32`/`f64` computation; `f16`/`bf16` products accumulate in `f32` and
//! the sum is rounded once; complex values accumulate in their component
//! type; `pred` is an or of ands.

use half::{bf16, f16};

use super::super::elementwise::float::Real;
use crate::{NativeType, C128, C64};

/// An element type's dot accumulation in its accumulator type.
pub(super) trait MulAdd: NativeType {
    type Acc: Copy;
    const ZERO: Self::Acc;
    fn mul(a: Self, b: Self) -> Self::Acc;
    fn mul_add(acc: Self::Acc, a: Self, b: Self) -> Self::Acc;
    fn finish(acc: Self::Acc) -> Self;

    /// `true` if, when every operand value passes, no product or partial
    /// sum can be subnormal, so [`MulAdd::mul_add_exact`] may replace
    /// [`MulAdd::mul_add`].
    fn never_subnormal(_x: Self) -> bool {
        false
    }

    /// `mul_add` without flushing, for operands that pass
    /// [`MulAdd::never_subnormal`].
    fn mul_add_exact(acc: Self::Acc, a: Self, b: Self) -> Self::Acc {
        Self::mul_add(acc, a, b)
    }
}

/// Whether `x` is zero, not finite, or at least `bound` in magnitude, with
/// `bound = 2^⌈(e + m)/2⌉` for a type whose smallest normal is `2^e` and
/// which has `m` fraction bits. If every operand is, every nonzero product
/// is at least `2^(e + m)`, so its ulp is at least `2^e`: products and all
/// partial sums are multiples of `2^e` (a sum below `2^(e + m + 1)` is
/// exact, a larger one rounds to a multiple), hence zero or normal, and
/// nothing would be flushed.
///
/// Example (f32, `e = −126`, `m = 23`): operands of magnitude ≥ 2⁻⁵¹.
#[inline]
fn large_enough<R: Real>(x: R, bound: R) -> bool {
    x == R::ZERO || !x.is_finite() || x.abs() >= bound
}

macro_rules! wrapping {
    ($($t:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = $t;
            const ZERO: $t = 0;
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                a.wrapping_mul(b)
            }
            #[inline]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                acc.wrapping_add(a.wrapping_mul(b))
            }
            #[inline]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}

wrapping!(i8, i16, i32, i64, u8, u16, u32, u64);

impl MulAdd for bool {
    type Acc = bool;
    const ZERO: bool = false;
    #[inline]
    fn mul(a: bool, b: bool) -> bool {
        a & b
    }
    #[inline]
    fn mul_add(acc: bool, a: bool, b: bool) -> bool {
        acc | (a & b)
    }
    #[inline]
    fn finish(acc: bool) -> bool {
        acc
    }
}

/// `a·b` on flushed inputs, flushed.
#[inline]
fn real_mul<R: Real>(a: R, b: R) -> R {
    (a.ftz() * b.ftz()).ftz()
}

/// `acc + a·b` with the product and the sum flushed.
#[inline]
fn real_mul_add<R: Real>(acc: R, a: R, b: R) -> R {
    (acc + real_mul(a, b)).ftz()
}

macro_rules! real {
    ($($t:ty: $bound:expr),*) => {$(
        impl MulAdd for $t {
            type Acc = $t;
            const ZERO: $t = 0.0;
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                real_mul(a, b)
            }
            #[inline]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                real_mul_add(acc, a, b)
            }
            #[inline]
            fn finish(acc: $t) -> $t {
                acc
            }
            #[inline]
            fn never_subnormal(x: $t) -> bool {
                large_enough(x, $bound)
            }
            #[inline]
            fn mul_add_exact(acc: $t, a: $t, b: $t) -> $t {
                acc + a * b
            }
        }
    )*};
}

// 2⁻⁵¹ (f32: e = −126, m = 23) and 2⁻⁴⁸⁵ (f64: e = −1022, m = 52).
real!(f32: f32::from_bits((127 - 51) << 23), f64: f64::from_bits((1023 - 485) << 52));

macro_rules! half {
    ($($t:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = f32;
            const ZERO: f32 = 0.0;
            #[inline]
            fn mul(a: $t, b: $t) -> f32 {
                real_mul(a.to_f32(), b.to_f32())
            }
            #[inline]
            fn mul_add(acc: f32, a: $t, b: $t) -> f32 {
                real_mul_add(acc, a.to_f32(), b.to_f32())
            }
            #[inline]
            fn finish(acc: f32) -> $t {
                <$t>::from_f32(acc)
            }
            #[inline]
            fn never_subnormal(x: $t) -> bool {
                f32::never_subnormal(x.to_f32())
            }
            #[inline]
            fn mul_add_exact(acc: f32, a: $t, b: $t) -> f32 {
                acc + a.to_f32() * b.to_f32()
            }
        }
    )*};
}

half!(f16, bf16);

macro_rules! complex {
    ($($t:ty: $r:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = $t;
            const ZERO: $t = <$t>::new(0.0, 0.0);
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                let re = real_mul_add(real_mul(a.re, b.re), -a.im, b.im);
                let im = real_mul_add(real_mul(a.re, b.im), a.im, b.re);
                <$t>::new(re, im)
            }
            #[inline]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                let re = real_mul_add(real_mul_add(acc.re, a.re, b.re), -a.im, b.im);
                let im = real_mul_add(real_mul_add(acc.im, a.re, b.im), a.im, b.re);
                <$t>::new(re, im)
            }
            #[inline]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}

complex!(C64: f32, C128: f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unflushed_accumulation_is_exact_above_the_bound() {
        // Values at and near the f32 bound 2⁻⁵¹, whose products (≥ 2⁻¹⁰²)
        // and differences come closest to the subnormal range.
        let b = 2f32.powi(-51);
        let ulp = 2f32.powi(-23);
        let values = [
            b,
            -b,
            b * (1.0 + ulp),
            -b * (1.0 + ulp),
            b * 1.5,
            -b * (1.0 + 2.0 * ulp),
            1.0,
            0.0,
        ];
        assert!(values.iter().all(|&x| f32::never_subnormal(x)));
        assert!(!f32::never_subnormal(b / 2.0));
        for &acc in &values {
            for &x in &values {
                for &y in &values {
                    let acc = acc * b;
                    let (flushed, exact) = (
                        <f32 as MulAdd>::mul_add(acc, x, y),
                        f32::mul_add_exact(acc, x, y),
                    );
                    assert_eq!(flushed.to_bits(), exact.to_bits());
                }
            }
        }
        assert!(f64::never_subnormal(2f64.powi(-485)) && !f64::never_subnormal(2f64.powi(-486)));
    }
}
