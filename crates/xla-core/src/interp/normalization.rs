//! Batch normalisation (`docs/semantics.md`, *Batch normalisation*): training (batch statistics,
//! biased variance), inference, and the gradient.
//!
//! Statistics are sums over each feature's slice (every element whose index
//! in dimension `feature_index` is that feature), computed in `f64` in
//! row-major order and rounded once to the element type.

use super::eval::invalid;
use super::linalg::{literal, values};
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// The operand's per-feature view: `feature(e)` is the feature of
/// row-major element `e`.
struct Features {
    dims: Vec<i64>,
    /// Elements per step of the feature dimension.
    stride: usize,
    /// `C`.
    count: usize,
    /// Elements per feature (`m`).
    slice: f64,
    epsilon: f64,
}

impl Features {
    fn new(instr: &HloInstruction, operand: &Literal) -> Result<Self, InterpError> {
        let dims = operand.array_shape()?.dims().to_vec();
        let f = instr
            .attrs
            .feature_index
            .filter(|&f| (0..dims.len() as i64).contains(&f))
            .ok_or_else(|| {
                invalid(
                    instr,
                    format!(
                        "feature_index must be a dimension of operand 0 {}",
                        operand.shape()
                    ),
                )
            })? as usize;
        let count = dims[f] as usize;
        let total: i64 = dims.iter().product();
        Ok(Features {
            stride: dims[f + 1..].iter().product::<i64>() as usize,
            count,
            slice: total as f64 / count as f64,
            epsilon: f64::from(instr.attrs.epsilon.unwrap_or(0.0)),
            dims,
        })
    }

    fn feature(&self, e: usize) -> usize {
        e / self.stride % self.count
    }

    /// `Σ term(e)` over each feature's slice.
    fn sums(&self, n: usize, term: impl Fn(usize) -> f64) -> Vec<f64> {
        let mut sums = vec![0.0; self.count];
        for e in 0..n {
            sums[self.feature(e)] += term(e);
        }
        sums
    }

    /// Per-feature `Σ term / m`.
    fn means(&self, n: usize, term: impl Fn(usize) -> f64) -> Vec<f64> {
        self.sums(n, term)
            .into_iter()
            .map(|s| s / self.slice)
            .collect()
    }
}

/// `y = γ·(x − μ)/√(σ² + ε) + β` for every element.
fn normalize(
    features: &Features,
    x: &[f64],
    scale: &[f64],
    offset: &[f64],
    mean: &[f64],
    variance: &[f64],
) -> Vec<f64> {
    x.iter()
        .enumerate()
        .map(|(e, &v)| {
            let l = features.feature(e);
            scale[l] * (v - mean[l]) / (variance[l] + features.epsilon).sqrt() + offset[l]
        })
        .collect()
}

/// `batch-norm-training(operand, scale, offset)`: `(y, batch mean, batch
/// variance)`, the variance biased (divided by `m`).
pub(super) fn batch_norm_training(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let features = Features::new(instr, operands[0])?;
    let ty = operands[0].array_shape()?.element_type();
    let x = values::<f64>(operands[0])?;
    let (scale, offset) = (values::<f64>(operands[1])?, values::<f64>(operands[2])?);
    let mean = features.means(x.len(), |e| x[e]);
    let variance = features.means(x.len(), |e| (x[e] - mean[features.feature(e)]).powi(2));
    let y = normalize(&features, &x, &scale, &offset, &mean, &variance);
    let c = [features.count as i64];
    Ok(Literal::tuple(vec![
        literal(&features.dims, y, ty)?,
        literal(&c, mean, ty)?,
        literal(&c, variance, ty)?,
    ]))
}

/// `batch-norm-inference(operand, scale, offset, mean, variance)`: `y` from
/// the given statistics.
pub(super) fn batch_norm_inference(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let features = Features::new(instr, operands[0])?;
    let ty = operands[0].array_shape()?.element_type();
    let [x, scale, offset, mean, variance] = [0, 1, 2, 3, 4].map(|i| values::<f64>(operands[i]));
    let y = normalize(&features, &x?, &scale?, &offset?, &mean?, &variance?);
    literal(&features.dims, y, ty)
}

/// `batch-norm-grad(operand, scale, mean, variance, grad_output)`:
/// `(∇x, ∇γ, ∇β)` with
/// `c = mean(∇y·(x − μ)/(σ² + ε))`, `d = mean(∇y)`,
/// `∇x = γ/√(σ² + ε)·(∇y − d − c·(x − μ))`,
/// `∇γ = Σ ∇y·(x − μ)/√(σ² + ε)`, `∇β = Σ ∇y`.
pub(super) fn batch_norm_grad(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let features = Features::new(instr, operands[0])?;
    let ty = operands[0].array_shape()?.element_type();
    let [x, scale, mean, variance, dy] = [0, 1, 2, 3, 4].map(|i| values::<f64>(operands[i]));
    let (x, scale, mean, variance, dy) = (x?, scale?, mean?, variance?, dy?);
    let n = x.len();
    let l = |e: usize| features.feature(e);
    let centered = |e: usize| x[e] - mean[l(e)];
    let var_eps = |e: usize| variance[l(e)] + features.epsilon;
    let c = features.means(n, |e| dy[e] * centered(e) / var_eps(e));
    let d = features.means(n, |e| dy[e]);
    let dx: Vec<f64> = (0..n)
        .map(|e| scale[l(e)] / var_eps(e).sqrt() * (dy[e] - d[l(e)] - c[l(e)] * centered(e)))
        .collect();
    let dscale = features.sums(n, |e| dy[e] * centered(e) / var_eps(e).sqrt());
    let doffset = features.sums(n, |e| dy[e]);
    let channels = [features.count as i64];
    Ok(Literal::tuple(vec![
        literal(&features.dims, dx, ty)?,
        literal(&channels, dscale, ty)?,
        literal(&channels, doffset, ty)?,
    ]))
}
