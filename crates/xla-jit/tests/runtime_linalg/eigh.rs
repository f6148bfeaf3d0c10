//! `?syevd`/`?heevd`: eigendecompositions against the interpreter or by
//! their invariants, eigenvalues only, NaN and layouts.

use super::*;

fn eigh_name(ty: &str) -> String {
    let name = if complex(ty) { "heevd" } else { "syevd" };
    format!("lapack_{}{name}_ffi", letter(ty))
}

pub(super) fn eigh_module(
    ty: &str,
    batch: &[usize],
    n: usize,
    lower: bool,
    mode: char,
    layout: &str,
) -> String {
    let d = dims(batch, &[n, n]);
    let w = dims(batch, &[n]);
    let b = dims(batch, &[]);
    let real = real_type(ty);
    let uplo = if lower { 76 } else { 85 };
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT eig = ({ty}[{d}]{layout}, {real}[{w}], s32[{b}]) custom-call(a), \
         custom_call_target=\"{}\", backend_config={{mode = {} : ui8, uplo = {uplo} : ui8}}\n}}\n",
        eigh_name(ty),
        mode as u32
    )
}

/// Every type and triangle, batched: eigenvalues ascending and each
/// eigenvector normalized as the interpreter does, compared directly
/// where rounding allows (small matrices, double precision).
#[test]
fn eigendecompositions_against_the_interpreter() {
    for ty in TYPES {
        for n in SIZES {
            if single(ty) && n > 3 {
                continue;
            }
            for lower in [true, false] {
                let batch: &[usize] = if n <= 17 { &[3] } else { &[] };
                let mut rng = Rng(n as u64 * 3 + lower as u64);
                let a = random(&mut rng, count(batch) * n * n, ty);
                check(
                    &eigh_module(ty, batch, n, lower, 'V', ""),
                    vec![literal(ty, &[batch, &[n, n]].concat(), &a)],
                    tolerance(ty, 200.0 * n as f64),
                );
            }
        }
    }
}

/// Single-precision matrices past 3×3: the eigenvalues as the
/// interpreter's, the vectors orthonormal eigenvectors in its phase
/// convention.
#[test]
fn single_precision_eigendecompositions() {
    for ty in ["f32", "c64"] {
        for n in [17, 64, 200] {
            for lower in [true, false] {
                let mut rng = Rng(n as u64 + lower as u64);
                let a = random(&mut rng, n * n, ty);
                let text = eigh_module(ty, &[], n, lower, 'V', "");
                let (got, want) = run_both(&text, vec![literal(ty, &[n, n], &a)]);
                let (v, w) = (values(&got[0]), values(&got[1]));
                assert_close(
                    "eigenvalues",
                    &w,
                    &values(&want[1]),
                    64.0 * n as f64 * eps(ty),
                );
                assert_eq!(values(&got[2]), values(&want[2]), "info");
                assert_orthonormal("eigenvectors", &v, n, n, n, 1e-4);
                let h = |i: usize, j: usize| {
                    let read = (i > j) == lower || i == j;
                    match (i == j, read) {
                        (true, _) => C128::new(a[i * n + i].re, 0.0),
                        (false, true) => a[i * n + j],
                        (false, false) => a[j * n + i].conj(),
                    }
                };
                for j in 0..n {
                    for i in 0..n {
                        let av: C128 = (0..n).map(|k| h(i, k) * v[k * n + j]).sum();
                        let residual = (av - v[i * n + j] * w[j].re).norm();
                        assert!(
                            residual < 1e-5 * n as f64,
                            "A·v − λ·v = {residual} at {i}, {j}"
                        );
                    }
                    let column: Vec<C128> = (0..n).map(|i| v[i * n + j]).collect();
                    let largest = column.iter().fold(C128::new(0.0, 0.0), |best, &x| {
                        if x.norm() > best.norm() {
                            x
                        } else {
                            best
                        }
                    });
                    assert!(
                        largest.re > 0.0 && largest.im.abs() < 1e-6,
                        "phase of column {j}: {largest}"
                    );
                }
            }
        }
    }
}

/// Mode `'N'`: the eigenvalues (as the interpreter's), zeros for the
/// vectors.
#[test]
fn eigenvalues_only() {
    for ty in TYPES {
        let n = 10;
        let mut rng = Rng(4);
        let a = random(&mut rng, 2 * n * n, ty);
        let text = eigh_module(ty, &[2], n, true, 'N', "");
        let (got, want) = run_both(&text, vec![literal(ty, &[2, n, n], &a)]);
        assert_close(
            "eigenvalues",
            &values(&got[1]),
            &values(&want[1]),
            1e3 * eps(ty),
        );
        assert!(values(&got[0]).iter().all(|z| z.norm() == 0.0));
        assert_eq!(values(&got[2]), values(&want[2]), "info");
    }
}

/// A NaN in the triangle read makes every output NaN with `info = N − 1`;
/// one in the other triangle is not read. An infinity makes every output
/// NaN with `info` 0 (where the interpreter returns the diagonal). Also
/// column-major layouts.
#[test]
fn eigendecompositions_of_nan_and_in_column_major_layouts() {
    for ty in TYPES {
        let n = 5;
        let mut rng = Rng(8);
        for (i, j) in [(3, 1), (1, 3)] {
            let mut a = random(&mut rng, n * n, ty);
            a[i * n + j] = C128::new(f64::NAN, 0.0);
            check(
                &eigh_module(ty, &[], n, true, 'V', ""),
                vec![literal(ty, &[n, n], &a)],
                tolerance(ty, 1e3),
            );
        }
        for n in [5, 40] {
            let mut a = random(&mut rng, n * n, ty);
            a[n] = C128::new(f64::INFINITY, 0.0);
            let text = eigh_module(ty, &[], n, true, 'V', "");
            let (got, _) = run_both(&text, vec![literal(ty, &[n, n], &a)]);
            let nan = |z: &C128| z.re.is_nan();
            assert!(values(&got[0]).iter().all(nan) && values(&got[1]).iter().all(nan));
            assert_eq!(values(&got[2]), [C128::new(0.0, 0.0)], "info");
        }
        let a = random(&mut rng, 2 * n * n, ty);
        check(
            &eigh_module(ty, &[2], n, false, 'V', "{1,2,0}"),
            vec![literal(ty, &[2, n, n], &a)],
            tolerance(ty, 1e3),
        );
    }
}
