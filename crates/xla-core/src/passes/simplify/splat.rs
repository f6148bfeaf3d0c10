//! Recognizing values whose elements are all the same: a constant with equal
//! elements, or a broadcast of one.

use super::Rewriter;
use crate::hlo::{InstrId, Opcode};
use crate::{Literal, PrimitiveType, Shape};

/// The one element value of a splat: its element type and its bytes.
#[derive(Clone, PartialEq, Debug)]
pub(super) struct Splat {
    ty: PrimitiveType,
    bytes: Vec<u8>,
}

impl Splat {
    /// The splat value of `id`, if every element of its (array) value is
    /// the same bit pattern. Looks through broadcasts.
    pub fn of(cx: &Rewriter<'_>, id: InstrId) -> Option<Splat> {
        let instr = cx.instr(id);
        match instr.opcode {
            Opcode::Broadcast => Splat::of(cx, cx.operand(id, 0)),
            Opcode::Constant => Splat::of_literal(instr.attrs.literal.as_ref()?),
            _ => None,
        }
    }

    /// The splat value of an array literal with a dense layout and at least
    /// one element whose elements all have the same bits.
    pub fn of_literal(literal: &Literal) -> Option<Splat> {
        let Shape::Array(shape) = literal.shape() else {
            return None;
        };
        if !shape.layout_or_default().is_dense() || shape.element_count() == 0 {
            return None;
        }
        let ty = shape.element_type();
        let bytes = literal.bytes().ok()?;
        let first = &bytes[..ty.byte_size()];
        bytes
            .chunks_exact(ty.byte_size())
            .all(|chunk| chunk == first)
            .then(|| Splat {
                ty,
                bytes: first.to_vec(),
            })
    }

    /// The element type.
    pub fn element_type(&self) -> PrimitiveType {
        self.ty
    }

    /// The value as a rank-0 literal.
    pub fn to_scalar(&self) -> Literal {
        let mut scalar = Literal::zeros(&Shape::scalar(self.ty)).expect("a scalar of any type");
        scalar
            .bytes_mut()
            .expect("an array literal")
            .copy_from_slice(&self.bytes);
        scalar
    }

    /// All bits zero: integer 0, `false`, float `+0`, complex `(+0, +0)`.
    pub fn is_zero(&self) -> bool {
        self.bytes.iter().all(|&b| b == 0)
    }

    /// A float `-0`.
    pub fn is_negative_zero(&self) -> bool {
        self.ty.is_floating() && self.bytes == bytes_of(-0.0f64, self.ty)
    }

    /// The value one: integer 1, `true`, float `1.0`, complex `(1, 0)`.
    pub fn is_one(&self) -> bool {
        self.bytes == bytes_of(1.0f64, self.ty)
    }

    /// The value of a pred splat.
    pub fn as_pred(&self) -> Option<bool> {
        (self.ty == PrimitiveType::Pred).then(|| self.bytes[0] != 0)
    }
}

/// The bytes of `value` converted to `ty` (`1.0` gives integer 1, `true`,
/// complex `(1, 0)`).
fn bytes_of(value: f64, ty: PrimitiveType) -> Vec<u8> {
    Literal::scalar(value)
        .convert(ty)
        .and_then(|l| l.bytes().map(<[u8]>::to_vec))
        .expect("every element type converts from f64")
}
