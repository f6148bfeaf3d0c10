//! The checked program: what `check` hands to `expand`. Every op has passed
//! shape inference; the IR says which builder call makes each value.
//!
//! A computation is a list of instructions in SSA form (a [`ValueId`] is an
//! instruction's position). Sizes stay [`DimExpr`]s from the source, so the
//! expansion computes them from the bound dimensions at run time.

use xla_core::hlo::{
    ConvDimensionNumbers, DotDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers,
};
use xla_core::PrimitiveType;

use crate::ast::{DimExpr, LitValue};

/// An instruction's position in its computation.
pub type ValueId = usize;

/// A checked function: its signature, and its body unless checking failed
/// (then the expansion emits a stub with the same items).
pub struct FunctionIr {
    pub name: syn::Ident,
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub params: Vec<ParamIr>,
    /// The dimension names, in the order they first appear alone as a
    /// parameter dimension (which is where calls bind them).
    pub symbols: Vec<syn::Ident>,
    pub result: ResultIr,
    pub body: Option<Comp>,
    /// `#[grad(…)]`: the positions of the parameters differentiated.
    pub grad: Option<Vec<usize>>,
}

#[derive(Clone)]
pub struct ParamIr {
    pub name: syn::Ident,
    /// `None` if the type was malformed (only a stub is expanded then).
    pub element_type: Option<PrimitiveType>,
    pub dims: Vec<DimExpr>,
}

/// The declared result: an array, or a tuple of results.
pub enum ResultIr {
    /// An array of the declared element type (as written) and sizes.
    Array {
        element_type: String,
        dims: Vec<DimExpr>,
    },
    Tuple(Vec<ResultIr>),
}

/// One computation: the function's own, or a sub-computation (a closure,
/// a loop's condition or body, a branch).
pub struct Comp {
    pub name: String,
    pub params: Vec<ParamShape>,
    pub instrs: Vec<Instr>,
    pub root: ValueId,
}

/// Where a sub-computation's parameter shape comes from at run time.
pub enum ParamShape {
    /// A scalar of this type (closures).
    Scalar(PrimitiveType),
    /// The run-time shape of a value of the enclosing computation (a loop
    /// state or a branch operand).
    Like(ValueId),
    /// A function parameter: its declared type, with the bound sizes.
    Declared,
}

pub enum Instr {
    /// Parameter `n` of the computation.
    Param(usize),
    /// A scalar constant.
    Constant(PrimitiveType, LitValue),
    /// A scalar constant holding a size (`N` used as a value).
    SizeConstant(PrimitiveType, DimExpr),
    /// A call of a builder method `b.method(args…)?`.
    Builder(&'static str, Vec<Arg>),
    /// A call of a lowering helper `::xla::dsl::rt::name(b, args…)?`.
    Runtime(&'static str, Vec<Arg>),
    /// A call of another function of the same macro invocation, inlined
    /// through its `build`.
    Function(syn::Ident, Vec<ValueId>),
    Tuple(Vec<ValueId>),
    GetTupleElement(ValueId, usize),
    /// `while(init)` with the condition and body computations.
    While {
        condition: Box<Comp>,
        body: Box<Comp>,
        init: ValueId,
    },
    /// `conditional(pred, operands…)` with one computation per branch.
    Conditional {
        pred: ValueId,
        branches: Vec<(ValueId, Comp)>,
    },
}

/// An argument of a builder call, in the builder's Rust types.
pub enum Arg {
    Value(ValueId),
    Values(Vec<ValueId>),
    /// `&[i64]` of sizes computed from the dimensions.
    Sizes(Vec<DimExpr>),
    /// `i64` size.
    Size(DimExpr),
    /// `&[i64]` of constants (dimension numbers).
    Ints(Vec<i64>),
    Int(i64),
    Bool(bool),
    Type(PrimitiveType),
    /// `&ArrayShape` (iota).
    ArrayShape(PrimitiveType, Vec<DimExpr>),
    /// `&XlaComputation`.
    Comp(Box<Comp>),
    /// `Default::default()` (options structs).
    Default,
    /// `&[PadDim]` (low, high, interior per dimension).
    PadConfig(Vec<[DimExpr; 3]>),
    /// `&[(i64, i64)]` explicit padding.
    Pairs(Vec<(i64, i64)>),
    /// `PaddingKind::Same` (true) or `Valid`.
    SamePadding(bool),
    DotDims(DotDimensionNumbers),
    ConvDims(ConvDimensionNumbers),
    GatherDims(GatherDimensionNumbers),
    ScatterDims(ScatterDimensionNumbers),
    /// `Option<PrimitiveType>`.
    OptionalType(Option<PrimitiveType>),
}
