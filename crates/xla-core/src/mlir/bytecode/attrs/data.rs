//! The data an entry holds: integers and floats of an element type's
//! width, blobs, and dense element data (bit-packed i1 unpacked, splats
//! recognised).

use crate::mlir::bytecode::{Cur, Result};
use crate::mlir::ir::{Attr, ElementType, Type};
use crate::PrimitiveType;

pub(super) fn element_of(t: &Type, at: &Cur<'_>) -> Result<ElementType> {
    match t {
        Type::Element(e) => Ok(e.clone()),
        other => Err(at.malformed(
            "scalar attribute",
            format!("type {other:?} is not an element type"),
        )),
    }
}

pub(super) fn blob<'a>(c: &mut Cur<'a>) -> Result<&'a [u8]> {
    let n = c.varint()?;
    if n > c.remaining() as u64 {
        return Err(c.truncated("blob"));
    }
    c.take(n as usize, "blob")
}

/// The bit width of an integer element type (index is 64).
fn int_width(e: &ElementType) -> Option<u32> {
    use PrimitiveType as P;
    match e {
        ElementType::Index => Some(64),
        ElementType::Known(p) => match p {
            P::Pred => Some(1),
            P::S8 | P::U8 => Some(8),
            P::S16 | P::U16 => Some(16),
            P::S32 | P::U32 => Some(32),
            P::S64 | P::U64 => Some(64),
            _ => None,
        },
        ElementType::Other(s) => match s.as_str() {
            "i2" | "ui2" => Some(2),
            "i4" | "ui4" => Some(4),
            _ => None,
        },
    }
}

/// An APInt of the element type's width: one byte up to 8 bits, else a
/// signed varint; sign-extended unless the type is unsigned.
pub(super) fn read_int(c: &mut Cur<'_>, e: &ElementType, at: &Cur<'_>) -> Result<i64> {
    let w =
        int_width(e).ok_or_else(|| at.unsupported("integer attribute", format!("type {e:?}")))?;
    let raw = if w <= 8 {
        u64::from(c.byte()?)
    } else {
        c.svarint()? as u64
    };
    let unsigned = matches!(
        e,
        ElementType::Known(
            PrimitiveType::Pred
                | PrimitiveType::U8
                | PrimitiveType::U16
                | PrimitiveType::U32
                | PrimitiveType::U64
        )
    ) || matches!(e, ElementType::Other(s) if s.starts_with("ui"));
    if w == 64 {
        return Ok(raw as i64);
    }
    let masked = raw & ((1u64 << w) - 1);
    if unsigned {
        Ok(masked as i64)
    } else {
        let shift = 64 - w;
        Ok(((masked << shift) as i64) >> shift)
    }
}

/// An APFloat: the bits of the float type as an APInt.
pub(super) fn read_float(c: &mut Cur<'_>, e: &ElementType, at: &Cur<'_>) -> Result<f64> {
    use PrimitiveType as P;
    let bits = match e {
        ElementType::Known(P::F16 | P::Bf16) => c.svarint()? as u64 & 0xffff,
        ElementType::Known(P::F32) => c.svarint()? as u64 & 0xffff_ffff,
        ElementType::Known(P::F64) => c.svarint()? as u64,
        other => return Err(at.unsupported("float attribute", format!("type {other:?}"))),
    };
    Ok(match e {
        ElementType::Known(P::F16) => f64::from(half::f16::from_bits(bits as u16)),
        ElementType::Known(P::Bf16) => f64::from(half::bf16::from_bits(bits as u16)),
        ElementType::Known(P::F32) => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    })
}

/// The byte size of one stored element, when known.
pub(crate) fn element_bytes(e: &ElementType) -> Option<usize> {
    match e {
        ElementType::Known(p) => Some(p.byte_size()),
        ElementType::Index => Some(8),
        ElementType::Other(_) => None,
    }
}

fn num_elements(dims: &[Option<i64>], at: &Cur<'_>) -> Result<usize> {
    let mut n: usize = 1;
    for d in dims {
        let d = d.ok_or_else(|| at.malformed("dense attribute", "dynamic dimension"))?;
        n = n
            .checked_mul(d as usize)
            .filter(|&n| n <= 1 << 40)
            .ok_or_else(|| at.malformed("dense attribute", "element count overflows"))?;
    }
    Ok(n)
}

/// A builtin dense attribute: the raw buffer, a splat when it holds one
/// element (i1 elements are bytes here, as MLIR stores them in memory for
/// this attribute's raw data after VHLO's unpacking).
pub(super) fn dense(ty: Type, raw: &[u8], at: &Cur<'_>) -> Result<Attr> {
    let (element, dims) = match &ty {
        Type::Tensor { element, dims } => (element.clone(), dims.clone()),
        other => return Err(at.malformed("dense attribute", format!("type {other:?}"))),
    };
    let n = num_elements(&dims, at)?;
    let mut bytes = raw.to_vec();
    let pred = element == ElementType::Known(PrimitiveType::Pred);
    if pred && raw.len() != n && !(raw.len() == 1 && (raw[0] == 0 || raw[0] == 0xff)) {
        // Builtin i1 buffers are bit-packed.
        if raw.len() != n.div_ceil(8) {
            return Err(at.malformed("dense attribute", "i1 data has the wrong size"));
        }
        bytes = (0..n).map(|i| (raw[i / 8] >> (i % 8)) & 1).collect();
    }
    finish_dense(ty, element, n, bytes, pred, at)
}

/// A VHLO tensor attribute: raw data, i1 bit-packed (`0xFF` a true splat).
pub(super) fn vhlo_tensor(ty: Type, raw: &[u8], at: &Cur<'_>) -> Result<Attr> {
    let (element, dims) = match &ty {
        Type::Tensor { element, dims } => (element.clone(), dims.clone()),
        other => return Err(at.malformed("tensor attribute", format!("type {other:?}"))),
    };
    let n = num_elements(&dims, at)?;
    let pred = element == ElementType::Known(PrimitiveType::Pred);
    let bytes = if !pred {
        raw.to_vec()
    } else if raw.len() == 1 && n > 1 && (raw[0] == 0xff || raw[0] == 0) {
        vec![u8::from(raw[0] == 0xff)]
    } else if raw.len() == n.div_ceil(8) && raw.len() != n {
        (0..n).map(|i| (raw[i / 8] >> (i % 8)) & 1).collect()
    } else {
        raw.to_vec()
    };
    finish_dense(ty, element, n, bytes, pred, at)
}

fn finish_dense(
    ty: Type,
    element: ElementType,
    n: usize,
    mut bytes: Vec<u8>,
    pred: bool,
    at: &Cur<'_>,
) -> Result<Attr> {
    if pred {
        for b in &mut bytes {
            *b = u8::from(*b != 0);
        }
    }
    if let Some(size) = element_bytes(&element) {
        // MLIR stores a constant of an empty tensor as a splat of one
        // element (`dense<1> : tensor<0xi16>`): it has no elements.
        if n == 0 && bytes.len() == size {
            bytes.clear();
        }
        if bytes.len() != size * n && !(bytes.len() == size && n > 0) {
            return Err(at.malformed(
                "dense attribute",
                format!("{} bytes for {n} elements of {size} bytes", bytes.len()),
            ));
        }
        let splat = bytes.len() == size && n > 0;
        return Ok(Attr::Dense { ty, bytes, splat });
    }
    Ok(Attr::Dense {
        ty,
        bytes,
        splat: false,
    })
}

/// A builtin `array<T: …>`: integer lists as [`Attr::Ints`], i1 lists as
/// [`Attr::Bools`], float lists as a one-dimensional dense attribute.
pub(super) fn dense_array(e: &ElementType, n: u64, raw: &[u8], at: &Cur<'_>) -> Result<Attr> {
    let size = element_bytes(e)
        .ok_or_else(|| at.unsupported("dense array", format!("element type {e:?}")))?;
    if (raw.len() as u64) != n.saturating_mul(size as u64) {
        return Err(at.malformed("dense array", "data size does not match the element count"));
    }
    if *e == ElementType::Known(PrimitiveType::Pred) {
        return Ok(Attr::Bools(raw.iter().map(|&b| b != 0).collect()));
    }
    if let Some(v) = ints_from_le(e, raw) {
        return Ok(Attr::Ints(v));
    }
    Ok(Attr::Dense {
        ty: Type::Tensor {
            element: e.clone(),
            dims: vec![Some(n as i64)],
        },
        bytes: raw.to_vec(),
        splat: false,
    })
}

/// Little-endian integers of an integer element type, sign- or
/// zero-extended to `i64`.
pub(crate) fn ints_from_le(e: &ElementType, raw: &[u8]) -> Option<Vec<i64>> {
    use PrimitiveType as P;
    let (size, signed) = match e {
        ElementType::Known(P::S8) => (1, true),
        ElementType::Known(P::S16) => (2, true),
        ElementType::Known(P::S32) => (4, true),
        ElementType::Known(P::S64) => (8, true),
        ElementType::Known(P::U8) => (1, false),
        ElementType::Known(P::U16) => (2, false),
        ElementType::Known(P::U32) => (4, false),
        ElementType::Known(P::U64) => (8, false),
        ElementType::Index => (8, true),
        _ => return None,
    };
    Some(
        raw.chunks_exact(size)
            .map(|ch| {
                let mut w = [0u8; 8];
                w[..size].copy_from_slice(ch);
                let v = u64::from_le_bytes(w);
                if signed && size < 8 {
                    let shift = 64 - 8 * size as u32;
                    ((v << shift) as i64) >> shift
                } else {
                    v as i64
                }
            })
            .collect(),
    )
}
