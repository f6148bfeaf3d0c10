//! Batch normalisation (`docs/semantics.md`, *Batch normalisation*): training, inference and grad.

use super::check::{self, bare_array};
use super::error::InferError;
use super::parts::{Attr, RankRule, TypeClass};
use crate::hlo::Opcode;
use crate::{ArrayShape, Dim, Shape};

/// The shared rule: a floating-point operand with `feature_index` one of its
/// dimensions (size `C`), and per-feature operands (at positions `first…`)
/// that are `[C]` arrays of its type. Returns the `[C]` shape.
fn features<D: Dim>(
    op: &'static str,
    operand: &ArrayShape<D>,
    per_feature: &[(usize, &ArrayShape<D>)],
    feature_index: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    check::element_type(op, 0, operand, TypeClass::Floating)?;
    let attr = Attr::scalar("feature_index");
    let f = check::in_range(op, attr, feature_index, operand.rank())?;
    let c = &operand.dims()[f];
    for &(index, shape) in per_feature {
        check::same_element_type(op, index, shape, 0, operand)?;
        if shape.rank() != 1 {
            return Err(InferError::Rank {
                op,
                index,
                shape: bare_array(shape),
                expected: RankRule::Exactly(1),
            });
        }
        if shape.dims()[0].known_ne(c) {
            return Err(InferError::DimMismatch {
                op,
                lhs_index: 0,
                lhs: bare_array(operand),
                lhs_dim: f,
                lhs_size: c.clone(),
                rhs_index: index,
                rhs: bare_array(shape),
                rhs_dim: 0,
                rhs_size: shape.dims()[0].clone(),
            });
        }
    }
    Ok(ArrayShape::new(operand.element_type(), vec![c.clone()]))
}

/// `batch-norm-training(operand, scale, offset), epsilon=…,
/// feature_index=…`: `(operand shape, [C], [C])` (output, mean, variance).
pub fn batch_norm_training<D: Dim>(
    operand: &ArrayShape<D>,
    scale: &ArrayShape<D>,
    offset: &ArrayShape<D>,
    feature_index: i64,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::BatchNormTraining.name();
    let c = features(op, operand, &[(1, scale), (2, offset)], feature_index)?;
    Ok(Shape::Tuple(vec![
        operand.clone().without_layout().into(),
        c.clone().into(),
        c.into(),
    ]))
}

/// `batch-norm-inference(operand, scale, offset, mean, variance),
/// epsilon=…, feature_index=…`: the operand's shape.
pub fn batch_norm_inference<D: Dim>(
    operand: &ArrayShape<D>,
    scale: &ArrayShape<D>,
    offset: &ArrayShape<D>,
    mean: &ArrayShape<D>,
    variance: &ArrayShape<D>,
    feature_index: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::BatchNormInference.name();
    let per_feature = [(1, scale), (2, offset), (3, mean), (4, variance)];
    features(op, operand, &per_feature, feature_index)?;
    Ok(operand.clone().without_layout())
}

/// `batch-norm-grad(operand, scale, mean, variance, grad_output),
/// epsilon=…, feature_index=…`: `grad_output` has the operand's shape; the
/// result is `(operand shape, [C], [C])` (grad operand, grad scale, grad
/// offset).
pub fn batch_norm_grad<D: Dim>(
    operand: &ArrayShape<D>,
    scale: &ArrayShape<D>,
    mean: &ArrayShape<D>,
    variance: &ArrayShape<D>,
    grad_output: &ArrayShape<D>,
    feature_index: i64,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::BatchNormGrad.name();
    let per_feature = [(1, scale), (2, mean), (3, variance)];
    let c = features(op, operand, &per_feature, feature_index)?;
    check::same_element_type(op, 4, grad_output, 0, operand)?;
    check::same_dims(op, 4, grad_output, 0, operand)?;
    Ok(Shape::Tuple(vec![
        operand.clone().without_layout().into(),
        c.clone().into(),
        c.into(),
    ]))
}
