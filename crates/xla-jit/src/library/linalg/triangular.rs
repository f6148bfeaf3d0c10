//! `triangular-solve` and `lapack_?trsm_ffi` on faer's blocked triangular
//! solves, in place in the result (a copy of `b`, times `alpha` for
//! `trsm`).
//!
//! faer solves `T·Y = C` for a triangular `T`, any strides: `a`, `op(a)`
//! and `x` are views of the buffers, without copies. The left side solves
//! `op(a)·x = b`, the right side `x·op(a) = b` as `op(a)ᵀ·xᵀ = bᵀ`.
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

use super::element::Element;
use super::helpers::{for_each_batch, offset, parallel, span};
use super::Matrices;
use crate::pool::ThreadPool;

/// The work (`m²·k`) from which faer's solve runs on several threads:
/// `512² × 512` (1.0 ms against 1.1; 1024² × 1024: 5.8 against 7.7; but
/// `512² × 64`: 0.55 against 0.14).
const PARALLEL: usize = 512 * 512 * 512;

/// A batch of triangular solves.
pub(super) struct TriangularSolve {
    /// The number of systems.
    pub count: usize,
    /// The order of `a`.
    pub m: usize,
    /// The number of right-hand sides.
    pub k: usize,
    /// `op(a)·x = b` (else `x·op(a) = b`).
    left_side: bool,
    /// `a`'s lower triangle is read (else its upper one).
    lower: bool,
    /// The diagonal is taken as ones, not read.
    unit_diagonal: bool,
    /// `op(a)`: `a`, `aᵀ` or `aᴴ`.
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
    /// the result; the matrices column-major if `column_major`, else
    /// row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        column_major: bool,
        pool: &ThreadPool,
    ) {
        let (m, k) = (self.m, self.k);
        let a = span::<T>(inputs[0], self.count * m * m);
        let b = span::<T>(inputs[1], self.count * m * k);
        let out = span::<T>(outputs[0], self.count * m * k);
        // SAFETY: the scalar operand holds at least one element.
        let alpha = self.alpha.then(|| unsafe { *inputs[2].cast::<T>() });
        for_each_batch(pool, self.count, m * m * k, |matrices, par| {
            let par = parallel(par, m * m * k, PARALLEL);
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
                    self.solve(a, out, column_major, par);
                    self.singular(a, out, column_major);
                }
            }
        });
    }

    /// Solves one system in place in `x` (which holds `b`).
    fn solve<T: Element>(&self, a: &[T], x: &mut [T], column_major: bool, par: Par) {
        let (m, k) = (self.m, self.k);
        let stored = MatRef::from_column_major_slice(a, m, m);
        let a = if column_major {
            stored
        } else {
            stored.transpose()
        };
        let transposed = self.transpose != TransposeKind::NoTranspose;
        let op = if transposed { a.transpose() } else { a };
        let conj = if self.transpose == TransposeKind::Adjoint {
            Conj::Yes
        } else {
            Conj::No
        };
        // op(a) is lower triangular when `a` is lower and not transposed,
        // or upper and transposed.
        let op_lower = self.lower != transposed;
        // `x` (`m × k` on the left side, `k × m` on the right) or its
        // transpose.
        let (rows, cols) = if self.left_side { (m, k) } else { (k, m) };
        let stored = if column_major {
            MatMut::from_column_major_slice_mut(x, rows, cols)
        } else {
            MatMut::from_column_major_slice_mut(x, cols, rows).transpose_mut()
        };
        if self.left_side {
            self.substitute(op, op_lower, conj, stored, par);
        } else {
            self.substitute(op.transpose(), !op_lower, conj, stored.transpose_mut(), par);
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
    fn singular<T: Element>(&self, a: &[T], x: &mut [T], column_major: bool) {
        if self.unit_diagonal {
            return;
        }
        let (m, k) = (self.m, self.k);
        let (rows, cols) = if self.left_side { (m, k) } else { (k, m) };
        let at = |i: usize, j: usize| offset(column_major, rows, cols, i, j);
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
            for r in 0..k {
                let e = if self.left_side { at(q, r) } else { at(r, q) };
                x[e] = T::nan();
            }
        }
    }
}
