//! Literals: host arrays (a shape with its layout, plus typed storage),
//! tuples of literals, and tokens.
//!
//! An array literal's bytes are its buffer under the shape's layout, in memory
//! order (padding and tile padding included), so a literal can be handed to
//! compiled code as is.

mod access;
mod compare;
pub mod convert;
mod relayout;
mod storage;

use std::fmt;

pub(crate) use access::{read_element, write_element};
pub use compare::{Mismatch, Tolerance};
pub use storage::{physical_memory, AlignedBytes, AllocError, Storage, BUFFER_ALIGN};

use crate::layout::LayoutError;
use crate::{dispatch_native, ArrayShape, NativeType, PrimitiveType, Shape};

/// A literal that does not fit what was asked of it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LiteralError {
    /// The system refused the memory for the literal's buffer.
    #[error("cannot allocate {bytes} bytes for a literal of shape {shape}")]
    OutOfMemory {
        /// The literal's shape.
        shape: String,
        /// Its buffer size.
        bytes: usize,
    },
    /// The element type is not the one asked for.
    #[error("literal of shape {shape} holds {actual}, not {expected}")]
    TypeMismatch {
        /// The literal's shape.
        shape: Shape,
        /// The element type asked for.
        expected: PrimitiveType,
        /// The element type held.
        actual: PrimitiveType,
    },
    /// Data of the wrong length for the shape.
    #[error("shape {shape} needs {expected} elements but {actual} were given")]
    LengthMismatch {
        /// The shape.
        shape: Shape,
        /// Elements the shape needs.
        expected: i64,
        /// Elements given.
        actual: usize,
    },
    /// Not an array literal.
    #[error("expected an array literal, found one of shape {shape}")]
    NotArray {
        /// The literal's shape.
        shape: Shape,
    },
    /// A runtime size outside `[0, static size]`, or for a dimension the
    /// literal does not have.
    #[error("dimension {dim} of {shape} cannot have the runtime size {size}")]
    DynamicSize {
        /// The literal's shape.
        shape: Shape,
        /// The dimension.
        dim: usize,
        /// The runtime size asked for.
        size: i64,
    },
    /// A multi-index with the wrong number of entries.
    #[error(
        "index {} has {} entries, but the literal of shape {shape} has rank {}",
        IndexText(index),
        index.len(),
        shape.as_array().map_or(0, |a| a.rank())
    )]
    IndexRank {
        /// The literal's shape.
        shape: Shape,
        /// The index given.
        index: Vec<i64>,
    },
    /// A multi-index outside the array.
    #[error(
        "index {} is out of range for {shape}: dimension {dim} has size {size}",
        IndexText(index)
    )]
    IndexOutOfRange {
        /// The literal's shape.
        shape: Shape,
        /// The index given.
        index: Vec<i64>,
        /// The first dimension whose index is out of range.
        dim: usize,
        /// That dimension's size.
        size: i64,
    },
    /// An element-type pair that `ConvertElementType` does not define.
    #[error("cannot convert {from} to {to}: complex → pred is not a conversion (compare with zero instead)")]
    NotConvertible {
        /// The source element type.
        from: PrimitiveType,
        /// The target element type.
        to: PrimitiveType,
    },
    /// Conversion buffers of different element counts.
    #[error("converting {from} to {to}: the source holds {src_elements} elements but the destination {dst_elements}")]
    ConvertLength {
        /// The source element type.
        from: PrimitiveType,
        /// The target element type.
        to: PrimitiveType,
        /// Elements in the source buffer.
        src_elements: usize,
        /// Elements in the destination buffer.
        dst_elements: usize,
    },
    /// A pred buffer holding a byte other than 0 or 1.
    #[error("literal of shape {shape}: buffer byte {offset} holds {byte}, but pred elements hold 0 or 1")]
    InvalidPred {
        /// The literal's shape.
        shape: Shape,
        /// Offset of the byte in the buffer.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// Storage whose address does not suit the element type.
    #[error("storage for {shape} is not aligned to {align} bytes")]
    Misaligned {
        /// The literal's shape.
        shape: Shape,
        /// The element type's alignment in bytes.
        align: usize,
    },
    /// A bad layout.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

/// What a literal holds.
#[derive(Clone)]
enum Payload {
    Array(Storage),
    Tuple(Vec<Literal>),
    Token,
    Opaque,
}

/// A host value: an array with its layout, a tuple of literals, or a token.
///
/// `Display` and `Debug` print XLA's `Literal::ToString` text (shape and
/// every element); `Debug` adds the runtime sizes of dynamic dimensions.
#[derive(Clone)]
pub struct Literal {
    shape: Shape,
    payload: Payload,
    /// Runtime sizes of dynamic dimensions (`set-dimension-size`), one per
    /// dimension; `None` when every dimension has its static size.
    dynamic_sizes: Option<Box<[i64]>>,
}

impl Literal {
    /// A zero-filled array literal of `shape` (its layout decides the buffer
    /// size); tuples get zero-filled elements.
    pub fn zeros(shape: &Shape) -> Result<Self, LiteralError> {
        let payload = match shape {
            Shape::Array(a) => {
                let bytes = a.byte_size()? as usize;
                let storage =
                    AlignedBytes::try_zeroed(bytes).map_err(|_| LiteralError::OutOfMemory {
                        shape: shape.to_string(),
                        bytes,
                    })?;
                Payload::Array(Storage::Owned(storage))
            }
            Shape::Tuple(t) => {
                Payload::Tuple(t.iter().map(Literal::zeros).collect::<Result<_, _>>()?)
            }
            Shape::Token => Payload::Token,
            Shape::Opaque => Payload::Opaque,
        };
        Ok(Literal {
            shape: shape.clone(),
            payload,
            dynamic_sizes: None,
        })
    }

    /// An array literal from row-major values and dimensions, with the
    /// default layout.
    pub fn from_vec<T: NativeType>(dims: &[i64], values: Vec<T>) -> Result<Self, LiteralError> {
        Self::from_slice(dims, &values)
    }

    /// An array literal from row-major values and dimensions, with the
    /// default layout.
    ///
    /// ```
    /// use xla_core::Literal;
    /// let l = Literal::from_slice(&[2, 2], &[1i64, 2, 3, 4])?;
    /// assert_eq!(l.shape().to_string(), "s64[2,2]{1,0}");
    /// # Ok::<(), xla_core::literal::LiteralError>(())
    /// ```
    pub fn from_slice<T: NativeType>(dims: &[i64], values: &[T]) -> Result<Self, LiteralError> {
        let shape: Shape = ArrayShape::new(T::TYPE, dims).with_default_layout().into();
        let expected = dims.iter().try_fold(
            1i64,
            |acc, &d| if d < 0 { None } else { acc.checked_mul(d) },
        );
        if expected != Some(values.len() as i64) {
            return Err(LiteralError::LengthMismatch {
                shape,
                expected: expected.unwrap_or(-1),
                actual: values.len(),
            });
        }
        // SAFETY: NativeType guarantees plain-old-data of the element's size.
        let bytes = unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
        };
        Ok(Literal {
            shape,
            payload: Payload::Array(Storage::Owned(AlignedBytes::copy_from(bytes))),
            dynamic_sizes: None,
        })
    }

    /// A rank-1 literal.
    pub fn vector<T: NativeType>(values: &[T]) -> Self {
        Self::from_slice(&[values.len() as i64], values).expect("length matches by construction")
    }

    /// A rank-2 literal from rows, with the default (row-major) layout.
    ///
    /// ```
    /// use xla_core::Literal;
    /// let m = Literal::matrix(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    /// assert_eq!(m.shape().to_string(), "f32[2,3]{1,0}");
    /// ```
    pub fn matrix<T: NativeType, const N: usize>(rows: &[[T; N]]) -> Self {
        Self::from_slice(&[rows.len() as i64, N as i64], rows.as_flattened())
            .expect("length matches by construction")
    }

    /// A rank-0 literal.
    pub fn scalar<T: NativeType>(value: T) -> Self {
        Self::from_slice(&[], &[value]).expect("one element for a scalar")
    }

    /// A tuple of literals.
    pub fn tuple(elements: Vec<Literal>) -> Self {
        Literal {
            shape: Shape::Tuple(elements.iter().map(|e| e.shape.clone()).collect()),
            payload: Payload::Tuple(elements),
            dynamic_sizes: None,
        }
    }

    /// A token.
    pub fn token() -> Self {
        Literal {
            shape: Shape::Token,
            payload: Payload::Token,
            dynamic_sizes: None,
        }
    }

    /// An array literal over existing storage. The storage must hold exactly
    /// the buffer of `shape` under its layout, at an address aligned for the
    /// element type; a pred buffer must hold only 0 and 1.
    pub fn from_storage(shape: ArrayShape, storage: Storage) -> Result<Self, LiteralError> {
        let expected = shape.byte_size()?;
        let ty = shape.element_type();
        if storage.bytes().len() as i64 != expected {
            let elem = ty.byte_size() as i64;
            return Err(LiteralError::LengthMismatch {
                shape: shape.into(),
                expected: expected / elem,
                actual: storage.bytes().len() / elem as usize,
            });
        }
        let align = dispatch_native!(ty, T => std::mem::align_of::<T>());
        if storage.bytes().as_ptr().align_offset(align) != 0 {
            return Err(LiteralError::Misaligned {
                shape: shape.into(),
                align,
            });
        }
        let literal = Literal {
            shape: shape.into(),
            payload: Payload::Array(storage),
            dynamic_sizes: None,
        };
        literal.check_pred_bytes()?;
        Ok(literal)
    }

    /// Errors if this is a pred literal holding a byte other than 0 or 1.
    fn check_pred_bytes(&self) -> Result<(), LiteralError> {
        if self.element_type() != Some(PrimitiveType::Pred) {
            return Ok(());
        }
        let bytes = self.bytes()?;
        match bytes.iter().position(|&b| b > 1) {
            None => Ok(()),
            Some(offset) => Err(LiteralError::InvalidPred {
                shape: self.shape.clone(),
                offset,
                byte: bytes[offset],
            }),
        }
    }

    /// The same array with every element converted to `to` by the rules of
    /// [`convert`] (`docs/semantics.md`, *Convert*); the layout is kept.
    ///
    /// ```
    /// use xla_core::{Literal, PrimitiveType};
    /// let l = Literal::vector(&[300i32, -129]).convert(PrimitiveType::S8)?;
    /// assert_eq!(l.to_vec::<i8>()?, [44, 127]);
    /// # Ok::<(), xla_core::literal::LiteralError>(())
    /// ```
    pub fn convert(&self, to: PrimitiveType) -> Result<Literal, LiteralError> {
        let shape = self.array_shape()?;
        let from = shape.element_type();
        let src = self.bytes()?;
        let mut dst = AlignedBytes::zeroed(src.len() / from.byte_size() * to.byte_size());
        convert::convert_elements(src, from, dst.as_mut_slice(), to)?;
        Literal::from_storage(shape.clone().with_element_type(to), Storage::Owned(dst))
    }

    /// The runtime size of dimension `dim`: the size `set-dimension-size`
    /// gave it, else its static size. Dimensions out of range give 0.
    pub fn dynamic_size(&self, dim: usize) -> i64 {
        match &self.dynamic_sizes {
            Some(sizes) => sizes.get(dim).copied().unwrap_or(0),
            None => self
                .shape
                .as_array()
                .and_then(|a| a.dims().get(dim).copied())
                .unwrap_or(0),
        }
    }

    /// `true` if some dimension has a runtime size below its static size.
    pub fn has_dynamic_sizes(&self) -> bool {
        self.dynamic_sizes.is_some()
    }

    /// The same literal with dimension `dim`'s runtime size set to `size`
    /// (at most its static size); the static shape and the buffer are unchanged.
    pub fn with_dynamic_size(mut self, dim: usize, size: i64) -> Result<Self, LiteralError> {
        let dims = self.array_shape()?.dims().to_vec();
        if !dims
            .get(dim)
            .is_some_and(|&bound| (0..=bound).contains(&size))
        {
            return Err(LiteralError::DynamicSize {
                shape: self.shape.clone(),
                dim,
                size,
            });
        }
        let mut sizes = self.dynamic_sizes.take().map_or(dims, Vec::from);
        sizes[dim] = size;
        self.dynamic_sizes = Some(sizes.into_boxed_slice());
        Ok(self)
    }

    /// The shape, with layout.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The array shape, or an error for tuples and tokens.
    pub fn array_shape(&self) -> Result<&ArrayShape, LiteralError> {
        self.shape.as_array().ok_or_else(|| LiteralError::NotArray {
            shape: self.shape.clone(),
        })
    }

    /// The element type of an array literal.
    pub fn element_type(&self) -> Option<PrimitiveType> {
        self.shape.element_type()
    }

    /// The tuple's elements.
    pub fn tuple_elements(&self) -> Option<&[Literal]> {
        match &self.payload {
            Payload::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// Takes the tuple apart.
    pub fn into_tuple_elements(self) -> Option<Vec<Literal>> {
        match self.payload {
            Payload::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// The raw buffer of an array literal, in memory order.
    pub fn bytes(&self) -> Result<&[u8], LiteralError> {
        match &self.payload {
            Payload::Array(s) => Ok(s.bytes()),
            _ => Err(LiteralError::NotArray {
                shape: self.shape.clone(),
            }),
        }
    }

    /// The raw buffer, mutably. A literal viewing a mapped file is first
    /// copied into owned memory. Writing a byte other than 0 or 1 into a pred
    /// buffer makes [`Literal::data`] report [`LiteralError::InvalidPred`].
    pub fn bytes_mut(&mut self) -> Result<&mut [u8], LiteralError> {
        match &mut self.payload {
            Payload::Array(s) => Ok(s.bytes_mut()),
            _ => Err(LiteralError::NotArray {
                shape: self.shape.clone(),
            }),
        }
    }

    /// The storage of an array literal.
    pub fn storage(&self) -> Option<&Storage> {
        match &self.payload {
            Payload::Array(s) => Some(s),
            _ => None,
        }
    }

    /// The buffer as typed elements, in memory order (not logical order,
    /// unless the layout is the default one). For pred, checks that every
    /// byte is 0 or 1 first.
    pub fn data<T: NativeType>(&self) -> Result<&[T], LiteralError> {
        let bytes = self.typed_bytes::<T>()?;
        // SAFETY: typed_bytes checked the type (size), the alignment and the
        // pred bytes; NativeType is plain old data.
        Ok(unsafe {
            std::slice::from_raw_parts(
                bytes.as_ptr().cast::<T>(),
                bytes.len() / std::mem::size_of::<T>(),
            )
        })
    }

    /// The buffer as typed elements, mutably.
    pub fn data_mut<T: NativeType>(&mut self) -> Result<&mut [T], LiteralError> {
        self.typed_bytes::<T>()?;
        let bytes = self.bytes_mut()?;
        // SAFETY: as in `data`; copying a mapped buffer into owned memory
        // keeps its bytes, and owned buffers are 64-byte aligned.
        Ok(unsafe {
            std::slice::from_raw_parts_mut(
                bytes.as_mut_ptr().cast::<T>(),
                bytes.len() / std::mem::size_of::<T>(),
            )
        })
    }

    fn typed_bytes<T: NativeType>(&self) -> Result<&[u8], LiteralError> {
        self.check_type::<T>()?;
        self.check_pred_bytes()?;
        let bytes = self.bytes()?;
        assert_eq!(
            bytes.as_ptr().align_offset(std::mem::align_of::<T>()),
            0,
            "literal storage is aligned for its element type (checked by from_storage)"
        );
        Ok(bytes)
    }
}

/// Prints a multi-index as `[1,2]`.
struct IndexText<'a>(&'a [i64]);

impl fmt::Display for IndexText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str("]")
    }
}

impl PartialEq for Literal {
    /// Bitwise equality of shape (layouts included) and buffer; a NaN equals
    /// a NaN with the same bits.
    fn eq(&self, other: &Self) -> bool {
        if self.shape != other.shape || self.dynamic_sizes != other.dynamic_sizes {
            return false;
        }
        match (&self.payload, &other.payload) {
            (Payload::Array(a), Payload::Array(b)) => a.bytes() == b.bytes(),
            (Payload::Tuple(a), Payload::Tuple(b)) => a == b,
            (Payload::Token, Payload::Token) | (Payload::Opaque, Payload::Opaque) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Literal {
    /// XLA's `Literal::ToString` form: `f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::text::print_literal(
            self,
            crate::text::LiteralFormat::TO_STRING,
        ))
    }
}

impl fmt::Debug for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)?;
        if let Some(sizes) = &self.dynamic_sizes {
            write!(f, " (runtime sizes {sizes:?})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_prints_the_values() {
        let l = Literal::from_vec(&[2, 2], vec![1.5f32, -2., 0., 4.]).unwrap();
        assert_eq!(format!("{l:?}"), l.to_string());
        assert!(format!("{l:?}").starts_with("f32[2,2] {"), "{l:?}");
        assert!(format!("{l:?}").contains("1.5, -2"), "{l:?}");
        let d = Literal::vector(&[1i32, 2, 3])
            .with_dynamic_size(0, 2)
            .unwrap();
        assert_eq!(format!("{d:?}"), "s32[3] {1, 2, 3} (runtime sizes [2])");
    }

    #[test]
    fn dynamic_sizes() {
        let v = Literal::vector(&[1.0f32, 2.0, 3.0]);
        assert!(!v.has_dynamic_sizes());
        assert_eq!(v.dynamic_size(0), 3);
        let d = v.clone().with_dynamic_size(0, 2).unwrap();
        assert_eq!(d.dynamic_size(0), 2);
        assert_ne!(d, v);
        assert_eq!(
            v.clone().with_dynamic_size(0, 4).unwrap_err().to_string(),
            "dimension 0 of f32[3]{0} cannot have the runtime size 4"
        );
        assert!(v.with_dynamic_size(1, 0).is_err());
    }

    #[test]
    fn build_and_read_back() {
        let l = Literal::from_vec(&[2, 3], vec![1.0f32, 2., 3., 4., 5., 6.]).unwrap();
        assert_eq!(l.shape().to_string(), "f32[2,3]{1,0}");
        assert_eq!(l.data::<f32>().unwrap(), &[1.0, 2., 3., 4., 5., 6.]);
        assert_eq!(l.bytes().unwrap().as_ptr() as usize % BUFFER_ALIGN, 0);
        assert_eq!(
            l.data::<i32>().unwrap_err().to_string(),
            "literal of shape f32[2,3]{1,0} holds f32, not s32"
        );
        assert_eq!(
            Literal::from_vec(&[2, 2], vec![1u8; 3])
                .unwrap_err()
                .to_string(),
            "shape u8[2,2]{1,0} needs 4 elements but 3 were given"
        );
        let t = Literal::tuple(vec![Literal::scalar(1i32), Literal::token()]);
        assert_eq!(t.shape().to_string(), "(s32[], token[])");
        assert_eq!(
            Literal::zeros(t.shape()).unwrap(),
            Literal::tuple(vec![Literal::scalar(0i32), Literal::token()])
        );
    }
}
