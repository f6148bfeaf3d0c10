//! Data movement as index arithmetic: each op maps the index it is asked
//! for to indices of its operands (`docs/semantics.md`, *Data movement*) and calls their
//! generators there. Lane strides follow exactly where the map is affine in
//! the lane (broadcast, transpose, slice, reverse, degenerate reshapes); ops
//! that choose between operands per element (pad, concatenate,
//! dynamic-update-slice) branch once per vector when the whole vector falls
//! on one side, and otherwise evaluate lane by lane.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use xla_core::hlo::{HloInstruction, InstrId};
use xla_core::{Opcode, PrimitiveType};

use super::convert::convert;
use super::elemental::Elemental;
use super::index::{lane_values, Index, IndexDim};
use super::kernel::KernelBuilder;
use super::repr::value_type;
use super::Unsupported;

/// The dimension sizes of instruction `id` (empty for a tuple).
pub(super) fn dims_of(el: &Elemental, id: InstrId) -> Vec<i64> {
    el.comp
        .instr(id)
        .shape
        .as_array()
        .map(|a| a.dims().to_vec())
        .unwrap_or_default()
}

/// `broadcast`: operand dimension `k` is output dimension `dimensions[k]`.
pub(super) fn broadcast(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let dims = instr.attrs.dimensions.clone().unwrap_or_default();
    let mapped = Index::new(
        idx.lanes,
        dims.iter().map(|&d| idx.dims[d as usize]).collect(),
    );
    el.gen(kb, instr.operands[0], &mapped)
}

/// `transpose`: operand dimension `permutation[i]` is output dimension `i`.
pub(super) fn transpose(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let perm = instr.attrs.dimensions.clone().unwrap_or_default();
    let mut dims = vec![IndexDim::constant(0); perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        dims[p as usize] = idx.dims[i];
    }
    el.gen(kb, instr.operands[0], &Index::new(idx.lanes, dims))
}

/// `reshape` (row-major on both sides).
pub(super) fn reshape(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let operand = el.comp.instr(id).operands[0];
    let out_dims = dims_of(el, id);
    let in_dims = dims_of(el, operand);
    match reshape_index(kb, &out_dims, &in_dims, idx) {
        Some(mapped) => el.gen(kb, operand, &mapped),
        None => {
            let scalars = (0..idx.lanes)
                .map(|l| {
                    let lane_idx = idx.lane(l);
                    let mapped = reshape_index(kb, &out_dims, &in_dims, &lane_idx)
                        .expect("scalar indices always map");
                    el.gen(kb, operand, &mapped)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(super::access::pack(kb, el.ty(operand), &scalars))
        }
    }
}

/// `bitcast`: the same bytes under another shape. Same dimensions read at
/// the same index; otherwise the output index is linearized in the
/// output's physical order and split in the operand's (dense layouts).
pub(super) fn bitcast(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let src = instr.operands[0];
    let (Some(o), Some(i)) = (instr.shape.as_array(), el.comp.instr(src).shape.as_array()) else {
        return Err(Unsupported::new(Opcode::Bitcast, "bitcast of a non-array"));
    };
    let (ol, il) = (o.layout_or_default(), i.layout_or_default());
    if o.dims() == i.dims() && ol.minor_to_major == il.minor_to_major {
        return el.gen(kb, src, idx);
    }
    if !ol.is_dense() || !il.is_dense() {
        return Err(Unsupported::new(
            Opcode::Bitcast,
            "bitcast of a tiled layout",
        ));
    }
    let out_phys: Vec<usize> = ol.major_to_minor().collect();
    let in_phys: Vec<usize> = il.major_to_minor().collect();
    let phys_idx = Index::new(idx.lanes, out_phys.iter().map(|&d| idx.dims[d]).collect());
    let out_sizes: Vec<i64> = out_phys.iter().map(|&d| o.dims()[d]).collect();
    let in_sizes: Vec<i64> = in_phys.iter().map(|&d| i.dims()[d]).collect();
    let Some(mapped) = reshape_index(kb, &out_sizes, &in_sizes, &phys_idx) else {
        return el.gen_lanes(kb, id, idx);
    };
    let mut dims = vec![IndexDim::constant(0); in_phys.len()];
    for (k, &d) in in_phys.iter().enumerate() {
        dims[d] = mapped.dims[k];
    }
    el.gen(kb, src, &Index::new(idx.lanes, dims))
}

/// `slice`: operand index `start + index · stride`.
pub(super) fn slice(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let slice = instr.attrs.slice.clone().unwrap_or_default();
    let dims = idx
        .dims
        .iter()
        .zip(&slice)
        .map(|(d, s)| d.times(kb, s.stride).plus(s.start))
        .collect();
    el.gen(kb, instr.operands[0], &Index::new(idx.lanes, dims))
}

/// `reverse`: operand index `size − 1 − index` along the listed dimensions.
pub(super) fn reverse(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let rev = instr.attrs.dimensions.clone().unwrap_or_default();
    let sizes = dims_of(el, id);
    let dims = idx
        .dims
        .iter()
        .enumerate()
        .map(|(d, x)| {
            if rev.contains(&(d as i64)) {
                x.reversed(kb, sizes[d] - 1)
            } else {
                *x
            }
        })
        .collect();
    el.gen(kb, instr.operands[0], &Index::new(idx.lanes, dims))
}

/// `dynamic-slice`: operand index `clamp(start) + index`.
pub(super) fn dynamic_slice(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let src = instr.operands[0];
    let in_dims = dims_of(el, src);
    let out_dims = dims_of(el, id);
    let mut dims = Vec::with_capacity(idx.dims.len());
    for (d, x) in idx.dims.iter().enumerate() {
        let start = clamped_start(el, kb, instr.operands[d + 1], in_dims[d] - out_dims[d])?;
        let var = match x.var {
            Some(v) => kb.b.ins().iadd(v, start),
            None => start,
        };
        dims.push(IndexDim {
            var: Some(var),
            aligned: false,
            ..*x
        });
    }
    el.gen(kb, src, &Index::new(idx.lanes, dims))
}

/// A start index read from a scalar operand, sign- or zero-extended to
/// `i64` and clamped to `[0, max]`.
pub(super) fn clamped_start(
    el: &Elemental,
    kb: &mut KernelBuilder,
    operand: InstrId,
    max: i64,
) -> Result<Value, Unsupported> {
    let v = el.gen(kb, operand, &Index::scalar(1))?;
    Ok(clamp_start(kb, el.ty(operand), v, max))
}

/// The integer `v` of type `ty` as a start index: sign- or zero-extended
/// to `i64` (by `ty`'s signedness, so `u32 0xFFFFFFFF` is a large start)
/// and clamped to `[0, max]`.
pub(super) fn clamp_start(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value, max: i64) -> Value {
    let wide = match ty {
        PrimitiveType::S64 | PrimitiveType::U64 => v,
        t if t.is_signed_integral() => kb.b.ins().sextend(types::I64, v),
        _ => kb.b.ins().uextend(types::I64, v),
    };
    let max = kb.iconst(max.max(0));
    if ty.is_unsigned_integral() {
        return kb.b.ins().umin(wide, max);
    }
    let zero = kb.iconst(0);
    let lo = kb.b.ins().smax(wide, zero);
    kb.b.ins().smin(lo, max)
}

/// The operand index of a row-major reshape from `out_dims` to `in_dims`,
/// or `None` if some vector would cross a boundary of the operand's
/// dimensions (then each lane maps on its own).
///
/// Dimensions are grouped where the running products agree; a group with
/// one non-trivial dimension on each side maps directly (so `[4096] ↔
/// [4096,1]` costs nothing), others go through the linear position within
/// the group: `[6] → [2,3]` maps `i` to `(i / 3, i mod 3)`.
pub(super) fn reshape_index(
    kb: &mut KernelBuilder,
    out_dims: &[i64],
    in_dims: &[i64],
    idx: &Index,
) -> Option<Index> {
    let lanes = idx.lanes;
    let mut result = vec![IndexDim::constant(0); in_dims.len()];
    if out_dims.contains(&0) {
        // No element is ever read; the products of an empty shape's sizes
        // need not pair up (`[0] → [0,5,5]`).
        return Some(Index::new(lanes, result));
    }
    let (mut i, mut o) = (0usize, 0usize);
    while i < in_dims.len() || o < out_dims.len() {
        // One group: the shortest runs with equal products.
        let (i0, o0) = (i, o);
        let (mut pi, mut po) = (1i64, 1i64);
        loop {
            if pi == po && (i > i0 || o > o0) {
                // Absorb trailing size-1 dimensions into this group.
                let more_i = i < in_dims.len() && in_dims[i] == 1;
                let more_o = o < out_dims.len() && out_dims[o] == 1;
                if !more_i && !more_o {
                    break;
                }
            }
            if (pi <= po && i < in_dims.len()) || o >= out_dims.len() {
                if i >= in_dims.len() {
                    break;
                }
                pi *= in_dims[i];
                i += 1;
            } else {
                po *= out_dims[o];
                o += 1;
            }
        }
        let big_in: Vec<usize> = (i0..i).filter(|&d| in_dims[d] != 1).collect();
        let big_out: Vec<usize> = (o0..o).filter(|&d| out_dims[d] != 1).collect();
        if big_in.len() <= 1 && big_out.len() <= 1 {
            if let (Some(&a), Some(&b)) = (big_in.first(), big_out.first()) {
                result[a] = idx.dims[b];
            }
            continue;
        }
        // Linear position within the group (row-major over the output dims).
        let mut linear = IndexDim::constant(0);
        let mut mult = 1i64;
        let mut var: Option<Value> = None;
        let mut aligned = true;
        for &d in big_out.iter().rev() {
            let x = idx.dims[d];
            linear.offset += x.offset * mult;
            linear.lane_stride += x.lane_stride * mult;
            if let Some(v) = x.var {
                aligned &= x.aligned || mult % lanes as i64 == 0;
                let scaled = if mult == 1 {
                    v
                } else {
                    kb.b.ins().imul_imm_s(v, mult)
                };
                var = Some(match var {
                    Some(acc) => kb.b.ins().iadd(acc, scaled),
                    None => scaled,
                });
            }
            mult *= out_dims[d];
        }
        linear.var = var;
        linear.aligned = aligned;
        let innermost = *big_in.last().expect("a group with two dimensions");
        let vector_ok = lanes == 1
            || linear.lane_stride == 0
            || (linear.lane_stride == 1
                && linear.lane_aligned(lanes)
                && in_dims[innermost] % lanes as i64 == 0);
        if !vector_ok {
            return None;
        }
        let value = linear.value(kb);
        let mut div = 1i64;
        for &d in big_in.iter().rev() {
            let q = if div == 1 {
                value
            } else {
                kb.b.ins().udiv_imm_u(value, div)
            };
            let r = kb.b.ins().urem_imm_u(q, in_dims[d]);
            result[d] = IndexDim {
                var: Some(r),
                offset: 0,
                lane_stride: if d == innermost {
                    linear.lane_stride
                } else {
                    0
                },
                aligned: d == innermost,
            };
            div *= in_dims[d];
        }
    }
    Some(Index::new(lanes, result))
}

pub(super) fn iota(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let d = instr.attrs.iota_dimension.unwrap_or(0) as usize;
    let ty = el.ty(id);
    let x = idx.dims[d];
    if ty.is_integral() {
        let lane = value_type(ty, 1);
        let vty = value_type(ty, idx.lanes);
        let v = lane_values(kb, &x, if idx.lanes == 1 { lane } else { vty }, idx.lanes);
        return Ok(v);
    }
    // Floats (and pred): convert the integer iota.
    let (int_ty, int) = if ty == PrimitiveType::F64 {
        (PrimitiveType::S64, types::I64X2)
    } else {
        (PrimitiveType::S32, types::I32X4)
    };
    let vty = if idx.lanes == 1 { int.lane_type() } else { int };
    let lanes_for_int = if idx.lanes == 1 { 1 } else { idx.lanes };
    let v = lane_values(kb, &x, vty, lanes_for_int);
    convert(kb, int_ty, ty, v, idx.lanes)
}

/// The in-bounds test and clamped operand index of one padded dimension,
/// for a uniform (scalar) index value `i`.
pub(super) fn pad_dim(
    kb: &mut KernelBuilder,
    i: Value,
    low: i64,
    interior: i64,
    size: i64,
) -> (Value, Value) {
    let shifted = kb.b.ins().iadd_imm_s(i, -low);
    let zero = kb.iconst(0);
    let nonneg =
        kb.b.ins()
            .icmp(IntCC::SignedGreaterThanOrEqual, shifted, zero);
    let t = kb.b.ins().smax(shifted, zero);
    let (o, on_grid) = if interior == 0 {
        let yes = kb.b.ins().iconst(types::I8, 1);
        (t, yes)
    } else {
        let q = kb.b.ins().udiv_imm_u(t, interior + 1);
        let r = kb.b.ins().urem_imm_u(t, interior + 1);
        (q, kb.b.ins().icmp_imm_s(IntCC::Equal, r, 0))
    };
    let limit = kb.iconst(size);
    let below = kb.b.ins().icmp(IntCC::SignedLessThan, o, limit);
    let last = kb.iconst((size - 1).max(0));
    let clamped = kb.b.ins().smin(o, last);
    let inside = kb.b.ins().band(nonneg, on_grid);
    let inside = kb.b.ins().band(inside, below);
    (inside, clamped)
}

pub(super) fn pad(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let (src, value) = (instr.operands[0], instr.operands[1]);
    let config = instr.attrs.padding.clone().unwrap_or_default();
    let in_dims = dims_of(el, src);
    let lanes = idx.lanes;
    // A vector lies wholly inside or outside when, along every dimension
    // the lanes walk, the padding is aligned and there is no interior
    // padding.
    let whole_vectors = idx
        .dims
        .iter()
        .zip(&config)
        .zip(&in_dims)
        .all(|((x, p), &n)| {
            let l = lanes as i64;
            x.lane_stride == 0
                || (x.lane_stride == 1
                    && p.interior == 0
                    && x.lane_aligned(lanes)
                    && p.low.rem_euclid(l) == 0
                    && n % l == 0)
        });
    if !whole_vectors {
        return el.gen_lanes(kb, id, idx);
    }
    let mut inside = kb.b.ins().iconst(types::I8, 1);
    let mut dims = Vec::with_capacity(idx.dims.len());
    for ((x, p), &n) in idx.dims.iter().zip(&config).zip(&in_dims) {
        if p.low == 0 && p.high == 0 && p.interior == 0 {
            dims.push(*x);
            continue;
        }
        let i = x.value(kb);
        let (ok, clamped) = pad_dim(kb, i, p.low, p.interior, n);
        inside = kb.b.ins().band(inside, ok);
        dims.push(IndexDim {
            var: Some(clamped),
            offset: 0,
            lane_stride: x.lane_stride,
            aligned: false,
        });
    }
    let ty = branch_type(el.ty(id), lanes);
    let mapped = Index::new(lanes, dims);
    let r = kb.if_else(
        inside,
        &[ty],
        |kb| {
            let v = el.gen(kb, src, &mapped)?;
            Ok(vec![as_type(kb, v, ty)])
        },
        |kb| {
            let v = el.gen(kb, value, &Index::scalar(lanes))?;
            let v = super::elementwise::splat_pred(kb, v, lanes);
            Ok(vec![as_type(kb, v, ty)])
        },
    )?;
    Ok(r[0])
}

/// The block-parameter type of a branch computing `lanes` values of
/// element type `ty` (pred masks of any width as `i8x16`).
fn branch_type(ty: PrimitiveType, lanes: u32) -> cranelift_codegen::ir::Type {
    if ty == PrimitiveType::Pred && lanes > 1 {
        types::I8X16
    } else {
        value_type(ty, lanes)
    }
}

/// Makes a branch result the agreed block-parameter type (pred masks of any
/// width become `i8x16` masks).
fn as_type(kb: &mut KernelBuilder, v: Value, ty: cranelift_codegen::ir::Type) -> Value {
    if kb.ty(v) == ty {
        return v;
    }
    let m = super::repr::mask_as(kb, v, ty.lane_bits());
    kb.bitcast(ty, m)
}

/// The dimension a concatenate joins its operands along.
pub(super) fn concatenate_dim(instr: &HloInstruction) -> usize {
    instr
        .attrs
        .dimensions
        .as_ref()
        .and_then(|d| d.first())
        .copied()
        .unwrap_or(0) as usize
}

pub(super) fn concatenate(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let dim = concatenate_dim(instr);
    let lanes = idx.lanes;
    let sizes: Vec<i64> = instr
        .operands
        .iter()
        .map(|&o| dims_of(el, o)[dim])
        .collect();
    let x = idx.dims[dim];
    let l = lanes as i64;
    let whole = x.lane_stride == 0
        || (x.lane_stride == 1 && x.lane_aligned(lanes) && sizes.iter().all(|s| s % l == 0));
    if !whole {
        return el.gen_lanes(kb, id, idx);
    }
    let ty = branch_type(el.ty(id), lanes);
    let i = x.value(kb);
    concat_from(
        el,
        kb,
        instr.operands.as_slice(),
        &sizes,
        0,
        dim,
        i,
        idx,
        ty,
    )
}

#[allow(clippy::too_many_arguments)]
fn concat_from(
    el: &Elemental,
    kb: &mut KernelBuilder,
    operands: &[InstrId],
    sizes: &[i64],
    start: i64,
    dim: usize,
    i: Value,
    idx: &Index,
    ty: cranelift_codegen::ir::Type,
) -> Result<Value, Unsupported> {
    if let [operand] = operands {
        let mut at = idx.clone();
        at.dims[dim] = idx.dims[dim].plus(-start);
        let v = el.gen(kb, *operand, &at)?;
        return Ok(as_type(kb, v, ty));
    }
    // Bisect the operands: an element takes log2(n) compares to find its
    // operand, and the branches nest log2(n) deep (a chain nested n deep
    // made compile time grow with the square of n).
    let half = operands.len() / 2;
    let split = start + sizes[..half].iter().sum::<i64>();
    let end = kb.iconst(split);
    let here = kb.b.ins().icmp(IntCC::SignedLessThan, i, end);
    let (first_operands, last_operands) = operands.split_at(half);
    let (first_sizes, last_sizes) = sizes.split_at(half);
    let r = kb.if_else(
        here,
        &[ty],
        |kb| {
            let v = concat_from(el, kb, first_operands, first_sizes, start, dim, i, idx, ty)?;
            Ok(vec![v])
        },
        |kb| {
            let v = concat_from(el, kb, last_operands, last_sizes, split, dim, i, idx, ty)?;
            Ok(vec![v])
        },
    )?;
    Ok(r[0])
}

pub(super) fn dynamic_update_slice(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    if !idx.is_uniform() {
        return el.gen_lanes(kb, id, idx);
    }
    let instr = el.comp.instr(id);
    let (src, update) = (instr.operands[0], instr.operands[1]);
    let out_dims = dims_of(el, id);
    let upd_dims = dims_of(el, update);
    let lanes = idx.lanes;
    let mut inside = kb.b.ins().iconst(types::I8, 1);
    let mut dims = Vec::with_capacity(idx.dims.len());
    for (d, x) in idx.dims.iter().enumerate() {
        let start = clamped_start(el, kb, instr.operands[d + 2], out_dims[d] - upd_dims[d])?;
        let i = x.value(kb);
        let rel = kb.b.ins().isub(i, start);
        let zero = kb.iconst(0);
        let lo = kb.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, rel, zero);
        let n = kb.iconst(upd_dims[d]);
        let hi = kb.b.ins().icmp(IntCC::SignedLessThan, rel, n);
        let ok = kb.b.ins().band(lo, hi);
        inside = kb.b.ins().band(inside, ok);
        dims.push(IndexDim::uniform(rel));
    }
    let ty = branch_type(el.ty(id), lanes);
    let at = Index::new(lanes, dims);
    let r = kb.if_else(
        inside,
        &[ty],
        |kb| {
            let v = el.gen(kb, update, &at)?;
            Ok(vec![as_type(kb, v, ty)])
        },
        |kb| {
            let v = el.gen(kb, src, idx)?;
            Ok(vec![as_type(kb, v, ty)])
        },
    )?;
    Ok(r[0])
}
