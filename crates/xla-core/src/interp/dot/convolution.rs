//! Convolution (`docs/semantics.md`, *Convolution*): the spec's loop nest over a
//! canonicalised geometry, reading operands of any dense layout in place.

use super::super::array::{dense, next_index, result_shape, row_major_strides, zeros, Dense};
use super::super::eval::{invalid, unsupported};
use super::super::InterpError;
use super::{in_result_type, MulAdd};
use crate::hlo::{ConvDimensionNumbers, HloInstruction, WindowDim};
use crate::{dispatch_native, ArrayShape, Literal};

/// `convolution(lhs, rhs), window=…, dim_labels=…` with
/// `feature_group_count` and `batch_group_count` (`docs/semantics.md`, *Convolution*):
/// cross-correlation over the padded, dilated input; `rhs_reversal`
/// flips the kernel along a spatial dimension.
pub(in crate::interp) fn convolution(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let shape = result_shape(instr)?;
    let ty = shape.element_type();
    let (lhs, rhs) = (
        in_result_type(operands[0], ty)?,
        in_result_type(operands[1], ty)?,
    );
    let (lhs, rhs) = (dense(&lhs)?, dense(&rhs)?);
    let numbers = instr
        .attrs
        .conv_dims
        .as_ref()
        .ok_or_else(|| invalid(instr, "convolution without dim_labels"))?;
    let spatial = numbers.input_spatial.len();
    let default_window = vec![WindowDim::default(); spatial];
    let window = instr
        .attrs
        .window
        .as_ref()
        .map_or(&default_window[..], |w| &w.dims[..]);
    if window.len() != spatial {
        return Err(invalid(
            instr,
            "the window does not match the spatial dimensions",
        ));
    }
    let g = instr.attrs.feature_group_count.unwrap_or(1);
    let bg = instr.attrs.batch_group_count.unwrap_or(1);
    let geometry = Geometry::new(&lhs, &rhs, &shape, numbers, window, g, bg)
        .ok_or_else(|| unsupported(instr, "this convolution geometry"))?;
    let mut out = zeros(&shape)?;
    dispatch_native!(ty, T => {
        geometry.run::<T>(lhs.literal.data()?, rhs.literal.data()?, out.data_mut()?);
    });
    Ok(out)
}

/// A convolution's sizes and strides, canonicalised: batch, feature and
/// spatial dimensions of each operand named by their strides.
struct Geometry {
    /// Output batch (`B / batch_group_count`), output features, output
    /// spatial sizes.
    out_batch: i64,
    out_features: i64,
    out_spatial: Vec<i64>,
    kernel_in_features: i64,
    kernel_spatial: Vec<i64>,
    /// Output features per feature group and per batch group.
    per_feature_group: i64,
    per_batch_group: i64,
    /// Strides (elements) of lhs batch, feature, spatial…
    lhs: (i64, i64, Vec<i64>),
    /// Strides of rhs output feature, input feature, spatial…
    rhs: (i64, i64, Vec<i64>),
    /// Row-major strides of the output's batch, feature, spatial…
    out: (i64, i64, Vec<i64>),
    /// Per spatial dimension, per (output index, kernel index): the lhs
    /// index read, or `None` for padding and dilation holes.
    taps: Vec<Vec<Vec<Option<i64>>>>,
}

impl Geometry {
    fn new(
        lhs: &Dense<'_>,
        rhs: &Dense<'_>,
        shape: &ArrayShape,
        n: &ConvDimensionNumbers,
        window: &[WindowDim],
        g: i64,
        bg: i64,
    ) -> Option<Geometry> {
        let d = |v: i64| usize::try_from(v).ok();
        let out_strides = row_major_strides(shape.dims());
        let out_dims = shape.dims();
        let in_spatial: Vec<usize> = n
            .input_spatial
            .iter()
            .map(|&v| d(v))
            .collect::<Option<_>>()?;
        let k_spatial: Vec<usize> = n
            .kernel_spatial
            .iter()
            .map(|&v| d(v))
            .collect::<Option<_>>()?;
        let o_spatial: Vec<usize> = n
            .output_spatial
            .iter()
            .map(|&v| d(v))
            .collect::<Option<_>>()?;
        let out_features = *out_dims.get(d(n.output_feature)?)?;
        let out_spatial: Vec<i64> = o_spatial.iter().map(|&s| out_dims[s]).collect();
        let kernel_spatial: Vec<i64> = k_spatial.iter().map(|&s| rhs.dims()[s]).collect();
        let taps = (0..window.len())
            .map(|i| {
                let w = &window[i];
                let input = lhs.dims()[in_spatial[i]];
                (0..out_spatial[i])
                    .map(|y| {
                        (0..kernel_spatial[i])
                            .map(|k| {
                                let k = if w.window_reversal {
                                    kernel_spatial[i] - 1 - k
                                } else {
                                    k
                                };
                                let p = y * w.stride + k * w.window_dilation - w.padding_low;
                                let q = p / w.base_dilation;
                                (p >= 0 && p % w.base_dilation == 0 && q < input).then_some(q)
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        if g < 1 || bg < 1 || out_features % g != 0 || out_features % bg != 0 {
            return None;
        }
        Some(Geometry {
            out_batch: *out_dims.get(d(n.output_batch)?)?,
            out_features,
            out_spatial,
            kernel_in_features: *rhs.dims().get(d(n.kernel_input_feature)?)?,
            kernel_spatial,
            per_feature_group: out_features / g,
            per_batch_group: out_features / bg,
            lhs: (
                lhs.strides[d(n.input_batch)?],
                lhs.strides[d(n.input_feature)?],
                in_spatial.iter().map(|&s| lhs.strides[s]).collect(),
            ),
            rhs: (
                rhs.strides[d(n.kernel_output_feature)?],
                rhs.strides[d(n.kernel_input_feature)?],
                k_spatial.iter().map(|&s| rhs.strides[s]).collect(),
            ),
            out: (
                out_strides[d(n.output_batch)?],
                out_strides[d(n.output_feature)?],
                o_spatial.iter().map(|&s| out_strides[s]).collect(),
            ),
            taps,
        })
    }

    /// The spec's loop nest: for each output element, the sum over kernel
    /// input features and kernel positions (row-major) of lhs·rhs.
    fn run<T: MulAdd>(&self, lhs: &[T], rhs: &[T], out: &mut [T]) {
        let spatial = self.out_spatial.len();
        if self.out_spatial.contains(&0) || self.out_batch == 0 || self.out_features == 0 {
            return;
        }
        let mut y = vec![0i64; spatial];
        let mut k = vec![0i64; spatial];
        loop {
            for b in 0..self.out_batch {
                for o in 0..self.out_features {
                    let fg = o / self.per_feature_group;
                    let h = o / self.per_batch_group;
                    let batch = h * self.out_batch + b;
                    let mut acc = T::ZERO;
                    for c in 0..self.kernel_in_features {
                        let feature = fg * self.kernel_in_features + c;
                        let lhs_base = batch * self.lhs.0 + feature * self.lhs.1;
                        let rhs_base = o * self.rhs.0 + c * self.rhs.1;
                        if self.kernel_spatial.contains(&0) {
                            continue;
                        }
                        k.fill(0);
                        loop {
                            let mut offset = Some(lhs_base);
                            for i in 0..spatial {
                                offset = offset.and_then(|off| {
                                    self.taps[i][y[i] as usize][k[i] as usize]
                                        .map(|q| off + q * self.lhs.2[i])
                                });
                            }
                            if let Some(off) = offset {
                                let r: i64 = rhs_base
                                    + (0..spatial).map(|i| k[i] * self.rhs.2[i]).sum::<i64>();
                                acc = T::mul_add(acc, lhs[off as usize], rhs[r as usize]);
                            }
                            if !next_index(&mut k, &self.kernel_spatial) {
                                break;
                            }
                        }
                    }
                    let at: i64 = b * self.out.0
                        + o * self.out.1
                        + (0..spatial).map(|i| y[i] * self.out.2[i]).sum::<i64>();
                    out[at as usize] = T::finish(acc);
                }
            }
            if !next_index(&mut y, &self.out_spatial) {
                return;
            }
        }
    }
}
