//! The MLIR subset StableHLO programs are made of, in one form for every
//! reader: the text parser and the bytecode reader both produce it, and
//! one lowering turns it into an [`HloModule`](crate::HloModule).
//!
//! The form is StableHLO's, with structured attributes flattened: an op is
//! named as in StableHLO text (`stablehlo.add`, `chlo.erf`, `func.call`);
//! its attributes carry VHLO's names (`lhs_batching_dimensions`,
//! `offset_dims`, `comparison_direction`, …) whether they came from the
//! pretty text form (`contracting_dims = [1] x [0]`), a structured
//! attribute (`#stablehlo.gather<offset_dims = …>`) or VHLO bytecode
//! (`#vhlo.tensor_v1<…>`). The lowering reads one spelling only.

use crate::PrimitiveType;

/// A value: an op result or a block argument, numbered uniquely within
/// the function that defines it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Value(pub u32);

/// Where an op came from (`loc("file.py":12:3)`, `loc("name")`), kept as
/// metadata.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Location {
    /// The op name part (`jit(f)/add`), when the location has one.
    pub name: Option<String>,
    /// The source file, line and column, when the location has one.
    pub file: Option<(String, u32, u32)>,
}

/// A type.
#[derive(Clone, PartialEq, Debug)]
pub enum Type {
    /// `tensor<2x3xf32>`; a dimension of `None` is dynamic (`?`).
    Tensor {
        /// The element type.
        element: ElementType,
        /// The dimensions.
        dims: Vec<Option<i64>>,
    },
    /// A bare element type (`f32`, `i64`, `index`), as attribute types are.
    Element(ElementType),
    /// `tuple<…>`.
    Tuple(Vec<Type>),
    /// `!stablehlo.token`.
    Token,
    /// `(inputs) -> outputs`.
    Function(Vec<Type>, Vec<Type>),
}

/// The element types of MLIR's builtin dialect that StableHLO uses. Types
/// the HLO side lacks (`f8E4M3FN`, `i4`, …) are kept by name so that the
/// lowering can name them in its error.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ElementType {
    /// An element type the HLO side has (`i1` is `pred`, `ui8` is `u8`).
    Known(PrimitiveType),
    /// `index`: attribute integers (never a tensor element).
    Index,
    /// Any other element type, by its MLIR spelling.
    Other(String),
}

impl ElementType {
    /// The MLIR spelling: `f32`, `i1` (pred), `ui8`, `complex<f32>`, ….
    pub fn mlir_name(&self) -> String {
        match self {
            ElementType::Known(p) => primitive_name(*p).to_string(),
            ElementType::Index => "index".to_string(),
            ElementType::Other(name) => name.clone(),
        }
    }
}

/// The MLIR spelling of an HLO element type.
pub fn primitive_name(p: PrimitiveType) -> &'static str {
    use PrimitiveType as P;
    match p {
        P::Pred => "i1",
        P::S8 => "i8",
        P::S16 => "i16",
        P::S32 => "i32",
        P::S64 => "i64",
        P::U8 => "ui8",
        P::U16 => "ui16",
        P::U32 => "ui32",
        P::U64 => "ui64",
        P::F16 => "f16",
        P::Bf16 => "bf16",
        P::F32 => "f32",
        P::F64 => "f64",
        P::C64 => "complex<f32>",
        P::C128 => "complex<f64>",
    }
}

/// An attribute.
#[derive(Clone, PartialEq, Debug)]
pub enum Attr {
    /// `unit`: present without a value.
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// An integer with its type (`3 : i64`; untyped integers are `i64`).
    Int(i64, ElementType),
    /// A float with its type (`1.0e-05 : f32`).
    Float(f64, ElementType),
    /// A string (bytes: MLIR strings may hold any byte).
    String(Vec<u8>),
    /// `[a, b, …]`.
    Array(Vec<Attr>),
    /// `array<i64: 1, 2>`, and integer tensors used as index lists
    /// (`dense<[1, 2]> : tensor<2xi64>` in older StableHLO and in VHLO).
    Ints(Vec<i64>),
    /// `array<i1: true, false>` (e.g. `window_reversal`).
    Bools(Vec<bool>),
    /// `dense<…> : tensor<…>` or `dense_resource`: elements in row-major
    /// order, little-endian, each of its element type's byte size (`i1`
    /// one byte holding 0 or 1). A splat holds one element.
    Dense {
        /// The tensor type (element type and static dimensions).
        ty: Type,
        /// The element bytes.
        bytes: Vec<u8>,
        /// `bytes` holds one element that fills the tensor.
        splat: bool,
    },
    /// An enumerated value: `#stablehlo<comparison_direction LT>` is
    /// `Enum("comparison_direction", "LT")`; the kind names are VHLO's
    /// without the version (`comparison_direction`, `comparison_type`,
    /// `precision`, `fft_type`, `rng_algorithm`, `rng_distribution`,
    /// `transpose`, `custom_call_api_version`, …).
    Enum(String, String),
    /// A type used as an attribute (`function_type`).
    Type(Type),
    /// `{name = attr, …}`.
    Dict(Vec<(String, Attr)>),
    /// `@name`: a reference to a function.
    Symbol(String),
    /// An attribute the lowering does not read, kept as its text (e.g. a
    /// `#sdy.sharding<…>`): reading one where the lowering needs a value
    /// is an error naming it.
    Opaque(String),
}

/// An operation.
#[derive(Clone, PartialEq, Debug)]
pub struct Operation {
    /// `dialect.op`, StableHLO's spelling.
    pub name: String,
    /// The operands.
    pub operands: Vec<Value>,
    /// The results and their types.
    pub results: Vec<(Value, Type)>,
    /// Attributes and properties, by name, in the order read.
    pub attrs: Vec<(String, Attr)>,
    /// Regions (while's `cond` and `body`, reduce's reducer, …).
    pub regions: Vec<Region>,
    /// Where the op came from.
    pub loc: Option<Location>,
}

impl Operation {
    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
}

/// A region: StableHLO's regions have one block.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Region {
    /// The blocks; the first is the entry.
    pub blocks: Vec<Block>,
}

/// A block: arguments and operations; the last operation is the
/// terminator (`stablehlo.return`, `func.return`).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Block {
    /// The block arguments.
    pub args: Vec<(Value, Type)>,
    /// The operations, in order.
    pub ops: Vec<Operation>,
}

/// A `builtin.module`: its attributes (`mhlo.num_partitions`, …) and its
/// functions (`func.func` operations: `sym_name`, `function_type`,
/// `sym_visibility`, `arg_attrs`, `res_attrs` attributes and one body
/// region).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    /// `module @name`, when named.
    pub name: Option<String>,
    /// The module's attributes.
    pub attrs: Vec<(String, Attr)>,
    /// The top-level operations (`func.func`).
    pub ops: Vec<Operation>,
}
