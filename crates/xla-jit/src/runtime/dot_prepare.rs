//! Dot preparation: after layout assignment, every `dot` is rewritten into
//! one the engine computes over strided views, so no dot falls back to the
//! interpreter.
//!
//! * **Element types.** An operand whose element type differs from the
//!   result's is converted to it first (XLA's preferred element type, as
//!   the interpreter computes it), except two bf16 or two f16 operands of
//!   an f32 result, which the engine widens as it packs (`bf16 · bf16 →
//!   f32` converts exactly,
//!   `s8 · s8 → s32` sign-extends and then wraps in `s32`). A `pred` dot
//!   (an or of ands; its operands are `pred` too) becomes
//!   `convert_pred(dot_f32(convert_f32(lhs), convert_f32(rhs)))`: a sum of
//!   products of 0s and 1s is 0 exactly when no product is 1, for any
//!   contracting size (f32 sums of non-negative values never return to 0).
//! * **Contracting order.** Pairs of contracting dimensions may be listed in
//!   any order without changing the result (up to float summation order):
//!   when the listed order does not collapse into one strided `k`, the
//!   pairs are sorted by the lhs stride, largest first.
//! * **Operand layouts.** An operand whose batch, free or contracting
//!   dimensions still do not collapse into one strided dimension each (or
//!   whose layout is tiled or padded) is transposed into a row-major copy
//!   `[batch…, free…, contracting…]` (lhs) or `[batch…, contracting…,
//!   free…]` (rhs), a compiled loop kernel.
//! * **Result layout.** A result whose batch, m or n dimensions do not
//!   collapse is computed row-major and copied to its layout.

use xla_core::hlo::{DotDimensionNumbers, InstrId};
use xla_core::{ArrayShape, HloInstruction, HloModule, Opcode, PrimitiveType};

use super::dot::widens;
use super::rewrite::{rewrite_module, Emitted};
use crate::fusion::OperandView;
use crate::fusion::{free_dims, lhs_view, out_view, rhs_view, DotInput};

/// Rewrites every dot of `module` (see the module docs); `true` if any
/// changed. Instructions added before (operand conversions and
/// transposes) and after (result conversion or copy) each dot keep
/// operands before their users.
pub(crate) fn prepare_dots(module: &mut HloModule) -> bool {
    rewrite_module(module, |out, instr| match instr.opcode {
        Opcode::Dot => out.dot(instr),
        _ => out.push(instr),
    })
}

impl Emitted<'_> {
    /// Adds `opcode(operand)` of `shape` named after `base`.
    fn add(
        &mut self,
        base: &str,
        opcode: Opcode,
        shape: ArrayShape,
        operand: InstrId,
        dimensions: Option<Vec<i64>>,
    ) -> InstrId {
        let mut instr = self.named(base, opcode, shape.into(), vec![operand]);
        instr.attrs.dimensions = dimensions;
        self.push(instr)
    }

    /// `operand` transposed to `permutation`, row-major.
    fn transposed(&mut self, base: &str, operand: InstrId, permutation: Vec<i64>) -> InstrId {
        let shape = self.shape(operand);
        let sizes: Vec<i64> = permutation
            .iter()
            .map(|&d| shape.dims()[d as usize])
            .collect();
        let shape = ArrayShape::new(shape.element_type(), sizes).with_default_layout();
        self.add(base, Opcode::Transpose, shape, operand, Some(permutation))
    }

    /// Emits `dot` in a form the engine computes; the id holding its value.
    fn dot(&mut self, mut dot: HloInstruction) -> InstrId {
        let result = dot
            .shape
            .as_array()
            .expect("verified: a dot's result is an array")
            .clone();
        let Some(mut dims) = dot.attrs.dot_dims.clone() else {
            return self.push(dot);
        };
        let ty = result.element_type();
        let compute = match ty {
            PrimitiveType::Pred => PrimitiveType::F32,
            _ => ty,
        };
        let base = dot.name.clone();
        // 16-bit operands of an f32 result stay as they are: the engine
        // widens them as it packs (bf16 pairs go to `vdpbf16ps` where the
        // CPU has it).
        let operand_type = |k: usize| self.shape(dot.operands[k]).element_type();
        let (lhs_type, rhs_type) = (operand_type(0), operand_type(1));
        let operands = match widens(lhs_type, rhs_type, compute) {
            true => lhs_type,
            false => compute,
        };
        let lhs = self.converted(&base, dot.operands[0], operands);
        let rhs = self.converted(&base, dot.operands[1], operands);
        let (lhs_shape, rhs_shape) = (self.shape(lhs).clone(), self.shape(rhs).clone());
        let input = |shape| DotInput {
            shape,
            view: &OperandView::Buffer,
        };
        let fits = |dims: &DotDimensionNumbers| {
            lhs_view(&input(&lhs_shape), dims).is_some()
                && rhs_view(&input(&rhs_shape), dims).is_some()
        };
        if !fits(&dims) {
            let sorted = contracting_by_lhs_stride(&lhs_shape, &dims);
            if fits(&sorted) {
                self.changed = true;
                dims = sorted;
            }
        }
        let (nb, nc) = (dims.lhs_batch.len(), dims.lhs_contracting.len());
        let lhs = if lhs_view(&input(&lhs_shape), &dims).is_some() {
            lhs
        } else {
            let free = free_dims(
                lhs_shape.dims().len(),
                &dims.lhs_batch,
                &dims.lhs_contracting,
            );
            let permutation = [&dims.lhs_batch[..], &free, &dims.lhs_contracting].concat();
            let nm = free.len() as i64;
            dims.lhs_batch = (0..nb as i64).collect();
            dims.lhs_contracting = (nb as i64 + nm..nb as i64 + nm + nc as i64).collect();
            self.transposed(&base, lhs, permutation)
        };
        let rhs = if rhs_view(&input(&rhs_shape), &dims).is_some() {
            rhs
        } else {
            let free = free_dims(
                rhs_shape.dims().len(),
                &dims.rhs_batch,
                &dims.rhs_contracting,
            );
            let permutation = [&dims.rhs_batch[..], &dims.rhs_contracting, &free].concat();
            dims.rhs_batch = (0..nb as i64).collect();
            dims.rhs_contracting = (nb as i64..(nb + nc) as i64).collect();
            self.transposed(&base, rhs, permutation)
        };
        let mut computed = result.clone().with_element_type(compute);
        let lhs_rank = self.shape(lhs).dims().len();
        if out_view(&computed, &dims, lhs_rank).is_none() {
            computed = computed.with_default_layout();
        }
        let unchanged = [lhs, rhs] == dot.operands[..] && computed == result;
        if unchanged && dot.attrs.dot_dims.as_ref() == Some(&dims) {
            return self.push(dot);
        }
        self.changed = true;
        dot.operands = vec![lhs, rhs];
        dot.shape = computed.clone().into();
        dot.attrs.dot_dims = Some(dims);
        let id = self.push(dot);
        if ty != compute {
            self.add(&base, Opcode::Convert, result, id, None)
        } else if computed != result {
            self.add(&base, Opcode::Copy, result, id, None)
        } else {
            id
        }
    }
}

/// `dims` with its contracting pairs sorted by the stride of their lhs
/// dimension, largest first (stable), so that a row-major `k` group of the
/// lhs lists its dimensions major to minor. Example: `f32[3,4,5]{2,1,0}`
/// with `lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}` becomes
/// `{1,2}/{1,0}` (lhs strides 1 and 5). Non-dense layouts are left as they
/// are.
fn contracting_by_lhs_stride(lhs: &ArrayShape, dims: &DotDimensionNumbers) -> DotDimensionNumbers {
    let Some(strides) = lhs.layout_or_default().dense_strides(lhs.dims()) else {
        return dims.clone();
    };
    let mut pairs: Vec<(i64, i64)> = dims
        .lhs_contracting
        .iter()
        .copied()
        .zip(dims.rhs_contracting.iter().copied())
        .collect();
    pairs.sort_by_key(|&(l, _)| std::cmp::Reverse(strides[l as usize]));
    DotDimensionNumbers {
        lhs_contracting: pairs.iter().map(|p| p.0).collect(),
        rhs_contracting: pairs.iter().map(|p| p.1).collect(),
        ..dims.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contracting_pairs_sorted_major_first() {
        let lhs = "f32[3,4,5]{2,1,0}".parse::<xla_core::Shape>().unwrap();
        let dims = DotDimensionNumbers {
            lhs_batch: vec![],
            rhs_batch: vec![],
            lhs_contracting: vec![2, 1],
            rhs_contracting: vec![0, 1],
        };
        let sorted = contracting_by_lhs_stride(lhs.as_array().unwrap(), &dims);
        assert_eq!(sorted.lhs_contracting, [1, 2]);
        assert_eq!(sorted.rhs_contracting, [1, 0]);
    }
}
