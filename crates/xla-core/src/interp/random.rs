//! Random number generation.

use super::eval::unsupported;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `rng`.
pub(super) fn rng(instr: &HloInstruction, _operands: &[&Literal]) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "rng"))
}

/// `rng-bit-generator`.
pub(super) fn rng_bit_generator(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "rng-bit-generator"))
}
