//! Device buffers: an array on one device, copied in from and out to host
//! memory.

use std::sync::{Arc, Mutex};

use xla_core::literal::{AlignedBytes, Storage};
use xla_core::{ArrayShape, Layout, Literal, PrimitiveType, Shape};

use crate::error::{Error, Result};
use crate::ffi::*;
use crate::handles::{Handle, Kind};

/// The PJRT buffer types this plugin holds, with the project's types.
const TYPES: [(PJRT_Buffer_Type, PrimitiveType); 15] = [
    (PJRT_Buffer_Type_PRED, PrimitiveType::Pred),
    (PJRT_Buffer_Type_S8, PrimitiveType::S8),
    (PJRT_Buffer_Type_S16, PrimitiveType::S16),
    (PJRT_Buffer_Type_S32, PrimitiveType::S32),
    (PJRT_Buffer_Type_S64, PrimitiveType::S64),
    (PJRT_Buffer_Type_U8, PrimitiveType::U8),
    (PJRT_Buffer_Type_U16, PrimitiveType::U16),
    (PJRT_Buffer_Type_U32, PrimitiveType::U32),
    (PJRT_Buffer_Type_U64, PrimitiveType::U64),
    (PJRT_Buffer_Type_F16, PrimitiveType::F16),
    (PJRT_Buffer_Type_F32, PrimitiveType::F32),
    (PJRT_Buffer_Type_F64, PrimitiveType::F64),
    (PJRT_Buffer_Type_BF16, PrimitiveType::Bf16),
    (PJRT_Buffer_Type_C64, PrimitiveType::C64),
    (PJRT_Buffer_Type_C128, PrimitiveType::C128),
];

/// The element type of PJRT type `ty`.
pub fn primitive_type(ty: PJRT_Buffer_Type) -> Result<PrimitiveType> {
    (TYPES.iter().find(|(t, _)| *t == ty).map(|(_, p)| *p)).ok_or_else(|| {
        Error::unimplemented(format!(
            "element type {} (PJRT_Buffer_Type {ty}) is not supported by xla_rs; \
             supported: pred, s8-s64, u8-u64, f16, bf16, f32, f64, c64, c128",
            type_name(ty)
        ))
    })
}

/// The PJRT type of element type `ty`.
pub fn buffer_type(ty: PrimitiveType) -> PJRT_Buffer_Type {
    (TYPES.iter().find(|(_, p)| *p == ty).map(|(t, _)| *t)).unwrap_or(PJRT_Buffer_Type_INVALID)
}

/// The names of the PJRT types this plugin does not hold.
const OTHER_TYPES: [(PJRT_Buffer_Type, &str); 14] = [
    (PJRT_Buffer_Type_F8E5M2, "f8e5m2"),
    (PJRT_Buffer_Type_F8E4M3FN, "f8e4m3fn"),
    (PJRT_Buffer_Type_F8E4M3B11FNUZ, "f8e4m3b11fnuz"),
    (PJRT_Buffer_Type_F8E5M2FNUZ, "f8e5m2fnuz"),
    (PJRT_Buffer_Type_F8E4M3FNUZ, "f8e4m3fnuz"),
    (PJRT_Buffer_Type_S4, "s4"),
    (PJRT_Buffer_Type_U4, "u4"),
    (PJRT_Buffer_Type_TOKEN, "token"),
    (PJRT_Buffer_Type_S2, "s2"),
    (PJRT_Buffer_Type_U2, "u2"),
    (PJRT_Buffer_Type_F8E4M3, "f8e4m3"),
    (PJRT_Buffer_Type_F8E3M4, "f8e3m4"),
    (PJRT_Buffer_Type_F8E8M0FNU, "f8e8m0fnu"),
    (PJRT_Buffer_Type_F4E2M1FN, "f4e2m1fn"),
];

fn type_name(ty: PJRT_Buffer_Type) -> &'static str {
    (OTHER_TYPES.iter().find(|(t, _)| *t == ty).map(|(_, n)| *n)).unwrap_or("unknown")
}

/// An array on a device. Its contents are shared with running executions
/// (`Arc`), so deleting a buffer while an execution reads it is safe; the
/// contents are in the row-major layout.
pub struct Buffer {
    pub(crate) device: *mut PJRT_Device,
    pub(crate) element_type: PrimitiveType,
    pub(crate) dims: Vec<i64>,
    /// The row-major layout's minor-to-major order, for
    /// `PJRT_Buffer_GetMemoryLayout`.
    pub(crate) minor_to_major: Vec<i64>,
    contents: Mutex<Option<Arc<Literal>>>,
    /// The contents as they were when the framework took an external
    /// reference (DLPack): held so the memory it points to outlives a
    /// delete or a donation (which then copies instead of moving).
    external: Mutex<Vec<Arc<Literal>>>,
}

impl Buffer {
    /// A buffer on `device` (in its one memory) holding `literal`, which
    /// must be an array; it is relaid to row-major if it is in another
    /// layout.
    pub(crate) fn new(literal: Literal, device: *mut PJRT_Device) -> Result<Buffer> {
        let shape = match literal.shape() {
            Shape::Array(a) => a.clone(),
            other => {
                return Err(Error::unimplemented(format!(
                    "xla_rs buffers hold arrays, not {other}"
                )))
            }
        };
        let row_major = Layout::default_for_rank(shape.rank());
        let literal = match shape.layout() {
            Some(layout) if *layout != row_major => literal
                .relayout(&row_major)
                .map_err(|e| Error::invalid(e.to_string()))?,
            _ => literal,
        };
        Ok(Buffer {
            device,
            element_type: shape.element_type(),
            minor_to_major: (0..shape.rank() as i64).rev().collect(),
            dims: shape.dims().to_vec(),
            contents: Mutex::new(Some(Arc::new(literal))),
            external: Mutex::new(Vec::new()),
        })
    }

    /// A buffer on `device` with the array at `data` (host memory laid out
    /// with `byte_strides`, or row-major when `None`).
    ///
    /// # Safety
    /// `data` must point to the whole array as `byte_strides` (or the
    /// row-major layout) describes it.
    pub(crate) unsafe fn from_host(
        data: *const u8,
        element_type: PrimitiveType,
        dims: &[i64],
        byte_strides: Option<&[i64]>,
        device: *mut PJRT_Device,
    ) -> Result<Buffer> {
        if let Some(d) = dims.iter().find(|d| **d < 0) {
            return Err(Error::invalid(format!("dimension {d} is negative")));
        }
        let shape = ArrayShape::new(element_type, dims.to_vec());
        let len = shape
            .byte_size()
            .map_err(|e| Error::invalid(e.to_string()))? as usize;
        // Every byte is written below: no zeroing first.
        let mut storage = AlignedBytes::try_for_overwrite(len).map_err(|_| {
            Error::new(
                PJRT_Error_Code_RESOURCE_EXHAUSTED,
                format!("no memory for a buffer of {len} bytes"),
            )
        })?;
        let out = storage.as_mut_slice();
        if !out.is_empty() {
            if data.is_null() {
                return Err(Error::invalid("the host buffer's data pointer is null"));
            }
            let size = element_type.byte_size();
            match byte_strides {
                Some(strides) if strides.len() != dims.len() => {
                    return Err(Error::invalid(format!(
                        "{} byte strides for a rank-{} array",
                        strides.len(),
                        dims.len()
                    )))
                }
                Some(strides) if strides != row_major_strides(dims, size) => {
                    // SAFETY: the caller's layout covers every element.
                    unsafe { gather(out, data, dims, strides, size) }
                }
                // SAFETY: a row-major array of `out.len()` bytes at `data`.
                _ => out.copy_from_slice(unsafe { std::slice::from_raw_parts(data, out.len()) }),
            }
        }
        let literal = Literal::from_storage(shape, Storage::Owned(storage))
            .map_err(|e| Error::invalid(e.to_string()))?;
        Buffer::new(literal, device)
    }

    /// The contents, or an error if the buffer was deleted or donated.
    pub(crate) fn contents(&self) -> Result<Arc<Literal>> {
        self.lock().clone().ok_or_else(deleted)
    }

    /// Takes the contents out (deleting the buffer): the literal itself
    /// when no execution shares it, else a copy.
    pub(crate) fn take(&self) -> Result<Literal> {
        let contents = self.lock().take().ok_or_else(deleted)?;
        Ok(Arc::try_unwrap(contents).unwrap_or_else(|shared| (*shared).clone()))
    }

    /// Frees the contents; the buffer stays, deleted.
    pub(crate) fn delete(&self) {
        self.lock().take();
    }

    /// Whether the contents are gone.
    pub(crate) fn is_deleted(&self) -> bool {
        self.lock().is_none()
    }

    /// Pins the contents for an external reference.
    pub(crate) fn add_external_reference(&self) -> Result<()> {
        let contents = self.contents()?;
        self.external
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(contents);
        Ok(())
    }

    /// Drops one external reference.
    pub(crate) fn drop_external_reference(&self) -> Result<()> {
        let mut external = self.external.lock().unwrap_or_else(|e| e.into_inner());
        external.pop().map(drop).ok_or_else(|| {
            Error::new(
                PJRT_Error_Code_FAILED_PRECONDITION,
                "the buffer has no external reference to drop",
            )
        })
    }

    /// The contents' size in bytes (row-major, dense).
    pub(crate) fn byte_size(&self) -> usize {
        let elements: i64 = self.dims.iter().product();
        elements as usize * self.element_type.byte_size()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<Literal>>> {
        self.contents.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Handle for Buffer {
    const KIND: Kind = Kind::Buffer;
}

fn deleted() -> Error {
    Error::new(
        PJRT_Error_Code_FAILED_PRECONDITION,
        "the buffer has been deleted or donated",
    )
}

/// The byte strides of a row-major array.
pub(crate) fn row_major_strides(dims: &[i64], element_size: usize) -> Vec<i64> {
    let mut strides = vec![element_size as i64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
}

/// Copies the strided array at `data` into row-major `out`.
///
/// # Safety
/// Every element offset `Σ index[i]·strides[i]` must be readable at `data`.
unsafe fn gather(out: &mut [u8], data: *const u8, dims: &[i64], strides: &[i64], size: usize) {
    let mut index = vec![0i64; dims.len()];
    for chunk in out.chunks_exact_mut(size) {
        let offset: i64 = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        // SAFETY: the caller guarantees the offset is in the host buffer.
        let src = unsafe { std::slice::from_raw_parts(data.offset(offset as isize), size) };
        chunk.copy_from_slice(src);
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}
