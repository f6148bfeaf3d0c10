//! Broadcasting (`docs/semantics.md`, *Broadcasting*): the result shape of an element-wise
//! binary op, and the explicit `Broadcast` / `BroadcastInDim` ops.

use super::check::{self, bare_array, dynamic_flags, with_dynamic, Order};
use super::error::InferError;
use super::parts::{Attr, DimList};
use crate::{ArrayShape, Dim};

/// The shape two operands of an element-wise binary op broadcast to; the
/// element type is `lhs`'s (the caller checks that the types agree).
///
/// Scalar broadcasting needs no `broadcast_dimensions`; operands of
/// different ranks (neither scalar) need them (InDim broadcasting of the
/// lower-rank operand, `docs/semantics.md`, *InDim broadcasting*); operands of equal rank
/// accept only none or the identity, and then broadcast degenerate (size-1)
/// dimensions (`docs/semantics.md`, *Degenerate-dimension broadcasting*). InDim comes first,
/// then degenerate broadcasting (`docs/semantics.md`, *Combined broadcasting*: examples A and B
/// below).
///
/// Two sizes are compatible when they are equal or one is 1; the result
/// takes the other one, so `0` with `1` gives `0`. Symbolic sizes are
/// compatible only when that is *known*: `B` and `N` are not, since the
/// result would be `B`, `N` or either.
///
/// | lhs       | rhs       | `broadcast_dimensions` | result                         |
/// |-----------|-----------|------------------------|--------------------------------|
/// | `[]`      | `[2,3]`   | none                   | `[2,3]`                        |
/// | `[4,3]`   | `[3]`     | `{1}`                  | `[4,3]`                        |
/// | `[2,3,4]` | `[2,1]`   | `{0,2}`                | `[2,3,4]`                      |
/// | `[2,1,4]` | `[2,3]`   | `{0,1}`                | `[2,3,4]` (degenerate on lhs)  |
/// | `[4]`     | `[1,2]`   | `{0}`                  | `[4,2]` (example A)            |
/// | `[1,2]`   | `[4,3,1]` | `{1,2}`                | `[4,3,2]` (example B)          |
/// | `[2,1]`   | `[1,3]`   | none                   | `[2,3]` (outer)                |
/// | `[0]`     | `[1]`     | none                   | `[0]`                          |
/// | `[4,3]`   | `[3]`     | `{0}`                  | error: 3 maps to size 4        |
/// | `[2,3,4]` | `[2,1]`   | `{1,0}`                | error: not increasing          |
/// | `[2,3]`   | `[3]`     | `{0,1}`                | error: length ≠ rank 1         |
/// | `[2,3]`   | `[3]`     | none                   | error: ranks differ            |
/// | `[7,2,5]` | `[7,2,6]` | none                   | error: dimension 2, 5 vs 6     |
/// | `[2,3]`   | `[2,3]`   | `{1,0}`                | error: not the identity        |
pub fn broadcast_binary<D: Dim>(
    op: &'static str,
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let dims = broadcast_dimensions.unwrap_or(&[]);
    if lhs.rank() == rhs.rank() {
        let identity = dims.iter().copied().eq(0..lhs.rank() as i64);
        if !dims.is_empty() && !identity {
            return Err(InferError::BroadcastDimsNotIdentity {
                op,
                lhs: bare_array(lhs),
                rhs: bare_array(rhs),
                dims: DimList(dims.to_vec()),
            });
        }
        let (l, r) = (
            (lhs.dims(), dynamic_flags(lhs)),
            (rhs.dims(), dynamic_flags(rhs)),
        );
        return degenerate(op, lhs, rhs, (l.0, &l.1), (r.0, &r.1));
    }
    let lhs_is_small = lhs.rank() < rhs.rank();
    let (small, big, small_index, big_index) = if lhs_is_small {
        (lhs, rhs, 0, 1)
    } else {
        (rhs, lhs, 1, 0)
    };
    if dims.is_empty() && small.rank() > 0 {
        return Err(InferError::MissingBroadcastDims {
            op,
            lhs: bare_array(lhs),
            rhs: bare_array(rhs),
        });
    }
    check::list_rank(op, "broadcast_dimensions", dims.len(), small_index, small)?;
    check::dim_list(
        op,
        "broadcast_dimensions",
        dims,
        big.rank(),
        Order::Increasing,
    )?;
    // InDim: expand `small` to `big`'s rank with size-1 dimensions.
    let mut expanded = vec![D::constant(1); big.rank()];
    let mut expanded_dynamic = vec![false; big.rank()];
    for (i, &d) in dims.iter().enumerate() {
        let d = d as usize;
        if combine(&small.dims()[i], &big.dims()[d]).is_none() {
            return Err(InferError::InDimIncompatible {
                op,
                lhs: bare_array(lhs),
                rhs: bare_array(rhs),
                dims: DimList(dims.to_vec()),
                small: small_index,
                small_dim: i,
                small_size: small.dims()[i].clone(),
                big: big_index,
                big_dim: d,
                big_size: big.dims()[d].clone(),
            });
        }
        expanded[d] = small.dims()[i].clone();
        expanded_dynamic[d] = small.is_dynamic_dim(i);
    }
    // Degenerate broadcasting between the expanded operand and `big`.
    let big_dynamic = dynamic_flags(big);
    let (expanded, big) = (
        (&expanded[..], &expanded_dynamic[..]),
        (big.dims(), &big_dynamic[..]),
    );
    if lhs_is_small {
        degenerate(op, lhs, rhs, expanded, big)
    } else {
        degenerate(op, lhs, rhs, big, expanded)
    }
}

/// The size two compatible sizes broadcast to, or `None` if incompatible.
fn combine<D: Dim>(a: &D, b: &D) -> Option<D> {
    if a == b || b.is(1) {
        Some(a.clone())
    } else if a.is(1) {
        Some(b.clone())
    } else {
        None
    }
}

/// Degenerate broadcasting of operand 0's sizes `a` with operand 1's sizes
/// `b` (either possibly InDim-expanded), with their dynamic flags.
fn degenerate<D: Dim>(
    op: &'static str,
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
    (a, a_dynamic): (&[D], &[bool]),
    (b, b_dynamic): (&[D], &[bool]),
) -> Result<ArrayShape<D>, InferError<D>> {
    let mut dims = Vec::with_capacity(a.len());
    let mut dynamic = Vec::with_capacity(a.len());
    for (dim, (x, y)) in a.iter().zip(b).enumerate() {
        let size = combine(x, y).ok_or_else(|| InferError::Incompatible {
            op,
            lhs: bare_array(lhs),
            rhs: bare_array(rhs),
            dim,
            lhs_size: x.clone(),
            rhs_size: y.clone(),
        })?;
        dims.push(size);
        dynamic.push((a_dynamic[dim] && !x.is(1)) || (b_dynamic[dim] && !y.is(1)));
    }
    Ok(with_dynamic(lhs.element_type(), dims, &dynamic))
}

/// `Broadcast(operand, broadcast_sizes)`: prepends dimensions
/// (`docs/semantics.md`, *Broadcast and broadcast-in-dim*). `f32[3]` with sizes `{2}` gives
/// `f32[2,3]`.
pub fn broadcast<D: Dim>(
    operand: &ArrayShape<D>,
    broadcast_sizes: &[D],
) -> Result<ArrayShape<D>, InferError<D>> {
    for (i, size) in broadcast_sizes.iter().enumerate() {
        check::non_negative("broadcast", Attr::entry("broadcast_sizes", i), size)?;
    }
    let mut dims = broadcast_sizes.to_vec();
    dims.extend(operand.dims().iter().cloned());
    let mut dynamic = vec![false; broadcast_sizes.len()];
    dynamic.extend(dynamic_flags(operand));
    Ok(with_dynamic(operand.element_type(), dims, &dynamic))
}

/// `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)`, the client
/// op (`docs/semantics.md`, *Broadcast and broadcast-in-dim*): operand dimension `i` maps to output
/// dimension `broadcast_dimensions[i]` (strictly increasing) and must have size 1 or
/// the output size there.
///
/// | operand  | `out_dim_size` | `broadcast_dimensions` | result                 |
/// |----------|----------------|------------------------|------------------------|
/// | `[3]`    | `[2,3]`        | `{1}`                  | `[2,3]`                |
/// | `[2,1]`  | `[2,3]`        | `{0,1}`                | `[2,3]` (size-1 stretch) |
/// | `[3]`    | `[3,2]`        | `{1}`                  | error: 3 vs 2          |
/// | `[2,3]`  | `[2,3,4]`      | `{1,0}`                | error: not increasing  |
pub fn broadcast_in_dim<D: Dim>(
    operand: &ArrayShape<D>,
    out_dim_size: &[D],
    broadcast_dimensions: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    in_dim(
        "broadcast_in_dim",
        "broadcast_dimensions",
        operand,
        out_dim_size,
        broadcast_dimensions,
        true,
    )
}

/// The HLO `broadcast` instruction (`XlaBuilder`'s internal InDimBroadcast):
/// operand dimension `i` becomes result dimension `dimensions[i]` and must
/// have exactly its size. Unlike the client `BroadcastInDim`, the list need
/// not be increasing (the instruction may transpose) and no size-1
/// stretching happens.
///
/// | operand  | result    | `dimensions` | verdict                   |
/// |----------|-----------|--------------|---------------------------|
/// | `[3]`    | `[2,3]`   | `{1}`        | ok                        |
/// | `[2,3]`  | `[3,2]`   | `{1,0}`      | ok (transposes)           |
/// | `[1]`    | `[4]`     | `{0}`        | error: 1 vs 4             |
/// | `[3]`    | `[3,3]`   | `{0,0}`      | error: length ≠ rank      |
pub fn in_dim_broadcast<D: Dim>(
    operand: &ArrayShape<D>,
    out_dims: &[D],
    dimensions: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    in_dim(
        "broadcast",
        "dimensions",
        operand,
        out_dims,
        dimensions,
        false,
    )
}

fn in_dim<D: Dim>(
    op: &'static str,
    list: &'static str,
    operand: &ArrayShape<D>,
    out_dims: &[D],
    dims: &[i64],
    client: bool,
) -> Result<ArrayShape<D>, InferError<D>> {
    let size_list = if client { "out_dim_size" } else { "shape" };
    for (i, size) in out_dims.iter().enumerate() {
        check::non_negative(op, Attr::entry(size_list, i), size)?;
    }
    check::list_rank(op, list, dims.len(), 0, operand)?;
    let order = if client {
        Order::Increasing
    } else {
        Order::Unique
    };
    check::dim_list(op, list, dims, out_dims.len(), order)?;
    let mut dynamic = vec![false; out_dims.len()];
    for (i, &d) in dims.iter().enumerate() {
        let (size, out) = (&operand.dims()[i], &out_dims[d as usize]);
        let stretch = client && size.is(1);
        if !stretch && size.known_ne(out) {
            return Err(InferError::ResultDimMismatch {
                op,
                index: 0,
                shape: bare_array(operand),
                dim: i,
                size: size.clone(),
                result: Box::new(ArrayShape::new(operand.element_type(), out_dims.to_vec()).into()),
                result_dim: d as usize,
                result_size: out.clone(),
            });
        }
        dynamic[d as usize] = operand.is_dynamic_dim(i) && !stretch;
    }
    Ok(with_dynamic(
        operand.element_type(),
        out_dims.to_vec(),
        &dynamic,
    ))
}
