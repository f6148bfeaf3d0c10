//! Data movement (`docs/semantics.md`, *Data movement*): reshape, collapse, transpose,
//! reverse, slice, concatenate, pad, iota, copy and bitcast.

use super::check::{self, bare_array, dynamic_flags, with_dynamic, Order};
use super::error::InferError;
use super::parts::{Attr, Count, DimList, TypeClass};
use crate::hlo::{Opcode, PadDim};
use crate::{ArrayShape, Dim, Shape};

/// `reshape(operand)` to `new_sizes` (row-major refill, `docs/semantics.md`,
/// *Reshape*): the element counts must agree. `f32[B, N]` reshapes to
/// `[B * N]`; `f32[2,3]` does not reshape to `[4]`.
pub fn reshape<D: Dim>(
    operand: &ArrayShape<D>,
    new_sizes: &[D],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Reshape.name();
    for (i, size) in new_sizes.iter().enumerate() {
        check::non_negative(op, Attr::entry("new_sizes", i), size)?;
    }
    let (count, result_count) = (check::product(operand.dims()), check::product(new_sizes));
    let result = ArrayShape::new(operand.element_type(), new_sizes.to_vec());
    if count.known_ne(&result_count) {
        return Err(InferError::ElementCount {
            op,
            index: 0,
            shape: bare_array(operand),
            count,
            result: Box::new(result.into()),
            result_count,
        });
    }
    Ok(result)
}

/// `Collapse(operand, dimensions)` (`docs/semantics.md`, *Collapse*): a consecutive,
/// increasing run of dimensions becomes one dimension of their product at
/// the same position.
///
/// | operand   | `dimensions` | result                         |
/// |-----------|--------------|--------------------------------|
/// | `[4,2,3]` | `{0,1}`      | `[8,3]`                        |
/// | `[4,2,3]` | `{1,2}`      | `[4,6]`                        |
/// | `[4,2,3]` | `{}`         | `[4,2,3]`                      |
/// | `[4,2,3]` | `{1,0}`      | error: not increasing          |
/// | `[4,2,3]` | `{0,2}`      | error: not consecutive         |
pub fn collapse<D: Dim>(
    operand: &ArrayShape<D>,
    dimensions: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = "collapse";
    check::dim_list(
        op,
        "dimensions",
        dimensions,
        operand.rank(),
        Order::Increasing,
    )?;
    if dimensions.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err(InferError::InvalidAttribute {
            op,
            attribute: "dimensions",
            value: DimList(dimensions.to_vec()).to_string(),
            requirement: "the collapsed dimensions must be consecutive",
        });
    }
    let Some((&first, &last)) = dimensions.first().zip(dimensions.last()) else {
        return Ok(operand.clone().without_layout());
    };
    let (first, last) = (first as usize, last as usize);
    let dims = operand.dims();
    let mut new_sizes = dims[..first].to_vec();
    new_sizes.push(check::product(&dims[first..=last]));
    new_sizes.extend(dims[last + 1..].iter().cloned());
    reshape(operand, &new_sizes)
}

/// `transpose(operand), dimensions=…`: result dimension `i` is operand
/// dimension `permutation[i]`. `f32[4,2,3]` with `{1,2,0}` gives
/// `f32[2,3,4]`.
pub fn transpose<D: Dim>(
    operand: &ArrayShape<D>,
    permutation: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    check::permutation(
        Opcode::Transpose.name(),
        "dimensions",
        permutation,
        operand.rank(),
    )?;
    let dims = permutation
        .iter()
        .map(|&p| operand.dims()[p as usize].clone())
        .collect();
    let dynamic: Vec<bool> = permutation
        .iter()
        .map(|&p| operand.is_dynamic_dim(p as usize))
        .collect();
    Ok(with_dynamic(operand.element_type(), dims, &dynamic))
}

/// `reverse(operand), dimensions=…`: distinct dimensions of the operand; the
/// shape is unchanged.
pub fn reverse<D: Dim>(
    operand: &ArrayShape<D>,
    dimensions: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Reverse.name();
    check::dim_list(op, "dimensions", dimensions, operand.rank(), Order::Unique)?;
    Ok(operand.clone().without_layout())
}

/// `slice(operand), slice={[start:limit:stride], …}` (`docs/semantics.md`,
/// *Slice*): per dimension `0 ≤ start ≤ limit ≤ size` and `stride ≥ 1`; the
/// result size is `⌈(limit − start) / stride⌉`.
///
/// | operand | slice      | result                          |
/// |---------|------------|---------------------------------|
/// | `[5]`   | `[2:4:1]`  | `[2]`                           |
/// | `[5]`   | `[1:5:3]`  | `[2]`                           |
/// | `[N]`   | `[1:N-1:1]`| `[N - 2]`                       |
/// | `[N]`   | `[0:N:2]`  | error: `⌈N / 2⌉` not expressible |
/// | `[4]`   | `[2:5:1]`  | error: beyond the size          |
/// | `[4]`   | `[3:2:1]`  | error: start after limit        |
/// | `[4]`   | `[0:4:0]`  | error: stride                   |
pub fn slice<D: Dim>(
    operand: &ArrayShape<D>,
    start_indices: &[D],
    limit_indices: &[D],
    strides: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Slice.name();
    check::list_rank(op, "start_indices", start_indices.len(), 0, operand)?;
    check::list_rank(op, "limit_indices", limit_indices.len(), 0, operand)?;
    check::list_rank(op, "strides", strides.len(), 0, operand)?;
    let zero = D::constant(0);
    let mut dims = Vec::with_capacity(operand.rank());
    for (dim, size) in operand.dims().iter().enumerate() {
        let (start, limit, stride) = (&start_indices[dim], &limit_indices[dim], strides[dim]);
        if start.known_lt(&zero) || limit.known_gt(size) || start.known_gt(limit) {
            return Err(InferError::SliceBounds {
                op,
                shape: bare_array(operand),
                dim,
                start: start.clone(),
                limit: limit.clone(),
                size: size.clone(),
            });
        }
        if stride < 1 {
            return Err(InferError::InvalidAttribute {
                op,
                attribute: "strides",
                value: DimList(strides.to_vec()).to_string(),
                requirement: "every stride must be at least 1",
            });
        }
        let extent = limit.sub(start);
        let out = extent
            .ceil_div(stride)
            .ok_or_else(|| InferError::NotExpressible {
                op,
                dim,
                formula: format!("⌈({extent}) / {stride}⌉"),
            })?;
        dims.push(out);
    }
    let dynamic: Vec<bool> = (0..operand.rank())
        .map(|d| operand.is_dynamic_dim(d) && !dims[d].is(1))
        .collect();
    Ok(with_dynamic(operand.element_type(), dims, &dynamic))
}

/// `concatenate(operands…), dimensions={d}` (`docs/semantics.md`, *Concatenate*): N ≥ 1
/// arrays of one element type and rank ≥ 1, equal in every dimension but
/// `d`, whose sizes add up. `f32[A, N]` and `f32[B, N]` on dimension 0 give
/// `f32[A + B, N]`.
pub fn concatenate<D: Dim>(
    operands: &[&ArrayShape<D>],
    dimension: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Concatenate.name();
    check::operand_count(op, operands.len(), Count::AtLeast(1))?;
    let first = operands[0];
    let d = check::in_range(op, Attr::entry("dimensions", 0), dimension, first.rank())?;
    let mut dims = first.dims().to_vec();
    let mut dynamic = dynamic_flags(first);
    for (index, operand) in operands.iter().enumerate().skip(1) {
        check::same_element_type(op, index, operand, 0, first)?;
        if operand.rank() != first.rank() {
            return Err(InferError::RankMismatch {
                op,
                index,
                shape: bare_array(operand),
                rank: operand.rank(),
                other_index: 0,
                other: bare_array(first),
                other_rank: first.rank(),
            });
        }
        for (dim, (a, b)) in first.dims().iter().zip(operand.dims()).enumerate() {
            if dim != d && a.known_ne(b) {
                return Err(InferError::DimMismatch {
                    op,
                    lhs_index: 0,
                    lhs: bare_array(first),
                    lhs_dim: dim,
                    lhs_size: a.clone(),
                    rhs_index: index,
                    rhs: bare_array(operand),
                    rhs_dim: dim,
                    rhs_size: b.clone(),
                });
            }
            dynamic[dim] |= operand.is_dynamic_dim(dim);
        }
        dims[d] = dims[d].add(&operand.dims()[d]);
    }
    Ok(with_dynamic(first.element_type(), dims, &dynamic))
}

/// One dimension of a pad config, with sizes that may be symbolic.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct PadAmounts<D = i64> {
    /// Elements added before index 0 (negative crops).
    pub low: D,
    /// Elements added after the last index (negative crops).
    pub high: D,
    /// Elements inserted between neighbours (≥ 0).
    pub interior: D,
}

impl From<&PadDim> for PadAmounts<i64> {
    fn from(p: &PadDim) -> Self {
        PadAmounts {
            low: p.low,
            high: p.high,
            interior: p.interior,
        }
    }
}

/// `pad(operand, padding_value), padding=…` (`docs/semantics.md`, *Pad*): one config
/// per dimension; `padding_value` is a scalar of the operand's type; interior
/// padding is ≥ 0; result size `low + high + n + max(n − 1, 0) · interior`
/// must be ≥ 0.
///
/// | operand | `low_high_interior` | result                  |
/// |---------|---------------------|-------------------------|
/// | `[3]`   | `2_1_0`             | `[6]`                   |
/// | `[3]`   | `0_0_2`             | `[7]`                   |
/// | `[3]`   | `-1_-1_1`           | `[3]` (crops)           |
/// | `[0]`   | `0_0_5`             | `[0]`                   |
/// | `[2]`   | `-2_-1_0`           | error: size −1          |
/// | `[3]`   | `0_0_-1`            | error: negative interior |
pub fn pad<D: Dim>(
    operand: &ArrayShape<D>,
    padding_value: &ArrayShape<D>,
    config: &[PadAmounts<D>],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Pad.name();
    check::scalar(op, 1, padding_value)?;
    check::same_element_type(op, 1, padding_value, 0, operand)?;
    check::list_rank(op, "padding", config.len(), 0, operand)?;
    let zero = D::constant(0);
    let mut dims = Vec::with_capacity(config.len());
    for (dim, (n, p)) in operand.dims().iter().zip(config).enumerate() {
        check::non_negative(op, Attr::entry("interior_padding", dim), &p.interior)?;
        let holes = if p.interior.is(0) || n.is(0) {
            zero.clone()
        } else if n.known_gt(&zero) {
            n.sub(&D::constant(1)).mul(&p.interior)
        } else {
            return Err(InferError::NotExpressible {
                op,
                dim,
                formula: format!("max({n} - 1, 0) * {}", p.interior),
            });
        };
        let size = p.low.add(&p.high).add(n).add(&holes);
        if size.known_lt(&zero) {
            return Err(InferError::NegativeResult { op, dim, size });
        }
        dims.push(size);
    }
    Ok(with_dynamic(
        operand.element_type(),
        dims,
        &dynamic_flags(operand),
    ))
}

/// `iota(), iota_dimension=…`: the result is `shape`, which must have rank
/// ≥ 1 with `iota_dimension` one of its dimensions, and a numeric element
/// type (XLA's verifier refuses a `pred` iota).
pub fn iota<D: Dim>(
    shape: &ArrayShape<D>,
    iota_dimension: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Iota.name();
    for (i, size) in shape.dims().iter().enumerate() {
        check::non_negative(op, Attr::entry("shape", i), size)?;
    }
    check::in_range(
        op,
        Attr::scalar("iota_dimension"),
        iota_dimension,
        shape.rank(),
    )?;
    if !TypeClass::Arithmetic.contains(shape.element_type()) {
        return Err(InferError::DeclaredShape {
            op,
            shape: bare_array(shape),
            expected: "an array of an integral, floating-point or complex element type",
        });
    }
    Ok(shape.clone().without_layout())
}

/// `copy(operand)`: any shape, returned unchanged.
pub fn copy<D: Dim>(operand: &Shape<D>) -> Shape<D> {
    check::plain(operand)
}

/// `bitcast(operand)` to `shape`: reinterprets the buffer, so both must
/// hold the same number of bytes (layouts ignored), and bytes of another
/// type are no pred (a pred byte holds 0 or 1).
pub fn bitcast<D: Dim>(
    operand: &ArrayShape<D>,
    shape: &ArrayShape<D>,
) -> Result<ArrayShape<D>, InferError<D>> {
    check::no_bytes_to_pred(
        Opcode::Bitcast.name(),
        operand.element_type(),
        shape.element_type(),
    )?;
    let bytes = |s: &ArrayShape<D>| {
        let width = D::constant(s.element_type().byte_size() as i64);
        check::product(s.dims()).mul(&width)
    };
    let (operand_bytes, result_bytes) = (bytes(operand), bytes(shape));
    if operand_bytes.known_ne(&result_bytes) {
        return Err(InferError::ByteSize {
            op: Opcode::Bitcast.name(),
            index: 0,
            shape: bare_array(operand),
            bytes: operand_bytes,
            result: bare_array(shape),
            result_bytes,
        });
    }
    Ok(shape.clone().without_layout())
}
