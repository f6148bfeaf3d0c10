//! Dot products and convolutions.

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, ConvDimensionNumbers, DotDimensionNumbers, Opcode, Window, WindowDim};
use crate::infer::{self, InferError, PaddingKind};
use crate::{PrimitiveType, Result};

/// The window arguments of a general convolution (XLA's
/// `ConvGeneralDilated` arguments besides the operands and dimension
/// numbers); one entry per spatial dimension.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConvConfig {
    /// Stride per spatial dimension.
    pub window_strides: Vec<i64>,
    /// `(low, high)` padding per spatial dimension; negative crops.
    pub padding: Vec<(i64, i64)>,
    /// Input (base) dilation per spatial dimension; empty means 1.
    pub lhs_dilation: Vec<i64>,
    /// Kernel (window) dilation per spatial dimension; empty means 1.
    pub rhs_dilation: Vec<i64>,
    /// Feature groups (1: none).
    pub feature_group_count: i64,
    /// Batch groups (1: none).
    pub batch_group_count: i64,
    /// The result's element type when it differs from the operands' (JAX's
    /// `preferred_element_type`, e.g. `s8` inputs accumulated into `s32`).
    pub preferred_element_type: Option<PrimitiveType>,
}

impl ConvConfig {
    /// Strides and padding, no dilation, no groups.
    pub fn new(window_strides: &[i64], padding: &[(i64, i64)]) -> Self {
        ConvConfig {
            window_strides: window_strides.to_vec(),
            padding: padding.to_vec(),
            lhs_dilation: Vec::new(),
            rhs_dilation: Vec::new(),
            feature_group_count: 1,
            batch_group_count: 1,
            preferred_element_type: None,
        }
    }
}

/// The canonical dimension numbers `[batch, feature, spatial…]` for input,
/// kernel (`[output feature, input feature, spatial…]`) and output, with
/// `spatial` spatial dimensions.
fn canonical(spatial: usize) -> ConvDimensionNumbers {
    let s: Vec<i64> = (2..2 + spatial as i64).collect();
    ConvDimensionNumbers {
        input_batch: 0,
        input_feature: 1,
        input_spatial: s.clone(),
        kernel_output_feature: 0,
        kernel_input_feature: 1,
        kernel_spatial: s.clone(),
        output_batch: 0,
        output_feature: 1,
        output_spatial: s,
    }
}

impl XlaBuilder {
    /// `Dot(lhs, rhs)`: vector/matrix products contracting the last
    /// dimension of `lhs` with the first of `rhs` (`docs/semantics.md`, *Dot*).
    pub fn dot(&self, lhs: XlaOp, rhs: XlaOp) -> Result<XlaOp> {
        let s = self.arrays("dot", &[lhs, rhs])?;
        infer::dot(&s[0], &s[1])?;
        let dims = DotDimensionNumbers {
            lhs_contracting: vec![s[0].rank() as i64 - 1],
            rhs_contracting: vec![0],
            ..Default::default()
        };
        self.dot_general(lhs, rhs, &dims)
    }

    /// `DotGeneral(lhs, rhs, dimension_numbers)` (`docs/semantics.md`, *Dot*).
    pub fn dot_general(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        dimension_numbers: &DotDimensionNumbers,
    ) -> Result<XlaOp> {
        self.dot_general_with_type(lhs, rhs, dimension_numbers, None)
    }

    /// `DotGeneral` whose result has `preferred_element_type` (accumulated
    /// in that type, e.g. `bf16·bf16 → f32`, `s8·s8 → s32`); `None` gives the
    /// operands' type.
    pub fn dot_general_with_type(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        dimension_numbers: &DotDimensionNumbers,
        preferred_element_type: Option<PrimitiveType>,
    ) -> Result<XlaOp> {
        let s = self.arrays("dot", &[lhs, rhs])?;
        let shape = infer::dot_general(&s[0], &s[1], dimension_numbers)?;
        let shape = infer::with_preferred_element_type(Opcode::Dot, shape, preferred_element_type)?;
        let attrs = Attrs {
            dot_dims: Some(dimension_numbers.clone()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Dot, shape, &[lhs, rhs], attrs, vec![]))
    }

    /// `Conv(lhs, rhs, window_strides, padding)`: canonical dimension
    /// numbers, SAME or VALID padding (`docs/semantics.md`, *Windows*).
    pub fn conv(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: PaddingKind,
    ) -> Result<XlaOp> {
        let s = self.arrays("convolution", &[lhs, rhs])?;
        let base = s[0].dims().get(2..).unwrap_or(&[]);
        let window = s[1].dims().get(2..).unwrap_or(&[]);
        let pads = infer::make_padding(base, window, window_strides, padding);
        self.conv_with_general_padding(lhs, rhs, window_strides, &pads)
    }

    /// `ConvWithGeneralPadding(lhs, rhs, window_strides, padding)`:
    /// canonical dimension numbers, explicit `(low, high)` padding.
    pub fn conv_with_general_padding(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        window_strides: &[i64],
        padding: &[(i64, i64)],
    ) -> Result<XlaOp> {
        let rank = self.array("convolution", lhs, 0)?.rank();
        let dims = canonical(rank.saturating_sub(2));
        self.conv_general_dilated(lhs, rhs, &ConvConfig::new(window_strides, padding), &dims)
    }

    /// `ConvGeneralDilated(lhs, rhs, …, dimension_numbers, …)`: the general
    /// convolution (`docs/semantics.md`, *Convolution*). The window sizes are the kernel's
    /// spatial sizes.
    pub fn conv_general_dilated(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        config: &ConvConfig,
        dimension_numbers: &ConvDimensionNumbers,
    ) -> Result<XlaOp> {
        let s = self.arrays("convolution", &[lhs, rhs])?;
        let n = dimension_numbers.input_spatial.len();
        let lists = [
            ("window_strides", config.window_strides.len(), false),
            ("padding", config.padding.len(), false),
            ("lhs_dilation", config.lhs_dilation.len(), true),
            ("rhs_dilation", config.rhs_dilation.len(), true),
        ];
        for (list, len, may_be_empty) in lists {
            if len != n && !(may_be_empty && len == 0) {
                return Err(InferError::ListLength {
                    op: "convolution",
                    list,
                    len,
                    other: "the number of input spatial dimensions",
                    expected: n,
                }
                .into());
            }
        }
        let kernel = &s[1];
        let dims = (0..n)
            .map(|i| WindowDim {
                size: dimension_numbers
                    .kernel_spatial
                    .get(i)
                    .and_then(|&d| kernel.dims().get(usize::try_from(d).ok()?))
                    .copied()
                    .unwrap_or(1),
                stride: config.window_strides[i],
                padding_low: config.padding[i].0,
                padding_high: config.padding[i].1,
                base_dilation: config.lhs_dilation.get(i).copied().unwrap_or(1),
                window_dilation: config.rhs_dilation.get(i).copied().unwrap_or(1),
                window_reversal: false,
            })
            .collect();
        let window = Window { dims };
        let (fgc, bgc) = (config.feature_group_count, config.batch_group_count);
        let shape = infer::convolution(&s[0], kernel, &window, dimension_numbers, fgc, bgc)?;
        let shape = infer::with_preferred_element_type(
            Opcode::Convolution,
            shape,
            config.preferred_element_type,
        )?;
        let attrs = Attrs {
            window: Some(window),
            conv_dims: Some(dimension_numbers.clone()),
            feature_group_count: (fgc != 1).then_some(fgc),
            batch_group_count: (bgc != 1).then_some(bgc),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Convolution, shape, &[lhs, rhs], attrs, vec![]))
    }
}
