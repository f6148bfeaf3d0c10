//! The only list of ops. Each row gives what is data about an op: its
//! variant, its HLO text name, its operand count, its family (which decides
//! the file each layer keeps it in: `infer/<family>.rs`, `interp/…`,
//! `xla-jit/src/emit/…`), its element-wise [`Form`] (the shape and type rule
//! of the unary and binary ops), its [`Cost`] class and its [`Flags`].
//!
//! Layers derive from the row instead of listing ops again: the passes ask
//! the flags (folding, effects, CSE, layouts), shape inference and the
//! interpreter dispatch on the form, the JIT's fusion asks `EXPENSIVE` and
//! the cost class. An exhaustive `match` on [`Opcode`] stays only where the
//! behaviour differs per op (a shape rule, a scalar function, a lowering).

use std::fmt;

use crate::TypeClass;

/// How many operands an op takes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arity {
    /// Exactly this many.
    Fixed(usize),
    /// Any number (the op's shape rule says which counts are valid).
    Variadic,
}

/// A group of ops that share a shape-inference, interpreter and emitter file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Family {
    /// Element-wise unary, binary and ternary ops, compare, convert, map.
    Elementwise,
    /// Broadcast, reshape, transpose, reverse, slice, concatenate, pad, iota, copy, bitcast.
    DataMovement,
    /// Dynamic slices, gather, scatter.
    Indexing,
    /// Reduce, reduce-window, select-and-scatter, sort, top-k.
    Reduce,
    /// Dot and convolution.
    Dot,
    /// Parameters, constants, tuples, calls, loops, conditionals, custom calls.
    Control,
    /// Cross-replica communication.
    Collective,
    /// Infeed, outfeed, send, recv and tokens.
    SideEffect,
    /// Random number generation.
    Random,
    /// Cholesky, triangular solve, FFT.
    Linalg,
    /// Batch normalisation.
    Normalization,
    /// Dynamic dimension sizes.
    Dynamic,
}

/// The element type an element-wise op produces from its operands' type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Produces {
    /// The operands' type.
    Same,
    /// `pred`.
    Predicate,
    /// The component type of a complex operand (`c64` → `f32`); real types
    /// map to themselves.
    Component,
    /// The complex type with the operands' type as component (`f32` → `c64`).
    ComplexOf,
}

/// The shape and type rule of an op, when it is one of the plain
/// element-wise forms (OPS.md's unary and binary arithmetic, and XLA's
/// `ShapeInference::InferUnaryOpShape` / `InferBinaryOpShape`): operands of
/// one shape and one element type, taken from the class, and a result of
/// that shape with the type it produces.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// One operand.
    Unary(TypeClass, Produces),
    /// Two operands of one type (with broadcasting in the builder).
    Binary(TypeClass, Produces),
    /// Any other op: it has its own shape rule.
    Own,
}

/// What one vector operation of an op costs, roughly, in a fused kernel
/// (the JIT's fusion and chunking weigh kernels by it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cost {
    /// Moves no data in a kernel (an index change, a parameter).
    Free,
    /// One or two instructions.
    Cheap,
    /// A division, a square root, an integer op with no vector form.
    Moderate,
    /// A polynomial approximation (exp, log, tanh, sin, …).
    Transcendental,
    /// A long sequence with branches (power, remainder).
    Heavy,
    /// Not part of a fused kernel: runs on its own.
    Opaque,
}

/// Boolean facts about an op.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Flags(u8);

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags(0);
    /// Constant folding pays off when every operand is constant (not for
    /// ops whose result is larger than their operands, the device-dependent
    /// ones and the side-effecting ones).
    pub const FOLD: Flags = Flags(1);
    /// Operands and result take one layout (the op reads each result
    /// element at the same position of its operands, or moves whole
    /// dimensions without changing their order).
    pub const SAME_LAYOUT: Flags = Flags(1 << 1);
    /// A binary op whose operands can be swapped without changing the value.
    pub const COMMUTATIVE: Flags = Flags(1 << 2);
    /// Worth computing once, not once per consumer, when fusing (XLA's
    /// `IsExpensive`).
    pub const EXPENSIVE: Flags = Flags(1 << 3);
    /// Always side-effecting (never removed, merged or folded); ops whose
    /// effect depends on attributes are decided by `passes::effects`.
    pub const SIDE_EFFECT: Flags = Flags(1 << 4);

    /// Both sets of flags.
    pub const fn with(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// `true` if every flag of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

macro_rules! opcodes {
    ($($variant:ident => $name:literal, $arity:expr, $family:ident, $form:expr, $cost:ident,
       [$($flag:ident)*];)*) => {
        /// An HLO operation.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),*];

            /// The HLO text name, e.g. `"exponential"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $name,)*
                }
            }

            /// How many operands the op takes.
            pub const fn arity(self) -> Arity {
                use Arity::*;
                match self {
                    $(Opcode::$variant => $arity,)*
                }
            }

            /// The op's family.
            pub const fn family(self) -> Family {
                match self {
                    $(Opcode::$variant => Family::$family,)*
                }
            }

            /// The op's element-wise form ([`Form::Own`] for every op with its
            /// own shape rule).
            pub const fn form(self) -> Form {
                use Form::*;
                use Produces::*;
                use TypeClass::*;
                match self {
                    $(Opcode::$variant => $form,)*
                }
            }

            /// The op's cost class.
            pub const fn cost(self) -> Cost {
                match self {
                    $(Opcode::$variant => Cost::$cost,)*
                }
            }

            /// The op's flags.
            pub const fn flags(self) -> Flags {
                match self {
                    $(Opcode::$variant => Flags::NONE $(.with(Flags::$flag))*,)*
                }
            }
        }
    };
}

opcodes! {
    // variant            text name                  arity      family         form                                  cost            flags
    Abs                  => "abs",                     Fixed(1),  Elementwise,   Unary(Signed, Component),             Cheap,          [FOLD SAME_LAYOUT];
    Add                  => "add",                     Fixed(2),  Elementwise,   Binary(Any, Same),                    Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
    AfterAll             => "after-all",               Variadic,  SideEffect,    Own,                                  Opaque,         [];
    AllGather            => "all-gather",              Variadic,  Collective,    Own,                                  Opaque,         [];
    AllReduce            => "all-reduce",              Variadic,  Collective,    Own,                                  Opaque,         [];
    AllToAll             => "all-to-all",              Variadic,  Collective,    Own,                                  Opaque,         [];
    And                  => "and",                     Fixed(2),  Elementwise,   Binary(PredOrIntegral, Same),         Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
    Atan2                => "atan2",                   Fixed(2),  Elementwise,   Binary(FloatingOrComplex, Same),      Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    BatchNormGrad        => "batch-norm-grad",         Fixed(5),  Normalization, Own,                                  Opaque,         [FOLD];
    BatchNormInference   => "batch-norm-inference",    Fixed(5),  Normalization, Own,                                  Opaque,         [FOLD];
    BatchNormTraining    => "batch-norm-training",     Fixed(3),  Normalization, Own,                                  Opaque,         [FOLD];
    Bitcast              => "bitcast",                 Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD];
    BitcastConvert       => "bitcast-convert",         Fixed(1),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Broadcast            => "broadcast",               Fixed(1),  DataMovement,  Own,                                  Free,           [];
    Call                 => "call",                    Variadic,  Control,       Own,                                  Opaque,         [FOLD];
    Cbrt                 => "cbrt",                    Fixed(1),  Elementwise,   Unary(Floating, Same),                Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Ceil                 => "ceil",                    Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT];
    Cholesky             => "cholesky",                Fixed(1),  Linalg,        Own,                                  Opaque,         [FOLD];
    Clamp                => "clamp",                   Fixed(3),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Clz                  => "count-leading-zeros",     Fixed(1),  Elementwise,   Unary(Integral, Same),                Moderate,       [FOLD SAME_LAYOUT];
    CollectivePermute    => "collective-permute",      Fixed(1),  Collective,    Own,                                  Opaque,         [SAME_LAYOUT];
    Compare              => "compare",                 Fixed(2),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Complex              => "complex",                 Fixed(2),  Elementwise,   Binary(F32OrF64, ComplexOf),          Cheap,          [FOLD SAME_LAYOUT];
    Concatenate          => "concatenate",             Variadic,  DataMovement,  Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Conditional          => "conditional",             Variadic,  Control,       Own,                                  Opaque,         [FOLD];
    Constant             => "constant",                Fixed(0),  Control,       Own,                                  Free,           [];
    Convert              => "convert",                 Fixed(1),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Convolution          => "convolution",             Fixed(2),  Dot,           Own,                                  Cheap,          [FOLD];
    Copy                 => "copy",                    Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD SAME_LAYOUT];
    Cos                  => "cosine",                  Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    CustomCall           => "custom-call",             Variadic,  Control,       Own,                                  Opaque,         [];
    Divide               => "divide",                  Fixed(2),  Elementwise,   Binary(Arithmetic, Same),             Moderate,       [FOLD SAME_LAYOUT EXPENSIVE];
    Dot                  => "dot",                     Fixed(2),  Dot,           Own,                                  Opaque,         [FOLD];
    DynamicSlice         => "dynamic-slice",           Variadic,  Indexing,      Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    DynamicUpdateSlice   => "dynamic-update-slice",    Variadic,  Indexing,      Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Erf                  => "erf",                     Fixed(1),  Elementwise,   Unary(Floating, Same),                Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Exp                  => "exponential",             Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Expm1                => "exponential-minus-one",   Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Fft                  => "fft",                     Fixed(1),  Linalg,        Own,                                  Opaque,         [];
    Floor                => "floor",                   Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT];
    Fusion               => "fusion",                  Variadic,  Control,       Own,                                  Opaque,         [FOLD];
    Gather               => "gather",                  Fixed(2),  Indexing,      Own,                                  Moderate,       [FOLD];
    GetDimensionSize     => "get-dimension-size",      Fixed(1),  Dynamic,       Own,                                  Opaque,         [FOLD];
    GetTupleElement      => "get-tuple-element",       Fixed(1),  Control,       Own,                                  Free,           [FOLD];
    Imag                 => "imag",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Component),  Cheap,          [FOLD SAME_LAYOUT];
    Infeed               => "infeed",                  Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT];
    Iota                 => "iota",                    Fixed(0),  DataMovement,  Own,                                  Free,           [];
    IsFinite             => "is-finite",               Fixed(1),  Elementwise,   Unary(Floating, Predicate),           Cheap,          [FOLD SAME_LAYOUT];
    Log                  => "log",                     Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Log1p                => "log-plus-one",            Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Logistic             => "logistic",                Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Map                  => "map",                     Variadic,  Elementwise,   Own,                                  Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Maximum              => "maximum",                 Fixed(2),  Elementwise,   Binary(Real, Same),                   Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
    Minimum              => "minimum",                 Fixed(2),  Elementwise,   Binary(Real, Same),                   Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
    Multiply             => "multiply",                Fixed(2),  Elementwise,   Binary(Any, Same),                    Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
    Negate               => "negate",                  Fixed(1),  Elementwise,   Unary(Arithmetic, Same),              Cheap,          [FOLD SAME_LAYOUT];
    Not                  => "not",                     Fixed(1),  Elementwise,   Unary(PredOrIntegral, Same),          Cheap,          [FOLD SAME_LAYOUT];
    OptimizationBarrier  => "opt-barrier",             Fixed(1),  Control,       Own,                                  Opaque,         [FOLD];
    Or                   => "or",                      Fixed(2),  Elementwise,   Binary(PredOrIntegral, Same),         Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
    Outfeed              => "outfeed",                 Fixed(2),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT];
    Pad                  => "pad",                     Fixed(2),  DataMovement,  Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Parameter            => "parameter",               Fixed(0),  Control,       Own,                                  Free,           [];
    PartitionId          => "partition-id",            Fixed(0),  Collective,    Own,                                  Opaque,         [];
    PopulationCount      => "popcnt",                  Fixed(1),  Elementwise,   Unary(Integral, Same),                Moderate,       [FOLD SAME_LAYOUT];
    Power                => "power",                   Fixed(2),  Elementwise,   Binary(Arithmetic, Same),             Heavy,          [FOLD SAME_LAYOUT EXPENSIVE];
    Real                 => "real",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Component),  Cheap,          [FOLD SAME_LAYOUT];
    Recv                 => "recv",                    Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT];
    RecvDone             => "recv-done",               Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT];
    Reduce               => "reduce",                  Variadic,  Reduce,        Own,                                  Cheap,          [FOLD];
    ReducePrecision      => "reduce-precision",        Fixed(1),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    ReduceScatter        => "reduce-scatter",          Variadic,  Collective,    Own,                                  Opaque,         [];
    ReduceWindow         => "reduce-window",           Variadic,  Reduce,        Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    Remainder            => "remainder",               Fixed(2),  Elementwise,   Binary(RealArithmetic, Same),         Heavy,          [FOLD SAME_LAYOUT EXPENSIVE];
    ReplicaId            => "replica-id",              Fixed(0),  Collective,    Own,                                  Opaque,         [];
    Reshape              => "reshape",                 Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD];
    Reverse              => "reverse",                 Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD SAME_LAYOUT];
    Rng                  => "rng",                     Fixed(2),  Random,        Own,                                  Opaque,         [SIDE_EFFECT];
    RngBitGenerator      => "rng-bit-generator",       Fixed(1),  Random,        Own,                                  Opaque,         [];
    RoundNearestAfz      => "round-nearest-afz",       Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT];
    RoundNearestEven     => "round-nearest-even",      Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT];
    Rsqrt                => "rsqrt",                   Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Moderate,       [FOLD SAME_LAYOUT EXPENSIVE];
    Scatter              => "scatter",                 Variadic,  Indexing,      Own,                                  Opaque,         [FOLD SAME_LAYOUT];
    Select               => "select",                  Fixed(3),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT];
    SelectAndScatter     => "select-and-scatter",      Fixed(3),  Reduce,        Own,                                  Opaque,         [FOLD SAME_LAYOUT];
    Send                 => "send",                    Fixed(2),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT];
    SendDone             => "send-done",               Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT];
    SetDimensionSize     => "set-dimension-size",      Fixed(2),  Dynamic,       Own,                                  Opaque,         [FOLD SAME_LAYOUT];
    ShiftLeft            => "shift-left",              Fixed(2),  Elementwise,   Binary(Integral, Same),               Moderate,       [FOLD SAME_LAYOUT];
    ShiftRightArithmetic => "shift-right-arithmetic",  Fixed(2),  Elementwise,   Binary(Integral, Same),               Moderate,       [FOLD SAME_LAYOUT];
    ShiftRightLogical    => "shift-right-logical",     Fixed(2),  Elementwise,   Binary(Integral, Same),               Moderate,       [FOLD SAME_LAYOUT];
    Sign                 => "sign",                    Fixed(1),  Elementwise,   Unary(Signed, Same),                  Cheap,          [FOLD SAME_LAYOUT];
    Sin                  => "sine",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Slice                => "slice",                   Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD SAME_LAYOUT];
    Sort                 => "sort",                    Variadic,  Reduce,        Own,                                  Opaque,         [FOLD SAME_LAYOUT];
    Sqrt                 => "sqrt",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Moderate,       [FOLD SAME_LAYOUT EXPENSIVE];
    Subtract             => "subtract",                Fixed(2),  Elementwise,   Binary(Arithmetic, Same),             Cheap,          [FOLD SAME_LAYOUT];
    Tan                  => "tan",                     Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    Tanh                 => "tanh",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE];
    TopK                 => "topk",                    Fixed(1),  Reduce,        Own,                                  Opaque,         [FOLD];
    Transpose            => "transpose",               Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD];
    TriangularSolve      => "triangular-solve",        Fixed(2),  Linalg,        Own,                                  Opaque,         [FOLD];
    Tuple                => "tuple",                   Variadic,  Control,       Own,                                  Free,           [];
    While                => "while",                   Fixed(1),  Control,       Own,                                  Opaque,         [];
    Xor                  => "xor",                     Fixed(2),  Elementwise,   Binary(PredOrIntegral, Same),         Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE];
}

impl Opcode {
    /// `true` if the op has every flag of `flags`.
    pub const fn has(self, flags: Flags) -> bool {
        self.flags().contains(flags)
    }

    /// Looks an op up by its HLO text name.
    pub fn from_name(name: &str) -> Option<Opcode> {
        Self::ALL.iter().copied().find(|op| op.name() == name)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_rows_sorted() {
        for (i, op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(Opcode::from_name(op.name()), Some(*op));
            if i > 0 {
                let (prev, this) = (format!("{:?}", Opcode::ALL[i - 1]), format!("{op:?}"));
                assert!(prev < this, "rows must stay sorted: {prev} before {this}");
            }
        }
        assert_eq!(Opcode::from_name("exponential"), Some(Opcode::Exp));
        assert_eq!(Opcode::Exp.arity(), Arity::Fixed(1));
        assert_eq!(Opcode::Reduce.family(), Family::Reduce);
        assert!(Opcode::Add.has(Flags::COMMUTATIVE.with(Flags::FOLD)));
        assert!(!Opcode::Subtract.has(Flags::COMMUTATIVE));
        assert_eq!(
            Opcode::IsFinite.form(),
            Form::Unary(TypeClass::Floating, Produces::Predicate)
        );
    }

    #[test]
    fn forms_belong_to_element_wise_ops_of_their_arity() {
        for &op in Opcode::ALL {
            let want = match op.form() {
                Form::Unary(..) => Arity::Fixed(1),
                Form::Binary(..) => Arity::Fixed(2),
                Form::Own => continue,
            };
            assert_eq!(op.arity(), want, "{op}");
            assert_eq!(op.family(), Family::Elementwise, "{op}");
        }
    }
}
