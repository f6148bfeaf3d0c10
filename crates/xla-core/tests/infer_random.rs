//! Random-number rules (`docs/semantics.md`, *Random numbers*).

use xla_core::hlo::{RngAlgorithm, RngDistribution};
use xla_core::infer::{self, InferError};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

#[test]
fn rng() {
    let uniform = RngDistribution::Uniform;
    let normal = RngDistribution::Normal;
    assert_eq!(
        show(infer::rng(
            uniform,
            &a("f32[]"),
            &a("f32[]"),
            &a("f32[3,4]")
        ))
        .unwrap(),
        "f32[3,4]"
    );
    assert_eq!(
        show(infer::rng(uniform, &a("s32[]"), &a("s32[]"), &a("s32[8]"))).unwrap(),
        "s32[8]"
    );
    assert_eq!(
        show(infer::rng(
            normal,
            &a("bf16[]"),
            &a("bf16[]"),
            &a("bf16[8]")
        ))
        .unwrap(),
        "bf16[8]"
    );
    assert_eq!(
        show(infer::rng(normal, &a("s32[]"), &a("s32[]"), &a("s32[8]"))).unwrap_err(),
        "rng: operand 0 s32[] must have a floating-point element type"
    );
    assert_eq!(
        show(infer::rng(
            uniform,
            &a("pred[]"),
            &a("pred[]"),
            &a("pred[8]")
        ))
        .unwrap_err(),
        "rng: operand 0 pred[] must have a real numeric (not pred, not complex) element type"
    );
    assert_eq!(
        show(infer::rng(uniform, &a("f32[2]"), &a("f32[]"), &a("f32[8]"))).unwrap_err(),
        "rng: operand 0 must be a scalar, but is f32[2]"
    );
    assert_eq!(
        show(infer::rng(uniform, &a("f32[]"), &a("f64[]"), &a("f32[8]"))).unwrap_err(),
        "rng: operand 1 f64[] must have the element type of the result f32[8]"
    );
}

#[test]
fn rng_bit_generator_states() {
    let bits = a("u32[4,4]");
    let rbg = |alg, state: &str| show(infer::rng_bit_generator(alg, &a(state), &bits));
    assert_eq!(
        rbg(RngAlgorithm::ThreeFry, "u64[2]").unwrap(),
        "(u64[2], u32[4,4])"
    );
    assert_eq!(
        rbg(RngAlgorithm::Philox, "u64[3]").unwrap(),
        "(u64[3], u32[4,4])"
    );
    assert_eq!(
        rbg(RngAlgorithm::Philox, "u64[2]").unwrap(),
        "(u64[2], u32[4,4])"
    );
    assert_eq!(
        rbg(RngAlgorithm::Default, "u64[3]").unwrap(),
        "(u64[3], u32[4,4])"
    );
    assert_eq!(
        rbg(RngAlgorithm::ThreeFry, "u64[3]").unwrap_err(),
        "rng-bit-generator: rng_three_fry needs an initial state of shape u64[2], but operand 0 is u64[3]"
    );
    assert_eq!(
        rbg(RngAlgorithm::Philox, "u32[3]").unwrap_err(),
        "rng-bit-generator: rng_philox needs an initial state of shape u64[2] or u64[3], \
         but operand 0 is u32[3]"
    );
    assert_eq!(
        show(infer::rng_bit_generator(
            RngAlgorithm::Default,
            &a("u64[2]"),
            &a("f32[4]")
        ))
        .unwrap_err(),
        "rng-bit-generator: the instruction's shape f32[4] must be an array of unsigned integers"
    );
}

#[test]
fn symbolic_shapes() {
    let scalar = ArrayShape::<SymDim>::new(PrimitiveType::F32, Vec::new());
    let shape = ArrayShape::new(
        PrimitiveType::F32,
        [SymDim::symbol("B"), SymDim::symbol("N")],
    );
    let out = infer::rng(RngDistribution::Normal, &scalar, &scalar, &shape).unwrap();
    assert_eq!(out.to_string(), "f32[B, N]");
    let state = ArrayShape::new(PrimitiveType::U64, [SymDim::constant(2)]);
    let bits = shape.with_element_type(PrimitiveType::U32);
    let out = infer::rng_bit_generator(RngAlgorithm::ThreeFry, &state, &bits).unwrap();
    assert_eq!(out.to_string(), "(u64[2], u32[B, N])");
}
