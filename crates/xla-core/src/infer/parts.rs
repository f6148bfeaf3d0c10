//! The vocabulary of inference errors: attribute references, operand
//! counts, shape kinds, rank rules, element-type classes and callee names,
//! each printed the way the messages read.

use std::fmt;

use crate::PrimitiveType;

/// A list of dimension numbers, printed as in HLO text: `{1,0}`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DimList(pub Vec<i64>);

impl fmt::Display for DimList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("}")
    }
}

/// An attribute, or one entry of a list attribute, printed as `iota_dimension`
/// or `slice_sizes[1]`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Attr {
    /// The attribute's name, as in HLO text.
    pub name: &'static str,
    /// The entry's position, for a list attribute.
    pub position: Option<usize>,
}

impl Attr {
    /// A scalar attribute.
    pub const fn scalar(name: &'static str) -> Self {
        Attr {
            name,
            position: None,
        }
    }

    /// Entry `position` of a list attribute.
    pub const fn entry(name: &'static str, position: usize) -> Self {
        Attr {
            name,
            position: Some(position),
        }
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}[{p}]", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// How many operands (or called computations) an op takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Count {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many.
    AtLeast(usize),
    /// `2·N` with `N ≥ 1`: N inputs followed by N init values.
    InputsAndInits,
    /// `2·N + 1` with `N ≥ 1`: N operands, the indices, N updates.
    OperandsIndicesUpdates,
}

impl Count {
    /// `true` if `actual` satisfies the count.
    pub fn admits(self, actual: usize) -> bool {
        match self {
            Count::Exactly(n) => actual == n,
            Count::AtLeast(n) => actual >= n,
            Count::InputsAndInits => actual >= 2 && actual.is_multiple_of(2),
            Count::OperandsIndicesUpdates => actual >= 3 && !actual.is_multiple_of(2),
        }
    }

    /// The count with its noun: `1 operand`, `at least 2 operands`.
    pub fn of(self, noun: &str) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match self {
            Count::Exactly(n) => format!("{n} {noun}{}", plural(n)),
            Count::AtLeast(n) => format!("at least {n} {noun}{}", plural(n)),
            Count::InputsAndInits => format!("2·N {noun}s (N inputs, then N init values)"),
            Count::OperandsIndicesUpdates => {
                format!("2·N + 1 {noun}s (N operands, the indices, then N updates)")
            }
        }
    }
}

/// What kind of shape a value must have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An array of any rank.
    Array,
    /// A rank-0 array.
    Scalar,
    /// A tuple.
    Tuple,
    /// A token.
    Token,
    /// An array or a tuple (not a token).
    ArrayOrTuple,
    /// The context a send or recv returns: `(data, u32[], token[])`.
    Context,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Array => "an array",
            Kind::Scalar => "a scalar",
            Kind::Tuple => "a tuple",
            Kind::Token => "a token",
            Kind::ArrayOrTuple => "an array or a tuple",
            Kind::Context => "a send or recv context (data, u32[], token[])",
        })
    }
}

/// A required rank.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RankRule {
    /// Exactly this rank.
    Exactly(usize),
    /// At least this rank.
    AtLeast(usize),
    /// Rank 1 or 2 (vectors and matrices).
    OneOrTwo,
}

impl fmt::Display for RankRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RankRule::Exactly(n) => write!(f, "rank {n}"),
            RankRule::AtLeast(n) => write!(f, "rank at least {n}"),
            RankRule::OneOrTwo => f.write_str("rank 1 or 2"),
        }
    }
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

/// A computation an op calls, named as in XLA's text and API.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Callee {
    /// `to_apply` (reduce, map, call, scatter, sort, all-reduce …).
    ToApply,
    /// The `condition` of a while loop.
    Condition,
    /// The `body` of a while loop.
    Body,
    /// Branch `i` of a conditional (`0` = true, `1` = false in the
    /// predicate form).
    Branch(usize),
    /// The `select` computation of select-and-scatter.
    Select,
    /// The `scatter` computation of select-and-scatter.
    Scatter,
    /// The fused computation of a fusion.
    Calls,
}

impl fmt::Display for Callee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Callee::ToApply => f.write_str("to_apply"),
            Callee::Condition => f.write_str("condition"),
            Callee::Body => f.write_str("body"),
            Callee::Branch(i) => write!(f, "branch_computations[{i}]"),
            Callee::Select => f.write_str("select"),
            Callee::Scatter => f.write_str("scatter"),
            Callee::Calls => f.write_str("calls"),
        }
    }
}
