//! `cholesky` and `lapack_?potrf_ffi`: positive definite, indefinite and
//! ill-conditioned matrices, and column-major layouts.

use super::*;

pub(super) fn cholesky_module(
    ty: &str,
    batch: &[usize],
    n: usize,
    lower: bool,
    layout: &str,
) -> String {
    let d = dims(batch, &[n, n]);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT c = {ty}[{d}]{layout} cholesky(a), lower={lower}\n}}\n"
    )
}

pub(super) fn potrf_module(
    ty: &str,
    batch: &[usize],
    n: usize,
    lower: bool,
    layout: &str,
) -> String {
    let d = dims(batch, &[n, n]);
    let b = dims(batch, &[]);
    let uplo = if lower { 76 } else { 85 };
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT c = ({ty}[{d}]{layout}, s32[{b}]) custom-call(a), \
         custom_call_target=\"lapack_{}potrf_ffi\", backend_config={{uplo = {uplo} : ui8}}\n}}\n",
        letter(ty)
    )
}

/// Positive definite matrices of every size and type, both triangles,
/// with junk in the triangle not read: the factor (and `potrf`'s other
/// triangle, the operand's) as the interpreter's.
#[test]
fn cholesky_of_positive_definite_matrices() {
    for ty in TYPES {
        for n in SIZES {
            for lower in [true, false] {
                let batch: &[usize] = if n <= 64 { &[3] } else { &[] };
                let mut rng = Rng(n as u64 * 7 + lower as u64);
                let a = positive_definite(&mut rng, count(batch), n, ty, lower);
                let shape = [batch, &[n, n]].concat();
                let tol = tolerance(ty, 8.0 * n as f64);
                check(
                    &cholesky_module(ty, batch, n, lower, ""),
                    vec![literal(ty, &shape, &a)],
                    tol,
                );
                check(
                    &potrf_module(ty, batch, n, lower, ""),
                    vec![literal(ty, &shape, &a)],
                    tol,
                );
            }
        }
    }
}

/// Matrices that are not positive definite: a negative pivot (NaN
/// everywhere for `cholesky`, `info` for `potrf`), a zero last pivot (a NaN
/// diagonal entry for `cholesky`), a zero first pivot, a NaN, and random
/// indefinite matrices, some of them in a batch with good ones.
#[test]
fn cholesky_of_matrices_that_are_not_positive_definite() {
    let specials: [&[f64]; 5] = [
        &[4.0, 2.0, 2.0, 2.0, 1.0, 1.0, 2.0, 1.0, 3.0],
        &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, -1.0],
        &[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 2.0, 2.0],
        &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        &[2.0, 0.0, 0.0, f64::NAN, 2.0, 0.0, 0.0, 0.0, 2.0],
    ];
    for ty in TYPES {
        for lower in [true, false] {
            for special in specials {
                let a: Vec<C128> = special.iter().map(|&x| C128::new(x, 0.0)).collect();
                let a = if lower {
                    a
                } else {
                    (0..9).map(|e| a[(e % 3) * 3 + e / 3]).collect()
                };
                for module in [
                    cholesky_module(ty, &[], 3, lower, ""),
                    potrf_module(ty, &[], 3, lower, ""),
                ] {
                    check(&module, vec![literal(ty, &[3, 3], &a)], tolerance(ty, 8.0));
                }
            }
            for n in [2, 17, 64] {
                let mut rng = Rng(n as u64);
                let mut a = positive_definite(&mut rng, 4, n, ty, lower);
                // The second and fourth matrices: indefinite.
                for b in [1, 3] {
                    let bad = random(&mut rng, n * n, ty);
                    a[b * n * n..(b + 1) * n * n].copy_from_slice(&bad);
                }
                let shape = [4, n, n];
                let tol = tolerance(ty, 16.0 * n as f64);
                check(
                    &cholesky_module(ty, &[4], n, lower, ""),
                    vec![literal(ty, &shape, &a)],
                    tol,
                );
                check(
                    &potrf_module(ty, &[4], n, lower, ""),
                    vec![literal(ty, &shape, &a)],
                    tol,
                );
            }
        }
    }
}

/// The Hilbert matrix of order 8 (condition number 1.5·10¹⁰) in `f64`.
#[test]
fn cholesky_of_an_ill_conditioned_matrix() {
    let n = 8;
    let a: Vec<C128> = (0..n * n)
        .map(|e| C128::new(1.0 / ((e / n + e % n + 1) as f64), 0.0))
        .collect();
    for lower in [true, false] {
        for module in [
            cholesky_module("f64", &[], n, lower, ""),
            potrf_module("f64", &[], n, lower, ""),
        ] {
            check(
                &module,
                vec![literal("f64", &[n, n], &a)],
                tolerance("f64", 1e4),
            );
        }
    }
}

/// Column-major operands and results, as JAX lays them out.
#[test]
fn cholesky_in_column_major_layouts() {
    for ty in ["f32", "c128"] {
        let mut rng = Rng(5);
        let a = positive_definite(&mut rng, 2, 9, ty, true);
        check(
            &cholesky_module(ty, &[2], 9, true, "{1,2,0}"),
            vec![literal(ty, &[2, 9, 9], &a)],
            tolerance(ty, 64.0),
        );
        check(
            &potrf_module(ty, &[2], 9, true, "{1,2,0}"),
            vec![literal(ty, &[2, 9, 9], &a)],
            tolerance(ty, 64.0),
        );
    }
}
