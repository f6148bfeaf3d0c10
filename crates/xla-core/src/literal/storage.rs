//! Byte storage for array literals: 64-byte-aligned owned memory, or a
//! read-only view into a memory-mapped file.
//!
//! Large owned buffers are recycled: when one is dropped, its allocation
//! goes to a process-wide, size-bucketed, bounded cache, and
//! [`AlignedBytes::for_overwrite`] takes it back. A fresh multi-MiB
//! allocation costs a page fault per 4 KiB page on first write (a 64 MiB
//! buffer: about 27 ms on a Zen 5 core, against 2 ms to rewrite resident
//! memory), so a loop that produces one large result per iteration would
//! otherwise spend most of its time in the kernel's page-fault handler.

use std::alloc::{self, Layout as AllocLayout};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

/// Alignment of owned literal buffers: a cache line, enough for any vector load.
pub const BUFFER_ALIGN: usize = 64;

/// Owned, initialised, 64-byte-aligned bytes.
pub struct AlignedBytes {
    ptr: NonNull<u8>,
    len: usize,
    /// Bytes allocated (≥ `len`): the size class of recyclable buffers.
    capacity: usize,
}

// SAFETY: AlignedBytes owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBytes {}
// SAFETY: shared access only reads.
unsafe impl Sync for AlignedBytes {}

impl AlignedBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> Self {
        Self::allocate_zeroed(len, size_class(len))
    }

    /// `len` bytes with unspecified contents (possibly an earlier buffer's
    /// data), for a buffer the caller overwrites completely. Sizes of at
    /// least 1 MiB reuse a recently freed allocation of the same size class
    /// when there is one, so its pages are already mapped.
    pub fn for_overwrite(len: usize) -> Self {
        let capacity = size_class(len);
        if capacity >= RECYCLE_MIN_BYTES {
            if let Some(ptr) = RECYCLER.take(capacity) {
                return AlignedBytes { ptr, len, capacity };
            }
        }
        Self::allocate_zeroed(len, capacity)
    }

    /// Drops every recycled allocation held by the process-wide cache
    /// (for example before measuring a program's peak memory).
    pub fn release_recycled() {
        RECYCLER.clear();
    }

    fn allocate_zeroed(len: usize, capacity: usize) -> Self {
        let layout = Self::layout(capacity);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        AlignedBytes { ptr, len, capacity }
    }

    /// A copy of `bytes`.
    pub fn copy_from(bytes: &[u8]) -> Self {
        let mut out = Self::for_overwrite(bytes.len());
        out.as_mut_slice().copy_from_slice(bytes);
        out
    }

    /// The allocation's layout; an empty buffer still allocates one byte so
    /// that its pointer is real and aligned.
    fn layout(capacity: usize) -> AllocLayout {
        AllocLayout::from_size_align(capacity.max(1), BUFFER_ALIGN)
            .expect("buffer size overflows isize")
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
        if self.capacity >= RECYCLE_MIN_BYTES {
            if let Some(ptr) = RECYCLER.put(self.ptr, self.capacity) {
                // SAFETY: allocated in `allocate_zeroed` with this capacity.
                unsafe { alloc::dealloc(ptr.as_ptr(), Self::layout(self.capacity)) }
            }
            return;
        }
        // SAFETY: allocated in `allocate_zeroed` with this capacity.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), Self::layout(self.capacity)) }
    }
}

/// Buffers of at least this many bytes are recycled (1 MiB).
const RECYCLE_MIN_BYTES: usize = 1 << 20;

/// The most bytes the recycler holds (256 MiB); a buffer freed into a full
/// cache evicts the oldest ones.
const RECYCLE_MAX_BYTES: usize = 256 << 20;

/// The allocation size for a buffer of `len` bytes: `len` itself below
/// [`RECYCLE_MIN_BYTES`], else `len` rounded up to a multiple of an eighth
/// of the largest power of two ≤ `len` (eight classes per octave, at most
/// 12.5% unused). Examples: 64 MiB → 64 MiB; 64 MiB + 1 → 72 MiB;
/// 3 MiB → 3 MiB; 3 MiB + 5 → 3.25 MiB.
fn size_class(len: usize) -> usize {
    if len < RECYCLE_MIN_BYTES {
        return len;
    }
    let step = (1usize << len.ilog2()) / 8;
    len.div_ceil(step) * step
}

/// Freed allocations by capacity, oldest first.
struct Recycler {
    free: Mutex<RecycledList>,
}

#[derive(Default)]
struct RecycledList {
    buffers: Vec<(usize, RecycledPtr)>,
    bytes: usize,
}

/// A freed allocation owned by the recycler.
struct RecycledPtr(NonNull<u8>);

// SAFETY: the recycler owns the allocation exclusively.
unsafe impl Send for RecycledPtr {}

static RECYCLER: Recycler = Recycler {
    free: Mutex::new(RecycledList {
        buffers: Vec::new(),
        bytes: 0,
    }),
};

impl Recycler {
    fn list(&self) -> std::sync::MutexGuard<'_, RecycledList> {
        self.free.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The most recently freed allocation of exactly `capacity` bytes.
    fn take(&self, capacity: usize) -> Option<NonNull<u8>> {
        let mut list = self.list();
        let at = list.buffers.iter().rposition(|(c, _)| *c == capacity)?;
        let (_, RecycledPtr(ptr)) = list.buffers.remove(at);
        list.bytes -= capacity;
        Some(ptr)
    }

    /// Keeps `ptr` (an allocation of `capacity` bytes), evicting the oldest
    /// allocations to stay within the bound; gives back what the caller
    /// must free (`ptr` itself when it alone exceeds the bound).
    fn put(&self, ptr: NonNull<u8>, capacity: usize) -> Option<NonNull<u8>> {
        if capacity > RECYCLE_MAX_BYTES {
            return Some(ptr);
        }
        let evicted: Vec<(usize, RecycledPtr)> = {
            let mut list = self.list();
            let mut excess = (list.bytes + capacity).saturating_sub(RECYCLE_MAX_BYTES);
            let mut n = 0;
            while excess > 0 {
                excess = excess.saturating_sub(list.buffers[n].0);
                n += 1;
            }
            let evicted = list.buffers.drain(..n).collect::<Vec<_>>();
            list.bytes -= evicted.iter().map(|(c, _)| c).sum::<usize>();
            list.buffers.push((capacity, RecycledPtr(ptr)));
            list.bytes += capacity;
            evicted
        };
        for (capacity, RecycledPtr(ptr)) in evicted {
            // SAFETY: allocated by `AlignedBytes` with this capacity.
            unsafe { alloc::dealloc(ptr.as_ptr(), AlignedBytes::layout(capacity)) }
        }
        None
    }

    fn clear(&self) {
        let buffers = std::mem::take(&mut *self.list());
        for (capacity, RecycledPtr(ptr)) in buffers.buffers {
            // SAFETY: allocated by `AlignedBytes` with this capacity.
            unsafe { alloc::dealloc(ptr.as_ptr(), AlignedBytes::layout(capacity)) }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes() {
        const MIB: usize = 1 << 20;
        assert_eq!(size_class(0), 0);
        assert_eq!(size_class(MIB - 1), MIB - 1);
        assert_eq!(size_class(MIB), MIB);
        assert_eq!(size_class(64 * MIB), 64 * MIB);
        assert_eq!(size_class(64 * MIB + 1), 72 * MIB);
        assert_eq!(size_class(3 * MIB), 3 * MIB);
        assert_eq!(size_class(3 * MIB + 5), 3 * MIB + MIB / 4);
    }

    #[test]
    fn large_buffers_are_recycled_within_their_class() {
        // A size class no other test of this crate allocates.
        let len = 37 * (1 << 20) + 12345;
        let mut first = AlignedBytes::for_overwrite(len);
        assert_eq!(first.as_slice().len(), len);
        first.as_mut_slice()[len - 1] = 7;
        let address = first.as_slice().as_ptr();
        drop(first);
        let again = AlignedBytes::for_overwrite(len - 100);
        assert_eq!(again.as_slice().as_ptr(), address);
        assert_eq!(again.as_slice().len(), len - 100);
        assert_eq!(again.as_slice().as_ptr() as usize % BUFFER_ALIGN, 0);
        let zeroed = AlignedBytes::zeroed(len);
        assert!(zeroed.as_slice().iter().all(|&b| b == 0));
    }
}
