//! `convert` and `reduce-precision` on register values (`docs/semantics.md`,
//! *Convert*, *Reduce-precision*).
//!
//! | from → to | how |
//! |---|---|
//! | int → int | sign/zero extension by the source, truncation (wrap) |
//! | int → f32, f64 | `fcvt_from_{s,u}int` (round to nearest even) |
//! | int ≤ 16 bits → f16/bf16 | via f32 (exact), one rounding |
//! | int 32/64 bits → f16 | via f32: below 2^24 exact, above both roundings overflow to ±∞ |
//! | int 32/64 bits → bf16, f64 → f16/bf16 | host helper (one rounding) |
//! | float → float | f32 register rounding (`f16`, `bf16`), `fpromote`/`fdemote` |
//! | float → int | `fcvt_to_{s,u}int_sat` (truncate, saturate, NaN → 0), then clamp |
//! | any → pred | `x != 0` |
//! | pred → any | 0 or 1 |
//! | real → complex, complex → real or complex | by components (`complex.rs`) |
//!
//! Same-width integer↔integer and f32↔32-bit-int conversions run on
//! vectors; the others run lane by lane in vector loops.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::PrimitiveType;

use super::complex;
use super::elementwise::{const_like, const_of};
use super::float16::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16, quiet, round_to};
use super::host;
use super::kernel::KernelBuilder;
use super::repr::{lane_type, mask_as, per_lane, select, Const};
use super::Unsupported;
use xla_core::Opcode;

use PrimitiveType as P;

fn is_small_float(t: PrimitiveType) -> bool {
    matches!(t, P::F16 | P::Bf16 | P::F32)
}

/// `convert` from `from` to `to` of the register value `x` at `lanes`.
pub(super) fn convert(
    kb: &mut KernelBuilder,
    from: PrimitiveType,
    to: PrimitiveType,
    x: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    if from == to {
        return Ok(x);
    }
    if from.is_complex() || to.is_complex() {
        return complex::convert(kb, from, to, x, lanes);
    }
    if to == P::Pred {
        return Ok(if from.is_floating() {
            let zero = const_like(kb, x, Const::Float(0.0));
            kb.b.ins().fcmp(FloatCC::NotEqual, x, zero)
        } else if from == P::Pred {
            x
        } else {
            let zero = const_like(kb, x, Const::Bits(0));
            kb.b.ins().icmp(IntCC::NotEqual, x, zero)
        });
    }
    if from == P::Pred {
        return Ok(from_pred(kb, to, x, lanes));
    }
    let vector = lanes > 1;
    let scalar = |kb: &mut KernelBuilder, f: &dyn Fn(&mut KernelBuilder, Value) -> Value| {
        per_lane(kb, lanes, &[(x, from)], to, |kb, a| f(kb, a[0]))
    };
    Ok(match (from.is_floating(), to.is_floating()) {
        (true, true) => float_to_float(kb, from, to, x, lanes),
        (false, true) => {
            let same_width = lane_type(from).bits() == 32 && to == P::F32;
            if vector && same_width {
                int_to_float(kb, from, types::F32X4, x)
            } else if to == P::Bf16 && from.byte_size() >= 4 {
                scalar(kb, &|kb, v| wide_int_to_bf16(kb, from, v))
            } else {
                let target = if to == P::F64 { types::F64 } else { types::F32 };
                let r = scalar(kb, &|kb, v| int_to_float(kb, from, target, v));
                round_to(kb, to, r)
            }
        }
        (true, false) => {
            let small = is_small_float(from);
            if vector && small && matches!(to, P::S32 | P::U32) {
                float_to_int_lanes(kb, to, types::I32X4, x)
            } else {
                let t = lane_type(to);
                scalar(kb, &|kb, v| float_to_int(kb, to, t, v))
            }
        }
        (false, false) => {
            let (fb, tb) = (from.byte_size(), to.byte_size());
            if fb == tb {
                x
            } else {
                let t = lane_type(to);
                let signed = from.is_signed_integral();
                scalar(kb, &|kb, v| {
                    if tb < fb {
                        kb.b.ins().ireduce(t, v)
                    } else if signed {
                        kb.b.ins().sextend(t, v)
                    } else {
                        kb.b.ins().uextend(t, v)
                    }
                })
            }
        }
    })
}

fn from_pred(kb: &mut KernelBuilder, to: PrimitiveType, x: Value, lanes: u32) -> Value {
    let lane = lane_type(to);
    if lanes == 1 {
        return if to.is_floating() {
            let one = const_of(kb, lane, Const::Float(1.0));
            let zero = const_of(kb, lane, Const::Float(0.0));
            kb.b.ins().select(x, one, zero)
        } else if lane == types::I8 {
            x
        } else {
            kb.b.ins().uextend(lane, x)
        };
    }
    let m = mask_as(kb, x, lane.bits());
    let vty = crate::clif::vector_of(lane);
    if to.is_floating() {
        let one = const_of(kb, vty, Const::Float(1.0));
        let zero = const_of(kb, vty, Const::Float(0.0));
        select(kb, m, one, zero)
    } else {
        let one = const_of(kb, vty, Const::Bits(1));
        kb.b.ins().band(m, one)
    }
}

fn float_to_float(
    kb: &mut KernelBuilder,
    from: PrimitiveType,
    to: PrimitiveType,
    x: Value,
    lanes: u32,
) -> Value {
    match (is_small_float(from), to) {
        // A 16-bit value is held in f32 with its NaN bits as loaded;
        // converting computes, so those NaNs become quiet.
        (true, P::F32) => quiet(kb, x),
        (true, P::F16 | P::Bf16) => round_to(kb, to, x),
        (true, _) => {
            // f16, bf16 and f32 values are held in f32. Under the kernels'
            // DAZ an f32 (or bf16) subnormal promotes to ±0, as f32 → f64
            // must (the rule of `docs/semantics.md`, *Flush to zero*; XLA:CPU flushes bf16 → f64
            // too); f16 subnormals are normal f32 values and widen exactly.
            if lanes > 1 {
                kb.b.ins().fvpromote_low(x)
            } else {
                kb.b.ins().fpromote(types::F64, x)
            }
        }
        (false, P::F32) => {
            if lanes > 1 {
                kb.b.ins().fvdemote(x)
            } else {
                kb.b.ins().fdemote(types::F32, x)
            }
        }
        (false, _) => {
            let f = if to == P::F16 {
                host::f64_to_f16 as extern "C" fn(f64) -> u16 as usize
            } else {
                host::f64_to_bf16 as extern "C" fn(f64) -> u16 as usize
            };
            per_lane(kb, lanes, &[(x, from)], to, |kb, a| {
                let bits = kb.call_host(f, &[types::F64], &[types::I16], a)[0];
                let bits = kb.b.ins().uextend(types::I32, bits);
                if to == P::F16 {
                    f16_to_f32(kb, bits)
                } else {
                    bf16_to_f32(kb, bits)
                }
            })
        }
    }
}

fn int_to_float(kb: &mut KernelBuilder, from: PrimitiveType, target: Type, v: Value) -> Value {
    if from.is_signed_integral() {
        kb.b.ins().fcvt_from_sint(target, v)
    } else {
        kb.b.ins().fcvt_from_uint(target, v)
    }
}

fn wide_int_to_bf16(kb: &mut KernelBuilder, from: PrimitiveType, v: Value) -> Value {
    let signed = from.is_signed_integral();
    let wide = if from.byte_size() == 8 {
        v
    } else if signed {
        kb.b.ins().sextend(types::I64, v)
    } else {
        kb.b.ins().uextend(types::I64, v)
    };
    let f = if signed {
        host::s64_to_bf16 as extern "C" fn(i64) -> u16 as usize
    } else {
        host::u64_to_bf16 as extern "C" fn(u64) -> u16 as usize
    };
    let bits = kb.call_host(f, &[types::I64], &[types::I16], &[wide])[0];
    let bits = kb.b.ins().uextend(types::I32, bits);
    bf16_to_f32(kb, bits)
}

/// Scalar float → integer: truncate, saturate, NaN → 0.
fn float_to_int(kb: &mut KernelBuilder, to: PrimitiveType, t: Type, v: Value) -> Value {
    let signed = to.is_signed_integral();
    let via = if t.bits() < 32 { types::I32 } else { t };
    let r = if signed {
        kb.b.ins().fcvt_to_sint_sat(via, v)
    } else {
        kb.b.ins().fcvt_to_uint_sat(via, v)
    };
    if via == t {
        return r;
    }
    let (lo, hi) = if signed {
        (-(1i64 << (t.bits() - 1)), (1i64 << (t.bits() - 1)) - 1)
    } else {
        (0, (1i64 << t.bits()) - 1)
    };
    let r = if signed {
        let lo = kb.int(types::I32, lo);
        let r = kb.b.ins().smax(r, lo);
        let hi = kb.b.ins().iconst(types::I32, hi);
        kb.b.ins().smin(r, hi)
    } else {
        let hi = kb.b.ins().iconst(types::I32, hi);
        kb.b.ins().umin(r, hi)
    };
    kb.b.ins().ireduce(t, r)
}

fn float_to_int_lanes(kb: &mut KernelBuilder, to: PrimitiveType, t: Type, v: Value) -> Value {
    if to.is_signed_integral() {
        kb.b.ins().fcvt_to_sint_sat(t, v)
    } else {
        kb.b.ins().fcvt_to_uint_sat(t, v)
    }
}

/// `reduce-precision` by the bit algorithm of `docs/semantics.md`, *Reduce-precision*, on the
/// element type's own bit pattern.
pub(super) fn reduce_precision(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    x: Value,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Value, Unsupported> {
    let (e_src, m_src) = ty
        .float_bits()
        .map(|(e, m)| (e as i64, m as i64))
        .ok_or_else(|| Unsupported::new(Opcode::ReducePrecision, "not a float type"))?;
    let width = e_src + m_src + 1;
    let fty = kb.ty(x);
    let bits = match ty {
        P::F16 => f32_to_f16(kb, x),
        P::Bf16 => f32_to_bf16(kb, x),
        _ => kb.bitcast(fty.as_int(), x),
    };
    let c = |kb: &mut KernelBuilder, v: u64| const_like(kb, bits, Const::Bits(v));
    let full = c(kb, u64::MAX >> (64 - width));
    let sign_bit = 1u64 << (width - 1);
    let abs_mask = c(kb, sign_bit - 1);
    let exp_mask_v = ((1u64 << e_src) - 1) << m_src;
    let abs = kb.b.ins().band(bits, abs_mask);
    let exp_mask = c(kb, exp_mask_v);
    let is_nan = kb.b.ins().icmp(IntCC::SignedGreaterThan, abs, exp_mask);
    let mut v = bits;
    if mantissa_bits < m_src {
        let shift = m_src - mantissa_bits;
        let last_bit_mask = 1u64 << shift;
        let base_bias = (last_bit_mask >> 1).wrapping_sub(1);
        let lbm = c(kb, last_bit_mask);
        let last = kb.b.ins().band(v, lbm);
        let last = kb.b.ins().ushr_imm_u(last, shift);
        let bias = c(kb, base_bias);
        let sum = kb.b.ins().iadd(v, last);
        let sum = kb.b.ins().iadd(sum, bias);
        let keep = c(kb, !(last_bit_mask - 1));
        let r = kb.b.ins().band(sum, keep);
        v = kb.b.ins().band(r, full);
    }
    if exponent_bits < e_src {
        let bias = (1u64 << (e_src - 1)) - 1;
        let red_bias = (1u64 << (exponent_bits - 1)) - 1;
        let max_exp = c(kb, (bias + red_bias) << m_src);
        let min_exp = c(kb, (bias - red_bias) << m_src);
        let e = kb.b.ins().band(v, exp_mask);
        let sb = c(kb, sign_bit);
        let sign = kb.b.ins().band(v, sb);
        let inf = kb.b.ins().bor(sign, exp_mask);
        let over = kb.b.ins().icmp(IntCC::SignedGreaterThan, e, max_exp);
        let under = kb.b.ins().icmp(IntCC::SignedLessThanOrEqual, e, min_exp);
        let r = select(kb, under, sign, v);
        v = select(kb, over, inf, r);
    }
    let v = select(kb, is_nan, bits, v);
    Ok(match ty {
        P::F16 => f16_to_f32(kb, v),
        P::Bf16 => bf16_to_f32(kb, v),
        _ => kb.bitcast(fty, v),
    })
}
