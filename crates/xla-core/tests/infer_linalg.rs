//! Linear-algebra rules: cholesky, triangular-solve, fft (`docs/semantics.md`,
//! *FFT*, *Linear algebra*).

use xla_core::hlo::{FftType, TransposeKind, TriangularSolveOptions};
use xla_core::infer::{self, InferError};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

#[test]
fn cholesky() {
    assert_eq!(show(infer::cholesky(&a("f32[3,3]"))).unwrap(), "f32[3,3]");
    assert_eq!(
        show(infer::cholesky(&a("c64[5,2,2]"))).unwrap(),
        "c64[5,2,2]"
    );
    assert_eq!(
        show(infer::cholesky(&a("f32[3]"))).unwrap_err(),
        "cholesky: operand 0 f32[3] must have rank at least 2"
    );
    assert_eq!(
        show(infer::cholesky(&a("f32[2,3]"))).unwrap_err(),
        "cholesky: dimension 0 of operand 0 f32[2,3] has size 2, \
         but dimension 1 of operand 0 f32[2,3] has size 3"
    );
    assert_eq!(
        show(infer::cholesky(&a("s32[2,2]"))).unwrap_err(),
        "cholesky: operand 0 s32[2,2] must have a floating-point or complex element type"
    );
}

#[test]
fn triangular_solve() {
    let opts = |left_side| TriangularSolveOptions {
        left_side,
        lower: true,
        unit_diagonal: false,
        transpose_a: TransposeKind::NoTranspose,
    };
    let ts = |x: &str, y: &str, left| show(infer::triangular_solve(&a(x), &a(y), &opts(left)));
    assert_eq!(ts("f32[2,2]", "f32[2,1]", true).unwrap(), "f32[2,1]");
    assert_eq!(ts("f32[2,2]", "f32[1,2]", false).unwrap(), "f32[1,2]");
    assert_eq!(ts("f32[4,3,3]", "f32[4,3,5]", true).unwrap(), "f32[4,3,5]");
    assert_eq!(
        ts("f32[2,2]", "f32[1,2]", true).unwrap_err(),
        "triangular-solve: dimension 1 of operand 0 f32[2,2] has size 2, \
         but dimension 0 of operand 1 f32[1,2] has size 1"
    );
    assert_eq!(
        ts("f32[4,3,3]", "f32[5,3,5]", true).unwrap_err(),
        "triangular-solve: dimension 0 of operand 0 f32[4,3,3] has size 4, \
         but dimension 0 of operand 1 f32[5,3,5] has size 5"
    );
    assert_eq!(
        ts("f32[3,3]", "f32[2,3,5]", true).unwrap_err(),
        "triangular-solve: operand 1 f32[2,3,5] has rank 3, but operand 0 f32[3,3] has rank 2"
    );
    assert_eq!(
        ts("f32[3,3]", "f64[3,5]", true).unwrap_err(),
        "triangular-solve: operand 1 f64[3,5] must have the element type of operand 0 f32[3,3]"
    );
    assert_eq!(
        ts("f32[3,2]", "f32[3,5]", true).unwrap_err(),
        "triangular-solve: dimension 0 of operand 0 f32[3,2] has size 3, \
         but dimension 1 of operand 0 f32[3,2] has size 2"
    );
}

#[test]
fn fft_table() {
    let fft = |x: &str, ty, len: &[i64]| show(infer::fft(&a(x), ty, len));
    // `docs/semantics.md`, *FFT*.
    assert_eq!(fft("c64[4]", FftType::Fft, &[4]).unwrap(), "c64[4]");
    assert_eq!(fft("c64[4]", FftType::Ifft, &[4]).unwrap(), "c64[4]");
    assert_eq!(fft("f32[4]", FftType::Rfft, &[4]).unwrap(), "c64[3]");
    assert_eq!(fft("f64[5]", FftType::Rfft, &[5]).unwrap(), "c128[3]");
    assert_eq!(fft("c64[3]", FftType::Irfft, &[4]).unwrap(), "f32[4]");
    assert_eq!(fft("c64[3]", FftType::Irfft, &[5]).unwrap(), "f32[5]");
    assert_eq!(fft("c64[2,2]", FftType::Fft, &[2, 2]).unwrap(), "c64[2,2]");
    assert_eq!(fft("f32[2,4]", FftType::Rfft, &[2, 4]).unwrap(), "c64[2,3]");
    assert_eq!(fft("f32[7,0]", FftType::Rfft, &[0]).unwrap(), "c64[7,0]");
    assert_eq!(
        fft("c64[4,5]", FftType::Fft, &[4, 4]).unwrap_err(),
        "fft: FFT needs dimension 1 of operand 0 c64[4,5] to have size 4, but it has size 5"
    );
    assert_eq!(
        fft("c64[4]", FftType::Irfft, &[4]).unwrap_err(),
        "fft: IRFFT needs dimension 0 of operand 0 c64[4] to have size 3, but it has size 4"
    );
    assert_eq!(
        fft("c64[5,3]", FftType::Irfft, &[4, 4]).unwrap_err(),
        "fft: IRFFT needs dimension 0 of operand 0 c64[5,3] to have size 4, but it has size 5"
    );
    assert_eq!(
        fft("c64[4]", FftType::Rfft, &[4]).unwrap_err(),
        "fft: operand 0 c64[4] must have an f32 or f64 element type"
    );
    assert_eq!(
        fft("f32[4]", FftType::Fft, &[4]).unwrap_err(),
        "fft: operand 0 f32[4] must have a complex element type"
    );
    assert_eq!(
        fft("c64[4]", FftType::Fft, &[4, 4]).unwrap_err(),
        "fft: operand 0 c64[4] must have rank at least 2"
    );
    assert_eq!(
        fft("c64[2,2,2,2]", FftType::Fft, &[2, 2, 2, 2]).unwrap_err(),
        "fft: fft_length = {2,2,2,2} is invalid: an FFT transforms 1 to 3 dimensions"
    );
    assert_eq!(
        fft("c64[4]", FftType::Fft, &[]).unwrap_err(),
        "fft: fft_length = {} is invalid: an FFT transforms 1 to 3 dimensions"
    );
}

#[test]
fn symbolic_fft() {
    let n = SymDim::symbol("N");
    let x = ArrayShape::new(PrimitiveType::F32, [SymDim::symbol("B"), n.clone()]);
    assert_eq!(
        infer::fft(&x, FftType::Rfft, &[n]).unwrap_err().to_string(),
        "fft: the size of dimension 1 of the result, ⌊(N) / 2⌋ + 1, cannot be expressed"
    );
}
