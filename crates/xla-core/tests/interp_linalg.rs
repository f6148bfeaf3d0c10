//! Cholesky, triangular solve and FFT (`docs/semantics.md`, *FFT*, *Linear algebra*): every
//! worked example, the Project rules for failing matrices, batches, complex
//! types, and FFT lengths 0, 1, primes, 1-D to 3-D.

use xla_core::{HloModule, Literal, C128, C64};

use xla_core::interp::Interpreter;

fn run(text: &str, args: &[&Literal]) -> Literal {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    Interpreter::new()
        .run(&module, args)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn matrix(rows: &[&[f32]]) -> Literal {
    let n = rows[0].len() as i64;
    Literal::from_vec(&[rows.len() as i64, n], rows.concat()).unwrap()
}

fn cholesky(a: &Literal, lower: bool) -> Vec<f32> {
    let shape = a.shape().clone().without_layouts();
    run(
        &format!(
            "HloModule m\n\nENTRY e {{\n  a = {shape} parameter(0)\n  \
             ROOT c = {shape} cholesky(a), lower={lower}\n}}\n"
        ),
        &[a],
    )
    .to_vec()
    .unwrap()
}

/// Equal, or both NaN, for every element.
fn same(got: &[f32], want: &[f32]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| g == w || (g.is_nan() && w.is_nan()))
}

const SQRT2: f32 = std::f32::consts::SQRT_2;
const NAN: f32 = f32::NAN;

#[test]
fn cholesky_examples() {
    let a = matrix(&[&[4.0, 2.0], &[2.0, 3.0]]);
    assert_eq!(cholesky(&a, true), [2.0, 0.0, 1.0, SQRT2]);
    assert_eq!(cholesky(&a, false), [2.0, 1.0, 0.0, SQRT2]);
    let a = matrix(&[
        &[4.0, 12.0, -16.0],
        &[12.0, 37.0, -43.0],
        &[-16.0, -43.0, 98.0],
    ]);
    assert_eq!(
        cholesky(&a, true),
        [2.0, 0.0, 0.0, 6.0, 1.0, 0.0, -8.0, 5.0, 3.0]
    );
    assert_eq!(
        cholesky(&a, false),
        [2.0, 6.0, -8.0, 0.0, 1.0, 5.0, 0.0, 0.0, 3.0]
    );
}

/// Only the selected triangle is read.
#[test]
fn cholesky_reads_one_triangle() {
    let lower_only = matrix(&[&[4.0, 99.0], &[2.0, 3.0]]);
    assert_eq!(cholesky(&lower_only, true), [2.0, 0.0, 1.0, SQRT2]);
    let upper_only = matrix(&[&[4.0, 2.0], &[-7.0, 3.0]]);
    assert_eq!(cholesky(&upper_only, false), [2.0, 1.0, 0.0, SQRT2]);
}

#[test]
fn cholesky_failures() {
    let negative = matrix(&[&[4.0, 2.0, 0.0], &[2.0, -3.0, 0.0], &[0.0, 0.0, 5.0]]);
    assert!(same(&cholesky(&negative, true), &[NAN; 9]));
    let last_zero = matrix(&[&[4.0, 2.0], &[2.0, 1.0]]);
    assert!(same(&cholesky(&last_zero, true), &[2.0, 0.0, 1.0, NAN]));
    let first_zero = matrix(&[&[0.0, 0.0], &[0.0, 1.0]]);
    assert!(same(&cholesky(&first_zero, true), &[NAN; 4]));
    let nan = matrix(&[&[NAN, 0.0], &[0.0, 1.0]]);
    assert!(same(&cholesky(&nan, false), &[NAN; 4]));
}

/// Batch elements are independent: one failing matrix leaves the other.
#[test]
fn cholesky_batch() {
    let a =
        Literal::from_vec(&[2, 2, 2], vec![4.0f32, 2.0, 2.0, 3.0, -1.0, 0.0, 0.0, 1.0]).unwrap();
    assert!(same(
        &cholesky(&a, true),
        &[2.0, 0.0, 1.0, SQRT2, NAN, NAN, NAN, NAN]
    ));
}

/// A Hermitian matrix: `[[4, 2i], [−2i, 5]] = L·Lᴴ` with
/// `L = [[2, 0], [−i, 2]]`.
#[test]
fn cholesky_complex() {
    let a = Literal::from_vec(
        &[2, 2],
        vec![
            C64::new(4.0, 0.0),
            C64::new(0.0, 2.0),
            C64::new(0.0, -2.0),
            C64::new(5.0, 0.0),
        ],
    )
    .unwrap();
    let text = "HloModule m\n\nENTRY e {\n  a = c64[2,2] parameter(0)\n  \
                ROOT c = c64[2,2] cholesky(a), lower=LOWER\n}\n";
    let lower = run(&text.replace("LOWER", "true"), &[&a]);
    assert_eq!(
        lower.to_vec::<C64>().unwrap(),
        [
            C64::new(2.0, 0.0),
            C64::new(0.0, 0.0),
            C64::new(0.0, -1.0),
            C64::new(2.0, 0.0)
        ]
    );
    let upper = run(&text.replace("LOWER", "false"), &[&a]);
    assert_eq!(
        upper.to_vec::<C64>().unwrap(),
        [
            C64::new(2.0, 0.0),
            C64::new(0.0, 1.0),
            C64::new(0.0, 0.0),
            C64::new(2.0, 0.0)
        ]
    );
}

fn solve(a: &Literal, b: &Literal, options: &str) -> Vec<f32> {
    let a_shape = a.shape().clone().without_layouts();
    let b_shape = b.shape().clone().without_layouts();
    run(
        &format!(
            "HloModule m\n\nENTRY e {{\n  a = {a_shape} parameter(0)\n  b = {b_shape} parameter(1)\n  \
             ROOT x = {b_shape} triangular-solve(a, b), {options}\n}}\n"
        ),
        &[a, b],
    )
    .to_vec()
    .unwrap()
}

const LEFT_LOWER: &str =
    "left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE";

/// `docs/semantics.md`, *Triangular solve*, `a = [[2,0],[1,4]]`, lower.
#[test]
fn triangular_solve_examples() {
    let a = matrix(&[&[2.0, 0.0], &[1.0, 4.0]]);
    let b = matrix(&[&[2.0], &[9.0]]);
    assert_eq!(solve(&a, &b, LEFT_LOWER), [1.0, 2.0]);
    let transposed = LEFT_LOWER.replace("NO_TRANSPOSE", "TRANSPOSE");
    assert_eq!(solve(&a, &b, &transposed), [-0.125, 2.25]);
    let unit = LEFT_LOWER.replace("unit_diagonal=false", "unit_diagonal=true");
    assert_eq!(solve(&a, &b, &unit), [2.0, 7.0]);
    let right = LEFT_LOWER.replace("left_side=true", "left_side=false");
    assert_eq!(solve(&a, &matrix(&[&[4.0, 8.0]]), &right), [1.0, 2.0]);
    // The 99 is in the ignored triangle.
    let ignored = matrix(&[&[2.0, 99.0], &[1.0, 4.0]]);
    assert_eq!(solve(&ignored, &b, LEFT_LOWER), [1.0, 2.0]);
    let upper = matrix(&[&[2.0, 1.0], &[0.0, 4.0]]);
    let upper_options = LEFT_LOWER.replace("lower=true", "lower=false");
    assert_eq!(
        solve(&upper, &matrix(&[&[4.0], &[8.0]]), &upper_options),
        [1.0, 2.0]
    );
}

/// Every combination of side, triangle and transpose on one 3×3 system:
/// `x` solves `op(a)·x = b` / `x·op(a) = b`, checked by multiplying back.
#[test]
fn triangular_solve_all_forms() {
    let full = [[2.0f64, -1.0, 3.0], [0.5, 4.0, 1.0], [-2.0, 1.5, 5.0]];
    let a = matrix(
        &full
            .map(|r| r.map(|v| v as f32))
            .iter()
            .map(|r| &r[..])
            .collect::<Vec<_>>(),
    );
    let b_left = matrix(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 6.0]]);
    let b_right = matrix(&[&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]]);
    for left in [true, false] {
        for lower in [true, false] {
            for transpose in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"] {
                for unit in [false, true] {
                    let options = format!(
                        "left_side={left}, lower={lower}, unit_diagonal={unit}, transpose_a={transpose}"
                    );
                    let b = if left { &b_left } else { &b_right };
                    let x = solve(&a, b, &options);
                    // op(triangle(a)) as a dense matrix.
                    let t = |i: usize, j: usize| {
                        let (r, c) = if transpose == "NO_TRANSPOSE" {
                            (i, j)
                        } else {
                            (j, i)
                        };
                        let inside = if lower { r >= c } else { r <= c };
                        match (r == c && unit, inside) {
                            (true, _) => 1.0,
                            (false, true) => full[r][c],
                            (false, false) => 0.0,
                        }
                    };
                    let b = b.to_vec::<f32>().unwrap();
                    let (rows, cols) = if left { (3, 2) } else { (2, 3) };
                    for i in 0..rows {
                        for j in 0..cols {
                            let product: f64 = (0..3)
                                .map(|k| {
                                    if left {
                                        t(i, k) * f64::from(x[k * cols + j])
                                    } else {
                                        f64::from(x[i * cols + k]) * t(k, j)
                                    }
                                })
                                .sum();
                            let want = f64::from(b[i * cols + j]);
                            assert!((product - want).abs() < 1e-4, "{options}: {x:?}");
                        }
                    }
                }
            }
        }
    }
}

/// A zero diagonal entry makes its step and every later one NaN.
#[test]
fn triangular_solve_singular() {
    let a = matrix(&[&[2.0, 0.0], &[1.0, 0.0]]);
    let b = matrix(&[&[2.0, 4.0], &[9.0, 9.0]]);
    assert!(same(&solve(&a, &b, LEFT_LOWER), &[1.0, 2.0, NAN, NAN]));
    let a = matrix(&[&[0.0, 0.0], &[1.0, 4.0]]);
    assert!(same(
        &solve(&a, &matrix(&[&[2.0], &[9.0]]), LEFT_LOWER),
        &[NAN, NAN]
    ));
    // Upper, backward substitution: the last row is the first step.
    let a = matrix(&[&[0.0, 1.0], &[0.0, 2.0]]);
    let upper = LEFT_LOWER.replace("lower=true", "lower=false");
    assert!(same(
        &solve(&a, &matrix(&[&[3.0], &[4.0]]), &upper),
        &[NAN, 2.0]
    ));
}

/// Batch dimensions and the complex adjoint: `conj(aᵀ)·x = b`.
#[test]
fn triangular_solve_batch_and_adjoint() {
    let a = Literal::from_vec(&[2, 2, 2], vec![2.0f32, 0.0, 1.0, 4.0, 1.0, 0.0, 0.0, 2.0]).unwrap();
    let b = Literal::from_vec(&[2, 2, 1], vec![2.0f32, 9.0, 3.0, 4.0]).unwrap();
    assert_eq!(solve(&a, &b, LEFT_LOWER), [1.0, 2.0, 3.0, 2.0]);
    // a = [[1, 0], [i, 1]] (lower); conj(aᵀ) = [[1, −i], [0, 1]].
    let a = Literal::from_vec(
        &[2, 2],
        vec![
            C128::new(1.0, 0.0),
            C128::new(0.0, 0.0),
            C128::new(0.0, 1.0),
            C128::new(1.0, 0.0),
        ],
    )
    .unwrap();
    let b = Literal::from_vec(&[2, 1], vec![C128::new(0.0, 0.0), C128::new(1.0, 0.0)]).unwrap();
    let x = run(
        &format!(
            "HloModule m\n\nENTRY e {{\n  a = c128[2,2] parameter(0)\n  b = c128[2,1] parameter(1)\n  \
             ROOT x = c128[2,1] triangular-solve(a, b), {}\n}}\n",
            LEFT_LOWER.replace("NO_TRANSPOSE", "ADJOINT")
        ),
        &[&a, &b],
    );
    // x₁ = 1, x₀ − i·x₁ = 0 → x₀ = i.
    assert_eq!(
        x.to_vec::<C128>().unwrap(),
        [C128::new(0.0, 1.0), C128::new(1.0, 0.0)]
    );
}

fn fft(
    ty: &str,
    out_ty: &str,
    dims: &str,
    out_dims: &str,
    kind: &str,
    lengths: &str,
    x: &Literal,
) -> Literal {
    run(
        &format!(
            "HloModule m\n\nENTRY e {{\n  x = {ty}[{dims}] parameter(0)\n  \
             ROOT y = {out_ty}[{out_dims}] fft(x), fft_type={kind}, fft_length={{{lengths}}}\n}}\n"
        ),
        &[x],
    )
}

fn c64s(values: &[(f32, f32)]) -> Vec<C64> {
    values.iter().map(|&(re, im)| C64::new(re, im)).collect()
}

fn close(got: &[C64], want: &[C64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).norm() <= 1e-5 * (1.0 + w.norm()),
            "{got:?} vs {want:?}"
        );
    }
}

/// `docs/semantics.md`, *FFT*.
#[test]
fn fft_examples() {
    let x = Literal::vector(&c64s(&[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]));
    let y = fft("c64", "c64", "4", "4", "FFT", "4", &x);
    let want = c64s(&[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0), (-2.0, -2.0)]);
    close(&y.to_vec().unwrap(), &want);
    let back = fft("c64", "c64", "4", "4", "IFFT", "4", &y);
    close(&back.to_vec().unwrap(), &x.to_vec::<C64>().unwrap());
    let r = fft(
        "f32",
        "c64",
        "4",
        "3",
        "RFFT",
        "4",
        &Literal::vector(&[1.0f32, 2.0, 3.0, 4.0]),
    );
    close(&r.to_vec().unwrap(), &want[..3]);
    let r5 = fft(
        "f32",
        "c64",
        "5",
        "3",
        "RFFT",
        "5",
        &Literal::vector(&[1.0f32, 2.0, 3.0, 4.0, 5.0]),
    );
    close(
        &r5.to_vec().unwrap(),
        &c64s(&[(15.0, 0.0), (-2.5, 3.440_954_8), (-2.5, 0.812_299_2)]),
    );
    let i = fft(
        "c64",
        "f32",
        "3",
        "4",
        "IRFFT",
        "4",
        &Literal::vector(&want[..3]),
    );
    assert_eq!(i.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    let m = Literal::from_vec(
        &[2, 2],
        c64s(&[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]),
    )
    .unwrap();
    let y = fft("c64", "c64", "2,2", "2,2", "FFT", "2,2", &m);
    close(
        &y.to_vec().unwrap(),
        &c64s(&[(10.0, 0.0), (-2.0, 0.0), (-4.0, 0.0), (0.0, 0.0)]),
    );
    let m = matrix(&[&[1.0, 2.0, 3.0, 4.0], &[0.0, 1.0, 0.0, 1.0]]);
    let y = fft("f32", "c64", "2,4", "2,3", "RFFT", "2,4", &m);
    close(
        &y.to_vec().unwrap(),
        &c64s(&[
            (12.0, 0.0),
            (-2.0, 2.0),
            (-4.0, 0.0),
            (8.0, 0.0),
            (-2.0, 2.0),
            (0.0, 0.0),
        ]),
    );
}

/// The definition, in f64, for lengths that take every algorithm: direct
/// (primes ≤ 64), radix-2, Bluestein (large primes); batched and 3-D.
#[test]
fn fft_lengths_and_dimensions() {
    for n in [1usize, 2, 3, 7, 16, 97, 128, 257] {
        let x: Vec<C128> = (0..n)
            .map(|i| C128::new((i as f64).sin(), (0.5 * i as f64).cos()))
            .collect();
        let y = fft(
            "c128",
            "c128",
            &n.to_string(),
            &n.to_string(),
            "FFT",
            &n.to_string(),
            &Literal::vector(&x),
        );
        for (k, got) in y.to_vec::<C128>().unwrap().iter().enumerate() {
            let want: C128 = x
                .iter()
                .enumerate()
                .map(|(j, v)| {
                    v * C128::from_polar(
                        1.0,
                        -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64,
                    )
                })
                .sum();
            assert!(
                (got - want).norm() < 1e-12 * n as f64,
                "n={n} k={k}: {got} vs {want}"
            );
        }
    }
    // Zero-length transforms give empty results.
    let empty = Literal::from_vec::<C64>(&[2, 0], vec![]).unwrap();
    let y = fft("c64", "c64", "2,0", "2,0", "FFT", "0", &empty);
    assert!(y.to_vec::<C64>().unwrap().is_empty());
    // 3-D: the transform of a delta at (1,0,1) is a plane wave.
    let mut x = vec![C64::new(0.0, 0.0); 2 * 3 * 4];
    x[12 + 1] = C64::new(1.0, 0.0);
    let delta = Literal::from_vec(&[2, 3, 4], x).unwrap();
    let y = fft("c64", "c64", "2,3,4", "2,3,4", "FFT", "2,3,4", &delta);
    let want: Vec<C64> = (0..24)
        .map(|e| {
            let (a, c) = (e / 12, e % 4);
            let phase = -2.0 * std::f32::consts::PI * (a as f32 / 2.0 + c as f32 / 4.0);
            C64::from_polar(1.0, phase)
        })
        .collect();
    close(&y.to_vec().unwrap(), &want);
    // IRFFT of an odd length and RFFT round trip, batched.
    let x = Literal::from_vec(&[2, 5], (0..10).map(|v| v as f32 * 0.5 - 1.0).collect()).unwrap();
    let spectrum = fft("f32", "c64", "2,5", "2,3", "RFFT", "5", &x);
    let back = fft("c64", "f32", "2,3", "2,5", "IRFFT", "5", &spectrum);
    for (g, w) in back
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .zip(x.to_vec::<f32>().unwrap())
    {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
}
