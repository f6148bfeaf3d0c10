//! Gradients of the bilinear ops, `dot` and `convolution`: each operand's
//! cotangent is another dot or convolution of the result's cotangent with
//! the other operand (JAX's transpose rules, dimension for dimension).

use super::rules::no_rule;
use super::Tape;
use crate::builder::{ConvConfig, XlaOp};
use crate::hlo::{ConvDimensionNumbers, DotDimensionNumbers, FftType, HloInstruction, PadDim};
use crate::{ArrayShape, Literal, Result};

/// The dimensions of `0..rank` in neither `a` nor `b`, in order.
fn remaining(rank: usize, a: &[i64], b: &[i64]) -> Vec<i64> {
    (0..rank as i64)
        .filter(|d| !a.contains(d) && !b.contains(d))
        .collect()
}

/// The permutation that sorts `v` (`argsort`).
fn argsort(v: &[i64]) -> Vec<i64> {
    let mut order: Vec<i64> = (0..v.len() as i64).collect();
    order.sort_by_key(|&i| v[i as usize]);
    order
}

/// One side of a dot, as its transpose rule sees it.
struct Side<'s> {
    shape: &'s ArrayShape,
    contracting: &'s [i64],
    batch: &'s [i64],
}

impl Tape<'_> {
    /// `dot` with any dimension numbers.
    pub(super) fn dot(
        &self,
        instr: &HloInstruction,
        g: XlaOp,
        wanted: &[bool],
    ) -> Result<Vec<Option<XlaOp>>> {
        let dn = instr.attrs.dot_dims.clone().unwrap_or_default();
        let lhs = Side {
            shape: self.operand_shape(instr, 0),
            contracting: &dn.lhs_contracting,
            batch: &dn.lhs_batch,
        };
        let rhs = Side {
            shape: self.operand_shape(instr, 1),
            contracting: &dn.rhs_contracting,
            batch: &dn.rhs_batch,
        };
        let (x, y) = (self.operand(instr, 0)?, self.operand(instr, 1)?);
        let d0 = wanted[0]
            .then(|| self.dot_transpose(g, &lhs, y, &rhs, false))
            .transpose()?;
        let d1 = wanted[1]
            .then(|| self.dot_transpose(g, &rhs, x, &lhs, true))
            .transpose()?;
        Ok(vec![d0, d1])
    }

    /// The cotangent of side `x` of a dot with `y` whose result's
    /// cotangent is `g` (`swap`: `x` is the dot's right operand).
    fn dot_transpose(
        &self,
        g: XlaOp,
        x: &Side<'_>,
        y: XlaOp,
        ys: &Side<'_>,
        swap: bool,
    ) -> Result<XlaOp> {
        let b = self.b;
        let x_kept = remaining(x.shape.rank(), x.contracting, x.batch);
        let y_kept = remaining(ys.shape.rank(), ys.contracting, ys.batch);
        let nb = x.batch.len() as i64;
        let ans_batch: Vec<i64> = (0..nb).collect();
        let ans_y: Vec<i64> = match swap {
            true => (nb..nb + y_kept.len() as i64).collect(),
            false => {
                let start = nb + x_kept.len() as i64;
                (start..start + y_kept.len() as i64).collect()
            }
        };
        let dims = DotDimensionNumbers {
            lhs_contracting: ans_y,
            rhs_contracting: y_kept,
            lhs_batch: ans_batch,
            rhs_batch: ys.batch.to_vec(),
        };
        let by_y = argsort(ys.contracting);
        let x_contract_by_y: Vec<i64> = by_y.iter().map(|&i| x.contracting[i as usize]).collect();
        let order: Vec<i64> = (x.batch.iter().chain(&x_kept).chain(&x_contract_by_y))
            .copied()
            .collect();
        let y = self.to_type(y, self.dims_type(g)?.1)?;
        let product = b.dot_general(g, y, &dims)?;
        let perm = argsort(&order);
        let dx = match perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
            true => product,
            false => b.transpose(product, &perm)?,
        };
        self.to_type(dx, x.shape.element_type())
    }

    /// `convolution` with every attribute but window reversal: strides,
    /// padding, dilations, feature and batch groups.
    pub(super) fn convolution(
        &self,
        instr: &HloInstruction,
        g: XlaOp,
        wanted: &[bool],
    ) -> Result<Vec<Option<XlaOp>>> {
        let window = instr.attrs.window.clone().unwrap_or_default();
        if window.dims.iter().any(|w| w.window_reversal) {
            return Err(no_rule(
                instr,
                "a reversed convolution window has no gradient rule",
            ));
        }
        let cd = instr
            .attrs
            .conv_dims
            .clone()
            .ok_or_else(|| no_rule(instr, "no dimension numbers"))?;
        let conv = Conv {
            lhs: spec(cd.input_batch, cd.input_feature, &cd.input_spatial),
            rhs: spec(
                cd.kernel_output_feature,
                cd.kernel_input_feature,
                &cd.kernel_spatial,
            ),
            out: spec(cd.output_batch, cd.output_feature, &cd.output_spatial),
            strides: window.dims.iter().map(|w| w.stride).collect(),
            padding: window
                .dims
                .iter()
                .map(|w| (w.padding_low, w.padding_high))
                .collect(),
            lhs_dilation: window.dims.iter().map(|w| w.base_dilation).collect(),
            rhs_dilation: window.dims.iter().map(|w| w.window_dilation).collect(),
            groups: instr.attrs.feature_group_count.unwrap_or(1),
            batch_groups: instr.attrs.batch_group_count.unwrap_or(1),
        };
        let (lhs, rhs) = (self.operand_shape(instr, 0), self.operand_shape(instr, 1));
        let g_dims = instr
            .shape
            .as_array()
            .map(|a| a.dims().to_vec())
            .unwrap_or_default();
        let d0 = wanted[0]
            .then(|| self.conv_lhs(&conv, g, &g_dims, lhs, self.operand(instr, 1)?, rhs))
            .transpose()?;
        let d1 = wanted[1]
            .then(|| self.conv_rhs(&conv, g, &g_dims, self.operand(instr, 0)?, lhs, rhs))
            .transpose()?;
        Ok(vec![d0, d1])
    }

    /// JAX's `_conv_general_dilated_transpose_lhs`.
    fn conv_lhs(
        &self,
        c: &Conv,
        g: XlaOp,
        g_dims: &[i64],
        lhs: &ArrayShape,
        rhs: XlaOp,
        rhs_shape: &ArrayShape,
    ) -> Result<XlaOp> {
        let b = self.b;
        let mut rhs = rhs;
        let mut groups = c.groups;
        for count in [c.groups, c.batch_groups] {
            if count > 1 {
                rhs = self.axis_out_of(c.rhs[0], count, rhs)?;
                rhs = self.axis_into(c.rhs[0], c.rhs[1], rhs)?;
                groups = count;
            }
        }
        let t_rhs = swapped(&c.rhs);
        let dn = dimension_numbers(&c.out, &t_rhs, &c.lhs);
        let padding = c.transposed_padding(lhs.dims(), rhs_shape.dims(), g_dims, lhs_padding);
        let reversed = self.to_type(b.rev(rhs, &c.rhs[2..])?, self.dims_type(g)?.1)?;
        let config = ConvConfig {
            window_strides: c.lhs_dilation.clone(),
            padding,
            lhs_dilation: c.strides.clone(),
            rhs_dilation: c.rhs_dilation.clone(),
            feature_group_count: groups,
            batch_group_count: 1,
            preferred_element_type: None,
        };
        let mut out = b.conv_general_dilated(g, reversed, &config, &dn)?;
        out = self.to_type(out, lhs.element_type())?;
        if c.batch_groups > 1 {
            out = self.axis_out_of(c.lhs[1], c.batch_groups, out)?;
            out = self.axis_into(c.lhs[1], c.lhs[0], out)?;
        }
        Ok(out)
    }

    /// JAX's `_conv_general_dilated_transpose_rhs`.
    fn conv_rhs(
        &self,
        c: &Conv,
        g: XlaOp,
        g_dims: &[i64],
        lhs: XlaOp,
        lhs_shape: &ArrayShape,
        rhs: &ArrayShape,
    ) -> Result<XlaOp> {
        let b = self.b;
        let (groups, batch_groups) = match (c.groups, c.batch_groups) {
            (1, bg) if bg > 1 => (bg, 1),
            (fg, _) if fg > 1 => (1, fg),
            _ => (1, 1),
        };
        let dn = dimension_numbers(&swapped(&c.lhs), &swapped(&c.out), &swapped(&c.rhs));
        let padding = c.transposed_padding(lhs_shape.dims(), rhs.dims(), g_dims, rhs_padding);
        let lhs = self.to_type(lhs, self.dims_type(g)?.1)?;
        let config = ConvConfig {
            window_strides: c.rhs_dilation.clone(),
            padding,
            lhs_dilation: c.lhs_dilation.clone(),
            rhs_dilation: c.strides.clone(),
            feature_group_count: groups,
            batch_group_count: batch_groups,
            preferred_element_type: None,
        };
        let out = b.conv_general_dilated(lhs, g, &config, &dn)?;
        self.to_type(out, rhs.element_type())
    }

    /// `fft`, with JAX's transposes: FFT and IFFT are their own; RFFT's
    /// is the real part of the FFT of the cotangent padded with zeros to
    /// the full length; IRFFT's is the conjugate of the RFFT of the
    /// cotangent, scaled by `1/N` and doubled on the bins that stand for
    /// two.
    pub(super) fn fft(&self, instr: &HloInstruction, g: XlaOp) -> Result<XlaOp> {
        let b = self.b;
        let kind = instr
            .attrs
            .fft_type
            .ok_or_else(|| no_rule(instr, "no fft_type"))?;
        let lengths = instr.attrs.fft_length.clone().unwrap_or_default();
        let n = *lengths
            .last()
            .ok_or_else(|| no_rule(instr, "no fft_length"))?;
        let (dims, ty) = self.dims_type(g)?;
        let last = dims.len() - 1;
        match kind {
            FftType::Fft | FftType::Ifft => b.fft(g, kind, &lengths),
            FftType::Rfft => {
                let mut config = vec![PadDim::default(); dims.len()];
                config[last].high = n - dims[last];
                let padded = b.pad(g, self.scalar(ty, 0.0)?, &config)?;
                b.real(b.fft(padded, FftType::Fft, &lengths)?)
            }
            FftType::Irfft => {
                let x = b.fft(g, FftType::Rfft, &lengths)?;
                let (x_dims, x_ty) = self.dims_type(x)?;
                let bins = x_dims[last];
                let scale = 1.0 / lengths.iter().product::<i64>() as f64;
                let weight = |k: i64| {
                    let single = k == 0 || (n % 2 == 0 && k == bins - 1);
                    if single {
                        scale
                    } else {
                        2.0 * scale
                    }
                };
                let weights: Vec<f64> = (0..bins).map(weight).collect();
                let mask = b.constant(&Literal::vector(&weights).convert(x_ty)?)?;
                let out = b.mul(x, b.broadcast_in_dim(mask, &x_dims, &[last as i64])?, &[])?;
                b.complex(b.real(out)?, b.neg(b.imag(out)?)?, &[])
            }
        }
    }

    /// Splits dimension `src` of `x` into `[count, size / count]`.
    fn axis_out_of(&self, src: i64, count: i64, x: XlaOp) -> Result<XlaOp> {
        let mut dims = self.dims_type(x)?.0;
        let size = dims[src as usize];
        dims.splice(src as usize..=src as usize, [count, size / count]);
        self.b.reshape(x, &dims)
    }

    /// Merges dimension `src` of `x` into dimension `dst` (numbered
    /// without `src`), `src` becoming its major part.
    fn axis_into(&self, src: i64, dst: i64, x: XlaOp) -> Result<XlaOp> {
        let dims = self.dims_type(x)?.0;
        let mut perm: Vec<i64> = (0..dims.len() as i64).filter(|&i| i != src).collect();
        perm.insert(dst as usize, src);
        let mut merged: Vec<i64> = (0..dims.len())
            .filter(|&i| i as i64 != src)
            .map(|i| dims[i])
            .collect();
        merged[dst as usize] *= dims[src as usize];
        self.b.reshape(self.b.transpose(x, &perm)?, &merged)
    }
}

/// A convolution's attributes in JAX's terms: each spec is `[batch or
/// output feature, feature or input feature, spatial…]`.
struct Conv {
    lhs: Vec<i64>,
    rhs: Vec<i64>,
    out: Vec<i64>,
    strides: Vec<i64>,
    padding: Vec<(i64, i64)>,
    lhs_dilation: Vec<i64>,
    rhs_dilation: Vec<i64>,
    groups: i64,
    batch_groups: i64,
}

impl Conv {
    /// The padding `rule` gives for this convolution of an input, kernel
    /// and output of dimensions `lhs`, `rhs` and `out`.
    fn transposed_padding(
        &self,
        lhs: &[i64],
        rhs: &[i64],
        out: &[i64],
        rule: fn(Dilated) -> (i64, i64),
    ) -> Vec<(i64, i64)> {
        let size = |dims: &[i64], spec: &[i64], i: usize| dims[spec[2 + i] as usize];
        (0..self.strides.len())
            .map(|i| {
                rule(Dilated::new(
                    size(lhs, &self.lhs, i),
                    size(rhs, &self.rhs, i),
                    size(out, &self.out, i),
                    self.strides[i],
                    self.padding[i].0,
                    self.lhs_dilation[i],
                    self.rhs_dilation[i],
                ))
            })
            .collect()
    }
}

fn spec(first: i64, second: i64, spatial: &[i64]) -> Vec<i64> {
    let mut s = vec![first, second];
    s.extend_from_slice(spatial);
    s
}

fn swapped(spec: &[i64]) -> Vec<i64> {
    let mut s = spec.to_vec();
    s.swap(0, 1);
    s
}

fn dimension_numbers(lhs: &[i64], rhs: &[i64], out: &[i64]) -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch: lhs[0],
        input_feature: lhs[1],
        input_spatial: lhs[2..].to_vec(),
        kernel_output_feature: rhs[0],
        kernel_input_feature: rhs[1],
        kernel_spatial: rhs[2..].to_vec(),
        output_batch: out[0],
        output_feature: out[1],
        output_spatial: out[2..].to_vec(),
    }
}

fn dilate(n: i64, d: i64) -> i64 {
    if n == 0 {
        0
    } else {
        1 + d * (n - 1)
    }
}

/// One spatial dimension of a convolution or window op as JAX's
/// transpose paddings read it: the dilated sizes of input, window and
/// output (strides dilate the output), and the low padding.
#[derive(Clone, Copy)]
pub(super) struct Dilated {
    lhs: i64,
    rhs: i64,
    out: i64,
    low: i64,
}

impl Dilated {
    /// A dimension of input size `input`, window `window`, output
    /// `output`, stride, low padding and dilations.
    pub(super) fn new(
        input: i64,
        window: i64,
        output: i64,
        stride: i64,
        low: i64,
        lhs_dilation: i64,
        rhs_dilation: i64,
    ) -> Self {
        Dilated {
            lhs: dilate(input, lhs_dilation),
            rhs: dilate(window, rhs_dilation),
            out: dilate(output, stride),
            low,
        }
    }
}

/// JAX's `_conv_general_vjp_lhs_padding`: the padding of a cotangent that
/// turns a window op's transpose into a window op of the same kind.
pub(super) fn lhs_padding(d: Dilated) -> (i64, i64) {
    let before = d.rhs - d.low - 1;
    (before, d.lhs + d.rhs - 1 - d.out - before)
}

/// JAX's `_conv_general_vjp_rhs_padding`.
fn rhs_padding(d: Dilated) -> (i64, i64) {
    (d.low, d.out - d.lhs + d.rhs - d.low - 1)
}
