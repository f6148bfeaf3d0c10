//! The per-element semantics table: for every element type, the function
//! each element-wise op computes (`docs/semantics.md`, *Element-wise operations*). The
//! interpreter's array kernels, its scalar evaluator and constant folding all read it;
//! it is the JIT's oracle.
//!
//! Every element type has a *compute type*: `f16` and `bf16` compute in
//! `f32` and are rounded to nearest even after every op (project rule);
//! every other type computes in itself. An op on a value `x` of type `T` is
//! `T::narrow(f(x.widen()))` with `f` from this table. The rules themselves
//! live in [`super::int`] (integers and `pred`), [`super::float`] (`f32`,
//! `f64`) and [`super::complex`].

use half::{bf16, f16};

use super::{complex, float, int};
use crate::hlo::ComparisonDirection;
use crate::hlo::Opcode;
use crate::literal::{read_element, write_element};
use crate::{dispatch_native, Literal, NativeType, PrimitiveType, C128, C64};

/// A unary function on compute values.
pub(crate) type Fn1<C> = fn(C) -> C;
/// A binary function on compute values.
pub(crate) type Fn2<C> = fn(C, C) -> C;
/// A comparison of compute values.
pub(crate) type Cmp<C> = fn(C, C) -> bool;

/// An element type with its entries in the semantics table.
pub(crate) trait Elem: NativeType {
    /// The type values are computed in.
    type C: Copy + Send + Sync + 'static;
    /// The value in the compute type (exact).
    fn widen(self) -> Self::C;
    /// A computed value rounded to this type (to nearest even).
    fn narrow(c: Self::C) -> Self;
    /// The same-type unary function `op`, if the type has one.
    fn unary(op: Opcode) -> Option<Fn1<Self::C>>;
    /// The same-type binary function `op`, if the type has one.
    fn binary(op: Opcode) -> Option<Fn2<Self::C>>;
    /// The comparison in `direction` (IEEE for floats, by value for
    /// integers); `None` for orderings of complex values.
    fn compare(direction: ComparisonDirection) -> Option<Cmp<Self::C>>;
    /// The total-order key of floating types (`docs/semantics.md`,
    /// *Comparisons*), on the stored bit pattern.
    fn total_order_key() -> Option<fn(Self) -> i64>;
    /// `is-finite`, for floating types.
    fn is_finite_fn() -> Option<fn(Self::C) -> bool>;
    /// `op` on the stored bits when it only moves them: `abs` and `negate`
    /// of a 16-bit float clear or flip the sign bit, so a signalling NaN
    /// stays signalling, as XLA's (LLVM's `fabs`/`fneg`) and as in the
    /// types that compute in themselves.
    fn on_bits(_op: Opcode) -> Option<fn(Self) -> Self> {
        None
    }
    /// The value as a [`Scalar`].
    fn into_scalar(self) -> Scalar;
    /// The value held by `s`, if `s` has this type.
    fn from_scalar(s: Scalar) -> Option<Self>;
}

/// `op(x)` on a stored value.
#[inline]
pub(crate) fn apply1<T: Elem>(f: Fn1<T::C>, x: T) -> T {
    T::narrow(f(x.widen()))
}

/// `op(a, b)` on stored values.
#[inline]
pub(crate) fn apply2<T: Elem>(f: Fn2<T::C>, a: T, b: T) -> T {
    T::narrow(f(a.widen(), b.widen()))
}

/// The comparison of total-order keys.
pub(crate) fn key_compare(direction: ComparisonDirection) -> fn(i64, i64) -> bool {
    int::compare(direction)
}

/// A scalar of any element type: the values of the scalar evaluator and of
/// constant folding.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Scalar {
    Pred(bool),
    S8(i8),
    S16(i16),
    S32(i32),
    S64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(f16),
    Bf16(bf16),
    F32(f32),
    F64(f64),
    C64(C64),
    C128(C128),
}

/// Runs `$body` with `$x` bound to the value of `$s` and `$t` to its Rust
/// type.
macro_rules! with_scalar {
    ($s:expr, $x:ident: $t:ident => $body:expr) => {
        match $s {
            Scalar::Pred($x) => with_scalar!(@ $t = bool, $body),
            Scalar::S8($x) => with_scalar!(@ $t = i8, $body),
            Scalar::S16($x) => with_scalar!(@ $t = i16, $body),
            Scalar::S32($x) => with_scalar!(@ $t = i32, $body),
            Scalar::S64($x) => with_scalar!(@ $t = i64, $body),
            Scalar::U8($x) => with_scalar!(@ $t = u8, $body),
            Scalar::U16($x) => with_scalar!(@ $t = u16, $body),
            Scalar::U32($x) => with_scalar!(@ $t = u32, $body),
            Scalar::U64($x) => with_scalar!(@ $t = u64, $body),
            Scalar::F16($x) => with_scalar!(@ $t = f16, $body),
            Scalar::Bf16($x) => with_scalar!(@ $t = bf16, $body),
            Scalar::F32($x) => with_scalar!(@ $t = f32, $body),
            Scalar::F64($x) => with_scalar!(@ $t = f64, $body),
            Scalar::C64($x) => with_scalar!(@ $t = C64, $body),
            Scalar::C128($x) => with_scalar!(@ $t = C128, $body),
        }
    };
    (@ $t:ident = $rust:ty, $body:expr) => {{
        #[allow(dead_code)]
        type $t = $rust;
        $body
    }};
}

impl Scalar {
    /// The element type.
    pub(crate) fn element_type(self) -> PrimitiveType {
        with_scalar!(self, _x: T => T::TYPE)
    }

    /// The value of a rank-0 array literal.
    pub(crate) fn from_literal(literal: &Literal) -> Option<Scalar> {
        let shape = literal.array_shape().ok()?;
        if shape.rank() != 0 {
            return None;
        }
        dispatch_native!(shape.element_type(), T => literal.get::<T>(&[]).ok().map(T::into_scalar))
    }

    /// A rank-0 literal holding the value.
    pub(crate) fn to_literal(self) -> Literal {
        with_scalar!(self, x: T => Literal::scalar(x))
    }

    /// The value as a `T`, if it has `T`'s type.
    pub(crate) fn get<T: Elem>(self) -> Option<T> {
        T::from_scalar(self)
    }

    /// The element-wise unary op `op`, including the ops whose result type
    /// differs (`is-finite` → `pred`; `abs`, `real`, `imag` of complex →
    /// the component type). `None` if `op` is not defined on the type.
    pub(crate) fn unary(self, op: Opcode) -> Option<Scalar> {
        match (op, self) {
            (Opcode::IsFinite, _) => {
                with_scalar!(self, x: T => T::is_finite_fn().map(|f| Scalar::Pred(f(x.widen()))))
            }
            (Opcode::Abs | Opcode::Real | Opcode::Imag, Scalar::C64(z)) => {
                complex::to_real::<f32>(op).map(|f| Scalar::F32(f(z)))
            }
            (Opcode::Abs | Opcode::Real | Opcode::Imag, Scalar::C128(z)) => {
                complex::to_real::<f64>(op).map(|f| Scalar::F64(f(z)))
            }
            _ => with_scalar!(self, x: T => match T::on_bits(op) {
                Some(f) => Some(f(x).into_scalar()),
                None => T::unary(op).map(|f| apply1(f, x).into_scalar()),
            }),
        }
    }

    /// The element-wise binary op `op` (`complex` builds a complex value
    /// from two reals). `None` if the operand types differ or `op` is not
    /// defined on them.
    pub(crate) fn binary(self, op: Opcode, rhs: Scalar) -> Option<Scalar> {
        match (op, self, rhs) {
            (Opcode::Complex, Scalar::F32(re), Scalar::F32(im)) => {
                Some(Scalar::C64(C64::new(re, im)))
            }
            (Opcode::Complex, Scalar::F64(re), Scalar::F64(im)) => {
                Some(Scalar::C128(C128::new(re, im)))
            }
            _ => with_scalar!(self, a: T => {
                let b = T::from_scalar(rhs)?;
                T::binary(op).map(|f| apply2(f, a, b).into_scalar())
            }),
        }
    }

    /// `compare(self, rhs)`; `total` selects the total order for floats.
    pub(crate) fn compare(
        self,
        direction: ComparisonDirection,
        total: bool,
        rhs: Scalar,
    ) -> Option<bool> {
        with_scalar!(self, a: T => {
            let b = T::from_scalar(rhs)?;
            if total {
                if let Some(key) = T::total_order_key() {
                    return Some(key_compare(direction)(key(a), key(b)));
                }
            }
            T::compare(direction).map(|f| f(a.widen(), b.widen()))
        })
    }

    /// `convert` to `to` (`docs/semantics.md`, *Convert*); `None` for complex → pred.
    pub(crate) fn convert(self, to: PrimitiveType) -> Option<Scalar> {
        with_scalar!(self, x: T => dispatch_native!(to, U => {
            crate::literal::convert::convert_value::<T, U>(x).ok().map(U::into_scalar)
        }))
    }

    /// `bitcast-convert` to `to`, a type of the same size: the same bits
    /// read as `to`; `None` for a type of another size.
    pub(crate) fn bitcast(self, to: PrimitiveType) -> Option<Scalar> {
        with_scalar!(self, x: T => dispatch_native!(to, U => {
            (std::mem::size_of::<T>() == std::mem::size_of::<U>()).then(|| {
                let mut bytes = [0u8; 16];
                write_element(&mut bytes, 0, x);
                read_element::<U>(&bytes, 0).into_scalar()
            })
        }))
    }

    /// `true` for the `pred` value `true`.
    pub(crate) fn is_true(self) -> bool {
        self == Scalar::Pred(true)
    }
}

macro_rules! scalar_conversions {
    ($variant:ident) => {
        #[inline]
        fn into_scalar(self) -> Scalar {
            Scalar::$variant(self)
        }
        #[inline]
        fn from_scalar(s: Scalar) -> Option<Self> {
            match s {
                Scalar::$variant(x) => Some(x),
                _ => None,
            }
        }
    };
}

macro_rules! computes_in_itself {
    () => {
        type C = Self;
        #[inline]
        fn widen(self) -> Self {
            self
        }
        #[inline]
        fn narrow(c: Self) -> Self {
            c
        }
    };
}

impl Elem for bool {
    computes_in_itself!();
    scalar_conversions!(Pred);
    fn unary(op: Opcode) -> Option<fn(bool) -> bool> {
        int::pred_unary(op)
    }
    fn binary(op: Opcode) -> Option<fn(bool, bool) -> bool> {
        int::pred_binary(op)
    }
    fn compare(direction: ComparisonDirection) -> Option<fn(bool, bool) -> bool> {
        Some(int::compare(direction))
    }
    fn total_order_key() -> Option<fn(bool) -> i64> {
        None
    }
    fn is_finite_fn() -> Option<fn(bool) -> bool> {
        None
    }
}

macro_rules! integer {
    ($($t:ty => $variant:ident),*) => {$(
        impl Elem for $t {
            computes_in_itself!();
            scalar_conversions!($variant);
            fn unary(op: Opcode) -> Option<fn($t) -> $t> {
                int::unary(op)
            }
            fn binary(op: Opcode) -> Option<fn($t, $t) -> $t> {
                int::binary(op)
            }
            fn compare(direction: ComparisonDirection) -> Option<fn($t, $t) -> bool> {
                Some(int::compare(direction))
            }
            fn total_order_key() -> Option<fn($t) -> i64> {
                None
            }
            fn is_finite_fn() -> Option<fn($t) -> bool> {
                None
            }
        }
    )*};
}

integer!(i8 => S8, i16 => S16, i32 => S32, i64 => S64, u8 => U8, u16 => U16, u32 => U32, u64 => U64);

macro_rules! real {
    ($($t:ty => $variant:ident),*) => {$(
        impl Elem for $t {
            computes_in_itself!();
            scalar_conversions!($variant);
            fn unary(op: Opcode) -> Option<fn($t) -> $t> {
                float::unary(op)
            }
            fn binary(op: Opcode) -> Option<fn($t, $t) -> $t> {
                float::binary(op)
            }
            fn compare(direction: ComparisonDirection) -> Option<fn($t, $t) -> bool> {
                Some(float::compare(direction))
            }
            fn total_order_key() -> Option<fn($t) -> i64> {
                Some(float::Real::total_order_key)
            }
            fn is_finite_fn() -> Option<fn($t) -> bool> {
                Some(<$t>::is_finite)
            }
        }
    )*};
}

real!(f32 => F32, f64 => F64);

/// The total-order key of a 16-bit float's bit pattern.
#[inline]
fn total_order_key16(bits: u16) -> i64 {
    let b = bits as i16;
    i64::from(if b < 0 { b ^ i16::MAX } else { b })
}

macro_rules! half {
    ($($t:ty => $variant:ident),*) => {$(
        impl Elem for $t {
            type C = f32;
            scalar_conversions!($variant);
            #[inline]
            fn widen(self) -> f32 {
                self.to_f32()
            }
            #[inline]
            fn narrow(c: f32) -> Self {
                <$t>::from_f32(c)
            }
            fn unary(op: Opcode) -> Option<fn(f32) -> f32> {
                float::unary(op)
            }
            fn binary(op: Opcode) -> Option<fn(f32, f32) -> f32> {
                float::binary(op)
            }
            fn compare(direction: ComparisonDirection) -> Option<fn(f32, f32) -> bool> {
                Some(float::compare(direction))
            }
            fn total_order_key() -> Option<fn($t) -> i64> {
                Some(|x: $t| total_order_key16(x.to_bits()))
            }
            fn is_finite_fn() -> Option<fn(f32) -> bool> {
                Some(f32::is_finite)
            }
            fn on_bits(op: Opcode) -> Option<fn($t) -> $t> {
                match op {
                    Opcode::Abs => Some(|x| <$t>::from_bits(x.to_bits() & 0x7FFF)),
                    Opcode::Negate => Some(|x| <$t>::from_bits(x.to_bits() ^ 0x8000)),
                    _ => None,
                }
            }
        }
    )*};
}

half!(f16 => F16, bf16 => Bf16);

macro_rules! complex {
    ($($t:ty: $r:ty => $variant:ident),*) => {$(
        impl Elem for $t {
            computes_in_itself!();
            scalar_conversions!($variant);
            fn unary(op: Opcode) -> Option<fn($t) -> $t> {
                complex::unary::<$r>(op)
            }
            fn binary(op: Opcode) -> Option<fn($t, $t) -> $t> {
                complex::binary::<$r>(op)
            }
            fn compare(direction: ComparisonDirection) -> Option<fn($t, $t) -> bool> {
                complex::compare::<$r>(direction)
            }
            fn total_order_key() -> Option<fn($t) -> i64> {
                None
            }
            fn is_finite_fn() -> Option<fn($t) -> bool> {
                None
            }
        }
    )*};
}

complex!(C64: f32 => C64, C128: f64 => C128);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_types_round_after_every_op() {
        // 2048 + 1 is not an f16: it rounds to even (2048) after the add.
        let add = <f16 as Elem>::binary(Opcode::Add).unwrap();
        let x = apply2(add, f16::from_f32(2048.0), f16::from_f32(1.0));
        assert_eq!(x.to_f32(), 2048.0);
        // f16 subnormal results are kept: 1e−4 · 1e−3 → bits 0x0002.
        let mul = <f16 as Elem>::binary(Opcode::Multiply).unwrap();
        let y = apply2(mul, f16::from_f32(1e-4), f16::from_f32(1e-3));
        assert_eq!(y.to_bits(), 0x0002);
        // bf16 subnormals are flushed when computed on.
        let tiny = bf16::from_f32(1e-40);
        assert_ne!(tiny.to_bits() & 0x7fff, 0);
        let one = bf16::from_f32(1.0);
        let mul = <bf16 as Elem>::binary(Opcode::Multiply).unwrap();
        assert_eq!(apply2(mul, tiny, one).to_bits(), 0);
    }

    #[test]
    fn scalars() {
        let x = Scalar::F32(1.5);
        assert_eq!(x.element_type(), PrimitiveType::F32);
        assert_eq!(
            x.binary(Opcode::Add, Scalar::F32(2.0)),
            Some(Scalar::F32(3.5))
        );
        assert_eq!(x.binary(Opcode::Add, Scalar::F64(2.0)), None);
        assert_eq!(x.unary(Opcode::IsFinite), Some(Scalar::Pred(true)));
        assert_eq!(Scalar::U8(1).unary(Opcode::Abs), None);
        assert_eq!(
            Scalar::C64(C64::new(3.0, 4.0)).unary(Opcode::Abs),
            Some(Scalar::F32(5.0))
        );
        assert_eq!(x.convert(PrimitiveType::S32), Some(Scalar::S32(1)));
        assert_eq!(
            Scalar::F32(-0.0).compare(ComparisonDirection::Lt, true, Scalar::F32(0.0)),
            Some(true)
        );
        assert_eq!(
            Scalar::F32(-0.0).compare(ComparisonDirection::Lt, false, Scalar::F32(0.0)),
            Some(false)
        );
        assert_eq!(Scalar::from_literal(&x.to_literal()), Some(x));
    }
}
