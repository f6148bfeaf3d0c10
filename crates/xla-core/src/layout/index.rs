//! The mapping between multi-indices and buffer offsets under a layout.
//!
//! Offsets are counted in elements, not bytes. The mapping is, in order
//! (`docs/semantics.md`, *Untiled layouts*, *Tiles*, *Repeated tiles*, *Combined dimensions*):
//!
//! 1. permute the logical index and the (padded) sizes into physical order,
//!    most-major first;
//! 2. for each tile: merge every `*` dimension into the next more-minor one,
//!    then split each tiled dimension `e` into `(⌊e/t⌋, e mod t)` and move the
//!    within-tile parts to the minor end;
//! 3. take the row-major offset of the final index within the final bounds.
//!
//! Example: `f32[3,5]{1,0:T(2,2)}`, element `(2,3)` → tile index `(1,1)`,
//! within-tile `(0,1)` → final index `(1,1,0,1)` in bounds `(2,3,2,2)` →
//! offset `17`; the buffer holds `2·3·2·2 = 24` elements.

use super::{Layout, LayoutError, Tile, COMBINE_DIM};
use crate::arith::ceil_div;

/// One tiling step, precomputed from a [`Tile`].
#[derive(Clone, Debug)]
struct Level {
    /// Number of leading dimensions the tile does not touch.
    prefix: usize,
    /// Bounds entering this level.
    in_bounds: Vec<i64>,
    /// Each tiled dimension after merging: the run of input positions it
    /// merges (a run of `*` entries followed by one sized entry).
    groups: Vec<std::ops::Range<usize>>,
    /// Bounds after merging (prefix, then one per group).
    merged_bounds: Vec<i64>,
    /// The sized tile entries, one per group.
    tile: Vec<i64>,
}

/// A precomputed multi-index ↔ offset mapping for one array shape and layout.
#[derive(Clone, Debug)]
pub struct IndexMap {
    dims: Vec<i64>,
    /// Physical position (most-major first) → logical dimension.
    perm: Vec<usize>,
    levels: Vec<Level>,
    /// Row-major strides of the final bounds.
    strides: Vec<i64>,
    /// Final bounds, most-major first.
    bounds: Vec<i64>,
    len: i64,
    /// Per-logical-dimension strides when the layout is dense.
    dense: Option<Vec<i64>>,
}

/// Checks that `layout`'s `minor_to_major` is a permutation of the
/// dimensions of a rank-`rank` array.
pub(crate) fn check_order(layout: &Layout, rank: usize) -> Result<(), LayoutError> {
    if layout.minor_to_major.len() != rank {
        return Err(LayoutError::WrongRank {
            layout: Box::new(layout.clone()),
            len: layout.minor_to_major.len(),
            rank,
        });
    }
    let mut seen = vec![false; rank];
    for &d in &layout.minor_to_major {
        if d < 0 || d as usize >= rank || seen[d as usize] {
            return Err(LayoutError::NotPermutation {
                layout: Box::new(layout.clone()),
                rank,
            });
        }
        seen[d as usize] = true;
    }
    Ok(())
}

impl IndexMap {
    /// Validates `layout` against `dims` and precomputes the mapping.
    pub fn new(dims: &[i64], layout: &Layout) -> Result<Self, LayoutError> {
        let rank = dims.len();
        let err_layout = || Box::new(layout.clone());
        check_order(layout, rank)?;
        let mut logical_bounds = dims.to_vec();
        if let Some(p) = &layout.padding {
            if p.dims.len() != rank {
                return Err(LayoutError::PaddingRank {
                    layout: err_layout(),
                    len: p.dims.len(),
                    rank,
                });
            }
            for (dim, (&padded, &size)) in p.dims.iter().zip(dims).enumerate() {
                if padded < size {
                    return Err(LayoutError::PaddingTooSmall {
                        layout: err_layout(),
                        dim,
                        padded,
                        size,
                    });
                }
            }
            logical_bounds.clone_from(&p.dims);
        }
        let perm: Vec<usize> = layout.major_to_minor().collect();
        let mut bounds: Vec<i64> = perm.iter().map(|&d| logical_bounds[d]).collect();
        let mut levels = Vec::with_capacity(layout.tiles.len());
        for tile in &layout.tiles {
            let level = Level::new(tile, &bounds, layout)?;
            bounds = level.out_bounds();
            levels.push(level);
        }
        let mut strides = vec![1i64; bounds.len()];
        let mut len = 1i64;
        for i in (0..bounds.len()).rev() {
            strides[i] = len;
            len = len
                .checked_mul(bounds[i])
                .ok_or_else(|| LayoutError::Overflow {
                    layout: err_layout(),
                })?;
        }
        let dense = layout.dense_strides(dims);
        Ok(IndexMap {
            dims: dims.to_vec(),
            perm,
            levels,
            strides,
            bounds,
            len,
            dense,
        })
    }

    /// Number of elements the buffer holds, padding included.
    pub fn buffer_len(&self) -> i64 {
        self.len
    }

    /// The logical dimension sizes.
    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    /// Per-logical-dimension strides (in elements) when the layout is
    /// neither padded nor tiled.
    pub fn dense_strides(&self) -> Option<&[i64]> {
        self.dense.as_deref()
    }

    /// The offset of a logical multi-index. The index must be in bounds
    /// (checked in debug builds).
    pub fn linear(&self, index: &[i64]) -> i64 {
        debug_assert_eq!(index.len(), self.dims.len());
        debug_assert!(index.iter().zip(&self.dims).all(|(&i, &d)| 0 <= i && i < d));
        if let Some(strides) = &self.dense {
            return index.iter().zip(strides).map(|(i, s)| i * s).sum();
        }
        let mut e: Vec<i64> = self.perm.iter().map(|&d| index[d]).collect();
        for level in &self.levels {
            e = level.forward(&e);
        }
        e.iter().zip(&self.strides).map(|(i, s)| i * s).sum()
    }

    /// The logical multi-index stored at `offset`, or `None` if that slot is
    /// padding (or beyond the buffer).
    pub fn multi(&self, offset: i64) -> Option<Vec<i64>> {
        if offset < 0 || offset >= self.len {
            return None;
        }
        let mut rem = offset;
        let mut e = vec![0i64; self.bounds.len()];
        for i in (0..self.bounds.len()).rev() {
            e[i] = rem % self.bounds[i];
            rem /= self.bounds[i];
        }
        for level in self.levels.iter().rev() {
            e = level.backward(&e)?;
        }
        let mut index = vec![0i64; self.dims.len()];
        for (j, &d) in self.perm.iter().enumerate() {
            if e[j] >= self.dims[d] {
                return None;
            }
            index[d] = e[j];
        }
        Some(index)
    }
}

impl Level {
    fn new(tile: &Tile, bounds: &[i64], layout: &Layout) -> Result<Self, LayoutError> {
        let k = tile.dims.len();
        let n = bounds.len();
        if k == 0 {
            return Err(LayoutError::EmptyTile {
                layout: Box::new(layout.clone()),
            });
        }
        if k > n {
            return Err(LayoutError::TileRank {
                layout: Box::new(layout.clone()),
                tile: tile.clone(),
                len: k,
                rank: n,
            });
        }
        if let Some(&size) = tile.dims.iter().find(|&&s| s <= 0 && s != COMBINE_DIM) {
            return Err(LayoutError::BadTileSize {
                layout: Box::new(layout.clone()),
                tile: tile.clone(),
                size,
            });
        }
        if tile.dims[k - 1] == COMBINE_DIM {
            return Err(LayoutError::CombineMinor {
                layout: Box::new(layout.clone()),
                tile: tile.clone(),
            });
        }
        let prefix = n - k;
        let mut groups = Vec::new();
        let mut sizes = Vec::new();
        let mut merged_bounds = bounds[..prefix].to_vec();
        let mut start = prefix;
        for (i, &t) in tile.dims.iter().enumerate() {
            if t != COMBINE_DIM {
                let end = prefix + i + 1;
                let product = bounds[start..end]
                    .iter()
                    .try_fold(1i64, |acc, &b| acc.checked_mul(b))
                    .ok_or_else(|| LayoutError::Overflow {
                        layout: Box::new(layout.clone()),
                    })?;
                merged_bounds.push(product);
                groups.push(start..end);
                sizes.push(t);
                start = end;
            }
        }
        Ok(Level {
            prefix,
            in_bounds: bounds.to_vec(),
            groups,
            merged_bounds,
            tile: sizes,
        })
    }

    fn out_bounds(&self) -> Vec<i64> {
        let mut out = self.merged_bounds[..self.prefix].to_vec();
        for (b, t) in self.merged_bounds[self.prefix..].iter().zip(&self.tile) {
            out.push(ceil_div(*b, *t));
        }
        out.extend_from_slice(&self.tile);
        out
    }

    fn forward(&self, e: &[i64]) -> Vec<i64> {
        let mut out = e[..self.prefix].to_vec();
        let merged: Vec<i64> = self
            .groups
            .iter()
            .map(|g| {
                g.clone()
                    .fold(0i64, |acc, p| acc * self.in_bounds[p] + e[p])
            })
            .collect();
        out.extend(merged.iter().zip(&self.tile).map(|(m, t)| m / t));
        out.extend(merged.iter().zip(&self.tile).map(|(m, t)| m % t));
        out
    }

    /// Undoes [`Level::forward`]; `None` if the slot is tile padding.
    fn backward(&self, e: &[i64]) -> Option<Vec<i64>> {
        let k = self.tile.len();
        let mut out = e[..self.prefix].to_vec();
        out.resize(self.in_bounds.len(), 0);
        for (i, g) in self.groups.iter().enumerate() {
            let mut merged = e[self.prefix + i] * self.tile[i] + e[self.prefix + k + i];
            if merged >= self.merged_bounds[self.prefix + i] {
                return None;
            }
            for p in g.clone().rev() {
                out[p] = merged % self.in_bounds[p];
                merged /= self.in_bounds[p];
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::PaddingValue;

    fn map(dims: &[i64], layout: Layout) -> IndexMap {
        IndexMap::new(dims, &layout).unwrap()
    }

    fn offsets_2d(m: &IndexMap) -> Vec<Vec<i64>> {
        let d = m.dims();
        (0..d[0])
            .map(|r| (0..d[1]).map(|c| m.linear(&[r, c])).collect())
            .collect()
    }

    fn assert_bijective(m: &IndexMap) {
        let mut hits = 0;
        for off in 0..m.buffer_len() {
            if let Some(idx) = m.multi(off) {
                assert_eq!(m.linear(&idx), off, "index {idx:?}");
                hits += 1;
            }
        }
        assert_eq!(hits, m.dims().iter().product::<i64>());
    }

    // `docs/semantics.md`, *Untiled layouts*, Example 1.
    #[test]
    fn example1_two_layouts_of_2x3() {
        let row = map(&[2, 3], Layout::new([1, 0]));
        let col = map(&[2, 3], Layout::new([0, 1]));
        assert_eq!(row.dense_strides(), Some(&[3, 1][..]));
        assert_eq!(col.dense_strides(), Some(&[1, 2][..]));
        assert_eq!((row.linear(&[1, 2]), col.linear(&[1, 2])), (5, 5));
        assert_eq!((row.linear(&[0, 1]), col.linear(&[0, 1])), (1, 2));
        let order: Vec<_> = (0..6).map(|o| col.multi(o).unwrap()).collect();
        assert_eq!(
            order,
            [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]].map(|a| a.to_vec())
        );
    }

    // `docs/semantics.md`, *Untiled layouts*, Example 2.
    #[test]
    fn example2_padding() {
        for m2m in [[0, 1], [1, 0]] {
            let m = map(
                &[2, 3],
                Layout::new(m2m).with_padding([3, 5], PaddingValue::Zero),
            );
            assert_eq!(m.buffer_len(), 15);
            assert_eq!(m.linear(&[1, 2]), 7);
            assert_bijective(&m);
        }
        let col = map(
            &[2, 3],
            Layout::new([0, 1]).with_padding([3, 5], PaddingValue::Zero),
        );
        let slots: Vec<_> = (0..15).map(|o| col.multi(o)).collect();
        // a d 0 b e 0 c f 0 0 0 0 0 0 0
        assert_eq!(slots[0], Some(vec![0, 0]));
        assert_eq!(slots[1], Some(vec![1, 0]));
        assert_eq!(slots[2], None);
        assert_eq!(slots[3], Some(vec![0, 1]));
        assert_eq!(slots[7], Some(vec![1, 2]));
        assert!(slots[8..].iter().all(Option::is_none));
        // Example 4, padded: offset 11 is the padding element (2,3).
        assert_eq!(col.multi(11), None);
        let row = map(
            &[2, 3],
            Layout::new([1, 0]).with_padding([3, 5], PaddingValue::Zero),
        );
        assert_eq!(row.multi(5), Some(vec![1, 0]));
        assert_eq!(row.multi(3), None);
    }

    // `docs/semantics.md`, *Untiled layouts*, Examples 3 and 4.
    #[test]
    fn example3_four_layouts_of_2x3x4() {
        let cases: [([i64; 3], [i64; 3], i64, i64); 4] = [
            ([2, 1, 0], [12, 4, 1], 14, 9),
            ([0, 1, 2], [1, 2, 6], 13, 10),
            ([1, 2, 0], [12, 1, 3], 18, 5),
            ([0, 2, 1], [1, 8, 2], 5, 18),
        ];
        for (m2m, strides, a, b) in cases {
            let m = map(&[2, 3, 4], Layout::new(m2m));
            assert_eq!(m.dense_strides(), Some(&strides[..]));
            assert_eq!(m.linear(&[1, 0, 2]), a);
            assert_eq!(m.linear(&[0, 2, 1]), b);
            assert_eq!(m.linear(&[1, 2, 3]), 23);
            assert_bijective(&m);
        }
        let m = map(&[2, 3, 4], Layout::new([1, 2, 0]));
        assert_eq!(m.multi(18), Some(vec![1, 0, 2]));
        let order: Vec<String> = (0..24)
            .map(|o| {
                let i = m.multi(o).unwrap();
                format!("{}{}{}", i[0], i[1], i[2])
            })
            .collect();
        assert_eq!(
            order.join(" "),
            "000 010 020 001 011 021 002 012 022 003 013 023 \
             100 110 120 101 111 121 102 112 122 103 113 123"
        );
    }

    #[test]
    fn scalar() {
        let m = map(&[], Layout::new([]));
        assert_eq!(m.buffer_len(), 1);
        assert_eq!(m.linear(&[]), 0);
        assert_eq!(m.multi(0), Some(vec![]));
    }

    // `docs/semantics.md`, *Tiles*.
    #[test]
    fn tiling_one_tile() {
        let m = map(&[3, 5], Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]));
        assert_eq!(m.buffer_len(), 24);
        assert_eq!(m.linear(&[2, 3]), 17);
        assert_eq!(
            offsets_2d(&m),
            vec![
                vec![0, 1, 4, 5, 8],
                vec![2, 3, 6, 7, 10],
                vec![12, 13, 16, 17, 20]
            ]
        );
        let padding: Vec<i64> = (0..24).filter(|&o| m.multi(o).is_none()).collect();
        assert_eq!(padding, [9, 11, 14, 15, 18, 19, 21, 22, 23]);
        assert_bijective(&m);
    }

    // `docs/semantics.md`, *Tiles*.
    #[test]
    fn tiling_fewer_dims() {
        let m = map(
            &[2, 3, 5],
            Layout::new([2, 1, 0]).with_tiles([Tile::new([2, 2])]),
        );
        assert_eq!(m.linear(&[1, 2, 3]), 41);
        assert_eq!(m.buffer_len(), 48);
        assert_bijective(&m);
    }

    // `docs/semantics.md`, *Repeated tiles*.
    #[test]
    fn tiling_repeated() {
        let m = map(
            &[4, 8],
            Layout::new([1, 0]).with_tiles([Tile::new([2, 4]), Tile::new([2, 1])]),
        );
        assert_eq!(m.buffer_len(), 32);
        assert_eq!(
            offsets_2d(&m),
            vec![
                vec![0, 2, 4, 6, 8, 10, 12, 14],
                vec![1, 3, 5, 7, 9, 11, 13, 15],
                vec![16, 18, 20, 22, 24, 26, 28, 30],
                vec![17, 19, 21, 23, 25, 27, 29, 31]
            ]
        );
        let single = map(&[4, 8], Layout::new([1, 0]).with_tiles([Tile::new([2, 4])]));
        assert_eq!(
            offsets_2d(&single),
            vec![
                vec![0, 1, 2, 3, 8, 9, 10, 11],
                vec![4, 5, 6, 7, 12, 13, 14, 15],
                vec![16, 17, 18, 19, 24, 25, 26, 27],
                vec![20, 21, 22, 23, 28, 29, 30, 31]
            ]
        );
        let bf = map(
            &[16, 256],
            Layout::new([1, 0]).with_tiles([Tile::new([8, 128]), Tile::new([2, 1])]),
        );
        assert_eq!(bf.linear(&[9, 130]), 3077);
        assert_eq!(bf.linear(&[8, 130]), 3076);
        assert_eq!(bf.linear(&[8, 128]), 3072);
        assert_eq!(bf.linear(&[9, 128]), 3073);
        assert_bijective(&bf);
    }

    // `docs/semantics.md`, *Repeated tiles*.
    #[test]
    fn tiling_second_tile_reaches_cross_tile_dims() {
        let m = map(
            &[8, 8],
            Layout::new([1, 0]).with_tiles([Tile::new([2, 4]), Tile::new([2, 1, 1, 1])]),
        );
        assert_eq!(m.linear(&[6, 5]), 51);
        assert_bijective(&m);
    }

    // `docs/semantics.md`, *Combined dimensions*.
    #[test]
    fn tiling_combined_dims() {
        let m = map(
            &[2, 7, 8, 11, 10],
            Layout::new([4, 3, 2, 1, 0]).with_tiles([Tile::new([
                COMBINE_DIM,
                COMBINE_DIM,
                2,
                COMBINE_DIM,
                3,
            ])]),
        );
        assert_eq!(m.linear(&[1, 3, 5, 7, 9]), 9484);
        assert_eq!(m.buffer_len(), 12432);
        assert_bijective(&m);
    }

    // `docs/semantics.md`, *Tiles*.
    #[test]
    fn tiling_with_minor_to_major() {
        let m = map(&[5, 3], Layout::new([0, 1]).with_tiles([Tile::new([2, 2])]));
        assert_eq!(m.linear(&[3, 2]), 17);
        assert_bijective(&m);
    }

    #[test]
    fn tile_padding_inside_a_sub_tile_is_not_aliased() {
        // A second-level tile that overruns its within-tile bounds must yield
        // padding slots, not alias the next tile's elements.
        let m = map(
            &[8, 4],
            Layout::new([1, 0]).with_tiles([Tile::new([8, 4]), Tile::new([3, 1])]),
        );
        assert_eq!(m.buffer_len(), 36);
        assert_bijective(&m);
    }

    #[test]
    fn invalid_layouts() {
        let err = |dims: &[i64], l: Layout| IndexMap::new(dims, &l).unwrap_err().to_string();
        assert_eq!(
            err(&[2, 3], Layout::new([0])),
            "layout {0} has 1 entries in minor_to_major but the array has rank 2"
        );
        assert_eq!(
            err(&[2, 3], Layout::new([1, 1])),
            "layout {1,1}: minor_to_major is not a permutation of 0..2"
        );
        assert_eq!(
            err(&[2, 3], Layout::new([1, 0]).with_tiles([Tile::new([0, 2])])),
            "layout {1,0:T(0,2)}: tile (0,2) has size 0; tile sizes must be positive or `*`"
        );
        assert_eq!(
            err(
                &[2, 3],
                Layout::new([1, 0]).with_tiles([Tile::new([-2, 2])])
            ),
            "layout {1,0:T(-2,2)}: tile (-2,2) has size -2; tile sizes must be positive or `*`"
        );
        assert_eq!(
            err(&[2], Layout::new([0]).with_tiles([Tile::new([2, 2])])),
            "layout {0:T(2,2)}: tile (2,2) has 2 dimensions but applies to 1"
        );
        assert_eq!(
            err(&[2, 3], Layout::new([1, 0]).with_tiles([Tile::new([2, COMBINE_DIM])])),
            "layout {1,0:T(2,*)}: tile (2,*) ends in `*`, but the most-minor dimension cannot be combined"
        );
        assert_eq!(
            err(
                &[2, 3],
                Layout::new([1, 0]).with_padding([2, 2], PaddingValue::Unknown)
            ),
            "layout {1,0:P(2,2)}: padded size 2 of dimension 1 is below its size 3"
        );
    }
}
