//! Dynamic slices, gather and scatter.

use super::eval::unsupported;
use super::eval::Ctx;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `dynamic-slice`.
pub(super) fn dynamic_slice(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "dynamic-slice"))
}

/// `dynamic-update-slice`.
pub(super) fn dynamic_update_slice(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "dynamic-update-slice"))
}

/// `gather`.
pub(super) fn gather(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "gather"))
}

/// `scatter`.
pub(super) fn scatter(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "scatter"))
}
