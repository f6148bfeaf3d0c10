//! Rules for data movement, conversion, reduction and tuples.

use super::splat::Splat;
use super::Rewriter;
use crate::hlo::{Attrs, HloInstruction, InstrId, Opcode, SliceDim};
use crate::{PrimitiveType, Shape};

/// The dimensions of an array instruction.
fn dims_of(instr: &HloInstruction) -> Option<&[i64]> {
    instr.shape.as_array().map(|a| a.dims())
}

/// A new instruction with the given attributes.
fn with_attrs(
    opcode: Opcode,
    shape: Shape,
    operands: Vec<InstrId>,
    attrs: Attrs,
) -> HloInstruction {
    let mut instr = HloInstruction::new(String::new(), opcode, shape, operands);
    instr.attrs = attrs;
    instr
}

/// `reshape(x) → x` when `x` already has the result's dimensions;
/// `reshape(reshape(x)) → reshape(x)` (a reshape refills the row-major
/// element sequence, so two in a row are one); and
/// `reshape(broadcast(s)) → broadcast(s)` for a scalar `s`.
pub(super) fn reshape(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let operand = cx.operand_instr(id, 0);
    if dims_of(operand) == dims_of(instr) {
        return Some(cx.operand(id, 0));
    }
    let shape = instr.shape.clone();
    match operand.opcode {
        Opcode::Reshape => {
            let source = cx.operand(cx.operand(id, 0), 0);
            Some(cx.add(Opcode::Reshape, shape, vec![source]))
        }
        Opcode::Broadcast if dims_of(cx.operand_instr(cx.operand(id, 0), 0)) == Some(&[]) => {
            let source = cx.operand(cx.operand(id, 0), 0);
            let attrs = Attrs {
                dimensions: Some(Vec::new()),
                ..Attrs::default()
            };
            Some(cx.add_with(with_attrs(Opcode::Broadcast, shape, vec![source], attrs)))
        }
        _ => None,
    }
}

/// `transpose(x), dimensions={0,1,…} → x`,
/// `transpose(transpose(x, p), q) → transpose(x, p∘q)` where result
/// dimension `i` is dimension `p[q[i]]` of `x` (dropped entirely when that
/// is the identity), and `transpose(dot(a, b)) → dot(b, a)` (see
/// [`transposed_dot`]).
pub(super) fn transpose(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let outer = instr.attrs.dimensions.as_ref()?;
    if is_identity(outer) {
        return Some(cx.operand(id, 0));
    }
    let operand = cx.operand_instr(id, 0);
    if operand.opcode == Opcode::Dot {
        return transposed_dot(cx, id);
    }
    if operand.opcode != Opcode::Transpose {
        return None;
    }
    let inner = operand.attrs.dimensions.as_ref()?;
    let composed: Vec<i64> = outer.iter().map(|&q| inner[q as usize]).collect();
    let source = cx.operand(cx.operand(id, 0), 0);
    if is_identity(&composed) {
        return Some(source);
    }
    let attrs = Attrs {
        dimensions: Some(composed),
        ..Attrs::default()
    };
    let shape = instr.shape.clone();
    Some(cx.add_with(with_attrs(Opcode::Transpose, shape, vec![source], attrs)))
}

/// `transpose(dot(a, b)) → dot(b, a)` (the batch dimensions paired as
/// before, each side's contracting dimensions now the other's) when the
/// dot has one free dimension on each side, the transpose swaps those two
/// and keeps the batch dimensions in place, and the dot has no other use,
/// as XLA's simplifier does: the same products and sums, and a consumer
/// of the transpose (a weight gradient added to its running sum in a
/// loop) then reads the dot at its own indices.
fn transposed_dot(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let dot_id = cx.operand(id, 0);
    if !cx.used_once(dot_id) {
        return None;
    }
    let dot = cx.instr(dot_id);
    let dnums = dot.attrs.dot_dims.as_ref()?;
    let batch = dnums.lhs_batch.len();
    let free = |k: usize, contracting: &[i64]| {
        dims_of(cx.operand_instr(dot_id, k)).map(|d| d.len() - batch - contracting.len())
    };
    if free(0, &dnums.lhs_contracting)? != 1 || free(1, &dnums.rhs_contracting)? != 1 {
        return None;
    }
    let swap: Vec<i64> = (0..batch as i64)
        .chain([batch as i64 + 1, batch as i64])
        .collect();
    if cx.instr(id).attrs.dimensions.as_deref() != Some(&swap[..]) {
        return None;
    }
    let mut attrs = dot.attrs.clone();
    attrs.dot_dims = Some(crate::hlo::DotDimensionNumbers {
        lhs_batch: dnums.rhs_batch.clone(),
        rhs_batch: dnums.lhs_batch.clone(),
        lhs_contracting: dnums.rhs_contracting.clone(),
        rhs_contracting: dnums.lhs_contracting.clone(),
    });
    let operands = vec![cx.operand(dot_id, 1), cx.operand(dot_id, 0)];
    let shape = cx.instr(id).shape.clone();
    Some(cx.add_with(with_attrs(Opcode::Dot, shape, operands, attrs)))
}

fn is_identity(permutation: &[i64]) -> bool {
    permutation.iter().enumerate().all(|(i, &p)| p == i as i64)
}

/// `broadcast(x) → x` when it maps every dimension of `x` to itself (same
/// dimensions, `dimensions={0,1,…}`), and
/// `broadcast(broadcast(x, d1), d2) → broadcast(x, d2∘d1)`: dimension `j`
/// of `x` lands in dimension `d2[d1[j]]` of the result.
pub(super) fn broadcast(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let outer = instr.attrs.dimensions.as_ref()?;
    let operand = cx.operand_instr(id, 0);
    if dims_of(operand) == dims_of(instr) && is_identity(outer) {
        return Some(cx.operand(id, 0));
    }
    if operand.opcode != Opcode::Broadcast {
        return None;
    }
    let inner = operand.attrs.dimensions.as_ref()?;
    let composed: Vec<i64> = inner.iter().map(|&d| outer[d as usize]).collect();
    let source = cx.operand(cx.operand(id, 0), 0);
    let attrs = Attrs {
        dimensions: Some(composed),
        ..Attrs::default()
    };
    let shape = instr.shape.clone();
    Some(cx.add_with(with_attrs(Opcode::Broadcast, shape, vec![source], attrs)))
}

/// A constant array of two or more equal elements becomes
/// `broadcast(scalar constant)`: the module holds one value instead of
/// many, and the JIT splats it into vector registers.
pub(super) fn constant(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let shape = instr.shape.as_array()?;
    if shape.element_count() < 2 {
        return None;
    }
    let splat = Splat::of_literal(instr.attrs.literal.as_ref()?)?;
    let mut scalar = HloInstruction::new(
        String::new(),
        Opcode::Constant,
        Shape::scalar(splat.element_type()),
        Vec::new(),
    );
    scalar.attrs.literal = Some(splat.to_scalar());
    let shape = instr.shape.clone();
    let scalar = cx.add_with(scalar);
    let attrs = Attrs {
        dimensions: Some(Vec::new()),
        ..Attrs::default()
    };
    Some(cx.add_with(with_attrs(Opcode::Broadcast, shape, vec![scalar], attrs)))
}

/// `slice(x) → x` when it takes every element (`[0:size:1]` in every
/// dimension), and `slice(slice(x))` → one slice: element `i` of the outer
/// slice is element `start₁ + (start₂ + i·stride₂)·stride₁` of `x`, so the
/// composed slice has start `start₁ + start₂·stride₁` and stride
/// `stride₁·stride₂`, and ends just past its last element.
pub(super) fn slice(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let outer = instr.attrs.slice.as_ref()?;
    let operand = cx.operand_instr(id, 0);
    let operand_dims = dims_of(operand)?;
    let full = outer
        .iter()
        .zip(operand_dims)
        .all(|(s, &size)| s.start == 0 && s.limit == size && s.stride == 1);
    if full {
        return Some(cx.operand(id, 0));
    }
    if operand.opcode != Opcode::Slice {
        return None;
    }
    let inner = operand.attrs.slice.as_ref()?;
    let result_dims = dims_of(instr)?;
    let composed: Vec<SliceDim> = inner
        .iter()
        .zip(outer)
        .zip(result_dims)
        .map(|((a, b), &count)| {
            let start = a.start + b.start * a.stride;
            let stride = a.stride * b.stride;
            if count == 0 {
                SliceDim {
                    start: a.start,
                    limit: a.start,
                    stride: 1,
                }
            } else {
                SliceDim {
                    start,
                    limit: start + (count - 1) * stride + 1,
                    stride,
                }
            }
        })
        .collect();
    let source = cx.operand(cx.operand(id, 0), 0);
    let attrs = Attrs {
        slice: Some(composed),
        ..Attrs::default()
    };
    let shape = instr.shape.clone();
    Some(cx.add_with(with_attrs(Opcode::Slice, shape, vec![source], attrs)))
}

/// `pad(x, v) → x` when every dimension's config is `0_0_0`.
pub(super) fn pad(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let config = cx.instr(id).attrs.padding.as_ref()?;
    config
        .iter()
        .all(|p| p.low == 0 && p.high == 0 && p.interior == 0)
        .then(|| cx.operand(id, 0))
}

/// `concatenate(x) → x` (a single operand).
pub(super) fn concatenate(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    (cx.instr(id).operands.len() == 1).then(|| cx.operand(id, 0))
}

/// `copy(x) → x` when `x` has the copy's layout already: a copy only
/// changes layouts.
pub(super) fn copy(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let operand = cx.operand_instr(id, 0);
    operand
        .shape
        .eq_with_layout(&instr.shape)
        .then(|| cx.operand(id, 0))
}

/// `bitcast` to the operand's dimensions and layout → the operand itself,
/// or a `bitcast-convert` when only the element type changes (to another
/// of the same size, neither `pred` nor complex): every element keeps its
/// place, so the layout-level reinterpretation is the element-wise one.
/// XLA's optimized modules write the total-order sort comparator with
/// `s32[] bitcast(f32[])`.
pub(super) fn bitcast(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let to = instr.shape.as_array()?;
    let from = cx.operand_instr(id, 0).shape.as_array()?;
    let (t, f) = (to.element_type(), from.element_type());
    let plain = |ty: PrimitiveType| ty != PrimitiveType::Pred && !ty.is_complex();
    if to.dims() != from.dims()
        || to.layout_or_default() != from.layout_or_default()
        || t.byte_size() != f.byte_size()
    {
        return None;
    }
    let operand = cx.operand(id, 0);
    if t == f {
        return Some(operand);
    }
    if !(plain(t) && plain(f)) {
        return None;
    }
    let shape = instr.shape.clone();
    Some(cx.add(Opcode::BitcastConvert, shape, vec![operand]))
}

/// XLA's `TopK` custom call → the `topk` instruction it computes, which
/// backends compile.
pub(super) fn custom_call(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let topk = cx.instr(id).xla_topk_as_topk()?;
    Some(cx.add_with(topk))
}

/// `get-tuple-element(tuple(a, b, …), index=k)` → the `k`-th operand.
pub(super) fn get_tuple_element(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let index = cx.instr(id).attrs.tuple_index?;
    let operand = cx.operand(id, 0);
    (cx.instr(operand).opcode == Opcode::Tuple).then(|| cx.operand(operand, index as usize))
}

/// `reduce(x, init), dimensions={} → x` (and `tuple(x₀, x₁, …)` for a
/// variadic reduce). Each result element is `f(init, x[i])`, which is
/// `x[i]` because an init value must be an identity of the reducer
/// (`docs/semantics.md`, *Reduce*); XLA relies on the same rule.
pub(super) fn reduce(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    if !instr.attrs.dimensions.as_ref()?.is_empty() {
        return None;
    }
    let inputs = instr.operands.len() / 2;
    if inputs == 1 && instr.shape.is_array() {
        return Some(cx.operand(id, 0));
    }
    let shape = instr.shape.clone();
    let operands = (0..inputs).map(|k| cx.operand(id, k)).collect();
    Some(cx.add(Opcode::Tuple, shape, operands))
}

/// `convert(x) → x` when `x` already has the target type, and
/// `convert(convert(x: A → B) → C) → convert(x: A → C)` when the first
/// conversion loses nothing and the second then treats every value as the
/// direct conversion would ([`passes_through`]).
pub(super) fn convert(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let target = cx.instr(id).shape.element_type()?;
    let operand = cx.operand_instr(id, 0);
    let middle = operand.shape.element_type()?;
    if middle == target {
        return Some(cx.operand(id, 0));
    }
    if operand.opcode != Opcode::Convert {
        return None;
    }
    let source_id = cx.operand(cx.operand(id, 0), 0);
    let source = cx.instr(source_id).shape.element_type()?;
    if !passes_through(source, middle, target) {
        return None;
    }
    if source == target {
        return Some(source_id);
    }
    let shape = cx.instr(id).shape.clone();
    Some(cx.add(Opcode::Convert, shape, vec![source_id]))
}

/// Whether `convert(convert(x: a → b) → c)` equals `convert(x: a → c)` for
/// every `x`, under the conversion rules of `docs/semantics.md`, *Convert* (and the
/// subnormal flushes in `literal::convert`):
///
/// | a                | b                                   | c                       |
/// |------------------|-------------------------------------|-------------------------|
/// | pred             | any                                 | any                     |
/// | integer          | an integer holding every `a` value  | any                     |
/// | integer          | a float holding every `a` exactly   | float, complex, pred    |
/// | f16              | f32, f64                            | any                     |
/// | bf16             | f32                                 | any but f64, c128       |
///
/// Counter-examples the table excludes: `u8 200 → f32 → s8` saturates to
/// 127 while `u8 → s8` wraps to −56; `f32 → f64` flushes an f32 subnormal
/// that `f32 → f32` keeps; `bf16 → f32 → f64` flushes a bf16 subnormal
/// that `bf16 → f64` keeps exactly.
pub(super) fn passes_through(a: PrimitiveType, b: PrimitiveType, c: PrimitiveType) -> bool {
    use PrimitiveType::*;
    if a == Pred {
        return true;
    }
    if a.is_integral() && b.is_integral() {
        return holds_integers(b, a);
    }
    if a.is_integral() && b.is_floating() {
        let mantissa = b.float_bits().map_or(0, |(_, m)| m as usize + 1);
        return value_bits(a) <= mantissa && (c.is_floating() || c.is_complex() || c == Pred);
    }
    match (a, b) {
        (F16, F32 | F64) => true,
        (Bf16, F32) => !matches!(c, F64 | C128),
        _ => false,
    }
}

/// Bits needed for the magnitude of every value of integer type `t`
/// (`s8`: 7, since −128 = −2⁷ is a power of two; `u8`: 8).
fn value_bits(t: PrimitiveType) -> usize {
    if t.is_signed_integral() {
        t.bit_width() - 1
    } else {
        t.bit_width()
    }
}

/// Whether integer type `wide` represents every value of integer type
/// `narrow`.
fn holds_integers(wide: PrimitiveType, narrow: PrimitiveType) -> bool {
    match (narrow.is_signed_integral(), wide.is_signed_integral()) {
        (true, true) | (false, false) => wide.bit_width() >= narrow.bit_width(),
        (false, true) => wide.bit_width() > narrow.bit_width(),
        (true, false) => false,
    }
}

/// A dot with no contracting dimensions (an outer product, possibly
/// batched) is `multiply(broadcast(lhs), broadcast(rhs))` in the result's
/// element type, as XLA's simplifier rewrites it: one product per element,
/// no accumulation (so `-0 · x` stays `-0`), and an elementwise op the JIT
/// fuses. Applies when both operands' dimensions map to increasing result
/// dimensions (no transposition needed) and the type is not `pred`.
pub(super) fn dot(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let dnums = instr.attrs.dot_dims.as_ref()?;
    if !dnums.lhs_contracting.is_empty() || !dnums.rhs_contracting.is_empty() {
        return None;
    }
    let shape = instr.shape.clone();
    let out_type = shape.element_type()?;
    if out_type == PrimitiveType::Pred {
        return None;
    }
    let batch = dnums.lhs_batch.len() as i64;
    // Result dimension of each operand dimension: batch dimensions first,
    // then the lhs's free dimensions, then the rhs's.
    let positions = |rank: usize, batch_dims: &[i64], first_free: i64| -> Vec<i64> {
        let mut free = first_free;
        (0..rank as i64)
            .map(|d| match batch_dims.iter().position(|&b| b == d) {
                Some(j) => j as i64,
                None => {
                    free += 1;
                    free - 1
                }
            })
            .collect()
    };
    let lhs_rank = dims_of(cx.operand_instr(id, 0))?.len();
    let rhs_rank = dims_of(cx.operand_instr(id, 1))?.len();
    let lhs_free = (lhs_rank - dnums.lhs_batch.len()) as i64;
    let lhs_map = positions(lhs_rank, &dnums.lhs_batch, batch);
    let rhs_map = positions(rhs_rank, &dnums.rhs_batch, batch + lhs_free);
    let increasing = |m: &[i64]| m.windows(2).all(|w| w[0] < w[1]);
    if !increasing(&lhs_map) || !increasing(&rhs_map) {
        return None;
    }
    let mut factors = Vec::new();
    for (k, map) in [(0, lhs_map), (1, rhs_map)] {
        let mut operand = cx.operand(id, k);
        let operand_shape = cx.instr(operand).shape.as_array()?.clone();
        if operand_shape.element_type() != out_type {
            let converted = Shape::Array(operand_shape.with_element_type(out_type));
            operand = cx.add(Opcode::Convert, converted, vec![operand]);
        }
        let attrs = Attrs {
            dimensions: Some(map),
            ..Attrs::default()
        };
        let broadcast = with_attrs(Opcode::Broadcast, shape.clone(), vec![operand], attrs);
        factors.push(cx.add_with(broadcast));
    }
    Some(cx.add(Opcode::Multiply, shape, factors))
}
