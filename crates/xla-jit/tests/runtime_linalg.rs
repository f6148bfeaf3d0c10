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

mod cholesky;
mod eigh;
mod lu;
mod qr;
mod svd;
mod triangular;

use cholesky::{cholesky_module, potrf_module};
use eigh::eigh_module;
use lu::getrf_module;
use qr::{geqrf_module, orgqr_module, qr_module};
use svd::{check_svd, svd_module, SvdCase};
use triangular::{triangular_matrices, triangular_module, trsm_module, Flags};

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
