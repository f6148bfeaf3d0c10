//! Where an inference error points: the operand or attribute argument it
//! names, else the whole call.

use crate::types::ExactDim;
use xla_core::infer::{Attr, Callee, InferError};

use crate::ast::Range;

/// The source ranges of one op call: the call, its operands in XLA's
/// operand order, and its attribute arguments under XLA's attribute names
/// (those `InferError` messages use).
pub struct OpSpans {
    pub call: Range,
    pub operands: Vec<Range>,
    pub attrs: Vec<AttrSpan>,
}

/// An attribute argument: the whole list and each entry.
pub struct AttrSpan {
    pub name: &'static str,
    pub range: Range,
    pub entries: Vec<Range>,
}

impl OpSpans {
    pub fn new(call: Range, operands: Vec<Range>) -> Self {
        OpSpans {
            call,
            operands,
            attrs: Vec::new(),
        }
    }

    /// Registers an attribute argument.
    pub fn attr(mut self, name: &'static str, range: Range, entries: Vec<Range>) -> Self {
        self.attrs.push(AttrSpan {
            name,
            range,
            entries,
        });
        self
    }

    fn operand(&self, index: usize) -> Range {
        self.operands.get(index).copied().unwrap_or(self.call)
    }

    fn list(&self, name: &str) -> Option<&AttrSpan> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// A list attribute, or one of its entries.
    fn entry(&self, name: &str, position: Option<usize>) -> Range {
        match self.list(name) {
            Some(a) => position
                .and_then(|p| a.entries.get(p))
                .copied()
                .unwrap_or(a.range),
            None => self.call,
        }
    }

    fn attr_entry(&self, attr: &Attr) -> Range {
        self.entry(attr.name, attr.position)
    }

    fn callee(&self, callee: &Callee) -> Range {
        self.entry(&callee.to_string(), None)
    }

    /// The range an error is reported at.
    pub fn of(&self, err: &InferError<ExactDim>) -> Range {
        use InferError as E;
        match err {
            E::OperandKind { index, .. }
            | E::Rank { index, .. }
            | E::RankMismatch { index, .. }
            | E::ShapeMismatch { index, .. }
            | E::ScalarOrSameDims { index, .. }
            | E::ElementTypeMismatch { index, .. }
            | E::ResultElementType { index, .. }
            | E::ElementType { index, .. }
            | E::LayoutConstraintShape { index, .. }
            | E::DimExceeds { index, .. }
            | E::NotDivisible { index, .. }
            | E::WindowPositions { index, .. } => self.operand(*index),
            E::DimMismatch { rhs_index, .. } => self.operand(*rhs_index),
            E::BitcastLastDim { .. } => self.operand(0),
            E::Conversion { .. } => self.entry("new_element_type", None),
            E::NarrowPreferredType { .. } => self.entry("preferred_element_type", None),
            E::DimOutOfRange { attr, .. }
            | E::NegativeSize { attr, .. }
            | E::SizeExceeds { attr, .. } => self.attr_entry(attr),
            E::DimRepeated { list, position, .. } | E::DimsNotIncreasing { list, position, .. } => {
                self.entry(list, Some(*position))
            }
            E::DimsOverlap {
                other_list: list, ..
            }
            | E::ListRank { list, .. }
            | E::ListLength { list, .. }
            | E::NotPermutation { list, .. } => self.entry(list, None),
            E::ResultDimMismatch { dim, .. } => match self.list("broadcast_dimensions") {
                Some(_) => self.entry("broadcast_dimensions", Some(*dim)),
                None => self.call,
            },
            E::InDimIncompatible { small_dim, .. } => {
                self.entry("broadcast_dimensions", Some(*small_dim))
            }
            E::BroadcastDimsNotIdentity { .. } => self.entry("broadcast_dimensions", None),
            E::SliceBounds { dim, .. } => {
                let start = self.entry("start_indices", Some(*dim));
                let limit = self.entry("limit_indices", Some(*dim));
                start.to(limit)
            }
            E::ElementCount { .. } => self.entry("new_sizes", None),
            E::NegativeResult { dim, .. } => self.entry("padding", Some(*dim)),
            E::InvalidAttribute { attribute, .. } | E::MissingAttribute { attribute, .. } => {
                self.entry(attribute, None)
            }
            E::CalledArity { computation, .. }
            | E::CalledParameter { computation, .. }
            | E::CalledResult { computation, .. } => self.callee(computation),
            E::OperandCount { .. }
            | E::ComparisonType { .. }
            | E::ComplexOrder { .. }
            | E::Incompatible { .. }
            | E::MissingBroadcastDims { .. }
            | E::ByteSize { .. }
            | E::NotExpressible { .. }
            | E::DeclaredShape { .. }
            | E::CalledCount { .. }
            | E::TupleIndex { .. }
            | E::DuplicatePermutePeer { .. }
            | E::ReplicaGroupSize { .. }
            | E::RngState { .. }
            | E::FftLength { .. }
            | E::WindowSize { .. }
            | E::ConvFeatures { .. } => self.call,
        }
    }
}
