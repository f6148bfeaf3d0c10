//! Cholesky, triangular solve and FFT.

use super::eval::unsupported;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `cholesky`.
pub(super) fn cholesky(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "cholesky"))
}

/// `fft`.
pub(super) fn fft(instr: &HloInstruction, _operands: &[&Literal]) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "fft"))
}

/// `triangular-solve`.
pub(super) fn triangular_solve(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "triangular-solve"))
}
