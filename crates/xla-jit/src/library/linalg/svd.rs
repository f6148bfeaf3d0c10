//! `lapack_?gesdd_ffi` and `lapack_?gesvd_ffi`: the singular value
//! decomposition on faer's (bidiagonalization, then divide and conquer).
//!
//! `a = u·diag(s)·vt` with the `K = min(M, N)` singular values descending.
//! faer computes `A = U·S·Vᴴ` (reading `a` through a view), `U` and `V`
//! column-major; `u` is `U` and `vt` is `Vᴴ`, copied into the results'
//! layouts.
//! Each singular pair is normalized as the interpreter does (`uⱼ`'s first
//! component of largest modulus real and positive, `vⱼ` scaled by the same
//! factor), and so is each further column of a full `u` or `v`; those
//! (and the vectors of zero singular values) are some orthonormal
//! completion, the interpreter's and LAPACK's being others.
//!
//! The first result is the operand (LAPACK's scratch copy of it). A NaN
//! makes `s`, `u` and `vt` NaN with `info` −4 (`?gesdd` checks for it) or
//! 0 (`?gesvd` does not); an infinity makes them NaN with `info` 0; should
//! faer not converge, they are NaN and `info` is `K`. Mode `'N'` computes
//! the singular values only and zeros the vectors, whatever shapes they
//! are declared with.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::svd::{svd, svd_scratch, ComputeSvdVectors, SvdParams};
use faer::{Mat, MatRef, Par};

use super::element::{Element, Float};
use super::helpers::{column, for_each_batch, normalize_phase, offset, parallel, span};
use super::{Batch, Matrices};
use crate::pool::ThreadPool;

/// The work (`m·n·min(m, n)`) from which faer's decomposition runs on
/// several threads (256×192: 3.66 ms against 3.69, even).
const PARALLEL: usize = 256 * 256 * 256;

/// The order below which faer's divide and conquer solves a bidiagonal
/// problem by the QR algorithm: 32 rather than its 128 (256×192: 3.7 ms
/// against 5.3).
const DIVIDE_BELOW: usize = 32;

/// faer's parameters, with [`DIVIDE_BELOW`].
fn params<T: Element>() -> SvdParams {
    let mut params: SvdParams = faer::Auto::<T>::auto();
    params.recursion_threshold = DIVIDE_BELOW;
    params
}

/// Which singular vectors are computed (`backend_config`'s `mode`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SvdMode {
    /// `'A'`: all `M` left and `N` right vectors.
    All,
    /// `'S'`: the first `K` of each.
    Reduced,
    /// `'N'`: none.
    None,
}

/// A batch of singular value decompositions of `m × n` matrices.
pub(super) struct Svd {
    /// The matrices' count and sizes.
    pub a: Batch,
    /// The vectors computed.
    mode: SvdMode,
    /// `info` for a matrix with a NaN.
    nan_info: i32,
    /// The elements of the `u` and `vt` results (all matrices).
    u_len: usize,
    vt_len: usize,
}

impl Svd {
    /// The decomposition of the matrices `a` in `mode`; `u_len` and
    /// `vt_len` are the sizes of the `u` and `vt` results.
    pub fn new(a: &Matrices, mode: SvdMode, nan_info: i32, u_len: usize, vt_len: usize) -> Self {
        Svd {
            a: a.batch(),
            mode,
            nan_info,
            u_len,
            vt_len,
        }
    }

    /// # Safety
    ///
    /// `inputs[0]` holds the matrices; `outputs` are the operand's copy,
    /// the singular values (of the real type), `u`, `vt` and the `s32`
    /// infos; the matrices column-major if `column_major`, else
    /// row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        column_major: bool,
        pool: &ThreadPool,
    ) {
        let (m, n, count) = (self.a.m, self.a.n, self.a.count);
        let (size, k) = (m * n, m.min(n));
        let (u_len, vt_len) = (self.u_len / count.max(1), self.vt_len / count.max(1));
        let a = span::<T>(inputs[0], count * size);
        let copy = span::<T>(outputs[0], count * size);
        let s = span::<T::Real>(outputs[1], count * k);
        let u = span::<T>(outputs[2], self.u_len);
        let vt = span::<T>(outputs[3], self.vt_len);
        let info = span::<i32>(outputs[4], count);
        let (u_cols, v_cols, compute) = match self.mode {
            SvdMode::All => (m, n, ComputeSvdVectors::Full),
            SvdMode::Reduced => (k, k, ComputeSvdVectors::Thin),
            SvdMode::None => (0, 0, ComputeSvdVectors::No),
        };
        if k == 0 {
            // No singular values: `u` and `vt` are identities (mode 'A'),
            // empty ('S') or zeros ('N'), as the interpreter makes them.
            // SAFETY: the results, this routine's alone.
            let (u, vt, info) = unsafe {
                (
                    u.slice(0, self.u_len),
                    vt.slice(0, self.vt_len),
                    info.slice(0, count),
                )
            };
            for (x, rows) in [(u, u_cols), (vt, v_cols)] {
                x.fill(T::zero());
                for matrix in x.chunks_exact_mut((rows * rows).max(1)) {
                    (0..rows).for_each(|i| matrix[i * rows + i] = T::one());
                }
            }
            info.fill(0);
            return;
        }
        for_each_batch(pool, count, size * k, |matrices, par| {
            let par = parallel(par, size * k, PARALLEL);
            let mut memory = MemBuffer::new(svd_scratch::<T>(
                m,
                n,
                compute,
                compute,
                par,
                params::<T>().into(),
            ));
            let mut left = Mat::<T>::zeros(m, u_cols);
            let mut right = Mat::<T>::zeros(n, v_cols);
            for b in matrices {
                // SAFETY: matrix `b` of the operand (read) and of the
                // results (this task's alone).
                let (a, copy, s, u, vt, info) = unsafe {
                    (
                        a.slice(b * size, size),
                        copy.slice(b * size, size),
                        s.slice(b * k, k),
                        u.slice(b * u_len, u_len),
                        vt.slice(b * vt_len, vt_len),
                        info.slice(b, 1),
                    )
                };
                copy.copy_from_slice(a);
                let factors = Factors {
                    s,
                    u,
                    vt,
                    left: &mut left,
                    right: &mut right,
                    column_major,
                };
                info[0] = self.decompose(a, factors, par, MemStack::new(&mut memory));
            }
        });
    }

    /// One matrix: writes its factors, returns `info`.
    fn decompose<T: Element>(
        &self,
        a: &[T],
        f: Factors<'_, T>,
        par: Par,
        stack: &mut MemStack,
    ) -> i32 {
        let (m, n) = (self.a.m, self.a.n);
        let k = m.min(n);
        let nan = a.iter().any(|x| x.has_nan());
        let non_finite = a.iter().any(|x| !x.finite());
        let vectors = self.mode != SvdMode::None;
        let mut values = Diag::<T>::zeros(k);
        let a = if f.column_major {
            MatRef::from_column_major_slice(a, m, n)
        } else {
            MatRef::from_column_major_slice(a, n, m).transpose()
        };
        let converged = !non_finite
            && svd(
                a,
                values.as_mut(),
                vectors.then(|| f.left.as_mut()),
                vectors.then(|| f.right.as_mut()),
                par,
                stack,
                params::<T>().into(),
            )
            .is_ok();
        if !converged {
            f.s.fill(T::Real::NAN);
            f.u.fill(T::nan());
            f.vt.fill(T::nan());
            return match (nan, non_finite) {
                (true, _) => self.nan_info,
                (false, true) => 0,
                (false, false) => k as i32,
            };
        }
        for (s, x) in f.s.iter_mut().zip(values.column_vector().iter()) {
            *s = x.re();
        }
        if !vectors {
            f.u.fill(T::zero());
            f.vt.fill(T::zero());
            return 0;
        }
        let (u_cols, v_cols) = (f.left.ncols(), f.right.ncols());
        for j in 0..u_cols.max(v_cols) {
            let factor = if j < u_cols {
                normalize_phase(column(f.left.as_mut(), j))
            } else {
                T::one()
            };
            if j < v_cols {
                let v = column(f.right.as_mut(), j);
                if j < k {
                    v.iter_mut().for_each(|x| *x *= factor);
                } else {
                    normalize_phase(v);
                }
            }
        }
        for j in 0..u_cols {
            for (i, &x) in column(f.left.as_mut(), j).iter().enumerate() {
                f.u[offset(f.column_major, m, u_cols, i, j)] = x;
            }
        }
        for j in 0..v_cols {
            for (i, &x) in column(f.right.as_mut(), j).iter().enumerate() {
                f.vt[offset(f.column_major, v_cols, n, j, i)] = x.conj();
            }
        }
        0
    }
}

/// Where one matrix's factors go: its results (`u` and `vt` column-major
/// if `column_major`, else row-major) and the column-major work matrices
/// of its vectors.
struct Factors<'a, T: Element> {
    s: &'a mut [T::Real],
    u: &'a mut [T],
    vt: &'a mut [T],
    left: &'a mut Mat<T>,
    right: &'a mut Mat<T>,
    column_major: bool,
}
