//! What each op fixes, requires and prefers of layouts: the op table of
//! layout assignment, and the generic propagation rules as pure functions
//! of shapes.

use super::physical;
use super::row_major;
use crate::hlo::{Family, Flags, HloInstruction, Opcode, ProgramShape};
use crate::layout::Layout;
use crate::{ArrayShape, Shape};

/// How an op relates its operands' layouts to its result's.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Rule {
    /// Operands of the result's rank share its layout; the others (scalar
    /// operands, indices) are free.
    SameLayout,
    /// The operand's layout permuted.
    Transpose,
    /// A layout under which the reshape moves no byte, if one exists.
    Reshape,
    /// The operand's dimensions keep their relative order.
    Broadcast,
    /// The kept dimensions keep their relative order.
    Reduce,
    /// `tuple`: the result is its operands' buffers.
    Tuple,
    /// `get-tuple-element`, `opt-barrier`: the result is (part of) the
    /// operand.
    Forward,
    /// `while`, `conditional`, `call`, `fusion`: the callee's boundary is
    /// row-major.
    Call,
    /// Buffers seen outside the program: layouts as written.
    External,
    /// `bitcast`: its meaning depends on the layouts written on both sides.
    Bitcast,
    /// The computation's parameters.
    Parameter,
    /// No relation: operands free, result row-major unless asked otherwise.
    Opaque,
}

/// The rule of `instr`'s op.
pub(super) fn rule(instr: &HloInstruction) -> Rule {
    use Opcode::*;
    match instr.opcode {
        AllGather | AllReduce | AllToAll | ReduceScatter => {
            if instr.attrs.constrain_layout {
                Rule::External
            } else {
                Rule::SameLayout
            }
        }
        Transpose => Rule::Transpose,
        Reshape => Rule::Reshape,
        Broadcast => Rule::Broadcast,
        Reduce => Rule::Reduce,
        Tuple => Rule::Tuple,
        GetTupleElement | OptimizationBarrier => Rule::Forward,
        Call | Conditional | Fusion | While => Rule::Call,
        CustomCall | Infeed | Outfeed | Recv | RecvDone | Send | SendDone => Rule::External,
        Bitcast => Rule::Bitcast,
        Parameter => Rule::Parameter,
        op if op.has(Flags::SAME_LAYOUT) => Rule::SameLayout,
        _ => Rule::Opaque,
    }
}

/// `shape` (an array) with `layout`; other shapes unchanged.
pub(super) fn with_layout(shape: &Shape, layout: Layout) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(a.clone().with_layout(layout)),
        other => other.clone(),
    }
}

/// The minor-to-major order of `layout` alone: what the generic rules carry
/// over (tiles and padding stay where they are required).
fn dense(array: &ArrayShape) -> Layout {
    Layout::new(array.layout_or_default().minor_to_major)
}

// === fixed layouts ===

/// The layout of `instr`'s result that no user can change, if its op fixes
/// one: parameters take the computation's boundary, external buffers and
/// bitcasts keep their written layouts, calls return row-major values.
pub(super) fn fixed_result(instr: &HloInstruction, boundary: &ProgramShape) -> Option<Shape> {
    match rule(instr) {
        Rule::Parameter => {
            let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
            boundary.parameters.get(number).cloned()
        }
        Rule::External | Rule::Bitcast => Some(instr.shape.clone().with_default_layouts()),
        Rule::Call => Some(row_major(instr.shape.clone())),
        Rule::SameLayout
        | Rule::Transpose
        | Rule::Reshape
        | Rule::Broadcast
        | Rule::Reduce
        | Rule::Tuple
        | Rule::Forward
        | Rule::Opaque => None,
    }
}

/// The layout operand `k` (of shape `operand`, as written) of `instr` must
/// have by the fixed rules, if any: callees take row-major operands, custom
/// calls their `operand_layout_constraints` (else row-major), outfeed and
/// send the layouts they write, bitcasts and layout-constrained collectives
/// the layouts written on their operands.
pub(super) fn fixed_operand(instr: &HloInstruction, k: usize, operand: &Shape) -> Option<Shape> {
    match rule(instr) {
        Rule::Call => {
            let predicate = instr.opcode == Opcode::Conditional && k == 0;
            (!predicate).then(|| row_major(operand.clone()))
        }
        Rule::External => external_operand(instr, k, operand),
        Rule::Bitcast => Some(operand.clone().with_default_layouts()),
        Rule::SameLayout
        | Rule::Transpose
        | Rule::Reshape
        | Rule::Broadcast
        | Rule::Reduce
        | Rule::Tuple
        | Rule::Forward
        | Rule::Parameter
        | Rule::Opaque => None,
    }
}

/// [`fixed_operand`] for the ops of [`Rule::External`].
fn external_operand(instr: &HloInstruction, k: usize, operand: &Shape) -> Option<Shape> {
    let attrs = &instr.attrs;
    if instr.opcode == Opcode::CustomCall {
        Some(
            match attrs
                .operand_layout_constraints
                .as_ref()
                .and_then(|c| c.get(k))
            {
                Some(given) => given.clone().with_default_layouts(),
                None => row_major(operand.clone()),
            },
        )
    } else if instr.opcode == Opcode::Outfeed && k == 0 {
        let written = attrs.outfeed_shape.as_ref().unwrap_or(operand);
        Some(written.clone().with_default_layouts())
    } else if instr.opcode == Opcode::Send && k == 0 {
        let data = instr.shape.tuple_shapes().and_then(|t| t.first());
        data.map(|data| data.clone().with_default_layouts())
    } else if instr.opcode.family() == Family::Collective {
        Some(operand.clone().with_default_layouts())
    } else {
        None
    }
}

// === generic preferences ===

/// The layout `instr`, whose result has the layout of `result`, prefers for
/// its array operand `operand`, by the generic rules: the same layout, or
/// the one that makes a transpose, reshape or broadcast move no byte.
pub(super) fn preferred_operand(
    instr: &HloInstruction,
    operand: &ArrayShape,
    result: &ArrayShape,
) -> Option<Layout> {
    let layout = dense(result);
    let dimensions = instr.attrs.dimensions.as_deref().unwrap_or_default();
    match rule(instr) {
        Rule::SameLayout => (operand.rank() == result.rank()).then_some(layout),
        Rule::Transpose => Some(physical::transpose_operand(&layout, dimensions)),
        Rule::Broadcast => Some(physical::broadcast_operand(&layout, dimensions)),
        Rule::Reshape => {
            physical::reshape_layout(&result.clone().with_layout(layout), operand.dims())
        }
        Rule::Reduce
        | Rule::Tuple
        | Rule::Forward
        | Rule::Call
        | Rule::External
        | Rule::Bitcast
        | Rule::Parameter
        | Rule::Opaque => None,
    }
}

/// The layout the generic rules give the array result `result` of `instr`
/// from its operands' layouts: the first same-rank operand's layout, the
/// operand's layout carried through a transpose, reshape, broadcast or
/// reduce, or `None` (row-major).
pub(super) fn preferred_result(
    instr: &HloInstruction,
    result: &ArrayShape,
    operands: &[&Shape],
) -> Option<Layout> {
    let dimensions = instr.attrs.dimensions.as_deref().unwrap_or_default();
    let first = operands.first().and_then(|s| s.as_array());
    match rule(instr) {
        Rule::SameLayout => operands
            .iter()
            .filter_map(|s| s.as_array())
            .find(|a| a.rank() == result.rank())
            .map(dense),
        Rule::Transpose => first.map(|a| physical::transpose_result(&dense(a), dimensions)),
        Rule::Broadcast => {
            first.map(|a| physical::broadcast_result(&dense(a), dimensions, result.rank()))
        }
        Rule::Reduce => first.map(|a| physical::reduce_result(&dense(a), dimensions)),
        Rule::Reshape => first.and_then(|a| physical::reshape_layout(a, result.dims())),
        Rule::Tuple
        | Rule::Forward
        | Rule::Call
        | Rule::External
        | Rule::Bitcast
        | Rule::Parameter
        | Rule::Opaque => None,
    }
}

/// The shape the generic rules give the tuple result of `instr`: a
/// variadic reduce keeps each operand's order in its result, everything
/// else is row-major.
pub(super) fn preferred_tuple_result(instr: &HloInstruction, operands: &[&Shape]) -> Shape {
    let (Rule::Reduce, Some(results), Some(dimensions)) = (
        rule(instr),
        instr.shape.tuple_shapes(),
        instr.attrs.dimensions.as_deref(),
    ) else {
        return row_major(instr.shape.clone());
    };
    let element = |(element, input): (&Shape, &&Shape)| match input.as_array() {
        Some(input) => with_layout(element, physical::reduce_result(&dense(input), dimensions)),
        None => row_major(element.clone()),
    };
    Shape::Tuple(results.iter().zip(operands).map(element).collect())
}
