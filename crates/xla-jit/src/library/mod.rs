//! Library routines: instructions that no kernel compiles but a library
//! computes well (Fourier transforms today), run on whole buffers.
//!
//! A routine is chosen at compile time ([`Routine::new`]), which plans it
//! (an FFT's twiddles and factorization); the runtime hands it the
//! addresses of its operands and results in the default (row-major)
//! layout, which lowering arranges with copies where the instruction's
//! layouts differ.

mod fft;

use xla_core::hlo::{HloInstruction, Opcode};
use xla_core::Shape;

use crate::runtime::pool::ThreadPool;
use fft::FftRoutine;

/// A library routine for one instruction.
pub(crate) enum Routine {
    /// `fft` (every type, rank 1 to 3).
    Fft(FftRoutine),
}

impl Routine {
    /// The routine that runs `instr` on operands of `operands`' shapes, or
    /// `None` when no library runs it (the interpreter does).
    pub fn new(instr: &HloInstruction, operands: &[&Shape]) -> Option<Self> {
        match (instr.opcode, operands) {
            (Opcode::Fft, [operand]) => FftRoutine::new(instr, operand).map(Routine::Fft),
            _ => None,
        }
    }

    /// Computes the results from the operands.
    ///
    /// # Safety
    ///
    /// `inputs[i]` is a live buffer holding operand leaf `i` and
    /// `outputs[j]` one for result leaf `j`, all row-major and aligned; no
    /// output overlaps another buffer.
    pub unsafe fn run(&self, inputs: &[*const u8], outputs: &[*mut u8], pool: &ThreadPool) {
        match self {
            // SAFETY: one operand and one result, as the caller promises.
            Routine::Fft(fft) => unsafe { fft.run(inputs[0], outputs[0], pool) },
        }
    }

    /// What the routine computes, for dumps and profiles.
    pub fn describe(&self) -> String {
        match self {
            Routine::Fft(fft) => fft.describe(),
        }
    }
}

/// `len` elements at `start`, shared by the tasks of one routine, each of
/// which touches its own part.
pub(crate) struct Span<T> {
    start: *mut T,
    pub len: usize,
}

impl<T> Clone for Span<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Span<T> {}

// SAFETY: a span is an address; the tasks that share one touch disjoint
// elements (or only read), which every `slice` call promises.
unsafe impl<T: Send> Send for Span<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Span<T> {}

impl<T> Span<T> {
    pub fn new(start: *mut T, len: usize) -> Self {
        Span { start, len }
    }

    /// Elements `[at, at + len)`.
    ///
    /// # Safety
    ///
    /// The range lies in the span, and while the slice lives no other
    /// slice overlapping it is written.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, at: usize, len: usize) -> &mut [T] {
        debug_assert!(at + len <= self.len);
        // SAFETY: as the caller promises.
        unsafe { std::slice::from_raw_parts_mut(self.start.add(at), len) }
    }
}

impl<T: Copy> Span<T> {
    /// Copies `width` strided lines of `n` elements into `lines`, one after
    /// another: line `j`'s element `k` is the span's element
    /// `base + k·stride + j`.
    ///
    /// # Safety
    ///
    /// Those elements lie in the span and nobody writes them meanwhile;
    /// `lines` holds at least `width·n` elements.
    pub unsafe fn gather(
        &self,
        lines: &mut [T],
        base: usize,
        stride: usize,
        n: usize,
        width: usize,
    ) {
        debug_assert!(
            lines.len() >= width * n && (n == 0 || base + (n - 1) * stride + width <= self.len)
        );
        let out = lines.as_mut_ptr();
        for k in 0..n {
            // SAFETY: as the caller promises.
            unsafe {
                let row = self.start.add(base + k * stride);
                for j in 0..width {
                    *out.add(j * n + k) = *row.add(j);
                }
            }
        }
    }

    /// The inverse of [`gather`](Self::gather): `lines` back into the span.
    ///
    /// # Safety
    ///
    /// As for `gather`, and nobody else touches those elements meanwhile.
    pub unsafe fn scatter(&self, lines: &[T], base: usize, stride: usize, n: usize, width: usize) {
        debug_assert!(
            lines.len() >= width * n && (n == 0 || base + (n - 1) * stride + width <= self.len)
        );
        let from = lines.as_ptr();
        for k in 0..n {
            // SAFETY: as the caller promises.
            unsafe {
                let row = self.start.add(base + k * stride);
                for j in 0..width {
                    *row.add(j) = *from.add(j * n + k);
                }
            }
        }
    }
}
