//! Broadcast, reshape, transpose, reverse, slice, concatenate, pad, iota, copy, bitcast.

use super::eval::unsupported;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `bitcast`.
pub(super) fn bitcast(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "bitcast"))
}

/// `broadcast`.
pub(super) fn broadcast(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "broadcast"))
}

/// `concatenate`.
pub(super) fn concatenate(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "concatenate"))
}

/// `copy`.
pub(super) fn copy(instr: &HloInstruction, _operands: &[&Literal]) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "copy"))
}

/// `iota`.
pub(super) fn iota(instr: &HloInstruction) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "iota"))
}

/// `pad`.
pub(super) fn pad(instr: &HloInstruction, _operands: &[&Literal]) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "pad"))
}

/// `reshape`.
pub(super) fn reshape(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "reshape"))
}

/// `reverse`.
pub(super) fn reverse(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "reverse"))
}

/// `slice`.
pub(super) fn slice(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "slice"))
}

/// `transpose`.
pub(super) fn transpose(
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "transpose"))
}
