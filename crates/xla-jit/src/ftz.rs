//! The floating-point mode kernels run in: subnormals flushed to zero.
//!
//! The project rule (`docs/semantics.md`, *Flush to zero*) treats f32/f64 subnormal inputs
//! as zeros of the same sign and replaces subnormal results by zeros. On
//! x86-64 the MXCSR register does exactly that for SSE/AVX arithmetic with
//! two bits: DAZ (denormals are zero, bit 6) for inputs and FTZ (flush to
//! zero, bit 15) for results. The runtime holds an [`FtzGuard`] on the
//! calling thread while it runs kernels and dots, and the thread pool runs
//! every task in its caller's mode ([`with_flush_mode`]);
//! emitters flush explicitly where a result is *selected* rather than
//! computed (max, min, rounding functions), which the mode does not cover.
//!
//! ```
//! use xla_jit::ftz::FtzGuard;
//!
//! let tiny = std::hint::black_box(1e-40f32);
//! {
//!     let _guard = FtzGuard::new();
//!     assert_eq!(std::hint::black_box(tiny) * 1.0, 0.0);
//! }
//! assert_eq!(std::hint::black_box(tiny) * 1.0, 1e-40);
//! ```

/// Sets DAZ and FTZ on the current thread; restores the previous MXCSR when
/// dropped. Not `Send`: the mode is per thread.
pub struct FtzGuard {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
    _not_send: std::marker::PhantomData<*const ()>,
}

/// MXCSR bit 6: denormal inputs read as zero.
pub const DAZ: u32 = 1 << 6;
/// MXCSR bit 15: denormal results are flushed to zero.
pub const FTZ: u32 = 1 << 15;

impl FtzGuard {
    /// Enables flush-to-zero on this thread until the guard drops.
    #[cfg(target_arch = "x86_64")]
    pub fn new() -> Self {
        let saved = read_mxcsr();
        write_mxcsr(saved | DAZ | FTZ);
        FtzGuard {
            saved,
            _not_send: std::marker::PhantomData,
        }
    }

    /// Enables flush-to-zero on this thread until the guard drops (a no-op
    /// on targets without MXCSR).
    #[cfg(not(target_arch = "x86_64"))]
    pub fn new() -> Self {
        FtzGuard {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Default for FtzGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for FtzGuard {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        write_mxcsr(self.saved);
    }
}

/// Runs `f` with DAZ and FTZ cleared (restoring the mode afterwards): host
/// helpers called from kernels use it where the rule they implement keeps
/// subnormals (`f64 → bf16` can produce one).
#[cfg(target_arch = "x86_64")]
pub fn without_ftz<T>(f: impl FnOnce() -> T) -> T {
    let saved = read_mxcsr();
    write_mxcsr(saved & !(DAZ | FTZ));
    let r = f();
    write_mxcsr(saved);
    r
}

/// The current thread's flush mode: its MXCSR's DAZ and FTZ bits.
#[cfg(target_arch = "x86_64")]
pub fn flush_mode() -> u32 {
    read_mxcsr() & (DAZ | FTZ)
}

/// The current thread's flush mode (none on targets without MXCSR).
#[cfg(not(target_arch = "x86_64"))]
pub fn flush_mode() -> u32 {
    0
}

/// Runs `f` in flush mode `mode` (a [`flush_mode`] of another thread),
/// restoring this thread's mode afterwards: a thread pool's workers run a
/// caller's tasks in the caller's mode.
#[cfg(target_arch = "x86_64")]
pub fn with_flush_mode<T>(mode: u32, f: impl FnOnce() -> T) -> T {
    let saved = read_mxcsr();
    write_mxcsr((saved & !(DAZ | FTZ)) | (mode & (DAZ | FTZ)));
    let r = f();
    write_mxcsr(saved);
    r
}

/// Runs `f` (targets without MXCSR have no flush mode).
#[cfg(not(target_arch = "x86_64"))]
pub fn with_flush_mode<T>(_mode: u32, f: impl FnOnce() -> T) -> T {
    f()
}

/// Runs `f` (targets without MXCSR have no flush mode to clear).
#[cfg(not(target_arch = "x86_64"))]
pub fn without_ftz<T>(f: impl FnOnce() -> T) -> T {
    f()
}

/// The current thread's MXCSR.
#[cfg(target_arch = "x86_64")]
pub fn read_mxcsr() -> u32 {
    let mut value: u32 = 0;
    // SAFETY: `stmxcsr` stores the 32-bit MXCSR to the given address, a
    // local variable; SSE is part of the x86-64 baseline.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack, preserves_flags));
    }
    value
}

#[cfg(target_arch = "x86_64")]
fn write_mxcsr(value: u32) {
    // SAFETY: `ldmxcsr` loads MXCSR from the given address; the values we
    // write differ from a valid MXCSR only in the DAZ/FTZ bits (both
    // supported on every x86-64 CPU with SSE2 and later) or are the value
    // read before.
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack, preserves_flags));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn sets_and_restores_the_mode() {
        let before = read_mxcsr();
        {
            let _g = FtzGuard::new();
            assert_eq!(read_mxcsr() & (DAZ | FTZ), DAZ | FTZ);
            let x = std::hint::black_box(1e-20f32);
            assert_eq!(x * x, 0.0);
            let sub = std::hint::black_box(-1e-40f32);
            assert!(sub + 0.0 == 0.0);
            let kept = without_ftz(|| std::hint::black_box(sub) * 1.0);
            assert_eq!(kept, -1e-40);
            assert_eq!(read_mxcsr() & (DAZ | FTZ), DAZ | FTZ);
        }
        assert_eq!(read_mxcsr(), before);
    }
}
