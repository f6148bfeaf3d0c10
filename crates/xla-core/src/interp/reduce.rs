//! Reduce, reduce-window, select-and-scatter, sort and top-k.

use super::eval::unsupported;
use super::eval::Ctx;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `reduce`.
pub(super) fn reduce(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "reduce"))
}

/// `reduce-window`.
pub(super) fn reduce_window(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "reduce-window"))
}

/// `select-and-scatter`.
pub(super) fn select_and_scatter(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "select-and-scatter"))
}

/// `sort`.
pub(super) fn sort(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "sort"))
}

/// `topk`.
pub(super) fn topk(instr: &HloInstruction, _operands: &[&Literal]) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "topk"))
}
