//! The CPU backend's layout constraints for xla-core's layout assignment.

use xla_core::hlo::{HloInstruction, Opcode};
use xla_core::layout::Layout;
use xla_core::passes::layout_assignment::{Constraint, LayoutConstraints};
use xla_core::{ArrayShape, Shape};

/// What the CPU kernels need from layouts.
///
/// * `dot` reads its operands and writes its result through strides, so
///   any dense layout works (a transpose feeding a dot, or a column-major
///   result, costs nothing); tiled or padded operands are copied to
///   row-major first.
/// * Everything else is free: the emitters read every layout through its
///   strides (dense) or its offset tables (tiled), and the generic rules
///   already keep physical orders aligned so that loops run contiguously.
#[derive(Copy, Clone, Debug, Default)]
pub struct CpuLayoutConstraints;

impl LayoutConstraints for CpuLayoutConstraints {
    fn operand_layout(
        &self,
        instr: &HloInstruction,
        _k: usize,
        operand: &ArrayShape,
        _result: &Shape,
    ) -> Constraint {
        let dense = operand.layout().is_none_or(Layout::is_dense);
        if instr.opcode == Opcode::Dot && !dense {
            Constraint::Require(Layout::default_for_rank(operand.rank()))
        } else {
            Constraint::Free
        }
    }
}
