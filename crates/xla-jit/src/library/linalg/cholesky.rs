//! `cholesky` and `lapack_?potrf_ffi` on faer's blocked `L·Lᴴ`.
//!
//! A matrix is factored by faer in a column-major copy whose lower
//! triangle is the triangle to read: for `lower`, the transpose of the
//! row-major matrix; for upper, the row-major buffer as it is, which
//! column-major is `aᵀ`, whose lower triangle is that of `conj(H)` (`H`
//! the Hermitian matrix of `a`'s upper triangle): its factor `conj(L)`,
//! read row-major, is `U = Lᴴ`.
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

use super::{for_each_batch, span, transpose, Element, Float, Matrices};
use crate::runtime::pool::ThreadPool;

/// A batch of Cholesky factorizations.
pub(super) struct Cholesky {
    pub count: usize,
    pub n: usize,
    lower: bool,
    /// `lapack_?potrf_ffi` (the other triangle as the operand's, an `info`
    /// result) rather than HLO's `cholesky`.
    lapack: bool,
}

impl Cholesky {
    /// The factorization of the square matrices `a`.
    pub fn new(a: &Matrices, lower: bool, lapack: bool) -> Option<Self> {
        (a.rows == a.cols).then_some(Cholesky {
            count: a.count,
            n: a.rows,
            lower,
            lapack,
        })
    }

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
    /// `potrf`, `outputs[1]` the `s32` infos; all row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        pool: &ThreadPool,
    ) {
        let (n, size) = (self.n, self.n * self.n);
        let a = span::<T>(inputs[0], self.count * size);
        let out = span::<T>(outputs[0], self.count * size);
        let info = self.lapack.then(|| span::<i32>(outputs[1], self.count));
        for_each_batch(pool, self.count, size * n, |matrices, par| {
            let mut work = vec![T::zero(); size];
            let mut memory =
                MemBuffer::new(cholesky_in_place_scratch::<T>(n, par, Default::default()));
            for b in matrices {
                // SAFETY: matrix `b` of the operand (read) and of the
                // results (this task's alone).
                let (a, out) = unsafe { (a.slice(b * size, size), out.slice(b * size, size)) };
                let status = self.factor(a, out, &mut work, par, MemStack::new(&mut memory));
                if let Some(info) = info {
                    // SAFETY: as above.
                    unsafe { info.slice(b, 1)[0] = status };
                }
            }
        });
    }

    /// Factors the row-major `a` into `out`; returns `potrf`'s `info`.
    fn factor<T: Element>(
        &self,
        a: &[T],
        out: &mut [T],
        work: &mut [T],
        par: Par,
        stack: &mut MemStack,
    ) -> i32 {
        let n = self.n;
        if n == 0 {
            return 0;
        }
        if self.lower {
            transpose(a, n, n, work);
        } else {
            work.copy_from_slice(a);
        }
        let view = MatMut::from_column_major_slice_mut(work, n, n);
        let info = if cholesky_in_place(view, Default::default(), par, stack, Default::default())
            .is_ok()
        {
            if self.lower {
                transpose(work, n, n, out);
            } else {
                out.copy_from_slice(work);
            }
            0
        } else {
            let (factor, pivots) = reference_factor(a, n, self.lower);
            if !self.lapack && pivots.iter().any(|p| p.sqrt().is_nan()) {
                out.fill(T::nan());
                return 0;
            }
            out.copy_from_slice(&factor);
            pivots
                .iter()
                .position(|&p| p <= T::Real::ZERO || p.is_nan())
                .map_or(0, |j| j as i32 + 1)
        };
        // The other triangle.
        for i in 0..n {
            for j in 0..n {
                if (i < j) == self.lower && i != j {
                    out[i * n + j] = if self.lapack { a[i * n + j] } else { T::zero() };
                }
            }
        }
        info
    }
}

/// The interpreter's unblocked factorization of the row-major `n × n`
/// matrix `a` (its `cholesky_factor`), for the matrices faer stops on:
/// the factor with zeros in the other triangle, and the pivots `pⱼ =
/// a[j][j] − Σₖ₍ⱼ |l[j][k]|²`, with `l[j][j] = pⱼ/√pⱼ` (NaN for a zero
/// pivot) and the entries below it divided by `√pⱼ`.
fn reference_factor<T: Element>(a: &[T], n: usize, lower: bool) -> (Vec<T>, Vec<T::Real>) {
    // The upper variant factors the matrix whose lower triangle is the
    // conjugate transpose of `a`'s upper triangle, then transposes back.
    let at = |i: usize, j: usize| {
        if lower {
            a[i * n + j]
        } else {
            a[j * n + i].conj()
        }
    };
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
