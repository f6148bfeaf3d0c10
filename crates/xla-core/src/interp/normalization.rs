//! Batch normalisation.

use super::eval::unsupported;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `batch-norm-grad`.
pub(super) fn batch_norm_grad(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "batch-norm-grad"))
}

/// `batch-norm-inference`.
pub(super) fn batch_norm_inference(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "batch-norm-inference"))
}

/// `batch-norm-training`.
pub(super) fn batch_norm_training(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "batch-norm-training"))
}
