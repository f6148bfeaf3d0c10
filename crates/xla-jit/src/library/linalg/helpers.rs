//! What the routines share: splitting a batch over the pool and faer's
//! threads, and moving matrices between row-major and column-major order.

use faer::{MatMut, Par};
use xla_core::layout::Layout;

use super::element::{Element, Float};
use crate::library::{for_ranges, Span};
use crate::pool::ThreadPool;

/// Work of a whole batch (about `m·n·min(m, n)` per matrix, its
/// multiply-adds up to a constant) from which its matrices are split over
/// the pool.
const BATCH_PARALLEL_WORK: usize = 1 << 16;

/// Runs `body(matrices, par)` over contiguous ranges of the `count`
/// matrices of a batch, each of about `work` (see [`BATCH_PARALLEL_WORK`]):
/// a lone matrix with faer's parallelism on as many threads as the pool
/// has (which each routine uses for the steps large enough to gain from
/// it, [`parallel`]), a batch split over the pool when it is worth it
/// (each matrix then on one thread).
pub(super) fn for_each_batch(
    pool: &ThreadPool,
    count: usize,
    work: usize,
    body: impl Fn(std::ops::Range<usize>, Par) + Sync,
) {
    let threads = pool.threads();
    if count == 0 {
        return;
    }
    if count == 1 {
        let par = if threads > 1 {
            Par::rayon(threads)
        } else {
            Par::Seq
        };
        return body(0..1, par);
    }
    let tasks = if work.saturating_mul(count) >= BATCH_PARALLEL_WORK {
        threads.min(count)
    } else {
        1
    };
    for_ranges(pool, count, tasks, |matrices| body(matrices, Par::Seq));
}

/// `par` for a step of `work` multiply-adds from `threshold` on, else one
/// thread. faer's threads (rayon's) cost a few microseconds per split and
/// contend with the pool's spinning workers: on a 2-core host (Xeon,
/// 2026) they gain from about 256³ multiply-adds in matrix products, later
/// in the factorizations (see each routine's threshold).
pub(super) fn parallel(par: Par, work: usize, threshold: usize) -> Par {
    if work >= threshold {
        par
    } else {
        Par::Seq
    }
}

/// Writes the transpose of the row-major `rows × cols` matrix `src` into
/// `dst` (row-major `cols × rows`): also a row-major matrix into the
/// column-major order of the same matrix, and back.
pub(super) fn transpose<T: Copy>(src: &[T], rows: usize, cols: usize, dst: &mut [T]) {
    /// Elements per side of the blocks transposed at a time.
    const TILE: usize = 32;
    assert!(src.len() >= rows * cols && dst.len() >= rows * cols);
    for i0 in (0..rows).step_by(TILE) {
        let i1 = (i0 + TILE).min(rows);
        for j0 in (0..cols).step_by(TILE) {
            let j1 = (j0 + TILE).min(cols);
            for i in i0..i1 {
                for j in j0..j1 {
                    // SAFETY: `i < rows` and `j < cols`, and both buffers
                    // hold `rows·cols` elements (asserted above).
                    unsafe {
                        *dst.get_unchecked_mut(j * rows + i) = *src.get_unchecked(i * cols + j)
                    };
                }
            }
        }
    }
}

/// The offset of element `(i, j)` of a matrix with `rows` rows and `cols`
/// columns, column-major or row-major.
pub(super) fn offset(column_major: bool, rows: usize, cols: usize, i: usize, j: usize) -> usize {
    if column_major {
        j * rows + i
    } else {
        i * cols + j
    }
}

/// Runs `f` on a column-major `rows × cols` work matrix made from `input`
/// and leaves it in `output`: the buffers' own elements read column-major
/// when `as_is` (in place in `output`), else their transposes (the
/// row-major `rows × cols` matrix `input` transposed into `scratch`, and
/// back into `output`).
pub(super) fn in_column_major<T: Copy, R>(
    input: &[T],
    output: &mut [T],
    (rows, cols): (usize, usize),
    as_is: bool,
    scratch: &mut [T],
    f: impl FnOnce(&mut [T]) -> R,
) -> R {
    if as_is {
        output.copy_from_slice(input);
        f(output)
    } else {
        transpose(input, rows, cols, scratch);
        let result = f(scratch);
        transpose(scratch, cols, rows, output);
        result
    }
}

/// The layout of a batch of column-major (`{…, r−2, r−1, r−3, …, 0}`) or
/// row-major matrices of rank `rank`.
pub(super) fn matrix_layout(rank: usize, column_major: bool) -> Layout {
    let mut order: Vec<i64> = (0..rank as i64).rev().collect();
    if column_major && rank >= 2 {
        order.swap(0, 1);
    }
    Layout::new(order)
}

/// Multiplies `x` by the factor of modulus 1 that makes its first
/// component of largest modulus real and positive, and returns the
/// factor (1 for a zero vector): the interpreter's choice among the
/// eigenvectors and singular vectors that differ by such a factor.
pub(super) fn normalize_phase<T: Element>(x: &mut [T]) -> T {
    let mut largest = T::zero();
    let mut magnitude = T::Real::ZERO;
    for &v in x.iter() {
        let m = v.modulus();
        if m > magnitude {
            (largest, magnitude) = (v, m);
        }
    }
    if magnitude > T::Real::ZERO {
        let factor = largest.conj() * T::real(T::Real::ONE / magnitude);
        x.iter_mut().for_each(|v| *v *= factor);
        factor
    } else {
        T::one()
    }
}

/// `len` elements of type `T` at `ptr`, a span that tasks share.
pub(super) fn span<T>(ptr: *const u8, len: usize) -> Span<T> {
    Span::new(ptr.cast_mut().cast::<T>(), len)
}

/// Column `j` of a column-major work matrix (or a block of one), as a
/// slice.
pub(super) fn column<T: Element>(a: MatMut<'_, T>, j: usize) -> &mut [T] {
    a.col_mut(j)
        .try_as_col_major_mut()
        .expect("work matrices are column-major")
        .as_slice_mut()
}
