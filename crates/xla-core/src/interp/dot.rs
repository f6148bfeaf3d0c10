//! Dot (dot_general) and convolution (`spec/OPS.md` §2.3, §2.4).
//!
//! Accumulation (project rule, §2.3.5): integers wrap in their own type;
//! `f32` accumulates in `f32` (as XLA:CPU does) and `f64` in `f64`, with
//! every product and partial sum flushed like any `f32`/`f64` computation;
//! `f16`/`bf16` products are accumulated in `f32` and the sum is rounded to
//! the 16-bit type once; complex values accumulate in their component type;
//! `pred` is an or of ands. Sums run over the contracted indices in
//! row-major order.

use half::{bf16, f16};

use super::array::{copy_elements, dense, result_shape, row_major_strides, zeros, Dense, Walk};
use super::elementwise::float::Real;
use super::eval::{invalid, unsupported};
use super::InterpError;
use crate::hlo::{HloInstruction, WindowDim};
use crate::{ArrayShape, Literal, NativeType, PrimitiveType, C128, C64};

/// An element type's dot accumulation in its accumulator type.
trait MulAdd: NativeType {
    type Acc: Copy;
    const ZERO: Self::Acc;
    fn mul(a: Self, b: Self) -> Self::Acc;
    fn mul_add(acc: Self::Acc, a: Self, b: Self) -> Self::Acc;
    fn finish(acc: Self::Acc) -> Self;
}

macro_rules! wrapping {
    ($($t:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = $t;
            const ZERO: $t = 0;
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                a.wrapping_mul(b)
            }
            #[inline]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                acc.wrapping_add(a.wrapping_mul(b))
            }
            #[inline]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}

wrapping!(i8, i16, i32, i64, u8, u16, u32, u64);

impl MulAdd for bool {
    type Acc = bool;
    const ZERO: bool = false;
    #[inline]
    fn mul(a: bool, b: bool) -> bool {
        a & b
    }
    #[inline]
    fn mul_add(acc: bool, a: bool, b: bool) -> bool {
        acc | (a & b)
    }
    #[inline]
    fn finish(acc: bool) -> bool {
        acc
    }
}

/// `a·b` on flushed inputs, flushed.
#[inline]
fn real_mul<R: Real>(a: R, b: R) -> R {
    (a.ftz() * b.ftz()).ftz()
}

/// `acc + a·b` with the product and the sum flushed.
#[inline]
fn real_mul_add<R: Real>(acc: R, a: R, b: R) -> R {
    (acc + real_mul(a, b)).ftz()
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = $t;
            const ZERO: $t = 0.0;
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                real_mul(a, b)
            }
            #[inline]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                real_mul_add(acc, a, b)
            }
            #[inline]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}

real!(f32, f64);

macro_rules! half {
    ($($t:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = f32;
            const ZERO: f32 = 0.0;
            #[inline]
            fn mul(a: $t, b: $t) -> f32 {
                real_mul(a.to_f32(), b.to_f32())
            }
            #[inline]
            fn mul_add(acc: f32, a: $t, b: $t) -> f32 {
                real_mul_add(acc, a.to_f32(), b.to_f32())
            }
            #[inline]
            fn finish(acc: f32) -> $t {
                <$t>::from_f32(acc)
            }
        }
    )*};
}

half!(f16, bf16);

macro_rules! complex {
    ($($t:ty: $r:ty),*) => {$(
        impl MulAdd for $t {
            type Acc = $t;
            const ZERO: $t = <$t>::new(0.0, 0.0);
            #[inline]
            fn mul(a: $t, b: $t) -> $t {
                let re = real_mul_add(real_mul(a.re, b.re), -a.im, b.im);
                let im = real_mul_add(real_mul(a.re, b.im), a.im, b.re);
                <$t>::new(re, im)
            }
            #[inline]
            fn mul_add(acc: $t, a: $t, b: $t) -> $t {
                let re = real_mul_add(real_mul_add(acc.re, a.re, b.re), -a.im, b.im);
                let im = real_mul_add(real_mul_add(acc.im, a.re, b.im), a.im, b.re);
                <$t>::new(re, im)
            }
            #[inline]
            fn finish(acc: $t) -> $t {
                acc
            }
        }
    )*};
}

complex!(C64: f32, C128: f64);

/// Runs `$body` with `$t` the Rust type of element type `$ty`.
macro_rules! with_mul_add {
    ($ty:expr, $t:ident => $body:expr) => {
        crate::dispatch_native!($ty, $t => $body)
    };
}

/// The operand's elements rearranged row-major in the order `dims` lists
/// its dimensions (e.g. `[batch…, free…, contracting…]`).
fn arranged(x: &Dense<'_>, dims: &[usize]) -> Result<Literal, InterpError> {
    let shape = x.literal.array_shape()?;
    let extent: Vec<i64> = dims.iter().map(|&d| x.dims()[d]).collect();
    let strides: Vec<i64> = dims.iter().map(|&d| x.strides[d]).collect();
    let out_shape = ArrayShape::new(shape.element_type(), extent.clone()).with_default_layout();
    let mut out = zeros(&out_shape)?;
    let size = shape.element_type().byte_size();
    let to = Walk::of(&row_major_strides(&extent));
    copy_elements(
        size,
        &extent,
        x.literal.bytes()?,
        &Walk::of(&strides),
        out.bytes_mut()?,
        &to,
    );
    Ok(out)
}

/// The operand converted to the result's element type, when a dot or
/// convolution declares a different one (XLA's preferred element type).
fn in_result_type<'a>(
    literal: &'a Literal,
    ty: PrimitiveType,
) -> Result<std::borrow::Cow<'a, Literal>, InterpError> {
    if literal.element_type() == Some(ty) {
        Ok(std::borrow::Cow::Borrowed(literal))
    } else {
        Ok(std::borrow::Cow::Owned(literal.convert(ty)?))
    }
}

/// `dot(lhs, rhs), lhs_batch_dims=… lhs_contracting_dims=… rhs_…`: batch
/// dimensions first, then the lhs free dimensions, then the rhs free ones.
pub(super) fn dot(instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    let shape = result_shape(instr)?;
    let ty = shape.element_type();
    let (lhs, rhs) = (
        in_result_type(operands[0], ty)?,
        in_result_type(operands[1], ty)?,
    );
    let (lhs, rhs) = (dense(&lhs)?, dense(&rhs)?);
    let numbers = instr.attrs.dot_dims.clone().unwrap_or_default();
    let to_usize = |v: &[i64]| v.iter().map(|&d| d as usize).collect::<Vec<_>>();
    let (lb, rb) = (to_usize(&numbers.lhs_batch), to_usize(&numbers.rhs_batch));
    let (lc, rc) = (
        to_usize(&numbers.lhs_contracting),
        to_usize(&numbers.rhs_contracting),
    );
    let free = |rank: usize, a: &[usize], b: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|d| !a.contains(d) && !b.contains(d))
            .collect()
    };
    let lf = free(lhs.dims().len(), &lb, &lc);
    let rf = free(rhs.dims().len(), &rb, &rc);
    let size = |x: &Dense<'_>, dims: &[usize]| {
        dims.iter()
            .map(|&d| x.dims()[d] as usize)
            .product::<usize>()
    };
    let (b, m, k, n) = (
        size(&lhs, &lb),
        size(&lhs, &lf),
        size(&lhs, &lc),
        size(&rhs, &rf),
    );
    if size(&rhs, &rb) != b || size(&rhs, &rc) != k {
        return Err(invalid(
            instr,
            "the batch or contracting sizes of lhs and rhs differ",
        ));
    }
    // Without contracting dimensions every element is one product (so
    // `0·−x = −0`); sums start from +0, as XLA:CPU computes them.
    let product_only = lc.is_empty();
    let a = arranged(&lhs, &[lb, lf, lc].concat())?;
    let c = arranged(&rhs, &[rb, rc, rf].concat())?;
    let mut out = zeros(&shape)?;
    with_mul_add!(ty, T => {
        matmul::<T>(a.data()?, c.data()?, out.data_mut()?, (b, m, k, n), product_only);
    });
    Ok(out)
}

/// `out[b,i,j] = Σ_p a[b,i,p]·c[b,p,j]` over row-major buffers, one row of
/// `out` at a time (the sum over `p` in order, from +0, or just the
/// product when `product_only`).
fn matmul<T: MulAdd>(
    a: &[T],
    c: &[T],
    out: &mut [T],
    (b, m, k, n): (usize, usize, usize, usize),
    product_only: bool,
) {
    let mut acc = vec![T::ZERO; n];
    for batch in 0..b {
        let (a, c) = (&a[batch * m * k..], &c[batch * k * n..]);
        for i in 0..m {
            acc.fill(T::ZERO);
            for p in 0..k {
                let x = a[i * k + p];
                let row = &c[p * n..(p + 1) * n];
                if product_only {
                    for (s, &y) in acc.iter_mut().zip(row) {
                        *s = T::mul(x, y);
                    }
                } else {
                    for (s, &y) in acc.iter_mut().zip(row) {
                        *s = T::mul_add(*s, x, y);
                    }
                }
            }
            let row = &mut out[(batch * m + i) * n..(batch * m + i + 1) * n];
            for (o, &s) in row.iter_mut().zip(&acc) {
                *o = T::finish(s);
            }
        }
    }
}

/// `convolution(lhs, rhs), window=…, dim_labels=…` with
/// `feature_group_count` and `batch_group_count` (`spec/OPS.md` §2.3.5):
/// cross-correlation over the padded, dilated input; `rhs_reversal`
/// flips the kernel along a spatial dimension.
pub(super) fn convolution(
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
    with_mul_add!(ty, T => {
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
        n: &crate::hlo::ConvDimensionNumbers,
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
                            if !super::array::next_index(&mut k, &self.kernel_spatial) {
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
            if !super::array::next_index(&mut y, &self.out_spatial) {
                return;
            }
        }
    }
}
