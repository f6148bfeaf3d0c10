//! The symmetric/Hermitian eigendecomposition JAX emits on CPU
//! (`jnp.linalg.eigh`, `eigvalsh`, `jax.scipy.linalg.eigh`):
//!
//! * `lapack_{s,d}syevd_ffi(a)` / `lapack_{c,z}heevd_ffi(a)`,
//!   `backend_config={mode = 86 : ui8, uplo = 76 : ui8}`: `(vectors, w,
//!   info)` for each `[…, N, N]` matrix, reading only its `uplo` triangle
//!   (`'L'` = 76 or `'U'` = 85; the imaginary parts of a complex diagonal
//!   are ignored). `w` (`[…, N]`, the real type) holds the eigenvalues in
//!   ascending order and column `j` of `vectors` a unit eigenvector of
//!   `w[j]`. `mode` (`'V'` = 86 or `'N'` = 78) says whether LAPACK
//!   computes the vectors; they are computed either way. `info` (`s32`,
//!   one per matrix) is 0.
//!
//! The eigenvalues match LAPACK to rounding: they are computed by cyclic
//! Jacobi rotations in `f64`/`c128` (accurate to `ε·‖a‖` in double
//! precision, also for `f32`/`c64` operands), sorted ascending. An
//! eigenvector is unique only up to a factor of modulus 1 (and within an
//! eigenspace of a repeated eigenvalue): LAPACK's choice depends on its
//! whole reduction, so this interpreter normalizes each vector instead so
//! that its first component of largest magnitude is real and positive.
//!
//! A NaN in the read triangle makes every output NaN and `info = N − 1`
//! (what LAPACK reports for a NaN below the diagonal of a small matrix; its
//! value and which outputs are NaN depend on the NaN's position in
//! LAPACK). JAX replaces the outputs of a matrix with `info ≠ 0` by NaN, so
//! `eigh` returns all NaN either way.

use super::custom_call::{CustomCallArgs, CustomCallRegistry};
use super::lapack::{attribute, lower_triangle, matrices};
use super::linalg::{literal, values, Scalar};
use crate::{Literal, C128};

/// Adds the eigendecomposition targets to `registry`.
pub(super) fn register(registry: &mut CustomCallRegistry) {
    for name in ["ssyevd", "dsyevd", "cheevd", "zheevd"] {
        registry.register_with_args(format!("lapack_{name}_ffi"), syevd);
    }
}

fn syevd(args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let lower = lower_triangle(args.backend_config)?;
    match attribute(args.backend_config, "mode")? {
        b'V' | b'N' => {}
        other => return Err(format!("mode {other} is neither 'V' nor 'N'")),
    }
    let a = args.operands.first().ok_or("no operand")?;
    if a.element_type().is_some_and(|t| t.is_complex()) {
        syevd_batch::<C128>(a, lower)
    } else {
        syevd_batch::<f64>(a, lower)
    }
}

fn syevd_batch<S: Scalar>(a: &Literal, lower: bool) -> Result<Literal, String> {
    let (batch, m, n) = matrices(a, 0)?;
    if m != n {
        return Err(format!(
            "operand 0 {} is not a batch of square matrices",
            a.shape()
        ));
    }
    let ty = a.element_type().ok_or("operand 0 is not an array")?;
    let data = values::<S>(a).map_err(|e| e.to_string())?;
    let count = batch.iter().product::<i64>() as usize;
    let (mut vectors, mut w, mut info) = (
        vec![S::ZERO; count * n * n],
        vec![0.0; count * n],
        vec![0; count],
    );
    for b in 0..count * usize::from(n > 0) {
        let matrix = &data[b * n * n..(b + 1) * n * n];
        let out = &mut vectors[b * n * n..(b + 1) * n * n];
        let w = &mut w[b * n..(b + 1) * n];
        let mut h = hermitian(matrix, n, lower);
        if h.iter().any(|v| v.re().is_nan() || v.im().is_nan()) {
            out.fill(S::real(f64::NAN));
            w.fill(f64::NAN);
            info[b] = n as i32 - 1;
            continue;
        }
        let v = jacobi_eigen(&mut h, n);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| h[i * n + i].re().total_cmp(&h[j * n + j].re()));
        for (c, &j) in order.iter().enumerate() {
            w[c] = h[j * n + j].re();
            let mut column: Vec<S> = (0..n).map(|r| v[r * n + j]).collect();
            normalize_phase(&mut column);
            for (r, x) in column.into_iter().enumerate() {
                out[r * n + c] = x;
            }
        }
    }
    let mut w_dims = batch.clone();
    w_dims.push(n as i64);
    let dims = [batch.as_slice(), &[n as i64, n as i64]].concat();
    let real = ty.component_type();
    Ok(Literal::tuple(vec![
        literal(&dims, vectors, ty).map_err(|e| e.to_string())?,
        literal(&w_dims, w, real).map_err(|e| e.to_string())?,
        Literal::from_vec(&batch, info).map_err(|e| e.to_string())?,
    ]))
}

/// The full Hermitian matrix whose `lower` (or upper) triangle is that
/// of the row-major `n × n` matrix `a`, with a real diagonal.
fn hermitian<S: Scalar>(a: &[S], n: usize, lower: bool) -> Vec<S> {
    let mut h = vec![S::ZERO; n * n];
    for i in 0..n {
        for j in 0..n {
            let read = (i > j) == lower || i == j;
            let (r, c) = if read { (i, j) } else { (j, i) };
            let x = a[r * n + c];
            h[i * n + j] = match (i == j, read) {
                (true, _) => S::real(x.re()),
                (false, true) => x,
                (false, false) => x.conj(),
            };
        }
    }
    h
}

/// Diagonalizes the row-major Hermitian `n × n` matrix `h` in place by
/// cyclic Jacobi rotations and returns the unitary `V` (row-major) with
/// `h_in = V·diag(h_out)·Vᴴ`. Each rotation zeroes `h[p][q]`: with
/// `h[p][q] = r·u` (`r ≥ 0`, `|u| = 1`), `ζ = (h[q][q] − h[p][p])/2r`,
/// `t = sign(ζ)/(|ζ| + √(1 + ζ²))`, `c = 1/√(1 + t²)`, `s = t·c`, the
/// columns `p`, `q` of `h` and `V` become `c·p − s·ū·q` and `s·p + c·ū·q`
/// (rows likewise with the conjugate). An entry at most `ε²·‖h‖` or
/// `ε·√|h[p][p]·h[q][q]|` is negligible; sweeps stop when all are (at
/// most 64 sweeps).
fn jacobi_eigen<S: Scalar>(h: &mut [S], n: usize) -> Vec<S> {
    let mut v = vec![S::ZERO; n * n];
    (0..n).for_each(|i| v[i * n + i] = S::ONE);
    let norm = h.iter().fold(0.0f64, |acc, x| acc.hypot(x.abs()));
    let tiny = f64::EPSILON * f64::EPSILON * norm;
    for _ in 0..64 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let r = h[p * n + q].abs();
                let (hp, hq) = (h[p * n + p].re(), h[q * n + q].re());
                if r <= tiny || r <= f64::EPSILON * (hp * hq).abs().sqrt() {
                    continue;
                }
                rotated = true;
                let u = h[p * n + q] / S::real(r);
                let zeta = (hq - hp) / (2.0 * r);
                let t = 1f64.copysign(zeta) / (zeta.abs() + zeta.hypot(1.0));
                let c = 1.0 / t.hypot(1.0);
                let s = t * c;
                let (cs, ss) = (S::real(c), S::real(s));
                let ub = u.conj();
                for k in 0..n {
                    let (x, y) = (h[k * n + p], h[k * n + q]);
                    h[k * n + p] = cs * x - ss * ub * y;
                    h[k * n + q] = ss * x + cs * ub * y;
                    let (x, y) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = cs * x - ss * ub * y;
                    v[k * n + q] = ss * x + cs * ub * y;
                }
                for k in 0..n {
                    let (x, y) = (h[p * n + k], h[q * n + k]);
                    h[p * n + k] = cs * x - ss * u * y;
                    h[q * n + k] = ss * x + cs * u * y;
                }
                h[p * n + q] = S::ZERO;
                h[q * n + p] = S::ZERO;
                h[p * n + p] = S::real(h[p * n + p].re());
                h[q * n + q] = S::real(h[q * n + q].re());
            }
        }
        if !rotated {
            break;
        }
    }
    v
}

/// Multiplies `x` by the factor of modulus 1 that makes its first
/// component of largest magnitude real and positive: `[0.6, −0.8]`
/// becomes `[−0.6, 0.8]`; `[i, 0]` becomes `[1, 0]`.
pub(super) fn normalize_phase<S: Scalar>(x: &mut [S]) {
    let Some(largest) = x
        .iter()
        .copied()
        .reduce(|best, v| if v.abs() > best.abs() { v } else { best })
    else {
        return;
    };
    let magnitude = largest.abs();
    if magnitude > 0.0 {
        let factor = largest.conj() / S::real(magnitude);
        x.iter_mut().for_each(|v| *v = *v * factor);
    }
}
