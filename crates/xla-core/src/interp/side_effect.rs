//! Tokens, infeed/outfeed, send/recv.

use super::eval::unsupported;
use super::eval::Ctx;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// Infeed/outfeed queues and send/recv channels of one evaluation.
#[derive(Debug, Default)]
pub(super) struct Io {}

/// `after-all`: a token.
pub(super) fn after_all() -> Result<Literal, InterpError> {
    Ok(Literal::token())
}

/// `infeed`.
pub(super) fn infeed(_ctx: &mut Ctx<'_>, instr: &HloInstruction) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "infeed"))
}

/// `outfeed`.
pub(super) fn outfeed(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "outfeed"))
}

/// `recv`.
pub(super) fn recv(_ctx: &mut Ctx<'_>, instr: &HloInstruction) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "recv"))
}

/// `recv-done`.
pub(super) fn recv_done(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "recv-done"))
}

/// `send`.
pub(super) fn send(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "send"))
}

/// `send-done`.
pub(super) fn send_done(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "send-done"))
}
