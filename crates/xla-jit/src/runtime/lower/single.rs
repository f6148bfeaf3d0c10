//! What an instruction outside every fusion lowers to: one arm per op.

use xla_core::hlo::{HloInstruction, Opcode};
use xla_core::Shape;

use super::byte_size;

/// What an instruction outside any fusion lowers to.
pub(super) enum Single {
    Parameter,
    Constant,
    Tuple,
    GetTupleElement,
    /// The operand's buffers, reinterpreted (bitcast, same-layout copy,
    /// optimization barrier).
    Alias,
    /// A layout-changing copy.
    Copy,
    While,
    Conditional,
    Call,
    /// A dot for the engine (the interpreter when the engine cannot run it).
    Dot,
    /// A collective step (the interpreter when the step cannot run it).
    Collective,
    Interpret,
}

pub(super) fn single(instr: &HloInstruction, operand: Option<&Shape>) -> Single {
    match instr.opcode {
        Opcode::Parameter => Single::Parameter,
        Opcode::Constant => Single::Constant,
        Opcode::Tuple => Single::Tuple,
        Opcode::GetTupleElement => Single::GetTupleElement,
        Opcode::OptimizationBarrier => Single::Alias,
        Opcode::Bitcast => match operand.map(byte_size) {
            Some(size) if size == byte_size(&instr.shape) => Single::Alias,
            _ => Single::Interpret,
        },
        Opcode::Copy => match operand {
            Some(s) if s.eq_with_layout(&instr.shape) => Single::Alias,
            Some(Shape::Array(_)) if instr.shape.is_array() => Single::Copy,
            _ => Single::Interpret,
        },
        Opcode::While => Single::While,
        Opcode::Conditional => Single::Conditional,
        Opcode::Call => Single::Call,
        Opcode::Dot => Single::Dot,
        Opcode::AllReduce
        | Opcode::AllGather
        | Opcode::ReduceScatter
        | Opcode::AllToAll
        | Opcode::CollectivePermute
        | Opcode::ReplicaId
        | Opcode::PartitionId => Single::Collective,
        _ => Single::Interpret,
    }
}
