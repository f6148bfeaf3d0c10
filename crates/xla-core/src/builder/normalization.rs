//! Batch normalisation: training, inference and grad.

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, Opcode};
use crate::infer;
use crate::Result;

/// The attributes shared by the batch-norm ops.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct BatchNormOptions {
    /// Added to the variance before the square root.
    pub epsilon: f32,
    /// The feature dimension of the operand.
    pub feature_index: i64,
}

impl BatchNormOptions {
    fn attrs(self) -> Attrs {
        Attrs {
            epsilon: Some(self.epsilon),
            feature_index: Some(self.feature_index),
            ..Attrs::default()
        }
    }
}

impl XlaBuilder {
    /// `BatchNormTraining(operand, scale, offset, epsilon, feature_index)`:
    /// `(output, batch_mean, batch_var)` (`docs/semantics.md`, *Batch normalisation*).
    pub fn batch_norm_training(
        &self,
        operand: XlaOp,
        scale: XlaOp,
        offset: XlaOp,
        options: BatchNormOptions,
    ) -> Result<XlaOp> {
        let ops = [operand, scale, offset];
        let s = self.arrays("batch-norm-training", &ops)?;
        let shape = infer::batch_norm_training(&s[0], &s[1], &s[2], options.feature_index)?;
        Ok(self.emit(
            Opcode::BatchNormTraining,
            shape,
            &ops,
            options.attrs(),
            vec![],
        ))
    }

    /// `BatchNormInference(operand, scale, offset, mean, variance, epsilon,
    /// feature_index)` (`docs/semantics.md`, *Batch normalisation*).
    pub fn batch_norm_inference(
        &self,
        operand: XlaOp,
        scale: XlaOp,
        offset: XlaOp,
        mean: XlaOp,
        variance: XlaOp,
        options: BatchNormOptions,
    ) -> Result<XlaOp> {
        let ops = [operand, scale, offset, mean, variance];
        let s = self.arrays("batch-norm-inference", &ops)?;
        let f = options.feature_index;
        let shape = infer::batch_norm_inference(&s[0], &s[1], &s[2], &s[3], &s[4], f)?;
        Ok(self.emit(
            Opcode::BatchNormInference,
            shape,
            &ops,
            options.attrs(),
            vec![],
        ))
    }

    /// `BatchNormGrad(operand, scale, mean, variance, grad_output, epsilon,
    /// feature_index)`: `(grad_operand, grad_scale, grad_offset)`
    /// (`docs/semantics.md`, *Batch normalisation*).
    pub fn batch_norm_grad(
        &self,
        operand: XlaOp,
        scale: XlaOp,
        mean: XlaOp,
        variance: XlaOp,
        grad_output: XlaOp,
        options: BatchNormOptions,
    ) -> Result<XlaOp> {
        let ops = [operand, scale, mean, variance, grad_output];
        let s = self.arrays("batch-norm-grad", &ops)?;
        let f = options.feature_index;
        let shape = infer::batch_norm_grad(&s[0], &s[1], &s[2], &s[3], &s[4], f)?;
        Ok(self.emit(Opcode::BatchNormGrad, shape, &ops, options.attrs(), vec![]))
    }
}
