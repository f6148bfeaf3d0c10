//! Layout arithmetic for layout assignment: the layout of one side of a
//! transpose, reshape, broadcast or reduce that keeps the other side's
//! physical element order, and whether a transpose or reshape is a bitcast
//! (a relabeling of the same bytes).
//!
//! All of it concerns dense layouts (no tiles, no padding): a dense buffer
//! holds the elements in the layout's physical order, most-major dimension
//! first (`major_to_minor`), so two dense arrays share their bytes exactly
//! when their physical orders visit the elements in the same sequence.
//! Dimensions of size 1 never change an offset and are ignored when
//! comparing orders; an array with no elements is a bitcast of anything.

use std::ops::Range;

use crate::layout::Layout;
use crate::ArrayShape;

/// The dimensions of `layout` most-major first, without those of size 1.
///
/// `[2,1,3]{0,1,2}` → `[2, 0]` (dimension 2 is most major).
fn physical_order(dims: &[i64], layout: &Layout) -> Vec<usize> {
    layout.major_to_minor().filter(|&d| dims[d] != 1).collect()
}

/// A layout from a most-major-first order of the dimensions of size other
/// than 1, with each size-1 dimension placed just before the first listed
/// dimension of a higher number (so `[0, 2]` for `[4,1,5]` gives the
/// default `{2,1,0}`).
fn layout_from_order(dims: &[i64], order: &[usize]) -> Layout {
    let mut major_to_minor: Vec<usize> = order.to_vec();
    for d in (0..dims.len()).filter(|&d| dims[d] == 1) {
        let at = major_to_minor
            .iter()
            .position(|&e| e > d)
            .unwrap_or(major_to_minor.len());
        major_to_minor.insert(at, d);
    }
    Layout::new(
        major_to_minor
            .iter()
            .rev()
            .map(|&d| d as i64)
            .collect::<Vec<_>>(),
    )
}

fn has_no_elements(dims: &[i64]) -> bool {
    dims.contains(&0)
}

/// `true` if both shapes are dense and their physical orders agree once
/// `map` relabels the result's dimensions as the operand's.
fn same_order(operand: &ArrayShape, result: &ArrayShape, map: impl Fn(usize) -> usize) -> bool {
    let (a, b) = (operand.layout_or_default(), result.layout_or_default());
    if !a.is_dense() || !b.is_dense() {
        return false;
    }
    let ours: Vec<usize> = physical_order(result.dims(), &b)
        .into_iter()
        .map(map)
        .collect();
    physical_order(operand.dims(), &a) == ours
}

// === transpose ===

/// The result layout that makes `transpose(operand), dimensions=permutation`
/// a bitcast: result dimension `i` is operand dimension `permutation[i]`,
/// so it takes that dimension's place in the physical order.
///
/// `f32[2,3]{1,0}` transposed by `{1,0}` gives `f32[3,2]{0,1}`.
pub(super) fn transpose_result(operand: &Layout, permutation: &[i64]) -> Layout {
    let mut inverse = vec![0i64; permutation.len()];
    for (i, &p) in permutation.iter().enumerate() {
        inverse[p as usize] = i as i64;
    }
    Layout::new(
        operand
            .minor_to_major
            .iter()
            .map(|&d| inverse[d as usize])
            .collect::<Vec<_>>(),
    )
}

/// The operand layout that makes the transpose a bitcast, given its result
/// layout: `f32[3,2]{0,1}` from a `{1,0}` transpose needs `f32[2,3]{1,0}`.
pub(super) fn transpose_operand(result: &Layout, permutation: &[i64]) -> Layout {
    Layout::new(
        result
            .minor_to_major
            .iter()
            .map(|&d| permutation[d as usize])
            .collect::<Vec<_>>(),
    )
}

/// Whether `transpose(operand), dimensions=permutation` with these layouts
/// leaves every byte in place.
pub(super) fn transpose_is_bitcast(
    operand: &ArrayShape,
    result: &ArrayShape,
    permutation: &[i64],
) -> bool {
    has_no_elements(operand.dims()) || same_order(operand, result, |d| permutation[d] as usize)
}

// === reshape ===

/// For each dimension of an array, the range of atoms it is made of (empty
/// for a dimension of size 1).
type Atoms = Vec<Range<usize>>;

/// The finest common refinement of two row-major dimension lists with equal
/// products, ignoring dimensions of size 1: for each list, the range of
/// "atoms" each dimension is made of (atoms numbered most-major first).
/// `None` when no refinement exists (`[2,3]` and `[3,2]`: the boundary at 3
/// elements does not divide the one at 2).
///
/// `[6,4]` and `[2,12]` refine to atoms `[2,3,4]`: dimension 0 of the
/// first list is atoms `0..2`, dimension 1 of the second is atoms `1..3`.
fn refine(a: &[i64], b: &[i64]) -> Option<(Atoms, Atoms)> {
    let mut ranges_a = vec![0..0; a.len()];
    let mut ranges_b = vec![0..0; b.len()];
    let real = |dims: &[i64]| -> Vec<usize> { (0..dims.len()).filter(|&d| dims[d] != 1).collect() };
    let (ia, ib) = (real(a), real(b));
    let (mut i, mut j, mut atom) = (0, 0, 0);
    let (mut left_a, mut left_b) = (
        ia.first().map_or(1, |&d| a[d]),
        ib.first().map_or(1, |&d| b[d]),
    );
    while i < ia.len() && j < ib.len() {
        let size = left_a.min(left_b);
        if left_a % size != 0 || left_b % size != 0 {
            return None;
        }
        for range in [&mut ranges_a[ia[i]], &mut ranges_b[ib[j]]] {
            if range.start == range.end {
                range.start = atom;
            }
            range.end = atom + 1;
        }
        atom += 1;
        left_a /= size;
        left_b /= size;
        if left_a == 1 {
            i += 1;
            left_a = ia.get(i).map_or(1, |&d| a[d]);
        }
        if left_b == 1 {
            j += 1;
            left_b = ib.get(j).map_or(1, |&d| b[d]);
        }
    }
    (i == ia.len() && j == ib.len()).then_some((ranges_a, ranges_b))
}

/// `true` if the dense `layout` lists the dimensions of size other than 1
/// in dimension order (row-major up to size-1 dimensions).
fn is_row_major(dims: &[i64], layout: &Layout) -> bool {
    layout.is_dense() && physical_order(dims, layout).windows(2).all(|w| w[0] < w[1])
}

/// The layout for `to` (the other side of a reshape) that keeps `from`'s
/// physical element order, if one exists. A reshape refills elements in
/// row-major order, so the two sides agree when every dimension of `to` is
/// a run of atoms that `from`'s layout stores contiguously, in order.
///
/// `f32[6,4]{0,1}` (column-major) reshaped to `[2,3,4]`: the atoms of
/// dimension 0 (`2·3`) are stored minor to dimension 1's, so `[2,3,4]`
/// gets `{1,0,2}`. Reshaping it to `[24]` has no such layout: the
/// elements are not stored in row-major order.
pub(super) fn reshape_layout(from: &ArrayShape, to_dims: &[i64]) -> Option<Layout> {
    let layout = from.layout_or_default();
    if !layout.is_dense() {
        return None;
    }
    if has_no_elements(to_dims) {
        return Some(Layout::default_for_rank(to_dims.len()));
    }
    let Some((from_atoms, to_atoms)) = refine(from.dims(), to_dims) else {
        return is_row_major(from.dims(), &layout).then(|| Layout::default_for_rank(to_dims.len()));
    };
    // Physical position of every atom.
    let mut position = vec![0usize; from_atoms.iter().map(|r| r.end).max().unwrap_or(0)];
    let mut next = 0;
    for d in physical_order(from.dims(), &layout) {
        for atom in from_atoms[d].clone() {
            position[atom] = next;
            next += 1;
        }
    }
    let mut order: Vec<(usize, usize)> = Vec::new();
    for (e, atoms) in to_atoms.iter().enumerate() {
        if to_dims[e] == 1 {
            continue;
        }
        let first = position[atoms.start];
        if atoms
            .clone()
            .enumerate()
            .any(|(k, atom)| position[atom] != first + k)
        {
            return None;
        }
        order.push((first, e));
    }
    order.sort_unstable();
    let order: Vec<usize> = order.into_iter().map(|(_, e)| e).collect();
    Some(layout_from_order(to_dims, &order))
}

/// Whether a reshape between these dense shapes leaves every byte in
/// place.
pub(super) fn reshape_is_bitcast(operand: &ArrayShape, result: &ArrayShape) -> bool {
    if has_no_elements(operand.dims()) {
        return true;
    }
    let ours = result.layout_or_default();
    if !ours.is_dense() {
        return false;
    }
    reshape_layout(operand, result.dims()).is_some_and(|wanted| {
        physical_order(result.dims(), &wanted) == physical_order(result.dims(), &ours)
    })
}

// === broadcast and reduce ===

/// The result layout of `broadcast(operand), dimensions=map` that keeps the
/// operand's dimensions in the operand's physical order: the mapped
/// dimensions trade places among themselves, the new ones stay where the
/// default layout has them. `f32[3]{0}` → `f32[2,3]` with `{1}` gives
/// `{1,0}`; `f32[3,4]{0,1}` → `f32[3,5,4]` with `{0,2}` gives `{0,1,2}`.
pub(super) fn broadcast_result(operand: &Layout, map: &[i64], result_rank: usize) -> Layout {
    let mut major_to_minor: Vec<usize> = (0..result_rank).collect();
    let mut mapped = operand.major_to_minor().map(|d| map[d] as usize);
    for slot in &mut major_to_minor {
        if map.contains(&(*slot as i64)) {
            *slot = mapped.next().expect("one slot per mapped dimension");
        }
    }
    Layout::new(
        major_to_minor
            .iter()
            .rev()
            .map(|&d| d as i64)
            .collect::<Vec<_>>(),
    )
}

/// The operand layout of `broadcast(operand), dimensions=map` whose
/// dimensions keep their order in the result's layout.
pub(super) fn broadcast_operand(result: &Layout, map: &[i64]) -> Layout {
    Layout::new(
        result
            .minor_to_major
            .iter()
            .filter_map(|&e| map.iter().position(|&m| m == e).map(|j| j as i64))
            .collect::<Vec<_>>(),
    )
}

/// The result layout of a reduce over `reduced` that keeps the remaining
/// dimensions in the operand's physical order. `f32[2,3,4]{0,2,1}`
/// reduced over `{1}` gives `f32[2,4]{0,1}`.
pub(super) fn reduce_result(operand: &Layout, reduced: &[i64]) -> Layout {
    Layout::new(
        operand
            .minor_to_major
            .iter()
            .filter(|d| !reduced.contains(d))
            .map(|&d| d - reduced.iter().filter(|&&r| r < d).count() as i64)
            .collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> ArrayShape {
        text.parse().unwrap()
    }

    fn layout(m2m: &[i64]) -> Layout {
        Layout::new(m2m.to_vec())
    }

    #[test]
    fn transposes_permute_the_physical_order() {
        assert_eq!(transpose_result(&layout(&[1, 0]), &[1, 0]), layout(&[0, 1]));
        assert_eq!(
            transpose_operand(&layout(&[0, 1]), &[1, 0]),
            layout(&[1, 0])
        );
        // [2,3,4]{2,1,0} by {2,0,1} is [4,2,3]; dimension 0 (the old 2) is minor.
        let r = transpose_result(&layout(&[2, 1, 0]), &[2, 0, 1]);
        assert_eq!(r, layout(&[0, 2, 1]));
        assert_eq!(transpose_operand(&r, &[2, 0, 1]), layout(&[2, 1, 0]));
        let p = [1, 0];
        assert!(transpose_is_bitcast(
            &shape("f32[2,3]{1,0}"),
            &shape("f32[3,2]{0,1}"),
            &p
        ));
        assert!(!transpose_is_bitcast(
            &shape("f32[2,3]{1,0}"),
            &shape("f32[3,2]{1,0}"),
            &p
        ));
        // Size-1 dimensions do not matter, nor does an empty array.
        assert!(transpose_is_bitcast(
            &shape("f32[1,3]{1,0}"),
            &shape("f32[3,1]{1,0}"),
            &p
        ));
        assert!(transpose_is_bitcast(
            &shape("f32[0,3]{1,0}"),
            &shape("f32[3,0]{1,0}"),
            &p
        ));
        assert!(!transpose_is_bitcast(
            &shape("f32[2,3]{1,0:T(2,2)}"),
            &shape("f32[3,2]{0,1}"),
            &p
        ));
    }

    #[test]
    fn refinement_splits_dimensions_into_common_atoms() {
        let (a, b) = refine(&[6, 4], &[2, 12]).unwrap();
        assert_eq!(a, [0..2, 2..3]);
        assert_eq!(b, [0..1, 1..3]);
        let (a, b) = refine(&[4, 1, 6], &[24]).unwrap();
        assert_eq!(a, [0..1, 0..0, 1..2]);
        assert_eq!(b, vec![Range { start: 0, end: 2 }]);
        assert!(refine(&[2, 3], &[3, 2]).is_none());
        assert!(refine(&[4, 6], &[6, 4]).is_none());
    }

    #[test]
    fn reshape_layouts_keep_the_physical_order() {
        let row_major = reshape_layout(&shape("f32[6,4]{1,0}"), &[2, 3, 4]).unwrap();
        assert_eq!(row_major, layout(&[2, 1, 0]));
        let column_major = reshape_layout(&shape("f32[6,4]{0,1}"), &[2, 3, 4]).unwrap();
        assert_eq!(column_major, layout(&[1, 0, 2]));
        assert_eq!(reshape_layout(&shape("f32[6,4]{0,1}"), &[24]), None);
        // Size-1 dimensions go where the default layout puts them.
        assert_eq!(
            reshape_layout(&shape("f32[4096]{0}"), &[4096, 1]).unwrap(),
            layout(&[1, 0])
        );
        assert_eq!(
            reshape_layout(&shape("f32[3,5]{0,1}"), &[3, 1, 5]).unwrap(),
            layout(&[0, 2, 1])
        );
        // No common refinement: only row-major to row-major works.
        assert_eq!(
            reshape_layout(&shape("f32[2,3]{1,0}"), &[3, 2]).unwrap(),
            layout(&[1, 0])
        );
        assert_eq!(reshape_layout(&shape("f32[2,3]{0,1}"), &[3, 2]), None);
        assert!(reshape_is_bitcast(
            &shape("f32[6,4]{0,1}"),
            &shape("f32[2,3,4]{1,0,2}")
        ));
        assert!(!reshape_is_bitcast(
            &shape("f32[6,4]{0,1}"),
            &shape("f32[2,3,4]{2,1,0}")
        ));
        assert!(reshape_is_bitcast(
            &shape("f32[2,3]{1,0}"),
            &shape("f32[3,2]{1,0}")
        ));
        assert!(reshape_is_bitcast(
            &shape("f32[4096,1]{0,1}"),
            &shape("f32[4096]{0}")
        ));
        assert!(reshape_is_bitcast(
            &shape("f32[0,3]{0,1}"),
            &shape("f32[3,0]{1,0}")
        ));
    }

    #[test]
    fn broadcasts_and_reductions_keep_relative_orders() {
        assert_eq!(broadcast_result(&layout(&[0]), &[1], 2), layout(&[1, 0]));
        assert_eq!(broadcast_result(&layout(&[0]), &[0], 2), layout(&[1, 0]));
        assert_eq!(
            broadcast_result(&layout(&[0, 1]), &[0, 2], 3),
            layout(&[0, 1, 2])
        );
        assert_eq!(
            broadcast_operand(&layout(&[0, 1, 2]), &[0, 2]),
            layout(&[0, 1])
        );
        assert_eq!(broadcast_operand(&layout(&[1, 0]), &[1]), layout(&[0]));
        assert_eq!(reduce_result(&layout(&[0, 2, 1]), &[1]), layout(&[0, 1]));
        assert_eq!(reduce_result(&layout(&[1, 0]), &[1]), layout(&[0]));
    }
}
