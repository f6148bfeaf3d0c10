//! `?geqrf` and `?orgqr`/`?ungqr`: QR of every shape, Householder
//! products of arbitrary reflectors, rank-deficient matrices.

use super::*;

pub(super) fn geqrf_module(ty: &str, batch: &[usize], m: usize, n: usize, layout: &str) -> String {
    let d = dims(batch, &[m, n]);
    let t = dims(batch, &[m.min(n)]);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT qr = ({ty}[{d}]{layout}, {ty}[{t}]) custom-call(a), \
         custom_call_target=\"lapack_{}geqrf_ffi\", backend_config={{}}\n}}\n",
        letter(ty)
    )
}

fn orgqr_name(ty: &str) -> String {
    let name = if complex(ty) { "ungqr" } else { "orgqr" };
    format!("lapack_{}{name}_ffi", letter(ty))
}

/// `geqrf` then `orgqr` of its result (`m ≥ n`), as JAX's
/// `jnp.linalg.qr`: `(qr, tau, q)`.
pub(super) fn qr_module(ty: &str, batch: &[usize], m: usize, n: usize, layout: &str) -> String {
    let d = dims(batch, &[m, n]);
    let t = dims(batch, &[n]);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         g = ({ty}[{d}]{layout}, {ty}[{t}]) custom-call(a), \
         custom_call_target=\"lapack_{}geqrf_ffi\", backend_config={{}}\n  \
         r = {ty}[{d}]{layout} get-tuple-element(g), index=0\n  \
         tau = {ty}[{t}] get-tuple-element(g), index=1\n  \
         q = {ty}[{d}]{layout} custom-call(r, tau), custom_call_target=\"{}\", \
         backend_config={{}}\n  \
         ROOT out = ({ty}[{d}]{layout}, {ty}[{t}], {ty}[{d}]{layout}) tuple(r, tau, q)\n}}\n",
        letter(ty),
        orgqr_name(ty)
    )
}

/// `orgqr` of arbitrary reflectors and `k ≤ n` scalars.
pub(super) fn orgqr_module(ty: &str, batch: &[usize], m: usize, n: usize, k: usize) -> String {
    let d = dims(batch, &[m, n]);
    let t = dims(batch, &[k]);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}] parameter(0)\n  \
         tau = {ty}[{t}] parameter(1)\n  \
         ROOT q = {ty}[{d}] custom-call(a, tau), custom_call_target=\"{}\", \
         backend_config={{}}\n}}\n",
        orgqr_name(ty)
    )
}

/// QR of square, tall and wide matrices of every type (LAPACK's
/// reflectors, which the interpreter computes too), and `Q` from them,
/// past the 32-column blocks.
#[test]
fn qr_factorizations() {
    let shapes = [
        (1, 1),
        (2, 2),
        (3, 3),
        (17, 17),
        (64, 64),
        (200, 200),
        (5, 3),
        (3, 5),
        (100, 40),
        (40, 100),
        (130, 70),
    ];
    for ty in TYPES {
        for (m, n) in shapes {
            let batch: &[usize] = if m * n <= 64 * 64 { &[2] } else { &[] };
            let mut rng = Rng((m * 1000 + n) as u64);
            let a = random(&mut rng, count(batch) * m * n, ty);
            let args = || vec![literal(ty, &[batch, &[m, n]].concat(), &a)];
            let tol = tolerance(ty, 32.0 * m.max(n) as f64);
            check(&geqrf_module(ty, batch, m, n, ""), args(), tol);
            if m >= n {
                check(&qr_module(ty, batch, m, n, ""), args(), tol);
            }
        }
    }
}

/// `orgqr` with fewer reflectors than columns, any vectors and `tau`s
/// that make unitary reflectors (`tau·‖v‖² = 1 − e^{iθ}`), zero among
/// them.
#[test]
fn householder_products_of_arbitrary_reflectors() {
    for ty in TYPES {
        for (m, n, k) in [(5, 4, 2), (9, 9, 0), (80, 70, 40), (40, 40, 40)] {
            let mut rng = Rng((m + n + k) as u64);
            let a = random(&mut rng, 2 * m * n, ty);
            let mut tau = Vec::new();
            for b in 0..2 {
                for j in 0..k {
                    let norm2 = 1.0
                        + (j + 1..m)
                            .map(|i| a[b * m * n + i * n + j].norm_sqr())
                            .sum::<f64>();
                    let theta = if complex(ty) {
                        rng.uniform(3.0)
                    } else {
                        std::f64::consts::PI
                    };
                    let t = (C128::new(1.0, 0.0) - C128::from_polar(1.0, theta)) / norm2;
                    tau.push(if j == 1 { C128::new(0.0, 0.0) } else { t });
                }
            }
            check(
                &orgqr_module(ty, &[2], m, n, k),
                vec![literal(ty, &[2, m, n], &a), literal(ty, &[2, k], &tau)],
                tolerance(ty, 64.0 * m as f64),
            );
        }
    }
}

/// Rank-deficient matrices: a zero column and the zero matrix (exact
/// reflectors) against the interpreter, also in column-major layouts;
/// equal columns (the reflector of the second one is made of rounding
/// errors, in LAPACK too) by `Q·R = A` and orthonormal `Q`.
#[test]
fn qr_of_rank_deficient_matrices_and_layouts() {
    for ty in TYPES {
        let (m, n) = (12, 8);
        let mut rng = Rng(2);
        let mut zero_column = random(&mut rng, m * n, ty);
        (0..m).for_each(|i| zero_column[i * n + 1] = C128::new(0.0, 0.0));
        let zeros = vec![C128::new(0.0, 0.0); m * n];
        for layout in ["", "{0,1}"] {
            for a in [&zero_column, &zeros] {
                check(
                    &qr_module(ty, &[], m, n, layout),
                    vec![literal(ty, &[m, n], a)],
                    tolerance(ty, 256.0),
                );
            }
        }
        let mut equal_columns = random(&mut rng, m * n, ty);
        (0..m).for_each(|i| equal_columns[i * n + 5] = equal_columns[i * n + 2]);
        let (got, _) = run_both(
            &qr_module(ty, &[], m, n, ""),
            vec![literal(ty, &[m, n], &equal_columns)],
        );
        let (r, q) = (values(&got[0]), values(&got[2]));
        assert_orthonormal("q", &q, m, n, n, 1e3 * eps(ty));
        for i in 0..m {
            for j in 0..n {
                let qr: C128 = (0..=j.min(n - 1))
                    .map(|l| q[i * n + l] * r[l * n + j])
                    .sum();
                let a = equal_columns[i * n + j];
                assert!(
                    (qr - a).norm() < 1e3 * eps(ty),
                    "q·r at {i}, {j}: {qr} against {a}"
                );
            }
        }
        assert!(
            r[5 * n + 5].norm() < 1e2 * eps(ty),
            "r[5][5] = {}",
            r[5 * n + 5]
        );
    }
}
