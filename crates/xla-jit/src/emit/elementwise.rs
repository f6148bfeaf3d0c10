//! Elementwise ops on register values (`docs/semantics.md`,
//! *Element-wise operations*): arithmetic, comparisons, select and clamp,
//! bitwise ops and shifts, for every real element type. One op on values
//! already computed; `elemental.rs` decides which values (an instruction at
//! an index) and calls here.
//!
//! Floats follow IEEE 754 with the kernels' flush-to-zero mode (MXCSR
//! DAZ+FTZ, see `crate::ftz`); ops whose result is *selected* rather than
//! computed (max, min, rounding functions, sign) flush explicitly, since the
//! hardware mode only affects arithmetic. `f16`/`bf16` values are `f32`
//! registers rounded back to their type after every computing op. Integer
//! division and remainder follow the project rules (`x/0 = −1`,
//! `x rem 0 = x`, `MIN/−1 = MIN`, `MIN rem −1 = 0`) and never trap.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::hlo::{ComparisonDirection, ComparisonType, HloInstruction};
use xla_core::{Opcode, PrimitiveType};

use super::complex;
use super::float16::round_to;
use super::host;
use super::kernel::KernelBuilder;
use super::ops::{op_of, Binary, Op, Unary};
use super::repr::{mask_as, per_lane, select, splat, Const};
use super::{transcendental, Unsupported};

/// A constant of register type `ty` (scalar or vector).
pub(super) fn const_of(kb: &mut KernelBuilder, ty: Type, c: Const) -> Value {
    let lane = ty.lane_type();
    let scalar = match (lane, c) {
        (types::F32, Const::Float(v)) => kb.b.ins().f32const(v as f32),
        (types::F64, Const::Float(v)) => kb.b.ins().f64const(v),
        (types::F32, Const::Bits(v)) => kb.b.ins().f32const(f32::from_bits(v as u32)),
        (types::F64, Const::Bits(v)) => kb.b.ins().f64const(f64::from_bits(v)),
        (t, Const::Bits(v)) => kb.int(t, v as i64),
        (t, Const::Float(v)) => kb.int(t, v as i64),
    };
    if ty.is_vector() {
        kb.b.ins().splat(ty, scalar)
    } else {
        scalar
    }
}

/// A constant shaped like `like` (same scalar or vector type).
pub(super) fn const_like(kb: &mut KernelBuilder, like: Value, c: Const) -> Value {
    let ty = kb.ty(like);
    const_of(kb, ty, c)
}

/// `|a|` with the sign of `b`, on bits (Cranelift's `fcopysign` has no
/// x86-64 vector lowering).
pub(super) fn copysign(kb: &mut KernelBuilder, a: Value, b: Value) -> Value {
    let ty = kb.ty(a);
    let ity = ty.as_int();
    let sign_bit = if ty.lane_type() == types::F32 {
        0x8000_0000u64
    } else {
        1 << 63
    };
    let (ab, bb) = (kb.bitcast(ity, a), kb.bitcast(ity, b));
    let s = const_like(kb, ab, Const::Bits(sign_bit));
    let magnitude = kb.b.ins().band_not(ab, s);
    let sign = kb.b.ins().band(bb, s);
    let r = kb.b.ins().bor(magnitude, sign);
    kb.bitcast(ty, r)
}

/// Replaces subnormal floats by zeros of the same sign (works on bits, so
/// it does not depend on the MXCSR mode and keeps NaN and ±∞).
pub(super) fn flush(kb: &mut KernelBuilder, x: Value) -> Value {
    if kb.is_flushed(x) {
        return x;
    }
    let ty = kb.ty(x);
    let ity = ty.as_int();
    let bits = kb.bitcast(ity, x);
    let (abs_mask, min_normal, sign_mask) = if ty.lane_type() == types::F32 {
        (0x7FFF_FFFFu64, 0x0080_0000u64, 0x8000_0000u64)
    } else {
        (i64::MAX as u64, 0x0010_0000_0000_0000, 1 << 63)
    };
    let m = const_like(kb, bits, Const::Bits(abs_mask));
    let abs = kb.b.ins().band(bits, m);
    let min = const_like(kb, bits, Const::Bits(min_normal));
    let keep = kb.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, abs, min);
    let s = const_like(kb, bits, Const::Bits(sign_mask));
    let sign = kb.b.ins().band(bits, s);
    let r = select(kb, keep, bits, sign);
    let r = kb.bitcast(ty, r);
    kb.mark_flushed(r);
    r
}

/// Emits an elementwise instruction on its operands' register values.
/// `tys` are the operands' element types; `lanes` the lane count.
pub(super) fn emit(
    kb: &mut KernelBuilder,
    instr: &HloInstruction,
    tys: &[PrimitiveType],
    args: &[Value],
    lanes: u32,
) -> Result<Value, Unsupported> {
    let out = instr.shape.element_type().expect("an array result");
    let t = tys[0];
    let op = op_of(instr.opcode);
    if (t.is_complex() || out.is_complex()) && !matches!(op, Op::Select) {
        return complex::emit(kb, instr, tys, args, lanes);
    }
    match op {
        Op::Unary(u) => unary(kb, u, t, out, args[0], lanes),
        Op::Binary(b) => binary(kb, b, t, args[0], args[1], lanes),
        Op::Compare => {
            let dir = instr
                .attrs
                .comparison_direction
                .ok_or_else(|| Unsupported::new(Opcode::Compare, "no comparison direction"))?;
            Ok(compare(
                kb,
                dir,
                instr.attrs.comparison_type,
                t,
                args[0],
                args[1],
            ))
        }
        Op::Select => Ok(select(kb, args[0], args[1], args[2])),
        Op::Clamp => {
            // Against constant bounds, two selections and at most one flush
            // (see `max_min_by_constant`).
            let lo = binary(kb, Binary::Maximum, t, args[0], args[1], lanes)?;
            binary(kb, Binary::Minimum, t, lo, args[2], lanes)
        }
        Op::Convert
        | Op::BitcastConvert
        | Op::ReducePrecision
        | Op::Map
        | Op::Complex
        | Op::Other => Err(Unsupported::new(instr.opcode, "not a plain elementwise op")),
    }
}

fn is_float(ty: PrimitiveType) -> bool {
    ty.is_floating()
}

/// A unary op; `t` is the operand type, `out` the result type.
pub(super) fn unary(
    kb: &mut KernelBuilder,
    op: Unary,
    t: PrimitiveType,
    out: PrimitiveType,
    x: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    use Unary::*;
    let undefined = || Unsupported {
        op: None,
        what: format!("{op:?} is not defined on {}", t.name()),
    };
    if is_float(t) {
        return Ok(match op {
            Abs => kb.b.ins().fabs(x),
            Negate => kb.b.ins().fneg(x),
            Ceil => {
                let x = flush(kb, x);
                kb.b.ins().ceil(x)
            }
            Floor => {
                let x = flush(kb, x);
                kb.b.ins().floor(x)
            }
            RoundNearestEven => {
                let x = flush(kb, x);
                kb.b.ins().nearest(x)
            }
            RoundNearestAfz => round_afz(kb, x),
            Sign => {
                let x = flush(kb, x);
                let zero = const_like(kb, x, Const::Float(0.0));
                let one = const_like(kb, x, Const::Float(1.0));
                let minus = const_like(kb, x, Const::Float(-1.0));
                let pos = kb.b.ins().fcmp(FloatCC::GreaterThan, x, zero);
                let neg = kb.b.ins().fcmp(FloatCC::LessThan, x, zero);
                let r = select(kb, neg, minus, x);
                select(kb, pos, one, r)
            }
            Sqrt => {
                let r = kb.b.ins().sqrt(x);
                round_to(kb, out, r)
            }
            Rsqrt => {
                let s = kb.b.ins().sqrt(x);
                let one = const_like(kb, x, Const::Float(1.0));
                let r = kb.b.ins().fdiv(one, s);
                round_to(kb, out, r)
            }
            IsFinite => {
                let ity = kb.ty(x).as_int();
                let bits = kb.bitcast(ity, x);
                let exp = if ity.lane_type() == types::I32 {
                    0x7F80_0000u64
                } else {
                    0x7FF0_0000_0000_0000
                };
                let m = const_like(kb, bits, Const::Bits(exp));
                let e = kb.b.ins().band(bits, m);
                kb.b.ins().icmp(IntCC::NotEqual, e, m)
            }
            Real => x,
            Imag => const_like(kb, x, Const::Float(0.0)),
            Math(f) if transcendental::flushes_subnormals(f, kb.ty(x).lane_type()) => {
                let r = transcendental::unary(kb, f, x)?;
                round_to(kb, out, r)
            }
            Math(f) => {
                let x = flush(kb, x);
                let r = transcendental::unary(kb, f, x)?;
                let r = flush(kb, r);
                round_to(kb, out, r)
            }
            Not | PopulationCount | Clz => return Err(undefined()),
        });
    }
    if t == PrimitiveType::Pred {
        let vector = kb.ty(x).is_vector();
        return match op {
            Not if vector => Ok(kb.b.ins().bnot(x)),
            Not => Ok(kb.b.ins().bxor_imm_u(x, 1)),
            Real => Ok(x),
            Imag => Ok(const_like(kb, x, Const::Bits(0))),
            Abs | Negate | Ceil | Floor | RoundNearestEven | RoundNearestAfz | Sign | Sqrt
            | Rsqrt | IsFinite | PopulationCount | Clz | Math(_) => Err(undefined()),
        };
    }
    let signed = t.is_signed_integral();
    let wide = kb.ty(x).lane_bits() == 64;
    let vector = kb.ty(x).is_vector();
    Ok(match op {
        Negate => kb.b.ins().ineg(x),
        Not => kb.b.ins().bnot(x),
        Abs if vector && wide => per_lane(kb, lanes, &[(x, t)], out, |kb, a| kb.b.ins().iabs(a[0])),
        Abs => kb.b.ins().iabs(x),
        Sign if signed => per_lane(kb, lanes, &[(x, t)], out, |kb, a| {
            let ty = kb.ty(a[0]);
            let one = kb.int(ty, 1);
            let minus = kb.int(ty, -1);
            let r = kb.b.ins().smin(a[0], one);
            kb.b.ins().smax(r, minus)
        }),
        Clz => per_lane(kb, lanes, &[(x, t)], out, |kb, a| kb.b.ins().clz(a[0])),
        PopulationCount if vector => vector_popcnt(kb, x),
        PopulationCount => per_lane(kb, lanes, &[(x, t)], out, |kb, a| kb.b.ins().popcnt(a[0])),
        Real => x,
        Imag => const_like(kb, x, Const::Bits(0)),
        Sign | Ceil | Floor | RoundNearestEven | RoundNearestAfz | Sqrt | Rsqrt | IsFinite
        | Math(_) => return Err(undefined()),
    })
}

/// Round half away from zero: `trunc(x)`, plus `±1` when the dropped part
/// is at least one half (selected, so `−0.3` stays `−0`).
fn round_afz(kb: &mut KernelBuilder, x: Value) -> Value {
    let x = flush(kb, x);
    let t = kb.b.ins().trunc(x);
    let d = kb.b.ins().fsub(x, t);
    let d = kb.b.ins().fabs(d);
    let half = const_like(kb, x, Const::Float(0.5));
    let round_up = kb.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
    let one = const_like(kb, x, Const::Float(1.0));
    let step = copysign(kb, one, x);
    let up = kb.b.ins().fadd(t, step);
    select(kb, round_up, up, t)
}

/// `max(value, c)` or `min(value, c)` of a float vector and a constant
/// splat `c`, in one `maxps`/`minps` where Cranelift's `fmax`/`fmin` take
/// eight instructions to order ±0 and propagate NaN (`jnp.clip`, ReLU,
/// thresholds); `None` when `c` is not such a constant, or is NaN,
/// subnormal, or −0 for a min (kept in the general form).
///
/// `(value < c) ? c : value` for max and `(c < value) ? c : value` for min
/// are the shapes Cranelift lowers to `maxps c, value` / `minps c, value`,
/// which return `value` when it is NaN or equal to `c`. The compare reads
/// a subnormal `value` as zero (DAZ), so a selected one is then flushed,
/// unless the bound keeps every result normal (a positive bound of a max,
/// a negative one of a min) or `value` is flushed already. ReLU, max with
/// +0, adds +0 to the selection: that turns the −0 `maxps` keeps into +0
/// and, in the kernels' DAZ+FTZ mode, flushes a subnormal.
fn max_min_by_constant(
    kb: &mut KernelBuilder,
    max: bool,
    value: Value,
    constant: Value,
) -> Option<Value> {
    let ty = kb.ty(value);
    if !ty.is_vector() {
        return None;
    }
    let bits = kb.uniform_constant(constant)?;
    let (c, min_normal) = match ty.lane_type() {
        types::F32 => (
            f64::from(f32::from_bits(bits as u32)),
            f64::from(f32::MIN_POSITIVE),
        ),
        types::F64 => (f64::from_bits(bits), f64::MIN_POSITIVE),
        _ => return None,
    };
    let zero = c == 0.0;
    if c.is_nan() || (!zero && c.abs() < min_normal) || (zero && !max && c.is_sign_negative()) {
        return None;
    }
    let (a, b) = if max {
        (value, constant)
    } else {
        (constant, value)
    };
    let lt = kb.b.ins().fcmp(FloatCC::LessThan, a, b);
    let mask = kb.bitcast(ty, lt);
    let r = kb.b.ins().bitselect(mask, constant, value);
    let r = if zero && max && c.is_sign_positive() {
        kb.b.ins().fadd(r, constant)
    } else if kb.is_flushed(value) || (max && c > 0.0) || (!max && c < 0.0) {
        r
    } else {
        return Some(flush(kb, r));
    };
    kb.mark_flushed(r);
    Some(r)
}

/// A binary arithmetic, bitwise or shift op on operands of type `t`.
pub(super) fn binary(
    kb: &mut KernelBuilder,
    op: Binary,
    t: PrimitiveType,
    x: Value,
    y: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    use Binary::*;
    let undefined = || Unsupported {
        op: None,
        what: format!("{op:?} is not defined on {}", t.name()),
    };
    if is_float(t) {
        let r = match op {
            Add => kb.b.ins().fadd(x, y),
            Subtract => kb.b.ins().fsub(x, y),
            Multiply => kb.b.ins().fmul(x, y),
            Divide => kb.b.ins().fdiv(x, y),
            Maximum | Minimum => {
                let max = op == Maximum;
                let by_constant = max_min_by_constant(kb, max, x, y)
                    .or_else(|| max_min_by_constant(kb, max, y, x));
                if let Some(r) = by_constant {
                    return Ok(r);
                }
                let r = if max {
                    kb.b.ins().fmax(x, y)
                } else {
                    kb.b.ins().fmin(x, y)
                };
                return Ok(flush(kb, r));
            }
            Remainder => {
                let lane = kb.ty(x).lane_type();
                let f = if lane == types::F32 {
                    host::fmod_f32 as extern "C" fn(f32, f32) -> f32 as usize
                } else {
                    host::fmod_f64 as extern "C" fn(f64, f64) -> f64 as usize
                };
                let (fx, fy) = (flush(kb, x), flush(kb, y));
                let r = per_lane(kb, lanes, &[(fx, t), (fy, t)], t, |kb, a| {
                    kb.call_host(f, &[lane, lane], &[lane], a)[0]
                });
                flush(kb, r)
            }
            Power | Atan2 => {
                let (fx, fy) = (flush(kb, x), flush(kb, y));
                let r = transcendental::binary(kb, op, fx, fy)?;
                flush(kb, r)
            }
            And | Or | Xor | ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => {
                return Err(undefined())
            }
        };
        return Ok(round_to(kb, t, r));
    }
    if t == PrimitiveType::Pred {
        let y = if kb.ty(x).is_vector() {
            let bits = kb.ty(x).lane_bits();
            mask_as(kb, y, bits)
        } else {
            y
        };
        return Ok(match op {
            And | Minimum | Multiply => kb.b.ins().band(x, y),
            Or | Maximum | Add => kb.b.ins().bor(x, y),
            Xor => kb.b.ins().bxor(x, y),
            Subtract | Divide | Remainder | ShiftLeft | ShiftRightLogical
            | ShiftRightArithmetic | Power | Atan2 => return Err(undefined()),
        });
    }
    let signed = t.is_signed_integral();
    let ty = kb.ty(x);
    let vector = ty.is_vector();
    let lane_bits = ty.lane_bits();
    let scalarize = |kb: &mut KernelBuilder,
                     f: &dyn Fn(&mut KernelBuilder, Value, Value) -> Value| {
        per_lane(kb, lanes, &[(x, t), (y, t)], t, |kb, a| f(kb, a[0], a[1]))
    };
    Ok(match op {
        Add => kb.b.ins().iadd(x, y),
        Subtract => kb.b.ins().isub(x, y),
        Multiply if vector && lane_bits == 8 => scalarize(kb, &|kb, a, b| kb.b.ins().imul(a, b)),
        Multiply => kb.b.ins().imul(x, y),
        And => kb.b.ins().band(x, y),
        Or => kb.b.ins().bor(x, y),
        Xor => kb.b.ins().bxor(x, y),
        Maximum | Minimum if vector && lane_bits == 64 => {
            scalarize(kb, &|kb, a, b| int_max_min(kb, op, signed, a, b))
        }
        Maximum | Minimum => int_max_min(kb, op, signed, x, y),
        Divide | Remainder => match kb.uniform_constant(y) {
            // A constant divisor that no rule special-cases: plain scalar
            // division by an `iconst`, which Cranelift turns into a
            // multiply by its magic number and shifts.
            Some(d) if divides_plainly(d, lane_bits, signed) => scalarize(kb, &|kb, a, _| {
                let c = kb.int(kb.ty(a), d as i64);
                match (op, signed) {
                    (Divide, true) => kb.b.ins().sdiv(a, c),
                    (Divide, false) => kb.b.ins().udiv(a, c),
                    (_, true) => kb.b.ins().srem(a, c),
                    (_, false) => kb.b.ins().urem(a, c),
                }
            }),
            _ => scalarize(kb, &|kb, a, b| int_div_rem(kb, op, signed, a, b)),
        },
        ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => {
            match (kb.uniform_constant(y), kb.splat_source(y)) {
                // A constant amount: one vector shift by an immediate.
                (Some(amount), _) if vector => shift_by_constant(kb, op, x, amount),
                // The same amount in every lane: one vector shift.
                (_, Some(amount)) if vector => shift(kb, op, x, amount),
                _ => scalarize(kb, &|kb, a, b| shift(kb, op, a, b)),
            }
        }
        Power => scalarize(kb, &|kb, a, b| int_pow(kb, signed, a, b)),
        Atan2 => return Err(undefined()),
    })
}

fn int_max_min(kb: &mut KernelBuilder, op: Binary, signed: bool, a: Value, b: Value) -> Value {
    match (op, signed) {
        (Binary::Maximum, true) => kb.b.ins().smax(a, b),
        (Binary::Maximum, false) => kb.b.ins().umax(a, b),
        (_, true) => kb.b.ins().smin(a, b),
        (_, false) => kb.b.ins().umin(a, b),
    }
}

/// Whether the divisor with lane bits `d` (of `bits` bits) needs none of
/// the division rules' special cases: not 0, and not −1 when signed.
fn divides_plainly(d: u64, bits: u32, signed: bool) -> bool {
    let mask = u64::MAX >> (64 - bits);
    let d = d & mask;
    d != 0 && !(signed && d == mask)
}

/// Scalar integer division or remainder by the project rules, without
/// trapping: the divisor is replaced by 1 where it is 0 or where the
/// quotient would overflow, and the special results are selected.
fn int_div_rem(kb: &mut KernelBuilder, op: Binary, signed: bool, x: Value, y: Value) -> Value {
    let ty = kb.ty(x);
    let zero = kb.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
    let mut bad = zero;
    if signed {
        let min = kb.int(ty, i64::MIN >> (64 - ty.bits()));
        let is_min = kb.b.ins().icmp(IntCC::Equal, x, min);
        let minus_one = kb.int(ty, -1);
        let minus = kb.b.ins().icmp(IntCC::Equal, y, minus_one);
        let overflow = kb.b.ins().band(is_min, minus);
        bad = kb.b.ins().bor(zero, overflow);
    }
    let one = kb.b.ins().iconst(ty, 1);
    let safe = kb.b.ins().select(bad, one, y);
    // With divisor 1: MIN / 1 = MIN and MIN rem 1 = 0, as the rules want.
    match (op, signed) {
        (Binary::Divide, s) => {
            let q = if s {
                kb.b.ins().sdiv(x, safe)
            } else {
                kb.b.ins().udiv(x, safe)
            };
            let all_ones = kb.int(ty, -1);
            kb.b.ins().select(zero, all_ones, q)
        }
        (_, s) => {
            let r = if s {
                kb.b.ins().srem(x, safe)
            } else {
                kb.b.ins().urem(x, safe)
            };
            kb.b.ins().select(zero, x, r)
        }
    }
}

/// Scalar shift; the amount is unsigned, and amounts of at least the bit
/// width give 0 (left, logical) or the sign fill (arithmetic).
/// Shift of `x` (a scalar, or a vector shifted by the scalar `amount` in
/// every lane); the amount is unsigned, and amounts of at least the bit
/// width give 0 (left, logical) or the sign fill (arithmetic).
fn shift(kb: &mut KernelBuilder, op: Binary, x: Value, amount: Value) -> Value {
    let ty = kb.ty(x);
    let width = ty.lane_bits() as i64;
    let too_far =
        kb.b.ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, amount, width);
    let zero = const_like(kb, x, Const::Bits(0));
    match op {
        Binary::ShiftLeft => {
            let s = kb.b.ins().ishl(x, amount);
            kb.b.ins().select(too_far, zero, s)
        }
        Binary::ShiftRightLogical => {
            let s = kb.b.ins().ushr(x, amount);
            kb.b.ins().select(too_far, zero, s)
        }
        _ => {
            let s = kb.b.ins().sshr(x, amount);
            let fill = kb.b.ins().sshr_imm_u(x, width - 1);
            kb.b.ins().select(too_far, fill, s)
        }
    }
}

/// Population count of every lane of the integer vector `x`: the byte
/// counts (one vector instruction sequence for `i8x16`), then the bytes of
/// each lane summed by shifting and adding: `c + (c >> 8)`, `+ (c >> 16)`,
/// `+ (c >> 32)`, masked to the lane's count.
fn vector_popcnt(kb: &mut KernelBuilder, x: Value) -> Value {
    let ty = kb.ty(x);
    let bytes = kb.bitcast(types::I8X16, x);
    let counts = kb.b.ins().popcnt(bytes);
    let mut c = kb.bitcast(ty, counts);
    let bits = ty.lane_bits();
    let mut width = 8;
    while width < bits {
        let shifted = kb.b.ins().ushr_imm_u(c, i64::from(width));
        c = kb.b.ins().iadd(c, shifted);
        width *= 2;
    }
    if bits == 8 {
        return c;
    }
    let mask = const_like(kb, c, Const::Bits(u64::from(2 * bits - 1)));
    kb.b.ins().band(c, mask)
}

/// Shift of the vector `x` by the constant `amount` (unsigned) in every
/// lane: amounts of at least the lane width give 0 (left, logical) or the
/// sign fill (arithmetic).
fn shift_by_constant(kb: &mut KernelBuilder, op: Binary, x: Value, amount: u64) -> Value {
    let width = u64::from(kb.ty(x).lane_bits());
    match op {
        Binary::ShiftLeft | Binary::ShiftRightLogical if amount >= width => {
            const_like(kb, x, Const::Bits(0))
        }
        Binary::ShiftLeft => kb.b.ins().ishl_imm_u(x, amount as i64),
        Binary::ShiftRightLogical => kb.b.ins().ushr_imm_u(x, amount as i64),
        _ => {
            let amount = amount.min(width - 1);
            kb.b.ins().sshr_imm_u(x, amount as i64)
        }
    }
}

/// Scalar integer power through the host helper.
fn int_pow(kb: &mut KernelBuilder, signed: bool, x: Value, y: Value) -> Value {
    let ty = kb.ty(x);
    let widen = |kb: &mut KernelBuilder, v: Value| -> Value {
        if ty == types::I64 {
            v
        } else if signed {
            kb.b.ins().sextend(types::I64, v)
        } else {
            kb.b.ins().uextend(types::I64, v)
        }
    };
    let (wx, wy) = (widen(kb, x), widen(kb, y));
    let s = kb.b.ins().iconst(types::I8, signed as i64);
    let bits = kb.b.ins().iconst(types::I32, ty.bits() as i64);
    let f = host::ipow as extern "C" fn(i64, i64, bool, u32) -> i64 as usize;
    let r = kb.call_host(
        f,
        &[types::I64, types::I64, types::I8, types::I32],
        &[types::I64],
        &[wx, wy, s, bits],
    )[0];
    if ty == types::I64 {
        r
    } else {
        kb.b.ins().ireduce(ty, r)
    }
}

/// A comparison of operands of type `t`; the result is a pred (0/1 or a
/// mask as wide as the operands' lanes).
pub(super) fn compare(
    kb: &mut KernelBuilder,
    dir: ComparisonDirection,
    kind: Option<ComparisonType>,
    t: PrimitiveType,
    x: Value,
    y: Value,
) -> Value {
    use ComparisonDirection as D;
    let total = kind == Some(ComparisonType::TotalOrder);
    if is_float(t) && !total {
        let cc = match dir {
            D::Eq => FloatCC::Equal,
            D::Ne => FloatCC::NotEqual,
            D::Lt => FloatCC::LessThan,
            D::Le => FloatCC::LessThanOrEqual,
            D::Gt => FloatCC::GreaterThan,
            D::Ge => FloatCC::GreaterThanOrEqual,
        };
        return kb.b.ins().fcmp(cc, x, y);
    }
    let (x, y, signed) = if is_float(t) {
        (total_order_key(kb, x), total_order_key(kb, y), true)
    } else if t == PrimitiveType::Pred && kb.ty(x).is_vector() {
        let bits = kb.ty(x).lane_bits();
        let y = mask_as(kb, y, bits);
        // Masks are 0 / −1: compare them as signed with the order reversed.
        (y, x, true)
    } else {
        (x, y, t.is_signed_integral())
    };
    let cc = match (dir, signed) {
        (D::Eq, _) => IntCC::Equal,
        (D::Ne, _) => IntCC::NotEqual,
        (D::Lt, true) => IntCC::SignedLessThan,
        (D::Le, true) => IntCC::SignedLessThanOrEqual,
        (D::Gt, true) => IntCC::SignedGreaterThan,
        (D::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (D::Lt, false) => IntCC::UnsignedLessThan,
        (D::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (D::Gt, false) => IntCC::UnsignedGreaterThan,
        (D::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
    };
    kb.b.ins().icmp(cc, x, y)
}

/// The signed key of the float total order (`docs/semantics.md`, *Comparisons*): the bits
/// as a signed integer, with all bits but the sign flipped when negative.
pub(super) fn total_order_key(kb: &mut KernelBuilder, x: Value) -> Value {
    let ity: Type = kb.ty(x).as_int();
    let bits = kb.bitcast(ity, x);
    let width = ity.lane_bits() as i64;
    let sign = kb.b.ins().sshr_imm_u(bits, width - 1);
    let flip = kb.b.ins().ushr_imm_u(sign, 1);
    kb.b.ins().bxor(bits, flip)
}

/// The register value of a pred operand splatted to `lanes` (used for
/// scalar predicates of vector selects).
pub(super) fn splat_pred(kb: &mut KernelBuilder, p: Value, lanes: u32) -> Value {
    if lanes == 1 || kb.ty(p).is_vector() {
        return p;
    }
    let m = kb.b.ins().ineg(p);
    splat(kb, m, lanes)
}
