//! Element-type conversion (`ConvertElementType`, `docs/semantics.md`, *Convert*): the
//! one place its rules live. The interpreter's `convert` op, constant folding
//! and [`Literal::convert`](super::Literal::convert) all call
//! [`convert_elements`] (or the per-value core [`convert_value`]).
//!
//! | from → to | rule | example |
//! |---|---|---|
//! | same type | identity (bit pattern kept) | |
//! | integer → integer | two's-complement wrap, sign/zero extension by source | `s32 300 → s8 44`, `u8 200 → s8 −56` |
//! | integer → float | round to nearest, ties to even (one rounding, also for `f16`/`bf16`) | `s32 16777217 → f32 16777216` |
//! | float → float | round to nearest even; overflow → ±∞; NaN stays NaN | `f32 65520 → f16 +∞` |
//! | float → integer | truncate toward zero, saturate, NaN → 0 | `1e10 → s32 2147483647`, `−3.5 → u8 0` |
//! | numeric → pred | `x != 0` (NaN → true) | `−0.0 → false` |
//! | pred → numeric | false → 0, true → 1 | |
//! | real → complex | `(x, 0)`, `x` converted to the component type | |
//! | complex → complex | each component as float → float | |
//! | complex → real | the real part, converted as above | `c64 (1.7+2i) → s32 1` |
//! | complex → pred | not a conversion: [`LiteralError::NotConvertible`] | |
//!
//! Subnormals (`docs/semantics.md`, *Flush to zero*, project rule). The rounding rules above
//! apply to exact values, with these flushes (a flushed value becomes a zero of
//! the same sign):
//!
//! * `f32 → f64` flushes an `f32` subnormal input; `f64 → f32` flushes an
//!   `f64` subnormal input and an `f32` subnormal result (`f64 1e−40 → f32 0`).
//!   The same holds for the components of `c64 ↔ c128` and for
//!   `f32 → c128`, `f64 → c64`, `c64 → f64`, `c128 → f32`.
//! * `float → pred` flushes inputs that are `f32`/`f64` subnormals
//!   (`f32 1e−40 → false`). `bf16` is computed on in `f32`, so its subnormals
//!   flush too (`bf16 1e−40 → false`); `f16` subnormals are normal `f32`
//!   values and give `true`.
//! * `f32 ↔ bf16` works on the bit pattern and keeps subnormals
//!   (`f32 1e−40 → bf16 9.18355e−41`); `f16`/`bf16` subnormal results are
//!   kept from any source, and widening `f16`/`bf16` to `f32`/`f64` is exact.

use half::{bf16, f16};

use super::access::same;
use super::LiteralError;
use crate::{dispatch_native, NativeType, PrimitiveType, C128, C64};

/// An element value widened without loss, remembering its source type where
/// a rule depends on it (subnormal flushing).
#[derive(Copy, Clone, Debug)]
pub(super) enum Wide {
    Pred(bool),
    Int(i128),
    /// A floating value; `from` is `F16`, `Bf16`, `F32` or `F64`.
    Float {
        value: f64,
        from: PrimitiveType,
    },
    /// A complex value; `from` is its component type (`F32` or `F64`).
    Complex {
        re: f64,
        im: f64,
        from: PrimitiveType,
    },
}

/// Checks that `from → to` is a conversion (`docs/semantics.md`, *Convert*). Every pair
/// of element types is, except complex → pred.
pub fn check_convert(from: PrimitiveType, to: PrimitiveType) -> Result<(), LiteralError> {
    if from.is_complex() && to.is_pred() {
        return Err(LiteralError::NotConvertible { from, to });
    }
    Ok(())
}

/// Converts one value from `S`'s element type to `D`'s by the rules of the
/// module documentation.
///
/// ```
/// use xla_core::literal::convert::convert_value;
/// assert_eq!(convert_value::<i32, i8>(300)?, 44);
/// assert_eq!(convert_value::<f32, i32>(1e10)?, i32::MAX);
/// assert_eq!(convert_value::<f32, half::f16>(65520.0)?, half::f16::INFINITY);
/// # Ok::<(), xla_core::literal::LiteralError>(())
/// ```
pub fn convert_value<S: NativeType, D: NativeType>(x: S) -> Result<D, LiteralError> {
    check_convert(S::TYPE, D::TYPE)?;
    Ok(convert_one::<S, D>(x))
}

/// Converts a typed slice element-wise; `src` and `dst` must have the same
/// length.
pub fn convert_slice<S: NativeType, D: NativeType>(
    src: &[S],
    dst: &mut [D],
) -> Result<(), LiteralError> {
    check_convert(S::TYPE, D::TYPE)?;
    if src.len() != dst.len() {
        return Err(LiteralError::ConvertLength {
            from: S::TYPE,
            to: D::TYPE,
            src_elements: src.len(),
            dst_elements: dst.len(),
        });
    }
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = convert_one::<S, D>(s);
    }
    Ok(())
}

/// Converts the elements in `src` (bytes of `from` elements, in any
/// alignment) into `dst` (bytes of as many `to` elements).
///
/// Lengths are in bytes: `src.len()` must be a multiple of `from`'s byte
/// size and `dst.len()` must hold the same number of `to` elements. A `pred`
/// source byte other than 0 reads as `true`.
///
/// ```
/// use xla_core::literal::convert::convert_elements;
/// use xla_core::PrimitiveType::{S32, U8};
/// let src: Vec<u8> = [-1i32, 300].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let mut dst = [0u8; 2];
/// convert_elements(&src, S32, &mut dst, U8)?;
/// assert_eq!(dst, [255, 44]);
/// # Ok::<(), xla_core::literal::LiteralError>(())
/// ```
pub fn convert_elements(
    src: &[u8],
    from: PrimitiveType,
    dst: &mut [u8],
    to: PrimitiveType,
) -> Result<(), LiteralError> {
    check_convert(from, to)?;
    let n = src.len() / from.byte_size();
    if !src.len().is_multiple_of(from.byte_size()) || dst.len() != n * to.byte_size() {
        return Err(LiteralError::ConvertLength {
            from,
            to,
            src_elements: src.len() / from.byte_size(),
            dst_elements: dst.len() / to.byte_size(),
        });
    }
    if from == to {
        dst.copy_from_slice(src);
        return Ok(());
    }
    dispatch_native!(from, S => dispatch_native!(to, D => convert_bytes::<S, D>(src, dst)));
    Ok(())
}

fn convert_bytes<S: NativeType, D: NativeType>(src: &[u8], dst: &mut [u8]) {
    let out = dst.chunks_exact_mut(std::mem::size_of::<D>());
    for (i, d) in out.enumerate() {
        let x: S = super::access::read_element(src, i);
        super::access::write_element(d, 0, convert_one::<S, D>(x));
    }
}

/// The per-value core; `check_convert` has accepted the pair.
#[inline]
fn convert_one<S: NativeType, D: NativeType>(x: S) -> D {
    narrow::<D>(widen(x))
}

#[inline]
pub(super) fn widen<S: NativeType>(x: S) -> Wide {
    use PrimitiveType as P;
    let float = |value: f64, from| Wide::Float { value, from };
    match S::TYPE {
        P::Pred => Wide::Pred(same::<S, bool>(x)),
        P::S8 => Wide::Int(same::<S, i8>(x).into()),
        P::S16 => Wide::Int(same::<S, i16>(x).into()),
        P::S32 => Wide::Int(same::<S, i32>(x).into()),
        P::S64 => Wide::Int(same::<S, i64>(x).into()),
        P::U8 => Wide::Int(same::<S, u8>(x).into()),
        P::U16 => Wide::Int(same::<S, u16>(x).into()),
        P::U32 => Wide::Int(same::<S, u32>(x).into()),
        P::U64 => Wide::Int(same::<S, u64>(x).into()),
        P::F16 => float(same::<S, f16>(x).to_f64(), P::F16),
        P::Bf16 => float(same::<S, bf16>(x).to_f64(), P::Bf16),
        P::F32 => float(same::<S, f32>(x).into(), P::F32),
        P::F64 => float(same::<S, f64>(x), P::F64),
        P::C64 => {
            let c = same::<S, C64>(x);
            Wide::Complex {
                re: c.re.into(),
                im: c.im.into(),
                from: P::F32,
            }
        }
        P::C128 => {
            let c = same::<S, C128>(x);
            Wide::Complex {
                re: c.re,
                im: c.im,
                from: P::F64,
            }
        }
    }
}

/// Integer targets: wrap from integers (`as` truncates two's complement),
/// truncate and saturate from floats (`as` also maps NaN to 0).
macro_rules! to_int {
    ($w:expr, $t:ty) => {
        match real_part($w) {
            Wide::Pred(b) => b as $t,
            Wide::Int(i) => i as $t,
            Wide::Float { value, .. } => value as $t,
            Wide::Complex { .. } => unreachable!("real_part removed the complex value"),
        }
    };
}

#[inline]
fn narrow<D: NativeType>(w: Wide) -> D {
    use PrimitiveType as P;
    match D::TYPE {
        P::Pred => same(to_pred(w)),
        P::S8 => same(to_int!(w, i8)),
        P::S16 => same(to_int!(w, i16)),
        P::S32 => same(to_int!(w, i32)),
        P::S64 => same(to_int!(w, i64)),
        P::U8 => same(to_int!(w, u8)),
        P::U16 => same(to_int!(w, u16)),
        P::U32 => same(to_int!(w, u32)),
        P::U64 => same(to_int!(w, u64)),
        P::F16 => same(to_f16(real_part(w))),
        P::Bf16 => same(to_bf16(real_part(w))),
        P::F32 => same(to_f32(real_part(w))),
        P::F64 => same(to_f64(real_part(w))),
        P::C64 => {
            let (re, im) = components(w);
            same(C64::new(to_f32(re), to_f32(im)))
        }
        P::C128 => {
            let (re, im) = components(w);
            same(C128::new(to_f64(re), to_f64(im)))
        }
    }
}

/// Complex → real keeps the real part, converted from the component type.
#[inline]
fn real_part(w: Wide) -> Wide {
    match w {
        Wide::Complex { re, from, .. } => Wide::Float { value: re, from },
        other => other,
    }
}

/// The parts of a value bound for a complex target: a real value `x` becomes
/// `(x, 0)`.
#[inline]
fn components(w: Wide) -> (Wide, Wide) {
    match w {
        Wide::Complex { re, im, from } => (
            Wide::Float { value: re, from },
            Wide::Float { value: im, from },
        ),
        real => (real, Wide::Int(0)),
    }
}

#[inline]
fn to_pred(w: Wide) -> bool {
    match w {
        Wide::Pred(b) => b,
        Wide::Int(i) => i != 0,
        // NaN compares unequal to everything, so it gives `true`.
        Wide::Float { value, from } => match from {
            PrimitiveType::F32 | PrimitiveType::Bf16 => !is_zero_or_subnormal(value, f32_min()),
            PrimitiveType::F64 => !is_zero_or_subnormal(value, f64::MIN_POSITIVE),
            _ => value != 0.0,
        },
        Wide::Complex { .. } => unreachable!("check_convert rejects complex → pred"),
    }
}

#[inline]
fn to_f64(w: Wide) -> f64 {
    match w {
        Wide::Pred(b) => f64::from(u8::from(b)),
        // `as` rounds to nearest even.
        Wide::Int(i) => i as f64,
        // bf16 subnormals are f32 subnormals: widened through f32, they
        // flush as f32 → f64 does (XLA:CPU agrees).
        Wide::Float {
            value,
            from: PrimitiveType::F32 | PrimitiveType::Bf16,
        } => flush(value, f32_min()),
        Wide::Float { value, .. } => value,
        Wide::Complex { .. } => unreachable!("real_part or components came first"),
    }
}

#[inline]
fn to_f32(w: Wide) -> f32 {
    match w {
        Wide::Pred(b) => f32::from(u8::from(b)),
        Wide::Int(i) => i as f32,
        Wide::Float {
            value,
            from: PrimitiveType::F64,
        } => {
            // One rounding to nearest even; an f64 subnormal input rounds to
            // ±0 anyway, a subnormal f32 result is flushed.
            let r = value as f32;
            flush(r.into(), f32_min()) as f32
        }
        // f16, bf16 and f32 values are exact in f32 (subnormals included).
        Wide::Float { value, .. } => value as f32,
        Wide::Complex { .. } => unreachable!("real_part or components came first"),
    }
}

#[inline]
fn to_f16(w: Wide) -> f16 {
    match w {
        Wide::Float {
            value,
            from: PrimitiveType::F32,
        } => {
            // `half` rounds f32 → f16 to nearest even (hardware or software).
            f16::from_f32(value as f32)
        }
        other => f16::from_f32(round_to_format(exact_f64(other), 5, 10) as f32),
    }
}

#[inline]
fn to_bf16(w: Wide) -> bf16 {
    match w {
        Wide::Float {
            value,
            from: PrimitiveType::F32,
        } => {
            // `half` rounds the f32 bit pattern to nearest even, keeping
            // subnormals.
            bf16::from_f32(value as f32)
        }
        other => bf16::from_f32(round_to_format(exact_f64(other), 8, 7) as f32),
    }
}

/// The value as an `f64` that rounds correctly to any format of at most 51
/// significant bits: exact for floats, pred and integers below 2^53; larger
/// integers are rounded to odd at 53 bits, which makes a second rounding to
/// nearest even (to ≤ 51 bits) give the correctly rounded result
/// (Boldo & Melquiond, "When double rounding is odd").
fn exact_f64(w: Wide) -> f64 {
    match w {
        Wide::Pred(b) => f64::from(u8::from(b)),
        Wide::Int(i) => {
            let magnitude = i.unsigned_abs();
            let bits = 128 - magnitude.leading_zeros();
            let value = if bits <= 53 {
                magnitude as f64
            } else {
                let shift = bits - 53;
                let sticky = magnitude & ((1u128 << shift) - 1) != 0;
                let odd = (magnitude >> shift) | u128::from(sticky);
                odd as f64 * pow2(shift as i32)
            };
            if i < 0 {
                -value
            } else {
                value
            }
        }
        Wide::Float { value, .. } => value,
        Wide::Complex { .. } => unreachable!("real_part came first"),
    }
}

/// Rounds `v` to nearest even in a binary format with `exponent_bits` and
/// `mantissa_bits` (gradual underflow; overflow → ±∞; NaN stays NaN). The
/// result is exactly representable in that format.
///
/// Worked example, f16 (5, 10): `65520 = 2047.5 · 2^5`; the quantum at
/// exponent 15 is `2^(15−10) = 32`, so `65520/32 = 2047.5` rounds to the even
/// `2048`, giving `65536 > 65504` (the largest f16) → `+∞`.
fn round_to_format(v: f64, exponent_bits: i32, mantissa_bits: i32) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    let bias = (1 << (exponent_bits - 1)) - 1;
    let min_exponent = 1 - bias;
    let largest = (2.0 - pow2(-mantissa_bits)) * pow2(bias);
    let a = v.abs();
    if a < f64::MIN_POSITIVE {
        // f64 subnormals are far below half the smallest f16/bf16 subnormal.
        return 0.0f64.copysign(v);
    }
    let exponent = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // The distance between adjacent representable values near `a`.
    let quantum = pow2(exponent.max(min_exponent) - mantissa_bits);
    let r = (a / quantum).round_ties_even() * quantum;
    let r = if r > largest { f64::INFINITY } else { r };
    r.copysign(v)
}

/// `2^e` for `e` in the normal f64 exponent range.
fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The smallest positive normal f32, as an f64.
fn f32_min() -> f64 {
    f32::MIN_POSITIVE.into()
}

fn is_zero_or_subnormal(v: f64, min_normal: f64) -> bool {
    v.abs() < min_normal
}

/// `v` with a subnormal (below `min_normal` in magnitude) replaced by a zero
/// of the same sign.
fn flush(v: f64, min_normal: f64) -> f64 {
    if is_zero_or_subnormal(v, min_normal) {
        0.0f64.copysign(v)
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_to_format_matches_half_on_f32_inputs() {
        // The software path (used for f64 and integer sources) agrees with
        // `half`'s f32 path on a sweep of f32 bit patterns, ties included.
        let mut bits = 0u32;
        while bits < u32::MAX - 40009 {
            let x = f32::from_bits(bits);
            if !x.is_nan() {
                let f16_soft = round_to_format(x.into(), 5, 10) as f32;
                assert_eq!(f16::from_f32(f16_soft), f16::from_f32(x), "{x:e}");
                let bf16_soft = round_to_format(x.into(), 8, 7) as f32;
                assert_eq!(bf16::from_f32(bf16_soft), bf16::from_f32(x), "{x:e}");
            }
            bits += 40009;
        }
    }

    #[test]
    fn exact_f64_rounds_large_integers_to_odd() {
        // 2^60 + 1 is not an f64; round-to-odd keeps the sticky bit.
        let v = exact_f64(Wide::Int((1i128 << 60) + 1));
        assert_eq!(v, (1u64 << 60) as f64 + 256.0);
        assert_eq!(exact_f64(Wide::Int(-(1i128 << 60))), -((1u64 << 60) as f64));
    }
}
