//! Integer and `pred` semantics (`docs/semantics.md`, *Element-wise arithmetic*, *Comparisons*,
//! *Unary functions*).
//!
//! | case | rule |
//! |---|---|
//! | `add`, `sub`, `mul`, `neg`, `abs`, `pow` | two's-complement wrap-around (`abs(INT_MIN) = INT_MIN`) |
//! | `x / 0` | `−1` (all bits set: the maximum for unsigned types) |
//! | `INT_MIN / −1` | `INT_MIN` |
//! | `x rem 0` | `x` |
//! | `INT_MIN rem −1` | `0` |
//! | shifts | the amount is read as unsigned; amounts ≥ the bit width give `0` (left, logical) or the sign fill (arithmetic, which replicates the top bit for unsigned types too) |
//! | `pow(x, y < 0)` | `1` for `x = 1`, `±1` for `x = −1` (by the parity of `y`), else `0` |
//! | `pred` | `add`/`or`/`max` are or; `mul`/`and`/`min` are and; `xor`, `not` |

use crate::hlo::ComparisonDirection;
use crate::hlo::Opcode;

/// A fixed-width integer type: what the element-wise table needs.
pub(crate) trait Int: Copy + Ord + Default + Send + Sync + 'static {
    const BITS: u32;
    const SIGNED: bool;
    const ZERO: Self;
    const ONE: Self;
    /// All bits set: `−1` for signed types, the maximum for unsigned ones.
    const ALL_ONES: Self;

    fn wrapping_add(self, other: Self) -> Self;
    fn wrapping_sub(self, other: Self) -> Self;
    fn wrapping_mul(self, other: Self) -> Self;
    fn wrapping_neg(self) -> Self;
    fn wrapping_div(self, other: Self) -> Self;
    fn wrapping_rem(self, other: Self) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    fn not(self) -> Self;
    fn count_ones(self) -> u32;
    fn leading_zeros(self) -> u32;
    /// The bit pattern, zero-extended.
    fn to_bits(self) -> u64;
    /// The low `BITS` bits of `bits`.
    fn from_bits(bits: u64) -> Self;
}

macro_rules! int {
    ($($t:ty: $signed:expr),*) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const ALL_ONES: Self = !0;

            #[inline] fn wrapping_add(self, o: Self) -> Self { <$t>::wrapping_add(self, o) }
            #[inline] fn wrapping_sub(self, o: Self) -> Self { <$t>::wrapping_sub(self, o) }
            #[inline] fn wrapping_mul(self, o: Self) -> Self { <$t>::wrapping_mul(self, o) }
            #[inline] fn wrapping_neg(self) -> Self { <$t>::wrapping_neg(self) }
            #[inline] fn wrapping_div(self, o: Self) -> Self { <$t>::wrapping_div(self, o) }
            #[inline] fn wrapping_rem(self, o: Self) -> Self { <$t>::wrapping_rem(self, o) }
            #[inline] fn and(self, o: Self) -> Self { self & o }
            #[inline] fn or(self, o: Self) -> Self { self | o }
            #[inline] fn xor(self, o: Self) -> Self { self ^ o }
            #[inline] fn not(self) -> Self { !self }
            #[inline] fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            #[inline] fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            #[inline]
            fn to_bits(self) -> u64 {
                (self as u64) & (u64::MAX >> (64 - <$t>::BITS))
            }
            #[inline] fn from_bits(bits: u64) -> Self { bits as $t }
        }
    )*};
}

int!(i8: true, i16: true, i32: true, i64: true, u8: false, u16: false, u32: false, u64: false);

/// The unary function `op` on an integer type; `None` where it is not
/// defined (float functions; `abs`/`sign` of unsigned types).
pub(super) fn unary<I: Int>(op: Opcode) -> Option<fn(I) -> I> {
    use Opcode::*;
    Some(match op {
        Negate => I::wrapping_neg,
        Not => I::not,
        PopulationCount => |x: I| I::from_bits(x.count_ones().into()),
        Clz => |x: I| I::from_bits(x.leading_zeros().into()),
        Abs if I::SIGNED => |x: I| if x < I::ZERO { x.wrapping_neg() } else { x },
        Sign if I::SIGNED => |x: I| match x.cmp(&I::ZERO) {
            std::cmp::Ordering::Less => I::ALL_ONES,
            std::cmp::Ordering::Equal => I::ZERO,
            std::cmp::Ordering::Greater => I::ONE,
        },
        _ => return None,
    })
}

/// The binary function `op` on an integer type; `None` where it is not
/// defined (`atan2`, `complex`).
pub(super) fn binary<I: Int>(op: Opcode) -> Option<fn(I, I) -> I> {
    use Opcode::*;
    Some(match op {
        Add => I::wrapping_add,
        Subtract => I::wrapping_sub,
        Multiply => I::wrapping_mul,
        Divide => divide,
        Remainder => remainder,
        Maximum => std::cmp::max,
        Minimum => std::cmp::min,
        And => I::and,
        Or => I::or,
        Xor => I::xor,
        Power => power,
        ShiftLeft => shift_left,
        ShiftRightLogical => shift_right_logical,
        ShiftRightArithmetic => shift_right_arithmetic,
        _ => return None,
    })
}

/// Truncating division; `x / 0 = −1` (all ones), `INT_MIN / −1 = INT_MIN`.
#[inline]
fn divide<I: Int>(a: I, b: I) -> I {
    if b == I::ZERO {
        I::ALL_ONES
    } else {
        // wrapping_div gives INT_MIN for INT_MIN / −1.
        a.wrapping_div(b)
    }
}

/// Truncated remainder (sign of the dividend); `x rem 0 = x`,
/// `INT_MIN rem −1 = 0`.
#[inline]
fn remainder<I: Int>(a: I, b: I) -> I {
    if b == I::ZERO {
        a
    } else {
        a.wrapping_rem(b)
    }
}

/// `a^b` by squaring, wrapping. A negative exponent gives `1` for `a = 1`,
/// `(−1)^b` for `a = −1` and `0` otherwise.
#[inline]
fn power<I: Int>(a: I, b: I) -> I {
    if b < I::ZERO {
        return if a == I::ONE {
            I::ONE
        } else if a == I::ALL_ONES {
            // a = −1 (b < 0 implies a signed type).
            if b.to_bits() & 1 == 1 {
                I::ALL_ONES
            } else {
                I::ONE
            }
        } else {
            I::ZERO
        };
    }
    let (mut base, mut exponent, mut acc) = (a, b.to_bits(), I::ONE);
    while exponent != 0 {
        if exponent & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    acc
}

/// The shift amount read as an unsigned integer of the operand's width.
#[inline]
fn amount<I: Int>(b: I) -> u64 {
    b.to_bits()
}

#[inline]
fn shift_left<I: Int>(a: I, b: I) -> I {
    let n = amount(b);
    if n >= u64::from(I::BITS) {
        I::ZERO
    } else {
        I::from_bits(a.to_bits() << n)
    }
}

#[inline]
fn shift_right_logical<I: Int>(a: I, b: I) -> I {
    let n = amount(b);
    if n >= u64::from(I::BITS) {
        I::ZERO
    } else {
        I::from_bits(a.to_bits() >> n)
    }
}

/// Replicates the top bit (for unsigned types too: `u32 0x80000000 >>a 31 =
/// 0xFFFFFFFF`).
#[inline]
fn shift_right_arithmetic<I: Int>(a: I, b: I) -> I {
    let n = amount(b).min(u64::from(I::BITS) - 1);
    let unused = 64 - I::BITS;
    let extended = ((a.to_bits() << unused) as i64) >> unused;
    I::from_bits((extended >> n) as u64)
}

/// The comparison by value (signedness is the type's).
pub(super) fn compare<T: Copy + PartialOrd>(direction: ComparisonDirection) -> fn(T, T) -> bool {
    use ComparisonDirection::*;
    match direction {
        Eq => |a: T, b: T| a == b,
        Ne => |a: T, b: T| a != b,
        Lt => |a: T, b: T| a < b,
        Le => |a: T, b: T| a <= b,
        Gt => |a: T, b: T| a > b,
        Ge => |a: T, b: T| a >= b,
    }
}

/// The unary function `op` on `pred`: only `not`.
pub(super) fn pred_unary(op: Opcode) -> Option<fn(bool) -> bool> {
    match op {
        Opcode::Not => Some(|x: bool| !x),
        _ => None,
    }
}

/// The binary function `op` on `pred`.
pub(super) fn pred_binary(op: Opcode) -> Option<fn(bool, bool) -> bool> {
    use Opcode::*;
    Some(match op {
        Add | Or | Maximum => |a, b| a | b,
        Multiply | And | Minimum => |a, b| a & b,
        Xor => |a, b| a ^ b,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_project_rules() {
        assert_eq!(divide(7i32, 2), 3);
        assert_eq!(divide(-7i32, 2), -3);
        assert_eq!(divide(7i32, -2), -3);
        assert_eq!(divide(5i32, 0), -1);
        assert_eq!(divide(5u8, 0), 255);
        assert_eq!(divide(i32::MIN, -1), i32::MIN);
        assert_eq!(remainder(7i32, 3), 1);
        assert_eq!(remainder(-7i32, 3), -1);
        assert_eq!(remainder(7i32, -3), 1);
        assert_eq!(remainder(-7i32, -3), -1);
        assert_eq!(remainder(-7i32, 0), -7);
        assert_eq!(remainder(i64::MIN, -1), 0);
    }

    #[test]
    fn shifts() {
        assert_eq!(shift_left(1i32, 31), i32::MIN);
        assert_eq!(shift_left(1i32, 32), 0);
        assert_eq!(shift_left(1i32, -1), 0);
        assert_eq!(shift_right_logical(-1i8, 4), 0x0F);
        assert_eq!(shift_right_logical(-1i8, 8), 0);
        assert_eq!(shift_right_arithmetic(-128i8, 100), -1);
        assert_eq!(shift_right_arithmetic(64i8, -1), 0);
        assert_eq!(shift_right_arithmetic(0x8000_0000u32, 31), 0xFFFF_FFFF);
        assert_eq!(shift_right_arithmetic(0x8000_0000u32, 32), 0xFFFF_FFFF);
        assert_eq!(shift_right_arithmetic(0x4000_0000u32, 40), 0);
    }

    #[test]
    fn integer_power() {
        assert_eq!(power(3i32, 4), 81);
        assert_eq!(power(2i32, 31), i32::MIN);
        assert_eq!(power(2i32, 32), 0);
        assert_eq!(power(3u8, 5), 243);
        assert_eq!(power(0i32, 0), 1);
        assert_eq!(power(2i32, -1), 0);
        assert_eq!(power(1i32, -5), 1);
        assert_eq!(power(-1i32, -3), -1);
        assert_eq!(power(-1i32, -4), 1);
        assert_eq!(power(0i32, -2), 0);
    }

    #[test]
    fn unary_rules() {
        let abs = unary::<i8>(Opcode::Abs).unwrap();
        assert_eq!(abs(i8::MIN), i8::MIN);
        assert!(unary::<u8>(Opcode::Abs).is_none());
        assert_eq!(unary::<u32>(Opcode::Negate).unwrap()(1), u32::MAX);
        assert_eq!(unary::<i8>(Opcode::PopulationCount).unwrap()(-1), 8);
        assert_eq!(unary::<u32>(Opcode::PopulationCount).unwrap()(7), 3);
        assert_eq!(unary::<u16>(Opcode::Clz).unwrap()(1), 15);
        assert_eq!(unary::<i32>(Opcode::Clz).unwrap()(0), 32);
        assert_eq!(unary::<i64>(Opcode::Sign).unwrap()(-9), -1);
    }
}
