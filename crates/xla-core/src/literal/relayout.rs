//! Moving an array to another layout of the same shape.

use super::access::{next_index, OffsetTables};
use super::convert::convert_elements;
use super::{AlignedBytes, Literal, LiteralError, Storage};
use crate::layout::{IndexMap, Layout, LayoutError, PaddingValue};
use crate::PrimitiveType;

impl Literal {
    /// The same array under another layout (padded and tiled layouts
    /// included). Padding slots of the new buffer hold the layout's
    /// [`PaddingValue`] (zero when unknown or when the layout has only tile
    /// padding).
    ///
    /// Example (`docs/semantics.md`, *Untiled layouts*, Example 1): `[[a,b,c],[d,e,f]]`
    /// relaid to `{0,1}` has memory order `a d b e c f`.
    ///
    /// ```
    /// use xla_core::{Literal, layout::Layout};
    /// let m = Literal::matrix(&[[1u8, 2, 3], [4, 5, 6]]);
    /// let col = m.relayout(&Layout::new([0, 1]))?;
    /// assert_eq!(col.data::<u8>()?, &[1, 4, 2, 5, 3, 6]);
    /// assert_eq!(col.relayout(&Layout::new([1, 0]))?, m);
    /// # Ok::<(), xla_core::literal::LiteralError>(())
    /// ```
    pub fn relayout(&self, layout: &Layout) -> Result<Literal, LiteralError> {
        let shape = self.array_shape()?;
        let src_map = shape.index_map()?;
        let dst_map = IndexMap::new(shape.dims(), layout)?;
        let ty = shape.element_type();
        let size = ty.byte_size();
        let dst_shape = shape.clone().with_layout(layout.clone());
        let bytes = usize::try_from(dst_map.buffer_len())
            .ok()
            .and_then(|n| n.checked_mul(size))
            .ok_or_else(|| LayoutError::Overflow {
                layout: Box::new(layout.clone()),
            })?;
        let mut dst = AlignedBytes::try_zeroed(bytes).map_err(|_| LiteralError::OutOfMemory {
            shape: dst_shape.to_string(),
            bytes,
        })?;
        if !layout.is_dense() {
            let value = layout.padding.as_ref().map(|p| p.value).unwrap_or_default();
            fill(dst.as_mut_slice(), &padding_element(ty, value));
        }
        let src = self.bytes()?;
        let dst_bytes = dst.as_mut_slice();
        let maps = Maps {
            src: &src_map,
            src_layout: &shape.layout_or_default(),
            dst: &dst_map,
            dst_layout: layout,
        };
        match size {
            1 => copy::<1>(src, dst_bytes, &maps),
            2 => copy::<2>(src, dst_bytes, &maps),
            4 => copy::<4>(src, dst_bytes, &maps),
            8 => copy::<8>(src, dst_bytes, &maps),
            16 => copy::<16>(src, dst_bytes, &maps),
            other => unreachable!("no element type is {other} bytes wide"),
        }
        Literal::from_storage(dst_shape, Storage::Owned(dst))
    }
}

/// One element of `ty` holding a padding value, as bytes: zero for
/// `Zero`/`Unknown`; one (`true`, `(1, 0)`) for `One`; for `Lowest` and
/// `Highest` the type's minimum and maximum (`false`/`true` for pred, ∓∞ for
/// floats, `(∓∞, 0)` for complex).
fn padding_element(ty: PrimitiveType, value: PaddingValue) -> Vec<u8> {
    let (source, from) = match value {
        PaddingValue::Unknown | PaddingValue::Zero => return vec![0; ty.byte_size()],
        PaddingValue::One => (vec![1u8], PrimitiveType::Pred),
        PaddingValue::Lowest if ty.is_pred() => return vec![0],
        PaddingValue::Highest if ty.is_pred() => return vec![1],
        // Integers saturate ∓∞ to their minimum and maximum.
        PaddingValue::Lowest => (f64::NEG_INFINITY.to_le_bytes().to_vec(), PrimitiveType::F64),
        PaddingValue::Highest => (f64::INFINITY.to_le_bytes().to_vec(), PrimitiveType::F64),
    };
    let mut out = vec![0; ty.byte_size()];
    convert_elements(&source, from, &mut out, ty).expect("a real value converts to any type");
    out
}

/// Fills `buffer` with copies of one element's bytes.
fn fill(buffer: &mut [u8], element: &[u8]) {
    if element.iter().all(|&b| b == 0) {
        return;
    }
    for chunk in buffer.chunks_exact_mut(element.len()) {
        chunk.copy_from_slice(element);
    }
}

/// The source and destination mappings of a relayout, with the layouts they
/// were built from.
struct Maps<'a> {
    src: &'a IndexMap,
    src_layout: &'a Layout,
    dst: &'a IndexMap,
    dst_layout: &'a Layout,
}

/// Copies every logical element from `src` to `dst` (buffers under
/// `maps.src` and `maps.dst`) as `N`-byte chunks. Dense → dense copies run
/// by strides; other layouts go through per-dimension [`OffsetTables`], or,
/// for tiles that merge dimensions (`*`), through `IndexMap` per element.
fn copy<const N: usize>(src: &[u8], dst: &mut [u8], maps: &Maps<'_>) {
    let (src, _) = src.as_chunks::<N>();
    let (dst, _) = dst.as_chunks_mut::<N>();
    let dims = maps.src.dims();
    if dims.contains(&0) {
        return;
    }
    if let (Some(src_strides), Some(dst_strides)) =
        (maps.src.dense_strides(), maps.dst.dense_strides())
    {
        // The dimension each side walks fastest (size-1 dimensions aside).
        let minor = |strides: &[i64]| {
            (0..dims.len())
                .filter(|&d| dims[d] > 1)
                .min_by_key(|&d| strides[d])
        };
        match (minor(dst_strides), minor(src_strides)) {
            (Some(a), Some(b)) if a != b => {
                copy_blocked(src, src_strides, dst, dst_strides, dims, (a, b))
            }
            _ => copy_runs(src, src_strides, dst, maps.dst_layout, dims),
        }
        return;
    }
    let tables = (
        OffsetTables::new(maps.src, maps.src_layout),
        OffsetTables::new(maps.dst, maps.dst_layout),
    );
    if let (Some(s), Some(d)) = tables {
        s.for_each_pair(&d, |s, d| dst[d as usize] = src[s as usize]);
        return;
    }
    let mut index = vec![0i64; dims.len()];
    loop {
        dst[maps.dst.linear(&index) as usize] = src[maps.src.linear(&index) as usize];
        if !next_index(&mut index, dims) {
            return;
        }
    }
}

/// Dense → dense copy when both sides walk the same dimension fastest:
/// walks the destination in memory order (so it is written sequentially)
/// and reads the source with its strides (in elements); each run along the
/// destination's most-minor dimension is one `copy_from_slice`.
///
/// Example: `f32[2,3,4]{2,1,0}` → `{2,0,1}`: runs of 4 elements, read from
/// source offsets `0 12 4 16 8 20`.
fn copy_runs<E: Copy>(
    src: &[E],
    src_strides: &[i64],
    dst: &mut [E],
    dst_layout: &Layout,
    dims: &[i64],
) {
    let order: Vec<usize> = dst_layout.major_to_minor().collect();
    let Some((&inner, outer)) = order.split_last() else {
        dst[0] = src[0];
        return;
    };
    let run = dims[inner] as usize;
    let inner_stride = src_strides[inner] as usize;
    let outer_dims: Vec<i64> = outer.iter().map(|&d| dims[d]).collect();
    let outer_strides: Vec<i64> = outer.iter().map(|&d| src_strides[d]).collect();
    let mut index = vec![0i64; outer.len()];
    for out in dst.chunks_exact_mut(run) {
        let base: i64 = index.iter().zip(&outer_strides).map(|(i, s)| i * s).sum();
        let base = base as usize;
        if inner_stride == 1 {
            out.copy_from_slice(&src[base..base + run]);
        } else {
            for (j, o) in out.iter_mut().enumerate() {
                *o = src[base + j * inner_stride];
            }
        }
        next_index(&mut index, &outer_dims);
    }
}

/// Dense → dense copy when the destination walks dimension `a` fastest and
/// the source dimension `b` (a transpose, in effect): for every index of the
/// other dimensions, copies the `a × b` plane in 32 × 32 blocks, so that
/// both the strided reads and the strided writes of a block stay in cache.
///
/// Example: `f32[4096,4096]{1,0}` → `{0,1}` (`a = 0`, `b = 1`): each block
/// reads 32 rows of 32 contiguous source elements and writes 32 columns of
/// 32 contiguous destination elements.
fn copy_blocked<E: Copy>(
    src: &[E],
    src_strides: &[i64],
    dst: &mut [E],
    dst_strides: &[i64],
    dims: &[i64],
    (a, b): (usize, usize),
) {
    const BLOCK: i64 = 32;
    let others: Vec<usize> = (0..dims.len()).filter(|&d| d != a && d != b).collect();
    let other_dims: Vec<i64> = others.iter().map(|&d| dims[d]).collect();
    let mut index = vec![0i64; others.len()];
    loop {
        let base = |strides: &[i64]| -> i64 {
            index
                .iter()
                .zip(&others)
                .map(|(i, &d)| i * strides[d])
                .sum()
        };
        let (src_base, dst_base) = (base(src_strides), base(dst_strides));
        for b0 in (0..dims[b]).step_by(BLOCK as usize) {
            for a0 in (0..dims[a]).step_by(BLOCK as usize) {
                for j in b0..(b0 + BLOCK).min(dims[b]) {
                    let s = src_base + j * src_strides[b];
                    let d = dst_base + j * dst_strides[b];
                    for i in a0..(a0 + BLOCK).min(dims[a]) {
                        dst[(d + i * dst_strides[a]) as usize] =
                            src[(s + i * src_strides[a]) as usize];
                    }
                }
            }
        }
        if !next_index(&mut index, &other_dims) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::literal::access::write_element;
    use half::f16;

    fn element_bytes<T: crate::NativeType>(value: T) -> Vec<u8> {
        let mut out = vec![0; std::mem::size_of::<T>()];
        write_element(&mut out, 0, value);
        out
    }

    #[test]
    fn padding_elements_per_type() {
        use PaddingValue::*;
        assert_eq!(
            padding_element(PrimitiveType::S8, Lowest),
            element_bytes(i8::MIN)
        );
        assert_eq!(
            padding_element(PrimitiveType::U16, Highest),
            element_bytes(u16::MAX)
        );
        assert_eq!(
            padding_element(PrimitiveType::U16, Lowest),
            element_bytes(0u16)
        );
        assert_eq!(
            padding_element(PrimitiveType::F16, Lowest),
            element_bytes(f16::NEG_INFINITY)
        );
        assert_eq!(
            padding_element(PrimitiveType::F32, One),
            element_bytes(1.0f32)
        );
        assert_eq!(padding_element(PrimitiveType::Pred, Lowest), vec![0]);
        assert_eq!(padding_element(PrimitiveType::Pred, One), vec![1]);
        assert_eq!(
            padding_element(PrimitiveType::C64, Highest),
            element_bytes(crate::C64::new(f32::INFINITY, 0.0))
        );
        assert_eq!(padding_element(PrimitiveType::F64, Unknown), vec![0; 8]);
    }
}
