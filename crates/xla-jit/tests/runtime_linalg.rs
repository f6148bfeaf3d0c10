//! Linear algebra on the JIT (library routines on faer) against the
//! reference interpreter: `cholesky`, `triangular-solve` and every LAPACK
//! custom call JAX emits on CPU, in `f32`, `f64`, `c64` and `c128`, batched
//! and not, sizes 1 to 200 and one of each past the size from which faer's
//! threads run it,
//! non-square QR and SVD both ways, singular, indefinite and
//! ill-conditioned matrices, NaN operands, every triangular-solve flag and
//! non-default layouts. Where a result is not unique (the vectors of an
//! SVD beyond the first `min(M, N)`, those of zero singular values, the
//! eigenvectors of large `f32` matrices, whose rounding errors grow with
//! the inverse eigenvalue gaps) the check is on invariants: orthonormal
//! columns, reconstruction, `A·v = λ·v`.

use xla_core::interp::Interpreter;
use xla_core::literal::Tolerance;
use xla_core::{HloModule, Literal, PrimitiveType, C128};

use crate::runtime_support::{check_against_interpreter, compile_all, parse, Rng};

const TYPES: [&str; 4] = ["f32", "f64", "c64", "c128"];

/// The sizes of square matrices checked against the interpreter.
const SIZES: [usize; 6] = [1, 2, 3, 17, 64, 200];

fn complex(ty: &str) -> bool {
    ty.starts_with('c')
}

fn single(ty: &str) -> bool {
    ty == "f32" || ty == "c64"
}

fn real_type(ty: &str) -> &'static str {
    if single(ty) {
        "f32"
    } else {
        "f64"
    }
}

/// LAPACK's prefix of the type.
fn letter(ty: &str) -> char {
    match ty {
        "f32" => 's',
        "f64" => 'd',
        "c64" => 'c',
        _ => 'z',
    }
}

fn primitive(ty: &str) -> PrimitiveType {
    match ty {
        "f32" => PrimitiveType::F32,
        "f64" => PrimitiveType::F64,
        "c64" => PrimitiveType::C64,
        _ => PrimitiveType::C128,
    }
}

/// The unit roundoff of the type.
fn eps(ty: &str) -> f64 {
    if single(ty) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// `scale` units of roundoff, absolute and relative.
fn tolerance(ty: &str, scale: f64) -> Tolerance {
    Tolerance::new(eps(ty) * scale, eps(ty) * scale)
}

/// `"2,3,4"` for `[2]` then `3, 4`.
fn dims(batch: &[usize], minor: &[usize]) -> String {
    batch
        .iter()
        .chain(minor)
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The product of the batch dimensions.
fn count(batch: &[usize]) -> usize {
    batch.iter().product()
}

/// A literal of type `ty` with row-major `values` (imaginary parts
/// dropped for real types).
fn literal(ty: &str, shape: &[usize], values: &[C128]) -> Literal {
    let d: Vec<i64> = shape.iter().map(|&x| x as i64).collect();
    let l = if complex(ty) {
        Literal::from_vec(&d, values.to_vec()).unwrap()
    } else {
        Literal::from_vec(&d, values.iter().map(|z| z.re).collect()).unwrap()
    };
    l.convert(primitive(ty)).unwrap()
}

/// The elements of an array literal as `c128`.
fn values(l: &Literal) -> Vec<C128> {
    l.convert(PrimitiveType::C128)
        .unwrap()
        .to_vec::<C128>()
        .unwrap()
}

/// Uniform entries in `[-1, 1)` (and imaginary parts for complex types).
fn random(rng: &mut Rng, len: usize, ty: &str) -> Vec<C128> {
    (0..len)
        .map(|_| {
            let re = rng.uniform(1.0);
            let im = if complex(ty) { rng.uniform(1.0) } else { 0.0 };
            C128::new(re, im)
        })
        .collect()
}

/// `count` Hermitian positive definite `n × n` matrices `X·Xᴴ/n + I`,
/// with random values in the triangle that is not read (`lower`: the
/// strict upper one).
fn positive_definite(rng: &mut Rng, count: usize, n: usize, ty: &str, lower: bool) -> Vec<C128> {
    let mut out = Vec::with_capacity(count * n * n);
    for _ in 0..count {
        let x = random(rng, n * n, ty);
        let junk = random(rng, n * n, ty);
        for i in 0..n {
            for j in 0..n {
                let unread = if lower { j > i } else { j < i };
                let v = if unread {
                    junk[i * n + j]
                } else {
                    let dot: C128 = (0..n).map(|k| x[i * n + k] * x[j * n + k].conj()).sum();
                    dot / n as f64 + if i == j { 1.0 } else { 0.0 }
                };
                out.push(v);
            }
        }
    }
    out
}

/// The arguments in the layouts of the entry's parameters.
fn laid_out(module: &HloModule, args: Vec<Literal>) -> Vec<Literal> {
    let program = module.entry_program_shape();
    args.into_iter()
        .zip(&program.parameters)
        .map(|(arg, shape)| {
            let layout = shape.as_array().unwrap().layout_or_default();
            arg.relayout(&layout).unwrap()
        })
        .collect()
}

/// Compiles `text` (nothing left to the interpreter) and compares the JIT
/// with the interpreter on `args`.
fn check(text: &str, args: Vec<Literal>, tolerance: Tolerance) {
    let module = parse(text);
    compile_all(&module);
    let args = laid_out(&module, args);
    check_against_interpreter(&module, &args, tolerance);
}

/// The JIT's and the interpreter's results of `text` on `args`, each
/// flattened to its array leaves.
fn run_both(text: &str, args: Vec<Literal>) -> (Vec<Literal>, Vec<Literal>) {
    let module = parse(text);
    let exe = compile_all(&module);
    let args = laid_out(&module, args);
    let refs: Vec<&Literal> = args.iter().collect();
    let got = exe.execute(&refs).unwrap();
    let want = Interpreter::new().run(&module, &refs).unwrap();
    let leaves = |l: Literal| match l.tuple_elements() {
        Some(_) => l.into_tuple_elements().unwrap(),
        None => vec![l],
    };
    (leaves(got), leaves(want))
}

/// Asserts `got` is within `tol·(1 + |want|)` of `want` elementwise (NaN
/// matching NaN).
fn assert_close(what: &str, got: &[C128], want: &[C128], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let nan = |z: &C128| z.re.is_nan() || z.im.is_nan();
        if nan(g) || nan(w) {
            assert!(nan(g) && nan(w), "{what}[{i}]: got {g}, want {w}");
            continue;
        }
        assert!(
            (g - w).norm() <= tol * (1.0 + w.norm()),
            "{what}[{i}]: got {g}, want {w} (tolerance {tol})"
        );
    }
}

/// Asserts the `cols` columns of the row-major `rows × stride` matrix `q`
/// (the first `cols` of its columns) are orthonormal within `tol`.
fn assert_orthonormal(what: &str, q: &[C128], rows: usize, stride: usize, cols: usize, tol: f64) {
    for a in 0..cols {
        for b in 0..cols {
            let dot: C128 = (0..rows)
                .map(|r| q[r * stride + a].conj() * q[r * stride + b])
                .sum();
            let want = if a == b { 1.0 } else { 0.0 };
            assert!(
                (dot - want).norm() <= tol,
                "{what}: columns {a} and {b} have product {dot}"
            );
        }
    }
}

// --- Large matrices ---------------------------------------------------

/// `n × n` symmetric (Hermitian) matrices with entries below 1 off the
/// diagonal and `n` on it: positive definite, cheap to make at any size.
fn diagonally_dominant(rng: &mut Rng, n: usize, ty: &str) -> Vec<C128> {
    let x = random(rng, n * n, ty);
    (0..n * n)
        .map(|e| {
            let (i, j) = (e / n, e % n);
            match i.cmp(&j) {
                std::cmp::Ordering::Equal => C128::new(n as f64, 0.0),
                std::cmp::Ordering::Greater => x[e],
                std::cmp::Ordering::Less => x[j * n + i].conj(),
            }
        })
        .collect()
}

/// One matrix of each routine past the size from which its steps run on
/// faer's threads (each routine's `PARALLEL`), against the interpreter.
#[test]
fn matrices_large_enough_for_several_threads() {
    let mut rng = Rng(1536);
    let n = 1536;
    let a = diagonally_dominant(&mut rng, n, "f32");
    check(
        &potrf_module("f32", &[], n, true, "{0,1}"),
        vec![literal("f32", &[n, n], &a)],
        tolerance("f32", 64.0),
    );
    let (m, k) = (512, 512);
    let f = Flags {
        left: true,
        lower: true,
        unit: false,
        transpose: 'C',
    };
    let a = triangular_matrices(&mut rng, 1, m, "c64");
    let b = random(&mut rng, m * k, "c64");
    check(
        &trsm_module("c64", &[], m, k, f, false, "{0,1}"),
        vec![literal("c64", &[m, m], &a), literal("c64", &[m, k], &b)],
        tolerance("c64", 16.0 * m as f64),
    );
    let n = 1024;
    let a = random(&mut rng, n * n, "f64");
    check(
        &getrf_module("f64", &[], n, n, "{0,1}"),
        vec![literal("f64", &[n, n], &a)],
        tolerance("f64", 64.0 * n as f64),
    );
    let (m, n) = (1024, 600);
    let a = random(&mut rng, m * n, "f64");
    check(
        &qr_module("f64", &[], m, n, "{0,1}"),
        vec![literal("f64", &[m, n], &a)],
        tolerance("f64", 32.0 * m as f64),
    );
    let n = 256;
    let a = random(&mut rng, n * n, "c128");
    check(
        &eigh_module("c128", &[], n, false, 'V', "{0,1}"),
        vec![literal("c128", &[n, n], &a)],
        tolerance("c128", 200.0 * n as f64),
    );
    let (m, n) = (300, 260);
    let a = random(&mut rng, m * n, "f64");
    let case = SvdCase {
        target: "gesdd",
        ty: "f64",
        batch: &[],
        m,
        n,
        mode: 'S',
        layout: "{0,1}",
    };
    check_svd(case, &a, true);
}

/// Empty matrices, and empty batches of them: whatever results there are
/// (`info`s, identity vectors of a full SVD) as the interpreter's.
#[test]
fn empty_matrices() {
    let one = C128::new(1.0, 0.0);
    for ty in ["f32", "c128"] {
        let f = Flags {
            left: true,
            lower: true,
            unit: false,
            transpose: 'N',
        };
        let modules = [
            (cholesky_module(ty, &[2], 0, true, ""), vec![vec![2, 0, 0]]),
            (potrf_module(ty, &[2], 0, false, ""), vec![vec![2, 0, 0]]),
            (potrf_module(ty, &[0], 3, true, ""), vec![vec![0, 3, 3]]),
            (
                trsm_module(ty, &[2], 0, 3, f, false, ""),
                vec![vec![2, 0, 0], vec![2, 0, 3]],
            ),
            (
                triangular_module(ty, &[], 3, 0, f, ""),
                vec![vec![3, 3], vec![3, 0]],
            ),
            (getrf_module(ty, &[2], 0, 3, ""), vec![vec![2, 0, 3]]),
            (getrf_module(ty, &[], 3, 0, ""), vec![vec![3, 0]]),
            (geqrf_module(ty, &[2], 3, 0, ""), vec![vec![2, 3, 0]]),
            (orgqr_module(ty, &[], 3, 0, 0), vec![vec![3, 0], vec![0]]),
            (eigh_module(ty, &[2], 0, true, 'V', ""), vec![vec![2, 0, 0]]),
            (
                svd_module("gesdd", ty, &[], 0, 3, 'A', ""),
                vec![vec![0, 3]],
            ),
            (
                svd_module("gesdd", ty, &[2], 3, 0, 'A', ""),
                vec![vec![2, 3, 0]],
            ),
            (
                svd_module("gesvd", ty, &[], 3, 0, 'S', ""),
                vec![vec![3, 0]],
            ),
        ];
        for (text, shapes) in modules {
            let args = shapes
                .iter()
                .map(|d| literal(ty, d, &vec![one; d.iter().product()]))
                .collect();
            check(&text, args, Tolerance::EXACT);
        }
    }
}

// --- Cholesky ---------------------------------------------------------

fn cholesky_module(ty: &str, batch: &[usize], n: usize, lower: bool, layout: &str) -> String {
    let d = dims(batch, &[n, n]);
    format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{d}]{layout} parameter(0)\n  \
         ROOT c = {ty}[{d}]{layout} cholesky(a), lower={lower}\n}}\n"
    )
}

fn potrf_module(ty: &str, batch: &[usize], n: usize, lower: bool, layout: &str) -> String {
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

// --- Triangular solves ------------------------------------------------

/// The flags of one triangular solve.
#[derive(Clone, Copy, Debug)]
struct Flags {
    left: bool,
    lower: bool,
    unit: bool,
    /// `N`, `T` or `C`.
    transpose: char,
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

fn triangular_module(
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

fn trsm_module(
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
fn triangular_matrices(rng: &mut Rng, count: usize, m: usize, ty: &str) -> Vec<C128> {
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

// --- LU ---------------------------------------------------------------

fn getrf_module(ty: &str, batch: &[usize], m: usize, n: usize, layout: &str) -> String {
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
    check(
        &getrf_module("f64", &[], n, n, ""),
        vec![literal("f64", &[n, n], &hilbert)],
        tolerance("f64", 256.0),
    );
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

// --- QR ---------------------------------------------------------------

fn geqrf_module(ty: &str, batch: &[usize], m: usize, n: usize, layout: &str) -> String {
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
fn qr_module(ty: &str, batch: &[usize], m: usize, n: usize, layout: &str) -> String {
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
fn orgqr_module(ty: &str, batch: &[usize], m: usize, n: usize, k: usize) -> String {
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

// --- Symmetric eigendecomposition ---------------------------------------

fn eigh_name(ty: &str) -> String {
    let name = if complex(ty) { "heevd" } else { "syevd" };
    format!("lapack_{}{name}_ffi", letter(ty))
}

fn eigh_module(
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

// --- SVD --------------------------------------------------------------

fn svd_module(
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
struct SvdCase<'a> {
    target: &'a str,
    ty: &'a str,
    batch: &'a [usize],
    m: usize,
    n: usize,
    mode: char,
    /// The layout of the matrices.
    layout: &'a str,
}

/// Checks one SVD of `a` (`count` matrices `m × n`, mode `'A'` or `'S'`)
/// against the interpreter: the copy of the operand, `info`, and the
/// singular values directly; the first `min(M, N)` singular vectors
/// directly when `direct`; every vector by orthonormality and `a =
/// u·diag(s)·vt`.
fn check_svd(case: SvdCase<'_>, a: &[C128], direct: bool) {
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
