//! Ops on bit patterns: `bitcast-convert` and `reduce-precision`
//! (`docs/semantics.md`, *Bitcast-convert*, *Reduce-precision*).

use half::{bf16, f16};

use super::super::array::{from_bytes, result_shape};
use super::super::eval::{invalid, row_major};
use super::super::InterpError;
use super::map1;
use crate::hlo::HloInstruction;
use crate::{Literal, PrimitiveType};

/// `bitcast-convert`: the operand's row-major buffer read as the result's
/// row-major buffer.
///
/// Along a new minor dimension, index `j` holds bytes `[j·B', (j+1)·B')` of
/// the wider element, least-significant part first (project rule: little
/// endian). Literal buffers hold native-endian elements, and on the
/// little-endian hosts this crate runs on that is the project's order, so
/// the bytes are copied unchanged: `f32 1.0` (`0x3F800000`) → `f16[2]` bits
/// `[0x0000, 0x3F80]`; `s32 0x01020304` → `s8[4] = [4,3,2,1]`.
pub(in crate::interp) fn bitcast_convert(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = row_major(operands[0])?;
    from_bytes(result_shape(instr)?, x.bytes()?)
}

/// `reduce-precision(operand), exponent_bits=…, mantissa_bits=…`: the
/// algorithm of `docs/semantics.md`, *Reduce-precision* on each element's bit pattern.
pub(in crate::interp) fn reduce_precision(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = row_major(operands[0])?;
    let shape = result_shape(instr)?;
    let (Some(exponent_bits), Some(mantissa_bits)) =
        (instr.attrs.exponent_bits, instr.attrs.mantissa_bits)
    else {
        return Err(invalid(
            instr,
            "reduce-precision needs exponent_bits and mantissa_bits",
        ));
    };
    if exponent_bits < 1 || mantissa_bits < 0 {
        return Err(invalid(
            instr,
            "exponent_bits must be ≥ 1 and mantissa_bits ≥ 0",
        ));
    }
    let to = Target {
        exponent_bits: exponent_bits.min(64) as u32,
        mantissa_bits: mantissa_bits.min(64) as u32,
    };
    match shape.element_type() {
        PrimitiveType::F16 => map1(&x, &shape, |v: f16| {
            f16::from_bits(to.apply(v.to_bits().into(), Format::F16) as u16)
        }),
        PrimitiveType::Bf16 => map1(&x, &shape, |v: bf16| {
            bf16::from_bits(to.apply(v.to_bits().into(), Format::BF16) as u16)
        }),
        PrimitiveType::F32 => map1(&x, &shape, |v: f32| {
            f32::from_bits(to.apply(v.to_bits().into(), Format::F32) as u32)
        }),
        PrimitiveType::F64 => map1(&x, &shape, |v: f64| {
            f64::from_bits(to.apply(v.to_bits(), Format::F64))
        }),
        other => Err(invalid(instr, format!("reduce-precision of {other}"))),
    }
}

/// A binary floating-point format: exponent and mantissa widths.
#[derive(Copy, Clone, Debug)]
struct Format {
    exponent_bits: u32,
    mantissa_bits: u32,
}

impl Format {
    const F16: Format = Format::new(5, 10);
    const BF16: Format = Format::new(8, 7);
    const F32: Format = Format::new(8, 23);
    const F64: Format = Format::new(11, 52);

    const fn new(exponent_bits: u32, mantissa_bits: u32) -> Self {
        Format {
            exponent_bits,
            mantissa_bits,
        }
    }

    fn width(self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }
}

/// The format values are reduced to.
#[derive(Copy, Clone, Debug)]
struct Target {
    exponent_bits: u32,
    mantissa_bits: u32,
}

impl Target {
    /// `x` (bits of a value in `src`) rounded to nearest even with
    /// `mantissa_bits`, then forced to ±∞ above and ±0 at or below the
    /// target's exponent range. A NaN comes back unchanged.
    ///
    /// Example, f32 → (8, 7): `1.01171875` (`0x3F818000`): the last kept
    /// bit is 1, so the bias is `0x7FFF + 1` and the sum `0x3F820000` is
    /// `1.015625` (a tie rounded to even).
    fn apply(self, x: u64, src: Format) -> u64 {
        let (e, m, w) = (src.exponent_bits, src.mantissa_bits, src.width());
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let exp_mask = ((1u64 << e) - 1) << m;
        let is_nan = (x & !(1u64 << (w - 1)) & mask) > exp_mask;
        if is_nan {
            return x;
        }
        let mut x = x;
        if self.mantissa_bits < m {
            let shift = m - self.mantissa_bits;
            let last_bit_mask = 1u64 << shift;
            let base_bias = (last_bit_mask >> 1) - 1;
            let last_bit = (x & last_bit_mask) >> shift;
            x = x.wrapping_add(last_bit + base_bias) & !(last_bit_mask - 1) & mask;
        }
        if self.exponent_bits < e {
            let bias = (1u64 << (e - 1)) - 1;
            let reduced_bias = (1u64 << (self.exponent_bits - 1)) - 1;
            let (max_exp, min_exp) = (bias + reduced_bias, bias - reduced_bias);
            let exponent = x & exp_mask;
            let sign = x & (1u64 << (w - 1));
            if exponent > max_exp << m {
                x = sign | exp_mask;
            } else if exponent <= min_exp << m {
                x = sign;
            }
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(x: f32, exponent_bits: u32, mantissa_bits: u32) -> f32 {
        let to = Target {
            exponent_bits,
            mantissa_bits,
        };
        f32::from_bits(to.apply(x.to_bits().into(), Format::F32) as u32)
    }

    #[test]
    fn spec_table() {
        let (p8, p16) = (2f32.powi(-8), 2f32.powi(-16));
        let cases: [(f32, f32, f32); 7] = [
            (1.0 + p8, 1.0, 1.0 + p8),
            (1.0 + 3.0 * p8, 1.015625, 1.0 + 3.0 * p8),
            (std::f32::consts::PI, 3.140625, 3.140625),
            (65504.0, 65536.0, 65504.0),
            (65520.0, 65536.0, f32::INFINITY),
            // 1.0013580322265625e−5 = 168 · 2^−24 (8 mantissa bits).
            (1e-5, 168.0 * p16 * p8, 0.0),
            (-1e6, -999424.0, f32::NEG_INFINITY),
        ];
        for (x, e8m7, e5m10) in cases {
            assert_eq!(reduce(x, 8, 7), e8m7, "{x} (8,7)");
            assert_eq!(reduce(x, 5, 10), e5m10, "{x} (5,10)");
        }
        let nan = f32::from_bits(0x7FC0_1234);
        assert_eq!(reduce(nan, 5, 0).to_bits(), 0x7FC0_1234);
        assert_eq!(reduce(f32::NEG_INFINITY, 5, 2), f32::NEG_INFINITY);
        // Wider targets change nothing.
        assert_eq!(reduce(1e-40, 11, 52).to_bits(), 1e-40f32.to_bits());
    }
}
