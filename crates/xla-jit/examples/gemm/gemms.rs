//! The two GEMMs: our engine and the `gemm` crate on the same data.

use std::sync::Arc;

use gemm::Parallelism;
use half::bf16;
use xla_jit::dot::{
    DotConfig, DotElement, DotEngine, MatrixLayout, Operand, StridedMatrix, StridedMatrixMut,
};
use xla_jit::pool::ThreadPool;

/// Deterministic data in [-1, 1).
pub(super) fn data<T: From<f32>>(len: usize, seed: u32) -> Vec<T> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            T::from((state >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
        })
        .collect()
}

/// Row-major views of `A`, `B` and `C` for `[batch, m, n, k]`.
fn views<'a, T: Copy, C: Copy>(
    [batch, m, n, k]: [usize; 4],
    a: &'a [T],
    b: &'a [T],
    c: &'a mut [C],
) -> (
    StridedMatrix<'a, T>,
    StridedMatrix<'a, T>,
    StridedMatrixMut<'a, C>,
) {
    let la = MatrixLayout::row_major(m, k).batched(batch, m * k);
    let lb = MatrixLayout::row_major(k, n).batched(batch, k * n);
    let lc = MatrixLayout::row_major(m, n).batched(batch, m * n);
    (
        StridedMatrix::new(Operand::Lhs, a, la).unwrap(),
        StridedMatrix::new(Operand::Rhs, b, lb).unwrap(),
        StridedMatrixMut::new(c, lc).unwrap(),
    )
}

/// `C[i] = A[i]·B[i]` by our engine (all row-major, `[batch, m, n, k]`).
pub(super) fn dot_ours<T: DotElement>(
    engine: &DotEngine,
    dims: [usize; 4],
    a: &[T],
    b: &[T],
    c: &mut [T],
) {
    let (a, b, c) = views(dims, a, b, c);
    engine.gemm(a, b, c, None).unwrap();
}

/// `C[i] = A[i]·B[i]` by our engine for bf16 `A` and `B`, summed in f32
/// into an f32 `C`.
pub(super) fn dot_ours_bf16(
    engine: &DotEngine,
    dims: [usize; 4],
    a: &[bf16],
    b: &[bf16],
    c: &mut [f32],
) {
    let (a, b, c) = views(dims, a, b, c);
    engine.gemm_to_f32(a, b, c, None).unwrap();
}

/// `C[i] = A[i]·B[i]` by the gemm crate (all row-major, `[batch, m, n,
/// k]`): one `gemm::gemm` call per matrix of the batch.
pub(super) fn dot_gemm_crate<T: Copy + From<f32> + 'static>(
    [batch, m, n, k]: [usize; 4],
    a: &[T],
    b: &[T],
    c: &mut [T],
    parallelism: Parallelism,
) {
    let matrices = a
        .chunks_exact(m * k)
        .zip(b.chunks_exact(k * n))
        .zip(c.chunks_exact_mut(m * n));
    assert_eq!(matrices.len(), batch);
    for ((a, b), c) in matrices {
        // SAFETY: `a`, `b` and `c` hold row-major m×k, k×n and m×n
        // matrices (column stride 1, row stride the column count); `c` is
        // only written (`read_dst` false). T is f32 or f64.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                1,
                k as isize,
                b.as_ptr(),
                1,
                n as isize,
                T::from(0.0),
                T::from(1.0),
                false,
                false,
                false,
                parallelism,
            );
        }
    }
}

/// The gemm crate's parallelism for a thread count.
pub(super) fn parallelism(threads: usize) -> Parallelism {
    match threads {
        1 => Parallelism::None,
        n => Parallelism::Rayon(n),
    }
}

/// Our engine on 1 and 2 threads, each with its own pool from `pools`.
pub(super) fn engines(config: DotConfig, pools: &[Arc<ThreadPool>]) -> Vec<(usize, DotEngine)> {
    pools
        .iter()
        .map(|pool| {
            let engine = DotEngine::with_pool(config, Arc::clone(pool)).unwrap();
            (pool.threads(), engine)
        })
        .collect()
}
