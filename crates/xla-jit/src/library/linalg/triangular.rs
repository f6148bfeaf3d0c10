//! `triangular-solve` and `lapack_?trsm_ffi` on faer's blocked triangular
//! solves, in place in the result (a copy of `b`, times `alpha` for
//! `trsm`).
//!
//! faer solves `T·Y = C` for a triangular `T`. The row-major `a`, seen
//! column-major, is `aᵀ`, so `op(a)` is a view of it without a copy. The
//! left side solves `op(a)·x = b` on a row-major view of `x`; the right
//! side `x·op(a) = b` as `op(a)ᵀ·xᵀ = bᵀ`, `xᵀ` being the row-major `x`
//! seen column-major.
//!
//! A zero on the diagonal (not a unit one) makes the unknowns of that
//! substitution step and of every later step NaN, as the interpreter
//! says; the earlier steps do not depend on it.

use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place_with_conj, solve_unit_lower_triangular_in_place_with_conj,
    solve_unit_upper_triangular_in_place_with_conj, solve_upper_triangular_in_place_with_conj,
};
use faer::{Conj, MatMut, MatRef, Par};
use xla_core::hlo::TransposeKind;

use super::{for_each_batch, span, Element, Matrices};
use crate::runtime::pool::ThreadPool;

/// A batch of triangular solves.
pub(super) struct TriangularSolve {
    pub count: usize,
    /// The order of `a`.
    pub m: usize,
    /// The number of right-hand sides.
    pub k: usize,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose: TransposeKind,
    /// `trsm`'s third operand, a scalar that scales `b`.
    alpha: bool,
}

impl TriangularSolve {
    /// The solves of the square matrices `a` with the right-hand sides
    /// `b` (`[…, m, k]` on the left side, `[…, k, m]` on the right).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        a: &Matrices,
        b: &Matrices,
        left_side: bool,
        lower: bool,
        unit_diagonal: bool,
        transpose: TransposeKind,
        alpha: bool,
    ) -> Option<Self> {
        let m = a.rows;
        let (rows, k) = if left_side {
            (b.rows, b.cols)
        } else {
            (b.cols, b.rows)
        };
        (a.cols == m && rows == m && a.batch_dims == b.batch_dims && a.ty == b.ty).then_some(
            TriangularSolve {
                count: a.count,
                m,
                k,
                left_side,
                lower,
                unit_diagonal,
                transpose,
                alpha,
            },
        )
    }

    /// # Safety
    ///
    /// `inputs` are `a`, `b` and (for `alpha`) a scalar; `outputs[0]` is
    /// the result; all row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        pool: &ThreadPool,
    ) {
        let (m, k) = (self.m, self.k);
        let a = span::<T>(inputs[0], self.count * m * m);
        let b = span::<T>(inputs[1], self.count * m * k);
        let out = span::<T>(outputs[0], self.count * m * k);
        // SAFETY: the scalar operand holds at least one element.
        let alpha = self.alpha.then(|| unsafe { *inputs[2].cast::<T>() });
        for_each_batch(pool, self.count, m * m * k, |matrices, par| {
            for i in matrices {
                // SAFETY: matrix `i` of the operands (read) and of the
                // result (this task's alone).
                let (a, b, out) = unsafe {
                    (
                        a.slice(i * m * m, m * m),
                        b.slice(i * m * k, m * k),
                        out.slice(i * m * k, m * k),
                    )
                };
                match alpha {
                    Some(alpha) => out
                        .iter_mut()
                        .zip(b.iter())
                        .for_each(|(x, &b)| *x = alpha * b),
                    None => out.copy_from_slice(b),
                }
                if m > 0 && k > 0 {
                    self.solve(a, out, par);
                    self.singular(a, out);
                }
            }
        });
    }

    /// Solves one system in place in `x` (which holds `b`).
    fn solve<T: Element>(&self, a: &[T], x: &mut [T], par: Par) {
        let (m, k) = (self.m, self.k);
        let a_t = MatRef::from_column_major_slice(a, m, m);
        let transposed = self.transpose != TransposeKind::NoTranspose;
        let conj = if self.transpose == TransposeKind::Adjoint {
            Conj::Yes
        } else {
            Conj::No
        };
        // op(a) is lower triangular when `a` is lower and not transposed,
        // or upper and transposed.
        let op_lower = self.lower != transposed;
        if self.left_side {
            let op = if transposed { a_t } else { a_t.transpose() };
            let rhs = MatMut::from_column_major_slice_mut(x, k, m).transpose_mut();
            self.substitute(op, op_lower, conj, rhs, par);
        } else {
            let op_t = if transposed { a_t.transpose() } else { a_t };
            let rhs = MatMut::from_column_major_slice_mut(x, m, k);
            self.substitute(op_t, !op_lower, conj, rhs, par);
        }
    }

    /// `t·y = c` in place in `c`, `t` lower (or upper) triangular, its
    /// conjugate if `conj`.
    fn substitute<T: Element>(
        &self,
        t: MatRef<'_, T>,
        lower: bool,
        conj: Conj,
        c: MatMut<'_, T>,
        par: Par,
    ) {
        match (lower, self.unit_diagonal) {
            (true, false) => solve_lower_triangular_in_place_with_conj(t, conj, c, par),
            (true, true) => solve_unit_lower_triangular_in_place_with_conj(t, conj, c, par),
            (false, false) => solve_upper_triangular_in_place_with_conj(t, conj, c, par),
            (false, true) => solve_unit_upper_triangular_in_place_with_conj(t, conj, c, par),
        }
    }

    /// Makes NaN the unknowns of the first substitution step whose
    /// diagonal entry is zero and of every later step.
    fn singular<T: Element>(&self, a: &[T], x: &mut [T]) {
        if self.unit_diagonal {
            return;
        }
        let (m, k) = (self.m, self.k);
        let zero = |j: &usize| a[j * m + j] == T::zero();
        // The left side substitutes forward when op(a) is lower, the right
        // side when it is upper.
        let forward =
            (self.lower != (self.transpose != TransposeKind::NoTranspose)) == self.left_side;
        let steps = if forward {
            (0..m).find(zero).map(|j| j..m)
        } else {
            (0..m).rev().find(zero).map(|j| 0..j + 1)
        };
        for q in steps.into_iter().flatten() {
            if self.left_side {
                x[q * k..(q + 1) * k].fill(T::nan());
            } else {
                (0..k).for_each(|r| x[r * m + q] = T::nan());
            }
        }
    }
}
