//! Typed reads of an op's attributes: integers, integer lists, floats,
//! flags, enumerations and dense literals.

use crate::mlir::ir::{Attr, ElementType, Operation, Type};
use crate::mlir::lower::{shape, OpResult};
use crate::{Literal, PrimitiveType};

/// Typed reads of an op's attributes.
pub(super) struct Reader<'a>(pub(super) &'a Operation);

impl Reader<'_> {
    fn get(&self, name: &str) -> OpResult<&Attr> {
        self.0
            .attr(name)
            .ok_or_else(|| format!("missing attribute `{name}`"))
    }

    pub(super) fn ints(&self, name: &str) -> OpResult<Vec<i64>> {
        ints_of(self.get(name)?).map_err(|e| format!("`{name}`: {e}"))
    }

    pub(super) fn ints_or(&self, name: &str, default: Vec<i64>) -> OpResult<Vec<i64>> {
        match self.0.attr(name) {
            Some(attr) => ints_of(attr).map_err(|e| format!("`{name}`: {e}")),
            None => Ok(default),
        }
    }

    pub(super) fn int(&self, name: &str) -> OpResult<i64> {
        match self.get(name)? {
            Attr::Int(v, _) => Ok(*v),
            other => Err(format!("`{name}` is not an integer: {other:?}")),
        }
    }

    pub(super) fn int_or(&self, name: &str, default: i64) -> OpResult<i64> {
        match self.0.attr(name) {
            Some(_) => self.int(name),
            None => Ok(default),
        }
    }

    pub(super) fn float(&self, name: &str) -> OpResult<f64> {
        match self.get(name)? {
            Attr::Float(v, _) => Ok(*v),
            Attr::Int(v, _) => Ok(*v as f64),
            other => Err(format!("`{name}` is not a float: {other:?}")),
        }
    }

    /// A boolean attribute: `true`, or present as a unit attribute.
    pub(super) fn flag(&self, name: &str) -> bool {
        matches!(self.0.attr(name), Some(Attr::Bool(true) | Attr::Unit))
    }

    pub(super) fn enumeration(&self, name: &str) -> OpResult<Option<&str>> {
        match self.0.attr(name) {
            Some(Attr::Enum(_, v)) => Ok(Some(v)),
            Some(Attr::Opaque(v)) => Ok(Some(v)),
            Some(other) => Err(format!("`{name}` is not an enum: {other:?}")),
            None => Ok(None),
        }
    }
}

/// An integer list: `array<i64: …>`, `[1, 2]` or an integer tensor
/// (flattened).
pub(crate) fn ints_of(attr: &Attr) -> OpResult<Vec<i64>> {
    match attr {
        Attr::Ints(v) => Ok(v.clone()),
        Attr::Array(items) => items
            .iter()
            .map(|i| match i {
                Attr::Int(v, _) => Ok(*v),
                other => Err(format!("not an integer: {other:?}")),
            })
            .collect(),
        Attr::Dense {
            ty: Type::Tensor { element, dims },
            bytes,
            splat,
        } => {
            let size = match element {
                ElementType::Index => 8,
                ElementType::Known(p) if p.is_integral() => p.byte_size(),
                _ => return Err(format!("not an integer tensor: {element:?}")),
            };
            let signed = !matches!(element, ElementType::Known(p) if p.is_unsigned_integral());
            let values: Vec<i64> = bytes
                .chunks_exact(size)
                .map(|c| {
                    let mut raw = [0u8; 8];
                    raw[..size].copy_from_slice(c);
                    let v = u64::from_le_bytes(raw);
                    let shift = 64 - 8 * size as u32;
                    if signed && shift > 0 {
                        ((v << shift) as i64) >> shift
                    } else {
                        v as i64
                    }
                })
                .collect();
            if *splat {
                let count = dims
                    .iter()
                    .try_fold(1i64, |n, d| n.checked_mul(d.unwrap_or(0)));
                match count {
                    Some(n @ 0..=MAX_LIST) => {
                        Ok(vec![values.first().copied().unwrap_or(0); n as usize])
                    }
                    _ => Err(format!("an integer list of {dims:?} elements")),
                }
            } else {
                Ok(values)
            }
        }
        other => Err(format!("not an integer list: {other:?}")),
    }
}

/// The longest integer list (dimension numbers, replica groups) read.
const MAX_LIST: i64 = 1 << 24;

/// The largest constant made (a splat of a larger shape is refused).
const MAX_CONSTANT_BYTES: u64 = 1 << 32;

/// The literal of a dense constant.
pub(crate) fn literal(attr: &Attr) -> OpResult<Literal> {
    let Attr::Dense { ty, bytes, splat } = attr else {
        return Err(format!("a constant that is not a dense literal: {attr:?}"));
    };
    let shape = shape(ty)?;
    let size = shape.as_array().and_then(|a| {
        a.dims()
            .iter()
            .try_fold(a.element_type().byte_size() as u64, |n, &d| {
                n.checked_mul(u64::try_from(d).ok()?)
            })
    });
    if size.is_none_or(|n| n > MAX_CONSTANT_BYTES) {
        return Err(format!(
            "a constant of type {shape} is larger than {MAX_CONSTANT_BYTES} bytes"
        ));
    }
    let mut literal = Literal::zeros(&shape).map_err(|e| e.to_string())?;
    let out = literal.bytes_mut().map_err(|e| e.to_string())?;
    if *splat {
        if bytes.is_empty() && !out.is_empty() {
            return Err("an empty splat".into());
        }
        for chunk in out.chunks_exact_mut(bytes.len().max(1)) {
            chunk.copy_from_slice(bytes);
        }
    } else if out.len() == bytes.len() {
        out.copy_from_slice(bytes);
    } else {
        return Err(format!(
            "a literal of {} bytes for a shape of {}",
            bytes.len(),
            out.len()
        ));
    }
    if let Type::Tensor {
        element: ElementType::Known(PrimitiveType::Pred),
        ..
    } = ty
    {
        for b in out.iter_mut() {
            *b = u8::from(*b != 0);
        }
    }
    Ok(literal)
}
