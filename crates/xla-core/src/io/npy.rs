//! NumPy `.npy` files: format versions 1.0, 2.0 and 3.0, either byte order,
//! C or Fortran order.
//!
//! | dtype | element type |
//! |---|---|
//! | `\|b1` | `pred` (bytes must be 0 or 1) |
//! | `\|i1` `<i2` `<i4` `<i8`, `\|u1` `<u2` `<u4` `<u8` | `s8`…`s64`, `u8`…`u64` |
//! | `<f2` `<f4` `<f8`, `<c8` `<c16` | `f16`, `f32`, `f64`, `c64`, `c128` |
//! | `<V2` (what ml_dtypes writes for bfloat16), `\|V2`, `<u2` | `bf16`, when [`NpyOptions::as_type`] asks for it |
//!
//! Big-endian (`>`) data is byte-swapped into a native literal. A
//! Fortran-order file becomes a literal with the column-major layout
//! `minor_to_major = [0, 1, …, rank−1]`, without moving data: `f32[2,3]`
//! stored `a d b e c f` reads as `f32[2,3]{0,1}`.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

pub use super::npy_header::NpyVersion;
use super::npy_header::{self, Header};
use super::{storage_for, FileBytes, Fixup, IoError, IoErrorKind};
use crate::layout::Layout;
use crate::{ArrayShape, Literal, PrimitiveType};

/// How to read a `.npy` file.
#[derive(Clone, Debug, Default)]
pub struct NpyOptions {
    /// The element type the caller expects; `None` takes the file's dtype.
    /// NumPy has no bf16, so a bf16 file (`<V2`, `|V2` or `<u2`) is read
    /// only with `Some(PrimitiveType::Bf16)`. Any other requested type must
    /// be the file's (no conversion happens).
    pub as_type: Option<PrimitiveType>,
}

/// Reads a `.npy` file. Large files are memory-mapped and, when the data is
/// aligned and native-endian, viewed without a copy (see the [module
/// docs](super)).
pub fn read_npy(path: impl AsRef<Path>, options: &NpyOptions) -> Result<Literal, IoError> {
    let path = path.as_ref();
    let file = FileBytes::open(path)?;
    let map = match &file {
        FileBytes::Mapped(map) => Some(map),
        FileBytes::Read(_) => None,
    };
    decode(file.bytes(), map, options).map_err(|kind| IoError::at(path, kind))
}

/// Decodes `.npy` bytes held in memory (the data is copied).
pub fn decode_npy(bytes: &[u8], options: &NpyOptions) -> Result<Literal, IoError> {
    Ok(decode(bytes, None, options)?)
}

/// Writes an array literal as a `.npy` file, as NumPy would write the same
/// array: version 1.0 (2.0 if the header needs it), native byte order, bf16
/// as `<V2`. The default layout is written in C order, the column-major
/// layout in Fortran order, and any other layout in C order after a
/// relayout.
pub fn write_npy(path: impl AsRef<Path>, literal: &Literal) -> Result<(), IoError> {
    let path = path.as_ref();
    let at = |kind| IoError::at(path, kind);
    let (header, data) = prepare(literal, None).map_err(at)?;
    let os = |action| move |source| at(IoErrorKind::Os { action, source });
    let mut file = File::create(path).map_err(os("create"))?;
    file.write_all(&header).map_err(os("write"))?;
    file.write_all(data.bytes().map_err(|e| at(e.into()))?)
        .map_err(os("write"))
}

/// The bytes [`write_npy`] writes; `version` forces a format version.
pub fn encode_npy(literal: &Literal, version: Option<NpyVersion>) -> Result<Vec<u8>, IoError> {
    let (mut out, data) = prepare(literal, version)?;
    out.extend_from_slice(data.bytes().map_err(IoErrorKind::from)?);
    Ok(out)
}

fn decode(
    bytes: &[u8],
    map: Option<&Arc<memmap2::Mmap>>,
    options: &NpyOptions,
) -> Result<Literal, IoErrorKind> {
    let header = npy_header::parse(bytes)?;
    let (ty, swap) = element_type(&header.descr, options.as_type)?;
    let expected = data_len(&header, ty)?;
    let data = &bytes[header.data_offset..];
    if data.len() as u64 != expected {
        return Err(IoErrorKind::SizeMismatch {
            expected,
            actual: data.len() as u64,
        });
    }
    let fixup = if ty.is_pred() {
        Fixup::Bool
    } else if swap {
        Fixup::Swap(ty.component_type().byte_size())
    } else {
        Fixup::None
    };
    let storage = storage_for(map, data, header.data_offset, ty, fixup)?;
    let rank = header.shape.len();
    let layout = if header.fortran_order {
        Layout::new((0..rank as i64).collect::<Vec<_>>())
    } else {
        Layout::default_for_rank(rank)
    };
    let dims: Vec<i64> = header.shape.iter().map(|&d| d as i64).collect();
    let shape = ArrayShape::new(ty, dims).with_layout(layout);
    Ok(Literal::from_storage(shape, storage)?)
}

/// Bytes of data the header's shape and element type need; every size and
/// the element count must fit in an `i64`, the byte count in a `usize`.
fn data_len(header: &Header, ty: PrimitiveType) -> Result<u64, IoErrorKind> {
    let limit = i64::MAX as u64;
    header
        .shape
        .iter()
        .try_fold(1u64, |acc, &d| (d <= limit).then(|| acc.checked_mul(d))?)
        .filter(|&n| n <= limit)
        .and_then(|n| n.checked_mul(ty.byte_size() as u64))
        .filter(|&n| n <= limit && usize::try_from(n).is_ok())
        .ok_or_else(|| IoErrorKind::SizeOverflow {
            shape: header.shape.clone(),
        })
}

/// The element type of a dtype string, and whether its data must be
/// byte-swapped to the host order.
fn element_type(
    descr: &str,
    as_type: Option<PrimitiveType>,
) -> Result<(PrimitiveType, bool), IoErrorKind> {
    use PrimitiveType as P;
    let unsupported = |hint| IoErrorKind::UnsupportedDtype {
        dtype: descr.to_string(),
        hint,
    };
    let mut chars = descr.chars();
    let order = chars.next().ok_or_else(|| unsupported(""))?;
    let code = chars.as_str();
    let found = match code {
        "b1" => Some(P::Pred),
        "i1" => Some(P::S8),
        "i2" => Some(P::S16),
        "i4" => Some(P::S32),
        "i8" => Some(P::S64),
        "u1" => Some(P::U8),
        "u2" => Some(P::U16),
        "u4" => Some(P::U32),
        "u8" => Some(P::U64),
        "f2" => Some(P::F16),
        "f4" => Some(P::F32),
        "f8" => Some(P::F64),
        "c8" => Some(P::C64),
        "c16" => Some(P::C128),
        "V2" => None,
        _ if code.starts_with('O') => {
            return Err(unsupported(" (object arrays hold pickled Python objects)"))
        }
        _ => return Err(unsupported("")),
    };
    let ty = match (found, as_type) {
        (Some(ty), None) => ty,
        (Some(ty), Some(requested)) if ty == requested => ty,
        (Some(P::U16) | None, Some(P::Bf16)) => P::Bf16,
        (None, None) => {
            return Err(unsupported(
                " (2 raw bytes, how NumPy stores ml_dtypes' bfloat16: read it with \
                 NpyOptions { as_type: Some(PrimitiveType::Bf16) })",
            ))
        }
        (_, Some(requested)) => {
            return Err(IoErrorKind::TypeMismatch {
                dtype: descr.to_string(),
                requested,
            })
        }
    };
    let big_endian = match order {
        '<' => false,
        '>' => true,
        '=' => cfg!(target_endian = "big"),
        // Raw `V2` bytes are bf16 as ml_dtypes stores it: little-endian.
        '|' if ty.byte_size() == 1 || found.is_none() => false,
        '|' => return Err(unsupported(" (byte order `|` on a multi-byte type)")),
        _ => return Err(unsupported(" (the first character must be <, >, = or |)")),
    };
    let swap = ty.byte_size() > 1 && big_endian != cfg!(target_endian = "big");
    Ok((ty, swap))
}

/// The dtype string written for an element type, in the host byte order.
fn descr(ty: PrimitiveType) -> String {
    use PrimitiveType as P;
    let code = match ty {
        P::Pred => return "|b1".into(),
        P::S8 => return "|i1".into(),
        P::U8 => return "|u1".into(),
        P::S16 => "i2",
        P::S32 => "i4",
        P::S64 => "i8",
        P::U16 => "u2",
        P::U32 => "u4",
        P::U64 => "u8",
        P::F16 => "f2",
        P::Bf16 => "V2",
        P::F32 => "f4",
        P::F64 => "f8",
        P::C64 => "c8",
        P::C128 => "c16",
    };
    let order = if cfg!(target_endian = "big") {
        '>'
    } else {
        '<'
    };
    format!("{order}{code}")
}

/// The header for `literal`, and the literal whose buffer is the data (the
/// literal itself, or a row-major copy).
fn prepare(
    literal: &Literal,
    version: Option<NpyVersion>,
) -> Result<(Vec<u8>, Cow<'_, Literal>), IoErrorKind> {
    let shape = literal.array_shape().map_err(|_| IoErrorKind::NotArray {
        shape: Box::new(literal.shape().clone()),
    })?;
    let rank = shape.rank();
    let layout = shape.layout_or_default();
    let column_major =
        layout.is_dense() && layout.minor_to_major.iter().copied().eq(0..rank as i64);
    let (fortran_order, data) = if layout.is_default() {
        (false, Cow::Borrowed(literal))
    } else if column_major {
        (true, Cow::Borrowed(literal))
    } else {
        let row_major = literal.relayout(&Layout::default_for_rank(rank))?;
        (false, Cow::Owned(row_major))
    };
    let header = npy_header::format(
        &descr(shape.element_type()),
        fortran_order,
        shape.dims(),
        version,
    );
    Ok((header, data))
}
