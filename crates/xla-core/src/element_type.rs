//! Element types (XLA's `PrimitiveType`) and the Rust types that hold them.
//!
//! Every array shape has exactly one element type. The text spelling is the
//! lower-case name used in shapes: `pred`, `s8`, …, `c128`.

use std::fmt;
use std::str::FromStr;

use half::{bf16, f16};
use num_complex::Complex;

/// A complex number of two `f32` (XLA's `c64`), real part first in memory.
pub type C64 = Complex<f32>;
/// A complex number of two `f64` (XLA's `c128`), real part first in memory.
pub type C128 = Complex<f64>;

/// The element type of an array.
///
/// Tuples, tokens and opaque values are not element types here: they are
/// kinds of [`Shape`](crate::Shape).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum PrimitiveType {
    /// Boolean, stored as one byte holding 0 or 1.
    Pred,
    /// Signed 8-bit integer.
    S8,
    /// Signed 16-bit integer.
    S16,
    /// Signed 32-bit integer.
    S32,
    /// Signed 64-bit integer.
    S64,
    /// Unsigned 8-bit integer.
    U8,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Unsigned 64-bit integer.
    U64,
    /// IEEE 754 binary16.
    F16,
    /// bfloat16: the upper half of an `f32`.
    Bf16,
    /// IEEE 754 binary32.
    F32,
    /// IEEE 754 binary64.
    F64,
    /// Complex of two `f32`.
    C64,
    /// Complex of two `f64`.
    C128,
}

/// What kind of values an element type holds.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeKind {
    /// `pred`.
    Pred,
    /// `s8` … `s64`.
    Signed,
    /// `u8` … `u64`.
    Unsigned,
    /// `f16`, `bf16`, `f32`, `f64`.
    Float,
    /// `c64`, `c128`.
    Complex,
}

impl PrimitiveType {
    /// Every element type, in the order of the enum.
    pub const ALL: [PrimitiveType; 15] = [
        Self::Pred,
        Self::S8,
        Self::S16,
        Self::S32,
        Self::S64,
        Self::U8,
        Self::U16,
        Self::U32,
        Self::U64,
        Self::F16,
        Self::Bf16,
        Self::F32,
        Self::F64,
        Self::C64,
        Self::C128,
    ];

    /// The text spelling, e.g. `"bf16"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Pred => "pred",
            Self::S8 => "s8",
            Self::S16 => "s16",
            Self::S32 => "s32",
            Self::S64 => "s64",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::Bf16 => "bf16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::C64 => "c64",
            Self::C128 => "c128",
        }
    }

    /// Parses the text spelling; `None` for anything else.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Size of one element in bytes (`pred` takes one byte).
    pub const fn byte_size(self) -> usize {
        match self {
            Self::Pred | Self::S8 | Self::U8 => 1,
            Self::S16 | Self::U16 | Self::F16 | Self::Bf16 => 2,
            Self::S32 | Self::U32 | Self::F32 => 4,
            Self::S64 | Self::U64 | Self::F64 | Self::C64 => 8,
            Self::C128 => 16,
        }
    }

    /// Size of one element in bits (`pred` counts its storage byte).
    pub const fn bit_width(self) -> usize {
        self.byte_size() * 8
    }

    /// The kind of values this type holds.
    pub const fn kind(self) -> TypeKind {
        match self {
            Self::Pred => TypeKind::Pred,
            Self::S8 | Self::S16 | Self::S32 | Self::S64 => TypeKind::Signed,
            Self::U8 | Self::U16 | Self::U32 | Self::U64 => TypeKind::Unsigned,
            Self::F16 | Self::Bf16 | Self::F32 | Self::F64 => TypeKind::Float,
            Self::C64 | Self::C128 => TypeKind::Complex,
        }
    }

    /// `s*` or `u*`.
    pub const fn is_integral(self) -> bool {
        matches!(self.kind(), TypeKind::Signed | TypeKind::Unsigned)
    }

    /// `s*`.
    pub const fn is_signed_integral(self) -> bool {
        matches!(self.kind(), TypeKind::Signed)
    }

    /// `u*`.
    pub const fn is_unsigned_integral(self) -> bool {
        matches!(self.kind(), TypeKind::Unsigned)
    }

    /// `f16`, `bf16`, `f32`, `f64`.
    pub const fn is_floating(self) -> bool {
        matches!(self.kind(), TypeKind::Float)
    }

    /// `c64`, `c128`.
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), TypeKind::Complex)
    }

    /// `pred`.
    pub const fn is_pred(self) -> bool {
        matches!(self, Self::Pred)
    }

    /// The smallest and largest value of an integer type (`s8`: −128, 127);
    /// `None` for other types.
    pub const fn integer_range(self) -> Option<(i128, i128)> {
        let bits = self.bit_width() as u32;
        match self.kind() {
            TypeKind::Signed => Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)),
            TypeKind::Unsigned => Some((0, (1i128 << bits) - 1)),
            _ => None,
        }
    }

    /// For a complex type its component type (`c64` → `f32`); other types are
    /// their own component type.
    pub const fn component_type(self) -> Self {
        match self {
            Self::C64 => Self::F32,
            Self::C128 => Self::F64,
            other => other,
        }
    }

    /// The complex type whose component type is `self` (`f32` → `c64`).
    pub const fn complex_type(self) -> Option<Self> {
        match self {
            Self::F32 => Some(Self::C64),
            Self::F64 => Some(Self::C128),
            _ => None,
        }
    }

    /// Number of exponent and mantissa bits of a floating type (or of the
    /// component type of a complex type).
    pub const fn float_bits(self) -> Option<(u32, u32)> {
        match self.component_type() {
            Self::F16 => Some((5, 10)),
            Self::Bf16 => Some((8, 7)),
            Self::F32 => Some((8, 23)),
            Self::F64 => Some((11, 52)),
            _ => None,
        }
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The text is not the name of an element type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type `{0}`")]
pub struct UnknownElementType(pub String);

impl FromStr for PrimitiveType {
    type Err = UnknownElementType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s).ok_or_else(|| UnknownElementType(s.to_string()))
    }
}

/// A Rust type that holds the elements of one [`PrimitiveType`].
///
/// `bool` ↔ `pred`, `i8`…`u64` ↔ `s8`…`u64`, [`half::f16`] ↔ `f16`,
/// [`half::bf16`] ↔ `bf16`, `f32`, `f64`, [`C64`] ↔ `c64`, [`C128`] ↔ `c128`.
///
/// # Safety
///
/// Implementors must be plain-old-data whose size is
/// `Self::TYPE.byte_size()` and for which every bit pattern that XLA can store
/// is a valid value (for `bool`, buffers only ever hold 0 or 1).
pub unsafe trait NativeType:
    Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The element type this Rust type holds.
    const TYPE: PrimitiveType;
}

macro_rules! native_types {
    ($($rust:ty => $prim:ident),* $(,)?) => {
        $(
            // SAFETY: each type is plain old data of exactly the element's size.
            unsafe impl NativeType for $rust {
                const TYPE: PrimitiveType = PrimitiveType::$prim;
            }
        )*
    };
}

native_types! {
    bool => Pred,
    i8 => S8,
    i16 => S16,
    i32 => S32,
    i64 => S64,
    u8 => U8,
    u16 => U16,
    u32 => U32,
    u64 => U64,
    f16 => F16,
    bf16 => Bf16,
    f32 => F32,
    f64 => F64,
    C64 => C64,
    C128 => C128,
}

/// Calls a generic body with the Rust type of a runtime [`PrimitiveType`].
///
/// ```
/// use xla_core::{dispatch_native, NativeType, PrimitiveType};
/// fn size_of_native<T: NativeType>() -> usize { std::mem::size_of::<T>() }
/// let ty = PrimitiveType::Bf16;
/// let size = dispatch_native!(ty, T => size_of_native::<T>());
/// assert_eq!(size, 2);
/// ```
#[macro_export]
macro_rules! dispatch_native {
    ($ty:expr, $t:ident => $body:expr) => {{
        use $crate::PrimitiveType as __P;
        match $ty {
            __P::Pred => {
                type $t = bool;
                $body
            }
            __P::S8 => {
                type $t = i8;
                $body
            }
            __P::S16 => {
                type $t = i16;
                $body
            }
            __P::S32 => {
                type $t = i32;
                $body
            }
            __P::S64 => {
                type $t = i64;
                $body
            }
            __P::U8 => {
                type $t = u8;
                $body
            }
            __P::U16 => {
                type $t = u16;
                $body
            }
            __P::U32 => {
                type $t = u32;
                $body
            }
            __P::U64 => {
                type $t = u64;
                $body
            }
            __P::F16 => {
                type $t = $crate::half::f16;
                $body
            }
            __P::Bf16 => {
                type $t = $crate::half::bf16;
                $body
            }
            __P::F32 => {
                type $t = f32;
                $body
            }
            __P::F64 => {
                type $t = f64;
                $body
            }
            __P::C64 => {
                type $t = $crate::C64;
                $body
            }
            __P::C128 => {
                type $t = $crate::C128;
                $body
            }
        }
    }};
}

/// A class of element types an operand must belong to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TypeClass {
    /// Every element type.
    Any,
    /// `f16`, `bf16`, `f32`, `f64`.
    Floating,
    /// Floating or complex.
    FloatingOrComplex,
    /// `s*` or `u*`.
    Integral,
    /// `pred`, `s*` or `u*`.
    PredOrIntegral,
    /// Signed integral, floating or complex (not unsigned, not `pred`).
    Signed,
    /// Anything but `pred`.
    Arithmetic,
    /// Anything but complex.
    Real,
    /// Anything but `pred` and complex.
    RealArithmetic,
    /// `f32` or `f64`.
    F32OrF64,
    /// `c64` or `c128`.
    Complex,
    /// `u8` … `u64`.
    Unsigned,
    /// `pred`.
    Pred,
    /// `s32`.
    S32,
    /// `pred` or `s32`.
    PredOrS32,
}

impl TypeClass {
    /// `true` if `ty` belongs to the class.
    pub fn contains(self, ty: PrimitiveType) -> bool {
        match self {
            TypeClass::Any => true,
            TypeClass::Floating => ty.is_floating(),
            TypeClass::FloatingOrComplex => ty.is_floating() || ty.is_complex(),
            TypeClass::Integral => ty.is_integral(),
            TypeClass::PredOrIntegral => ty.is_pred() || ty.is_integral(),
            TypeClass::Signed => ty.is_signed_integral() || ty.is_floating() || ty.is_complex(),
            TypeClass::Arithmetic => !ty.is_pred(),
            TypeClass::Real => !ty.is_complex(),
            TypeClass::RealArithmetic => !ty.is_pred() && !ty.is_complex(),
            TypeClass::F32OrF64 => matches!(ty, PrimitiveType::F32 | PrimitiveType::F64),
            TypeClass::Complex => ty.is_complex(),
            TypeClass::Unsigned => ty.is_unsigned_integral(),
            TypeClass::Pred => ty.is_pred(),
            TypeClass::S32 => ty == PrimitiveType::S32,
            TypeClass::PredOrS32 => matches!(ty, PrimitiveType::Pred | PrimitiveType::S32),
        }
    }
}

impl fmt::Display for TypeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TypeClass::Any => "any",
            TypeClass::Floating => "a floating-point",
            TypeClass::FloatingOrComplex => "a floating-point or complex",
            TypeClass::Integral => "an integral",
            TypeClass::PredOrIntegral => "a pred or integral",
            TypeClass::Signed => "a signed integral, floating-point or complex",
            TypeClass::Arithmetic => "a numeric (not pred)",
            TypeClass::Real => "a real (not complex)",
            TypeClass::RealArithmetic => "a real numeric (not pred, not complex)",
            TypeClass::F32OrF64 => "an f32 or f64",
            TypeClass::Complex => "a complex",
            TypeClass::Unsigned => "an unsigned integral",
            TypeClass::Pred => "a pred",
            TypeClass::S32 => "an s32",
            TypeClass::PredOrS32 => "a pred or s32",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sizes_match_native_types() {
        for ty in PrimitiveType::ALL {
            assert_eq!(PrimitiveType::from_name(ty.name()), Some(ty));
            let native = dispatch_native!(ty, T => (std::mem::size_of::<T>(), T::TYPE));
            assert_eq!(native, (ty.byte_size(), ty));
        }
        assert_eq!(
            "f8e4m3fn".parse::<PrimitiveType>().unwrap_err().to_string(),
            "unknown element type `f8e4m3fn`"
        );
    }

    #[test]
    fn classification() {
        assert!(PrimitiveType::S8.is_signed_integral());
        assert!(PrimitiveType::U64.is_unsigned_integral());
        assert!(PrimitiveType::Bf16.is_floating());
        assert!(!PrimitiveType::Pred.is_integral());
        assert_eq!(PrimitiveType::C128.component_type(), PrimitiveType::F64);
        assert_eq!(PrimitiveType::F32.complex_type(), Some(PrimitiveType::C64));
        assert_eq!(PrimitiveType::Bf16.float_bits(), Some((8, 7)));
        assert_eq!(PrimitiveType::Pred.bit_width(), 8);
    }
}
