//! The messages of [`InferError`]: its `Display`, one line per variant
//! naming the op, the operands (by index and shape), the dimensions and
//! the attributes involved.

use std::fmt;

use super::super::parts::Count;
use super::InferError;
use crate::Dim;

/// `1 entry`, `2 entries`.
fn entries(n: usize) -> String {
    if n == 1 {
        "1 entry".to_string()
    } else {
        format!("{n} entries")
    }
}

impl<D: Dim> fmt::Display for InferError<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OperandCount {
                op,
                expected,
                actual,
            } => write!(f, "{op}: expected {}, got {actual}", expected.of("operand")),
            Self::OperandKind {
                op,
                index,
                expected,
                shape,
            } => write!(
                f,
                "{op}: operand {index} must be {expected}, but is {shape}"
            ),
            Self::Rank {
                op,
                index,
                shape,
                expected,
            } => write!(f, "{op}: operand {index} {shape} must have {expected}"),
            Self::RankMismatch {
                op,
                index,
                shape,
                rank,
                other_index,
                other,
                other_rank,
            } => write!(
                f,
                "{op}: operand {index} {shape} has rank {rank}, but operand {other_index} \
                 {other} has rank {other_rank}"
            ),
            Self::ShapeMismatch {
                op,
                index,
                shape,
                other_index,
                other,
                what,
            } => write!(
                f,
                "{op}: operand {index} {shape} must have the same {what} as operand \
                 {other_index} {other}"
            ),
            Self::ScalarOrSameDims {
                op,
                index,
                shape,
                other_index,
                other,
            } => write!(
                f,
                "{op}: operand {index} {shape} must be a scalar or have the dimensions of \
                 operand {other_index} {other}"
            ),
            Self::ElementTypeMismatch {
                op,
                index,
                shape,
                other_index,
                other,
            } => write!(
                f,
                "{op}: operand {index} {shape} must have the element type of operand \
                 {other_index} {other}"
            ),
            Self::ResultElementType {
                op,
                index,
                shape,
                result,
            } => write!(
                f,
                "{op}: operand {index} {shape} must have the element type of the result \
                 {result}"
            ),
            Self::ElementType {
                op,
                index,
                shape,
                expected,
            } => write!(
                f,
                "{op}: operand {index} {shape} must have {expected} element type"
            ),
            Self::NarrowPreferredType { op, from, to } => write!(
                f,
                "{op}: preferred element type {to} must not be narrower than the operands' \
                 {from}"
            ),
            Self::ComparisonType {
                op,
                comparison_type,
                element_type,
            } => write!(
                f,
                "{op}: comparison type {comparison_type} cannot compare {element_type} \
                 values"
            ),
            Self::ComplexOrder {
                op,
                direction,
                element_type,
            } => write!(
                f,
                "{op}: direction {direction} is not defined for {element_type}; complex \
                 values only compare with EQ and NE"
            ),
            Self::Conversion {
                op,
                from,
                to,
                reason,
            } => write!(f, "{op}: cannot convert {from} to {to}: {reason}"),
            Self::BitcastLastDim {
                op,
                shape,
                to,
                expected,
            } => write!(
                f,
                "{op}: converting operand 0 {shape} to {to} needs a last dimension of size \
                 {expected}"
            ),
            Self::DimOutOfRange {
                op,
                attr,
                dim,
                bound,
            } => write!(f, "{op}: {attr} = {dim} is out of range [0, {bound})"),
            Self::DimRepeated {
                op,
                list,
                position,
                dim,
            } => write!(
                f,
                "{op}: {list}[{position}] = {dim} repeats an earlier entry"
            ),
            Self::DimsNotIncreasing {
                op,
                list,
                position,
                dim,
                previous,
            } => write!(
                f,
                "{op}: {list} must be increasing, but {list}[{position}] = {dim} follows \
                 {previous}"
            ),
            Self::DimsOverlap {
                op,
                list,
                other_list,
                dim,
            } => write!(
                f,
                "{op}: dimension {dim} is in both {list} and {other_list}"
            ),
            Self::ListRank {
                op,
                list,
                len,
                index,
                shape,
                rank,
            } => write!(
                f,
                "{op}: {list} has {}, but operand {index} {shape} has rank {rank}",
                entries(*len)
            ),
            Self::ListLength {
                op,
                list,
                len,
                other,
                expected,
            } => write!(
                f,
                "{op}: {list} has {}, but {other} is {expected}",
                entries(*len)
            ),
            Self::NotPermutation {
                op,
                list,
                dims,
                rank,
            } => write!(f, "{op}: {list}={dims} is not a permutation of 0..{rank}"),
            Self::DimMismatch {
                op,
                lhs_index,
                lhs,
                lhs_dim,
                lhs_size,
                rhs_index,
                rhs,
                rhs_dim,
                rhs_size,
            } => write!(
                f,
                "{op}: dimension {lhs_dim} of operand {lhs_index} {lhs} has size \
                 {lhs_size}, but dimension {rhs_dim} of operand {rhs_index} {rhs} has size \
                 {rhs_size}"
            ),
            Self::DimExceeds {
                op,
                index,
                shape,
                dim,
                size,
                other_index,
                other,
                other_dim,
                other_size,
            } => write!(
                f,
                "{op}: dimension {dim} of operand {index} {shape} has size {size}, which \
                 exceeds the size {other_size} of dimension {other_dim} of operand \
                 {other_index} {other}"
            ),
            Self::ResultDimMismatch {
                op,
                index,
                shape,
                dim,
                size,
                result,
                result_dim,
                result_size,
            } => write!(
                f,
                "{op}: dimension {dim} of operand {index} {shape} has size {size}, but it \
                 maps to dimension {result_dim} of the result {result}, which has size \
                 {result_size}"
            ),
            Self::Incompatible {
                op,
                lhs,
                rhs,
                dim,
                lhs_size,
                rhs_size,
            } => write!(
                f,
                "{op}: shapes {lhs} and {rhs} are not compatible: dimension {dim} is \
                 {lhs_size} in operand 0 but {rhs_size} in operand 1"
            ),
            Self::InDimIncompatible {
                op,
                lhs,
                rhs,
                dims,
                small,
                small_dim,
                small_size,
                big,
                big_dim,
                big_size,
            } => write!(
                f,
                "{op}: shapes {lhs} and {rhs} are not compatible with \
                 broadcast_dimensions={dims}: dimension {small_dim} of operand {small} has \
                 size {small_size}, but it maps to dimension {big_dim} of operand {big}, \
                 which has size {big_size}"
            ),
            Self::MissingBroadcastDims { op, lhs, rhs } => write!(
                f,
                "{op}: operands {lhs} and {rhs} have different ranks, so \
                 broadcast_dimensions must say which dimensions of the higher-rank operand \
                 the other's map to"
            ),
            Self::BroadcastDimsNotIdentity { op, lhs, rhs, dims } => write!(
                f,
                "{op}: broadcast_dimensions={dims} must be empty or the identity for \
                 operands {lhs} and {rhs} of equal rank"
            ),
            Self::NegativeSize { op, attr, size } => write!(f, "{op}: {attr} = {size} is negative"),
            Self::SizeExceeds {
                op,
                attr,
                size,
                index,
                shape,
                dim,
                bound,
            } => write!(
                f,
                "{op}: {attr} = {size} exceeds the size {bound} of dimension {dim} of \
                 operand {index} {shape}"
            ),
            Self::SliceBounds {
                op,
                shape,
                dim,
                start,
                limit,
                size,
            } => write!(
                f,
                "{op}: the slice [{start}:{limit}] of dimension {dim} of operand 0 {shape} \
                 does not lie within [0, {size}]"
            ),
            Self::ElementCount {
                op,
                index,
                shape,
                count,
                result,
                result_count,
            } => write!(
                f,
                "{op}: operand {index} {shape} has {count} elements, but {result} has \
                 {result_count}"
            ),
            Self::ByteSize {
                op,
                index,
                shape,
                bytes,
                result,
                result_bytes,
            } => write!(
                f,
                "{op}: operand {index} {shape} has {bytes} bytes, but {result} has \
                 {result_bytes}"
            ),
            Self::NotDivisible {
                op,
                index,
                shape,
                dim,
                size,
                divisor_name,
                divisor,
            } => write!(
                f,
                "{op}: dimension {dim} of operand {index} {shape} has size {size}, which \
                 is not a multiple of {divisor_name} {divisor}"
            ),
            Self::NegativeResult { op, dim, size } => write!(
                f,
                "{op}: dimension {dim} of the result would have negative size {size}"
            ),
            Self::NotExpressible { op, dim, formula } => write!(
                f,
                "{op}: the size of dimension {dim} of the result, {formula}, cannot be \
                 expressed"
            ),
            Self::MissingAttribute { op, attribute } => {
                write!(f, "{op}: missing attribute {attribute}")
            }
            Self::InvalidAttribute {
                op,
                attribute,
                value,
                requirement,
            } => write!(f, "{op}: {attribute} = {value} is invalid: {requirement}"),
            Self::LayoutConstraintShape {
                op,
                index,
                constraint,
                shape,
            } => write!(
                f,
                "{op}: operand_layout_constraints[{index}] is {constraint}, but operand \
                 {index} is {shape}"
            ),
            Self::DeclaredShape {
                op,
                shape,
                expected,
            } => write!(
                f,
                "{op}: the instruction's shape {shape} must be {expected}"
            ),
            Self::CalledCount {
                op,
                expected,
                actual,
            } => write!(
                f,
                "{op}: expected {}, got {actual}",
                expected.of("called computation")
            ),
            Self::CalledArity {
                op,
                computation,
                expected,
                actual,
            } => write!(
                f,
                "{op}: {computation} must take {}, but takes {actual}",
                Count::Exactly(*expected).of("parameter")
            ),
            Self::CalledParameter {
                op,
                computation,
                index,
                expected,
                actual,
            } => write!(
                f,
                "{op}: parameter {index} of {computation} must be {expected}, but is \
                 {actual}"
            ),
            Self::CalledResult {
                op,
                computation,
                expected,
                actual,
            } => write!(
                f,
                "{op}: {computation} must return {expected}, but returns {actual}"
            ),
            Self::TupleIndex {
                op,
                index,
                shape,
                len,
            } => write!(
                f,
                "{op}: index {index} is out of range for operand 0 {shape} with {len} \
                 elements"
            ),
            Self::DuplicatePermutePeer { op, role, id } => write!(
                f,
                "{op}: {role} {id} appears in more than one pair of source_target_pairs"
            ),
            Self::ReplicaGroupSize {
                op,
                group,
                actual,
                expected,
            } => write!(
                f,
                "{op}: replica_groups[{group}] has {actual} replicas, but {expected} are \
                 needed"
            ),
            Self::RngState {
                op,
                algorithm,
                expected,
                shape,
            } => write!(
                f,
                "{op}: {algorithm} needs an initial state of shape {expected}, but operand \
                 0 is {shape}"
            ),
            Self::FftLength {
                op,
                fft_type,
                shape,
                dim,
                expected,
                size,
            } => write!(
                f,
                "{op}: {fft_type} needs dimension {dim} of operand 0 {shape} to have size \
                 {expected}, but it has size {size}"
            ),
            Self::WindowSize {
                op,
                spatial,
                size,
                shape,
                dim,
                kernel_size,
            } => write!(
                f,
                "{op}: window size {size} of spatial dimension {spatial} does not match \
                 the size {kernel_size} of dimension {dim} of operand 1 {shape}"
            ),
            Self::WindowPositions {
                op,
                index,
                shape,
                expected,
            } => write!(
                f,
                "{op}: operand {index} {shape} must have the dimensions of the window \
                 positions, {expected}"
            ),
            Self::ConvFeatures {
                op,
                lhs,
                lhs_dim,
                lhs_size,
                rhs,
                rhs_dim,
                rhs_size,
                groups,
            } => write!(
                f,
                "{op}: input feature dimension {lhs_dim} of operand 0 {lhs} has size \
                 {lhs_size}, but it must be feature_group_count {groups} × the size \
                 {rhs_size} of kernel input feature dimension {rhs_dim} of operand 1 {rhs}"
            ),
        }
    }
}
