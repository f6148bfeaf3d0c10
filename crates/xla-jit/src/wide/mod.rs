//! Native AVX-512 and AVX2 code for the kernels Cranelift cannot widen.
//!
//! Cranelift's x86-64 backend emits 128-bit vectors; the processors this
//! project runs on execute 256-bit (AVX2) or 512-bit (AVX-512) ones at the
//! same instruction rate, so a kernel bound by its arithmetic (a GELU: a
//! tanh per element and eight multiplies and adds) runs up to two or four
//! times as fast. This module emits such kernels itself: an encoder for
//! the instructions they use (`asm`), a small SSA of vector values with a
//! linear-scan register allocator, lowered at either width (`ir`), and
//! executable memory for the result ([`Code`]). `emit::native` decides
//! which fusions it takes and builds their loops; every other kernel is
//! Cranelift's.
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

/// `true` if the CPU runs AVX512_BF16 (`vdpbf16ps`, pairs of bf16
/// products summed into f32 lanes).
pub fn cpu_has_avx512_bf16() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            cpu_has_avx512() && std::arch::is_x86_feature_detected!("avx512bf16")
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            false
        }
    })
}

/// The processor family (CPUID's, extended family added) on an x86-64
/// processor whose vendor string is `AuthenticAMD`; `None` on others.
pub fn amd_family() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        let id = std::arch::x86_64::__cpuid(0);
        let vendor = |r: u32| r.to_le_bytes();
        let amd = [vendor(id.ebx), vendor(id.edx), vendor(id.ecx)].concat() == b"AuthenticAMD";
        let signature = std::arch::x86_64::__cpuid(1).eax;
        let base = (signature >> 8) & 0xF;
        let family = if base == 0xF {
            base + ((signature >> 20) & 0xFF)
        } else {
            base
        };
        amd.then_some(family)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// The width of a native kernel's vectors.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Width {
    /// 512 bits, sixteen f32 lanes: EVEX, `zmm0`–`zmm31`, opmasks.
    Zmm,
    /// 256 bits, eight f32 lanes: VEX, `ymm0`–`ymm15`.
    Ymm,
}

impl Width {
    /// f32 lanes per vector.
    pub fn lanes(self) -> i64 {
        match self {
            Width::Zmm => 16,
            Width::Ymm => 8,
        }
    }

    /// Bytes per vector.
    pub fn bytes(self) -> i32 {
        4 * self.lanes() as i32
    }
}

/// `true` if the CPU runs AVX2 and FMA (and the OS saves the `ymm`
/// registers): the emitters may use this module at 256 bits.
pub fn cpu_has_avx2() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(all(target_arch = "x86_64", unix))]
        {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(all(target_arch = "x86_64", unix)))]
        {
            false
        }
    })
}

/// `true` if the CPU runs native kernels of `width` (a CPU with AVX-512
/// has AVX2 and FMA too).
pub fn cpu_runs(width: Width) -> bool {
    match width {
        Width::Zmm => cpu_has_avx512(),
        Width::Ymm => cpu_has_avx2(),
    }
}

/// The vector width of this CPU's native kernels: 512 bits with AVX-512,
/// else 256 with AVX2 and FMA, else none (every kernel is Cranelift's).
pub fn native_width() -> Option<Width> {
    if cpu_has_avx512() {
        Some(Width::Zmm)
    } else if cpu_has_avx2() {
        Some(Width::Ymm)
    } else {
        None
    }
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
