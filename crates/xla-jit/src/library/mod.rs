//! Library routines: instructions that no kernel compiles but a library
//! computes well (Fourier transforms, dense linear algebra, sorts by one
//! key), run on whole buffers.
//!
//! A routine is chosen at compile time ([`Routine::new`]), which plans it
//! (an FFT's twiddles and factorization, a LAPACK call's flags) and says
//! which layouts it takes ([`Routine::layouts`]: row-major, or
//! column-major matrices for the linear algebra of JAX's custom calls);
//! the runtime hands it the addresses of its operands and results in those
//! layouts, which lowering arranges with copies where the instruction's
//! layouts differ.

mod fft;
mod linalg;
mod sort;

use std::ops::Range;

use xla_core::hlo::{HloInstruction, Opcode};
use xla_core::{HloModule, Shape};

use crate::pool::ThreadPool;
use fft::FftRoutine;
use linalg::LinalgRoutine;
use sort::SortRoutine;

/// A library routine for one instruction.
pub(crate) enum Routine {
    /// `fft` (every type, rank 1 to 3).
    Fft(FftRoutine),
    /// `cholesky`, `triangular-solve` and the LAPACK custom calls.
    Linalg(LinalgRoutine),
    /// `sort` by one operand's elements.
    Sort(SortRoutine),
}

impl Routine {
    /// The routine that runs `instr` (of `module`) on operands of
    /// `operands`' shapes, or `None` when no library runs it.
    pub fn new(module: &HloModule, instr: &HloInstruction, operands: &[&Shape]) -> Option<Self> {
        match (instr.opcode, operands) {
            (Opcode::Sort, _) => SortRoutine::new(module, instr, operands).map(Routine::Sort),
            (Opcode::Fft, [operand]) => FftRoutine::new(instr, operand).map(Routine::Fft),
            (Opcode::Cholesky | Opcode::TriangularSolve | Opcode::CustomCall, _) => {
                LinalgRoutine::new(instr, operands).map(Routine::Linalg)
            }
            _ => None,
        }
    }

    /// The shapes of the buffers the routine reads and writes: the
    /// operands' and the result's shapes, in the layouts it takes.
    pub fn layouts(&self, operands: &[&Shape], result: &Shape) -> (Vec<Shape>, Shape) {
        match self {
            Routine::Fft(_) | Routine::Sort(_) => (
                operands
                    .iter()
                    .map(|&s| s.clone().with_row_major_layouts())
                    .collect(),
                result.clone().with_row_major_layouts(),
            ),
            Routine::Linalg(linalg) => linalg.layouts(operands, result),
        }
    }

    /// Computes the results from the operands.
    ///
    /// # Safety
    ///
    /// `inputs[i]` is a live buffer holding operand leaf `i` and
    /// `outputs[j]` one for result leaf `j`, all in the layouts of
    /// [`Routine::layouts`] and aligned; no output overlaps another buffer.
    pub unsafe fn run(&self, inputs: &[*const u8], outputs: &[*mut u8], pool: &ThreadPool) {
        match self {
            // SAFETY: one operand and one result, as the caller promises.
            Routine::Fft(fft) => unsafe { fft.run(inputs[0], outputs[0], pool) },
            // SAFETY: the leaves of the instruction it was planned for.
            Routine::Linalg(linalg) => unsafe { linalg.run(inputs, outputs, pool) },
            // SAFETY: the operands and results, row-major.
            Routine::Sort(sort) => unsafe { sort.run(inputs, outputs, pool) },
        }
    }

    /// What the routine computes, for dumps and profiles.
    pub fn describe(&self) -> String {
        match self {
            Routine::Fft(fft) => fft.describe(),
            Routine::Linalg(linalg) => linalg.describe(),
            Routine::Sort(sort) => sort.describe(),
        }
    }
}

/// Runs `body` over `0..items` cut into about `tasks` contiguous ranges,
/// on the pool (an empty range is never passed).
pub(crate) fn for_ranges(
    pool: &ThreadPool,
    items: usize,
    tasks: usize,
    body: impl Fn(Range<usize>) + Sync,
) {
    let tasks = tasks.clamp(1, items.max(1));
    let chunk = items.div_ceil(tasks);
    pool.parallel_for(tasks, |task| {
        let first = (task * chunk).min(items);
        let last = (first + chunk).min(items);
        if first < last {
            body(first..last);
        }
    });
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

    /// Elements `[at, at + len)` (none, whatever the address, for `len`
    /// 0: an empty array's buffer may have no address).
    ///
    /// # Safety
    ///
    /// The range lies in the span, and while the slice lives no other
    /// slice overlapping it is written.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, at: usize, len: usize) -> &mut [T] {
        debug_assert!(at + len <= self.len);
        if len == 0 {
            return &mut [];
        }
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
