//! Constants, tuples, calls, loops, conditionals and custom calls.

use super::eval::{invalid, unsupported, Ctx};
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// `constant`: the instruction's literal.
pub(super) fn constant(instr: &HloInstruction) -> Result<Literal, InterpError> {
    instr
        .attrs
        .literal
        .clone()
        .ok_or_else(|| invalid(instr, "constant without a literal"))
}

/// `tuple`: the operands, as a tuple.
pub(super) fn tuple(operands: &[&Literal]) -> Result<Literal, InterpError> {
    Ok(Literal::tuple(
        operands.iter().map(|&l| l.clone()).collect(),
    ))
}

/// `get-tuple-element`: element `index` of a tuple.
pub(super) fn get_tuple_element(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let index = instr
        .attrs
        .tuple_index
        .ok_or_else(|| invalid(instr, "get-tuple-element without an index"))?;
    operands[0]
        .tuple_elements()
        .and_then(|t| t.get(index as usize))
        .cloned()
        .ok_or_else(|| {
            invalid(
                instr,
                format!("no element {index} in {}", operands[0].shape()),
            )
        })
}

/// `opt-barrier`: the identity.
pub(super) fn optimization_barrier(operands: &[&Literal]) -> Result<Literal, InterpError> {
    Ok(operands[0].clone())
}

/// `call` and `fusion`: the called computation on the operands.
pub(super) fn call(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let callee = *instr
        .called
        .first()
        .ok_or_else(|| invalid(instr, "no called computation"))?;
    ctx.call(callee, operands)
}

/// `while`.
pub(super) fn while_loop(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "while"))
}

/// `conditional` (predicate and indexed forms).
pub(super) fn conditional(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "conditional"))
}
