//! Literals: host arrays (a shape with its layout, plus typed storage),
//! tuples of literals, and tokens.
//!
//! An array literal's bytes are its buffer under the shape's layout, in memory
//! order (padding and tile padding included), so a literal can be handed to
//! compiled code as is.

mod storage;

use std::fmt;

pub use storage::{AlignedBytes, Storage, BUFFER_ALIGN};

use crate::layout::LayoutError;
use crate::{ArrayShape, NativeType, PrimitiveType, Shape};

/// A literal that does not fit what was asked of it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LiteralError {
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
    /// A bad layout.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

/// What a literal holds.
#[derive(Clone, Debug)]
enum Payload {
    Array(Storage),
    Tuple(Vec<Literal>),
    Token,
    Opaque,
}

/// A host value: an array with its layout, a tuple of literals, or a token.
#[derive(Clone, Debug)]
pub struct Literal {
    shape: Shape,
    payload: Payload,
}

impl Literal {
    /// A zero-filled array literal of `shape` (its layout decides the buffer
    /// size); tuples get zero-filled elements.
    pub fn zeros(shape: &Shape) -> Result<Self, LiteralError> {
        let payload = match shape {
            Shape::Array(a) => {
                let bytes = a.byte_size()? as usize;
                Payload::Array(Storage::Owned(AlignedBytes::zeroed(bytes)))
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
        })
    }

    /// An array literal from row-major values and dimensions, with the
    /// default layout.
    pub fn from_vec<T: NativeType>(dims: &[i64], values: Vec<T>) -> Result<Self, LiteralError> {
        let shape: Shape = ArrayShape::new(T::TYPE, dims).with_default_layout().into();
        let expected = dims.iter().product::<i64>();
        if values.len() as i64 != expected {
            return Err(LiteralError::LengthMismatch {
                shape,
                expected,
                actual: values.len(),
            });
        }
        // SAFETY: NativeType guarantees plain-old-data of the element's size.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                values.as_ptr().cast::<u8>(),
                std::mem::size_of_val(values.as_slice()),
            )
        };
        Ok(Literal {
            shape,
            payload: Payload::Array(Storage::Owned(AlignedBytes::copy_from(bytes))),
        })
    }

    /// A rank-1 literal.
    pub fn vector<T: NativeType>(values: &[T]) -> Self {
        Self::from_vec(&[values.len() as i64], values.to_vec())
            .expect("length matches by construction")
    }

    /// A rank-0 literal.
    pub fn scalar<T: NativeType>(value: T) -> Self {
        Self::from_vec(&[], vec![value]).expect("one element for a scalar")
    }

    /// A tuple of literals.
    pub fn tuple(elements: Vec<Literal>) -> Self {
        Literal {
            shape: Shape::Tuple(elements.iter().map(|e| e.shape.clone()).collect()),
            payload: Payload::Tuple(elements),
        }
    }

    /// A token.
    pub fn token() -> Self {
        Literal {
            shape: Shape::Token,
            payload: Payload::Token,
        }
    }

    /// An array literal over existing storage. The storage must hold exactly
    /// the buffer of `shape` under its layout.
    pub fn from_storage(shape: ArrayShape, storage: Storage) -> Result<Self, LiteralError> {
        let expected = shape.byte_size()?;
        if storage.bytes().len() as i64 != expected {
            let elem = shape.element_type().byte_size() as i64;
            return Err(LiteralError::LengthMismatch {
                shape: shape.into(),
                expected: expected / elem,
                actual: storage.bytes().len() / elem as usize,
            });
        }
        Ok(Literal {
            shape: shape.into(),
            payload: Payload::Array(storage),
        })
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

    /// The raw buffer, mutably.
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
    /// unless the layout is the default one).
    pub fn data<T: NativeType>(&self) -> Result<&[T], LiteralError> {
        let bytes = self.typed_bytes::<T>()?;
        // SAFETY: typed_bytes checked the type (size) and alignment; NativeType
        // is plain old data valid for the stored bit patterns.
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
        // SAFETY: as in `data`; owned buffers are 64-byte aligned.
        Ok(unsafe {
            std::slice::from_raw_parts_mut(
                bytes.as_mut_ptr().cast::<T>(),
                bytes.len() / std::mem::size_of::<T>(),
            )
        })
    }

    fn typed_bytes<T: NativeType>(&self) -> Result<&[u8], LiteralError> {
        let actual = self.array_shape()?.element_type();
        if actual != T::TYPE {
            return Err(LiteralError::TypeMismatch {
                shape: self.shape.clone(),
                expected: T::TYPE,
                actual,
            });
        }
        let bytes = self.bytes()?;
        assert_eq!(
            bytes.as_ptr().align_offset(std::mem::align_of::<T>()),
            0,
            "literal storage is aligned for its element type"
        );
        Ok(bytes)
    }
}

impl PartialEq for Literal {
    /// Bitwise equality of shape (layouts included) and buffer; a NaN equals
    /// a NaN with the same bits.
    fn eq(&self, other: &Self) -> bool {
        if self.shape != other.shape {
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {{…}}", self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
