//! safetensors files, through the `safetensors` crate.
//!
//! | dtype | element type |
//! |---|---|
//! | `BOOL` | `pred` (bytes must be 0 or 1) |
//! | `I8` `I16` `I32` `I64`, `U8` `U16` `U32` `U64` | `s8`…`s64`, `u8`…`u64` |
//! | `F16` `BF16` `F32` `F64` | `f16`, `bf16`, `f32`, `f64` |
//!
//! Other dtypes (`F8_E4M3`, `F8_E5M2`, and ones newer than the crate such as
//! `C64`) are errors naming the tensor and the dtype. `c64`/`c128` literals
//! cannot be written: the format version the crate implements has no
//! complex dtype. Tensors are little-endian and row-major.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use ::safetensors::{Dtype, SafeTensorError, SafeTensors, View};

use super::{storage_for, FileBytes, Fixup, IoError, IoErrorKind};
use crate::layout::Layout;
use crate::{ArrayShape, Literal, PrimitiveType};

/// Reads every tensor of a safetensors file, in the order of their data in
/// the file. Large files are memory-mapped and aligned tensors are viewed
/// without a copy (see the [module docs](super)).
pub fn read_safetensors(path: impl AsRef<Path>) -> Result<Vec<(String, Literal)>, IoError> {
    let path = path.as_ref();
    let file = FileBytes::open(path)?;
    let map = match &file {
        FileBytes::Mapped(map) => Some(map),
        FileBytes::Read(_) => None,
    };
    decode(file.bytes(), map).map_err(|kind| IoError::at(path, kind))
}

/// Decodes safetensors bytes held in memory (the data is copied).
pub fn decode_safetensors(bytes: &[u8]) -> Result<Vec<(String, Literal)>, IoError> {
    Ok(decode(bytes, None)?)
}

/// Writes array literals as a safetensors file (tensors in any layout are
/// written row-major). Names must be distinct.
pub fn write_safetensors(
    path: impl AsRef<Path>,
    tensors: &[(&str, &Literal)],
) -> Result<(), IoError> {
    let path = path.as_ref();
    let views = views(tensors).map_err(|kind| IoError::at(path, kind))?;
    ::safetensors::serialize_to_file(views.iter().map(|(n, v)| (*n, v)), &None, path).map_err(|e| {
        let kind = match e {
            SafeTensorError::IoError(source) => IoErrorKind::Os {
                action: "write",
                source,
            },
            other => IoErrorKind::Safetensors {
                detail: other.to_string(),
            },
        };
        IoError::at(path, kind)
    })
}

/// The bytes [`write_safetensors`] writes.
pub fn encode_safetensors(tensors: &[(&str, &Literal)]) -> Result<Vec<u8>, IoError> {
    let views = views(tensors)?;
    ::safetensors::serialize(views.iter().map(|(n, v)| (*n, v)), &None).map_err(|e| {
        IoError::from(IoErrorKind::Safetensors {
            detail: e.to_string(),
        })
    })
}

fn decode(
    bytes: &[u8],
    map: Option<&Arc<memmap2::Mmap>>,
) -> Result<Vec<(String, Literal)>, IoErrorKind> {
    let file = SafeTensors::deserialize(bytes).map_err(|e| diagnose(bytes, e))?;
    let mut tensors: Vec<_> = file.tensors();
    tensors.sort_by_key(|(name, view)| (view.data().as_ptr() as usize, name.clone()));
    tensors
        .into_iter()
        .map(|(name, view)| {
            let literal = tensor(bytes, map, &view).map_err(|kind| IoErrorKind::Tensor {
                name: name.clone(),
                kind: Box::new(kind),
            })?;
            Ok((name, literal))
        })
        .collect()
}

fn tensor(
    file: &[u8],
    map: Option<&Arc<memmap2::Mmap>>,
    view: &::safetensors::tensor::TensorView<'_>,
) -> Result<Literal, IoErrorKind> {
    let ty = element_type(view.dtype())?;
    let data = view.data();
    let offset = data.as_ptr() as usize - file.as_ptr() as usize;
    let fixup = if ty.is_pred() {
        Fixup::Bool
    } else if cfg!(target_endian = "big") && ty.byte_size() > 1 {
        Fixup::Swap(ty.byte_size())
    } else {
        Fixup::None
    };
    let storage = storage_for(map, data, offset, ty, fixup)?;
    let dims = view
        .shape()
        .iter()
        .map(|&d| i64::try_from(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| IoErrorKind::SizeOverflow {
            shape: view.shape().iter().map(|&d| d as u64).collect(),
        })?;
    let rank = dims.len();
    let shape = ArrayShape::new(ty, dims).with_layout(Layout::default_for_rank(rank));
    Ok(Literal::from_storage(shape, storage)?)
}

fn element_type(dtype: Dtype) -> Result<PrimitiveType, IoErrorKind> {
    use PrimitiveType as P;
    Ok(match dtype {
        Dtype::BOOL => P::Pred,
        Dtype::U8 => P::U8,
        Dtype::I8 => P::S8,
        Dtype::U16 => P::U16,
        Dtype::I16 => P::S16,
        Dtype::F16 => P::F16,
        Dtype::BF16 => P::Bf16,
        Dtype::U32 => P::U32,
        Dtype::I32 => P::S32,
        Dtype::F32 => P::F32,
        Dtype::U64 => P::U64,
        Dtype::I64 => P::S64,
        Dtype::F64 => P::F64,
        other => {
            return Err(IoErrorKind::UnsupportedDtype {
                dtype: format!("{other:?}"),
                hint: " (xla-rs has no 8-bit float types)",
            })
        }
    })
}

fn dtype(ty: PrimitiveType) -> Option<Dtype> {
    use PrimitiveType as P;
    Some(match ty {
        P::Pred => Dtype::BOOL,
        P::S8 => Dtype::I8,
        P::S16 => Dtype::I16,
        P::S32 => Dtype::I32,
        P::S64 => Dtype::I64,
        P::U8 => Dtype::U8,
        P::U16 => Dtype::U16,
        P::U32 => Dtype::U32,
        P::U64 => Dtype::U64,
        P::F16 => Dtype::F16,
        P::Bf16 => Dtype::BF16,
        P::F32 => Dtype::F32,
        P::F64 => Dtype::F64,
        P::C64 | P::C128 => return None,
    })
}

/// A literal in the form the `safetensors` crate writes: row-major bytes.
struct TensorData<'a> {
    dtype: Dtype,
    shape: Vec<usize>,
    literal: Cow<'a, Literal>,
}

impl View for &TensorData<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(self.literal.bytes().expect("an array literal"))
    }

    fn data_len(&self) -> usize {
        self.literal.bytes().expect("an array literal").len()
    }
}

fn views<'a>(
    tensors: &[(&'a str, &'a Literal)],
) -> Result<Vec<(&'a str, TensorData<'a>)>, IoErrorKind> {
    let mut names = HashSet::new();
    tensors
        .iter()
        .map(|&(name, literal)| {
            if !names.insert(name) {
                return Err(IoErrorKind::DuplicateName {
                    name: name.to_string(),
                });
            }
            let in_tensor = |kind| IoErrorKind::Tensor {
                name: name.to_string(),
                kind: Box::new(kind),
            };
            let shape = literal.array_shape().map_err(|_| {
                in_tensor(IoErrorKind::NotArray {
                    shape: Box::new(literal.shape().clone()),
                })
            })?;
            let ty = shape.element_type();
            let dtype = dtype(ty).ok_or_else(|| {
                in_tensor(IoErrorKind::UnsupportedDtype {
                    dtype: ty.to_string(),
                    hint: " (safetensors has no complex dtype)",
                })
            })?;
            let literal = if shape.layout_or_default().is_default() {
                Cow::Borrowed(literal)
            } else {
                let row_major = literal.relayout(&Layout::default_for_rank(shape.rank()));
                Cow::Owned(row_major.map_err(|e| in_tensor(e.into()))?)
            };
            let shape = shape.dims().iter().map(|&d| d as usize).collect();
            Ok((
                name,
                TensorData {
                    dtype,
                    shape,
                    literal,
                },
            ))
        })
        .collect()
}

/// Explains why the crate rejected a file: its error values carry no detail
/// (and an unknown dtype is a JSON error), so the header is looked at again.
fn diagnose(bytes: &[u8], error: SafeTensorError) -> IoErrorKind {
    let detail = |d: String| IoErrorKind::Safetensors { detail: d };
    let header_len = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    match error {
        SafeTensorError::HeaderTooSmall => IoErrorKind::Truncated {
            what: "header length",
            needed: 8,
            available: bytes.len() as u64,
        },
        SafeTensorError::HeaderTooLarge => IoErrorKind::HeaderTooLarge {
            len: header_len.unwrap_or(0),
            limit: 100_000_000,
        },
        SafeTensorError::InvalidHeaderLength => IoErrorKind::Truncated {
            what: "header",
            needed: header_len.unwrap_or(0),
            available: bytes.len().saturating_sub(8) as u64,
        },
        SafeTensorError::InvalidHeader => detail("the header is not UTF-8".into()),
        SafeTensorError::InvalidHeaderStart => detail("the header does not start with `{`".into()),
        SafeTensorError::InvalidHeaderDeserialization => {
            let end = 8usize.saturating_add(header_len.unwrap_or(0) as usize);
            let header = bytes.get(8..end).unwrap_or_default();
            let json = match serde_json::from_slice::<serde_json::Value>(header) {
                Err(e) => return detail(format!("the header is not JSON: {e}")),
                Ok(json) => json,
            };
            let Some(entries) = json.as_object() else {
                return detail("the header is not a JSON object".into());
            };
            unknown_dtype(entries).unwrap_or_else(|| {
                let reason = match serde_json::from_slice::<::safetensors::tensor::Metadata>(header)
                {
                    Err(e) => e.to_string(),
                    Ok(_) => "rejected".into(),
                };
                detail(format!("bad header: {reason}"))
            })
        }
        SafeTensorError::InvalidOffset(name) => detail(format!(
            "tensor {name:?}: its data_offsets do not start where the previous tensor's data ends"
        )),
        SafeTensorError::TensorInvalidInfo => {
            detail("a tensor's data_offsets do not span its shape times its dtype size".into())
        }
        SafeTensorError::MetadataIncompleteBuffer => {
            detail("the tensors' data does not end exactly at the end of the file".into())
        }
        SafeTensorError::ValidationOverflow => {
            detail("a tensor's element or byte count overflows".into())
        }
        other => detail(other.to_string()),
    }
}

/// A tensor whose dtype the crate does not know, from the header's entries.
fn unknown_dtype(entries: &serde_json::Map<String, serde_json::Value>) -> Option<IoErrorKind> {
    entries.iter().find_map(|(name, info)| {
        let dtype = info.get("dtype")?.as_str()?;
        let known = serde_json::from_value::<Dtype>(dtype.into()).is_ok();
        (!known).then(|| IoErrorKind::Tensor {
            name: name.clone(),
            kind: Box::new(IoErrorKind::UnsupportedDtype {
                dtype: dtype.to_string(),
                hint: "",
            }),
        })
    })
}
