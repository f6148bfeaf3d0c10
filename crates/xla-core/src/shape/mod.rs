//! Shapes: arrays (element type, dimension sizes, layout), tuples, tokens.
//!
//! `Shape<D>` is generic over the dimension type: `Shape` (= `Shape<i64>`)
//! for concrete shapes, and a symbolic [`Dim`] for the `xla!` macro. The one
//! `Display` prints XLA's text form: `f32[2,3]{1,0}`, `(f32[2]{0}, s32[])`,
//! `token[]`.

mod dim;
pub mod sym;

use std::fmt;

pub use dim::Dim;

use crate::layout::{check_order, IndexMap, Layout, LayoutError};
use crate::PrimitiveType;

/// An array shape: element type, dimension sizes and (optionally) a layout.
///
/// A shape without a layout has the default (row-major) layout; the
/// distinction is kept only so that text round-trips exactly (`pred[7]`
/// prints as `pred[7]`, `pred[7]{0}` as `pred[7]{0}`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ArrayShape<D = i64> {
    element_type: PrimitiveType,
    dims: Vec<D>,
    /// Per dimension: the size is a dynamic upper bound (`f32[<=10]`).
    dynamic: Vec<bool>,
    layout: Option<Box<Layout>>,
}

impl<D: Dim> ArrayShape<D> {
    /// An array shape with static dimensions and no explicit layout.
    pub fn new(element_type: PrimitiveType, dims: impl Into<Vec<D>>) -> Self {
        let dims = dims.into();
        ArrayShape {
            element_type,
            dynamic: vec![false; dims.len()],
            dims,
            layout: None,
        }
    }

    /// The element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// The dimension sizes, dimension 0 first.
    pub fn dims(&self) -> &[D] {
        &self.dims
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The size of dimension `dim`; negative numbers count from the end
    /// (`-1` is the last dimension). `None` if out of `[-rank, rank)`.
    pub fn dim(&self, dim: i64) -> Option<&D> {
        normalize_dim(dim, self.rank()).map(|d| &self.dims[d])
    }

    /// `true` if dimension `dim` is dynamic (its size is an upper bound).
    pub fn is_dynamic_dim(&self, dim: usize) -> bool {
        self.dynamic[dim]
    }

    /// `true` if any dimension is dynamic.
    pub fn is_dynamic(&self) -> bool {
        self.dynamic.iter().any(|&d| d)
    }

    /// Marks dimension `dim` as dynamic (or static).
    pub fn set_dynamic_dim(&mut self, dim: usize, dynamic: bool) {
        self.dynamic[dim] = dynamic;
    }

    /// The layout given explicitly, if any.
    pub fn layout(&self) -> Option<&Layout> {
        self.layout.as_deref()
    }

    /// The effective layout: the explicit one or the default.
    pub fn layout_or_default(&self) -> Layout {
        self.layout
            .as_deref()
            .cloned()
            .unwrap_or_else(|| Layout::default_for_rank(self.rank()))
    }

    /// Replaces the layout (not validated here; see [`ArrayShape::validate`]).
    pub fn with_layout(mut self, layout: Layout) -> Self {
        self.set_layout(Some(layout));
        self
    }

    /// Gives the shape an explicit default layout (as XLA's builder does).
    pub fn with_default_layout(self) -> Self {
        let rank = self.rank();
        self.with_layout(Layout::default_for_rank(rank))
    }

    /// Removes the explicit layout.
    pub fn without_layout(mut self) -> Self {
        self.layout = None;
        self
    }

    /// Sets the layout in place.
    ///
    /// A scalar's only plain layout `{}` is kept as "no layout", as XLA's
    /// text omits it (`f32[]`): equality then agrees with the text.
    pub fn set_layout(&mut self, layout: Option<Layout>) {
        self.layout = layout
            .filter(|l| !(self.dims.is_empty() && *l == Layout::default_for_rank(0)))
            .map(Box::new);
    }

    /// Same element type and dimensions; layouts ignored.
    pub fn eq_ignoring_layout(&self, other: &Self) -> bool {
        self.element_type == other.element_type
            && self.dims == other.dims
            && self.dynamic == other.dynamic
    }

    /// Same element type, dimensions and effective layout.
    pub fn eq_with_layout(&self, other: &Self) -> bool {
        self.eq_ignoring_layout(other) && self.layout_or_default() == other.layout_or_default()
    }

    /// The same shape with another element type.
    pub fn with_element_type(mut self, element_type: PrimitiveType) -> Self {
        self.element_type = element_type;
        self
    }
}

impl ArrayShape<i64> {
    /// Number of logical elements (1 for a scalar, 0 if any size is 0).
    pub fn element_count(&self) -> i64 {
        self.dims.iter().product()
    }

    /// The offset mapping of this shape under its effective layout.
    pub fn index_map(&self) -> Result<IndexMap, LayoutError> {
        IndexMap::new(&self.dims, &self.layout_or_default())
    }

    /// Checks sizes (non-negative) and the layout.
    pub fn validate(&self) -> Result<(), LayoutError> {
        self.buffer_elements().map(|_| ())
    }

    /// Number of elements the buffer holds under the layout, padding and tile
    /// padding included.
    ///
    /// What [`IndexMap::buffer_len`] says, with the same checks, without
    /// building the map for a dense layout (the passes ask for the sizes
    /// of every instruction).
    pub fn buffer_elements(&self) -> Result<i64, LayoutError> {
        match self.layout.as_deref() {
            None => self.dense_elements((0..self.dims.len()).rev()),
            Some(layout) if layout.is_dense() => {
                check_order(layout, self.dims.len())?;
                self.dense_elements(layout.minor_to_major.iter().map(|&d| d as usize))
            }
            Some(_) => self.index_map().map(|m| m.buffer_len()),
        }
    }

    /// The product of the sizes, multiplied in `minor_to_major` order as
    /// the index map multiplies them (so that a zero size past an
    /// overflowing product overflows there too).
    fn dense_elements(
        &self,
        mut minor_to_major: impl Iterator<Item = usize>,
    ) -> Result<i64, LayoutError> {
        minor_to_major
            .try_fold(1i64, |n, d| n.checked_mul(self.dims[d]))
            .ok_or_else(|| LayoutError::Overflow {
                layout: Box::new(self.layout_or_default()),
            })
    }

    /// Byte size of the buffer under the layout, padding included.
    pub fn byte_size(&self) -> Result<i64, LayoutError> {
        self.buffer_elements()?
            .checked_mul(self.element_type.byte_size() as i64)
            .ok_or_else(|| LayoutError::Overflow {
                layout: Box::new(self.layout_or_default()),
            })
    }
}

/// Normalises a possibly negative dimension number: `-1` is the last
/// dimension. `None` outside `[-rank, rank)`.
pub fn normalize_dim(dim: i64, rank: usize) -> Option<usize> {
    let rank = rank as i64;
    let d = if dim < 0 { dim + rank } else { dim };
    (0..rank).contains(&d).then_some(d as usize)
}

/// A shape: an array, a tuple of shapes, a token or an opaque value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Shape<D = i64> {
    /// An array of elements.
    Array(ArrayShape<D>),
    /// An ordered list of shapes (may be empty, may nest).
    Tuple(Vec<Shape<D>>),
    /// A token ordering side effects; carries no data.
    Token,
    /// Data passed to custom operations; carries no dimensions.
    Opaque,
}

impl<D: Dim> Shape<D> {
    /// An array shape with no explicit layout.
    pub fn array(element_type: PrimitiveType, dims: impl Into<Vec<D>>) -> Self {
        Shape::Array(ArrayShape::new(element_type, dims))
    }

    /// A rank-0 array.
    pub fn scalar(element_type: PrimitiveType) -> Self {
        Shape::Array(ArrayShape::new(element_type, Vec::new()))
    }

    /// A tuple shape.
    pub fn tuple(elements: impl Into<Vec<Shape<D>>>) -> Self {
        Shape::Tuple(elements.into())
    }

    /// The array shape, if this is an array.
    pub fn as_array(&self) -> Option<&ArrayShape<D>> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array shape, mutably, if this is an array.
    pub fn as_array_mut(&mut self) -> Option<&mut ArrayShape<D>> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The tuple's elements, if this is a tuple.
    pub fn tuple_shapes(&self) -> Option<&[Shape<D>]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// `true` for an array shape.
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }

    /// `true` for a tuple shape.
    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }

    /// `true` for the token shape.
    pub fn is_token(&self) -> bool {
        matches!(self, Shape::Token)
    }

    /// The element type of an array shape.
    pub fn element_type(&self) -> Option<PrimitiveType> {
        self.as_array().map(|a| a.element_type())
    }

    /// The array leaves in order, depth-first (tokens and opaque values skipped).
    pub fn array_leaves(&self) -> Vec<&ArrayShape<D>> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a ArrayShape<D>>) {
        match self {
            Shape::Array(a) => out.push(a),
            Shape::Tuple(t) => t.iter().for_each(|s| s.collect_leaves(out)),
            Shape::Token | Shape::Opaque => {}
        }
    }

    /// Equal structure, element types and dimensions; layouts ignored.
    pub fn eq_ignoring_layout(&self, other: &Self) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.eq_ignoring_layout(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.eq_ignoring_layout(y))
            }
            (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
            _ => false,
        }
    }

    /// Equal structure, element types, dimensions and effective layouts.
    pub fn eq_with_layout(&self, other: &Self) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.eq_with_layout(b),
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.eq_with_layout(y))
            }
            (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
            _ => false,
        }
    }

    /// The same shape with every array leaf given an explicit default layout
    /// where it has none.
    pub fn with_default_layouts(self) -> Self {
        self.map_arrays(&mut |a| {
            if a.layout.is_none() {
                a.with_default_layout()
            } else {
                a
            }
        })
    }

    /// The same shape with the default (row-major) layout, spelled out, on
    /// every array leaf.
    pub fn with_row_major_layouts(self) -> Self {
        self.without_layouts().with_default_layouts()
    }

    /// The same shape with every explicit layout removed.
    pub fn without_layouts(self) -> Self {
        self.map_arrays(&mut |a| a.without_layout())
    }

    fn map_arrays(self, f: &mut impl FnMut(ArrayShape<D>) -> ArrayShape<D>) -> Self {
        match self {
            Shape::Array(a) => Shape::Array(f(a)),
            Shape::Tuple(t) => Shape::Tuple(t.into_iter().map(|s| s.map_arrays(f)).collect()),
            other => other,
        }
    }
}

impl Shape<i64> {
    /// Checks every array leaf's sizes and layout.
    pub fn validate(&self) -> Result<(), LayoutError> {
        self.array_leaves()
            .into_iter()
            .try_for_each(|a| a.validate())
    }

    /// Bytes of all array leaves under their layouts, saturating: a leaf
    /// whose size overflows counts `u64::MAX`, so the total reads as more
    /// than any memory, never as a small size. Tokens count 0.
    pub fn saturating_byte_size(&self) -> u64 {
        self.array_leaves()
            .iter()
            .map(|a| a.byte_size().map_or(u64::MAX, |b| b as u64))
            .fold(0, u64::saturating_add)
    }
}

impl<D: Dim> From<ArrayShape<D>> for Shape<D> {
    fn from(a: ArrayShape<D>) -> Self {
        Shape::Array(a)
    }
}

impl<D: Dim> fmt::Display for ArrayShape<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.element_type)?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(D::SEPARATOR)?;
            }
            if self.dynamic[i] {
                f.write_str("<=")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")?;
        if let Some(layout) = &self.layout {
            write!(f, "{layout}")?;
        }
        Ok(())
    }
}

impl<D: Dim> fmt::Display for Shape<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Array(a) => write!(f, "{a}"),
            Shape::Tuple(t) => {
                // Like XLA, every fifth element is numbered: `(…, /*index=5*/f32[])`.
                f.write_str("(")?;
                for (i, s) in t.iter().enumerate() {
                    if i > 0 && i % 5 == 0 {
                        write!(f, ", /*index={i}*/")?;
                    } else if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{s}")?;
                }
                f.write_str(")")
            }
            Shape::Token => f.write_str("token[]"),
            Shape::Opaque => f.write_str("opaque[]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Tile;
    use crate::PrimitiveType::*;

    #[test]
    fn array_basics() {
        let s = ArrayShape::<i64>::new(F32, [2, 3, 4]);
        assert_eq!(s.rank(), 3);
        assert_eq!(s.element_count(), 24);
        assert_eq!(s.dim(-1), Some(&4));
        assert_eq!(s.dim(-3), Some(&2));
        assert_eq!(s.dim(-4), None);
        assert_eq!(s.dim(3), None);
        assert_eq!(s.byte_size().unwrap(), 96);
        assert_eq!(ArrayShape::<i64>::new(F32, []).element_count(), 1);
        assert_eq!(ArrayShape::<i64>::new(F32, [3, 0]).element_count(), 0);
    }

    #[test]
    fn byte_size_counts_padding() {
        let tiled = ArrayShape::<i64>::new(F32, [3, 5])
            .with_layout(Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]));
        assert_eq!(tiled.byte_size().unwrap(), 24 * 4);
        let padded = ArrayShape::<i64>::new(Bf16, [2, 3]).with_layout(
            Layout::new([0, 1]).with_padding([3, 5], crate::layout::PaddingValue::Zero),
        );
        assert_eq!(padded.byte_size().unwrap(), 30);
    }

    /// Dense layouts are sized without building the index map: the same
    /// sizes and the same errors (wrong rank, not a permutation, overflow,
    /// also when a zero size comes after an overflowing product).
    #[test]
    fn dense_sizes_are_the_index_maps() {
        let big = i64::MAX / 2;
        let cases: [(&[i64], Option<&[i64]>); 9] = [
            (&[2, 3, 4], None),
            (&[2, 3, 4], Some(&[0, 2, 1])),
            (&[], None),
            (&[7, 0, 5], Some(&[1, 0, 2])),
            (&[0, big, big], None),
            (&[0, big, big], Some(&[0, 1, 2])),
            (&[2, 3], Some(&[1])),
            (&[2, 3], Some(&[1, 1])),
            (&[2, 3], Some(&[2, 0])),
        ];
        for (dims, order) in cases {
            let mut shape = ArrayShape::<i64>::new(F32, dims.to_vec());
            if let Some(order) = order {
                shape = shape.with_layout(Layout::new(order.to_vec()));
            }
            let map = shape.index_map().map(|m| m.buffer_len());
            assert_eq!(shape.buffer_elements(), map, "{dims:?} {order:?}");
            assert_eq!(shape.validate(), map.map(|_| ()), "{dims:?} {order:?}");
        }
    }

    /// Sizes near `i64::MAX` overflow into an error, not a panic (found by
    /// fuzzing): the elements of a tiled dimension, the bytes of an array.
    #[test]
    fn byte_size_overflow_is_an_error() {
        let tiled = ArrayShape::<i64>::new(S32, [i64::MAX])
            .with_layout(Layout::new([0]).with_tiles([Tile::new([4]), Tile::new([2, 1])]));
        assert_eq!(
            tiled.byte_size().unwrap_err().to_string(),
            "layout {0:T(4)(2,1)}: the buffer size overflows"
        );
        let wide = ArrayShape::<i64>::new(F64, [1 << 61]);
        assert_eq!(
            wide.byte_size().unwrap_err().to_string(),
            "layout {0}: the buffer size overflows"
        );
        assert_eq!(
            ArrayShape::<i64>::new(F64, [1 << 59]).byte_size(),
            Ok(1 << 62)
        );
        let tuple = Shape::tuple([
            ArrayShape::<i64>::new(F64, [1 << 59]).into(),
            ArrayShape::<i64>::new(S32, [3]).into(),
            Shape::Token,
        ]);
        assert_eq!(tuple.saturating_byte_size(), (1 << 62) + 12);
        let overflowing = Shape::tuple([wide.into(), ArrayShape::<i64>::new(S32, [3]).into()]);
        assert_eq!(overflowing.saturating_byte_size(), u64::MAX);
    }

    #[test]
    fn display() {
        let s = Shape::<i64>::tuple([
            ArrayShape::new(F32, [2]).with_default_layout().into(),
            Shape::scalar(S32).with_default_layouts(),
        ]);
        assert_eq!(s.to_string(), "(f32[2]{0}, s32[])");
        assert_eq!(Shape::<i64>::Token.to_string(), "token[]");
        let mut d = ArrayShape::<i64>::new(F32, [10]);
        d.set_dynamic_dim(0, true);
        assert_eq!(d.to_string(), "f32[<=10]");
    }

    #[test]
    fn layout_equality() {
        let a = ArrayShape::<i64>::new(F32, [2, 3]);
        let b = a.clone().with_default_layout();
        let c = a.clone().with_layout(Layout::new([0, 1]));
        assert_ne!(a, b);
        assert!(a.eq_with_layout(&b));
        assert!(!a.eq_with_layout(&c));
        assert!(a.eq_ignoring_layout(&c));
    }
}
