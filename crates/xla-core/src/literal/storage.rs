//! Byte storage for array literals: 64-byte-aligned owned memory, or a
//! read-only view into a memory-mapped file.

use std::alloc::{self, Layout as AllocLayout};
use std::ptr::NonNull;
use std::sync::Arc;

/// Alignment of owned literal buffers: a cache line, enough for any vector load.
pub const BUFFER_ALIGN: usize = 64;

/// Owned, zero-initialised, 64-byte-aligned bytes.
pub struct AlignedBytes {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: AlignedBytes owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBytes {}
// SAFETY: shared access only reads.
unsafe impl Sync for AlignedBytes {}

impl AlignedBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        let layout = Self::layout(len);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        AlignedBytes { ptr, len }
    }

    /// A copy of `bytes`.
    pub fn copy_from(bytes: &[u8]) -> Self {
        let mut out = Self::zeroed(bytes.len());
        out.as_mut_slice().copy_from_slice(bytes);
        out
    }

    /// The allocation's layout; an empty buffer still allocates one byte so
    /// that its pointer is real and aligned.
    fn layout(len: usize) -> AllocLayout {
        AllocLayout::from_size_align(len.max(1), BUFFER_ALIGN).expect("buffer size overflows isize")
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
    }
}

impl Clone for AlignedBytes {
    fn clone(&self) -> Self {
        Self::copy_from(self.as_slice())
    }
}

impl std::fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBytes({} bytes)", self.len)
    }
}

/// Where an array literal's bytes live.
#[derive(Clone, Debug)]
pub enum Storage {
    /// Owned memory.
    Owned(AlignedBytes),
    /// A read-only range of a memory-mapped file (copied on first write).
    Mapped {
        /// The mapping, shared by every literal that views it.
        map: Arc<memmap2::Mmap>,
        /// Byte offset of the data in the mapping.
        offset: usize,
        /// Byte length of the data.
        len: usize,
    },
}

impl Storage {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(b) => b.as_slice(),
            Storage::Mapped { map, offset, len } => &map[*offset..*offset + *len],
        }
    }

    /// The bytes, mutably; a mapped range is first copied into owned memory.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        if let Storage::Mapped { .. } = self {
            *self = Storage::Owned(AlignedBytes::copy_from(self.bytes()));
        }
        match self {
            Storage::Owned(b) => b.as_mut_slice(),
            Storage::Mapped { .. } => unreachable!("converted to owned above"),
        }
    }

    /// `true` if the bytes are a view into a mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self, Storage::Mapped { .. })
    }
}
