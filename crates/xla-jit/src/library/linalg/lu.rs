//! `lapack_?getrf_ffi`: LU with partial pivoting, LAPACK's recursive
//! `?getrf2` on faer's triangular solve and matrix product.
//!
//! faer's own LU divides by a zero pivot; LAPACK (and the interpreter)
//! leave that column unscaled, report the first zero pivot in `info` and
//! go on, which the unblocked steps here do. Pivots are the first entry of
//! largest `|re| + |im|` (LAPACK's `i?amax`), rows are swapped whole, and
//! `ipiv` holds the 1-based row each row `j` was swapped with.

use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::solve_unit_lower_triangular_in_place;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Accum, MatMut, Par};

use super::element::{Element, Float};
use super::helpers::{column, for_each_batch, in_column_major, parallel, span};
use super::{Batch, Matrices};
use crate::pool::ThreadPool;

/// Columns at most which a block is factored by unblocked steps (32 did a
/// little better than 16 and 8 on `f32` 256×256 and 1024×1024 on Emerald
/// Rapids; on Zen 4, 16 and 32 were even and 64 slower).
const UNBLOCKED: usize = 32;

/// The work (`rows·cols·depth` of a step's matrix product) from which a
/// step's triangular solve and product run on several threads: only the
/// first step of a 1024×1024 matrix (7.8 ms against 8.8 on one thread and
/// 8.9 from `256³` on).
const PARALLEL: usize = 512 * 512 * 512;

/// A batch of LU factorizations of `m × n` matrices.
pub(super) struct Lu {
    /// The matrices' count and sizes.
    pub a: Batch,
}

impl Lu {
    /// The factorization of the matrices `a`.
    pub fn new(a: &Matrices) -> Self {
        Lu { a: a.batch() }
    }

    /// # Safety
    ///
    /// `inputs[0]` holds the matrices; `outputs` are the factors, the
    /// `s32` pivots and the `s32` infos; the matrices column-major if
    /// `column_major`, else row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        column_major: bool,
        pool: &ThreadPool,
    ) {
        let (m, n) = (self.a.m, self.a.n);
        let (size, k) = (m * n, m.min(n));
        let a = span::<T>(inputs[0], self.a.count * size);
        let lu = span::<T>(outputs[0], self.a.count * size);
        let ipiv = span::<i32>(outputs[1], self.a.count * k);
        let info = span::<i32>(outputs[2], self.a.count);
        for_each_batch(pool, self.a.count, size * k, |matrices, par| {
            let mut work = vec![T::zero(); size];
            let mut pivots = vec![0usize; k];
            for b in matrices {
                // SAFETY: matrix `b` of the operand (read) and of the
                // results (this task's alone).
                let (a, lu, ipiv, info) = unsafe {
                    (
                        a.slice(b * size, size),
                        lu.slice(b * size, size),
                        ipiv.slice(b * k, k),
                        info.slice(b, 1),
                    )
                };
                let first_zero = in_column_major(a, lu, (m, n), column_major, &mut work, |w| {
                    factor(
                        MatMut::from_column_major_slice_mut(w, m, n),
                        &mut pivots,
                        par,
                    )
                });
                for (out, &p) in ipiv.iter_mut().zip(&pivots) {
                    *out = p as i32 + 1;
                }
                info[0] = first_zero.map_or(0, |j| j as i32 + 1);
            }
        });
    }
}

/// Factors `a` in place (LAPACK's `?getrf2`): the left half of the
/// columns recursively, its swaps applied to the right half, `U₁₂ =
/// L₁₁⁻¹·A₁₂`, `A₂₂ − L₂₁·U₁₂` factored recursively and its swaps applied
/// to `L₂₁`. Writes the 0-based pivot rows; returns the first zero pivot.
fn factor<T: Element>(mut a: MatMut<'_, T>, ipiv: &mut [usize], par: Par) -> Option<usize> {
    let (m, n) = a.shape();
    let k = m.min(n);
    if k <= UNBLOCKED {
        return unblocked(a, ipiv);
    }
    let n1 = k / 2;
    let (mut left, mut right) = a.rb_mut().split_at_col_mut(n1);
    let first = factor(left.rb_mut(), &mut ipiv[..n1], par);
    swap_rows(right.rb_mut(), &ipiv[..n1]);
    let (mut a12, a22) = right.split_at_row_mut(n1);
    {
        let step = parallel(par, (m - n1) * (n - n1) * n1, PARALLEL);
        let (a11, a21) = left.rb().split_at_row(n1);
        solve_unit_lower_triangular_in_place(a11, a12.rb_mut(), step);
        let mut a22 = a22;
        matmul(a22.rb_mut(), Accum::Add, a21, a12.rb(), -T::one(), step);
        let second = factor(a22, &mut ipiv[n1..k], par);
        swap_rows(left.rb_mut().subrows_mut(n1, m - n1), &ipiv[n1..k]);
        ipiv[n1..k].iter_mut().for_each(|p| *p += n1);
        first.or(second.map(|j| j + n1))
    }
}

/// LAPACK's `?getf2` on a block: for each column, the pivot, the swap of
/// whole rows, the column below the pivot scaled by its inverse (divided
/// by it when the inverse would overflow), unless the pivot is zero, and
/// the update of the columns to the right.
fn unblocked<T: Element>(mut a: MatMut<'_, T>, ipiv: &mut [usize]) -> Option<usize> {
    let (m, n) = a.shape();
    let mut first_zero = None;
    for j in 0..m.min(n) {
        let (p, pivot) = {
            let x = column(a.rb_mut(), j);
            let mut p = j;
            let mut largest = x[j].abs1();
            for (i, x) in x.iter().enumerate().skip(j + 1) {
                let magnitude = x.abs1();
                if magnitude > largest {
                    (p, largest) = (i, magnitude);
                }
            }
            (p, x[p])
        };
        ipiv[j] = p;
        if pivot != T::zero() {
            if p != j {
                for c in 0..n {
                    column(a.rb_mut(), c).swap(j, p);
                }
            }
            let below = &mut column(a.rb_mut(), j)[j + 1..];
            if pivot.modulus() >= T::Real::MIN_POSITIVE {
                let inverse = T::one() / pivot;
                below.iter_mut().for_each(|x| *x *= inverse);
            } else {
                below.iter_mut().for_each(|x| *x /= pivot);
            }
        } else if first_zero.is_none() {
            first_zero = Some(j);
        }
        // The columns to the right less `l·uᵀ` (`l` below the pivot, `u`
        // the pivot's row to the right), a rank-1 product on faer's
        // vectorized kernels.
        let (left, right) = a.rb_mut().split_at_col_mut(j + 1);
        let (u, below) = right.split_at_row_mut(j + 1);
        let l = left.rb().col(j).subrows(j + 1, m - j - 1);
        let u = u.rb().row(j);
        matmul(
            below,
            Accum::Add,
            l.as_mat(),
            u.as_mat(),
            -T::one(),
            Par::Seq,
        );
    }
    first_zero
}

/// Swaps rows `j` and `ipiv[j]` of `a`, for each `j` in order.
fn swap_rows<T: Element>(mut a: MatMut<'_, T>, ipiv: &[usize]) {
    for c in 0..a.ncols() {
        let x = column(a.rb_mut(), c);
        for (j, &p) in ipiv.iter().enumerate() {
            if p != j {
                x.swap(j, p);
            }
        }
    }
}
