//! `?gesdd` and `?gesvd`: singular value decompositions of every shape
//! and mode, large, column-major, rank-deficient and special values.

use super::*;

pub(super) fn svd_module(
    target: &str,
    ty: &str,
    batch: &[usize],
    m: usize,
    n: usize,
    mode: char,
    layout: &str,
) -> String {
    let k = m.min(n);
    let d = dims(batch, &[m, n]);
    let (u, vt) = match mode {
        'S' => (dims(batch, &[m, k]), dims(batch, &[k, n])),
        _ => (dims(batch, &[m, m]), dims(batch, &[n, n])),
    };
    let s = dims(batch, &[k]);
    let b = dims(batch, &[]);
    let real = real_type(ty);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT svd = ({ty}[{d}]{layout}, {real}[{s}], {ty}[{u}]{layout}, {ty}[{vt}]{layout}, s32[{b}]) custom-call(a), \
         custom_call_target=\"lapack_{}{target}_ffi\", backend_config={{mode = {} : ui8}}\n}}\n",
        letter(ty),
        mode as u32
    )
}

/// An SVD custom call: the target (`gesdd` or `gesvd`), the type, the
/// batch dimensions, the matrices' dimensions, the mode and the layout.
#[derive(Clone, Copy)]
pub(super) struct SvdCase<'a> {
    pub(super) target: &'a str,
    pub(super) ty: &'a str,
    pub(super) batch: &'a [usize],
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) mode: char,
    /// The layout of the matrices.
    pub(super) layout: &'a str,
}

/// Checks one SVD of `a` (`count` matrices `m × n`, mode `'A'` or `'S'`)
/// against the interpreter: the copy of the operand, `info`, and the
/// singular values directly; the first `min(M, N)` singular vectors
/// directly when `direct`; every vector by orthonormality and `a =
/// u·diag(s)·vt`.
pub(super) fn check_svd(case: SvdCase<'_>, a: &[C128], direct: bool) {
    let SvdCase {
        target,
        ty,
        batch,
        m,
        n,
        mode,
        layout,
    } = case;
    let k = m.min(n);
    let text = svd_module(target, ty, batch, m, n, mode, layout);
    let (got, want) = run_both(&text, vec![literal(ty, &[batch, &[m, n]].concat(), a)]);
    let tol = 64.0 * m.max(n) as f64 * eps(ty);
    assert_eq!(values(&got[0]), values(&want[0]), "operand copy");
    assert_eq!(values(&got[4]), values(&want[4]), "info");
    let (s, u, vt) = (values(&got[1]), values(&got[2]), values(&got[3]));
    assert_close("s", &s, &values(&want[1]), tol);
    let (u_cols, vt_rows) = if mode == 'A' { (m, n) } else { (k, k) };
    let (want_u, want_vt) = (values(&want[2]), values(&want[3]));
    for b in 0..count(batch) {
        let u = &u[b * m * u_cols..(b + 1) * m * u_cols];
        let vt = &vt[b * vt_rows * n..(b + 1) * vt_rows * n];
        let s = &s[b * k..(b + 1) * k];
        assert_orthonormal("u", u, m, u_cols, u_cols, 1e3 * tol);
        let v: Vec<C128> = (0..n * vt_rows)
            .map(|e| vt[(e % vt_rows) * n + e / vt_rows].conj())
            .collect();
        assert_orthonormal("v", &v, n, vt_rows, vt_rows, 1e3 * tol);
        let a = &a[b * m * n..(b + 1) * m * n];
        for i in 0..m {
            for j in 0..n {
                let x: C128 = (0..k)
                    .map(|l| u[i * u_cols + l] * s[l].re * vt[l * n + j])
                    .sum();
                let y = a[i * n + j];
                assert!(
                    (x - y).norm() < 1e2 * tol,
                    "u·s·vt at {i}, {j}: {x} against {y}"
                );
            }
        }
        if direct {
            let want_u = &want_u[b * m * u_cols..(b + 1) * m * u_cols];
            let want_vt = &want_vt[b * vt_rows * n..(b + 1) * vt_rows * n];
            let first_u: Vec<(C128, C128)> = (0..m * u_cols)
                .filter(|e| e % u_cols < k)
                .map(|e| (u[e], want_u[e]))
                .collect();
            let (g, w): (Vec<C128>, Vec<C128>) = first_u.into_iter().unzip();
            assert_close("u", &g, &w, 1e3 * tol);
            assert_close("vt", &vt[..k * n], &want_vt[..k * n], 1e3 * tol);
        }
    }
}

/// Square, tall and wide matrices of every type in modes `'A'` and
/// `'S'`, `gesdd` and `gesvd`, batched.
#[test]
fn singular_value_decompositions() {
    let shapes = [
        (1, 1),
        (2, 2),
        (3, 3),
        (17, 17),
        (5, 3),
        (3, 5),
        (40, 17),
        (17, 40),
        (64, 64),
    ];
    for ty in TYPES {
        for (m, n) in shapes {
            for mode in ['A', 'S'] {
                for target in ["gesdd", "gesvd"] {
                    let batch: &[usize] = if m * n <= 17 * 17 { &[2] } else { &[] };
                    let mut rng = Rng((m * 100 + n) as u64);
                    let a = random(&mut rng, count(batch) * m * n, ty);
                    let direct = m.max(n) <= 17 || !single(ty);
                    let case = SvdCase {
                        target,
                        ty,
                        batch,
                        m,
                        n,
                        mode,
                        layout: "",
                    };
                    check_svd(case, &a, direct);
                }
            }
        }
    }
}

/// Large matrices on faer's threads, both ways.
#[test]
fn large_singular_value_decompositions() {
    for ty in TYPES {
        for (m, n) in [(200, 150), (150, 200)] {
            let mut rng = Rng((m + n) as u64);
            let a = random(&mut rng, m * n, ty);
            let case = SvdCase {
                target: "gesdd",
                ty,
                batch: &[],
                m,
                n,
                mode: 'S',
                layout: "",
            };
            check_svd(case, &a, !single(ty));
        }
    }
}

/// Column-major operands and results, as JAX lays out `gesdd`'s,
/// batched, both ways.
#[test]
fn singular_value_decompositions_in_column_major_layouts() {
    for ty in TYPES {
        for (m, n, mode) in [(7, 4, 'S'), (4, 7, 'S'), (5, 5, 'A')] {
            let mut rng = Rng((m * n) as u64);
            let a = random(&mut rng, 2 * m * n, ty);
            let case = SvdCase {
                target: "gesdd",
                ty,
                batch: &[2],
                m,
                n,
                mode,
                layout: "{1,2,0}",
            };
            check_svd(case, &a, true);
        }
    }
}

/// Rank-deficient matrices: the singular values (zeros among them) and
/// the invariants; the vectors of the zero values are any orthonormal
/// completion.
#[test]
fn singular_value_decompositions_of_rank_deficient_matrices() {
    for ty in TYPES {
        let (m, n) = (9, 6);
        let mut rng = Rng(6);
        let mut a = random(&mut rng, m * n, ty);
        (0..m).for_each(|i| a[i * n + 4] = a[i * n + 1]);
        for mode in ['A', 'S'] {
            let case = SvdCase {
                target: "gesdd",
                ty,
                batch: &[],
                m,
                n,
                mode,
                layout: "",
            };
            check_svd(case, &a, false);
        }
        let case = SvdCase {
            target: "gesdd",
            ty,
            batch: &[],
            m,
            n,
            mode: 'A',
            layout: "",
        };
        check_svd(case, &vec![C128::new(0.0, 0.0); m * n], false);
    }
}

/// Mode `'N'`, NaN and infinite operands: compared with the interpreter
/// as a whole.
#[test]
fn singular_values_only_and_special_values() {
    for ty in TYPES {
        for target in ["gesdd", "gesvd"] {
            let (m, n) = (4, 6);
            let mut rng = Rng(1);
            let a = random(&mut rng, 3 * m * n, ty);
            check(
                &svd_module(target, ty, &[3], m, n, 'N', ""),
                vec![literal(ty, &[3, m, n], &a)],
                tolerance(ty, 256.0),
            );
            // Mode 'A' of a square matrix: no completion to compare.
            for (m, n, mode) in [(m, n, 'S'), (m, n, 'N'), (5, 5, 'A')] {
                for special in [f64::NAN, f64::INFINITY] {
                    let mut b = random(&mut rng, 3 * m * n, ty);
                    b[m * n + 3] = C128::new(special, 0.0);
                    check(
                        &svd_module(target, ty, &[3], m, n, mode, ""),
                        vec![literal(ty, &[3, m, n], &b)],
                        tolerance(ty, 256.0),
                    );
                }
            }
        }
    }
}
