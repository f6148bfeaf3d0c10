//! Moving an array to another layout of the same shape.

use super::access::next_index;
use super::convert::convert_elements;
use super::{AlignedBytes, Literal, LiteralError, Storage};
use crate::layout::{IndexMap, Layout, PaddingValue};
use crate::PrimitiveType;

impl Literal {
    /// The same array under another layout (padded and tiled layouts
    /// included). Padding slots of the new buffer hold the layout's
    /// [`PaddingValue`] (zero when unknown or when the layout has only tile
    /// padding).
    ///
    /// Example (`spec/SHAPES_LAYOUT.md` §8, Example 1): `[[a,b,c],[d,e,f]]`
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
        let mut dst = AlignedBytes::zeroed(dst_map.buffer_len() as usize * size);
        if !layout.is_dense() {
            let value = layout.padding.as_ref().map(|p| p.value).unwrap_or_default();
            fill(dst.as_mut_slice(), &padding_element(ty, value));
        }
        let src = self.bytes()?;
        let dst_bytes = dst.as_mut_slice();
        match size {
            1 => copy::<1>(src, &src_map, dst_bytes, &dst_map, layout),
            2 => copy::<2>(src, &src_map, dst_bytes, &dst_map, layout),
            4 => copy::<4>(src, &src_map, dst_bytes, &dst_map, layout),
            8 => copy::<8>(src, &src_map, dst_bytes, &dst_map, layout),
            16 => copy::<16>(src, &src_map, dst_bytes, &dst_map, layout),
            other => unreachable!("no element type is {other} bytes wide"),
        }
        let dst_shape = shape.clone().with_layout(layout.clone());
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

/// Copies every logical element from `src` (laid out by `src_map`) to `dst`
/// (laid out by `dst_map` = `dst_layout`), as `N`-byte chunks.
fn copy<const N: usize>(
    src: &[u8],
    src_map: &IndexMap,
    dst: &mut [u8],
    dst_map: &IndexMap,
    dst_layout: &Layout,
) {
    let (src, _) = src.as_chunks::<N>();
    let (dst, _) = dst.as_chunks_mut::<N>();
    let dims = src_map.dims();
    if dims.contains(&0) {
        return;
    }
    match (src_map.dense_strides(), dst_map.dense_strides()) {
        (Some(src_strides), Some(_)) => copy_dense(src, src_strides, dst, dst_layout, dims),
        _ => {
            let mut index = vec![0i64; dims.len()];
            loop {
                dst[dst_map.linear(&index) as usize] = src[src_map.linear(&index) as usize];
                if !next_index(&mut index, dims) {
                    return;
                }
            }
        }
    }
}

/// Dense → dense copy: walks the destination in memory order (so it is
/// written sequentially) and reads the source with its strides (in
/// elements). A run along the destination's most-minor dimension is one
/// `copy_from_slice` when that dimension is also the source's most-minor.
///
/// Example: `f32[2,3]{1,0}` → `{0,1}`: the destination's minor dimension is
/// 0 (source stride 3), so the runs read source offsets `0 3`, `1 4`, `2 5`.
fn copy_dense<E: Copy>(
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
