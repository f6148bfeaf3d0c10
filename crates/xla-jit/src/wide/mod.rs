//! Native AVX-512 code for the kernels Cranelift cannot widen.
//!
//! Cranelift's x86-64 backend emits 128-bit vectors; the processors this
//! project runs on execute 512-bit ones at the same instruction rate, so a
//! kernel bound by its arithmetic (a GELU: a tanh per element and eight
//! multiplies and adds) runs up to four times as fast at 512 bits. This
//! module emits such kernels itself: an encoder for the instructions they
//! use (`asm`), a small SSA of 512-bit values with a linear-scan register
//! allocator (`ir`), and executable memory for the result ([`Code`]).
//! `emit::avx512` decides which fusions it takes (flat elementwise f32
//! loops) and builds their loops; every other kernel is Cranelift's.
//!
//! The math functions are the same code as the 128-bit kernels' (generic
//! over `math::LaneOps`), so both widths give the same bits.

pub(crate) mod asm;
pub(crate) mod ir;

use std::sync::OnceLock;

/// `true` if the CPU runs AVX-512F (and the OS saves its registers), so
/// that the emitters may use this module.
pub fn cpu_has_avx512() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            std::arch::is_x86_feature_detected!("avx512f")
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            false
        }
    })
}

/// Machine code in executable memory, freed when dropped.
pub struct Code {
    map: memmap2::Mmap,
}

impl Code {
    /// Copies `bytes` into fresh memory and makes it executable (and no
    /// longer writable).
    pub fn new(bytes: &[u8]) -> std::io::Result<Code> {
        let mut map = memmap2::MmapMut::map_anon(bytes.len().max(1))?;
        map[..bytes.len()].copy_from_slice(bytes);
        Ok(Code {
            map: map.make_exec()?,
        })
    }

    /// The address of the first byte.
    pub fn ptr(&self) -> *const u8 {
        self.map.as_ptr()
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Code({} bytes at {:p})",
            self.map.len(),
            self.map.as_ptr()
        )
    }
}
