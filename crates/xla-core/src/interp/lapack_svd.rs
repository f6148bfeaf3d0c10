//! The singular value decomposition JAX emits on CPU (`jnp.linalg.svd`,
//! `pinv`, `lstsq`, `matrix_rank`, `norm(ord=2)`, `cond`):
//!
//! * `lapack_{s,d,c,z}gesdd_ffi(a)`, `backend_config={mode = … : ui8}`:
//!   `(a', s, u, vt, info)` for each `[…, M, N]` matrix, `a = u·diag(s)·vt`
//!   with `K = min(M, N)` singular values `s` (`[…, K]`, the real type) in
//!   descending order. `mode` `'A'` (65, `full_matrices=True`): `u` is
//!   `[…, M, M]` and `vt` `[…, N, N]`; `'S'` (83): `[…, M, K]` and
//!   `[…, K, N]`; `'N'` (78, `compute_uv=False`): the shapes of `'A'`,
//!   contents unspecified (zeros here). `a'` is LAPACK's scratch copy of
//!   the operand (the operand here). `info` (`s32`, one per matrix) is 0,
//!   or −4 when the matrix contains a NaN (LAPACK's `?gesdd` checks this
//!   first and returns); `s`, `u` and `vt` are then NaN, as JAX makes them.
//!
//! The singular values match LAPACK to rounding: they are computed by
//! one-sided (Hestenes) Jacobi rotations in `f64`/`c128`, which gives them
//! to high relative accuracy, also for `f32`/`c64` operands. A singular
//! pair `(uⱼ, vⱼ)` is unique only up to a common factor of modulus 1 (and
//! within the subspace of a repeated value): this interpreter normalizes
//! `uⱼ` so that its first component of largest magnitude is real and
//! positive (and `vⱼ` with the same factor), and completes `u` or `v` to
//! an orthonormal basis (for `'A'` and for singular values below
//! `max(M, N)·ε·s₀`) by Gram–Schmidt on the unit vectors. LAPACK's choice
//! depends on its whole reduction; programs whose results do not depend
//! on it (reconstructions, projectors, `pinv`, `lstsq`) agree.
//!
//! `lapack_{s,d,c,z}gesvd_ffi(a)` (`lax.linalg.svd(algorithm=QR)`) has the
//! same operands, attributes and results and is computed the same way;
//! LAPACK's `?gesvd` does not check for NaN: its `info` is then 0 (JAX's
//! results are NaN all the same).
//!
//! An infinite entry (and no NaN) gives NaN `s`, `u` and `vt` with `info`
//! 0 (LAPACK gives NaN `s` and unrelated vectors).

use super::custom_call::{CustomCallArgs, CustomCallRegistry};
use super::lapack::{attribute, matrices};
use super::lapack_eig::normalize_phase;
use super::linalg::{literal, values, Scalar};
use crate::{Literal, Shape, C128};

/// Adds the SVD targets to `registry`.
pub(super) fn register(registry: &mut CustomCallRegistry) {
    for prefix in ["s", "d", "c", "z"] {
        registry.register_with_args(format!("lapack_{prefix}gesdd_ffi"), |args| gesdd(args, -4));
        registry.register_with_args(format!("lapack_{prefix}gesvd_ffi"), |args| gesdd(args, 0));
    }
}

/// Which singular vectors `?gesdd` computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `'A'`: all `M` left and `N` right vectors.
    All,
    /// `'S'`: the first `K` of each.
    Reduced,
    /// `'N'`: none.
    None,
}

/// `?gesdd` and `?gesvd`, which report a NaN operand with `nan_info`.
fn gesdd(args: &CustomCallArgs<'_>, nan_info: i32) -> Result<Literal, String> {
    let mode = match attribute(args.backend_config, "mode")? {
        b'A' => Mode::All,
        b'S' => Mode::Reduced,
        b'N' => Mode::None,
        other => return Err(format!("mode {other} is not 'A', 'S' or 'N'")),
    };
    let a = args.operands.first().ok_or("no operand")?;
    if a.element_type().is_some_and(|t| t.is_complex()) {
        gesdd_batch::<C128>(a, mode, args.shape, nan_info)
    } else {
        gesdd_batch::<f64>(a, mode, args.shape, nan_info)
    }
}

/// One matrix's factors: `s`, and `u`, `vt` row-major.
struct Factors<S> {
    s: Vec<f64>,
    u: Vec<S>,
    vt: Vec<S>,
}

fn gesdd_batch<S: Scalar>(
    a: &Literal,
    mode: Mode,
    shape: &Shape,
    nan_info: i32,
) -> Result<Literal, String> {
    let (batch, m, n) = matrices(a, 0)?;
    let k = m.min(n);
    let dims = |rows: usize, cols: usize| [batch.as_slice(), &[rows as i64, cols as i64]].concat();
    let (u_dims, vt_dims) = match mode {
        Mode::All => (dims(m, m), dims(n, n)),
        Mode::Reduced => (dims(m, k), dims(k, n)),
        // JAX declares `'A'`- or `'S'`-shaped vectors it never reads.
        Mode::None => {
            let declared = |i: usize| {
                shape
                    .tuple_shapes()
                    .and_then(|t| t.get(i))
                    .and_then(Shape::as_array)
                    .map(|a| a.dims().to_vec())
                    .ok_or_else(|| format!("result shape {shape} has no array element {i}"))
            };
            (declared(2)?, declared(3)?)
        }
    };
    let (u_len, vt_len) = (
        u_dims.iter().product::<i64>() as usize,
        vt_dims.iter().product::<i64>() as usize,
    );
    let ty = a.element_type().ok_or("operand 0 is not an array")?;
    let data = values::<S>(a).map_err(|e| e.to_string())?;
    let count = batch.iter().product::<i64>() as usize;
    let (u_len, vt_len) = (u_len / count.max(1), vt_len / count.max(1));
    let mut s = Vec::with_capacity(count * k);
    let mut u = Vec::with_capacity(count * u_len);
    let mut vt = Vec::with_capacity(count * vt_len);
    let mut info = vec![0; count];
    for (b, info) in info.iter_mut().enumerate() {
        let matrix = &data[b * m * n..(b + 1) * m * n];
        let nan = |len| vec![S::real(f64::NAN); len];
        let factors = if matrix.iter().any(|x| x.re().is_nan() || x.im().is_nan()) {
            *info = nan_info;
            None
        } else if matrix.iter().any(|x| x.abs().is_infinite()) {
            None
        } else {
            Some(singular_value_decomposition(
                matrix,
                m,
                n,
                mode == Mode::All,
            ))
        };
        match factors {
            None => {
                s.extend(std::iter::repeat_n(f64::NAN, k));
                u.extend(nan(u_len));
                vt.extend(nan(vt_len));
            }
            Some(f) if mode == Mode::None => {
                s.extend(f.s);
                u.extend(vec![S::ZERO; u_len]);
                vt.extend(vec![S::ZERO; vt_len]);
            }
            Some(f) => {
                s.extend(f.s);
                u.extend(f.u);
                vt.extend(f.vt);
            }
        }
    }
    let s_dims = [batch.as_slice(), &[k as i64]].concat();
    let e = |e: super::InterpError| e.to_string();
    Ok(Literal::tuple(vec![
        a.clone(),
        literal(&s_dims, s, ty.component_type()).map_err(e)?,
        literal(&u_dims, u, ty).map_err(e)?,
        literal(&vt_dims, vt, ty).map_err(e)?,
        Literal::from_vec(&batch, info).map_err(|e| e.to_string())?,
    ]))
}

/// `‖x‖²`.
fn norm2<S: Scalar>(x: &[S]) -> f64 {
    x.iter().map(|v| v.abs() * v.abs()).sum()
}

/// `xᴴ·y`.
fn dot<S: Scalar>(x: &[S], y: &[S]) -> S {
    x.iter()
        .zip(y)
        .fold(S::ZERO, |acc, (&a, &b)| acc + a.conj() * b)
}

/// Rotates the columns `x`, `y` by `[[c, s], [−s, c]]` after scaling `y`
/// by `phase`: `x ← c·x − s·phase·y`, `y ← s·x + c·phase·y`.
fn rotate<S: Scalar>(x: &mut [S], y: &mut [S], c: f64, s: f64, phase: S) {
    let (c, s) = (S::real(c), S::real(s));
    for (a, b) in x.iter_mut().zip(y) {
        let (p, q) = (*a, *b * phase);
        *a = c * p - s * q;
        *b = s * p + c * q;
    }
}

/// The SVD of the row-major `m × n` matrix `a` (`full`: square `u` and
/// `vt`, else `m × K` and `K × n`).
///
/// One-sided Jacobi on `B = a` (`m ≥ n`) or `B = aᴴ` (`m < n`), a `p × q`
/// matrix with `p ≥ q`: rotations of column pairs (`bᵢᴴ·bⱼ = g·φ`, `|φ| =
/// 1`, `ζ = (‖bⱼ‖² − ‖bᵢ‖²)/2g`, `t = sign(ζ)/(|ζ| + √(1 + ζ²))`) make the
/// columns orthogonal, `B·W = [bⱼ]` with `W` unitary; then `B = Û·Σ·Wᴴ`
/// with `σⱼ = ‖bⱼ‖` and `ûⱼ = bⱼ/σⱼ`. A pair is orthogonal enough when
/// `g ≤ ε·‖bᵢ‖·‖bⱼ‖`; sweeps stop when all are (at most 64 sweeps).
fn singular_value_decomposition<S: Scalar>(a: &[S], m: usize, n: usize, full: bool) -> Factors<S> {
    let transposed = m < n;
    let (p, q) = (m.max(n), m.min(n));
    let mut b: Vec<Vec<S>> = (0..q)
        .map(|j| match transposed {
            false => (0..m).map(|r| a[r * n + j]).collect(),
            true => (0..n).map(|c| a[j * n + c].conj()).collect(),
        })
        .collect();
    let mut w: Vec<Vec<S>> = (0..q)
        .map(|j| {
            (0..q)
                .map(|r| if r == j { S::ONE } else { S::ZERO })
                .collect()
        })
        .collect();
    for _ in 0..64 {
        let mut rotated = false;
        for i in 0..q {
            for j in i + 1..q {
                let (alpha, beta, gamma) = (norm2(&b[i]), norm2(&b[j]), dot(&b[i], &b[j]));
                let g = gamma.abs();
                if g == 0.0 || g <= f64::EPSILON * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let phase = (gamma / S::real(g)).conj();
                let zeta = (beta - alpha) / (2.0 * g);
                let t = 1f64.copysign(zeta) / (zeta.abs() + zeta.hypot(1.0));
                let c = 1.0 / t.hypot(1.0);
                let (left, right) = b.split_at_mut(j);
                rotate(&mut left[i], &mut right[0], c, t * c, phase);
                let (left, right) = w.split_at_mut(j);
                rotate(&mut left[i], &mut right[0], c, t * c, phase);
            }
        }
        if !rotated {
            break;
        }
    }
    let sigma: Vec<f64> = b.iter().map(|x| norm2(x).sqrt()).collect();
    let mut order: Vec<usize> = (0..q).collect();
    order.sort_by(|&i, &j| sigma[j].total_cmp(&sigma[i]));
    let s: Vec<f64> = order.iter().map(|&j| sigma[j]).collect();
    let negligible = p as f64 * f64::EPSILON * s.first().copied().unwrap_or(0.0);
    let mut long: Vec<Vec<S>> = Vec::with_capacity(p);
    for (&j, &sj) in order.iter().zip(&s) {
        if sj > negligible && sj > 0.0 {
            long.push(b[j].iter().map(|&x| x / S::real(sj)).collect());
        } else {
            long.push(complete(&long, p));
        }
    }
    while long.len() < if full { p } else { q } {
        long.push(complete(&long, p));
    }
    let mut short: Vec<Vec<S>> = order.iter().map(|&j| std::mem::take(&mut w[j])).collect();
    let (u_cols, v_cols) = if transposed {
        (&mut short, &mut long)
    } else {
        (&mut long, &mut short)
    };
    for (uj, vj) in u_cols.iter_mut().zip(v_cols.iter_mut()) {
        let before = uj.clone();
        normalize_phase(uj);
        let factor = phase_factor(&before, uj);
        vj.iter_mut().for_each(|x| *x = *x * factor);
    }
    for extra in u_cols.iter_mut().skip(q).chain(v_cols.iter_mut().skip(q)) {
        normalize_phase(extra);
    }
    let u = (0..m)
        .flat_map(|r| u_cols.iter().map(move |col| col[r]))
        .collect();
    let vt = v_cols
        .iter()
        .flat_map(|col| col.iter().map(|x| x.conj()))
        .collect();
    Factors { s, u, vt }
}

/// The factor `f` with `after = f·before` (`before` non-zero somewhere).
fn phase_factor<S: Scalar>(before: &[S], after: &[S]) -> S {
    before
        .iter()
        .zip(after)
        .max_by(|x, y| x.0.abs().total_cmp(&y.0.abs()))
        .filter(|(x, _)| x.abs() > 0.0)
        .map_or(S::ONE, |(&x, &y)| y / x)
}

/// A unit vector of length `p` orthogonal to the orthonormal `basis`: the
/// unit vector `eᵢ` with the largest component outside `basis` (the first
/// on ties), orthogonalized twice (classical Gram–Schmidt) and normalized.
fn complete<S: Scalar>(basis: &[Vec<S>], p: usize) -> Vec<S> {
    let project_out = |mut x: Vec<S>| {
        for _ in 0..2 {
            for col in basis {
                let d = dot(col, &x);
                x.iter_mut().zip(col).for_each(|(v, &c)| *v = *v - c * d);
            }
        }
        x
    };
    let candidate = (0..p)
        .map(|i| {
            project_out(
                (0..p)
                    .map(|r| if r == i { S::ONE } else { S::ZERO })
                    .collect(),
            )
        })
        .reduce(|best, x| if norm2(&x) > norm2(&best) { x } else { best })
        .unwrap_or_default();
    let norm = norm2(&candidate).sqrt();
    candidate.into_iter().map(|x| x / S::real(norm)).collect()
}
