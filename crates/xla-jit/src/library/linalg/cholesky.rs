//! `cholesky` and `lapack_?potrf_ffi` on faer's blocked `L·Lᴴ`.
//!
//! faer factors the lower triangle of a column-major matrix. For `lower`
//! that is the matrix itself; for upper, its transpose `aᵀ`, whose lower
//! triangle is that of `conj(H)` (`H` the Hermitian matrix of `a`'s upper
//! triangle): its factor `conj(L)`, transposed back, is `U = Lᴴ`. A
//! column-major `a` (a row-major one for upper) is thus factored in place
//! in the result, the others in a transposed copy.
//!
//! faer stops at the first pivot that is not positive and finite; such a
//! matrix is then factored again by the interpreter's unblocked
//! algorithm, which says what the pivots were: HLO's `cholesky` is NaN
//! everywhere for a negative or NaN pivot (a zero pivot gives a NaN
//! diagonal entry and whatever follows from it), `potrf` reports the first
//! pivot that is not positive in `info` (`j + 1`).
//!
//! The other triangle of the result holds zeros (`cholesky`) or the
//! operand's values (`potrf`, which leaves it untouched).

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::{MatMut, Par};

use super::element::{Element, Float};
use super::helpers::{for_each_batch, in_column_major, offset, parallel, span};
use super::{Batch, Matrices};
use crate::pool::ThreadPool;

/// The work (`n³`) from which faer's factorization runs on several
/// threads: there it beat one thread from about `n = 1500` (2048: 15 ms
/// against 20; 1024: 3.1 against 2.8).
const PARALLEL: usize = 1536 * 1536 * 1536;

/// A batch of Cholesky factorizations.
pub(super) struct Cholesky {
    /// The matrices' count and sizes.
    pub a: Batch,
    /// Factor the lower triangle (`a = L·Lᴴ`), else the upper one.
    lower: bool,
    /// `lapack_?potrf_ffi` (the other triangle as the operand's, an `info`
    /// result) rather than HLO's `cholesky`.
    pub lapack: bool,
}

impl Cholesky {
    /// The factorization of the square matrices `a`.
    pub fn new(a: &Matrices, lower: bool, lapack: bool) -> Option<Self> {
        (a.rows == a.cols).then_some(Cholesky {
            a: a.batch(),
            lower,
            lapack,
        })
    }

    /// The LAPACK call's name or the HLO op's.
    pub fn name(&self) -> &'static str {
        if self.lapack {
            "potrf"
        } else {
            "cholesky"
        }
    }

    /// # Safety
    ///
    /// `inputs[0]` holds the matrices; `outputs[0]` is the factor and, for
    /// `potrf`, `outputs[1]` the `s32` infos; the matrices column-major if
    /// `column_major`, else row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        column_major: bool,
        pool: &ThreadPool,
    ) {
        let (n, size) = (self.a.n, self.a.n * self.a.n);
        let a = span::<T>(inputs[0], self.a.count * size);
        let out = span::<T>(outputs[0], self.a.count * size);
        let info = self.lapack.then(|| span::<i32>(outputs[1], self.a.count));
        if n == 0 {
            if let Some(info) = info {
                // SAFETY: the infos, this routine's alone.
                unsafe { info.slice(0, self.a.count).fill(0) };
            }
            return;
        }
        for_each_batch(pool, self.a.count, size * n, |matrices, par| {
            let par = parallel(par, size * n, PARALLEL);
            let mut work = vec![T::zero(); size];
            let mut memory =
                MemBuffer::new(cholesky_in_place_scratch::<T>(n, par, Default::default()));
            for b in matrices {
                // SAFETY: matrix `b` of the operand (read) and of the
                // results (this task's alone).
                let (a, out) = unsafe { (a.slice(b * size, size), out.slice(b * size, size)) };
                let stack = MemStack::new(&mut memory);
                let status = self.factor(a, out, column_major, &mut work, par, stack);
                if let Some(info) = info {
                    // SAFETY: as above.
                    unsafe { info.slice(b, 1)[0] = status };
                }
            }
        });
    }

    /// Factors `a` into `out`; returns `potrf`'s `info`.
    fn factor<T: Element>(
        &self,
        a: &[T],
        out: &mut [T],
        column_major: bool,
        work: &mut [T],
        par: Par,
        stack: &mut MemStack,
    ) -> i32 {
        let n = self.a.n;
        let at = |i: usize, j: usize| offset(column_major, n, n, i, j);
        let factored = in_column_major(a, out, (n, n), column_major == self.lower, work, |w| {
            let view = MatMut::from_column_major_slice_mut(w, n, n);
            cholesky_in_place(view, Default::default(), par, stack, Default::default()).is_ok()
        });
        let info = if factored {
            0
        } else {
            let (factor, pivots) = reference_factor(|i, j| a[at(i, j)], n, self.lower);
            if !self.lapack && pivots.iter().any(|p| p.sqrt().is_nan()) {
                out.fill(T::nan());
                return 0;
            }
            for i in 0..n {
                for j in 0..n {
                    out[at(i, j)] = factor[i * n + j];
                }
            }
            pivots
                .iter()
                .position(|&p| p <= T::Real::ZERO || p.is_nan())
                .map_or(0, |j| j as i32 + 1)
        };
        // The other triangle, line by line in memory order (columns
        // when column-major): before the diagonal or after it.
        let before = column_major == self.lower;
        for line in 0..n {
            let start = line * n;
            let range = if before {
                start..start + line
            } else {
                start + line + 1..start + n
            };
            if self.lapack {
                out[range.clone()].copy_from_slice(&a[range]);
            } else {
                out[range].fill(T::zero());
            }
        }
        info
    }
}

/// The interpreter's unblocked factorization of the `n × n` matrix of
/// entries `a(i, j)` (its `cholesky_factor`), for the matrices faer stops
/// on: the row-major factor with zeros in the other triangle, and the
/// pivots `pⱼ =
/// a[j][j] − Σₖ₍ⱼ |l[j][k]|²`, with `l[j][j] = pⱼ/√pⱼ` (NaN for a zero
/// pivot) and the entries below it divided by `√pⱼ`.
fn reference_factor<T: Element>(
    a: impl Fn(usize, usize) -> T,
    n: usize,
    lower: bool,
) -> (Vec<T>, Vec<T::Real>) {
    // The upper variant factors the matrix whose lower triangle is the
    // conjugate transpose of `a`'s upper triangle, then transposes back.
    let at = |i: usize, j: usize| if lower { a(i, j) } else { a(j, i).conj() };
    let mut l = vec![T::zero(); n * n];
    let mut pivots = Vec::with_capacity(n);
    for j in 0..n {
        let mut p = at(j, j).re();
        for k in 0..j {
            let x = l[j * n + k];
            p -= (x * x.conj()).re();
        }
        let d = p.sqrt();
        pivots.push(p);
        l[j * n + j] = T::real(p / d);
        for i in j + 1..n {
            let mut s = at(i, j);
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k].conj();
            }
            l[i * n + j] = s / T::real(d);
        }
    }
    if !lower {
        l = (0..n * n).map(|e| l[(e % n) * n + e / n].conj()).collect();
    }
    (l, pivots)
}
