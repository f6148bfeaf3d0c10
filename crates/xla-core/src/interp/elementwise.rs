//! Element-wise ops: the per-element semantics table.

use super::eval::{unsupported, Ctx};
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// Element-wise unary functions.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Unary {
    Abs,
    Cbrt,
    Ceil,
    Clz,
    Cos,
    Erf,
    Exp,
    Expm1,
    Floor,
    Imag,
    IsFinite,
    Log,
    Log1p,
    Logistic,
    Negate,
    Not,
    PopulationCount,
    Real,
    RoundNearestAfz,
    RoundNearestEven,
    Rsqrt,
    Sign,
    Sin,
    Sqrt,
    Tan,
    Tanh,
}

/// Element-wise binary functions (comparisons are separate).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Binary {
    Add,
    And,
    Atan2,
    Complex,
    Divide,
    Maximum,
    Minimum,
    Multiply,
    Or,
    Power,
    Remainder,
    ShiftLeft,
    ShiftRightArithmetic,
    ShiftRightLogical,
    Subtract,
    Xor,
}

/// A unary element-wise op.
pub(super) fn unary(
    instr: &HloInstruction,
    _operands: &[&Literal],
    op: Unary,
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, format!("{op:?}")))
}

/// A binary element-wise op.
pub(super) fn binary(
    instr: &HloInstruction,
    _operands: &[&Literal],
    op: Binary,
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, format!("{op:?}")))
}

/// `compare`.
pub(super) fn compare(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "compare"))
}

/// `select`.
pub(super) fn select(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "select"))
}

/// `clamp`.
pub(super) fn clamp(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "clamp"))
}

/// `convert`.
pub(super) fn convert(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "convert"))
}

/// `bitcast-convert`.
pub(super) fn bitcast_convert(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "bitcast-convert"))
}

/// `reduce-precision`.
pub(super) fn reduce_precision(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "reduce-precision"))
}

/// `map`.
pub(super) fn map(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "map"))
}
