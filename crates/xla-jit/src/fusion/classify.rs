//! What each op is to the fusion planner.

use xla_core::hlo::{Family, Flags, HloComputation, InstrId};
use xla_core::{HloModule, Opcode};

use super::Backend;
use crate::error::Unsupported;

/// An instruction's role in fusion planning.
#[derive(Clone, PartialEq, Debug)]
pub enum Role {
    /// A parameter: read from the caller's buffer.
    Parameter,
    /// A non-scalar constant: read from a buffer holding its literal.
    Buffer,
    /// A scalar constant: an immediate in every kernel that uses it.
    ScalarConstant,
    /// Duplicated into every consumer: `iota`, or a broadcast, reshape,
    /// transpose, copy, bitcast or scalar convert of a parameter, a constant
    /// or another cheap value.
    Cheap,
    /// Elementwise; `expensive` ops (transcendentals, division, power) are
    /// not recomputed through broadcasts.
    Elementwise {
        /// Costs much more than a load.
        expensive: bool,
    },
    /// Index arithmetic only (broadcast, reshape, transpose, slice, pad, …).
    DataMovement,
    /// A `reduce`.
    Reduce,
    /// A `dot`.
    Dot,
    /// The root of a kernel of its own (`scatter`, `select-and-scatter`, a
    /// reduce-window that is a prefix scan), which fuses its operands'
    /// producers but never joins its users.
    KernelRoot,
    /// Runs as its own thunk (control flow, tuples, sort, scatter, …).
    Thunk,
    /// The emitters cannot compile it; the runtime interprets it.
    Unsupported(Unsupported),
}

/// The role of instruction `id` of `comp`, for kernels of `backend`.
pub fn classify(
    module: &HloModule,
    comp: &HloComputation,
    backend: &dyn Backend,
    id: InstrId,
) -> Role {
    let instr = comp.instr(id);
    let role = role_of_opcode(instr.opcode);
    let role = match role {
        Role::Buffer if instr.shape.as_array().is_some_and(|a| a.rank() == 0) => {
            Role::ScalarConstant
        }
        Role::KernelRoot if backend.runs_alone(module, comp, instr) => Role::Thunk,
        Role::DataMovement if backend.scans(module, comp, instr) => Role::KernelRoot,
        Role::DataMovement if is_cheap(comp, id) => Role::Cheap,
        Role::Elementwise { .. } if is_cheap(comp, id) => Role::Cheap,
        other => other,
    };
    match role {
        Role::Elementwise { .. }
        | Role::DataMovement
        | Role::Reduce
        | Role::Cheap
        | Role::KernelRoot => match backend.check(module, comp, id) {
            Ok(()) => role,
            Err(u) => Role::Unsupported(u),
        },
        Role::ScalarConstant => match backend.check(module, comp, id) {
            Ok(()) => role,
            // A constant the kernels cannot embed is still a buffer.
            Err(_) => Role::Buffer,
        },
        other => other,
    }
}

/// `true` for values that are free to recompute in every consumer: iota and
/// chains of broadcast/reshape/transpose/copy/bitcast (and converts of
/// scalars) over parameters and constants.
fn is_cheap(comp: &HloComputation, id: InstrId) -> bool {
    let instr = comp.instr(id);
    let operand_is_cheap = |k: usize| {
        let op = instr.operands[k];
        matches!(comp.instr(op).opcode, Opcode::Parameter | Opcode::Constant) || is_cheap(comp, op)
    };
    let index_only = matches!(
        instr.opcode,
        Opcode::Broadcast | Opcode::Reshape | Opcode::Transpose | Opcode::Copy | Opcode::Bitcast
    );
    let scalar_convert = instr.opcode == Opcode::Convert
        && comp
            .instr(instr.operands[0])
            .shape
            .as_array()
            .is_some_and(|a| a.rank() == 0);
    instr.opcode == Opcode::Iota || ((index_only || scalar_convert) && operand_is_cheap(0))
}

/// The role an opcode has before looking at shapes and operands.
fn role_of_opcode(op: Opcode) -> Role {
    use Opcode::*;
    match op {
        Parameter => Role::Parameter,
        Constant => Role::Buffer,
        Bitcast | Broadcast | Concatenate | Copy | DynamicSlice | DynamicUpdateSlice | Gather
        | Iota | Pad | ReduceWindow | Reshape | Reverse | Slice | Transpose | Convolution => {
            Role::DataMovement
        }
        Reduce => Role::Reduce,
        Dot => Role::Dot,
        RngBitGenerator | Scatter | SelectAndScatter | Sort | TopK => Role::KernelRoot,
        _ if op.family() == Family::Elementwise => Role::Elementwise {
            expensive: op.has(Flags::EXPENSIVE),
        },
        _ => Role::Thunk,
    }
}
