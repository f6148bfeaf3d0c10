//! Broadcast, reshape, transpose, reverse, slice, concatenate, pad, iota,
//! copy and bitcast (`docs/semantics.md`, *Pad*, *Data movement*, *Broadcast and
//! broadcast-in-dim*).
//!
//! All but reshape and bitcast are strided copies
//! ([`copy_elements`](super::array::copy_elements)):
//! each result index reads the operand at an offset that is a sum of one
//! term per dimension, so operands with any dense layout are read in place.

use super::array::{
    copy_elements, dense, fill, from_bytes, result_shape, row_major_strides, zeros, Dense, Walk,
};
use super::eval::{invalid, row_major};
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::literal::convert::convert_value;
use crate::literal::LiteralError;
use crate::{dispatch_native, ArrayShape, Literal};

/// The result of `instr` with element `i` (row-major) read from `x` at
/// offset `from(i)`.
fn read(instr: &HloInstruction, x: &Dense<'_>, from: &Walk) -> Result<Literal, InterpError> {
    let shape = result_shape(instr)?;
    let mut out = zeros(&shape)?;
    let extent = shape.dims();
    let to = Walk::of(&row_major_strides(extent));
    let size = shape.element_type().byte_size();
    copy_elements(
        size,
        extent,
        x.literal.bytes()?,
        from,
        out.bytes_mut()?,
        &to,
    );
    Ok(out)
}

/// `broadcast(operand), dimensions=…` (XLA's BroadcastInDim): operand
/// dimension `i` becomes result dimension `dimensions[i]`; a size-1
/// operand dimension is repeated.
pub(super) fn broadcast(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = dense(operands[0])?;
    let shape = result_shape(instr)?;
    let mut strides = vec![0; shape.rank()];
    let dimensions = instr.attrs.dimensions.as_deref().unwrap_or(&[]);
    for (i, &d) in dimensions.iter().enumerate() {
        if x.dims()[i] != 1 {
            strides[d as usize] = x.strides[i];
        }
    }
    read(instr, &x, &Walk::of(&strides))
}

/// `transpose(operand), dimensions=permutation`: result dimension `i` is
/// operand dimension `permutation[i]`.
pub(super) fn transpose(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = dense(operands[0])?;
    let permutation = dimensions(instr)?;
    let strides: Vec<i64> = permutation.iter().map(|&p| x.strides[p as usize]).collect();
    read(instr, &x, &Walk::of(&strides))
}

/// `reverse(operand), dimensions=…`: index `i` of a listed dimension of
/// size `n` reads `n − 1 − i`.
pub(super) fn reverse(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = dense(operands[0])?;
    let dims = x.dims().to_vec();
    let reversed = dimensions(instr)?;
    let (mut start, mut step) = (vec![0; dims.len()], vec![1; dims.len()]);
    for &d in reversed {
        start[d as usize] = dims[d as usize] - 1;
        step[d as usize] = -1;
    }
    read(instr, &x, &Walk::strided(&start, &step, &x.strides))
}

/// `slice(operand), slice={[start:limit:stride], …}`: result index `i`
/// reads `start + i·stride`.
pub(super) fn slice(instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    let x = dense(operands[0])?;
    let config = instr
        .attrs
        .slice
        .as_deref()
        .ok_or_else(|| invalid(instr, "slice without a slice attribute"))?;
    let start: Vec<i64> = config.iter().map(|s| s.start).collect();
    let step: Vec<i64> = config.iter().map(|s| s.stride).collect();
    read(instr, &x, &Walk::strided(&start, &step, &x.strides))
}

/// `concatenate(operands…), dimensions={d}`: the operands one after
/// another along `d`.
pub(super) fn concatenate(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let d = match dimensions(instr)? {
        [d] => *d as usize,
        _ => return Err(invalid(instr, "concatenate needs exactly one dimension")),
    };
    let shape = result_shape(instr)?;
    let out_strides = row_major_strides(shape.dims());
    let mut out = zeros(&shape)?;
    let size = shape.element_type().byte_size();
    let mut offset = 0;
    for operand in operands {
        let x = dense(operand)?;
        let extent = x.dims().to_vec();
        let mut start = vec![0; extent.len()];
        start[d] = offset;
        let to = Walk::strided(&start, &vec![1; extent.len()], &out_strides);
        let from = Walk::of(&x.strides);
        copy_elements(
            size,
            &extent,
            x.literal.bytes()?,
            &from,
            out.bytes_mut()?,
            &to,
        );
        offset += extent[d];
    }
    Ok(out)
}

/// `pad(operand, padding_value), padding=lo_hi_interior…`: operand index
/// `x` lands at `lo + x·(interior + 1)` when that is inside the result
/// (negative `lo`/`hi` crop); every other element is the padding value.
pub(super) fn pad(instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    let x = dense(operands[0])?;
    let value = row_major(operands[1])?;
    let shape = result_shape(instr)?;
    let config = instr
        .attrs
        .padding
        .as_deref()
        .ok_or_else(|| invalid(instr, "pad without a padding attribute"))?;
    let mut out = zeros(&shape)?;
    fill(out.bytes_mut()?, value.bytes()?);
    let out_dims = shape.dims();
    let out_strides = row_major_strides(out_dims);
    let rank = out_dims.len();
    let (mut extent, mut first) = (vec![0; rank], vec![0; rank]);
    let (mut to_start, mut to_step) = (vec![0; rank], vec![0; rank]);
    for d in 0..rank {
        let (n, p) = (x.dims()[d], config[d]);
        let step = p.interior + 1;
        // The operand indices whose position lo + x·step is in [0, out).
        let lowest = if p.low >= 0 {
            0
        } else {
            (-p.low + step - 1) / step
        };
        let end = if out_dims[d] - 1 - p.low < 0 {
            0
        } else {
            ((out_dims[d] - 1 - p.low) / step + 1).min(n)
        };
        extent[d] = (end - lowest).max(0);
        first[d] = lowest;
        to_start[d] = p.low + lowest * step;
        to_step[d] = step;
    }
    let from = Walk::strided(&first, &vec![1; rank], &x.strides);
    let to = Walk::strided(&to_start, &to_step, &out_strides);
    let size = shape.element_type().byte_size();
    copy_elements(
        size,
        &extent,
        x.literal.bytes()?,
        &from,
        out.bytes_mut()?,
        &to,
    );
    Ok(out)
}

/// `iota`, `iota_dimension=d`: element `i` is `i[d]` converted to the
/// element type (so a float iota is `convert` of the integer iota).
pub(super) fn iota(instr: &HloInstruction) -> Result<Literal, InterpError> {
    let shape = result_shape(instr)?;
    let d = instr
        .attrs
        .iota_dimension
        .and_then(|d| usize::try_from(d).ok())
        .filter(|&d| d < shape.rank())
        .ok_or_else(|| invalid(instr, "iota_dimension is not a dimension of the result"))?;
    let n = shape.dims()[d];
    let ty = shape.element_type();
    let values = dispatch_native!(ty, T => {
        let values = (0..n)
            .map(convert_value::<i64, T>)
            .collect::<Result<Vec<T>, _>>()?;
        Literal::vector(&values)
    });
    let mut strides = vec![0; shape.rank()];
    strides[d] = 1;
    let x = Dense {
        literal: std::borrow::Cow::Owned(values),
        strides: vec![1],
    };
    read(instr, &x, &Walk::of(&strides))
}

/// `copy`: the operand (the evaluator gives it the result's layout).
pub(super) fn copy(_instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    Ok(operands[0].clone())
}

/// `reshape`: the row-major sequence of elements, refilled into the new
/// dimensions.
pub(super) fn reshape(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = row_major(operands[0])?;
    from_bytes(result_shape(instr)?, x.bytes()?)
}

/// `bitcast`: the operand's buffer (in its instruction's layout, which the
/// evaluator gives every value) reinterpreted under the result shape and
/// its layout, as XLA's layout-level bitcast.
pub(super) fn bitcast(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let shape: ArrayShape = match instr.shape.as_array() {
        Some(a) => a.clone().with_layout(a.layout_or_default()),
        None => return Err(invalid(instr, "bitcast to a non-array shape")),
    };
    let bytes = operands[0].bytes()?;
    let size = shape.byte_size().map_err(LiteralError::from)?;
    if size != bytes.len() as i64 {
        return Err(invalid(
            instr,
            format!(
                "bitcast of {} ({} bytes) to {} ({} bytes)",
                operands[0].shape(),
                bytes.len(),
                shape,
                size
            ),
        ));
    }
    from_bytes(shape, bytes)
}

/// The `dimensions` attribute.
fn dimensions(instr: &HloInstruction) -> Result<&[i64], InterpError> {
    instr
        .attrs
        .dimensions
        .as_deref()
        .ok_or_else(|| invalid(instr, "missing dimensions"))
}
