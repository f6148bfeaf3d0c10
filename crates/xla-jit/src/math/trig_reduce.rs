//! Range reduction by pi/2 for sin, cos and tan: `x = j pi/2 + r`,
//! `|r| <= pi/4`, in f64 lanes (f32 arguments are reduced in f64 too).
//!
//! Fast path, every lane, branch-free: `j = round(x 2/pi)` and
//! `r = x - j pi/2` with pi/2 split into 33-bit parts, so that each
//! `j * part` is exact for `|j| < 2^20` and `x - j PIO2_1` is exact by
//! Sterbenz's lemma (Cody–Waite). f64 arguments keep `r` as a double-word
//! `r + r_lo` from four parts (152 bits of pi/2: the result is accurate even
//! for the arguments closest to a multiple of pi/2); f32 arguments, whose
//! reduced values stay far enough from 0, use two parts (86 bits; the
//! exhaustive f32 measurement confirms it).
//!
//! Large path, when any lane has `|x| > 2^20` (or is infinite): the caller
//! branches, on a path not taken by ordinary data, to a copy of its code
//! that calls [`reduce_large`] for each lane of the vector: Payne–Hanek
//! reduction with 1280 bits of 2/pi in 128-bit integer arithmetic, exact to
//! about 2^-125 for every finite f64. (Keeping the call out of the fast
//! path's code keeps that code free of the spills a call forces.) The code
//! calls the function at its address in this process, so it is only valid
//! in this process, like everything the in-process JIT produces.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, Signature, StackSlotData, StackSlotKind, Value,
};

use super::coefficients::*;
use super::lanes::Lanes;

/// Reduced argument: `x = j pi/2 + r + r_lo`, `q` = `j` modulo 4 in the low
/// bits of integer lanes.
pub(super) struct Reduced {
    pub r: Value,
    pub r_lo: Value,
    pub q: Value,
}

/// Arguments above this magnitude need the large-argument reduction.
pub(super) const FAST_LIMIT: f64 = 1048576.0;

/// Reduces the f64x2 `x`; `precise` selects the double-word (f64) variant;
/// `large` replaces the lanes above [`FAST_LIMIT`] (and infinities) by the
/// Payne–Hanek reduction (the caller branches to a copy of its code with
/// `large` set when any lane needs it).
pub(super) fn reduce_pio2(l: &mut Lanes, x: Value, precise: bool, large: bool) -> Reduced {
    let (j, tb) = l.round_mul(x, TWO_OVER_PI);
    let nj = l.neg(j);
    let r1 = l.fma_c(nj, PIO2_1, x);
    let (r, r_lo) = if precise {
        let w2 = l.mul_c(j, PIO2_2);
        let nw2 = l.neg(w2);
        let (a, ea) = l.two_sum(r1, nw2);
        let w3 = l.mul_c(j, PIO2_3);
        let nw3 = l.neg(w3);
        let (b, eb) = l.two_sum(a, nw3);
        let lo = l.add(ea, eb);
        let lo = l.fma_c(nj, PIO2_4, lo);
        l.fast_two_sum(b, lo)
    } else {
        let r = l.fma_c(nj, PIO2_1T, r1);
        (r, l.c(0.0))
    };
    if !large {
        return Reduced { r, r_lo, q: tb };
    }
    let ax = l.abs(x);
    let big = l.cmp_c(FloatCC::GreaterThan, ax, FAST_LIMIT);
    let slow = reduce_lanes(l, x);
    Reduced {
        r: l.select(big, slow.r, r),
        r_lo: l.select(big, slow.r_lo, r_lo),
        q: l.select(big, slow.q, tb),
    }
}

/// Calls [`reduce_large`] on each lane of the f64x2 `x`.
fn reduce_lanes(l: &mut Lanes, x: Value) -> Reduced {
    const _: () = assert!(usize::BITS == 64, "the math library targets 64-bit hosts");
    let ptr = types::I64;
    let slot =
        l.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
    let mut sig = Signature::new(l.b.func.signature.call_conv);
    sig.params.push(AbiParam::new(types::F64));
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I64));
    let sig = l.b.import_signature(sig);
    let callee =
        l.b.ins()
            .iconst(ptr, reduce_large as *const () as usize as i64);
    let out = l.b.ins().stack_addr(ptr, slot, 0);
    let mut r = x;
    let mut r_lo = x;
    let mut q = l.ci(0);
    for lane in 0..2u8 {
        let xi = l.b.ins().extractlane(x, lane);
        let call = l.b.ins().call_indirect(sig, callee, &[xi, out]);
        let qi = l.b.inst_results(call)[0];
        let hi = l.b.ins().stack_load(ptr, types::F64, slot, 0);
        let lo = l.b.ins().stack_load(ptr, types::F64, slot, 8);
        r = l.b.ins().insertlane(r, hi, lane);
        r_lo = l.b.ins().insertlane(r_lo, lo, lane);
        q = l.b.ins().insertlane(q, qi, lane);
    }
    Reduced { r, r_lo, q }
}

/// Payne–Hanek reduction of one finite `x` with `|x| > 2^20`: writes `r` as
/// a double-word to `out[0]`, `out[1]` and returns `j mod 4`, where
/// `x = j pi/2 + r`, `|r| <= pi/4`. An infinite or NaN `x` gives a NaN `r`.
///
/// `x = m 2^e` with an integer `m < 2^53`. The bits of 2/pi worth more than
/// `2^(1-e)` only add multiples of 4 to `x 2/pi` and are skipped; the next
/// 192 bits, multiplied by `m`, give `x 2/pi mod 4` with 128 fraction bits.
extern "C" fn reduce_large(x: f64, out: *mut f64) -> i64 {
    let (hi, lo, q) = reduce_large_parts(x);
    // SAFETY: the caller passes a 16-byte, 8-aligned stack slot.
    unsafe {
        out.write(hi);
        out.add(1).write(lo);
    }
    q
}

pub(super) fn reduce_large_parts(x: f64) -> (f64, f64, i64) {
    if !x.is_finite() {
        return (f64::NAN, f64::NAN, 0);
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac_bits = bits & ((1 << 52) - 1);
    let (m, e) = if biased == 0 {
        (frac_bits, -1074)
    } else {
        (frac_bits | (1 << 52), biased - 1075)
    };
    // Window of 192 bits of 2/pi starting at bit k0 (bit 1 is worth 2^-1).
    let k0 = (e - 1).max(1);
    let w = window(k0 as usize);
    // P = m * W, 245 bits, little-endian limbs; value = P 2^t.
    let mut p = [0u64; 4];
    let mut carry = 0u128;
    for (i, &wi) in w.iter().rev().enumerate() {
        let v = u128::from(m) * u128::from(wi) + carry;
        p[i] = v as u64;
        carry = v >> 64;
    }
    p[3] = carry as u64;
    let t = e - k0 - 191;
    let b0 = (-t - 128) as u32;
    let frac = u128::from(bits_at(&p, b0)) | (u128::from(bits_at(&p, b0 + 64)) << 64);
    let int = bits_at(&p, b0 + 128) & 3;
    // Round to nearest: the fraction read as a signed number is in [-1/2, 1/2).
    let j = (int + (frac >> 127) as u64) & 3;
    let f = frac as i128;
    let mag = f.unsigned_abs();
    let hi = mag as f64;
    let lo = (mag as i128 - hi as u128 as i128) as f64;
    let scale = 2f64.powi(-128);
    let (fh, fl) = (hi * scale, lo * scale);
    let rh = fh * PIO2_HI;
    let rl = fh.mul_add(PIO2_HI, -rh) + fh.mul_add(PIO2_LO, fl * PIO2_HI);
    let (mut rh, mut rl) = (rh + rl, rl - ((rh + rl) - rh));
    if f < 0 {
        (rh, rl) = (-rh, -rl);
    }
    let mut q = j as i64;
    if x < 0.0 {
        (rh, rl) = (-rh, -rl);
        q = (4 - q) & 3;
    }
    (rh, rl, q)
}

/// 192 bits of 2/pi starting at bit `k0` (1-based), most significant word
/// first.
fn window(k0: usize) -> [u64; 3] {
    let i0 = k0 - 1;
    let (wi, sh) = (i0 / 64, i0 % 64);
    let word = |i: usize| TWO_OVER_PI_BITS.get(i).copied().unwrap_or(0);
    let mut w = [0u64; 3];
    for (j, wj) in w.iter_mut().enumerate() {
        *wj = if sh == 0 {
            word(wi + j)
        } else {
            (word(wi + j) << sh) | (word(wi + j + 1) >> (64 - sh))
        };
    }
    w
}

/// The 64 bits of the little-endian 256-bit `p` starting at bit `pos`.
fn bits_at(p: &[u64; 4], pos: u32) -> u64 {
    let (i, sh) = ((pos / 64) as usize, pos % 64);
    let limb = |k: usize| p.get(k).copied().unwrap_or(0);
    if sh == 0 {
        limb(i)
    } else {
        (limb(i) >> sh) | (limb(i + 1) << (64 - sh))
    }
}

#[cfg(test)]
mod tests {
    use super::reduce_large_parts;

    /// `sin` from the reduced argument, for checking against `std`.
    fn sin_via(x: f64) -> f64 {
        let (r, lo, q) = reduce_large_parts(x);
        let r = r + lo;
        match q {
            0 => r.sin(),
            1 => r.cos(),
            2 => -r.sin(),
            _ => -r.cos(),
        }
    }

    #[test]
    fn reduces_large_arguments() {
        // sin(1e22) = -0.8522008497671888 (a classic range-reduction test).
        assert_eq!(sin_via(1e22), -0.8522008497671888);
        // 6381956970095103 * 2^797 is the f64 closest to a multiple of pi/2.
        let hardest = 6381956970095103.0 * 2f64.powi(797);
        for x in [
            2f64.powi(20) + 0.5,
            3.3e6,
            1e15,
            1e100,
            -1e200,
            hardest,
            f64::MAX,
            f32::MAX as f64,
        ] {
            let want = x.sin();
            let got = sin_via(x);
            assert!(
                (got - want).abs() <= 2e-16 * want.abs().max(1e-300),
                "sin({x}) = {got}, want {want}"
            );
        }
        assert!(reduce_large_parts(f64::INFINITY).0.is_nan());
    }
}
