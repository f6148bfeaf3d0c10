//! The GEMM driver: BLIS-style cache blocking around the micro-kernel, and
//! the split of a (batched) dot into tasks for the thread pool.
//!
//! Parallelization: each task runs the whole serial loop nest on its own
//! slice of the output (a range of batch matrices, or a range of rows or
//! columns of one matrix) with its own packing buffers. Tasks share nothing
//! and need no barrier, at the price of packing the shared operand once per
//! task: for a task of `m'` rows that is `k·n` copies against `2·m'·k·n`
//! flops, under 1% for `m' ≥ 64`. The split follows the larger of the two
//! output dimensions.

use std::cell::Cell;
use std::ops::Add;

use super::epilogue::{Epilogue, OutputBlock};
use super::kernel::MicroKernel;
use super::matrix::{MatrixLayout, StridedMatrixMut};
use half::bf16;

use super::pack::{pack_a, pack_a_pairs, pack_a_window, pack_b, pack_b_pairs, Strided, Widen};
use super::window::WindowDims;
use crate::pool::ThreadPool;

/// A kernel element type: f32 or f64.
pub(crate) trait Float: Widen<Self> + Default + Add<Output = Self> + 'static {
    const ONE: Self;
}

impl Float for f32 {
    const ONE: Self = 1.0;
}

impl Float for f64 {
    const ONE: Self = 1.0;
}

/// The largest `MR·NR` of a micro-kernel (the edge-tile buffer's size).
pub(crate) const MAX_TILE: usize = 512;

/// A (batched) GEMM after validation: `C[b] = A[b]·B[b]` for `b < batch`,
/// `A[b]` is `m×k`, `B[b]` is `k×n`, `C[b]` is `m×n`; strides in elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Problem<S, T> {
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Lhs<S>,
    pub a_batch_stride: usize,
    pub b: Strided<*const S>,
    pub b_batch_stride: usize,
    pub c: Strided<*mut T>,
    pub c_batch_stride: usize,
}

/// The `A` operand of a [`Problem`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lhs<S> {
    /// A strided matrix.
    Strided(Strided<*const S>),
    /// A window view (one matrix): element `(i, p)` at `ptr` plus the
    /// offsets of row `i` of `rows` and column `p` of `cols`.
    Window {
        ptr: *const S,
        rows: WindowDims,
        cols: WindowDims,
    },
}

// SAFETY: as `Strided`'s: an address and its layout; the drivers only read
// `A`.
unsafe impl<S> Send for Lhs<S> {}
// SAFETY: as above.
unsafe impl<S> Sync for Lhs<S> {}

impl<S, T> Problem<S, T> {
    /// `A` when it is a strided matrix (not a window).
    pub fn strided_a(&self) -> Option<Strided<*const S>> {
        match self.a {
            Lhs::Strided(a) => Some(a),
            Lhs::Window { .. } => None,
        }
    }

    /// The threads of `pool` to run on: one below `parallel_min_flops`.
    pub fn threads(&self, pool: &ThreadPool, parallel_min_flops: usize) -> usize {
        let flops = 2usize
            .saturating_mul(self.batch)
            .saturating_mul(self.m)
            .saturating_mul(self.n)
            .saturating_mul(self.k.max(1));
        if flops < parallel_min_flops {
            1
        } else {
            pool.threads()
        }
    }
}

impl<S: Copy, T> Problem<S, T> {
    /// `Cᵀ = Bᵀ·Aᵀ`: the same products with rows and columns swapped;
    /// `None` for a window `A` (`B` cannot be one).
    pub fn transposed(self) -> Option<Self> {
        let t = |s: Strided<*const S>| Strided {
            ptr: s.ptr,
            rs: s.cs,
            cs: s.rs,
        };
        Some(Problem {
            m: self.n,
            n: self.m,
            a: Lhs::Strided(t(self.b)),
            a_batch_stride: self.b_batch_stride,
            b: t(self.strided_a()?),
            b_batch_stride: self.a_batch_stride,
            c: Strided {
                ptr: self.c.ptr,
                rs: self.c.cs,
                cs: self.c.rs,
            },
            ..self
        })
    }
}

/// How a GEMM packs its operands for its micro-kernel.
pub(crate) trait Packer<S, T>: Sync {
    /// Elements of `k` one packed entry (and one kernel step) covers.
    const K_PER_STEP: usize;

    /// Packs `rows×kc` of a strided `A` ([`pack_a`]).
    ///
    /// # Safety
    ///
    /// As [`pack_a`].
    unsafe fn pack_a(
        &self,
        a: Strided<*const S>,
        rows: usize,
        kc: usize,
        kernel: &MicroKernel<T>,
        dst: &mut [T],
    );

    /// Packs `kc×cols` of `B` ([`pack_b`]).
    ///
    /// # Safety
    ///
    /// As [`pack_b`].
    unsafe fn pack_b(&self, b: Strided<*const S>, kc: usize, cols: usize, nr: usize, dst: &mut [T]);
}

/// Each element widened to the kernel's type, one `k` a step.
pub(crate) struct Widening;

impl<S: Widen<T>, T: Float> Packer<S, T> for Widening {
    const K_PER_STEP: usize = 1;

    unsafe fn pack_a(
        &self,
        a: Strided<*const S>,
        rows: usize,
        kc: usize,
        kernel: &MicroKernel<T>,
        dst: &mut [T],
    ) {
        let mr = kernel.shape.mr;
        pack_a(a, rows, kc, mr, kernel.a_step() / mr, dst);
    }

    unsafe fn pack_b(
        &self,
        b: Strided<*const S>,
        kc: usize,
        cols: usize,
        nr: usize,
        dst: &mut [T],
    ) {
        pack_b(b, kc, cols, nr, dst);
    }
}

/// bf16 values in pairs of consecutive `k`, for the `vdpbf16ps` kernel.
pub(crate) struct Bf16Pairs;

impl Packer<bf16, f32> for Bf16Pairs {
    const K_PER_STEP: usize = 2;

    unsafe fn pack_a(
        &self,
        a: Strided<*const bf16>,
        rows: usize,
        kc: usize,
        kernel: &MicroKernel<f32>,
        dst: &mut [f32],
    ) {
        pack_a_pairs(a, rows, kc, kernel.shape.mr, dst);
    }

    unsafe fn pack_b(
        &self,
        b: Strided<*const bf16>,
        kc: usize,
        cols: usize,
        nr: usize,
        dst: &mut [f32],
    ) {
        pack_b_pairs(b, kc, cols, nr, dst);
    }
}

/// One task: a rectangle of one output matrix.
#[derive(Clone, Copy, Debug)]
struct Part {
    batch: usize,
    rows: (usize, usize),
    cols: (usize, usize),
}

/// Runs `problem` on `pool` with `kernel` on panels `packer` packs
/// (single-threaded below `parallel_min_flops`); a window `A` needs a
/// packer of one `k` a step.
///
/// # Safety
///
/// The problem's pointers and strides must address valid elements (inputs
/// readable, the output writable and injective) for the whole call.
pub(crate) unsafe fn run<S: Widen<T>, T: Float, P: Packer<S, T>>(
    pool: &ThreadPool,
    (kernel, packer): (&MicroKernel<T>, &P),
    problem: &Problem<S, T>,
    epilogue: Option<&dyn Epilogue<T>>,
    parallel_min_flops: usize,
) {
    let Problem { batch, m, n, .. } = *problem;
    debug_assert!(
        P::K_PER_STEP == 1 || problem.strided_a().is_some(),
        "windows are packed one k a step"
    );
    if batch == 0 || m == 0 || n == 0 {
        return;
    }
    let threads = problem.threads(pool, parallel_min_flops);
    let (mr, nr) = (kernel.shape.mr, kernel.shape.nr);
    let (row_units, col_units) = (m.div_ceil(mr), n.div_ceil(nr));
    let split_rows = row_units >= col_units;
    let units = if split_rows { row_units } else { col_units };
    let parts = parts_per_matrix(threads, batch, units);
    let part = |task: usize| {
        let (b, p) = (task / parts, task % parts);
        let (u0, u1) = (p * units / parts, (p + 1) * units / parts);
        if split_rows {
            Part {
                batch: b,
                rows: (u0 * mr, (u1 * mr).min(m)),
                cols: (0, n),
            }
        } else {
            Part {
                batch: b,
                rows: (0, m),
                cols: (u0 * nr, (u1 * nr).min(n)),
            }
        }
    };
    // SAFETY (all calls): parts are disjoint rectangles of the output.
    for_each_task(pool, threads, batch * parts, |task| {
        with_buffers(|buffers| run_part((kernel, packer), problem, part(task), epilogue, buffers))
    });
}

/// Runs `task(0)`, …, `task(tasks - 1)`: on the calling thread when
/// `threads` is 1 (a problem below the parallel threshold), else over
/// `pool`.
pub(crate) fn for_each_task(
    pool: &ThreadPool,
    threads: usize,
    tasks: usize,
    task: impl Fn(usize) + Sync,
) {
    if threads == 1 {
        (0..tasks).for_each(task);
    } else {
        pool.parallel_for(tasks, task);
    }
}

/// How many parts to cut each of `batch` matrices into for `threads`
/// threads: the fewest that give every thread the same number of tasks
/// (3 matrices on 2 threads: 2 parts each, 6 tasks), at most `units`.
pub(crate) fn parts_per_matrix(threads: usize, batch: usize, units: usize) -> usize {
    let parts = (threads.div_ceil(batch)..threads)
        .find(|p| (batch * p).is_multiple_of(threads))
        .unwrap_or(threads);
    parts.min(units).max(1)
}

/// The serial loop nest for one part of the output.
unsafe fn run_part<S: Widen<T>, T: Float, P: Packer<S, T>>(
    (kernel, packer): (&MicroKernel<T>, &P),
    problem: &Problem<S, T>,
    part: Part,
    epilogue: Option<&dyn Epilogue<T>>,
    buffers: &mut PackBuffers,
) {
    let adds = epilogue.is_some_and(|e| e.accumulates());
    let (row0, col0) = (part.rows.0, part.cols.0);
    let (m, n, k) = (part.rows.1 - row0, part.cols.1 - col0, problem.k);
    let batch = part.batch;
    // A strided `A` from this part's first row; a window is one matrix.
    let a = match problem.a {
        Lhs::Strided(a) => Lhs::Strided(
            Strided {
                ptr: a.ptr.add(batch * problem.a_batch_stride),
                ..a
            }
            .at(row0, 0),
        ),
        window => window,
    };
    let b = Strided {
        ptr: problem.b.ptr.add(batch * problem.b_batch_stride),
        ..problem.b
    }
    .at(0, col0);
    let c = Strided {
        ptr: problem.c.ptr.add(batch * problem.c_batch_stride),
        ..problem.c
    }
    .at(row0, col0);
    let shape = kernel.shape;
    let (mr, nr) = (shape.mr, shape.nr);
    let blocking = kernel.blocking;
    let finish = |ic: usize, jc: usize, mc: usize, nc: usize| {
        if let Some(epilogue) = epilogue {
            let layout = MatrixLayout::new(mc, nc, c.rs, c.cs);
            epilogue.apply(OutputBlock {
                c: StridedMatrixMut::from_raw(c.at(ic, jc).ptr, layout),
                batch,
                row0: row0 + ic,
                col0: col0 + jc,
            });
        }
    };
    for jc in (0..n).step_by(blocking.nc) {
        let nc = blocking.nc.min(n - jc);
        if k == 0 && !adds {
            for ic in (0..m).step_by(blocking.mc) {
                let mc = blocking.mc.min(m - ic);
                fill_zero(c.at(ic, jc), mc, nc);
                finish(ic, jc, mc, nc);
            }
        }
        for pc in (0..k).step_by(blocking.kc) {
            let kc = blocking.kc.min(k - pc);
            // Packed entries (and kernel steps) along k.
            let steps = kc.div_ceil(P::K_PER_STEP);
            let b_packed = buffers.b.slice::<T>(nc.div_ceil(nr) * nr * steps);
            packer.pack_b(b.at(pc, jc), kc, nc, nr, b_packed);
            for ic in (0..m).step_by(blocking.mc) {
                let mc = blocking.mc.min(m - ic);
                let a_step = kernel.a_step();
                let a_packed = buffers.a.slice::<T>(mc.div_ceil(mr) * a_step * steps);
                match &a {
                    Lhs::Strided(a) => packer.pack_a(a.at(ic, pc), mc, kc, kernel, a_packed),
                    Lhs::Window { ptr, rows, cols } => pack_a_window(
                        *ptr,
                        (rows, cols),
                        (row0 + ic, mc),
                        (pc, kc),
                        mr,
                        a_step / mr,
                        a_packed,
                        &mut buffers.offsets,
                    ),
                }
                for ir in (0..mc).step_by(mr) {
                    let a_panel = a_packed.as_ptr().add(ir / mr * a_step * steps);
                    for jr in (0..nc).step_by(nr) {
                        let b_panel = b_packed.as_ptr().add(jr * steps);
                        let tile = c.at(ic + ir, jc + jr);
                        let (height, width) = (mr.min(mc - ir), nr.min(nc - jr));
                        let accumulate = usize::from(pc > 0 || adds);
                        if height == mr && width == nr && c.cs == 1 {
                            (kernel.func())(
                                steps,
                                a_panel,
                                b_panel,
                                tile.ptr,
                                c.rs as isize,
                                accumulate,
                            );
                        } else {
                            let mut tmp = [T::default(); MAX_TILE];
                            let tmp_ptr = tmp.as_mut_ptr();
                            (kernel.func())(steps, a_panel, b_panel, tmp_ptr, nr as isize, 0);
                            store_edge(tile, &tmp, nr, height, width, accumulate != 0);
                        }
                    }
                }
                if pc + kc == k {
                    finish(ic, jc, mc, nc);
                }
            }
        }
    }
}

/// Writes (or adds) the `height×width` corner of a tile computed into `tmp`
/// (row stride `nr`) to `c`.
unsafe fn store_edge<T: Float>(
    c: Strided<*mut T>,
    tmp: &[T],
    nr: usize,
    height: usize,
    width: usize,
    accumulate: bool,
) {
    for i in 0..height {
        for j in 0..width {
            let out = c.ptr.add(i * c.rs + j * c.cs);
            let value = tmp[i * nr + j];
            *out = if accumulate { *out + value } else { value };
        }
    }
}

unsafe fn fill_zero<T: Float>(c: Strided<*mut T>, rows: usize, cols: usize) {
    for i in 0..rows {
        for j in 0..cols {
            *c.ptr.add(i * c.rs + j * c.cs) = T::default();
        }
    }
}

/// A growable 64-byte-aligned scratch buffer.
#[derive(Default)]
pub(crate) struct AlignedBuffer {
    lines: Vec<CacheLine>,
}

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct CacheLine([u8; 64]);

impl AlignedBuffer {
    /// The first `len` elements of the buffer (grown as needed; contents
    /// unspecified).
    pub fn slice<T: Float>(&mut self, len: usize) -> &mut [T] {
        let lines = (len * size_of::<T>()).div_ceil(64);
        if self.lines.len() < lines {
            self.lines.resize(lines, CacheLine([0; 64]));
        }
        // SAFETY: the lines hold at least `len` elements of a float type
        // (any bit pattern is valid), aligned to 64 bytes.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), len) }
    }
}

/// One thread's packing buffers.
#[derive(Default)]
pub(crate) struct PackBuffers {
    a: AlignedBuffer,
    pub(crate) b: AlignedBuffer,
    /// A window's row and column offsets.
    offsets: Vec<usize>,
}

thread_local! {
    static BUFFERS: Cell<Option<Box<PackBuffers>>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's packing buffers (fresh ones if a caller up
/// the stack holds them, e.g. a dot inside an epilogue).
pub(crate) fn with_buffers<R>(f: impl FnOnce(&mut PackBuffers) -> R) -> R {
    let mut buffers = BUFFERS.take().unwrap_or_default();
    let result = f(&mut buffers);
    BUFFERS.set(Some(buffers));
    result
}

#[cfg(test)]
mod tests {
    #[test]
    fn parts_balance_the_threads() {
        use super::parts_per_matrix;
        assert_eq!(parts_per_matrix(2, 1, 100), 2);
        assert_eq!(parts_per_matrix(2, 3, 100), 2);
        assert_eq!(parts_per_matrix(2, 64, 100), 1);
        assert_eq!(parts_per_matrix(8, 3, 100), 8);
        assert_eq!(parts_per_matrix(8, 6, 100), 4);
        assert_eq!(parts_per_matrix(2, 1, 1), 1);
        assert_eq!(parts_per_matrix(1, 5, 100), 1);
    }
}
