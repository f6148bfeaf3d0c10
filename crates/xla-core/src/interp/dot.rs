//! Dot (dot_general) and convolution.

use super::eval::unsupported;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `convolution`.
pub(super) fn convolution(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "convolution"))
}

/// `dot`.
pub(super) fn dot(instr: &HloInstruction, _operands: &[&Literal]) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "dot"))
}
