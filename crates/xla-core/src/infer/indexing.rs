//! Indexing (`docs/semantics.md`, *Gather*, *Scatter*, *Dynamic slices*): dynamic-slice,
//! dynamic-update-slice, gather and scatter.

use super::check::{self, bare_array, Order};
use super::error::InferError;
use super::parts::{Attr, Count, RankRule, TypeClass};
use super::reduce::reducer;
use super::{Callee, Signature};
use crate::hlo::{GatherDimensionNumbers, Opcode, ScatterDimensionNumbers};
use crate::{ArrayShape, Dim, Shape};

/// The start-index operands of dynamic-slice and dynamic-update-slice: one
/// integral scalar per dimension of the operand, all of one type. `first`
/// is the position of the first one among the op's operands.
fn check_start_indices<D: Dim>(
    op: &'static str,
    first: usize,
    indices: &[&ArrayShape<D>],
    rank: usize,
) -> Result<(), InferError<D>> {
    check::operand_count(op, first + indices.len(), Count::Exactly(first + rank))?;
    for (i, index) in indices.iter().enumerate() {
        check::scalar(op, first + i, index)?;
        check::element_type(op, first + i, index, TypeClass::Integral)?;
        check::same_element_type(op, first + i, index, first, indices[0])?;
    }
    Ok(())
}

/// `dynamic-slice(operand, start_indices…), dynamic_slice_sizes=…`
/// (`docs/semantics.md`, *Dynamic slices*): one integral scalar start per dimension, and
/// `0 ≤ size ≤ dimension size`. The result has the sizes.
pub fn dynamic_slice<D: Dim>(
    operand: &ArrayShape<D>,
    start_indices: &[&ArrayShape<D>],
    slice_sizes: &[D],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::DynamicSlice.name();
    check_start_indices(op, 1, start_indices, operand.rank())?;
    check::list_rank(op, "dynamic_slice_sizes", slice_sizes.len(), 0, operand)?;
    for (dim, size) in slice_sizes.iter().enumerate() {
        fits(
            op,
            Attr::entry("dynamic_slice_sizes", dim),
            size,
            operand,
            dim,
        )?;
    }
    Ok(ArrayShape::new(
        operand.element_type(),
        slice_sizes.to_vec(),
    ))
}

/// A size attribute must satisfy `0 ≤ size ≤ dimension dim of operand 0`.
fn fits<D: Dim>(
    op: &'static str,
    attr: Attr,
    size: &D,
    operand: &ArrayShape<D>,
    dim: usize,
) -> Result<(), InferError<D>> {
    check::non_negative(op, attr, size)?;
    let bound = &operand.dims()[dim];
    if size.known_gt(bound) {
        return Err(InferError::SizeExceeds {
            op,
            attr,
            size: size.clone(),
            index: 0,
            shape: bare_array(operand),
            dim,
            bound: bound.clone(),
        });
    }
    Ok(())
}

/// `dynamic-update-slice(operand, update, start_indices…)` (`docs/semantics.md`,
/// *Dynamic slices*): `update` has the operand's rank and element type and fits in
/// it; one integral scalar start per dimension. The result is the operand's
/// shape.
pub fn dynamic_update_slice<D: Dim>(
    operand: &ArrayShape<D>,
    update: &ArrayShape<D>,
    start_indices: &[&ArrayShape<D>],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::DynamicUpdateSlice.name();
    check_start_indices(op, 2, start_indices, operand.rank())?;
    check::same_element_type(op, 1, update, 0, operand)?;
    if update.rank() != operand.rank() {
        return Err(InferError::RankMismatch {
            op,
            index: 1,
            shape: bare_array(update),
            rank: update.rank(),
            other_index: 0,
            other: bare_array(operand),
            other_rank: operand.rank(),
        });
    }
    for (dim, (u, o)) in update.dims().iter().zip(operand.dims()).enumerate() {
        if u.known_gt(o) {
            return Err(InferError::DimExceeds {
                op,
                index: 1,
                shape: bare_array(update),
                dim,
                size: u.clone(),
                other_index: 0,
                other: bare_array(operand),
                other_dim: dim,
                other_size: o.clone(),
            });
        }
    }
    Ok(operand.clone().without_layout())
}

/// The dimensions of an index array with the implicit trailing size-1
/// dimension added when `index_vector_dim == rank` (`docs/semantics.md`, *Gather*
/// rule 1): `s32[6,7]` with `index_vector_dim = 2` is treated as `[6,7,1]`.
fn expanded_indices<D: Dim>(
    op: &'static str,
    indices: &ArrayShape<D>,
    position: usize,
    index_vector_dim: i64,
) -> Result<(Vec<D>, usize), InferError<D>> {
    check::element_type(op, position, indices, TypeClass::Integral)?;
    let ivd = check::in_range(
        op,
        Attr::scalar("index_vector_dim"),
        index_vector_dim,
        indices.rank() + 1,
    )?;
    let mut dims = indices.dims().to_vec();
    if ivd == dims.len() {
        dims.push(D::constant(1));
    }
    Ok((dims, ivd))
}

/// Batching dimension pairs (XLA's `operand_batching_dims` with
/// `start_indices_batching_dims`, or scatter's `input_batching_dims` with
/// `scatter_indices_batching_dims`): equal counts, index dimensions distinct
/// and not `index_vector_dim`, paired sizes equal.
#[allow(clippy::too_many_arguments)]
fn batching_pairs<D: Dim>(
    op: &'static str,
    (operand_list, operand_dims): (&'static str, &[i64]),
    (indices_list, indices_dims): (&'static str, &[i64]),
    operand: &ArrayShape<D>,
    indices: &ArrayShape<D>,
    indices_index: usize,
    ivd: usize,
) -> Result<(), InferError<D>> {
    check::dim_list(
        op,
        indices_list,
        indices_dims,
        indices.rank(),
        Order::Unique,
    )?;
    check::disjoint(
        op,
        indices_list,
        indices_dims,
        "index_vector_dim",
        &[ivd as i64],
    )?;
    if operand_dims.len() != indices_dims.len() {
        return Err(InferError::ListLength {
            op,
            list: indices_list,
            len: indices_dims.len(),
            other: operand_list,
            expected: operand_dims.len(),
        });
    }
    for (&o, &i) in operand_dims.iter().zip(indices_dims) {
        let (o, i) = (o as usize, i as usize);
        let (a, b) = (&operand.dims()[o], &indices.dims()[i]);
        if a.known_ne(b) {
            return Err(InferError::DimMismatch {
                op,
                lhs_index: 0,
                lhs: bare_array(operand),
                lhs_dim: o,
                lhs_size: a.clone(),
                rhs_index: indices_index,
                rhs: bare_array(indices),
                rhs_dim: i,
                rhs_size: b.clone(),
            });
        }
    }
    Ok(())
}

/// The index-vector map (`start_index_map` / `scatter_dims_to_operand_dims`):
/// one entry per index-vector component, distinct operand dimensions, none
/// of them a batching dimension.
fn index_map<D: Dim>(
    op: &'static str,
    list: &'static str,
    map: &[i64],
    index_vector_size: &D,
    operand_rank: usize,
    (batching_list, batching): (&'static str, &[i64]),
) -> Result<(), InferError<D>> {
    if let Some(expected) = index_vector_size.as_const() {
        if map.len() as i64 != expected {
            return Err(InferError::ListLength {
                op,
                list,
                len: map.len(),
                other: "the size of dimension index_vector_dim of the indices",
                expected: expected.max(0) as usize,
            });
        }
    }
    check::dim_list(op, list, map, operand_rank, Order::Unique)?;
    check::disjoint(op, list, map, batching_list, batching)
}

/// `gather(operand, start_indices), offset_dims=… collapsed_slice_dims=…
/// start_index_map=… index_vector_dim=… slice_sizes=…` (`docs/semantics.md`, *Gather*,
/// plus XLA's `operand_batching_dims` / `start_indices_batching_dims`).
///
/// Output dimension `i` is an offset dimension (taking the next slice size
/// of a dimension that is neither collapsed nor batching) if `i` is in
/// `offset_dims`, else a batch dimension (taking the next dimension of the
/// indices, skipping `index_vector_dim`).
///
/// | operand   | indices   | `offset_dims` | collapsed | `slice_sizes` | result      |
/// |-----------|-----------|---------------|-----------|---------------|-------------|
/// | `[16,11]` | `[5,2]`   | `{1,2}`       | `{}`      | `{8,6}`       | `[5,8,6]`   |
/// | `[16,11]` | `[4,5,2]` | `{2,3}`       | `{}`      | `{8,6}`       | `[4,5,8,6]` |
/// | `[3,3]`   | `[2]` (ivd 1) | `{0}`     | `{1}`     | `{3,1}`       | `[3,2]`     |
/// | `[3,3]`   | `[3,2]`   | `{}`          | `{0,1}`   | `{1,1}`       | `[3]`       |
/// | `[3,3]`   | `[2,1]`   | `{1}`         | `{0}`     | `{2,3}`       | error: collapsed size 2 |
pub fn gather<D: Dim>(
    operand: &ArrayShape<D>,
    start_indices: &ArrayShape<D>,
    dims: &GatherDimensionNumbers,
    slice_sizes: &[D],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Gather.name();
    let (indices, ivd) = expanded_indices(op, start_indices, 1, dims.index_vector_dim)?;
    let output_rank = dims.offset_dims.len() + indices.len() - 1;
    check::dim_list(
        op,
        "offset_dims",
        &dims.offset_dims,
        output_rank,
        Order::Increasing,
    )?;
    let rank = operand.rank();
    let collapsed = &dims.collapsed_slice_dims;
    let batching = &dims.operand_batching_dims;
    check::dim_list(
        op,
        "collapsed_slice_dims",
        collapsed,
        rank,
        Order::Increasing,
    )?;
    check::dim_list(
        op,
        "operand_batching_dims",
        batching,
        rank,
        Order::Increasing,
    )?;
    check::disjoint(
        op,
        "collapsed_slice_dims",
        collapsed,
        "operand_batching_dims",
        batching,
    )?;
    batching_pairs(
        op,
        ("operand_batching_dims", batching),
        (
            "start_indices_batching_dims",
            &dims.start_indices_batching_dims,
        ),
        operand,
        start_indices,
        1,
        ivd,
    )?;
    index_map(
        op,
        "start_index_map",
        &dims.start_index_map,
        &indices[ivd],
        rank,
        ("operand_batching_dims", batching),
    )?;
    check::list_rank(op, "slice_sizes", slice_sizes.len(), 0, operand)?;
    let window_dims = dims.offset_dims.len() + collapsed.len() + batching.len();
    check::list_rank(
        op,
        "offset_dims + collapsed_slice_dims + operand_batching_dims",
        window_dims,
        0,
        operand,
    )?;
    for (dim, size) in slice_sizes.iter().enumerate() {
        fits(op, Attr::entry("slice_sizes", dim), size, operand, dim)?;
        let dropped = collapsed.contains(&(dim as i64)) || batching.contains(&(dim as i64));
        if dropped && size.known_gt(&D::constant(1)) {
            return Err(InferError::InvalidAttribute {
                op,
                attribute: "slice_sizes",
                value: check::list_string(slice_sizes),
                requirement: "dimensions in collapsed_slice_dims or operand_batching_dims \
                              must have slice size 0 or 1",
            });
        }
    }
    let mut offset_sizes = slice_sizes
        .iter()
        .enumerate()
        .filter(|(d, _)| !collapsed.contains(&(*d as i64)) && !batching.contains(&(*d as i64)))
        .map(|(_, s)| s.clone());
    let mut batch_sizes = indices
        .iter()
        .enumerate()
        .filter(|(d, _)| *d != ivd)
        .map(|(_, s)| s.clone());
    let out = (0..output_rank)
        .map(|i| {
            let size = if dims.offset_dims.contains(&(i as i64)) {
                offset_sizes.next()
            } else {
                batch_sizes.next()
            };
            size.expect("the output rank counts the offset and batch dimensions")
        })
        .collect::<Vec<D>>();
    Ok(ArrayShape::new(operand.element_type(), out))
}

/// `scatter(operands…, scatter_indices, updates…), update_window_dims=…
/// inserted_window_dims=… scatter_dims_to_operand_dims=… index_vector_dim=…,
/// to_apply=…` (`docs/semantics.md`, *Scatter*, plus XLA's `input_batching_dims` /
/// `scatter_indices_batching_dims`). The result is `Collate` of the operand
/// shapes; `to_apply` is `(T_0…T_{N−1}, T_0…T_{N−1}) → Collate(T_0…T_{N−1})`.
///
/// | operand | indices | updates | window | inserted | verdict               |
/// |---------|---------|---------|--------|----------|-----------------------|
/// | `[3,3]` | `[2,1]` | `[2,3]` | `{1}`  | `{0}`    | ok (row scatter)      |
/// | `[3,3]` | `[3,2]` | `[3]`   | `{}`   | `{0,1}`  | ok (point scatter)    |
/// | `[3,3]` | `[2,1]` | `[2,4]` | `{1}`  | `{0}`    | error: window 4 > 3   |
/// | `[3,3]` | `[2,1]` | `[3,3]` | `{1}`  | `{0}`    | error: 3 updates vs 2 indices |
pub fn scatter<D: Dim>(
    operands: &[&ArrayShape<D>],
    scatter_indices: &ArrayShape<D>,
    updates: &[&ArrayShape<D>],
    to_apply: Signature<'_, D>,
    dims: &ScatterDimensionNumbers,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Scatter.name();
    let n = operands.len();
    let count = n + 1 + updates.len();
    if n == 0 || updates.len() != n {
        return Err(InferError::OperandCount {
            op,
            expected: Count::OperandsIndicesUpdates,
            actual: count,
        });
    }
    let (operand, update) = (operands[0], updates[0]);
    for i in 1..n {
        check::same_dims(op, i, operands[i], 0, operand)?;
        check::same_dims(op, n + 1 + i, updates[i], n + 1, update)?;
    }
    for i in 0..n {
        check::same_element_type(op, n + 1 + i, updates[i], i, operands[i])?;
    }
    let (indices, ivd) = expanded_indices(op, scatter_indices, n, dims.index_vector_dim)?;
    let window = &dims.update_window_dims;
    let inserted = &dims.inserted_window_dims;
    let batching = &dims.input_batching_dims;
    let rank = operand.rank();
    check::dim_list(
        op,
        "update_window_dims",
        window,
        update.rank(),
        Order::Increasing,
    )?;
    check::dim_list(
        op,
        "inserted_window_dims",
        inserted,
        rank,
        Order::Increasing,
    )?;
    check::dim_list(op, "input_batching_dims", batching, rank, Order::Increasing)?;
    check::disjoint(
        op,
        "inserted_window_dims",
        inserted,
        "input_batching_dims",
        batching,
    )?;
    batching_pairs(
        op,
        ("input_batching_dims", batching),
        (
            "scatter_indices_batching_dims",
            &dims.scatter_indices_batching_dims,
        ),
        operand,
        scatter_indices,
        n,
        ivd,
    )?;
    check::list_rank(
        op,
        "update_window_dims + inserted_window_dims + input_batching_dims",
        window.len() + inserted.len() + batching.len(),
        0,
        operand,
    )?;
    index_map(
        op,
        "scatter_dims_to_operand_dims",
        &dims.scatter_dims_to_operand_dims,
        &indices[ivd],
        rank,
        ("input_batching_dims", batching),
    )?;
    let updates_rank = indices.len() - 1 + window.len();
    if update.rank() != updates_rank {
        return Err(InferError::Rank {
            op,
            index: n + 1,
            shape: bare_array(update),
            expected: RankRule::Exactly(updates_rank),
        });
    }
    let window_bounds: Vec<usize> = (0..rank)
        .filter(|d| !inserted.contains(&(*d as i64)) && !batching.contains(&(*d as i64)))
        .collect();
    for (&w, &bound_dim) in window.iter().zip(&window_bounds) {
        let (size, bound) = (&update.dims()[w as usize], &operand.dims()[bound_dim]);
        if size.known_gt(bound) {
            return Err(InferError::DimExceeds {
                op,
                index: n + 1,
                shape: bare_array(update),
                dim: w as usize,
                size: size.clone(),
                other_index: 0,
                other: bare_array(operand),
                other_dim: bound_dim,
                other_size: bound.clone(),
            });
        }
    }
    let scatter_dims = (0..update.rank()).filter(|d| !window.contains(&(*d as i64)));
    let index_dims = (0..indices.len()).filter(|&d| d != ivd);
    for (u, i) in scatter_dims.zip(index_dims) {
        let (size, expected) = (&update.dims()[u], &indices[i]);
        if size.known_ne(expected) {
            return Err(InferError::DimMismatch {
                op,
                lhs_index: n + 1,
                lhs: bare_array(update),
                lhs_dim: u,
                lhs_size: size.clone(),
                rhs_index: n,
                rhs: bare_array(scatter_indices),
                rhs_dim: i,
                rhs_size: expected.clone(),
            });
        }
    }
    let types: Vec<_> = operands.iter().map(|o| o.element_type()).collect();
    reducer(op, Callee::ToApply, to_apply, &types)?;
    let shapes: Vec<Shape<D>> = operands
        .iter()
        .map(|o| (*o).clone().without_layout().into())
        .collect();
    Ok(check::collate(shapes))
}
