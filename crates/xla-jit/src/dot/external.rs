//! f32 and f64 GEMMs on the `gemm` crate (pure Rust, well kept, its
//! kernels chosen at run time for AVX-512, AVX2 or plain SIMD), which
//! `examples/gemm.rs` measured faster than the engine's own kernels on
//! nearly every shape (Emerald Rapids, 2026-12-06, one thread: f64
//! dot_1024 80 GFLOP/s against 16 on the engine's Cranelift kernel;
//! f32 `25088×576·576×64` 131 against 70, `128×512·512×10` 44 against
//! 16, squares 0.77–0.95× of its time; in the model programs, interleaved
//! `xla bench` medians on two threads: gpt2_block 6.3–7.4 ms against
//! 7.5–8.3, bmm 0.37–0.44 against 0.54–0.57, dot_1024 and mlp even).
//!
//! The engine keeps the matrix-vector products, the window views (a
//! convolution's patches read in place: the crate reads strided matrices
//! only) and the 16-bit operands, on its own kernels. The crate runs
//! single-threaded per task, under the caller's flush-to-zero mode; the
//! tasks split the output over the engine's pool.

use super::epilogue::{Epilogue, OutputBlock};
use super::gemm::{for_each_task, parts_per_matrix, Float, Problem};
use super::matrix::{MatrixLayout, StridedMatrixMut};
use super::DotConfig;
use crate::pool::ThreadPool;

/// `true` if the `gemm` crate runs `problem`: a strided one (not a
/// window), when `config` allows it.
pub(crate) fn takes<T: Float>(problem: &Problem<T, T>, config: &DotConfig) -> bool {
    config.gemm_crate && problem.strided_a().is_some()
}

/// Runs `problem` on the `gemm` crate, split over `pool` (single-threaded
/// below `parallel_min_flops`), then `epilogue` on each task's block.
///
/// # Safety
///
/// As [`super::gemm::run`].
pub(crate) unsafe fn run<T: Float>(
    pool: &ThreadPool,
    problem: &Problem<T, T>,
    epilogue: Option<&dyn Epilogue<T>>,
    parallel_min_flops: usize,
) {
    let Problem { batch, m, n, k, .. } = *problem;
    if batch == 0 || m == 0 || n == 0 {
        return;
    }
    // A reference: the tasks capture it, not its raw pointer.
    let a_matrix = &problem
        .strided_a()
        .expect("takes() accepts a strided A only");
    let threads = problem.threads(pool, parallel_min_flops);
    let adds = epilogue.is_some_and(|e| e.accumulates());
    // Rows (or columns) in units of 16, so that tasks keep whole vectors.
    let split_rows = m >= n;
    let units = if split_rows { m } else { n }.div_ceil(16);
    let parts = parts_per_matrix(threads, batch, units);
    for_each_task(pool, threads, batch * parts, |task| {
        let (b, part) = (task / parts, task % parts);
        let cut = |len: usize| {
            let (u0, u1) = (part * units / parts, (part + 1) * units / parts);
            ((u0 * 16).min(len), (u1 * 16).min(len))
        };
        let ((r0, r1), (c0, c1)) = if split_rows {
            (cut(m), (0, n))
        } else {
            ((0, m), cut(n))
        };
        let p = problem;
        let (rows, cols) = (r1 - r0, c1 - c0);
        let a = a_matrix.ptr.add(b * p.a_batch_stride + r0 * a_matrix.rs);
        let bm = p.b.ptr.add(b * p.b_batch_stride + c0 * p.b.cs);
        let c =
            p.c.ptr
                .add(b * p.c_batch_stride + r0 * p.c.rs + c0 * p.c.cs);
        // The crate computes a row-major C as `Cᵀ = Bᵀ·Aᵀ`, which packs
        // all of a column-major B on every call. When B outweighs packing
        // A and writing and copying C, C is computed into a column-major
        // block instead, where B is read in place and only A is packed,
        // and then copied: `16×768 · (256×768)ᵀ`, a GRU's backward step,
        // 116 → 43 µs; `128×3072 · (768×3072)ᵀ`, GPT-2's MLP backward,
        // 7.0 → 4.2–4.7 ms (Zen 4, 2 threads). Not for `128×10 ·
        // (512×10)ᵀ`: 32 → 80 µs.
        let staged =
            p.c.cs == 1 && p.b.rs == 1 && p.b.cs != 1 && cols * k > rows * k + 2 * rows * cols;
        let mut block = Vec::new();
        let (dst, dst_cs, dst_rs) = if staged {
            block = vec![T::default(); rows * cols];
            if adds {
                for (j, column) in block.chunks_exact_mut(rows).enumerate() {
                    for (i, x) in column.iter_mut().enumerate() {
                        *x = *c.add(i * p.c.rs + j);
                    }
                }
            }
            (block.as_mut_ptr(), rows as isize, 1)
        } else {
            (c, p.c.cs as isize, p.c.rs as isize)
        };
        // C = alpha C + beta A·B, C read only when accumulating.
        gemm::gemm(
            rows,
            cols,
            k,
            dst,
            dst_cs,
            dst_rs,
            adds,
            a,
            a_matrix.cs as isize,
            a_matrix.rs as isize,
            bm,
            p.b.cs as isize,
            p.b.rs as isize,
            if adds { T::ONE } else { T::default() },
            T::ONE,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
        if staged {
            for i in 0..rows {
                let row = std::slice::from_raw_parts_mut(c.add(i * p.c.rs), cols);
                for (j, x) in row.iter_mut().enumerate() {
                    *x = block[i + j * rows];
                }
            }
        }
        if let Some(epilogue) = epilogue {
            let layout = MatrixLayout::new(rows, cols, p.c.rs, p.c.cs);
            epilogue.apply(OutputBlock {
                c: StridedMatrixMut::from_raw(c, layout),
                batch: b,
                row0: r0,
                col0: c0,
            });
        }
    });
}
