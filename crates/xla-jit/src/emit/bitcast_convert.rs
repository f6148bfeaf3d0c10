//! `bitcast-convert` (`docs/semantics.md`, *Bitcast-convert*): the same bits under another
//! element type. Between types of one width it is a register
//! reinterpretation (through the raw bits for `f16`/`bf16`, which live in
//! `f32` registers, and `pred`); across widths each element's raw bits are
//! shifted out of (or into) the wider element, little-endian, in vectors
//! where the lanes allow.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::hlo::InstrId;
use xla_core::{Opcode, PrimitiveType};

use super::elemental::Elemental;
use super::elementwise::const_like;
use super::float16::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::repr::{lane_type, mask_as, Const};
use super::Unsupported;
use crate::clif::vector_of;

use PrimitiveType as P;

/// `bitcast-convert` between types of the same width.
pub(super) fn bitcast_convert(
    kb: &mut KernelBuilder,
    from: PrimitiveType,
    to: PrimitiveType,
    x: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    if from == to {
        return Ok(x);
    }
    if from.byte_size() != to.byte_size() || from.is_complex() || to.is_complex() {
        return Err(Unsupported::new(
            Opcode::BitcastConvert,
            format!("{} to {} changes the element width", from.name(), to.name()),
        ));
    }
    // Take the value to its raw bits in integer lanes of its own width…
    let bits = match from {
        P::F16 | P::Bf16 => {
            let b32 = if from == P::F16 {
                f32_to_f16(kb, x)
            } else {
                f32_to_bf16(kb, x)
            };
            if lanes > 1 {
                kb.b.ins().unarrow(b32, b32)
            } else {
                kb.b.ins().ireduce(types::I16, b32)
            }
        }
        P::F32 | P::F64 => {
            let ity = kb.ty(x).as_int();
            kb.bitcast(ity, x)
        }
        P::Pred => {
            if lanes > 1 {
                let m = mask_as(kb, x, 8);
                let one = const_like(kb, m, Const::Bits(1));
                kb.b.ins().band(m, one)
            } else {
                x
            }
        }
        _ => x,
    };
    // …and from raw bits to the target's register form.
    Ok(match to {
        P::F16 | P::Bf16 => {
            let wide = if lanes > 1 {
                kb.b.ins().uwiden_low(bits)
            } else {
                kb.b.ins().uextend(types::I32, bits)
            };
            if to == P::F16 {
                f16_to_f32(kb, wide)
            } else {
                bf16_to_f32(kb, wide)
            }
        }
        P::F32 | P::F64 => {
            let fty = if lanes > 1 {
                crate::clif::vector_of(lane_type(to))
            } else {
                lane_type(to)
            };
            kb.bitcast(fty, bits)
        }
        P::Pred => {
            let zero = const_like(kb, bits, Const::Bits(0));
            kb.b.ins().icmp(IntCC::NotEqual, bits, zero)
        }
        _ => bits,
    })
}

/// `bitcast-convert` `id` between element types of different widths
/// (`docs/semantics.md`, *Bitcast-convert*). With `B = size(from)` and `B' = size(to)` in
/// bytes, little-endian: if `B > B'` the result has a new minor-most
/// dimension and output `(i…, j)` is bytes `[j·B', (j+1)·B')` of operand
/// element `(i…)`; if `B < B'` the operand's last dimension (size `B'/B`)
/// is gathered: output `(i…)` holds operand `(i…, j)` in bytes
/// `[j·B, (j+1)·B)`.
/// Example: `f32 1.0` (bits `0x3F800000`) → `f16[2]` bits `[0x0000, 0x3F80]`.
pub(super) fn bitcast_convert_resized(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let src = el.comp.instr(id).operands[0];
    let (from, to) = (el.ty(src), el.ty(id));
    // Complex elements are opaque integers; `c128` kernels are scalar.
    if idx.lanes > 1 && (from.is_complex() || to.is_complex()) {
        return el.gen_lanes(kb, id, idx);
    }
    if from.byte_size() > to.byte_size() {
        narrow(el, kb, id, idx)
    } else {
        widen(el, kb, id, idx)
    }
}

/// The `B > B'` case. A vector runs when its lanes walk the new dimension
/// inside one operand element (`k = B/B'` parts, lane 0 at a multiple of
/// the lane count, which divides `k`): one load, one shift, and the
/// shifted bits reinterpreted as a vector of `B'`-byte lanes. Example:
/// `f32 → u8[4]` at 4 lanes: the `f32`'s bits as the low `i32` of an
/// `i32x4`, read as an `i8x16` whose lanes 0–3 are its bytes. Other
/// vectors run lane by lane.
fn narrow(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let src = el.comp.instr(id).operands[0];
    let (from, to) = (el.ty(src), el.ty(id));
    let (b, b2) = (from.byte_size() as i64, to.byte_size() as i64);
    let lanes = idx.lanes;
    let Some((j, outer)) = idx.dims.split_last() else {
        return Err(Unsupported::new(
            Opcode::BitcastConvert,
            "narrowing to a rank-0 result",
        ));
    };
    let one_element = lanes == 1
        || (j.lane_stride == 1
            && j.lane_aligned(lanes)
            && (b / b2) % lanes as i64 == 0
            && outer.iter().all(|d| d.lane_stride == 0));
    if !one_element {
        return el.gen_lanes(kb, id, idx);
    }
    let x = el.gen(kb, src, &Index::new(1, outer.to_vec()))?;
    let wide = raw_bits(kb, from, x, 1)?;
    let shifted = match j.var {
        None => kb.b.ins().ushr_imm_u(wide, j.offset * 8 * b2),
        Some(_) => {
            let j = j.value(kb);
            let shift = kb.b.ins().imul_imm_s(j, 8 * b2);
            kb.b.ins().ushr(wide, shift)
        }
    };
    let bits = if lanes == 1 {
        kb.b.ins().ireduce(raw_type(b2), shifted)
    } else {
        let v = kb.b.ins().scalar_to_vector(vector_of(raw_type(b)), shifted);
        kb.bitcast(vector_of(raw_type(b2)), v)
    };
    from_raw_bits(kb, to, bits, lanes)
}

/// The `B < B'` case: the `k = B'/B` parts of each output element are
/// evaluated at the output's lanes (vectors of `B`-byte lanes), widened to
/// `B'`-byte lanes, shifted into place and combined.
fn widen(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let src = el.comp.instr(id).operands[0];
    let (from, to) = (el.ty(src), el.ty(id));
    let (b, b2) = (from.byte_size() as i64, to.byte_size() as i64);
    let lanes = idx.lanes;
    let mut acc = None;
    for j in 0..b2 / b {
        let mut dims = idx.dims.clone();
        dims.push(IndexDim::constant(j));
        let x = el.gen(kb, src, &Index::new(lanes, dims))?;
        let narrow = raw_bits(kb, from, x, lanes)?;
        let wide = if lanes == 1 {
            kb.b.ins().uextend(raw_type(b2), narrow)
        } else {
            let mut v = narrow;
            let mut width = b;
            while width < b2 {
                v = kb.b.ins().uwiden_low(v);
                width *= 2;
            }
            v
        };
        let part = kb.b.ins().ishl_imm_u(wide, j * 8 * b);
        acc = Some(match acc {
            None => part,
            Some(a) => kb.b.ins().bor(a, part),
        });
    }
    let bits = acc.expect("a wider type holds at least one element");
    from_raw_bits(kb, to, bits, lanes)
}

/// The integer register type of `bytes` raw bytes.
fn raw_type(bytes: i64) -> Type {
    Type::int(8 * bytes as u16).expect("1 to 16 bytes")
}

/// The unsigned integer element type of `ty`'s width (complex types are
/// their own raw bits).
fn raw_element(ty: PrimitiveType) -> PrimitiveType {
    match ty.byte_size() {
        1 => P::U8,
        2 => P::U16,
        4 => P::U32,
        8 if !ty.is_complex() => P::U64,
        _ => ty,
    }
}

/// The raw bits of an element value (integers of the type's width) at
/// `lanes` lanes.
fn raw_bits(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    x: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    bitcast_convert(kb, ty, raw_element(ty), x, lanes)
}

/// An element value from its raw bits at `lanes` lanes.
fn from_raw_bits(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    bits: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    bitcast_convert(kb, raw_element(ty), ty, bits, lanes)
}
