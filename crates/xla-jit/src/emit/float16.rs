//! `f16` and `bf16` ↔ `f32` on bit patterns, branch-free, for scalars
//! (`i32`/`f32`) and vectors (`i32x4`/`f32x4`). The 16-bit pattern sits in
//! the low half of an `i32` lane.
//!
//! Loads and stores move bits: a 16-bit NaN widens to the `f32` NaN with
//! the same sign and payload (a signalling one stays signalling:
//! `f16 0x7C01 → f32 0x7F802000`) and narrows back to the bits it came
//! from, so a value that is only moved (`bitcast-convert`, `copy`, a
//! `select`) keeps its bits, as a bitcast must. Computing on a value
//! quiets its NaNs: [`round_to`], applied after every 16-bit operation,
//! and `convert` go through [`quiet`] first and then match the `half`
//! crate bit for bit (which `literal::convert` uses: `f32 0x7FA00000 →
//! f16 0x7F00`). Rounding is to nearest even, overflow gives ±∞, and
//! `f16` subnormals are produced with a single rounding. No step
//! creates an `f32` subnormal, so the kernels' denormals-are-zero mode does
//! not disturb the bit manipulation; an `f32` subnormal input is zero under
//! that mode (and rounds to ±0 in `f16` anyway).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use xla_core::PrimitiveType;

use super::kernel::KernelBuilder;
use super::repr::select;

/// An `i32` constant shaped like `like` (scalar or `i32x4`).
fn ci(kb: &mut KernelBuilder, like: Value, c: i64) -> Value {
    let ty = kb.ty(like);
    let v = kb.int(types::I32, c);
    if ty.is_vector() {
        kb.b.ins().splat(types::I32X4, v)
    } else {
        v
    }
}

/// An `f32` constant shaped like `like`.
fn cf(kb: &mut KernelBuilder, like: Value, c: f32) -> Value {
    let v = kb.b.ins().f32const(c);
    if kb.ty(like).is_vector() {
        kb.b.ins().splat(types::F32X4, v)
    } else {
        v
    }
}

fn float_type(like: cranelift_codegen::ir::Type) -> cranelift_codegen::ir::Type {
    if like.is_vector() {
        types::F32X4
    } else {
        types::F32
    }
}

fn int_type(like: cranelift_codegen::ir::Type) -> cranelift_codegen::ir::Type {
    if like.is_vector() {
        types::I32X4
    } else {
        types::I32
    }
}

/// `f16` bits (low 16 bits of `i32` lanes) → `f32`, exactly.
pub fn f16_to_f32(kb: &mut KernelBuilder, h: Value) -> Value {
    let ty = kb.ty(h);
    let fty = float_type(ty);
    let sign = {
        let m = ci(kb, h, 0x8000);
        let s = kb.b.ins().band(h, m);
        kb.b.ins().ishl_imm_u(s, 16)
    };
    let m7fff = ci(kb, h, 0x7FFF);
    let a = kb.b.ins().band(h, m7fff);
    // Normal numbers: rebias the exponent (127 − 15 = 112).
    let shifted = kb.b.ins().ishl_imm_u(a, 13);
    let rebias = ci(kb, h, 112 << 23);
    let normal = kb.b.ins().iadd(shifted, rebias);
    // Infinity and NaN: exponent all ones, payload kept as it is.
    let inf_bits = ci(kb, h, 0x7F80_0000);
    let m3ff = ci(kb, h, 0x3FF);
    let payload = kb.b.ins().band(a, m3ff);
    let payload = kb.b.ins().ishl_imm_u(payload, 13);
    let special = kb.b.ins().bor(inf_bits, payload);
    // Subnormals and zero: mantissa · 2^−24 (exact; the result is a normal
    // f32 or zero).
    let as_float = kb.b.ins().fcvt_from_sint(fty, a);
    let scale = cf(kb, h, 2f32.powi(-24));
    let sub = kb.b.ins().fmul(as_float, scale);
    let sub = kb.bitcast(ty, sub);
    let c7c00 = ci(kb, h, 0x7C00);
    let exp = kb.b.ins().band(a, c7c00);
    let is_special = kb.b.ins().icmp(IntCC::Equal, exp, c7c00);
    let zero = ci(kb, h, 0);
    let is_sub = kb.b.ins().icmp(IntCC::Equal, exp, zero);
    let r = select(kb, is_special, special, normal);
    let r = select(kb, is_sub, sub, r);
    let r = kb.b.ins().bor(r, sign);
    kb.bitcast(fty, r)
}

/// The NaN whose top payload bits are `top` (the 16-bit type's payload,
/// in `i32` lanes) with the exponent bits `exponent`, made quiet by
/// `quiet_bit` only when `top` is zero (the payload lived in the bits the
/// narrowing drops, and a zero payload would read as infinity).
fn narrow_nan(kb: &mut KernelBuilder, top: Value, exponent: i64, quiet_bit: i64) -> Value {
    let zero = ci(kb, top, 0);
    let q = ci(kb, top, quiet_bit);
    let lost = kb.b.ins().icmp(IntCC::Equal, top, zero);
    let q = select(kb, lost, q, zero);
    let e = ci(kb, top, exponent);
    let r = kb.b.ins().bor(top, e);
    kb.b.ins().bor(r, q)
}

/// `f32` → `f16` bits (in `i32` lanes), rounded to nearest even; a NaN
/// keeps its top payload bits (see the module's NaN rule).
pub fn f32_to_f16(kb: &mut KernelBuilder, x: Value) -> Value {
    let ity = int_type(kb.ty(x));
    let bits = kb.bitcast(ity, x);
    let sign_mask = ci(kb, bits, 0x8000_0000u32 as i32 as i64);
    let sign = kb.b.ins().band(bits, sign_mask);
    let a = kb.b.ins().bxor(bits, sign);
    let sign16 = kb.b.ins().ushr_imm_u(sign, 16);
    let nan = {
        let m = ci(kb, bits, 0x007F_FFFF);
        let man = kb.b.ins().band(a, m);
        let top = kb.b.ins().ushr_imm_u(man, 13);
        narrow_nan(kb, top, 0x7C00, 0x200)
    };
    let inf = ci(kb, bits, 0x7C00);
    // Normal results: round the mantissa at bit 13 (ties to even), then
    // rebias; a carry into the exponent is correct.
    let normal = {
        let lsb = kb.b.ins().ushr_imm_u(a, 13);
        let one = ci(kb, bits, 1);
        let lsb = kb.b.ins().band(lsb, one);
        let round = ci(kb, bits, 0x0FFF);
        let r = kb.b.ins().iadd(a, round);
        let r = kb.b.ins().iadd(r, lsb);
        let r = kb.b.ins().ushr_imm_u(r, 13);
        let rebias = ci(kb, bits, 112 << 10);
        kb.b.ins().isub(r, rebias)
    };
    // Subnormal results: adding 0.5 rounds |x| to a multiple of 2^−24.
    let sub = {
        let fa = kb.bitcast(float_type(ity), a);
        let half = cf(kb, bits, 0.5);
        let s = kb.b.ins().fadd(fa, half);
        let s = kb.bitcast(ity, s);
        let magic = ci(kb, bits, 0x3F00_0000);
        kb.b.ins().isub(s, magic)
    };
    let c_nan = ci(kb, bits, 0x7F80_0000);
    let is_nan = kb.b.ins().icmp(IntCC::SignedGreaterThan, a, c_nan);
    let c_inf = ci(kb, bits, 0x477F_F000); // 65520.0: rounds to +inf
    let is_inf = kb.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, a, c_inf);
    let c_norm = ci(kb, bits, 0x3880_0000); // 2^−14: smallest normal f16
    let is_sub = kb.b.ins().icmp(IntCC::SignedLessThan, a, c_norm);
    let r = select(kb, is_sub, sub, normal);
    let r = select(kb, is_inf, inf, r);
    let r = select(kb, is_nan, nan, r);
    kb.b.ins().bor(r, sign16)
}

/// `bf16` bits (low 16 bits of `i32` lanes) → `f32`, exactly.
pub fn bf16_to_f32(kb: &mut KernelBuilder, h: Value) -> Value {
    let fty = float_type(kb.ty(h));
    let bits = kb.b.ins().ishl_imm_u(h, 16);
    kb.bitcast(fty, bits)
}

/// `f32` → `bf16` bits (in `i32` lanes), rounded to nearest even; a NaN
/// keeps its top payload bits (see the module's NaN rule).
pub fn f32_to_bf16(kb: &mut KernelBuilder, x: Value) -> Value {
    let ity = int_type(kb.ty(x));
    let bits = kb.bitcast(ity, x);
    let top = kb.b.ins().ushr_imm_u(bits, 16);
    let nan = {
        let m = ci(kb, bits, 0x7F);
        let payload = kb.b.ins().band(top, m);
        let sign_exp = kb.b.ins().bxor(top, payload);
        let r = narrow_nan(kb, payload, 0, 0x40);
        kb.b.ins().bor(r, sign_exp)
    };
    let rounded = {
        let one = ci(kb, bits, 1);
        let lsb = kb.b.ins().band(top, one);
        let round = ci(kb, bits, 0x7FFF);
        let r = kb.b.ins().iadd(bits, round);
        let r = kb.b.ins().iadd(r, lsb);
        kb.b.ins().ushr_imm_u(r, 16)
    };
    let m = ci(kb, bits, 0x7FFF_FFFF);
    let a = kb.b.ins().band(bits, m);
    let c_nan = ci(kb, bits, 0x7F80_0000);
    let is_nan = kb.b.ins().icmp(IntCC::SignedGreaterThan, a, c_nan);
    select(kb, is_nan, nan, rounded)
}

/// `x` (`f32` lanes) with every NaN made quiet, as arithmetic would
/// leave it; other values keep their bits.
pub fn quiet(kb: &mut KernelBuilder, x: Value) -> Value {
    let ity = int_type(kb.ty(x));
    let bits = kb.bitcast(ity, x);
    let m = ci(kb, bits, 0x7FFF_FFFF);
    let a = kb.b.ins().band(bits, m);
    let c_inf = ci(kb, bits, 0x7F80_0000);
    let is_nan = kb.b.ins().icmp(IntCC::SignedGreaterThan, a, c_inf);
    let zero = ci(kb, bits, 0);
    let q = ci(kb, bits, 0x0040_0000);
    let q = select(kb, is_nan, q, zero);
    let r = kb.b.ins().bor(bits, q);
    kb.bitcast(kb.ty(x), r)
}

/// Rounds an `f32` register value to the 16-bit float type `ty` and back,
/// its NaNs made quiet (the project rule after every f16/bf16 operation);
/// other types pass unchanged.
pub fn round_to(kb: &mut KernelBuilder, ty: PrimitiveType, x: Value) -> Value {
    match ty {
        PrimitiveType::F16 => {
            let x = quiet(kb, x);
            let h = f32_to_f16(kb, x);
            f16_to_f32(kb, h)
        }
        PrimitiveType::Bf16 => {
            let x = quiet(kb, x);
            let h = f32_to_bf16(kb, x);
            bf16_to_f32(kb, h)
        }
        _ => x,
    }
}
