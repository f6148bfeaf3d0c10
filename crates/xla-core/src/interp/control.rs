//! Constants, tuples, calls, loops and conditionals.

use super::eval::{invalid, Ctx};
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::{Literal, PrimitiveType};

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

/// `while(init), condition=…, body=…`: `state = body(state)` while
/// `condition(state)` holds.
pub(super) fn while_loop(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let [condition, body] = instr.called[..] else {
        return Err(invalid(instr, "while needs a condition and a body"));
    };
    let mut state = operands[0].clone();
    loop {
        ctx.cancel.check()?;
        let go = ctx.call(condition, &[&state])?;
        if !go.get::<bool>(&[])? {
            return Ok(state);
        }
        state = ctx.call_owned(body, vec![state])?;
    }
}

/// `conditional`: with a `pred` operand 0, branch 0 (true) if it holds,
/// else branch 1; with an `s32` index, branch `index`, or the last branch
/// when the index is out of range. Branch `i` gets operand `i + 1`.
pub(super) fn conditional(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let selector = operands[0];
    let branches = instr.called.len();
    let branch = match selector.element_type() {
        Some(PrimitiveType::Pred) => {
            if selector.get::<bool>(&[])? {
                0
            } else {
                1
            }
        }
        Some(PrimitiveType::S32) => {
            let index = selector.get::<i32>(&[])?;
            usize::try_from(index)
                .ok()
                .filter(|&i| i < branches)
                .unwrap_or(branches.saturating_sub(1))
        }
        _ => {
            return Err(invalid(
                instr,
                "the branch selector must be a pred or s32 scalar",
            ))
        }
    };
    let (Some(&callee), Some(arg)) = (instr.called.get(branch), operands.get(branch + 1)) else {
        return Err(invalid(
            instr,
            format!("no branch {branch} with an operand"),
        ));
    };
    ctx.call(callee, &[arg])
}
