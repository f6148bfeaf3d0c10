//! `lapack_?geqrf_ffi` and `lapack_?orgqr_ffi`/`?ungqr`: Householder QR
//! with LAPACK's reflectors, blocked as LAPACK's `?geqrf`/`?orgqr` on
//! faer's matrix product.
//!
//! faer's QR has its own reflectors (`H = I − v·vᴴ/τ` with a real `τ` and,
//! for complex matrices, a complex `β`) and skips columns it finds
//! negligible, so the reflectors here are LAPACK's (`?larfg`, as the
//! interpreter computes them): `H = I − τ·v·vᴴ`, `v[0] = 1`, `β = −sign(re
//! α)·‖[α, x]‖` real. JAX's later ops read them.
//!
//! Blocks of [`BLOCK`] columns: a panel is factored column by column
//! (`?geqr2`), its reflectors gathered into `I − V·T·Vᴴ` (`?larft`) and
//! applied to the columns right of it with three matrix products
//! (`?larfb`). `?orgqr` goes through the blocks backwards: the block's
//! reflectors applied to the columns right of it, then the block's columns
//! formed by `?org2r`.

use faer::linalg::matmul::{matmul, matmul_with_conj};
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Accum, ColRef, Conj, Mat, MatMut, MatRef, Par};

use super::element::{Element, Float};
use super::helpers::{column, for_each_batch, in_column_major, parallel, span};
use super::{Batch, Matrices};
use crate::pool::ThreadPool;

/// Columns per block.
const BLOCK: usize = 32;

/// The work (`rows·cols·BLOCK` of a block's update) from which its
/// products run on several threads (faer's products gain from about `256³`
/// multiply-adds: 256×256 · 256×256 in 0.12 ms against 0.16).
const PARALLEL: usize = 256 * 256 * 256;

/// A batch of QR factorizations (`?geqrf`) of `m × n` matrices.
pub(super) struct Qr {
    /// The matrices' count and sizes.
    pub a: Batch,
}

impl Qr {
    /// The factorization of the matrices `a`.
    pub fn new(a: &Matrices) -> Self {
        Qr { a: a.batch() }
    }

    /// # Safety
    ///
    /// `inputs[0]` holds the matrices; `outputs` are the factored matrices
    /// and the `tau`s; the matrices column-major if `column_major`, else
    /// row-major.
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
        let qr = span::<T>(outputs[0], self.a.count * size);
        let tau = span::<T>(outputs[1], self.a.count * k);
        for_each_batch(pool, self.a.count, size * k, |matrices, par| {
            let mut work = vec![T::zero(); size];
            for b in matrices {
                // SAFETY: matrix `b` of the operand (read) and of the
                // results (this task's alone).
                let (a, qr, tau) = unsafe {
                    (
                        a.slice(b * size, size),
                        qr.slice(b * size, size),
                        tau.slice(b * k, k),
                    )
                };
                in_column_major(a, qr, (m, n), column_major, &mut work, |w| {
                    factor(MatMut::from_column_major_slice_mut(w, m, n), tau, par)
                });
            }
        });
    }
}

/// A batch of `?orgqr`s: the first `n` columns of `H(0)·…·H(k−1)` from
/// `m × n` matrices with reflectors below their diagonals (`m ≥ n ≥ k`).
pub(super) struct HouseholderProduct {
    /// The matrices' count and sizes.
    pub a: Batch,
    k: usize,
}

impl HouseholderProduct {
    /// The products of the first `k` reflectors stored in the matrices
    /// `a`.
    pub fn new(a: &Matrices, k: usize) -> Self {
        HouseholderProduct { a: a.batch(), k }
    }

    /// # Safety
    ///
    /// `inputs` are the reflectors and the `tau`s; `outputs[0]` the
    /// product; the matrices column-major if `column_major`, else
    /// row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        column_major: bool,
        pool: &ThreadPool,
    ) {
        let (m, n, k) = (self.a.m, self.a.n, self.k);
        let size = m * n;
        let a = span::<T>(inputs[0], self.a.count * size);
        let tau = span::<T>(inputs[1], self.a.count * k);
        let q = span::<T>(outputs[0], self.a.count * size);
        for_each_batch(pool, self.a.count, size * n, |matrices, par| {
            let mut work = vec![T::zero(); size];
            for b in matrices {
                // SAFETY: matrix `b` of the operands (read) and of the
                // result (this task's alone).
                let (a, tau, q) = unsafe {
                    (
                        a.slice(b * size, size),
                        tau.slice(b * k, k),
                        q.slice(b * size, size),
                    )
                };
                in_column_major(a, q, (m, n), column_major, &mut work, |w| {
                    form_q(MatMut::from_column_major_slice_mut(w, m, n), tau, par)
                });
            }
        });
    }
}

/// `?geqrf` on the column-major `a`, in place, writing `tau`.
fn factor<T: Element>(mut a: MatMut<'_, T>, tau: &mut [T], par: Par) {
    let k = tau.len();
    let mut j = 0;
    while j < k {
        let width = BLOCK.min(k - j);
        let (_, _, _, trailing) = a.rb_mut().split_at_mut(j, j);
        let (mut panel, rest) = trailing.split_at_col_mut(width);
        let tau = &mut tau[j..j + width];
        factor_panel(panel.rb_mut(), tau);
        if rest.ncols() > 0 {
            let v = reflectors(panel.rb());
            let t = triangular_factor(v.as_ref(), tau);
            // Hᴴ = I − V·Tᴴ·Vᴴ.
            apply_block(v.as_ref(), t.as_ref(), Conj::Yes, rest, par);
        }
        j += width;
    }
}

/// `?geqr2` on a panel: for each column, its reflector and `H(j)ᴴ`
/// applied to the panel's columns right of it.
fn factor_panel<T: Element>(mut panel: MatMut<'_, T>, tau: &mut [T]) {
    for (c, tau) in tau.iter_mut().enumerate() {
        let (left, right) = panel.rb_mut().split_at_col_mut(c + 1);
        let x = column(left, c);
        let (alpha, below) = x[c..].split_first_mut().expect("a panel is tall");
        let (beta, t) = reflector(*alpha, below);
        *alpha = beta;
        *tau = t;
        if t != T::zero() {
            let rows = right.nrows() - c;
            reflect(below, t.conj(), right.subrows_mut(c, rows));
        }
    }
}

/// LAPACK's `?larfg`: the reflector `H = I − tau·v·vᴴ` with `Hᴴ·[alpha,
/// x] = [beta, 0, …]`, `beta` real. Overwrites `x` with `v[1..]` and
/// returns `(beta, tau)`: `beta = −sign(re alpha)·‖[alpha, x]‖`, `tau =
/// (beta − alpha)/beta`, `v = x/(alpha − beta)`; `tau = 0` and `beta =
/// alpha` when `x = 0` and `alpha` is real.
fn reflector<T: Element>(alpha: T, x: &mut [T]) -> (T, T) {
    let x_norm = ColRef::from_slice(x).norm_l2();
    if x_norm == T::Real::ZERO && alpha.im() == T::Real::ZERO {
        return (alpha, T::zero());
    }
    let norm = alpha.modulus().hypot(x_norm);
    let beta = T::real(if alpha.re().is_sign_negative() {
        norm
    } else {
        -norm
    });
    let scale = T::one() / (alpha - beta);
    x.iter_mut().for_each(|v| *v *= scale);
    (beta, (beta - alpha) / beta)
}

/// `y ← (I − tau·v·vᴴ)·y` for `v = [1, below…]`, on every column of `y`
/// at once: `w = vᴴ·y` as a row, then `y − v·(tau·w)`, both on faer's
/// vectorized products (a column at a time, `vᴴ·y` is a sum whose
/// additions wait on each other).
fn reflect<T: Element>(below: &[T], tau: T, mut y: MatMut<'_, T>) {
    let v = ColRef::from_slice(below);
    let (mut head, mut tail) = y.rb_mut().split_at_row_mut(1);
    let mut w = head.to_owned();
    matmul_with_conj(
        w.as_mut(),
        Accum::Add,
        v.transpose().as_mat(),
        Conj::Yes,
        tail.rb(),
        Conj::No,
        T::one(),
        Par::Seq,
    );
    for (h, &w) in head.rb_mut().row_mut(0).iter_mut().zip(w.row(0).iter()) {
        *h -= tau * w;
    }
    matmul(
        tail.rb_mut(),
        Accum::Add,
        v.as_mat(),
        w.as_ref(),
        -tau,
        Par::Seq,
    );
}

/// The reflectors stored below the diagonal of a panel as a matrix `V`
/// with a unit diagonal and zeros above it.
fn reflectors<T: Element>(panel: MatRef<'_, T>) -> Mat<T> {
    let (rows, cols) = panel.shape();
    Mat::from_fn(rows, cols, |i, c| {
        if i > c {
            panel[(i, c)]
        } else if i == c {
            T::one()
        } else {
            T::zero()
        }
    })
}

/// LAPACK's `?larft` (forward, columnwise): the upper triangular `T` with
/// `H(0)·…·H(b−1) = I − V·T·Vᴴ`: `T[i][i] = tau[i]` and `T[..i, i] =
/// −tau[i]·T[..i, ..i]·(V[:, ..i]ᴴ·vᵢ)`.
fn triangular_factor<T: Element>(v: MatRef<'_, T>, tau: &[T]) -> Mat<T> {
    let b = tau.len();
    let mut gram = Mat::<T>::zeros(b, b);
    matmul_with_conj(
        gram.as_mut(),
        Accum::Replace,
        v.transpose(),
        Conj::Yes,
        v,
        Conj::No,
        T::one(),
        Par::Seq,
    );
    let mut t = Mat::<T>::zeros(b, b);
    for i in 0..b {
        t[(i, i)] = tau[i];
        if tau[i] == T::zero() {
            continue;
        }
        for r in 0..i {
            let sum = (r..i).fold(T::zero(), |acc, s| acc + t[(r, s)] * gram[(s, i)]);
            t[(r, i)] = -tau[i] * sum;
        }
    }
    t
}

/// `c ← (I − V·op(T)·Vᴴ)·c`, `op(T)` being `Tᴴ` for `Conj::Yes` and `T`
/// otherwise (LAPACK's `?larfb`).
fn apply_block<T: Element>(
    v: MatRef<'_, T>,
    t: MatRef<'_, T>,
    adjoint: Conj,
    mut c: MatMut<'_, T>,
    par: Par,
) {
    let (b, cols) = (t.nrows(), c.ncols());
    let par = parallel(par, v.nrows() * cols * b, PARALLEL);
    let mut w = Mat::<T>::zeros(b, cols);
    matmul_with_conj(
        w.as_mut(),
        Accum::Replace,
        v.transpose(),
        Conj::Yes,
        c.rb(),
        Conj::No,
        T::one(),
        par,
    );
    let mut tw = Mat::<T>::zeros(b, cols);
    let op_t = if adjoint == Conj::Yes {
        t.transpose()
    } else {
        t
    };
    matmul_with_conj(
        tw.as_mut(),
        Accum::Replace,
        op_t,
        adjoint,
        w.as_ref(),
        Conj::No,
        T::one(),
        par,
    );
    matmul(c.rb_mut(), Accum::Add, v, tw.as_ref(), -T::one(), par);
}

/// `?orgqr` on the column-major `a`, in place: columns `k..` become the
/// unit vectors, then each block (last first) has its reflectors applied
/// to the columns right of it and its own columns formed (`?org2r`).
fn form_q<T: Element>(mut a: MatMut<'_, T>, tau: &[T], par: Par) {
    let n = a.ncols();
    let k = tau.len();
    for j in k..n {
        let x = column(a.rb_mut(), j);
        x.fill(T::zero());
        x[j] = T::one();
    }
    let starts: Vec<usize> = (0..k).step_by(BLOCK).collect();
    for &j in starts.iter().rev() {
        let width = BLOCK.min(k - j);
        let tau = &tau[j..j + width];
        let (_, _, _, trailing) = a.rb_mut().split_at_mut(j, j);
        let (mut block, rest) = trailing.split_at_col_mut(width);
        if rest.ncols() > 0 {
            let v = reflectors(block.rb());
            let t = triangular_factor(v.as_ref(), tau);
            apply_block(v.as_ref(), t.as_ref(), Conj::No, rest, par);
        }
        form_block(block.rb_mut(), tau);
        a.rb_mut().submatrix_mut(0, j, j, width).fill(T::zero());
    }
}

/// `?org2r` on a block whose rows start at its first reflector's: from
/// the last reflector back, `H(c)` applied to the block's columns right
/// of it, then column `c` becomes `−tau·v` below the diagonal, `1 − tau`
/// on it and zeros above.
fn form_block<T: Element>(mut block: MatMut<'_, T>, tau: &[T]) {
    for (c, &t) in tau.iter().enumerate().rev() {
        let (left, right) = block.rb_mut().split_at_col_mut(c + 1);
        let x = column(left, c);
        if t != T::zero() {
            let rows = right.nrows() - c;
            reflect(&x[c + 1..], t, right.subrows_mut(c, rows));
        }
        x[c + 1..].iter_mut().for_each(|v| *v = -t * *v);
        x[c] = T::one() - t;
        x[..c].fill(T::zero());
    }
}
