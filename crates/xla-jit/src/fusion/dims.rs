//! Dimension maps: how each dimension of a region member is indexed in terms
//! of the region root's dimensions.
//!
//! The planner needs them for two questions: is a reduce only ever read at
//! the current row (so a row kernel can compute it once per row), and does
//! an expensive producer get recomputed along a broadcast dimension.
//!
//! Example (softmax over `f32[4096,1024]{1,0}`): the root `divide` has the
//! map `[Root(0), Root(1)]`; `broadcast(reshape(reduce_sum), dimensions={0})`
//! maps the reshape's dimensions `[4096,1]` to `[Root(0), Zero]` and the
//! reduce's single dimension to `[Root(0)]`: the reduce is read at the row
//! the root is computing, so it can be a row pass.

use xla_core::hlo::{HloComputation, HloInstruction, InstrId};
use xla_core::{ArrayShape, Opcode, Shape};

/// What one dimension of a member is, seen from the root.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum DimRef {
    /// Indexed exactly like root dimension `k`.
    Root(usize),
    /// A dimension of size 1 (index 0).
    Zero,
    /// A dimension a reduce of the region reduces over.
    Reduced,
    /// Anything else (offset, reversed, reshaped, or conflicting uses).
    Other,
}

/// The dimension sizes of an array-shaped instruction (empty for tuples).
pub(super) fn dims_of(instr: &HloInstruction) -> &[i64] {
    match &instr.shape {
        Shape::Array(a) => a.dims(),
        _ => &[],
    }
}

/// The map of operand `k` of `user` when `user` has the map `map`.
pub(super) fn operand_map(
    comp: &HloComputation,
    user: &HloInstruction,
    k: usize,
    map: &[DimRef],
) -> Vec<DimRef> {
    let operand = comp.instr(user.operands[k]);
    let in_dims = dims_of(operand);
    let out_dims = dims_of(user);
    let other = || vec![DimRef::Other; in_dims.len()];
    let attr_dims = || user.attrs.dimensions.clone().unwrap_or_default();
    use Opcode::*;
    match user.opcode {
        Broadcast => attr_dims().iter().map(|&d| map[d as usize]).collect(),
        Transpose => {
            let perm = attr_dims();
            let mut out = vec![DimRef::Other; in_dims.len()];
            for (i, &p) in perm.iter().enumerate() {
                out[p as usize] = map[i];
            }
            out
        }
        Reshape => degenerate_reshape(in_dims, out_dims, map).unwrap_or_else(other),
        Bitcast => bitcast_map(&operand.shape, &user.shape, map).unwrap_or_else(other),
        Reduce => {
            let reduced = attr_dims();
            if in_dims.is_empty() {
                return Vec::new();
            }
            let mut kept = map.iter();
            // A variadic reduce's result is a tuple: its map is empty and
            // every kept dimension is `Other`.
            (0..in_dims.len() as i64)
                .map(|d| {
                    if reduced.contains(&d) {
                        DimRef::Reduced
                    } else {
                        kept.next().copied().unwrap_or(DimRef::Other)
                    }
                })
                .collect()
        }
        Slice => {
            let slice = user.attrs.slice.clone().unwrap_or_default();
            keep_where(map, in_dims, |d| {
                slice
                    .get(d)
                    .is_some_and(|s| s.start == 0 && s.stride == 1 && s.limit == in_dims[d])
            })
        }
        Reverse => {
            let rev = attr_dims();
            keep_where(map, in_dims, |d| !rev.contains(&(d as i64)))
        }
        Pad if k == 0 => {
            let pad = user.attrs.padding.clone().unwrap_or_default();
            keep_where(map, in_dims, |d| {
                pad.get(d)
                    .is_some_and(|p| p.low == 0 && p.high == 0 && p.interior == 0)
            })
        }
        Concatenate => {
            let cat = attr_dims().first().copied().unwrap_or(0) as usize;
            keep_where(map, in_dims, |d| d != cat)
        }
        DynamicSlice | DynamicUpdateSlice if in_dims.len() == out_dims.len() => {
            keep_where(map, in_dims, |d| in_dims[d] == out_dims[d])
        }
        // Each output element reads operand elements its index does not
        // fix (a window, or a slice at indices read from memory).
        // A sort or top-k reads any element of its row.
        // An rng-bit-generator reads its whole state for every element.
        Gather | ReduceWindow | Convolution | RngBitGenerator | Scatter | SelectAndScatter
        | Sort | TopK => other(),
        // Elementwise operands have the result's shape; scalars (pad values,
        // start indices, select predicates, clamp bounds) have no dimensions.
        _ => {
            if in_dims.len() == out_dims.len() {
                map.to_vec()
            } else {
                other()
            }
        }
    }
}

/// `map` where `keep(d)` holds, `Other` elsewhere.
fn keep_where(map: &[DimRef], in_dims: &[i64], keep: impl Fn(usize) -> bool) -> Vec<DimRef> {
    (0..in_dims.len())
        .map(|d| if keep(d) { map[d] } else { DimRef::Other })
        .collect()
}

/// The operand map of a reshape that only inserts or deletes dimensions of
/// size 1 (`f32[4096]` ↔ `f32[4096,1]`); `None` for any other reshape.
fn degenerate_reshape(in_dims: &[i64], out_dims: &[i64], map: &[DimRef]) -> Option<Vec<DimRef>> {
    let big_in: Vec<usize> = (0..in_dims.len()).filter(|&d| in_dims[d] != 1).collect();
    let big_out: Vec<usize> = (0..out_dims.len()).filter(|&d| out_dims[d] != 1).collect();
    if big_in.len() != big_out.len()
        || big_in
            .iter()
            .zip(&big_out)
            .any(|(&i, &o)| in_dims[i] != out_dims[o])
    {
        return None;
    }
    let mut out = vec![DimRef::Zero; in_dims.len()];
    for (&i, &o) in big_in.iter().zip(&big_out) {
        out[i] = map[o];
    }
    Some(out)
}

/// The map of a `bitcast`'s operand: a bitcast reinterprets the buffer, so
/// it reads its operand at the same logical index only when it is a
/// degenerate reshape whose size > 1 dimensions keep their physical order.
/// Example: `f32[6,6]{0,1} bitcast(f32[6,6]{1,0} d)` (what a transpose into
/// the other layout becomes) reads `d` at `(j, i)` for element `(i, j)`:
/// `None`, although the dimension sizes match one for one.
fn bitcast_map(operand: &Shape, user: &Shape, map: &[DimRef]) -> Option<Vec<DimRef>> {
    let (input, output) = (operand.as_array()?, user.as_array()?);
    let (in_dims, out_dims) = (input.dims(), output.dims());
    let map = degenerate_reshape(in_dims, out_dims, map)?;
    let (in_layout, out_layout) = (input.layout_or_default(), output.layout_or_default());
    if !in_layout.is_dense() || !out_layout.is_dense() {
        return None;
    }
    let big = |dims: &[i64]| -> Vec<usize> { (0..dims.len()).filter(|&d| dims[d] != 1).collect() };
    let (big_in, big_out) = (big(in_dims), big(out_dims));
    // The operand's size > 1 dimensions in physical order, each renamed to
    // the user dimension it pairs with, must be the user's physical order.
    let in_order = in_layout
        .major_to_minor()
        .filter_map(|d| big_in.iter().position(|&b| b == d).map(|k| big_out[k]));
    let out_order = out_layout.major_to_minor().filter(|&d| out_dims[d] != 1);
    in_order.eq(out_order).then_some(map)
}

/// Merges the maps two users request: equal entries stay, others become
/// `Other`.
pub(super) fn merge(a: &[DimRef], b: &[DimRef]) -> Vec<DimRef> {
    debug_assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(&x, &y)| if x == y { x } else { DimRef::Other })
        .collect()
}

/// The root dimensions (of size > 1) a reduce result is read at, if every
/// dimension of size > 1 is read exactly at one root dimension; `None`
/// otherwise.
pub(super) fn row_dims(map: &[DimRef], dims: &[i64]) -> Option<Vec<usize>> {
    let mut rows = Vec::new();
    for (d, r) in map.iter().enumerate() {
        match r {
            DimRef::Root(k) => rows.push(*k),
            DimRef::Zero => {}
            _ if dims[d] == 1 => {}
            DimRef::Reduced | DimRef::Other => return None,
        }
    }
    rows.sort_unstable();
    let len = rows.len();
    rows.dedup();
    (rows.len() == len).then_some(rows)
}

/// `true` if an expensive value with map `map` would be recomputed for each
/// index of some root dimension: a root dimension of size > 1 is missing
/// from the map while a more minor one (in the root's layout) is present.
/// Missing minor dimensions are harmless: the value is then invariant in the
/// innermost loops and hoisted out of them.
pub(super) fn recomputed_along_broadcast(
    comp: &HloComputation,
    root: InstrId,
    map: &[DimRef],
) -> bool {
    if map.contains(&DimRef::Other) {
        return false;
    }
    let root_instr = comp.instr(root);
    let Shape::Array(shape) = &root_instr.shape else {
        return false;
    };
    let present = |k: usize| map.contains(&DimRef::Root(k));
    let mut seen_present = false;
    for &d in &shape.layout_or_default().minor_to_major {
        let d = d as usize;
        if shape.dims()[d] == 1 {
            continue;
        }
        if present(d) {
            seen_present = true;
        } else if seen_present {
            return true;
        }
    }
    false
}

/// The minor-most dimension of `shape` in memory of size > 1, if any.
pub(super) fn minor_most(shape: &ArrayShape) -> Option<usize> {
    shape
        .layout_or_default()
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .find(|&d| shape.dims()[d] != 1)
}

/// Whether the dimensions of `shape` for which `in_block` holds (size-1
/// dimensions aside) are its minor-most ones in memory order.
pub(super) fn are_minor_most(shape: &ArrayShape, in_block: impl Fn(usize) -> bool) -> bool {
    let dims = shape.dims();
    let sized = |d: &usize| dims[*d] != 1;
    let count = (0..dims.len())
        .filter(sized)
        .filter(|&d| in_block(d))
        .count();
    shape
        .layout_or_default()
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .filter(sized)
        .take(count)
        .all(in_block)
}
