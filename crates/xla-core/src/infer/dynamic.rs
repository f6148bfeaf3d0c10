//! Dynamic dimension sizes (`docs/semantics.md`, *Dynamic dimension sizes*): get-dimension-size and
//! set-dimension-size.

use super::check;
use super::error::InferError;
use super::parts::{Attr, TypeClass};
use crate::hlo::Opcode;
use crate::{ArrayShape, Dim, PrimitiveType};

/// `get-dimension-size(operand), dimensions={d}`: `s32[]`.
pub fn get_dimension_size<D: Dim>(
    operand: &ArrayShape<D>,
    dimension: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::GetDimensionSize.name();
    check::in_range(op, Attr::entry("dimensions", 0), dimension, operand.rank())?;
    Ok(ArrayShape::new(PrimitiveType::S32, Vec::new()))
}

/// `set-dimension-size(operand, size), dimensions={d}`: `size` is an `s32`
/// scalar; the result is the operand's shape with dimension `d` marked
/// dynamic (its size stays the static bound).
pub fn set_dimension_size<D: Dim>(
    operand: &ArrayShape<D>,
    size: &ArrayShape<D>,
    dimension: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::SetDimensionSize.name();
    let d = check::in_range(op, Attr::entry("dimensions", 0), dimension, operand.rank())?;
    check::scalar(op, 1, size)?;
    check::element_type(op, 1, size, TypeClass::S32)?;
    let mut out = operand.clone().without_layout();
    out.set_dynamic_dim(d, true);
    Ok(out)
}
