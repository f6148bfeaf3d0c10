//! The QR custom calls JAX emits on CPU (`jnp.linalg.qr`), with LAPACK's
//! Householder algorithm and sign conventions, so `Q` and `R` match
//! XLA:CPU to rounding:
//!
//! * `lapack_{s,d,c,z}geqrf_ffi(a)`, `backend_config={}`: `(qr, tau)` for
//!   each `[…, M, N]` matrix — `R` on and above the diagonal of `qr`, the
//!   Householder vectors `v` below it (`v[j] = 1` implied), and the `K =
//!   min(M, N)` scalars `tau` (`[…, K]`), with `a = H(0)·…·H(K−1)·R` and
//!   `H(j) = I − tau[j]·v·vᴴ` (`?geqr2`).
//! * `lapack_{s,d}orgqr_ffi(a, tau)` / `lapack_{c,z}ungqr_ffi(a, tau)`
//!   (JAX's `householder_product`), `backend_config={}`: the first `N`
//!   columns of `H(0)·…·H(K−1)` from the reflectors stored below the
//!   diagonal of the `[…, M, N]` operand (`M ≥ N ≥ K`; `?org2r`). JAX
//!   slices (`M < N`) or pads (`mode="complete"`) the `geqrf` result to
//!   that shape first.
//!
//! Real types compute in `f64` and complex types in `c128`, rounding once
//! at the end.

use super::custom_call::{CustomCallArgs, CustomCallRegistry};
use super::lapack::matrices;
use super::linalg::{literal, values, Scalar};
use crate::{Literal, C128};

/// Adds the QR targets to `registry`.
pub(super) fn register(registry: &mut CustomCallRegistry) {
    for prefix in ["s", "d", "c", "z"] {
        registry.register_with_args(format!("lapack_{prefix}geqrf_ffi"), geqrf);
    }
    for name in ["sorgqr", "dorgqr", "cungqr", "zungqr"] {
        registry.register_with_args(format!("lapack_{name}_ffi"), orgqr);
    }
}

fn is_complex(a: &Literal) -> bool {
    a.element_type().is_some_and(|t| t.is_complex())
}

fn geqrf(args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let a = args.operands.first().ok_or("no operand")?;
    if is_complex(a) {
        geqrf_batch::<C128>(a)
    } else {
        geqrf_batch::<f64>(a)
    }
}

fn geqrf_batch<S: Scalar>(a: &Literal) -> Result<Literal, String> {
    let (batch, m, n) = matrices(a, 0)?;
    let k = m.min(n);
    let ty = a.element_type().ok_or("operand 0 is not an array")?;
    let mut data = values::<S>(a).map_err(|e| e.to_string())?;
    let count = batch.iter().product::<i64>() as usize;
    let mut tau = vec![S::ZERO; count * k];
    if m * n > 0 {
        for (matrix, tau) in data.chunks_exact_mut(m * n).zip(tau.chunks_exact_mut(k)) {
            householder_qr(matrix, m, n, tau);
        }
    }
    let mut tau_dims = batch;
    tau_dims.push(k as i64);
    let dims = a.array_shape().map_err(|e| e.to_string())?.dims().to_vec();
    Ok(Literal::tuple(vec![
        literal(&dims, data, ty).map_err(|e| e.to_string())?,
        literal(&tau_dims, tau, ty).map_err(|e| e.to_string())?,
    ]))
}

fn orgqr(args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let [a, tau] = args.operands else {
        return Err(format!("needs 2 operands, got {}", args.operands.len()));
    };
    if is_complex(a) {
        orgqr_batch::<C128>(a, tau)
    } else {
        orgqr_batch::<f64>(a, tau)
    }
}

fn orgqr_batch<S: Scalar>(a: &Literal, tau: &Literal) -> Result<Literal, String> {
    let (batch, m, n) = matrices(a, 0)?;
    let tau_dims = tau
        .array_shape()
        .map_err(|e| e.to_string())?
        .dims()
        .to_vec();
    let k = match tau_dims.split_last() {
        Some((&k, tau_batch)) if tau_batch == batch && (k as usize) <= n && n <= m => k as usize,
        _ => {
            return Err(format!(
                "operand 1 {} is not `[…, K]` with K ≤ N ≤ M for operand 0 {}",
                tau.shape(),
                a.shape()
            ))
        }
    };
    let ty = a.element_type().ok_or("operand 0 is not an array")?;
    let mut data = values::<S>(a).map_err(|e| e.to_string())?;
    let tau = values::<S>(tau).map_err(|e| e.to_string())?;
    if m * n > 0 {
        for (b, matrix) in data.chunks_exact_mut(m * n).enumerate() {
            householder_product(matrix, m, n, &tau[b * k..(b + 1) * k]);
        }
    }
    let dims = a.array_shape().map_err(|e| e.to_string())?.dims().to_vec();
    literal(&dims, data, ty).map_err(|e| e.to_string())
}

/// LAPACK's `?larfg`: the reflector `H = I − tau·v·vᴴ` with
/// `Hᴴ·[alpha, x] = [beta, 0, …]`, `beta` real. Overwrites `x` with
/// `v[1..]` (`v[0] = 1`) and returns `(beta, tau)`: `beta = −sign(re
/// alpha)·‖[alpha, x]‖`, `tau = (beta − alpha)/beta`, `v = x/(alpha −
/// beta)`; `tau = 0` and `beta = alpha` when `x = 0` and `alpha` is real.
/// Example: `[3, 4]` gives `beta = −5`, `tau = 1.6`, `v = [1, 0.5]`.
fn reflector<S: Scalar>(alpha: S, x: &mut [S]) -> (S, S) {
    let x_norm = x.iter().fold(0.0, |acc: f64, v| acc.hypot(v.abs()));
    if x_norm == 0.0 && alpha.im() == 0.0 {
        return (alpha, S::ZERO);
    }
    let norm = alpha.abs().hypot(x_norm);
    let beta = S::real(if alpha.re().is_sign_negative() {
        norm
    } else {
        -norm
    });
    let scale = S::ONE / (alpha - beta);
    x.iter_mut().for_each(|v| *v = *v * scale);
    (beta, (beta - alpha) / beta)
}

/// Applies `I − tau·v·vᴴ` from the left to the rows `first..first +
/// v.len()` and the columns `columns` of the row-major matrix `a` with
/// `n` columns (LAPACK's `?larf`, side `'L'`).
fn apply_reflector<S: Scalar>(
    a: &mut [S],
    n: usize,
    first: usize,
    columns: std::ops::Range<usize>,
    v: &[S],
    tau: S,
) {
    for j in columns {
        let dot = v.iter().enumerate().fold(S::ZERO, |acc, (r, &vr)| {
            acc + vr.conj() * a[(first + r) * n + j]
        });
        let scaled = tau * dot;
        for (r, &vr) in v.iter().enumerate() {
            let e = (first + r) * n + j;
            a[e] = a[e] - vr * scaled;
        }
    }
}

/// Column `j` of the row-major `m × n` matrix `a` from row `j` down, with
/// `v[0] = 1`: the `j`-th Householder vector.
fn column_vector<S: Scalar>(a: &[S], m: usize, n: usize, j: usize) -> Vec<S> {
    std::iter::once(S::ONE)
        .chain((j + 1..m).map(|r| a[r * n + j]))
        .collect()
}

/// Factors the row-major `m × n` matrix `a` in place (LAPACK's `?geqr2`):
/// for each column `j < min(m, n)`, the reflector of `a[j.., j]`, then
/// `H(j)ᴴ` applied to the columns right of it.
/// Example: `[[3], [4]]` becomes `[[−5], [0.5]]` with `tau = [1.6]`.
fn householder_qr<S: Scalar>(a: &mut [S], m: usize, n: usize, tau: &mut [S]) {
    for (j, tau_j) in tau.iter_mut().enumerate() {
        let mut below: Vec<S> = (j + 1..m).map(|r| a[r * n + j]).collect();
        let (beta, t) = reflector(a[j * n + j], &mut below);
        a[j * n + j] = beta;
        for (r, v) in (j + 1..m).zip(below) {
            a[r * n + j] = v;
        }
        *tau_j = t;
        let v = column_vector(a, m, n, j);
        apply_reflector(a, n, j, j + 1..n, &v, t.conj());
    }
}

/// Overwrites the row-major `m × n` matrix `a` (`m ≥ n ≥ tau.len()`),
/// which holds Householder vectors below its diagonal, with the first `n`
/// columns of `H(0)·…·H(k−1)` (LAPACK's `?org2r`: backwards, each
/// reflector applied to the columns right of it, its own column becoming
/// `−tau·v` below the diagonal and `1 − tau` on it).
fn householder_product<S: Scalar>(a: &mut [S], m: usize, n: usize, tau: &[S]) {
    let k = tau.len();
    for j in k..n {
        for r in 0..m {
            a[r * n + j] = if r == j { S::ONE } else { S::ZERO };
        }
    }
    for (j, &t) in tau.iter().enumerate().rev() {
        let v = column_vector(a, m, n, j);
        apply_reflector(a, n, j, j + 1..n, &v, t);
        for r in j + 1..m {
            a[r * n + j] = -t * a[r * n + j];
        }
        a[j * n + j] = S::ONE - t;
        for r in 0..j {
            a[r * n + j] = S::ZERO;
        }
    }
}
