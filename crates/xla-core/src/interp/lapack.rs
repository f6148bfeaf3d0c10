//! The LAPACK custom calls JAX emits on CPU (jaxlib's typed-FFI targets),
//! built into every interpreter:
//!
//! * `lapack_{s,d,c,z}potrf_ffi(a)`, `backend_config={uplo = 76 : ui8}`:
//!   `(factor, info)` — the Cholesky factor in the `uplo` triangle (`'L'` =
//!   76 or `'U'` = 85), the other triangle left as the operand's, and
//!   `info` (`s32`, one per matrix): 0, or `j + 1` for the first pivot `j`
//!   that is not positive (LAPACK's rule, unlike the HLO `cholesky`, also
//!   flags a zero pivot). After a failure the factor's contents are
//!   unspecified; JAX replaces them with NaN.
//! * `lapack_{s,d,c,z}trsm_ffi(a, b[, alpha])`, `backend_config={diag, side,
//!   trans_x, uplo}`: the triangular solve `op(a)·x = alpha·b` (`side` `'L'`)
//!   or `x·op(a) = alpha·b` (`'R'`), `trans_x` `'N'`, `'T'` or `'C'`,
//!   `diag` `'U'` (unit) or `'N'`, computed like the HLO `triangular-solve`.
//! * `lapack_{s,d,c,z}getrf_ffi(a)` (`jnp.linalg.solve`, `inv`, `det`,
//!   `slogdet`, `lax.linalg.lu`): `(lu, ipiv, info)` — the LU factorization
//!   with partial pivoting `P·a = L·U` of each `[…, M, N]` matrix, `L` unit
//!   lower (below the diagonal of `lu`) and `U` upper; `ipiv` (`s32`,
//!   `min(M, N)` per matrix, 1-based) says row `j` was swapped with row
//!   `ipiv[j] − 1`, the pivot being the first entry of largest magnitude
//!   (`|re| + |im|` for complex, as LAPACK's `i?amax`); `info` is 0, or
//!   `j + 1` for the first exactly zero pivot `U[j][j]` (the factorization
//!   goes on).

use super::custom_call::{CustomCallArgs, CustomCallRegistry};
use super::linalg::{cholesky_factor, literal, solve_matrix, values, Scalar};
use super::{lapack_eig, lapack_qr, lapack_svd};
use crate::hlo::{TransposeKind, TriangularSolveOptions};
use crate::{Literal, C128};

/// Adds the LAPACK targets to `registry` (also those of
/// [`super::lapack_qr`], [`super::lapack_eig`] and [`super::lapack_svd`]).
pub(super) fn register(registry: &mut CustomCallRegistry) {
    for prefix in ["s", "d", "c", "z"] {
        registry.register_with_args(format!("lapack_{prefix}potrf_ffi"), potrf);
        registry.register_with_args(format!("lapack_{prefix}trsm_ffi"), trsm);
        registry.register_with_args(format!("lapack_{prefix}getrf_ffi"), getrf);
    }
    lapack_qr::register(registry);
    lapack_eig::register(registry);
    lapack_svd::register(registry);
}

/// The integer of a `key = value : type` entry of an MLIR dictionary such
/// as `{diag = 85 : ui8, side = 76 : ui8}`.
pub(super) fn attribute(config: &str, key: &str) -> Result<u8, String> {
    super::backend_config_integer(config, key)
        .ok_or_else(|| format!("backend_config `{config}` has no integer `{key}`"))
}

/// The `uplo` attribute: `true` for `'L'` (the lower triangle), `false`
/// for `'U'`.
pub(super) fn lower_triangle(config: &str) -> Result<bool, String> {
    match attribute(config, "uplo")? {
        b'L' => Ok(true),
        b'U' => Ok(false),
        other => Err(format!("uplo {other} is neither 'L' nor 'U'")),
    }
}

/// `(batch dims, M, N)` of operand `index`, a `[…, M, N]` batch of
/// matrices: `f32[2,5,3]` is `([2], 5, 3)`.
pub(super) fn matrices(a: &Literal, index: usize) -> Result<(Vec<i64>, usize, usize), String> {
    match a.array_shape().map_err(|e| e.to_string())?.dims() {
        [batch @ .., m, n] => Ok((batch.to_vec(), *m as usize, *n as usize)),
        _ => Err(format!(
            "operand {index} {} is not a batch of matrices",
            a.shape()
        )),
    }
}

/// `(batch dims, M)` of a `[…, M, M]` operand.
fn square(a: &Literal) -> Result<(Vec<i64>, usize), String> {
    let dims = a.array_shape().map_err(|e| e.to_string())?.dims().to_vec();
    match dims.as_slice() {
        [batch @ .., m, n] if m == n => Ok((batch.to_vec(), *m as usize)),
        _ => Err(format!(
            "operand 0 {} is not a batch of square matrices",
            a.shape()
        )),
    }
}

fn potrf(args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let lower = lower_triangle(args.backend_config)?;
    let a = args.operands.first().ok_or("no operand")?;
    if a.element_type().is_some_and(|t| t.is_complex()) {
        potrf_batch::<C128>(a, lower)
    } else {
        potrf_batch::<f64>(a, lower)
    }
    .map_err(|e| e.to_string())
}

fn potrf_batch<S: Scalar>(a: &Literal, lower: bool) -> Result<Literal, String> {
    let (batch, m) = square(a)?;
    let shape = a.array_shape().map_err(|e| e.to_string())?;
    let mut data = values::<S>(a).map_err(|e| e.to_string())?;
    let mut info = vec![0; batch.iter().product::<i64>() as usize];
    for (matrix, info) in data.chunks_exact_mut((m * m).max(1)).zip(&mut info) {
        let (factor, pivots) = cholesky_factor(matrix, m, lower);
        *info = pivots
            .iter()
            .position(|&p| p <= 0.0 || p.is_nan())
            .map_or(0, |j| j as i32 + 1);
        for (e, v) in matrix.iter_mut().enumerate() {
            let (i, j) = (e / m, e % m);
            if (lower && i >= j) || (!lower && i <= j) {
                *v = factor[e];
            }
        }
    }
    Ok(Literal::tuple(vec![
        literal(shape.dims(), data, shape.element_type()).map_err(|e| e.to_string())?,
        Literal::from_vec(&batch, info).map_err(|e| e.to_string())?,
    ]))
}

/// The solve a `lapack_?trsm_ffi` call's `backend_config` asks for.
pub(crate) fn trsm_options(config: &str) -> Result<TriangularSolveOptions, String> {
    let letter = |key| attribute(config, key);
    Ok(TriangularSolveOptions {
        left_side: letter("side")? == b'L',
        lower: letter("uplo")? == b'L',
        unit_diagonal: letter("diag")? == b'U',
        transpose_a: match letter("trans_x")? {
            b'N' => TransposeKind::NoTranspose,
            b'T' => TransposeKind::Transpose,
            b'C' => TransposeKind::Adjoint,
            other => return Err(format!("trans_x {other} is not 'N', 'T' or 'C'")),
        },
    })
}

fn trsm(args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let options = trsm_options(args.backend_config)?;
    let [a, b, rest @ ..] = args.operands else {
        return Err(format!(
            "needs 2 or 3 operands, got {}",
            args.operands.len()
        ));
    };
    if a.element_type().is_some_and(|t| t.is_complex()) {
        trsm_batch::<C128>(a, b, rest.first().copied(), &options)
    } else {
        trsm_batch::<f64>(a, b, rest.first().copied(), &options)
    }
}

fn trsm_batch<S: Scalar>(
    a: &Literal,
    b: &Literal,
    alpha: Option<&Literal>,
    options: &TriangularSolveOptions,
) -> Result<Literal, String> {
    let (_, m) = square(a)?;
    let b_shape = b.array_shape().map_err(|e| e.to_string())?;
    let b_dims = b_shape.dims();
    let rank = b_dims.len();
    if rank < 2 {
        return Err(format!(
            "operand 1 {} is not a batch of matrices",
            b.shape()
        ));
    }
    let k = b_dims[if options.left_side {
        rank - 1
    } else {
        rank - 2
    }] as usize;
    let a_values = values::<S>(a).map_err(|e| e.to_string())?;
    let mut x = values::<S>(b).map_err(|e| e.to_string())?;
    if let Some(alpha) = alpha {
        let alpha = values::<S>(alpha).map_err(|e| e.to_string())?;
        let alpha = *alpha.first().ok_or("alpha is empty")?;
        x.iter_mut().for_each(|v| *v = alpha * *v);
    }
    if a_values.len() / (m * m).max(1) * m * k != x.len() {
        return Err(format!(
            "operand 1 {} does not fit operand 0 {}",
            b.shape(),
            a.shape()
        ));
    }
    if m > 0 && k > 0 {
        for (a, x) in a_values.chunks_exact(m * m).zip(x.chunks_exact_mut(m * k)) {
            solve_matrix(a, x, m, k, options);
        }
    }
    literal(b_dims, x, b_shape.element_type()).map_err(|e| e.to_string())
}

fn getrf(args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let a = args.operands.first().ok_or("no operand")?;
    if a.element_type().is_some_and(|t| t.is_complex()) {
        getrf_batch::<C128>(a, |z| z.re.abs() + z.im.abs())
    } else {
        getrf_batch::<f64>(a, f64::abs)
    }
}

/// LU with partial pivoting of every matrix of `a`; `magnitude` ranks the
/// pivot candidates.
fn getrf_batch<S: Scalar>(a: &Literal, magnitude: fn(S) -> f64) -> Result<Literal, String> {
    let shape = a.array_shape().map_err(|e| e.to_string())?;
    let (batch, m, n) = matrices(a, 0)?;
    let k = m.min(n);
    let count = batch.iter().product::<i64>() as usize;
    let mut data = values::<S>(a).map_err(|e| e.to_string())?;
    let (mut pivots, mut info) = (vec![0i32; count * k], vec![0i32; count]);
    if m * n > 0 {
        for ((lu, ipiv), info) in data
            .chunks_exact_mut(m * n)
            .zip(pivots.chunks_exact_mut(k.max(1)))
            .zip(&mut info)
        {
            *info = lu_factor(lu, m, n, &mut ipiv[..k], magnitude);
        }
    }
    let mut pivot_dims = batch.clone();
    pivot_dims.push(k as i64);
    Ok(Literal::tuple(vec![
        literal(shape.dims(), data, shape.element_type()).map_err(|e| e.to_string())?,
        Literal::from_vec(&pivot_dims, pivots).map_err(|e| e.to_string())?,
        Literal::from_vec(&batch, info).map_err(|e| e.to_string())?,
    ]))
}

/// Factors the row-major `m × n` matrix `lu` in place (LAPACK `getf2`:
/// for each column, pick the pivot, swap whole rows, scale the column
/// below the pivot by its inverse unless the pivot is 0, update the
/// trailing matrix); writes the 1-based pivot rows and returns `info`.
/// Example: `[[1, 2], [3, 4]]` swaps its rows (`ipiv = [2, 2]`) and
/// becomes `[[3, 4], [1/3, 2/3]]`.
fn lu_factor<S: Scalar>(
    lu: &mut [S],
    m: usize,
    n: usize,
    ipiv: &mut [i32],
    magnitude: fn(S) -> f64,
) -> i32 {
    let mut info = 0;
    for (j, pivot_row) in ipiv.iter_mut().enumerate() {
        let mut p = j;
        for i in j + 1..m {
            if magnitude(lu[i * n + j]) > magnitude(lu[p * n + j]) {
                p = i;
            }
        }
        *pivot_row = p as i32 + 1;
        let pivot = lu[p * n + j];
        if magnitude(pivot) != 0.0 {
            if p != j {
                for c in 0..n {
                    lu.swap(j * n + c, p * n + c);
                }
            }
            let inverse = S::ONE / pivot;
            for i in j + 1..m {
                lu[i * n + j] = lu[i * n + j] * inverse;
            }
        } else if info == 0 {
            info = j as i32 + 1;
        }
        for i in j + 1..m {
            let l = lu[i * n + j];
            for c in j + 1..n {
                lu[i * n + c] = lu[i * n + c] - l * lu[j * n + c];
            }
        }
    }
    info
}
