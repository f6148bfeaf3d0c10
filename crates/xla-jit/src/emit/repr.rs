//! How element values live in registers inside a kernel.
//!
//! A kernel evaluates its generators at `lanes` consecutive output positions
//! at once (1 in scalar tails). An element of type `T` is held in the lane
//! type [`lane_type`]`(T)`: integers in their own width, `f16`/`bf16`/`f32`
//! in `f32` (16-bit floats are computed in f32 and rounded back after every
//! operation), `f64` in `f64`, complex values as one integer holding their
//! bytes (`c64` in `i64`, `c128` in `i128`), and `pred` as `i8` 0/1. With `lanes > 1` a
//! value is a 128-bit vector of that lane type whose first `lanes` lanes are
//! meaningful (an `i8` value in a 4-lane kernel uses 4 of the 16 lanes of an
//! `i8x16`), except `pred`, which is a lane *mask* (all ones or all zeros)
//! of whatever integer width produced it: a compare of `f32x4` gives an
//! `i32x4` mask; consumers convert masks with [`mask_as`].
//!
//! Example: in a 4-lane kernel `s8[] x` at positions `i..i+4` is an `i8x16`
//! whose lanes 0–3 hold `x[i..i+4]`; `f16` values are `f32x4`; `x > 0` on
//! `f32x4` is an `i32x4` mask.

use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::PrimitiveType;

use super::kernel::KernelBuilder;
use crate::clif::vector_of;

/// The register lane type of an element type. A complex element is one
/// integer lane holding its bytes (`c64` an `i64`, `c128` an `i128`; see
/// `complex.rs`), so data movement needs nothing special for it.
pub fn lane_type(ty: PrimitiveType) -> Type {
    use PrimitiveType as P;
    match ty {
        P::Pred | P::S8 | P::U8 => types::I8,
        P::S16 | P::U16 => types::I16,
        P::S32 | P::U32 => types::I32,
        P::S64 | P::U64 => types::I64,
        P::F16 | P::Bf16 | P::F32 => types::F32,
        P::F64 => types::F64,
        P::C64 => types::I64,
        P::C128 => types::I128,
    }
}

/// The register type of a (non-pred) element type at `lanes` lanes (`c128`
/// only at one lane: [`lanes_for`] gives 1 for kernels computing it).
pub fn value_type(ty: PrimitiveType, lanes: u32) -> Type {
    let lane = lane_type(ty);
    if lanes == 1 {
        lane
    } else {
        vector_of(lane)
    }
}

/// The number of lanes of a kernel computing values of `types`: a 128-bit
/// vector of the widest lane type (4 for f32, 2 for f64 and c64, 16 for
/// u8, 1 for c128).
pub fn lanes_for(types: impl IntoIterator<Item = PrimitiveType>) -> u32 {
    let widest = types
        .into_iter()
        .map(lane_type)
        .map(|t| t.bits())
        .max()
        .unwrap_or(32);
    128 / widest
}

/// `v` (a scalar) in every lane (`v` itself when `lanes == 1`). A
/// constant `v` comes from the kernel's constant table, so that the
/// instruction using it reads it as a memory operand.
pub fn splat(kb: &mut KernelBuilder, v: Value, lanes: u32) -> Value {
    if lanes == 1 {
        return v;
    }
    let ty = vector_of(kb.ty(v));
    match kb.constant_bits(v) {
        Some(bits) => {
            let width = ty.lane_bits() as usize / 8;
            let lane = &bits.to_le_bytes()[..width];
            let bytes: Vec<u8> = lane.iter().copied().cycle().take(16).collect();
            let bytes = bytes.try_into().expect("16 bytes");
            kb.consts.load(kb.b, ty, bytes)
        }
        None => kb.b.ins().splat(ty, v),
    }
}

/// The constant `x` of element type `ty` in its register form (floats as
/// `f32`/`f64`, integers truncated to their width, pred as 0/1 or a mask).
///
/// A subnormal f32 or f64 constant is built from its bits (`bitcast` of an
/// integer constant): Cranelift's mid-end folds scalar float arithmetic on
/// float constants in IEEE arithmetic, where the kernels' DAZ+FTZ mode
/// reads a subnormal as zero (`rsqrt(1e-40)` would be `1e20`, not `inf`,
/// in scalar tails).
pub fn constant(kb: &mut KernelBuilder, ty: PrimitiveType, x: Const, lanes: u32) -> Value {
    let lane = lane_type(ty);
    let scalar = match (lane, x) {
        (types::F32, Const::Float(v)) => {
            float_constant(kb, types::F32, u64::from((v as f32).to_bits()))
        }
        (types::F64, Const::Float(v)) => float_constant(kb, types::F64, v.to_bits()),
        (t @ (types::F32 | types::F64), Const::Bits(v)) => float_constant(kb, t, v),
        (t, Const::Bits(v)) => kb.int(t, v as i64),
        (t, Const::Float(v)) => kb.int(t, v as i64),
    };
    super::access::splat_elem(kb, ty, scalar, lanes)
}

/// The `f32` or `f64` scalar with bit pattern `bits`; see [`constant`].
fn float_constant(kb: &mut KernelBuilder, ty: Type, bits: u64) -> Value {
    let subnormal = if ty == types::F32 {
        let v = f32::from_bits(bits as u32);
        v != 0.0 && v.is_subnormal()
    } else {
        let v = f64::from_bits(bits);
        v != 0.0 && v.is_subnormal()
    };
    match (ty, subnormal) {
        (types::F32, false) => kb.b.ins().f32const(f32::from_bits(bits as u32)),
        (types::F64, false) => kb.b.ins().f64const(f64::from_bits(bits)),
        _ => {
            let i = kb.int(ty.as_int(), bits as i64);
            kb.bitcast(ty, i)
        }
    }
}

/// A compile-time constant: a float value or raw bits (integers, or float
/// bit patterns).
#[derive(Copy, Clone, Debug)]
pub enum Const {
    /// A float value (also used for small integers).
    Float(f64),
    /// Raw bits, truncated to the lane width.
    Bits(u64),
}

/// Lane `l` of `v` (`v` itself for scalars).
pub fn lane(kb: &mut KernelBuilder, v: Value, l: u32) -> Value {
    if !kb.ty(v).is_vector() {
        debug_assert_eq!(l, 0);
        return v;
    }
    kb.b.ins().extractlane(v, l as u8)
}

/// A vector of `lanes` scalars (the scalar itself when `lanes == 1`); the
/// lanes past `scalars.len()` are zero.
pub fn from_lanes(kb: &mut KernelBuilder, scalars: &[Value]) -> Value {
    if scalars.len() == 1 {
        return scalars[0];
    }
    let ty = vector_of(kb.ty(scalars[0]));
    let zero = kb.vconst(ty, vec![0; 16]);
    scalars
        .iter()
        .enumerate()
        .fold(zero, |v, (l, &s)| kb.b.ins().insertlane(v, s, l as u8))
}

/// A pred mask `m` as lanes of `bits` bits (sign-extending or taking the
/// low bytes of each lane); scalars are returned unchanged.
pub fn mask_as(kb: &mut KernelBuilder, m: Value, bits: u32) -> Value {
    let ty = kb.ty(m);
    if !ty.is_vector() {
        return m;
    }
    let ty = ty.as_int();
    let m = kb.bitcast(ty, m);
    let have = ty.lane_bits();
    if have == bits {
        return m;
    }
    if have < bits {
        let mut v = m;
        let mut w = have;
        while w < bits {
            v = kb.b.ins().swiden_low(v);
            w *= 2;
        }
        return v;
    }
    let (from, to) = ((have / 8) as usize, (bits / 8) as usize);
    let mut mask = [0u8; 16];
    for (j, byte) in mask.iter_mut().enumerate() {
        let (l, k) = (j / to, j % to);
        *byte = if l * from < 16 {
            (l * from + k) as u8
        } else {
            0
        };
    }
    let narrowed = kb.shuffle_bytes(m, m, mask);
    kb.bitcast(
        types::Type::int(bits as u16)
            .expect("lane width")
            .by(128 / bits)
            .expect("vector"),
        narrowed,
    )
}

/// `v` as register type `ty`: pred masks are re-widened (a generic
/// reducer may return a mask of another width than its accumulator's);
/// other values must already have type `ty`.
pub fn fit(kb: &mut KernelBuilder, v: Value, ty: Type) -> Value {
    if kb.ty(v) == ty || !ty.is_vector() {
        return v;
    }
    let m = mask_as(kb, v, ty.lane_bits());
    kb.bitcast(ty, m)
}

/// `cond ? a : b` lane by lane, for a pred `cond` (0/1 scalar or mask).
/// Pred `a` and `b` may be masks of different widths (a compare of s32
/// and a pred read from memory): `b` is made `a`'s.
///
/// Floats are selected on their integer view: Cranelift lowers a float
/// select (`bitselect`) by `fcmp lt x y` between `x` and `y` to
/// `minss`/`minps` (`maxss`/`maxps`), which return a subnormal operand
/// flushed to zero under DAZ, where a select moves its bits unchanged.
pub fn select(kb: &mut KernelBuilder, cond: Value, a: Value, b: Value) -> Value {
    let ty = kb.ty(a);
    if ty.lane_type().is_float() {
        let ity = ty.as_int();
        let (ai, bi) = (kb.bitcast(ity, a), kb.bitcast(ity, b));
        let r = select(kb, cond, ai, bi);
        return kb.bitcast(ty, r);
    }
    if !ty.is_vector() {
        return kb.b.ins().select(cond, a, b);
    }
    let b = fit(kb, b, ty);
    let m = mask_as(kb, cond, ty.lane_bits());
    let m = kb.bitcast(ty, m);
    kb.b.ins().bitselect(m, a, b)
}

/// Converts a scalar pred (0/1 in any integer type, or a lane of a mask:
/// 0/−1) to the pred register form of one lane: `i8` 0/1.
pub fn scalar_pred(kb: &mut KernelBuilder, v: Value) -> Value {
    if kb.ty(v) == types::I8 {
        return kb.b.ins().band_imm_u(v, 1);
    }
    kb.b.ins()
        .icmp_imm_s(cranelift_codegen::ir::condcodes::IntCC::NotEqual, v, 0)
}

/// Evaluates a scalar computation lane by lane: `f` receives lane `l` of
/// every argument (pred masks as 0/1 `i8`) and returns the lane's result
/// (pred results as 0/1); the results are packed into a vector (pred
/// results into an `i8x16` mask).
pub fn per_lane(
    kb: &mut KernelBuilder,
    lanes: u32,
    args: &[(Value, PrimitiveType)],
    out: PrimitiveType,
    mut f: impl FnMut(&mut KernelBuilder, &[Value]) -> Value,
) -> Value {
    if lanes == 1 {
        let scalars: Vec<Value> = args.iter().map(|&(v, _)| v).collect();
        return f(kb, &scalars);
    }
    let mut results = Vec::with_capacity(lanes as usize);
    for l in 0..lanes {
        let scalars: Vec<Value> = args
            .iter()
            .map(|&(v, ty)| {
                let x = lane(kb, v, l);
                if ty == PrimitiveType::Pred {
                    scalar_pred(kb, x)
                } else {
                    x
                }
            })
            .collect();
        let r = f(kb, &scalars);
        let r = if out == PrimitiveType::Pred {
            let r = scalar_pred(kb, r);
            kb.b.ins().ineg(r)
        } else {
            r
        };
        results.push(r);
    }
    from_lanes(kb, &results)
}
