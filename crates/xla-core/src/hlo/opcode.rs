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
/// element-wise forms (`docs/semantics.md`, *Unary functions* and
/// *Element-wise arithmetic*, and XLA's `ShapeInference::InferUnaryOpShape`
/// / `InferBinaryOpShape`): operands of one shape and one element type,
/// taken from the class, and a result of that shape with the type it
/// produces.
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

/// The builder method's name of a row, if it has one.
macro_rules! builder_name {
    (_) => {
        None
    };
    ($method:ident) => {
        Some(stringify!($method))
    };
}

macro_rules! opcodes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal, $arity:expr, $family:ident,
       $form:ident $(($($form_args:tt)*))?, $cost:ident, [$($flag:ident)*], $builder:tt;)*) => {
        /// An HLO operation.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                $(#[$doc])*
                #[doc = concat!("\n\nHLO text: `", $name, "`.")]
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
                    $(Opcode::$variant => $form $(($($form_args)*))?,)*
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

            /// The `XlaBuilder` method (and `xla!` operation) of a plain
            /// element-wise op: `Opcode::Negate` is `neg`.
            pub const fn builder_name(self) -> Option<&'static str> {
                match self {
                    $(Opcode::$variant => builder_name!($builder),)*
                }
            }
        }
    };
}

/// The op table, handed to `$callback` (a macro taking every row): the
/// [`Opcode`] enum and its methods are made from it here, the builder's
/// element-wise methods in `builder/elementwise.rs`. Each row, after its
/// documentation: variant, HLO text name, arity, family, form, cost class,
/// flags, and the `XlaBuilder` (and `xla!`) method of a plain element-wise
/// op (`_` for none).
macro_rules! op_table {
    ($callback:ident) => {
        $callback! {
            // variant            text name                  arity      family         form                                  cost            flags, builder method
            /// `|x|`; of a complex number, its magnitude, in the component type.
            Abs                  => "abs",                     Fixed(1),  Elementwise,   Unary(Signed, Component),             Cheap,          [FOLD SAME_LAYOUT], abs;
            /// `lhs + rhs` (integers wrap; `or` on `pred`).
            Add                  => "add",                     Fixed(2),  Elementwise,   Binary(Any, Same),                    Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], add;
            /// A token that orders the side effects of its token operands before what uses it.
            AfterAll             => "after-all",               Variadic,  SideEffect,    Own,                                  Opaque,         [], _;
            /// Concatenates every device's operand along a dimension, within each replica group.
            AllGather            => "all-gather",              Variadic,  Collective,    Own,                                  Opaque,         [], _;
            /// Combines every device's operand with the reducer, within each replica group.
            AllReduce            => "all-reduce",              Variadic,  Collective,    Own,                                  Opaque,         [], _;
            /// Splits the operand into pieces, sends piece `i` to device `i` of the group and concatenates what arrives.
            AllToAll             => "all-to-all",              Variadic,  Collective,    Own,                                  Opaque,         [], _;
            /// Logical (pred) or bitwise (integers) and.
            And                  => "and",                     Fixed(2),  Elementwise,   Binary(PredOrIntegral, Same),         Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], and;
            /// Two-argument arctangent of `lhs / rhs`, in the quadrant of the point (`rhs`, `lhs`).
            Atan2                => "atan2",                   Fixed(2),  Elementwise,   Binary(FloatingOrComplex, Same),      Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], atan2;
            /// The gradients of batch normalisation with respect to its operand, scale and offset.
            BatchNormGrad        => "batch-norm-grad",         Fixed(5),  Normalization, Own,                                  Opaque,         [FOLD], _;
            /// Normalises with the given mean and variance per feature, then scales and offsets.
            BatchNormInference   => "batch-norm-inference",    Fixed(5),  Normalization, Own,                                  Opaque,         [FOLD], _;
            /// Normalises with the batch's own mean and variance per feature; returns them too.
            BatchNormTraining    => "batch-norm-training",     Fixed(3),  Normalization, Own,                                  Opaque,         [FOLD], _;
            /// The operand's buffer read as another shape of the same byte size (no computation).
            Bitcast              => "bitcast",                 Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD], _;
            /// Each element's bits read as another element type; a narrower type adds a minor-most dimension, a wider one removes it.
            BitcastConvert       => "bitcast-convert",         Fixed(1),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// Copies the operand into a larger shape; its dimensions map to the listed result dimensions.
            Broadcast            => "broadcast",               Fixed(1),  DataMovement,  Own,                                  Free,           [], _;
            /// Runs a computation on the operands.
            Call                 => "call",                    Variadic,  Control,       Own,                                  Opaque,         [FOLD], _;
            /// Cube root (of negative numbers too: `cbrt(-8) = -2`).
            Cbrt                 => "cbrt",                    Fixed(1),  Elementwise,   Unary(Floating, Same),                Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], cbrt;
            /// `⌈x⌉`.
            Ceil                 => "ceil",                    Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT], ceil;
            /// The Cholesky factor of each symmetric (Hermitian) positive-definite matrix, lower or upper; NaN where it does not exist.
            Cholesky             => "cholesky",                Fixed(1),  Linalg,        Own,                                  Opaque,         [FOLD], _;
            /// `min(max(operand, lo), hi)` element by element; a bound may be a scalar.
            Clamp                => "clamp",                   Fixed(3),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// Count of leading zero bits.
            Clz                  => "count-leading-zeros",     Fixed(1),  Elementwise,   Unary(Integral, Same),                Moderate,       [FOLD SAME_LAYOUT], clz;
            /// Sends the operand from each source device to its target; a device with no source gets zeros.
            CollectivePermute    => "collective-permute",      Fixed(1),  Collective,    Own,                                  Opaque,         [SAME_LAYOUT], _;
            /// `pred` result of comparing elements by a direction (and a type: signed, unsigned, float or the total order of floats).
            Compare              => "compare",                 Fixed(2),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// A complex number from real and imaginary parts.
            Complex              => "complex",                 Fixed(2),  Elementwise,   Binary(F32OrF64, ComplexOf),          Cheap,          [FOLD SAME_LAYOUT], complex;
            /// Joins the operands along one dimension.
            Concatenate          => "concatenate",             Variadic,  DataMovement,  Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// Runs one of its branch computations, chosen by a `pred` or an `s32` index (out of range: the last).
            Conditional          => "conditional",             Variadic,  Control,       Own,                                  Opaque,         [FOLD], _;
            /// A literal value.
            Constant             => "constant",                Fixed(0),  Control,       Own,                                  Free,           [], _;
            /// Each element converted to another type: floats round to nearest even, float to integer truncates and saturates (NaN gives 0).
            Convert              => "convert",                 Fixed(1),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// A convolution of an input by a kernel over spatial windows, with strides, padding, dilations and feature and batch groups.
            Convolution          => "convolution",             Fixed(2),  Dot,           Own,                                  Cheap,          [FOLD], _;
            /// The operand, in a new buffer (possibly another layout).
            Copy                 => "copy",                    Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD SAME_LAYOUT], _;
            /// Cosine.
            Cos                  => "cosine",                  Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], cos;
            /// A call of a target by name (the LAPACK routines JAX emits, and others the runtime knows).
            CustomCall           => "custom-call",             Variadic,  Control,       Own,                                  Opaque,         [], _;
            /// `lhs / rhs`; integer division truncates, and by zero gives all ones.
            Divide               => "divide",                  Fixed(2),  Elementwise,   Binary(Arithmetic, Same),             Moderate,       [FOLD SAME_LAYOUT EXPENSIVE], div;
            /// Sums of products over the contracting dimensions, batched over the batch dimensions.
            Dot                  => "dot",                     Fixed(2),  Dot,           Own,                                  Opaque,         [FOLD], _;
            /// A slice of fixed sizes at start indices read at run time (clamped so the slice fits).
            DynamicSlice         => "dynamic-slice",           Variadic,  Indexing,      Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// The operand with an update written at start indices read at run time (clamped so it fits).
            DynamicUpdateSlice   => "dynamic-update-slice",    Variadic,  Indexing,      Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// Error function.
            Erf                  => "erf",                     Fixed(1),  Elementwise,   Unary(Floating, Same),                Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], erf;
            /// `eˣ`.
            Exp                  => "exponential",             Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], exp;
            /// `eˣ − 1`, accurate near 0.
            Expm1                => "exponential-minus-one",   Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], expm1;
            /// A discrete Fourier transform over the last one to three dimensions: FFT, IFFT, RFFT or IRFFT.
            Fft                  => "fft",                     Fixed(1),  Linalg,        Own,                                  Opaque,         [], _;
            /// `⌊x⌋`.
            Floor                => "floor",                   Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT], floor;
            /// A fused computation (as XLA prints it after fusion); runs like a call.
            Fusion               => "fusion",                  Variadic,  Control,       Own,                                  Opaque,         [FOLD], _;
            /// Slices of the operand at indices read from another array, stacked along new or batch dimensions.
            Gather               => "gather",                  Fixed(2),  Indexing,      Own,                                  Moderate,       [FOLD], _;
            /// The size of a dimension, as an `s32` scalar.
            GetDimensionSize     => "get-dimension-size",      Fixed(1),  Dynamic,       Own,                                  Opaque,         [FOLD], _;
            /// One element of a tuple.
            GetTupleElement      => "get-tuple-element",       Fixed(1),  Control,       Own,                                  Free,           [FOLD], _;
            /// Imaginary part (0 for real operands).
            Imag                 => "imag",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Component),  Cheap,          [FOLD SAME_LAYOUT], imag;
            /// Reads data from the host's infeed queue.
            Infeed               => "infeed",                  Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// Counts 0, 1, 2, … along one dimension of the result.
            Iota                 => "iota",                    Fixed(0),  DataMovement,  Own,                                  Free,           [], _;
            /// `true` where `x` is neither infinite nor NaN.
            IsFinite             => "is-finite",               Fixed(1),  Elementwise,   Unary(Floating, Predicate),           Cheap,          [FOLD SAME_LAYOUT], is_finite;
            /// Natural logarithm.
            Log                  => "log",                     Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], log;
            /// `ln(1 + x)`, accurate near 0.
            Log1p                => "log-plus-one",            Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], log1p;
            /// `1 / (1 + e⁻ˣ)`.
            Logistic             => "logistic",                Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], logistic;
            /// Applies a scalar computation to the operands' elements.
            Map                  => "map",                     Variadic,  Elementwise,   Own,                                  Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], _;
            /// The larger operand (NaN if either is NaN; `+0 > −0`).
            Maximum              => "maximum",                 Fixed(2),  Elementwise,   Binary(Real, Same),                   Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], max;
            /// The smaller operand (NaN if either is NaN; `−0 < +0`).
            Minimum              => "minimum",                 Fixed(2),  Elementwise,   Binary(Real, Same),                   Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], min;
            /// `lhs · rhs` (integers wrap; `and` on `pred`).
            Multiply             => "multiply",                Fixed(2),  Elementwise,   Binary(Any, Same),                    Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], mul;
            /// `−x` (integers wrap).
            Negate               => "negate",                  Fixed(1),  Elementwise,   Unary(Arithmetic, Same),              Cheap,          [FOLD SAME_LAYOUT], neg;
            /// Logical (pred) or bitwise (integers) not.
            Not                  => "not",                     Fixed(1),  Elementwise,   Unary(PredOrIntegral, Same),          Cheap,          [FOLD SAME_LAYOUT], not;
            /// Its operand, unchanged; passes do not move work across it.
            OptimizationBarrier  => "opt-barrier",             Fixed(1),  Control,       Own,                                  Opaque,         [FOLD], _;
            /// Logical (pred) or bitwise (integers) or.
            Or                   => "or",                      Fixed(2),  Elementwise,   Binary(PredOrIntegral, Same),         Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], or;
            /// Writes data to the host's outfeed queue.
            Outfeed              => "outfeed",                 Fixed(2),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// The operand with low, high and interior padding of a scalar value in each dimension (negative low or high crops).
            Pad                  => "pad",                     Fixed(2),  DataMovement,  Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// An argument of the computation.
            Parameter            => "parameter",               Fixed(0),  Control,       Own,                                  Free,           [], _;
            /// The device's partition number, as a `u32` scalar.
            PartitionId          => "partition-id",            Fixed(0),  Collective,    Own,                                  Opaque,         [], _;
            /// Number of set bits.
            PopulationCount      => "popcnt",                  Fixed(1),  Elementwise,   Unary(Integral, Same),                Moderate,       [FOLD SAME_LAYOUT], population_count;
            /// `lhsʳʰˢ` (integers: by repeated squaring; a negative exponent gives 0 except for bases ±1).
            Power                => "power",                   Fixed(2),  Elementwise,   Binary(Arithmetic, Same),             Heavy,          [FOLD SAME_LAYOUT EXPENSIVE], pow;
            /// Real part.
            Real                 => "real",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Component),  Cheap,          [FOLD SAME_LAYOUT], real;
            /// Receives data from another program or the host over a channel.
            Recv                 => "recv",                    Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// Completes a `recv`.
            RecvDone             => "recv-done",               Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// Combines elements along dimensions with a computation, from an initial value; several operands reduce together.
            Reduce               => "reduce",                  Variadic,  Reduce,        Own,                                  Cheap,          [FOLD], _;
            /// Rounds floats to a narrower exponent and mantissa, staying in the same type.
            ReducePrecision      => "reduce-precision",        Fixed(1),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// An all-reduce whose result is split along a dimension, each device keeping its piece.
            ReduceScatter        => "reduce-scatter",          Variadic,  Collective,    Own,                                  Opaque,         [], _;
            /// Combines the elements of each window (with strides, padding and dilations) with a computation.
            ReduceWindow         => "reduce-window",           Variadic,  Reduce,        Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// Remainder of truncated division: the sign of the dividend.
            Remainder            => "remainder",               Fixed(2),  Elementwise,   Binary(RealArithmetic, Same),         Heavy,          [FOLD SAME_LAYOUT EXPENSIVE], rem;
            /// The device's replica number, as a `u32` scalar.
            ReplicaId            => "replica-id",              Fixed(0),  Collective,    Own,                                  Opaque,         [], _;
            /// The same elements in row-major order, in another shape.
            Reshape              => "reshape",                 Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD], _;
            /// The operand with the listed dimensions reversed.
            Reverse              => "reverse",                 Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD SAME_LAYOUT], _;
            /// Random numbers, uniform in `[a, b)` or normal with mean `a` and deviation `b`.
            Rng                  => "rng",                     Fixed(2),  Random,        Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// Random bits from a counter-based generator (Philox or ThreeFry) and its new state.
            RngBitGenerator      => "rng-bit-generator",       Fixed(1),  Random,        Own,                                  Opaque,         [], _;
            /// Round to nearest, ties away from zero.
            RoundNearestAfz      => "round-nearest-afz",       Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT], round;
            /// Round to nearest, ties to even.
            RoundNearestEven     => "round-nearest-even",      Fixed(1),  Elementwise,   Unary(Floating, Same),                Cheap,          [FOLD SAME_LAYOUT], round_nearest_even;
            /// `1 / √x`.
            Rsqrt                => "rsqrt",                   Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Moderate,       [FOLD SAME_LAYOUT EXPENSIVE], rsqrt;
            /// The operand with updates combined into it, by a computation, at indices read from another array.
            Scatter              => "scatter",                 Variadic,  Indexing,      Own,                                  Opaque,         [FOLD SAME_LAYOUT], _;
            /// Elements of `on_true` where the predicate holds, of `on_false` elsewhere.
            Select               => "select",                  Fixed(3),  Elementwise,   Own,                                  Cheap,          [FOLD SAME_LAYOUT], _;
            /// Picks one element of each window by a computation and scatters a source value into that position (the gradient of max pooling).
            SelectAndScatter     => "select-and-scatter",      Fixed(3),  Reduce,        Own,                                  Opaque,         [FOLD SAME_LAYOUT], _;
            /// Sends data to another program or the host over a channel.
            Send                 => "send",                    Fixed(2),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// Completes a `send`.
            SendDone             => "send-done",               Fixed(1),  SideEffect,    Own,                                  Opaque,         [SIDE_EFFECT], _;
            /// Sets the dynamic size of a dimension.
            SetDimensionSize     => "set-dimension-size",      Fixed(2),  Dynamic,       Own,                                  Opaque,         [FOLD SAME_LAYOUT], _;
            /// `lhs << rhs` (0 when the shift is at least the bit width).
            ShiftLeft            => "shift-left",              Fixed(2),  Elementwise,   Binary(Integral, Same),               Moderate,       [FOLD SAME_LAYOUT], shift_left;
            /// `lhs >> rhs`, filling with the sign bit.
            ShiftRightArithmetic => "shift-right-arithmetic",  Fixed(2),  Elementwise,   Binary(Integral, Same),               Moderate,       [FOLD SAME_LAYOUT], shift_right_arithmetic;
            /// `lhs >> rhs`, filling with zeros.
            ShiftRightLogical    => "shift-right-logical",     Fixed(2),  Elementwise,   Binary(Integral, Same),               Moderate,       [FOLD SAME_LAYOUT], shift_right_logical;
            /// `−1`, `0` or `1` by the sign of `x` (`±0` and NaN are kept; of a complex number, `z / |z|`).
            Sign                 => "sign",                    Fixed(1),  Elementwise,   Unary(Signed, Same),                  Cheap,          [FOLD SAME_LAYOUT], sign;
            /// Sine.
            Sin                  => "sine",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], sin;
            /// Elements from start to limit indices by strides in each dimension.
            Slice                => "slice",                   Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD SAME_LAYOUT], _;
            /// Sorts along a dimension by a comparator computation, several operands together.
            Sort                 => "sort",                    Variadic,  Reduce,        Own,                                  Opaque,         [FOLD SAME_LAYOUT], _;
            /// `√x`.
            Sqrt                 => "sqrt",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Moderate,       [FOLD SAME_LAYOUT EXPENSIVE], sqrt;
            /// `lhs − rhs` (integers wrap).
            Subtract             => "subtract",                Fixed(2),  Elementwise,   Binary(Arithmetic, Same),             Cheap,          [FOLD SAME_LAYOUT], sub;
            /// Tangent.
            Tan                  => "tan",                     Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], tan;
            /// Hyperbolic tangent.
            Tanh                 => "tanh",                    Fixed(1),  Elementwise,   Unary(FloatingOrComplex, Same),       Transcendental, [FOLD SAME_LAYOUT EXPENSIVE], tanh;
            /// The `k` largest elements of each row and their indices.
            TopK                 => "topk",                    Fixed(1),  Reduce,        Own,                                  Opaque,         [FOLD], _;
            /// Permutes the dimensions.
            Transpose            => "transpose",               Fixed(1),  DataMovement,  Own,                                  Free,           [FOLD], _;
            /// Solves triangular systems `op(a) x = b` or `x op(a) = b` for `x`.
            TriangularSolve      => "triangular-solve",        Fixed(2),  Linalg,        Own,                                  Opaque,         [FOLD], _;
            /// A tuple of the operands.
            Tuple                => "tuple",                   Variadic,  Control,       Own,                                  Free,           [], _;
            /// Runs its body computation while its condition computation returns true, on a loop-carried value.
            While                => "while",                   Fixed(1),  Control,       Own,                                  Opaque,         [], _;
            /// Logical (pred) or bitwise (integers) exclusive or.
            Xor                  => "xor",                     Fixed(2),  Elementwise,   Binary(PredOrIntegral, Same),         Cheap,          [FOLD SAME_LAYOUT COMMUTATIVE], xor;
        }
    };
}
pub(crate) use op_table;

op_table!(opcodes);

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
