//! The only list of ops. Each row gives the variant, its HLO text name, its
//! operand count and its family (which decides the file each layer keeps it
//! in: `infer/<family>.rs`, `interp/<family>.rs`, `xla-jit/src/emit/…`).
//!
//! A `match` on [`Opcode`] never has a catch-all arm, so adding a row makes the
//! compiler list every place the new op is missing.

use std::fmt;

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

macro_rules! opcodes {
    ($($variant:ident => $name:literal, $arity:expr, $family:ident;)*) => {
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
        }
    };
}

opcodes! {
    // variant               HLO text name              arity        family
    Abs                   => "abs",                     Fixed(1),    Elementwise;
    Add                   => "add",                     Fixed(2),    Elementwise;
    AfterAll              => "after-all",               Variadic,    SideEffect;
    AllGather             => "all-gather",              Variadic,    Collective;
    AllReduce             => "all-reduce",              Variadic,    Collective;
    AllToAll              => "all-to-all",              Variadic,    Collective;
    And                   => "and",                     Fixed(2),    Elementwise;
    Atan2                 => "atan2",                   Fixed(2),    Elementwise;
    BatchNormGrad         => "batch-norm-grad",         Fixed(5),    Normalization;
    BatchNormInference    => "batch-norm-inference",    Fixed(5),    Normalization;
    BatchNormTraining     => "batch-norm-training",     Fixed(3),    Normalization;
    Bitcast               => "bitcast",                 Fixed(1),    DataMovement;
    BitcastConvert        => "bitcast-convert",         Fixed(1),    Elementwise;
    Broadcast             => "broadcast",               Fixed(1),    DataMovement;
    Call                  => "call",                    Variadic,    Control;
    Cbrt                  => "cbrt",                    Fixed(1),    Elementwise;
    Ceil                  => "ceil",                    Fixed(1),    Elementwise;
    Cholesky              => "cholesky",                Fixed(1),    Linalg;
    Clamp                 => "clamp",                   Fixed(3),    Elementwise;
    Clz                   => "count-leading-zeros",     Fixed(1),    Elementwise;
    CollectivePermute     => "collective-permute",      Fixed(1),    Collective;
    Compare               => "compare",                 Fixed(2),    Elementwise;
    Complex               => "complex",                 Fixed(2),    Elementwise;
    Concatenate           => "concatenate",             Variadic,    DataMovement;
    Conditional           => "conditional",             Variadic,    Control;
    Constant              => "constant",                Fixed(0),    Control;
    Convert               => "convert",                 Fixed(1),    Elementwise;
    Convolution           => "convolution",             Fixed(2),    Dot;
    Copy                  => "copy",                    Fixed(1),    DataMovement;
    Cos                   => "cosine",                  Fixed(1),    Elementwise;
    CustomCall            => "custom-call",             Variadic,    Control;
    Divide                => "divide",                  Fixed(2),    Elementwise;
    Dot                   => "dot",                     Fixed(2),    Dot;
    DynamicSlice          => "dynamic-slice",           Variadic,    Indexing;
    DynamicUpdateSlice    => "dynamic-update-slice",    Variadic,    Indexing;
    Erf                   => "erf",                     Fixed(1),    Elementwise;
    Exp                   => "exponential",             Fixed(1),    Elementwise;
    Expm1                 => "exponential-minus-one",   Fixed(1),    Elementwise;
    Fft                   => "fft",                     Fixed(1),    Linalg;
    Floor                 => "floor",                   Fixed(1),    Elementwise;
    Fusion                => "fusion",                  Variadic,    Control;
    Gather                => "gather",                  Fixed(2),    Indexing;
    GetDimensionSize      => "get-dimension-size",      Fixed(1),    Dynamic;
    GetTupleElement       => "get-tuple-element",       Fixed(1),    Control;
    Imag                  => "imag",                    Fixed(1),    Elementwise;
    Infeed                => "infeed",                  Fixed(1),    SideEffect;
    Iota                  => "iota",                    Fixed(0),    DataMovement;
    IsFinite              => "is-finite",               Fixed(1),    Elementwise;
    Log                   => "log",                     Fixed(1),    Elementwise;
    Log1p                 => "log-plus-one",            Fixed(1),    Elementwise;
    Logistic              => "logistic",                Fixed(1),    Elementwise;
    Map                   => "map",                     Variadic,    Elementwise;
    Maximum               => "maximum",                 Fixed(2),    Elementwise;
    Minimum               => "minimum",                 Fixed(2),    Elementwise;
    Multiply              => "multiply",                Fixed(2),    Elementwise;
    Negate                => "negate",                  Fixed(1),    Elementwise;
    Not                   => "not",                     Fixed(1),    Elementwise;
    OptimizationBarrier   => "opt-barrier",             Fixed(1),    Control;
    Or                    => "or",                      Fixed(2),    Elementwise;
    Outfeed               => "outfeed",                 Fixed(2),    SideEffect;
    Pad                   => "pad",                     Fixed(2),    DataMovement;
    Parameter             => "parameter",               Fixed(0),    Control;
    PartitionId           => "partition-id",            Fixed(0),    Collective;
    PopulationCount       => "popcnt",                  Fixed(1),    Elementwise;
    Power                 => "power",                   Fixed(2),    Elementwise;
    Real                  => "real",                    Fixed(1),    Elementwise;
    Recv                  => "recv",                    Fixed(1),    SideEffect;
    RecvDone              => "recv-done",               Fixed(1),    SideEffect;
    Reduce                => "reduce",                  Variadic,    Reduce;
    ReducePrecision       => "reduce-precision",        Fixed(1),    Elementwise;
    ReduceScatter         => "reduce-scatter",          Variadic,    Collective;
    ReduceWindow          => "reduce-window",           Variadic,    Reduce;
    Remainder             => "remainder",               Fixed(2),    Elementwise;
    ReplicaId             => "replica-id",              Fixed(0),    Collective;
    Reshape               => "reshape",                 Fixed(1),    DataMovement;
    Reverse               => "reverse",                 Fixed(1),    DataMovement;
    Rng                   => "rng",                     Fixed(2),    Random;
    RngBitGenerator       => "rng-bit-generator",       Fixed(1),    Random;
    RoundNearestAfz       => "round-nearest-afz",       Fixed(1),    Elementwise;
    RoundNearestEven      => "round-nearest-even",      Fixed(1),    Elementwise;
    Rsqrt                 => "rsqrt",                   Fixed(1),    Elementwise;
    Scatter               => "scatter",                 Variadic,    Indexing;
    Select                => "select",                  Fixed(3),    Elementwise;
    SelectAndScatter      => "select-and-scatter",      Fixed(3),    Reduce;
    Send                  => "send",                    Fixed(2),    SideEffect;
    SendDone              => "send-done",               Fixed(1),    SideEffect;
    SetDimensionSize      => "set-dimension-size",      Fixed(2),    Dynamic;
    ShiftLeft             => "shift-left",              Fixed(2),    Elementwise;
    ShiftRightArithmetic  => "shift-right-arithmetic",  Fixed(2),    Elementwise;
    ShiftRightLogical     => "shift-right-logical",     Fixed(2),    Elementwise;
    Sign                  => "sign",                    Fixed(1),    Elementwise;
    Sin                   => "sine",                    Fixed(1),    Elementwise;
    Slice                 => "slice",                   Fixed(1),    DataMovement;
    Sort                  => "sort",                    Variadic,    Reduce;
    Sqrt                  => "sqrt",                    Fixed(1),    Elementwise;
    Subtract              => "subtract",                Fixed(2),    Elementwise;
    Tan                   => "tan",                     Fixed(1),    Elementwise;
    Tanh                  => "tanh",                    Fixed(1),    Elementwise;
    TopK                  => "topk",                    Fixed(1),    Reduce;
    Transpose             => "transpose",               Fixed(1),    DataMovement;
    TriangularSolve       => "triangular-solve",        Fixed(2),    Linalg;
    Tuple                 => "tuple",                   Variadic,    Control;
    While                 => "while",                   Fixed(1),    Control;
    Xor                   => "xor",                     Fixed(2),    Elementwise;
}

impl Opcode {
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
    }
}
