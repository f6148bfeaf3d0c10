//! `triangular-solve` and `?trsm`: every flag, large systems, zeros on
//! the diagonal and column-major layouts.

use super::*;

/// The flags of one triangular solve.
#[derive(Clone, Copy, Debug)]
pub(super) struct Flags {
    pub(super) left: bool,
    pub(super) lower: bool,
    pub(super) unit: bool,
    /// `N`, `T` or `C`.
    pub(super) transpose: char,
}

fn all_flags() -> Vec<Flags> {
    let mut out = Vec::new();
    for left in [true, false] {
        for lower in [true, false] {
            for unit in [true, false] {
                for transpose in ['N', 'T', 'C'] {
                    out.push(Flags {
                        left,
                        lower,
                        unit,
                        transpose,
                    });
                }
            }
        }
    }
    out
}

/// `b`'s minor dimensions for `k` right-hand sides.
fn rhs_dims(f: Flags, m: usize, k: usize) -> [usize; 2] {
    if f.left {
        [m, k]
    } else {
        [k, m]
    }
}

pub(super) fn triangular_module(
    ty: &str,
    batch: &[usize],
    m: usize,
    k: usize,
    f: Flags,
    layout: &str,
) -> String {
    let a = dims(batch, &[m, m]);
    let b = dims(batch, &rhs_dims(f, m, k));
    let transpose = match f.transpose {
        'N' => "NO_TRANSPOSE",
        'T' => "TRANSPOSE",
        _ => "ADJOINT",
    };
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{a}]{layout} parameter(0)\n  \
         b = {ty}[{b}]{layout} parameter(1)\n  \
         ROOT x = {ty}[{b}]{layout} triangular-solve(a, b), left_side={}, lower={}, \
         unit_diagonal={}, transpose_a={transpose}\n}}\n",
        f.left, f.lower, f.unit
    )
}

pub(super) fn trsm_module(
    ty: &str,
    batch: &[usize],
    m: usize,
    k: usize,
    f: Flags,
    alpha: bool,
    layout: &str,
) -> String {
    let a = dims(batch, &[m, m]);
    let b = dims(batch, &rhs_dims(f, m, k));
    let letter_of = |c: char| c as u32;
    let (alpha_param, alpha_operand) = if alpha {
        (format!("  alpha = {ty}[] parameter(2)\n"), ", alpha")
    } else {
        (String::new(), "")
    };
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{a}]{layout} parameter(0)\n  \
         b = {ty}[{b}]{layout} parameter(1)\n{alpha_param}  \
         ROOT x = {ty}[{b}]{layout} custom-call(a, b{alpha_operand}), \
         custom_call_target=\"lapack_{}trsm_ffi\", backend_config={{diag = {} : ui8, \
         side = {} : ui8, trans_x = {} : ui8, uplo = {} : ui8}}\n}}\n",
        letter(ty),
        letter_of(if f.unit { 'U' } else { 'N' }),
        letter_of(if f.left { 'L' } else { 'R' }),
        letter_of(f.transpose),
        letter_of(if f.lower { 'L' } else { 'U' }),
    )
}

/// `count` random `m × m` matrices, well conditioned as triangles: entries
/// of modulus below `1/√m` off the diagonal, between 1 and 2 on it; both
/// triangles filled.
pub(super) fn triangular_matrices(rng: &mut Rng, count: usize, m: usize, ty: &str) -> Vec<C128> {
    let mut a = random(rng, count * m * m, ty);
    let scale = 1.0 / (m as f64).sqrt();
    for (e, z) in a.iter_mut().enumerate() {
        let (i, j) = ((e / m) % m, e % m);
        *z = if i == j {
            *z / z.norm().max(1e-3) * (1.0 + z.norm().min(1.0))
        } else {
            *z * scale
        };
    }
    a
}

/// Every flag combination (left or right side, lower or upper, unit
/// diagonal or not, no transpose, transpose or adjoint), in every type,
/// for the HLO op and `trsm` (with and without `alpha`), batched.
#[test]
fn triangular_solves_with_every_flag() {
    for ty in TYPES {
        for f in all_flags() {
            for (m, k) in [(1, 1), (3, 2), (17, 5)] {
                let batch = [2];
                let mut rng = Rng(m as u64 * 31 + k as u64);
                let a = triangular_matrices(&mut rng, 2, m, ty);
                let b = random(&mut rng, 2 * m * k, ty);
                let a_shape = [2, m, m];
                let b_shape = [&batch[..], &rhs_dims(f, m, k)].concat();
                let tol = tolerance(ty, 16.0 * m as f64);
                let args = || vec![literal(ty, &a_shape, &a), literal(ty, &b_shape, &b)];
                check(&triangular_module(ty, &batch, m, k, f, ""), args(), tol);
                check(&trsm_module(ty, &batch, m, k, f, false, ""), args(), tol);
                let mut with_alpha = args();
                with_alpha.push(literal(ty, &[], &[C128::new(-1.5, 0.5)]));
                check(&trsm_module(ty, &batch, m, k, f, true, ""), with_alpha, tol);
            }
        }
    }
}

/// Large systems (faer's parallel solves, and its column splits of many
/// right-hand sides), a few flag combinations per type.
#[test]
fn large_triangular_solves() {
    for ty in TYPES {
        for (i, f) in all_flags()
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 5 == 0)
        {
            for (m, k) in [(64, 64), (200, 3), (200, 200)] {
                let mut rng = Rng(i as u64 + m as u64);
                let a = triangular_matrices(&mut rng, 1, m, ty);
                let b = random(&mut rng, m * k, ty);
                check(
                    &triangular_module(ty, &[], m, k, f, ""),
                    vec![
                        literal(ty, &[m, m], &a),
                        literal(ty, &rhs_dims(f, m, k), &b),
                    ],
                    tolerance(ty, 16.0 * m as f64),
                );
            }
        }
    }
}

/// A zero on the diagonal: the unknowns of that substitution step and of
/// every later one are NaN (the earlier ones are not), in either
/// direction; a unit diagonal ignores it.
#[test]
fn triangular_solves_with_a_zero_on_the_diagonal() {
    for ty in TYPES {
        for f in all_flags() {
            for zero in [0, 4, 8] {
                let (m, k) = (9, 2);
                let mut rng = Rng(zero as u64);
                let mut a = triangular_matrices(&mut rng, 1, m, ty);
                a[zero * m + zero] = C128::new(0.0, 0.0);
                let b = random(&mut rng, m * k, ty);
                let args = || {
                    vec![
                        literal(ty, &[m, m], &a),
                        literal(ty, &rhs_dims(f, m, k), &b),
                    ]
                };
                check(
                    &triangular_module(ty, &[], m, k, f, ""),
                    args(),
                    tolerance(ty, 64.0),
                );
                check(
                    &trsm_module(ty, &[], m, k, f, false, ""),
                    args(),
                    tolerance(ty, 64.0),
                );
            }
        }
    }
}

/// Column-major operands and results, as JAX lays out `trsm`'s.
#[test]
fn triangular_solves_in_column_major_layouts() {
    for ty in ["f32", "c64"] {
        for f in all_flags().into_iter().step_by(3) {
            let (m, k) = (6, 4);
            let mut rng = Rng(9);
            let a = triangular_matrices(&mut rng, 1, m, ty);
            let b = random(&mut rng, m * k, ty);
            let args = || {
                vec![
                    literal(ty, &[m, m], &a),
                    literal(ty, &rhs_dims(f, m, k), &b),
                ]
            };
            check(
                &trsm_module(ty, &[], m, k, f, false, "{0,1}"),
                args(),
                tolerance(ty, 64.0),
            );
            check(
                &triangular_module(ty, &[], m, k, f, "{0,1}"),
                args(),
                tolerance(ty, 64.0),
            );
        }
    }
}
