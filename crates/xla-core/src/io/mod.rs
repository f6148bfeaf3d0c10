//! Array files: NumPy `.npy` and safetensors, read into [`Literal`](crate::Literal)s and
//! written from them.
//!
//! Files of at least [`MMAP_THRESHOLD`] bytes are memory-mapped, and an
//! array whose data sits at an offset aligned for its element type, in the
//! host's byte order, becomes a literal viewing the mapping
//! ([`Storage::Mapped`]) without a copy. Everything else (small files,
//! byte-swapped data, misaligned data, and `pred` data, which is validated
//! while copied) is copied into owned storage.
//!
//! Mapping a file is sound as long as no one truncates or rewrites it while
//! literals view it: every bit pattern is a valid value of the non-pred
//! element types, and pred data is never viewed in place.
//!
//! ```no_run
//! use xla_core::io::{read_npy, write_npy, NpyOptions};
//! let x = read_npy("x.npy", &NpyOptions::default())?;
//! write_npy("copy.npy", &x)?;
//! # Ok::<(), xla_core::io::IoError>(())
//! ```

mod npy;
mod npy_header;
mod safetensors;

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use npy::{decode_npy, encode_npy, read_npy, write_npy, NpyOptions, NpyVersion};
pub use safetensors::{
    decode_safetensors, encode_safetensors, read_safetensors, write_safetensors,
};

use crate::literal::{AlignedBytes, LiteralError, Storage};
use crate::{PrimitiveType, Shape};

/// Files at least this large (in bytes) are memory-mapped rather than read.
pub const MMAP_THRESHOLD: u64 = 1 << 16;

/// An array file that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("{}{kind}", PathPrefix(path.as_deref()))]
pub struct IoError {
    /// The file, when there is one (in-memory decoding has none).
    pub path: Option<PathBuf>,
    /// What is wrong.
    pub kind: IoErrorKind,
}

/// What is wrong with an array file.
#[derive(Debug, thiserror::Error)]
pub enum IoErrorKind {
    /// The operating system refused (open, read, map, create, write).
    #[error("cannot {action}: {source}")]
    Os {
        /// What was attempted.
        action: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file does not start with `\x93NUMPY`.
    #[error("not a .npy file: it starts with {found}, not the magic string \\x93NUMPY")]
    BadMagic {
        /// The first bytes, escaped.
        found: String,
    },
    /// A `.npy` format version other than 1.0, 2.0 and 3.0.
    #[error(
        "unsupported .npy format version {major}.{minor} (versions 1.0, 2.0 and 3.0 are read)"
    )]
    UnsupportedVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The file ends too early.
    #[error("truncated file: the {what} needs {needed} bytes, but only {available} remain")]
    Truncated {
        /// The part that is cut off.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes there are.
        available: u64,
    },
    /// A header longer than the reader accepts.
    #[error("the header is {len} bytes long, more than the limit of {limit} bytes")]
    HeaderTooLarge {
        /// The header length the file declares.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// A header that does not parse or lacks what it must hold.
    #[error("malformed header: {detail}; header: {header:?}")]
    BadHeader {
        /// What is wrong, with the column where it went wrong.
        detail: String,
        /// The header text.
        header: String,
    },
    /// A dtype this crate has no element type for.
    #[error("unsupported dtype {dtype:?}{hint}")]
    UnsupportedDtype {
        /// The dtype as the file spells it.
        dtype: String,
        /// Extra explanation (may be empty).
        hint: &'static str,
    },
    /// The file's element type is not the one asked for.
    #[error("the file holds dtype {dtype:?}, not the requested {requested}")]
    TypeMismatch {
        /// The dtype as the file spells it.
        dtype: String,
        /// The requested element type.
        requested: PrimitiveType,
    },
    /// A shape whose element or byte count overflows.
    #[error("shape {shape:?} has more elements or bytes than fit in 64 bits")]
    SizeOverflow {
        /// The dimension sizes as written.
        shape: Vec<u64>,
    },
    /// Data of the wrong length for the shape.
    #[error("the shape needs {expected} bytes of data, but the file holds {actual}")]
    SizeMismatch {
        /// Bytes the shape and dtype need.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// Bool data holding a byte other than 0 or 1.
    #[error("bool data byte {offset} holds {byte}; bool elements are 0 or 1")]
    InvalidBool {
        /// Offset of the byte within the array's data.
        offset: u64,
        /// The byte.
        byte: u8,
    },
    /// A safetensors file that the format rejects.
    #[error("malformed safetensors file: {detail}")]
    Safetensors {
        /// What is wrong.
        detail: String,
    },
    /// Two tensors of the same name given for writing.
    #[error("tensor name {name:?} appears twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// A problem with one tensor of a safetensors file.
    #[error("tensor {name:?}: {kind}")]
    Tensor {
        /// The tensor's name.
        name: String,
        /// What is wrong with it.
        kind: Box<IoErrorKind>,
    },
    /// A tuple, token or opaque literal given for writing.
    #[error("only arrays can be written, not a literal of shape {shape}")]
    NotArray {
        /// The literal's shape.
        shape: Box<Shape>,
    },
    /// The literal could not be built or relaid.
    #[error(transparent)]
    Literal(Box<LiteralError>),
}

impl From<LiteralError> for IoErrorKind {
    fn from(e: LiteralError) -> Self {
        IoErrorKind::Literal(Box::new(e))
    }
}

impl IoError {
    fn at(path: &Path, kind: IoErrorKind) -> Self {
        IoError {
            path: Some(path.to_path_buf()),
            kind,
        }
    }
}

impl From<IoErrorKind> for IoError {
    fn from(kind: IoErrorKind) -> Self {
        IoError { path: None, kind }
    }
}

struct PathPrefix<'a>(Option<&'a Path>);

impl fmt::Display for PathPrefix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{}: ", p.display()),
            None => Ok(()),
        }
    }
}

/// A whole file's bytes: mapped when large, read otherwise.
enum FileBytes {
    Mapped(Arc<memmap2::Mmap>),
    Read(Vec<u8>),
}

impl FileBytes {
    fn open(path: &Path) -> Result<Self, IoError> {
        let os = |action| move |source| IoError::at(path, IoErrorKind::Os { action, source });
        let mut file = File::open(path).map_err(os("open"))?;
        let len = file.metadata().map_err(os("read"))?.len();
        if len < MMAP_THRESHOLD {
            let mut bytes = Vec::with_capacity(len as usize);
            std::io::Read::read_to_end(&mut file, &mut bytes).map_err(os("read"))?;
            return Ok(FileBytes::Read(bytes));
        }
        // SAFETY: see the module documentation: the mapping is read-only and
        // every literal viewing it holds only types valid for any bit pattern.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(os("map"))?;
        Ok(FileBytes::Mapped(Arc::new(map)))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// How an array's data must be transformed on its way into a literal.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Fixup {
    /// Native byte order, any bit pattern valid: a view or a plain copy.
    None,
    /// Swap the bytes of each `n`-byte unit (an element or a complex
    /// component).
    Swap(usize),
    /// Bool data: check every byte is 0 or 1 while copying.
    Bool,
}

/// The storage for `data = file[offset..offset + len]` of element type `ty`:
/// a view of the mapping when possible, a (fixed-up) copy otherwise.
fn storage_for(
    file: Option<&Arc<memmap2::Mmap>>,
    data: &[u8],
    offset: usize,
    ty: PrimitiveType,
    fixup: Fixup,
) -> Result<Storage, IoErrorKind> {
    match fixup {
        Fixup::None => {
            let align = crate::dispatch_native!(ty, T => std::mem::align_of::<T>());
            if let Some(map) = file.filter(|_| offset.is_multiple_of(align) && !data.is_empty()) {
                return Ok(Storage::Mapped {
                    map: Arc::clone(map),
                    offset,
                    len: data.len(),
                });
            }
            Ok(Storage::Owned(AlignedBytes::copy_from(data)))
        }
        Fixup::Swap(unit) => {
            let mut owned = AlignedBytes::copy_from(data);
            for chunk in owned.as_mut_slice().chunks_exact_mut(unit) {
                chunk.reverse();
            }
            Ok(Storage::Owned(owned))
        }
        Fixup::Bool => {
            // Check the copy, not the file: a mapped file could change
            // between a check and a copy.
            let owned = AlignedBytes::copy_from(data);
            let bytes = owned.as_slice();
            if let Some(offset) = bytes.iter().position(|&b| b > 1) {
                return Err(IoErrorKind::InvalidBool {
                    offset: offset as u64,
                    byte: bytes[offset],
                });
            }
            Ok(Storage::Owned(owned))
        }
    }
}
