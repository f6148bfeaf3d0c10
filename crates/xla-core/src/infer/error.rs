//! The shape-inference error: one variant per kind of mistake, each naming
//! the op, the operand (by index), the dimension and the shapes involved.
//!
//! Shapes inside errors carry no layouts (inference ignores layouts), so a
//! message reads the same whether the operands came from the builder or from
//! HLO text: `dot: dimension 1 of operand 0 f32[2,3] has size 3, but
//! dimension 0 of operand 1 f32[4,5] has size 4`. The messages, one per
//! variant, are the enum's `Display`, in `display.rs`.

mod display;

use super::parts::{Attr, Callee, Count, DimList, Kind, RankRule, TypeClass};
use crate::hlo::{ComparisonDirection, ComparisonType, FftType, RngAlgorithm};
use crate::{Dim, PrimitiveType, Shape};

/// A shape-inference error. `D` is the dimension type: `i64` for the
/// builder and the verifier, a symbolic size for the `xla!` macro.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum InferError<D: Dim = i64> {
    // === operands ===
    /// The op got the wrong number of operands.
    OperandCount {
        /// The op.
        op: &'static str,
        /// What it accepts.
        expected: Count,
        /// What it got.
        actual: usize,
    },
    /// An operand is not the kind of value the op takes.
    OperandKind {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// What it must be.
        expected: Kind,
        /// What it is.
        shape: Box<Shape<D>>,
    },
    /// An operand has the wrong rank.
    Rank {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The rank it must have.
        expected: RankRule,
    },
    /// Two operands must have the same rank but do not.
    RankMismatch {
        /// The op.
        op: &'static str,
        /// The offending operand's position.
        index: usize,
        /// The offending operand.
        shape: Box<Shape<D>>,
        /// Its rank.
        rank: usize,
        /// The operand it is compared with.
        other_index: usize,
        /// That operand.
        other: Box<Shape<D>>,
        /// Its rank.
        other_rank: usize,
    },
    /// Two operands must have the same shape (or the same dimensions) but do
    /// not.
    ShapeMismatch {
        /// The op.
        op: &'static str,
        /// The offending operand's position.
        index: usize,
        /// The offending operand.
        shape: Box<Shape<D>>,
        /// The operand it is compared with.
        other_index: usize,
        /// That operand.
        other: Box<Shape<D>>,
        /// `"shape"` or `"dimensions"` (element types may differ).
        what: &'static str,
    },
    /// An operand must be a scalar or have the dimensions of another operand.
    ScalarOrSameDims {
        /// The op.
        op: &'static str,
        /// The offending operand's position.
        index: usize,
        /// The offending operand.
        shape: Box<Shape<D>>,
        /// The operand whose dimensions it must have.
        other_index: usize,
        /// That operand.
        other: Box<Shape<D>>,
    },

    // === element types ===
    /// Two operands must have the same element type but do not.
    ElementTypeMismatch {
        /// The op.
        op: &'static str,
        /// The offending operand's position.
        index: usize,
        /// The offending operand.
        shape: Box<Shape<D>>,
        /// The operand it is compared with.
        other_index: usize,
        /// That operand.
        other: Box<Shape<D>>,
    },
    /// An operand whose element type must be the result's.
    ResultElementType {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The result shape.
        result: Box<Shape<D>>,
    },
    /// An operand's element type is not one the op accepts.
    ElementType {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The accepted types.
        expected: TypeClass,
    },
    /// A dot or convolution asked for an integer result narrower than its
    /// operands.
    NarrowPreferredType {
        /// The op.
        op: &'static str,
        /// The operands' element type.
        from: PrimitiveType,
        /// The requested result type.
        to: PrimitiveType,
    },
    /// A comparison type that does not fit the operands' element type.
    ComparisonType {
        /// The op.
        op: &'static str,
        /// The requested comparison type.
        comparison_type: ComparisonType,
        /// The operands' element type.
        element_type: PrimitiveType,
    },
    /// An ordering comparison of complex values.
    ComplexOrder {
        /// The op.
        op: &'static str,
        /// The requested direction.
        direction: ComparisonDirection,
        /// The (complex) element type.
        element_type: PrimitiveType,
    },
    /// A conversion between element types that is not allowed.
    Conversion {
        /// The op.
        op: &'static str,
        /// The operand's element type.
        from: PrimitiveType,
        /// The requested element type.
        to: PrimitiveType,
        /// Why not.
        reason: &'static str,
    },
    /// A narrowing bitcast-convert whose operand's last dimension does not
    /// hold exactly one wide element.
    BitcastLastDim {
        /// The op.
        op: &'static str,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The requested element type.
        to: PrimitiveType,
        /// The size the last dimension must have (ratio of the bit widths).
        expected: i64,
    },

    // === dimension lists ===
    /// A dimension number outside its valid range.
    DimOutOfRange {
        /// The op.
        op: &'static str,
        /// The attribute (entry), e.g. `lhs_contracting_dims[0]`.
        attr: Attr,
        /// The dimension number.
        dim: i64,
        /// One past the largest valid dimension number.
        bound: usize,
    },
    /// A dimension number listed twice.
    DimRepeated {
        /// The op.
        op: &'static str,
        /// The list's name.
        list: &'static str,
        /// The entry's position in the list.
        position: usize,
        /// The entry.
        dim: i64,
    },
    /// A list that must be increasing is not.
    DimsNotIncreasing {
        /// The op.
        op: &'static str,
        /// The list's name.
        list: &'static str,
        /// The entry's position in the list.
        position: usize,
        /// The entry.
        dim: i64,
        /// The entry before it.
        previous: i64,
    },
    /// A dimension number in two lists that must be disjoint.
    DimsOverlap {
        /// The op.
        op: &'static str,
        /// The first list's name.
        list: &'static str,
        /// The second list's name.
        other_list: &'static str,
        /// The shared entry.
        dim: i64,
    },
    /// A list whose length must be an operand's rank.
    ListRank {
        /// The op.
        op: &'static str,
        /// The list's name.
        list: &'static str,
        /// Its length.
        len: usize,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The operand's rank.
        rank: usize,
    },
    /// Two lists (or a list and a count) whose lengths must agree.
    ListLength {
        /// The op.
        op: &'static str,
        /// The list's name.
        list: &'static str,
        /// Its length.
        len: usize,
        /// What the length must equal, e.g. `the length of rhs_contracting_dims`.
        other: &'static str,
        /// That value.
        expected: usize,
    },
    /// A list that must be a permutation of `0..rank`.
    NotPermutation {
        /// The op.
        op: &'static str,
        /// The list's name.
        list: &'static str,
        /// The list.
        dims: DimList,
        /// The rank it must permute.
        rank: usize,
    },

    // === sizes ===
    /// Two dimensions whose sizes must be equal differ.
    DimMismatch {
        /// The op.
        op: &'static str,
        /// The first operand's position.
        lhs_index: usize,
        /// The first operand.
        lhs: Box<Shape<D>>,
        /// Its dimension.
        lhs_dim: usize,
        /// That dimension's size.
        lhs_size: D,
        /// The second operand's position.
        rhs_index: usize,
        /// The second operand.
        rhs: Box<Shape<D>>,
        /// Its dimension.
        rhs_dim: usize,
        /// That dimension's size.
        rhs_size: D,
    },
    /// An operand dimension larger than the dimension of another operand it
    /// must fit in.
    DimExceeds {
        /// The op.
        op: &'static str,
        /// The offending operand's position.
        index: usize,
        /// The offending operand.
        shape: Box<Shape<D>>,
        /// Its dimension.
        dim: usize,
        /// That dimension's size.
        size: D,
        /// The operand it must fit in.
        other_index: usize,
        /// That operand.
        other: Box<Shape<D>>,
        /// Its dimension.
        other_dim: usize,
        /// That dimension's size.
        other_size: D,
    },
    /// An operand dimension that does not fit the result dimension it maps to.
    ResultDimMismatch {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// Its dimension.
        dim: usize,
        /// That dimension's size.
        size: D,
        /// The result shape.
        result: Box<Shape<D>>,
        /// The result dimension.
        result_dim: usize,
        /// That dimension's size.
        result_size: D,
    },
    /// Two shapes that do not broadcast against each other.
    Incompatible {
        /// The op.
        op: &'static str,
        /// Operand 0.
        lhs: Box<Shape<D>>,
        /// Operand 1.
        rhs: Box<Shape<D>>,
        /// The dimension that differs.
        dim: usize,
        /// Its size in operand 0.
        lhs_size: D,
        /// Its size in operand 1.
        rhs_size: D,
    },
    /// InDim broadcasting maps a dimension onto one of a different size.
    InDimIncompatible {
        /// The op.
        op: &'static str,
        /// Operand 0.
        lhs: Box<Shape<D>>,
        /// Operand 1.
        rhs: Box<Shape<D>>,
        /// The broadcast dimensions.
        dims: DimList,
        /// The lower-rank operand's position.
        small: usize,
        /// Its dimension.
        small_dim: usize,
        /// That dimension's size.
        small_size: D,
        /// The higher-rank operand's position.
        big: usize,
        /// The dimension it maps to.
        big_dim: usize,
        /// That dimension's size.
        big_size: D,
    },
    /// Operands of different ranks without `broadcast_dimensions`.
    MissingBroadcastDims {
        /// The op.
        op: &'static str,
        /// Operand 0.
        lhs: Box<Shape<D>>,
        /// Operand 1.
        rhs: Box<Shape<D>>,
    },
    /// Non-identity `broadcast_dimensions` for operands of equal rank.
    BroadcastDimsNotIdentity {
        /// The op.
        op: &'static str,
        /// Operand 0.
        lhs: Box<Shape<D>>,
        /// Operand 1.
        rhs: Box<Shape<D>>,
        /// The broadcast dimensions.
        dims: DimList,
    },
    /// A size attribute that is negative.
    NegativeSize {
        /// The op.
        op: &'static str,
        /// The attribute (entry).
        attr: Attr,
        /// The entry.
        size: D,
    },
    /// A size attribute larger than the operand dimension it applies to.
    SizeExceeds {
        /// The op.
        op: &'static str,
        /// The attribute (entry).
        attr: Attr,
        /// The entry.
        size: D,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The dimension.
        dim: usize,
        /// Its size.
        bound: D,
    },
    /// A slice range outside the operand.
    SliceBounds {
        /// The op.
        op: &'static str,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The dimension.
        dim: usize,
        /// The start index.
        start: D,
        /// The limit index.
        limit: D,
        /// The dimension's size.
        size: D,
    },
    /// Element counts that must match but do not.
    ElementCount {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// Its element count.
        count: D,
        /// The requested result shape.
        result: Box<Shape<D>>,
        /// Its element count.
        result_count: D,
    },
    /// A reinterpretation that changes the number of bytes.
    ByteSize {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// Its size in bytes.
        bytes: D,
        /// The requested result shape.
        result: Box<Shape<D>>,
        /// Its size in bytes.
        result_bytes: D,
    },
    /// A dimension size that must be a multiple of a count.
    NotDivisible {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The dimension.
        dim: usize,
        /// Its size.
        size: D,
        /// The divisor's name, e.g. `split_count`.
        divisor_name: &'static str,
        /// The divisor.
        divisor: D,
    },
    /// A result dimension whose size would be negative.
    NegativeResult {
        /// The op.
        op: &'static str,
        /// The result dimension.
        dim: usize,
        /// The size it would have.
        size: D,
    },
    /// A result size that the dimension type cannot express (a symbolic
    /// size that is not a polynomial, e.g. `⌈N / 2⌉`).
    NotExpressible {
        /// The op.
        op: &'static str,
        /// The result dimension.
        dim: usize,
        /// The formula that has no polynomial value.
        formula: String,
    },

    // === attributes ===
    /// A required attribute is absent.
    MissingAttribute {
        /// The op.
        op: &'static str,
        /// The attribute's name, as in HLO text.
        attribute: &'static str,
    },
    /// An attribute value outside what the op accepts.
    InvalidAttribute {
        /// The op.
        op: &'static str,
        /// The attribute's name.
        attribute: &'static str,
        /// Its value, printed.
        value: String,
        /// What it must satisfy.
        requirement: &'static str,
    },
    /// A custom call's `operand_layout_constraints` entry that is not its
    /// operand's shape.
    LayoutConstraintShape {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The constraint's shape.
        constraint: Box<Shape<D>>,
        /// The operand's shape.
        shape: Box<Shape<D>>,
    },
    /// The instruction's own shape (which carries part of the op's
    /// arguments in HLO, e.g. the target type of a convert) is of the wrong
    /// kind.
    DeclaredShape {
        /// The op.
        op: &'static str,
        /// The instruction's shape.
        shape: Box<Shape<D>>,
        /// What it must be.
        expected: &'static str,
    },

    // === called computations ===
    /// The wrong number of called computations.
    CalledCount {
        /// The op.
        op: &'static str,
        /// What it accepts.
        expected: Count,
        /// What it got.
        actual: usize,
    },
    /// A called computation with the wrong number of parameters.
    CalledArity {
        /// The op.
        op: &'static str,
        /// Which computation.
        computation: Callee,
        /// The parameter count it must have.
        expected: usize,
        /// The parameter count it has.
        actual: usize,
    },
    /// A called computation parameter of the wrong shape.
    CalledParameter {
        /// The op.
        op: &'static str,
        /// Which computation.
        computation: Callee,
        /// The parameter number.
        index: usize,
        /// The shape it must have.
        expected: Box<Shape<D>>,
        /// The shape it has.
        actual: Box<Shape<D>>,
    },
    /// A called computation that returns the wrong shape.
    CalledResult {
        /// The op.
        op: &'static str,
        /// Which computation.
        computation: Callee,
        /// What it must return, e.g. `pred[]` or `a scalar`.
        expected: String,
        /// What it returns.
        actual: Box<Shape<D>>,
    },

    // === op-specific rules ===
    /// A get-tuple-element index outside the tuple.
    TupleIndex {
        /// The op.
        op: &'static str,
        /// The requested index.
        index: i64,
        /// The tuple.
        shape: Box<Shape<D>>,
        /// Its element count.
        len: usize,
    },
    /// Two source-target pairs of a collective-permute share a source or a
    /// target.
    DuplicatePermutePeer {
        /// The op.
        op: &'static str,
        /// `"source"` or `"target"`.
        role: &'static str,
        /// The replica id.
        id: i64,
    },
    /// Replica groups of the wrong size.
    ReplicaGroupSize {
        /// The op.
        op: &'static str,
        /// The group's position.
        group: usize,
        /// Its size.
        actual: usize,
        /// The size every group must have.
        expected: usize,
    },
    /// An rng-bit-generator state of the wrong shape for its algorithm.
    RngState {
        /// The op.
        op: &'static str,
        /// The algorithm.
        algorithm: RngAlgorithm,
        /// The accepted state shapes.
        expected: &'static str,
        /// The operand.
        shape: Box<Shape<D>>,
    },
    /// An FFT operand whose transformed dimensions do not fit `fft_length`.
    FftLength {
        /// The op.
        op: &'static str,
        /// The transform.
        fft_type: FftType,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The dimension.
        dim: usize,
        /// The size it must have.
        expected: D,
        /// The size it has.
        size: D,
    },
    /// A window size that differs from the kernel size it describes.
    WindowSize {
        /// The op.
        op: &'static str,
        /// The spatial dimension (position in the window).
        spatial: usize,
        /// The window size.
        size: i64,
        /// The kernel.
        shape: Box<Shape<D>>,
        /// The kernel dimension.
        dim: usize,
        /// Its size.
        kernel_size: D,
    },
    /// A select-and-scatter source whose dimensions are not the number of
    /// window positions.
    WindowPositions {
        /// The op.
        op: &'static str,
        /// The operand's position.
        index: usize,
        /// The operand.
        shape: Box<Shape<D>>,
        /// The shape the window positions form.
        expected: Box<Shape<D>>,
    },
    /// A convolution whose input features do not match the kernel's input
    /// features times the feature group count.
    ConvFeatures {
        /// The op.
        op: &'static str,
        /// The input.
        lhs: Box<Shape<D>>,
        /// Its feature dimension.
        lhs_dim: usize,
        /// That dimension's size.
        lhs_size: D,
        /// The kernel.
        rhs: Box<Shape<D>>,
        /// Its input-feature dimension.
        rhs_dim: usize,
        /// That dimension's size.
        rhs_size: D,
        /// The feature group count.
        groups: i64,
    },
}
