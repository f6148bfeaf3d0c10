//! Host functions kernels call for rare scalar operations that have no
//! short instruction sequence: floating remainder (C `fmod`), integer
//! power, the conversions whose single rounding needs more than one
//! hardware step (`f64` and wide integers → `f16`/`bf16`), and complex
//! division, `abs` and transcendentals. Each is exactly the rule of
//! `docs/semantics.md` (conversions call `literal::convert` and complex ops the
//! interpreter's table, the one place those rules live), so kernels agree
//! with the interpreter bit for bit. They run per element, in vector loops
//! once per lane; [`topk_row`] runs once per row of a top-k.

use xla_core::half::{bf16, f16};
use xla_core::interp::{complex_op_c128, complex_op_c64};
use xla_core::literal::convert::convert_value;
use xla_core::{NativeType, Opcode, C128, C64};

use crate::ftz::without_ftz;

/// The top `k` of a row of `n` order keys, as positions: leaves in
/// `positions[..k]` the positions of the `k` greatest keys, greatest first
/// and, among equal keys, lowest position first (the stable order `topk`
/// wants). The kernel passes its row's scratch: `n` keys and `n`
/// positions, `0 < k ≤ n < 2^31`.
///
/// A few of many (`16·k ≤ n`, a sampler's top 50 of a 50257-token
/// vocabulary) are kept in a heap whose worst key every other key is
/// compared with once, in order: a sequential scan, where the selection
/// below moves positions around the whole row (the top 50 of
/// 64 rows of 50257 on two threads: 5.4 → 2.0–2.2 ms). Otherwise
/// the positions `0..n` are selected around the `k`-th, then the `k`
/// sorted: `O(n + k log k)`.
pub extern "C" fn topk_row(keys: *const u64, n: i64, k: i64, positions: *mut i32) {
    let (n, k) = (n as usize, k as usize);
    // SAFETY: the kernel passes `n` initialized keys and room for `n`
    // positions, disjoint, in its scratch buffer.
    let (keys, positions) = unsafe {
        (
            std::slice::from_raw_parts(keys, n),
            std::slice::from_raw_parts_mut(positions, n),
        )
    };
    if k > 0 && 16 * k <= n {
        return topk_by_heap(keys, k, positions);
    }
    for (i, p) in positions.iter_mut().enumerate() {
        *p = i as i32;
    }
    let order = |a: &i32, b: &i32| keys[*b as usize].cmp(&keys[*a as usize]).then(a.cmp(b));
    if k == 0 {
        return;
    }
    if k < n {
        positions.select_nth_unstable_by(k - 1, order);
    }
    positions[..k].sort_unstable_by(order);
}

/// [`topk_row`] for `k` of many: a heap of the best `k` so far, its worst
/// (the least key, and among equal keys the last position) on top; a
/// later key equal to the worst is worse, as its position is greater.
fn topk_by_heap(keys: &[u64], k: usize, positions: &mut [i32]) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut best: BinaryHeap<(Reverse<u64>, i32)> = keys[..k]
        .iter()
        .zip(0..)
        .map(|(&key, p)| (Reverse(key), p))
        .collect();
    let mut worst = best.peek().map_or(0, |w| w.0 .0);
    for (&key, p) in keys[k..].iter().zip(k as i32..) {
        if key > worst {
            if let Some(mut top) = best.peek_mut() {
                *top = (Reverse(key), p);
            }
            worst = best.peek().map_or(0, |w| w.0 .0);
        }
    }
    for (slot, (_, p)) in positions.iter_mut().zip(best.into_sorted_vec()) {
        *slot = p;
    }
}

/// `fmod(x, y)` on `f32`.
pub extern "C" fn fmod_f32(x: f32, y: f32) -> f32 {
    x % y
}

/// `fmod(x, y)` on `f64`.
pub extern "C" fn fmod_f64(x: f64, y: f64) -> f64 {
    x % y
}

/// Integer power by squaring, wrapping; a negative exponent gives 0 unless
/// the base is ±1 (`docs/semantics.md`, *Element-wise arithmetic* `Pow`). Operands are sign- or
/// zero-extended to 64 bits by the caller; `bits` is the type's width, the
/// result is truncated to it.
pub extern "C" fn ipow(base: i64, exp: i64, signed: bool, bits: u32) -> i64 {
    let negative = signed && exp < 0;
    if negative {
        return match base {
            1 => 1,
            -1 if exp % 2 == 0 => 1,
            -1 => -1,
            _ => 0,
        };
    }
    let mut result: i64 = 1;
    let mut b = base;
    let mut e = exp as u64;
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    let shift = 64 - bits;
    if shift == 0 {
        result
    } else if signed {
        (result << shift) >> shift
    } else {
        ((result as u64) << shift >> shift) as i64
    }
}

/// The conversion under the default floating-point mode: the kernel's
/// flush-to-zero mode would flush the `f32` subnormals that `bf16`
/// results can be.
fn to_bits<S: NativeType, D: NativeType + HalfBits>(x: S) -> u16 {
    without_ftz(|| {
        convert_value::<S, D>(x)
            .expect("numeric conversions to f16/bf16 always exist")
            .bits()
    })
}

/// The bit pattern of a 16-bit float.
trait HalfBits {
    fn bits(self) -> u16;
}

impl HalfBits for f16 {
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

impl HalfBits for bf16 {
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

/// `f64` → `f16` bits, one rounding.
pub extern "C" fn f64_to_f16(x: f64) -> u16 {
    to_bits::<f64, f16>(x)
}

/// `f64` → `bf16` bits, one rounding.
pub extern "C" fn f64_to_bf16(x: f64) -> u16 {
    to_bits::<f64, bf16>(x)
}

/// `s64` → `bf16` bits, one rounding.
pub extern "C" fn s64_to_bf16(x: i64) -> u16 {
    to_bits::<i64, bf16>(x)
}

/// `u64` → `bf16` bits, one rounding.
pub extern "C" fn u64_to_bf16(x: u64) -> u16 {
    to_bits::<u64, bf16>(x)
}

/// The interpreter's complex op `Opcode::ALL[op]` on `c64` values packed
/// as `re | im << 32` (bit patterns), under the default floating-point
/// mode (the interpreter flushes subnormals itself). Unary ops read `a`;
/// `abs`, `real` and `imag` return `(result, 0)`. Ops the interpreter does
/// not define on `c64` (which the emitters never call) give NaNs.
pub extern "C" fn complex_c64(op: u32, a: u64, b: u64) -> u64 {
    let unpack = |v: u64| C64::new(f32::from_bits(v as u32), f32::from_bits((v >> 32) as u32));
    let z = without_ftz(|| complex_op_c64(Opcode::ALL[op as usize], unpack(a), unpack(b)))
        .unwrap_or(C64::new(f32::NAN, f32::NAN));
    u64::from(z.re.to_bits()) | u64::from(z.im.to_bits()) << 32
}

/// [`complex_c64`] on `c128` values given by their components; returns the
/// result's real part (`part` 0) or imaginary part (`part` 1).
pub extern "C" fn complex_c128(op: u32, part: u32, ar: f64, ai: f64, br: f64, bi: f64) -> f64 {
    let (a, b) = (C128::new(ar, ai), C128::new(br, bi));
    let z = without_ftz(|| complex_op_c128(Opcode::ALL[op as usize], a, b))
        .unwrap_or(C128::new(f64::NAN, f64::NAN));
    if part == 0 {
        z.re
    } else {
        z.im
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_helpers_compute_the_interpreters_values() {
        let pack = |re: f32, im: f32| u64::from(re.to_bits()) | u64::from(im.to_bits()) << 32;
        let index = |op: Opcode| Opcode::ALL.iter().position(|&o| o == op).unwrap() as u32;
        // (11 + 2i) / (3 − 4i) = 1 + 2i; |3 − 4i| = 5.
        let q = complex_c64(index(Opcode::Divide), pack(11.0, 2.0), pack(3.0, -4.0));
        assert_eq!(q, pack(1.0, 2.0));
        assert_eq!(
            complex_c64(index(Opcode::Abs), pack(3.0, -4.0), 0),
            pack(5.0, 0.0)
        );
        let op = index(Opcode::Divide);
        assert_eq!(complex_c128(op, 0, 11.0, 2.0, 3.0, -4.0), 1.0);
        assert_eq!(complex_c128(op, 1, 11.0, 2.0, 3.0, -4.0), 2.0);
        // Not defined on complex values: NaNs.
        let max = complex_c64(index(Opcode::Maximum), pack(1.0, 0.0), pack(2.0, 0.0));
        assert!(f32::from_bits(max as u32).is_nan());
    }

    #[test]
    fn integer_power() {
        assert_eq!(ipow(3, 4, true, 32), 81);
        assert_eq!(ipow(2, -1, true, 32), 0);
        assert_eq!(ipow(-1, -3, true, 32), -1);
        assert_eq!(ipow(-1, -4, true, 32), 1);
        assert_eq!(ipow(2, 31, true, 32), i32::MIN as i64);
        assert_eq!(ipow(2, 8, false, 8), 0);
        assert_eq!(ipow(3, 5, false, 8), 243);
        assert_eq!(ipow(3, 5, true, 8), -13);
    }

    #[test]
    fn half_conversions_round_once() {
        // 1 + 2^-11 + 2^-40 is above the f16 tie: rounds up from f64, but a
        // detour through f32 would drop 2^-40 and round the tie to even.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f64_to_f16(x), f16::from_f32(1.0).to_bits() + 1);
        assert_eq!(s64_to_bf16((1 << 24) + (1 << 16) + 1), 0x4B81);
    }
}
