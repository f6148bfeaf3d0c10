//! The shape-inference error: one variant per kind of mistake, each naming
//! the op, the operand (by index), the dimension and the shapes involved.
//!
//! Shapes inside errors carry no layouts (inference ignores layouts), so a
//! message reads the same whether the operands came from the builder or from
//! HLO text: `dot: dimension 1 of operand 0 f32[2,3] has size 3, but
//! dimension 0 of operand 1 f32[4,5] has size 4`.

use super::parts::{Attr, Callee, Count, DimList, Kind, RankRule, TypeClass};
use crate::hlo::{ComparisonDirection, ComparisonType, FftType, RngAlgorithm};
use crate::{Dim, PrimitiveType, Shape};

/// `1 entry`, `2 entries`.
fn entries(n: usize) -> String {
    if n == 1 {
        "1 entry".to_string()
    } else {
        format!("{n} entries")
    }
}

/// A shape-inference error. `D` is the dimension type: `i64` for the
/// builder and the verifier, a symbolic size for the `xla!` macro.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum InferError<D: Dim = i64> {
    // === operands ===
    /// The op got the wrong number of operands.
    #[error("{op}: expected {}, got {actual}", .expected.of("operand"))]
    OperandCount {
        /// The op.
        op: &'static str,
        /// What it accepts.
        expected: Count,
        /// What it got.
        actual: usize,
    },
    /// An operand is not the kind of value the op takes.
    #[error("{op}: operand {index} must be {expected}, but is {shape}")]
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
    #[error("{op}: operand {index} {shape} must have {expected}")]
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
    #[error(
        "{op}: operand {index} {shape} has rank {rank}, \
         but operand {other_index} {other} has rank {other_rank}"
    )]
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
    #[error(
        "{op}: operand {index} {shape} must have the same {what} as operand {other_index} {other}"
    )]
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
    #[error(
        "{op}: operand {index} {shape} must be a scalar or have the dimensions \
         of operand {other_index} {other}"
    )]
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
    #[error(
        "{op}: operand {index} {shape} must have the element type of operand {other_index} {other}"
    )]
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
    #[error("{op}: operand {index} {shape} must have the element type of the result {result}")]
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
    #[error("{op}: operand {index} {shape} must have {expected} element type")]
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
    #[error("{op}: preferred element type {to} must not be narrower than the operands' {from}")]
    NarrowPreferredType {
        /// The op.
        op: &'static str,
        /// The operands' element type.
        from: PrimitiveType,
        /// The requested result type.
        to: PrimitiveType,
    },
    /// A comparison type that does not fit the operands' element type.
    #[error("{op}: comparison type {comparison_type} cannot compare {element_type} values")]
    ComparisonType {
        /// The op.
        op: &'static str,
        /// The requested comparison type.
        comparison_type: ComparisonType,
        /// The operands' element type.
        element_type: PrimitiveType,
    },
    /// An ordering comparison of complex values.
    #[error("{op}: direction {direction} is not defined for {element_type}; complex values only compare with EQ and NE")]
    ComplexOrder {
        /// The op.
        op: &'static str,
        /// The requested direction.
        direction: ComparisonDirection,
        /// The (complex) element type.
        element_type: PrimitiveType,
    },
    /// A conversion between element types that is not allowed.
    #[error("{op}: cannot convert {from} to {to}: {reason}")]
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
    #[error(
        "{op}: converting operand 0 {shape} to {to} needs a last dimension of size {expected}"
    )]
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
    #[error("{op}: {attr} = {dim} is out of range [0, {bound})")]
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
    #[error("{op}: {list}[{position}] = {dim} repeats an earlier entry")]
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
    #[error("{op}: {list} must be increasing, but {list}[{position}] = {dim} follows {previous}")]
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
    #[error("{op}: dimension {dim} is in both {list} and {other_list}")]
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
    #[error("{op}: {list} has {}, but operand {index} {shape} has rank {rank}", entries(*.len))]
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
    #[error("{op}: {list} has {}, but {other} is {expected}", entries(*.len))]
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
    #[error("{op}: {list}={dims} is not a permutation of 0..{rank}")]
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
    #[error(
        "{op}: dimension {lhs_dim} of operand {lhs_index} {lhs} has size {lhs_size}, \
         but dimension {rhs_dim} of operand {rhs_index} {rhs} has size {rhs_size}"
    )]
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
    #[error(
        "{op}: dimension {dim} of operand {index} {shape} has size {size}, \
         which exceeds the size {other_size} of dimension {other_dim} of operand {other_index} {other}"
    )]
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
    #[error(
        "{op}: dimension {dim} of operand {index} {shape} has size {size}, \
         but it maps to dimension {result_dim} of the result {result}, which has size {result_size}"
    )]
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
    #[error(
        "{op}: shapes {lhs} and {rhs} are not compatible: \
         dimension {dim} is {lhs_size} in operand 0 but {rhs_size} in operand 1"
    )]
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
    #[error(
        "{op}: shapes {lhs} and {rhs} are not compatible with broadcast_dimensions={dims}: \
         dimension {small_dim} of operand {small} has size {small_size}, \
         but it maps to dimension {big_dim} of operand {big}, which has size {big_size}"
    )]
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
    #[error(
        "{op}: operands {lhs} and {rhs} have different ranks, so broadcast_dimensions \
         must say which dimensions of the higher-rank operand the other's map to"
    )]
    MissingBroadcastDims {
        /// The op.
        op: &'static str,
        /// Operand 0.
        lhs: Box<Shape<D>>,
        /// Operand 1.
        rhs: Box<Shape<D>>,
    },
    /// Non-identity `broadcast_dimensions` for operands of equal rank.
    #[error(
        "{op}: broadcast_dimensions={dims} must be empty or the identity \
         for operands {lhs} and {rhs} of equal rank"
    )]
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
    #[error("{op}: {attr} = {size} is negative")]
    NegativeSize {
        /// The op.
        op: &'static str,
        /// The attribute (entry).
        attr: Attr,
        /// The entry.
        size: D,
    },
    /// A size attribute larger than the operand dimension it applies to.
    #[error(
        "{op}: {attr} = {size} exceeds the size {bound} \
         of dimension {dim} of operand {index} {shape}"
    )]
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
    #[error(
        "{op}: the slice [{start}:{limit}] of dimension {dim} of operand 0 {shape} \
         does not lie within [0, {size}]"
    )]
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
    #[error("{op}: operand {index} {shape} has {count} elements, but {result} has {result_count}")]
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
    #[error("{op}: operand {index} {shape} has {bytes} bytes, but {result} has {result_bytes}")]
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
    #[error(
        "{op}: dimension {dim} of operand {index} {shape} has size {size}, \
         which is not a multiple of {divisor_name} {divisor}"
    )]
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
    #[error("{op}: dimension {dim} of the result would have negative size {size}")]
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
    #[error("{op}: the size of dimension {dim} of the result, {formula}, cannot be expressed")]
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
    #[error("{op}: missing attribute {attribute}")]
    MissingAttribute {
        /// The op.
        op: &'static str,
        /// The attribute's name, as in HLO text.
        attribute: &'static str,
    },
    /// An attribute value outside what the op accepts.
    #[error("{op}: {attribute} = {value} is invalid: {requirement}")]
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
    #[error(
        "{op}: operand_layout_constraints[{index}] is {constraint}, but operand {index} is {shape}"
    )]
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
    #[error("{op}: the instruction's shape {shape} must be {expected}")]
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
    #[error("{op}: expected {}, got {actual}", .expected.of("called computation"))]
    CalledCount {
        /// The op.
        op: &'static str,
        /// What it accepts.
        expected: Count,
        /// What it got.
        actual: usize,
    },
    /// A called computation with the wrong number of parameters.
    #[error("{op}: {computation} must take {}, but takes {actual}", Count::Exactly(*.expected).of("parameter"))]
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
    #[error("{op}: parameter {index} of {computation} must be {expected}, but is {actual}")]
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
    #[error("{op}: {computation} must return {expected}, but returns {actual}")]
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
    #[error("{op}: index {index} is out of range for operand 0 {shape} with {len} elements")]
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
    #[error("{op}: {role} {id} appears in more than one pair of source_target_pairs")]
    DuplicatePermutePeer {
        /// The op.
        op: &'static str,
        /// `"source"` or `"target"`.
        role: &'static str,
        /// The replica id.
        id: i64,
    },
    /// Replica groups of the wrong size.
    #[error("{op}: replica_groups[{group}] has {actual} replicas, but {expected} are needed")]
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
    #[error(
        "{op}: {algorithm} needs an initial state of shape {expected}, but operand 0 is {shape}"
    )]
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
    #[error(
        "{op}: {fft_type} needs dimension {dim} of operand 0 {shape} to have size {expected}, \
         but it has size {size}"
    )]
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
    #[error(
        "{op}: window size {size} of spatial dimension {spatial} does not match \
         the size {kernel_size} of dimension {dim} of operand 1 {shape}"
    )]
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
    #[error(
        "{op}: operand {index} {shape} must have the dimensions of the window positions, {expected}"
    )]
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
    #[error(
        "{op}: input feature dimension {lhs_dim} of operand 0 {lhs} has size {lhs_size}, \
         but it must be feature_group_count {groups} × the size {rhs_size} \
         of kernel input feature dimension {rhs_dim} of operand 1 {rhs}"
    )]
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
