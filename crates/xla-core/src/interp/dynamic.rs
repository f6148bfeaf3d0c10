//! Dynamic dimension sizes.

use super::eval::unsupported;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `get-dimension-size`.
pub(super) fn get_dimension_size(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "get-dimension-size"))
}

/// `set-dimension-size`.
pub(super) fn set_dimension_size(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "set-dimension-size"))
}
