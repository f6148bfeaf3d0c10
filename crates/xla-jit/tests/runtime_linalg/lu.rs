//! `?getrf`: square, tall and wide matrices, singular ones, layouts, and
//! JAX's solve of a singular matrix.

use super::*;

pub(super) fn getrf_module(ty: &str, batch: &[usize], m: usize, n: usize, layout: &str) -> String {
    let d = dims(batch, &[m, n]);
    let p = dims(batch, &[m.min(n)]);
    let b = dims(batch, &[]);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT lu = ({ty}[{d}]{layout}, s32[{p}], s32[{b}]) custom-call(a), \
         custom_call_target=\"lapack_{}getrf_ffi\", backend_config={{}}\n}}\n",
        letter(ty)
    )
}

/// Square, tall and wide matrices of every type, batched: the factors,
/// the pivots and `info` as the interpreter's.
#[test]
fn lu_factorizations() {
    let shapes = [
        (1, 1),
        (2, 2),
        (3, 3),
        (17, 17),
        (64, 64),
        (200, 200),
        (5, 3),
        (3, 5),
        (40, 17),
        (17, 40),
        (70, 50),
        (50, 70),
    ];
    for ty in TYPES {
        for (m, n) in shapes {
            let batch: &[usize] = if m * n <= 64 * 64 { &[2] } else { &[] };
            let mut rng = Rng((m * 1000 + n) as u64);
            let a = random(&mut rng, count(batch) * m * n, ty);
            check(
                &getrf_module(ty, batch, m, n, ""),
                vec![literal(ty, &[batch, &[m, n]].concat(), &a)],
                tolerance(ty, 64.0 * m.max(n) as f64),
            );
        }
    }
}

/// Singular matrices, exactly so in any precision: a zero column (the
/// first zero pivot in `info`, the column left unscaled), a zero row (a
/// zero last pivot, also past the unblocked steps), the zero matrix and a
/// small integer matrix whose elimination is exact; and an
/// ill-conditioned one.
#[test]
fn lu_of_singular_matrices() {
    for ty in TYPES {
        for n in [6, 40] {
            let mut rng = Rng(n as u64);
            let mut zero_column = random(&mut rng, n * n, ty);
            (0..n).for_each(|i| zero_column[i * n + 2] = C128::new(0.0, 0.0));
            let mut zero_row = random(&mut rng, n * n, ty);
            zero_row[n..2 * n].fill(C128::new(0.0, 0.0));
            let zeros = vec![C128::new(0.0, 0.0); n * n];
            for a in [zero_column, zero_row, zeros] {
                check(
                    &getrf_module(ty, &[], n, n, ""),
                    vec![literal(ty, &[n, n], &a)],
                    tolerance(ty, 64.0 * n as f64),
                );
            }
        }
        let exact: Vec<C128> = [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 1.0, 1.0]
            .iter()
            .map(|&x| C128::new(x, 0.0))
            .collect();
        check(
            &getrf_module(ty, &[], 3, 3, ""),
            vec![literal(ty, &[3, 3], &exact)],
            Tolerance::EXACT,
        );
    }
    let n = 12;
    let hilbert: Vec<C128> = (0..n * n)
        .map(|e| C128::new(1.0 / ((e / n + e % n + 1) as f64), 0.0))
        .collect();
    // The Hilbert matrix's condition number is 1.7e16: its factors move
    // with the rounding of each update (the engine's fused multiply-adds,
    // as LAPACK computes them on an optimized BLAS, put the last ones
    // about 10⁻⁹ from the interpreter's separate products and sums). What
    // must hold: the same pivots and info, and `L·U = P·A` to rounding.
    let (got, want) = run_both(
        &getrf_module("f64", &[], n, n, ""),
        vec![literal("f64", &[n, n], &hilbert)],
    );
    assert_eq!(values(&got[1]), values(&want[1]), "pivots");
    assert_eq!(values(&got[2]), values(&want[2]), "info");
    let lu = values(&got[0]);
    let mut pa = hilbert.clone();
    for (j, p) in values(&got[1]).iter().enumerate() {
        let p = p.re as usize - 1;
        for c in 0..n {
            pa.swap(j * n + c, p * n + c);
        }
    }
    for i in 0..n {
        for j in 0..n {
            let product: C128 = (0..=i.min(j))
                .map(|k| {
                    if k == i {
                        lu[k * n + j]
                    } else {
                        lu[i * n + k] * lu[k * n + j]
                    }
                })
                .sum();
            let want = pa[i * n + j];
            assert!(
                (product - want).norm() < 16.0 * n as f64 * eps("f64"),
                "L·U at {i}, {j}: {product} against P·A's {want}"
            );
        }
    }
}

/// Column-major operands and results, as JAX lays out `getrf`'s.
#[test]
fn lu_in_column_major_layouts() {
    for ty in ["f32", "c128"] {
        let mut rng = Rng(3);
        let a = random(&mut rng, 2 * 7 * 5, ty);
        check(
            &getrf_module(ty, &[2], 7, 5, "{1,2,0}"),
            vec![literal(ty, &[2, 7, 5], &a)],
            tolerance(ty, 64.0),
        );
    }
}

/// An operand and a result in different layouts (row-major in,
/// column-major out, and the reverse): one of them goes through a
/// relayout copy.
#[test]
fn lu_with_mixed_layouts() {
    for ty in ["f32", "c64"] {
        for (a_layout, lu_layout) in [("{1,0}", "{0,1}"), ("{0,1}", "{1,0}")] {
            let (m, n) = (6, 9);
            let d = dims(&[], &[m, n]);
            let text = format!(
                "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{a_layout} parameter(0)\n  \
                 ROOT lu = ({ty}[{d}]{lu_layout}, s32[{m}], s32[]) custom-call(a), \
                 custom_call_target=\"lapack_{}getrf_ffi\", backend_config={{}}\n}}\n",
                letter(ty)
            );
            let mut rng = Rng(1);
            let a = random(&mut rng, m * n, ty);
            check(&text, vec![literal(ty, &[m, n], &a)], tolerance(ty, 64.0));
        }
    }
}

/// JAX's `jnp.linalg.solve`, `slogdet`, `inv` and `det` program of the
/// conformance corpus on a singular matrix (a zero row): `getrf` reports
/// it, the triangular solves make NaN of what follows the zero pivot.
#[test]
fn jax_solve_of_a_singular_matrix() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/conformance/cases/program__lu_solve_det/module.hlo");
    let text = std::fs::read_to_string(path).unwrap();
    let mut rng = Rng(11);
    for singular in [false, true] {
        let mut a = random(&mut rng, 36, "f32");
        if singular {
            a[24..30].fill(C128::new(0.0, 0.0));
        }
        let b = random(&mut rng, 12, "f32");
        check(
            &text,
            vec![literal("f32", &[6, 6], &a), literal("f32", &[6, 2], &b)],
            tolerance("f32", 4096.0),
        );
    }
}
