//! Batch-normalisation rules (`docs/semantics.md`, *Batch normalisation*).

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
fn training() {
    let (x, c) = (a("f32[4,2]"), a("f32[2]"));
    assert_eq!(
        show(infer::batch_norm_training(&x, &c, &c, 1)).unwrap(),
        "(f32[4,2], f32[2], f32[2])"
    );
    assert_eq!(
        show(infer::batch_norm_training(&x, &c, &c, 2)).unwrap_err(),
        "batch-norm-training: feature_index = 2 is out of range [0, 2)"
    );
    assert_eq!(
        show(infer::batch_norm_training(&x, &a("f32[4]"), &c, 1)).unwrap_err(),
        "batch-norm-training: dimension 1 of operand 0 f32[4,2] has size 2, \
         but dimension 0 of operand 1 f32[4] has size 4"
    );
    assert_eq!(
        show(infer::batch_norm_training(&x, &c, &a("f32[2,1]"), 1)).unwrap_err(),
        "batch-norm-training: operand 2 f32[2,1] must have rank 1"
    );
    assert_eq!(
        show(infer::batch_norm_training(
            &a("s32[4,2]"),
            &a("s32[2]"),
            &a("s32[2]"),
            1
        ))
        .unwrap_err(),
        "batch-norm-training: operand 0 s32[4,2] must have a floating-point element type"
    );
    assert_eq!(
        show(infer::batch_norm_training(&x, &a("f64[2]"), &c, 1)).unwrap_err(),
        "batch-norm-training: operand 1 f64[2] must have the element type of operand 0 f32[4,2]"
    );
}

#[test]
fn inference() {
    let (x, c) = (a("f32[4,2]"), a("f32[2]"));
    assert_eq!(
        show(infer::batch_norm_inference(&x, &c, &c, &c, &c, 1)).unwrap(),
        "f32[4,2]"
    );
    assert_eq!(
        show(infer::batch_norm_inference(&x, &c, &c, &c, &a("f64[2]"), 1)).unwrap_err(),
        "batch-norm-inference: operand 4 f64[2] must have the element type of operand 0 f32[4,2]"
    );
    assert_eq!(
        show(infer::batch_norm_inference(&x, &c, &c, &a("f32[3]"), &c, 1)).unwrap_err(),
        "batch-norm-inference: dimension 1 of operand 0 f32[4,2] has size 2, \
         but dimension 0 of operand 3 f32[3] has size 3"
    );
}

#[test]
fn grad() {
    let (x, c) = (a("f32[4,2]"), a("f32[2]"));
    assert_eq!(
        show(infer::batch_norm_grad(&x, &c, &c, &c, &x, 1)).unwrap(),
        "(f32[4,2], f32[2], f32[2])"
    );
    assert_eq!(
        show(infer::batch_norm_grad(&x, &c, &c, &c, &a("f32[2,4]"), 1)).unwrap_err(),
        "batch-norm-grad: operand 4 f32[2,4] must have the same dimensions as operand 0 f32[4,2]"
    );
    assert_eq!(
        show(infer::batch_norm_grad(&x, &c, &c, &c, &a("f16[4,2]"), 1)).unwrap_err(),
        "batch-norm-grad: operand 4 f16[4,2] must have the element type of operand 0 f32[4,2]"
    );
}

#[test]
fn symbolic_features() {
    let (b, c) = (SymDim::symbol("B"), SymDim::symbol("C"));
    let x = ArrayShape::new(PrimitiveType::F32, [b, c.clone()]);
    let per_feature = ArrayShape::new(PrimitiveType::F32, [c.clone()]);
    let out = infer::batch_norm_training(&x, &per_feature, &per_feature, 1).unwrap();
    assert_eq!(out.to_string(), "(f32[B, C], f32[C], f32[C])");
    let more = ArrayShape::new(PrimitiveType::F32, [c.add(&SymDim::constant(1))]);
    assert_eq!(
        infer::batch_norm_training(&x, &more, &per_feature, 1)
            .unwrap_err()
            .to_string(),
        "batch-norm-training: dimension 1 of operand 0 f32[B, C] has size C, \
         but dimension 0 of operand 1 f32[C + 1] has size C + 1"
    );
}
