//! Dynamic dimension sizes (`docs/semantics.md`, *Dynamic dimension sizes*).
//!
//! A literal carries the runtime size of each dynamic dimension
//! ([`Literal::with_dynamic_size`]); the buffer keeps its static shape, and
//! size-aware consumers (reductions) ignore the elements past the runtime
//! size.

use super::eval::invalid;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::{Literal, PrimitiveType};

/// `dimensions={d}` of the instruction, checked against the operand's rank.
fn dimension(instr: &HloInstruction, operand: &Literal) -> Result<usize, InterpError> {
    let rank = operand.array_shape()?.rank();
    match instr.attrs.dimensions.as_deref() {
        Some(&[d]) if (0..rank as i64).contains(&d) => Ok(d as usize),
        _ => Err(invalid(
            instr,
            format!(
                "needs dimensions={{d}} with d a dimension of {}",
                operand.shape()
            ),
        )),
    }
}

/// `get-dimension-size(operand), dimensions={d}`: the runtime size of
/// dimension `d` (its static size unless `set-dimension-size` changed it),
/// as `s32[]`.
pub(super) fn get_dimension_size(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let d = dimension(instr, operands[0])?;
    let size = operands[0].dynamic_size(d);
    let size =
        i32::try_from(size).map_err(|_| invalid(instr, format!("size {size} does not fit s32")))?;
    Ok(Literal::scalar(size))
}

/// `set-dimension-size(operand, size), dimensions={d}`: the operand, with
/// the runtime size of dimension `d` set to `size` (in `[0, static size]`).
pub(super) fn set_dimension_size(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let d = dimension(instr, operands[0])?;
    let size = operands[1].convert(PrimitiveType::S64)?.get::<i64>(&[])?;
    Ok(operands[0].clone().with_dynamic_size(d, size)?)
}
