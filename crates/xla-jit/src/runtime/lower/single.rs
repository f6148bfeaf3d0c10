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
        Opcode::Abs
        | Opcode::Add
        | Opcode::AfterAll
        | Opcode::AllGather
        | Opcode::AllReduce
        | Opcode::AllToAll
        | Opcode::And
        | Opcode::Atan2
        | Opcode::BatchNormGrad
        | Opcode::BatchNormInference
        | Opcode::BatchNormTraining
        | Opcode::BitcastConvert
        | Opcode::Broadcast
        | Opcode::Cbrt
        | Opcode::Ceil
        | Opcode::Cholesky
        | Opcode::Clamp
        | Opcode::Clz
        | Opcode::CollectivePermute
        | Opcode::Compare
        | Opcode::Complex
        | Opcode::Concatenate
        | Opcode::Convert
        | Opcode::Convolution
        | Opcode::Cos
        | Opcode::CustomCall
        | Opcode::Divide
        | Opcode::DynamicSlice
        | Opcode::DynamicUpdateSlice
        | Opcode::Erf
        | Opcode::Exp
        | Opcode::Expm1
        | Opcode::Fft
        | Opcode::Floor
        | Opcode::Fusion
        | Opcode::Gather
        | Opcode::GetDimensionSize
        | Opcode::Imag
        | Opcode::Infeed
        | Opcode::Iota
        | Opcode::IsFinite
        | Opcode::Log
        | Opcode::Log1p
        | Opcode::Logistic
        | Opcode::Map
        | Opcode::Maximum
        | Opcode::Minimum
        | Opcode::Multiply
        | Opcode::Negate
        | Opcode::Not
        | Opcode::Or
        | Opcode::Outfeed
        | Opcode::Pad
        | Opcode::PartitionId
        | Opcode::PopulationCount
        | Opcode::Power
        | Opcode::Real
        | Opcode::Recv
        | Opcode::RecvDone
        | Opcode::Reduce
        | Opcode::ReducePrecision
        | Opcode::ReduceScatter
        | Opcode::ReduceWindow
        | Opcode::Remainder
        | Opcode::ReplicaId
        | Opcode::Reshape
        | Opcode::Reverse
        | Opcode::Rng
        | Opcode::RngBitGenerator
        | Opcode::RoundNearestAfz
        | Opcode::RoundNearestEven
        | Opcode::Rsqrt
        | Opcode::Scatter
        | Opcode::Select
        | Opcode::SelectAndScatter
        | Opcode::Send
        | Opcode::SendDone
        | Opcode::SetDimensionSize
        | Opcode::ShiftLeft
        | Opcode::ShiftRightArithmetic
        | Opcode::ShiftRightLogical
        | Opcode::Sign
        | Opcode::Sin
        | Opcode::Slice
        | Opcode::Sort
        | Opcode::Sqrt
        | Opcode::Subtract
        | Opcode::Tan
        | Opcode::Tanh
        | Opcode::TopK
        | Opcode::Transpose
        | Opcode::TriangularSolve
        | Opcode::Xor => Single::Interpret,
    }
}
