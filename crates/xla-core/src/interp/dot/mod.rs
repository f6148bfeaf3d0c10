//! Dot (dot_general) and convolution (`docs/semantics.md`, *Convolution*, *Dot*).
//!
//! Accumulation (project rule, `docs/semantics.md`, *Accumulation in dot and convolution*):
//! integers wrap in their own type; `f32` accumulates in `f32` (as XLA:CPU does) and `f64` in
//! `f64`, with every product and partial sum flushed like any `f32`/`f64` computation;
//! `f16`/`bf16` products are accumulated in `f32` and the sum is rounded to
//! the 16-bit type once; complex values accumulate in their component type;
//! `pred` is an or of ands. Sums run over the contracted indices in
//! row-major order.

mod accumulate;
mod convolution;

pub(super) use convolution::convolution;

use std::borrow::Cow;

use accumulate::MulAdd;

use super::array::{copy_elements, dense, result_shape, row_major_strides, zeros, Dense, Walk};
use super::eval::invalid;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::{dispatch_native, ArrayShape, Literal, PrimitiveType};

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
) -> Result<Cow<'a, Literal>, InterpError> {
    if literal.element_type() == Some(ty) {
        Ok(Cow::Borrowed(literal))
    } else {
        Ok(Cow::Owned(literal.convert(ty)?))
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
    dispatch_native!(ty, T => {
        let (a, c) = (a.data::<T>()?, c.data::<T>()?);
        let dims = (b, m, k, n);
        if a.iter().chain(c).all(|&x| T::never_subnormal(x)) {
            matmul::<T, false>(a, c, out.data_mut()?, dims, product_only);
        } else {
            matmul::<T, true>(a, c, out.data_mut()?, dims, product_only);
        }
    });
    Ok(out)
}

/// `out[b,i,j] = Σ_p a[b,i,p]·c[b,p,j]` over row-major buffers: the sum
/// over `p` in order, from +0 (or just the product when `product_only`).
///
/// Blocked for the cache without changing that order: `p` runs in blocks
/// of rows of `c` that fit in L2 (about 256 KiB), and each row of `c` in a
/// block updates the accumulators of four rows of `a` at a time.
fn matmul<T: MulAdd, const FLUSH: bool>(
    a: &[T],
    c: &[T],
    out: &mut [T],
    (b, m, k, n): (usize, usize, usize, usize),
    product_only: bool,
) {
    const ROWS: usize = 4;
    let k_block = (65536 / n.max(1)).max(1);
    let mut acc = vec![T::ZERO; m * n];
    for batch in 0..b {
        let (a, c) = (&a[batch * m * k..], &c[batch * k * n..]);
        acc.fill(T::ZERO);
        for p0 in (0..k).step_by(k_block) {
            for i0 in (0..m).step_by(ROWS) {
                for p in p0..(p0 + k_block).min(k) {
                    let row = &c[p * n..(p + 1) * n];
                    for i in i0..(i0 + ROWS).min(m) {
                        let x = a[i * k + p];
                        let sums = &mut acc[i * n..(i + 1) * n];
                        if product_only {
                            for (s, &y) in sums.iter_mut().zip(row) {
                                *s = T::mul(x, y);
                            }
                        } else if FLUSH {
                            for (s, &y) in sums.iter_mut().zip(row) {
                                *s = T::mul_add(*s, x, y);
                            }
                        } else {
                            for (s, &y) in sums.iter_mut().zip(row) {
                                *s = T::mul_add_exact(*s, x, y);
                            }
                        }
                    }
                }
            }
        }
        for (o, &s) in out[batch * m * n..(batch + 1) * m * n].iter_mut().zip(&acc) {
            *o = T::finish(s);
        }
    }
}
