//! Element access by logical multi-index, and walking a buffer in logical
//! (row-major) order under any layout.

use super::{Literal, LiteralError};
use crate::layout::{IndexMap, Layout, COMBINE_DIM};
use crate::{ArrayShape, NativeType, PrimitiveType};

impl Literal {
    /// The element at a logical multi-index (dimension 0 first), under any
    /// layout.
    ///
    /// ```
    /// use xla_core::{Literal, layout::Layout};
    /// let m = Literal::matrix(&[[1, 2, 3], [4, 5, 6]]).relayout(&Layout::new([0, 1]))?;
    /// assert_eq!(m.get::<i32>(&[1, 2])?, 6);
    /// assert_eq!(m.data::<i32>()?, &[1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), xla_core::literal::LiteralError>(())
    /// ```
    pub fn get<T: NativeType>(&self, index: &[i64]) -> Result<T, LiteralError> {
        self.check_type::<T>()?;
        let offset = self.offset_of(index)?;
        Ok(read_element(self.bytes()?, offset))
    }

    /// Sets the element at a logical multi-index. A literal viewing a mapped
    /// file is first copied into owned memory.
    pub fn set<T: NativeType>(&mut self, index: &[i64], value: T) -> Result<(), LiteralError> {
        self.check_type::<T>()?;
        let offset = self.offset_of(index)?;
        write_element(self.bytes_mut()?, offset, value);
        Ok(())
    }

    /// The elements in logical order (row-major: the last index changes
    /// fastest), whatever the layout; padding is skipped.
    pub fn to_vec<T: NativeType>(&self) -> Result<Vec<T>, LiteralError> {
        self.check_type::<T>()?;
        let shape = self.array_shape()?;
        let map = shape.index_map()?;
        let bytes = self.bytes()?;
        let mut out = Vec::with_capacity(element_count(&map));
        let layout = shape.layout_or_default();
        for_each_offset(&map, &layout, |offset| {
            out.push(read_element(bytes, offset))
        });
        Ok(out)
    }

    /// Errors unless this is an array literal of `T`'s element type.
    pub(super) fn check_type<T: NativeType>(&self) -> Result<(), LiteralError> {
        let actual = self.array_shape()?.element_type();
        if actual != T::TYPE {
            return Err(LiteralError::TypeMismatch {
                shape: self.shape.clone(),
                expected: T::TYPE,
                actual,
            });
        }
        Ok(())
    }

    /// The buffer offset (in elements) of a logical multi-index, checked.
    fn offset_of(&self, index: &[i64]) -> Result<usize, LiteralError> {
        let shape = self.array_shape()?;
        if index.len() != shape.rank() {
            return Err(LiteralError::IndexRank {
                shape: self.shape.clone(),
                index: index.to_vec(),
            });
        }
        for (dim, (&i, &size)) in index.iter().zip(shape.dims()).enumerate() {
            if !(0..size).contains(&i) {
                return Err(LiteralError::IndexOutOfRange {
                    shape: self.shape.clone(),
                    index: index.to_vec(),
                    dim,
                    size,
                });
            }
        }
        linear_offset(shape, index)
    }
}

/// The offset of an in-bounds index: Horner's rule or a dot product with the
/// strides for a dense layout (no allocation), the full [`IndexMap`]
/// otherwise. The literal's layout was validated when it was built.
fn linear_offset(shape: &ArrayShape, index: &[i64]) -> Result<usize, LiteralError> {
    let offset = match shape.layout() {
        None => index
            .iter()
            .zip(shape.dims())
            .fold(0i64, |acc, (&i, &size)| acc * size + i),
        Some(layout) if layout.is_dense() => {
            let mut stride = 1i64;
            let mut offset = 0i64;
            for &d in &layout.minor_to_major {
                offset += index[d as usize] * stride;
                stride *= shape.dims()[d as usize];
            }
            offset
        }
        Some(_) => shape.index_map()?.linear(index),
    };
    Ok(offset as usize)
}

/// Number of logical elements of a mapping.
pub(super) fn element_count(map: &IndexMap) -> usize {
    map.dims().iter().product::<i64>() as usize
}

/// Calls `f` with the buffer offset (in elements) of every logical element,
/// in row-major order of the logical index (the last index changes fastest).
/// `layout` is the one `map` was built from.
///
/// `f32[2,3]{0,1}` (strides `[1, 2]`) visits offsets `0 2 4 1 3 5`.
pub(super) fn for_each_offset(map: &IndexMap, layout: &Layout, mut f: impl FnMut(usize)) {
    let dims = map.dims();
    if dims.contains(&0) {
        return;
    }
    match OffsetTables::new(map, layout) {
        Some(tables) => tables.for_each(|offset| f(offset as usize)),
        None => {
            let mut index = vec![0i64; dims.len()];
            loop {
                f(map.linear(&index) as usize);
                if !next_index(&mut index, dims) {
                    return;
                }
            }
        }
    }
}

/// Buffer offsets split per logical dimension, in elements: the offset of
/// `index` is `Σ_d tables[d][index[d]]`.
///
/// Such tables exist for every layout whose tiles merge no dimensions (no
/// `*`): padding and permutation only scale, and a tile splits a coordinate
/// `e` into `(⌊e/t⌋, e mod t)`, so every coordinate of the final index — and
/// hence its row-major offset — is a sum of terms that each depend on one
/// logical dimension. Example: `f32[3,5]{1,0:T(2,2)}` has the tables
/// `[0, 2, 12]` (dimension 0) and `[0, 1, 4, 5, 8]` (dimension 1); element
/// `(2,3)` is at `12 + 5 = 17`. Building them costs one `IndexMap::linear`
/// per entry (`Σ dims`), after which walking the array costs one addition
/// per element.
pub(super) struct OffsetTables(Vec<Vec<i64>>);

impl OffsetTables {
    /// The tables of `map` (built from `layout`); `None` if a tile has `*`.
    /// Every dimension of `map` must have size ≥ 1.
    pub(super) fn new(map: &IndexMap, layout: &Layout) -> Option<Self> {
        if layout.tiles.iter().any(|t| t.dims.contains(&COMBINE_DIM)) {
            return None;
        }
        let dims = map.dims();
        debug_assert!(!dims.contains(&0));
        let mut index = vec![0i64; dims.len()];
        let tables = (0..dims.len())
            .map(|d| {
                let table = (0..dims[d])
                    .map(|v| {
                        index[d] = v;
                        map.linear(&index)
                    })
                    .collect();
                index[d] = 0;
                table
            })
            .collect();
        Some(OffsetTables(tables))
    }

    /// Calls `f` with every element's offset, in row-major logical order.
    pub(super) fn for_each(&self, mut f: impl FnMut(i64)) {
        self.for_each_pair(self, |offset, _| f(offset));
    }

    /// Calls `f` with every element's offsets under `self` and `other`
    /// (tables of the same dimensions), in row-major logical order.
    pub(super) fn for_each_pair(&self, other: &OffsetTables, mut f: impl FnMut(i64, i64)) {
        let (Some((last, outer)), Some((other_last, other_outer))) =
            (self.0.split_last(), other.0.split_last())
        else {
            f(0, 0);
            return;
        };
        let outer_dims: Vec<i64> = outer.iter().map(|t| t.len() as i64).collect();
        let mut index = vec![0i64; outer.len()];
        loop {
            let base = |tables: &[Vec<i64>]| -> i64 {
                tables.iter().zip(&index).map(|(t, &i)| t[i as usize]).sum()
            };
            let (a, b) = (base(outer), base(other_outer));
            for (&x, &y) in last.iter().zip(other_last) {
                f(a + x, b + y);
            }
            if !next_index(&mut index, &outer_dims) {
                return;
            }
        }
    }
}

pub(super) use crate::arith::next_index;

/// Reinterprets a value of one [`NativeType`] as another of the same element
/// type (callers match on `A::TYPE` and pick `B` with `B::TYPE == A::TYPE`).
#[inline]
pub(super) fn same<A: NativeType, B: NativeType>(a: A) -> B {
    debug_assert_eq!(A::TYPE, B::TYPE);
    assert_eq!(std::mem::size_of::<A>(), std::mem::size_of::<B>());
    // SAFETY: NativeType's contract makes the element type decide the size
    // and the valid bit patterns, and both types have the same element type.
    unsafe { std::mem::transmute_copy(&a) }
}

/// Reads element `index` of a buffer of `T` in any alignment. A `pred`
/// byte other than 0 reads as `true` (never as an invalid `bool`).
#[inline]
pub(crate) fn read_element<T: NativeType>(bytes: &[u8], index: usize) -> T {
    if T::TYPE == PrimitiveType::Pred {
        return same::<bool, T>(bytes[index] != 0);
    }
    let size = std::mem::size_of::<T>();
    let chunk = &bytes[index * size..(index + 1) * size];
    // SAFETY: `chunk` holds `size_of::<T>()` bytes; every bit pattern is a
    // valid non-pred `NativeType` value.
    unsafe { chunk.as_ptr().cast::<T>().read_unaligned() }
}

/// Writes element `index` of a buffer of `T` in any alignment.
#[inline]
pub(crate) fn write_element<T: NativeType>(bytes: &mut [u8], index: usize, value: T) {
    let size = std::mem::size_of::<T>();
    let chunk = &mut bytes[index * size..(index + 1) * size];
    // SAFETY: `chunk` holds `size_of::<T>()` writable bytes.
    unsafe { chunk.as_mut_ptr().cast::<T>().write_unaligned(value) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Tile;

    #[test]
    fn offset_tables_of_a_tiled_layout() {
        // The example in `OffsetTables`' documentation (`docs/semantics.md`, *Tiles*).
        let layout = Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]);
        let map = IndexMap::new(&[3, 5], &layout).unwrap();
        let tables = OffsetTables::new(&map, &layout).unwrap();
        assert_eq!(tables.0, [vec![0, 2, 12], vec![0, 1, 4, 5, 8]]);
        let mut offsets = Vec::new();
        tables.for_each(|o| offsets.push(o));
        assert_eq!(offsets, [0, 1, 4, 5, 8, 2, 3, 6, 7, 10, 12, 13, 16, 17, 20]);
        let merged = Layout::new([1, 0]).with_tiles([Tile::new([COMBINE_DIM, 4])]);
        let map = IndexMap::new(&[3, 5], &merged).unwrap();
        assert!(OffsetTables::new(&map, &merged).is_none());
    }
}
