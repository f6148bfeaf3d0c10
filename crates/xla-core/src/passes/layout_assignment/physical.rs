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

/// What one dimension is made of, when the dimensions of both sides of a
/// reshape are cut into factors they share. Factors are numbered most-major
/// first.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Piece {
    /// A dimension of size 1: no factor.
    Unit,
    /// A run of factors both sides share (atoms).
    Atoms(Range<usize>),
    /// Part `index` of `count` of block `block`: a run of dimensions on
    /// each side whose sizes share no finer factors (`[2,3]` and `[3,2]`),
    /// so only the whole block, stored contiguously in row-major order,
    /// matches.
    Part {
        block: usize,
        index: usize,
        count: usize,
    },
}

/// Cuts two row-major dimension lists with equal (non-zero) products into
/// shared factors. First the lists are split where their prefix products
/// meet (`[3,2,2]` and `[2,3,2]` meet after 6 elements); within each such
/// segment the sizes either refine to common atoms (`[6,4]` and `[2,12]`
/// give `2·3·4`: dimension 0 of the first is atoms `0..2`), or the
/// segment is one block (`[3,2]` and `[2,3]`).
fn factor(a: &[i64], b: &[i64]) -> (Vec<Piece>, Vec<Piece>) {
    let real = |dims: &[i64]| -> Vec<usize> { (0..dims.len()).filter(|&d| dims[d] != 1).collect() };
    let (ia, ib) = (real(a), real(b));
    let mut pieces_a = vec![Piece::Unit; a.len()];
    let mut pieces_b = vec![Piece::Unit; b.len()];
    let (mut i, mut j, mut next) = (0, 0, 0);
    while i < ia.len() && j < ib.len() {
        let (i0, j0) = (i, j);
        let (mut pa, mut pb) = (a[ia[i]], b[ib[j]]);
        (i, j) = (i + 1, j + 1);
        while pa != pb {
            if pa < pb {
                pa *= a[ia[i]];
                i += 1;
            } else {
                pb *= b[ib[j]];
                j += 1;
            }
        }
        let (sa, sb): (Vec<i64>, Vec<i64>) = (
            ia[i0..i].iter().map(|&d| a[d]).collect(),
            ib[j0..j].iter().map(|&d| b[d]).collect(),
        );
        match refine(&sa, &sb) {
            Some((ra, rb, atoms)) => {
                for (&d, r) in ia[i0..i].iter().zip(ra) {
                    pieces_a[d] = Piece::Atoms(next + r.start..next + r.end);
                }
                for (&d, r) in ib[j0..j].iter().zip(rb) {
                    pieces_b[d] = Piece::Atoms(next + r.start..next + r.end);
                }
                next += atoms;
            }
            None => {
                for (dims, pieces) in [(&ia[i0..i], &mut pieces_a), (&ib[j0..j], &mut pieces_b)] {
                    for (index, &d) in dims.iter().enumerate() {
                        let count = dims.len();
                        pieces[d] = Piece::Part {
                            block: next,
                            index,
                            count,
                        };
                    }
                }
                next += 1;
            }
        }
    }
    (pieces_a, pieces_b)
}

/// The atoms of each entry of two lists of sizes, and the number of atoms.
type Refinement = (Vec<Range<usize>>, Vec<Range<usize>>, usize);

/// The common refinement of two lists of sizes (all above 1) with equal
/// products, when each boundary of one divides the next of the other: the
/// atom range of every entry of each list and the number of atoms.
fn refine(a: &[i64], b: &[i64]) -> Option<Refinement> {
    let mut ranges_a = vec![0..0; a.len()];
    let mut ranges_b = vec![0..0; b.len()];
    let (mut i, mut j, mut atom) = (0, 0, 0);
    let (mut left_a, mut left_b) = (a[0], b[0]);
    while i < a.len() && j < b.len() {
        let size = left_a.min(left_b);
        if left_a % size != 0 || left_b % size != 0 {
            return None;
        }
        for range in [&mut ranges_a[i], &mut ranges_b[j]] {
            if range.start == range.end {
                range.start = atom;
            }
            range.end = atom + 1;
        }
        atom += 1;
        (left_a, left_b) = (left_a / size, left_b / size);
        if left_a == 1 {
            i += 1;
            left_a = a.get(i).copied().unwrap_or(1);
        }
        if left_b == 1 {
            j += 1;
            left_b = b.get(j).copied().unwrap_or(1);
        }
    }
    Some((ranges_a, ranges_b, atom))
}

/// The factors in the order `layout` stores them (most major first), or
/// `None` if it does not store some block's parts contiguously in order.
fn stored_factors(dims: &[i64], layout: &Layout, pieces: &[Piece]) -> Option<Vec<usize>> {
    let mut order = Vec::new();
    // The block being read and the part expected next.
    let mut open: Option<(usize, usize, usize)> = None;
    for d in physical_order(dims, layout) {
        match (&pieces[d], open) {
            (Piece::Atoms(atoms), None) => order.extend(atoms.clone()),
            (
                &Piece::Part {
                    block,
                    index: 0,
                    count,
                },
                None,
            ) => {
                order.push(block);
                open = (count > 1).then_some((block, 1, count));
            }
            (
                &Piece::Part {
                    block,
                    index,
                    count,
                },
                Some((b, expected, _)),
            ) if block == b && index == expected => {
                open = (index + 1 < count).then_some((block, index + 1, count));
            }
            _ => return None,
        }
    }
    open.is_none().then_some(order)
}

/// The layout for `to` (the other side of a reshape) that keeps `from`'s
/// physical element order, if one exists. A reshape refills elements in
/// row-major order, so the two sides agree when they store the shared
/// factors ([`factor`]) in the same order.
///
/// `f32[6,4]{0,1}` (column-major) reshaped to `[2,3,4]`: the factors of
/// dimension 0 (`2·3`) are stored minor to dimension 1's, so `[2,3,4]`
/// gets `{1,0,2}`. Reshaping it to `[24]` has no such layout: the
/// elements are not stored in row-major order.
pub(super) fn reshape_layout(from: &ArrayShape, to_dims: &[i64]) -> Option<Layout> {
    let layout = from.layout_or_default();
    if !layout.is_dense() {
        return None;
    }
    if has_no_elements(to_dims) || has_no_elements(from.dims()) {
        return Some(Layout::default_for_rank(to_dims.len()));
    }
    let (from_pieces, to_pieces) = factor(from.dims(), to_dims);
    let stored = stored_factors(from.dims(), &layout, &from_pieces)?;
    let mut position = vec![0usize; stored.len()];
    for (at, &factor) in stored.iter().enumerate() {
        position[factor] = at;
    }
    let mut keys: Vec<((usize, usize), usize)> = Vec::new();
    for (e, piece) in to_pieces.iter().enumerate() {
        let key = match piece {
            Piece::Unit => continue,
            Piece::Atoms(atoms) => {
                let first = position[atoms.start];
                let contiguous = atoms
                    .clone()
                    .enumerate()
                    .all(|(k, a)| position[a] == first + k);
                if !contiguous {
                    return None;
                }
                (first, 0)
            }
            &Piece::Part { block, index, .. } => (position[block], index),
        };
        keys.push((key, e));
    }
    keys.sort_unstable();
    let order: Vec<usize> = keys.into_iter().map(|(_, e)| e).collect();
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
    fn reshapes_cut_dimensions_into_shared_factors() {
        use Piece::*;
        let (a, b) = factor(&[6, 4], &[2, 12]);
        assert_eq!(a, [Atoms(0..2), Atoms(2..3)]);
        assert_eq!(b, [Atoms(0..1), Atoms(1..3)]);
        let (a, b) = factor(&[4, 1, 6], &[24]);
        assert_eq!(a, [Atoms(0..1), Unit, Atoms(1..2)]);
        assert_eq!(b, [Atoms(0..2)]);
        let part = |block, index, count| Part {
            block,
            index,
            count,
        };
        let (a, b) = factor(&[3, 2, 2], &[2, 3, 2]);
        assert_eq!(a, [part(0, 0, 2), part(0, 1, 2), Atoms(1..2)]);
        assert_eq!(b, [part(0, 0, 2), part(0, 1, 2), Atoms(1..2)]);
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

    /// Every dimension list of rank 0 to 3 with sizes 1 to 4.
    fn all_dims() -> Vec<Vec<i64>> {
        let mut all = vec![vec![]];
        for rank in 1..=3u32 {
            for code in 0..4i64.pow(rank) {
                all.push((0..rank).map(|d| code / 4i64.pow(d) % 4 + 1).collect());
            }
        }
        all
    }

    /// Every dense layout of a rank.
    fn all_layouts(rank: usize) -> Vec<Layout> {
        fn permute(prefix: Vec<i64>, rest: Vec<i64>, out: &mut Vec<Layout>) {
            if rest.is_empty() {
                out.push(Layout::new(prefix));
                return;
            }
            for (i, &d) in rest.iter().enumerate() {
                let mut p = prefix.clone();
                p.push(d);
                let mut r = rest.clone();
                r.remove(i);
                permute(p, r, out);
            }
        }
        let mut out = Vec::new();
        permute(Vec::new(), (0..rank as i64).collect(), &mut out);
        out
    }

    /// The buffer offset of every element, in row-major logical order.
    fn offsets(dims: &[i64], layout: &Layout) -> Vec<i64> {
        let strides = layout.dense_strides(dims).unwrap();
        let count: i64 = dims.iter().product();
        (0..count)
            .map(|mut linear| {
                let mut offset = 0;
                for d in (0..dims.len()).rev() {
                    offset += linear % dims[d] * strides[d];
                    linear /= dims[d];
                }
                offset
            })
            .collect()
    }

    #[test]
    fn reshape_bitcasts_agree_with_element_offsets() {
        let all = all_dims();
        let mut pairs = 0;
        for from in &all {
            for to in &all {
                if from.iter().product::<i64>() != to.iter().product::<i64>() {
                    continue;
                }
                for a in all_layouts(from.len()) {
                    let from_shape = ArrayShape::new(crate::PrimitiveType::F32, from.clone())
                        .with_layout(a.clone());
                    let mut any = false;
                    for b in all_layouts(to.len()) {
                        let exact = offsets(from, &a) == offsets(to, &b);
                        let to_shape = ArrayShape::new(crate::PrimitiveType::F32, to.clone())
                            .with_layout(b.clone());
                        assert_eq!(
                            reshape_is_bitcast(&from_shape, &to_shape),
                            exact,
                            "{from_shape} -> {to_shape}"
                        );
                        any |= exact;
                        pairs += 1;
                    }
                    let found = reshape_layout(&from_shape, to);
                    assert_eq!(found.is_some(), any, "{from_shape} -> {to:?}");
                    if let Some(b) = found {
                        assert_eq!(offsets(from, &a), offsets(to, &b), "{from_shape} -> {b}");
                    }
                }
            }
        }
        assert!(pairs > 10_000, "{pairs}");
    }

    #[test]
    fn transpose_bitcasts_agree_with_element_offsets() {
        for dims in all_dims() {
            let rank = dims.len();
            for permutation in all_layouts(rank) {
                let permutation = permutation.minor_to_major;
                let result: Vec<i64> = permutation.iter().map(|&p| dims[p as usize]).collect();
                for a in all_layouts(rank) {
                    // Offsets of the operand's elements, listed by result index.
                    let operand = offsets(&dims, &a);
                    let strides = Layout::default_for_rank(rank).dense_strides(&dims).unwrap();
                    let transposed_strides: Vec<i64> =
                        permutation.iter().map(|&p| strides[p as usize]).collect();
                    let by_result: Vec<i64> = offsets(&result, &Layout::default_for_rank(rank))
                        .iter()
                        .enumerate()
                        .map(|(linear, _)| {
                            let mut rest = linear as i64;
                            let mut logical = 0;
                            for d in (0..rank).rev() {
                                logical += rest % result[d] * transposed_strides[d];
                                rest /= result[d];
                            }
                            operand[logical as usize]
                        })
                        .collect();
                    let operand_shape = ArrayShape::new(crate::PrimitiveType::F32, dims.clone())
                        .with_layout(a.clone());
                    for b in all_layouts(rank) {
                        let exact = by_result == offsets(&result, &b);
                        let result_shape =
                            ArrayShape::new(crate::PrimitiveType::F32, result.clone())
                                .with_layout(b.clone());
                        let ours =
                            transpose_is_bitcast(&operand_shape, &result_shape, &permutation);
                        assert_eq!(ours, exact, "{operand_shape} -> {result_shape}");
                    }
                    let b = transpose_result(&a, &permutation);
                    assert_eq!(by_result, offsets(&result, &b), "{operand_shape} -> {b}");
                    assert_eq!(transpose_operand(&b, &permutation), a);
                }
            }
        }
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
