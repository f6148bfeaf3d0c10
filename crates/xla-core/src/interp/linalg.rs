//! Cholesky and triangular solve (`docs/semantics.md`, *Linear algebra*), on batches of
//! matrices in the two minor dimensions.
//!
//! Real types compute in `f64` and complex types in `c128`, rounding once
//! to the element type at the end; the Project rules for non-positive-definite
//! and singular matrices are followed exactly.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::eval::invalid;
use super::InterpError;
use crate::hlo::{HloInstruction, TransposeKind, TriangularSolveOptions};
use crate::{Literal, NativeType, PrimitiveType, C128};

/// The numbers linear algebra computes with: `f64` or `c128`.
pub(super) trait Scalar:
    NativeType
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// The complex conjugate (the identity for reals).
    fn conj(self) -> Self;
    /// The real part.
    fn re(self) -> f64;
    /// The imaginary part (0 for reals).
    fn im(self) -> f64;
    /// The magnitude `|x|` (without overflow for complex: `hypot`).
    fn abs(self) -> f64;
    /// A real number.
    fn real(x: f64) -> Self;
}

impl Scalar for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn conj(self) -> Self {
        self
    }
    fn re(self) -> f64 {
        self
    }
    fn im(self) -> f64 {
        0.0
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn real(x: f64) -> Self {
        x
    }
}

impl Scalar for C128 {
    const ZERO: Self = C128::new(0.0, 0.0);
    const ONE: Self = C128::new(1.0, 0.0);
    fn conj(self) -> Self {
        C128::conj(&self)
    }
    fn re(self) -> f64 {
        self.re
    }
    fn im(self) -> f64 {
        self.im
    }
    fn abs(self) -> f64 {
        self.norm()
    }
    fn real(x: f64) -> Self {
        C128::new(x, 0.0)
    }
}

/// The elements of `l` in row-major order, converted to `S`.
pub(super) fn values<S: Scalar>(l: &Literal) -> Result<Vec<S>, InterpError> {
    Ok(l.convert(S::TYPE)?.to_vec::<S>()?)
}

/// Row-major `values` of shape `dims`, rounded to `ty`.
pub(super) fn literal<S: Scalar>(
    dims: &[i64],
    values: Vec<S>,
    ty: PrimitiveType,
) -> Result<Literal, InterpError> {
    Ok(Literal::from_vec(dims, values)?.convert(ty)?)
}

/// `(batch count, M)` of a `[…, M, M]` operand.
fn square(instr: &HloInstruction, l: &Literal) -> Result<(usize, usize), InterpError> {
    let dims = l.array_shape()?.dims();
    match dims {
        [batch @ .., m, n] if m == n => Ok((batch.iter().product::<i64>() as usize, *m as usize)),
        _ => Err(invalid(
            instr,
            format!("operand 0 {} is not a batch of square matrices", l.shape()),
        )),
    }
}

/// `cholesky(a), lower=…`: `L` with `a = L·Lᴴ` (lower) or `U` with
/// `a = Uᴴ·U`, reading only that triangle of `a`, zeros in the other. A
/// matrix with a negative or NaN pivot gives NaN everywhere; a zero pivot
/// gives a NaN diagonal entry (`docs/semantics.md`, *Cholesky*).
pub(super) fn cholesky(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let lower = instr.attrs.cholesky_lower.unwrap_or(false);
    let a = operands[0];
    let ty = a.array_shape()?.element_type();
    if ty.is_complex() {
        cholesky_batch::<C128>(instr, a, lower)
    } else {
        cholesky_batch::<f64>(instr, a, lower)
    }
}

fn cholesky_batch<S: Scalar>(
    instr: &HloInstruction,
    a: &Literal,
    lower: bool,
) -> Result<Literal, InterpError> {
    let (batch, m) = square(instr, a)?;
    let mut data = values::<S>(a)?;
    for matrix in data.chunks_exact_mut((m * m).max(1)).take(batch) {
        let factor = cholesky_matrix(matrix, m, lower);
        matrix.copy_from_slice(&factor);
    }
    let shape = a.array_shape()?;
    literal(shape.dims(), data, shape.element_type())
}

/// The factor of one row-major `m×m` matrix (`docs/semantics.md`, *Cholesky*):
/// NaN everywhere if a pivot is negative or NaN.
pub(super) fn cholesky_matrix<S: Scalar>(a: &[S], m: usize, lower: bool) -> Vec<S> {
    let (factor, pivots) = cholesky_factor(a, m, lower);
    if pivots.iter().any(|p| p.sqrt().is_nan()) {
        vec![S::real(f64::NAN); m * m]
    } else {
        factor
    }
}

/// The factor of one row-major `m×m` matrix, zeros in the other triangle,
/// and its pivots `pⱼ = a[j][j] − Σₖ₍ⱼ |l[j][k]|²` (the values whose square
/// roots are the diagonal entries), without any failure rule:
/// `l[j][j] = pⱼ/√pⱼ` (NaN for a zero pivot) and the entries below it
/// divided by `√pⱼ`.
pub(super) fn cholesky_factor<S: Scalar>(a: &[S], m: usize, lower: bool) -> (Vec<S>, Vec<f64>) {
    // The upper variant factors the matrix whose lower triangle is the
    // conjugate transpose of `a`'s upper triangle, then transposes back.
    let at = |i: usize, j: usize| {
        if lower {
            a[i * m + j]
        } else {
            a[j * m + i].conj()
        }
    };
    let mut l = vec![S::ZERO; m * m];
    let mut pivots = Vec::with_capacity(m);
    for j in 0..m {
        let mut p = at(j, j).re();
        for k in 0..j {
            p -= (l[j * m + k] * l[j * m + k].conj()).re();
        }
        let d = p.sqrt();
        pivots.push(p);
        l[j * m + j] = S::real(p / d);
        for i in j + 1..m {
            let mut s = at(i, j);
            for k in 0..j {
                s = s - l[i * m + k] * l[j * m + k].conj();
            }
            l[i * m + j] = s / S::real(d);
        }
    }
    if !lower {
        l = (0..m * m).map(|e| l[(e % m) * m + e / m].conj()).collect();
    }
    (l, pivots)
}

/// `triangular-solve(a, b), left_side=… lower=… unit_diagonal=…
/// transpose_a=…` (`docs/semantics.md`, *Triangular solve*): `op(a)·x = b` or `x·op(a) =
/// b`, reading only the selected triangle of `a` (and not its diagonal when it is a unit
/// diagonal). A zero on the diagonal makes the unknowns of that
/// substitution step and of every later step NaN.
pub(super) fn triangular_solve(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let options = instr.attrs.triangular_solve.ok_or_else(|| {
        invalid(
            instr,
            "needs left_side, lower, unit_diagonal and transpose_a",
        )
    })?;
    let ty = operands[0].array_shape()?.element_type();
    if ty.is_complex() {
        solve_batch::<C128>(instr, operands, &options)
    } else {
        solve_batch::<f64>(instr, operands, &options)
    }
}

fn solve_batch<S: Scalar>(
    instr: &HloInstruction,
    operands: &[&Literal],
    options: &TriangularSolveOptions,
) -> Result<Literal, InterpError> {
    let (batch, m) = square(instr, operands[0])?;
    let b_shape = operands[1].array_shape()?;
    let b_dims = b_shape.dims();
    let rank = b_dims.len();
    let k = if rank < 2 {
        0
    } else if options.left_side {
        b_dims[rank - 1] as usize
    } else {
        b_dims[rank - 2] as usize
    };
    let b_elements = b_shape.element_count() as usize;
    if b_elements != batch * m * k {
        return Err(invalid(
            instr,
            format!(
                "operand 1 {} does not fit operand 0 {}",
                operands[1].shape(),
                operands[0].shape()
            ),
        ));
    }
    let a = values::<S>(operands[0])?;
    let mut b = values::<S>(operands[1])?;
    if m > 0 && k > 0 {
        for (a, b) in a.chunks_exact(m * m).zip(b.chunks_exact_mut(m * k)) {
            solve_matrix(a, b, m, k, options);
        }
    }
    literal(b_dims, b, b_shape.element_type())
}

/// Solves one system in place: `a` is row-major `m×m`, `b` row-major `m×k`
/// (left side) or `k×m` (right side).
pub(super) fn solve_matrix<S: Scalar>(
    a: &[S],
    b: &mut [S],
    m: usize,
    k: usize,
    options: &TriangularSolveOptions,
) {
    let transposed = options.transpose_a != TransposeKind::NoTranspose;
    // t = op(triangle(a)), read lazily: t[i][j].
    let t = |i: usize, j: usize| -> S {
        let (r, c) = if transposed { (j, i) } else { (i, j) };
        let inside = if options.lower { r >= c } else { r <= c };
        let v = if r == c && options.unit_diagonal {
            S::ONE
        } else if inside {
            a[r * m + c]
        } else {
            S::ZERO
        };
        if options.transpose_a == TransposeKind::Adjoint {
            v.conj()
        } else {
            v
        }
    };
    let t_lower = options.lower != transposed;
    // Left: row i of x is unknown step i; right: column j of x is.
    // x·t = b is tᵀ·xᵀ = bᵀ, so the right side substitutes in the other
    // direction.
    let forward = t_lower == options.left_side;
    let steps: Vec<usize> = if forward {
        (0..m).collect()
    } else {
        (0..m).rev().collect()
    };
    // Unknown q of right-hand side r: x[q][r] (left side), x[r][q] (right).
    let index = |q: usize, r: usize| {
        if options.left_side {
            q * k + r
        } else {
            r * m + q
        }
    };
    let mut singular = false;
    for (n, &step) in steps.iter().enumerate() {
        let diagonal = t(step, step);
        singular |= diagonal == S::ZERO;
        for r in 0..k {
            let target = index(step, r);
            if singular {
                b[target] = S::real(f64::NAN);
                continue;
            }
            let mut v = b[target];
            for &q in &steps[..n] {
                let coefficient = if options.left_side {
                    t(step, q)
                } else {
                    t(q, step)
                };
                v = v - coefficient * b[index(q, r)];
            }
            b[target] = v / diagonal;
        }
    }
}
