//! Floating-point values in XLA's text form.
//!
//! XLA prints a float with C's `%.*g` (XLA's `RoundTripFpToString`):
//!
//! | type | digits tried | examples |
//! |---|---|---|
//! | `f32` | 6, else 9 if 6 does not read back to the same value | `1e-05`, `0.044715`, `0.100000001` |
//! | `f64` | 15, else 17 | `0.1`, `4.94065645841247e-324` |
//! | `f16` | 5 | `0.099976`, `65504` |
//! | `bf16` | 4 | `1.102`, `-3.004e+38` |
//!
//! Non-finite values are `inf`, `-inf`, `nan` and `-nan`; a NaN whose
//! mantissa is not the plain quiet NaN (`0x400000` for `f32`) carries its
//! mantissa bits in hex: `nan(0x400001)`, `-nan(0x1)` (a signalling NaN).
//! Every printed value reads back to the same bits.

use half::{bf16, f16};

/// A floating-point element type's bit layout and printing precision.
pub(crate) trait TextFloat: Copy {
    /// Number of explicit mantissa bits.
    const MANTISSA_BITS: u32;
    /// Total number of bits.
    const BITS: u32;
    /// `%.*g` precisions: the first one, and the fallback when the first
    /// does not read back (equal for types printed with one precision).
    const DIGITS: (usize, usize);
    /// The raw bits, zero-extended.
    fn to_bits64(self) -> u64;
    /// From raw bits (the low `BITS` bits).
    fn from_bits64(bits: u64) -> Self;
    /// The value widened to `f64` (exact for every type).
    fn to_f64(self) -> f64;
    /// Parses a decimal number, correctly rounded to this type.
    fn parse_decimal(text: &str) -> Option<Self>;
}

macro_rules! text_float {
    ($t:ty, $bits:ty, $mantissa:expr, $digits:expr,
     |$x:ident| $to_f64:expr, |$s:ident| $parse:expr) => {
        impl TextFloat for $t {
            const MANTISSA_BITS: u32 = $mantissa;
            const BITS: u32 = <$bits>::BITS;
            const DIGITS: (usize, usize) = $digits;
            fn to_bits64(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn from_bits64(bits: u64) -> Self {
                <$t>::from_bits(bits as $bits)
            }
            fn to_f64(self) -> f64 {
                let $x = self;
                $to_f64
            }
            fn parse_decimal($s: &str) -> Option<Self> {
                $parse
            }
        }
    };
}

text_float!(f32, u32, 23, (6, 9), |x| f64::from(x), |s| s.parse().ok());
text_float!(f64, u64, 52, (15, 17), |x| x, |s| s.parse().ok());
text_float!(f16, u16, 10, (5, 5), |x| x.to_f64(), |s| s
    .parse()
    .ok()
    .map(f16::from_f64));
text_float!(bf16, u16, 7, (4, 4), |x| x.to_f64(), |s| s
    .parse()
    .ok()
    .map(bf16::from_f64));

/// Formats like C's `printf("%.*g", precision, x)` for a finite `x`.
///
/// `%g` rounds to `precision` significant digits, uses fixed notation when
/// the decimal exponent `e` satisfies `-4 <= e < precision` and scientific
/// notation (`1e-05`, two exponent digits at least) otherwise, then drops
/// trailing zeros: `format_g(0.1, 6) == "0.1"`, `format_g(1e-5, 6) == "1e-05"`.
pub(crate) fn format_g(x: f64, precision: usize) -> String {
    debug_assert!(x.is_finite());
    let precision = precision.max(1);
    // Rust's `{:e}` with a precision rounds the exact binary value to nearest,
    // ties to even, like glibc's printf.
    let sci = format!("{:.*e}", precision - 1, x);
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` writes an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes a decimal exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::from(sign);
    if (-4..precision as i32).contains(&exponent) {
        if exponent >= 0 {
            let point = exponent as usize + 1;
            out.push_str(&digits[..point]);
            push_fraction(&mut out, &digits[point..]);
        } else {
            out.push('0');
            let zeros = "0".repeat((-exponent - 1) as usize);
            push_fraction(&mut out, &(zeros + &digits));
        }
    } else {
        out.push_str(&digits[..1]);
        push_fraction(&mut out, &digits[1..]);
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        out.push_str(&format!("e{exp_sign}{:02}", exponent.unsigned_abs()));
    }
    out
}

/// Appends `.fraction` without trailing zeros (nothing if all zeros).
fn push_fraction(out: &mut String, fraction: &str) {
    let fraction = fraction.trim_end_matches('0');
    if !fraction.is_empty() {
        out.push('.');
        out.push_str(fraction);
    }
}

/// Formats `x` as XLA does; the text reads back to the same bits.
pub(crate) fn format_float<T: TextFloat>(x: T) -> String {
    let bits = x.to_bits64();
    let negative = bits >> (T::BITS - 1) & 1 == 1;
    let value = x.to_f64();
    if value.is_nan() {
        let mantissa = bits & ((1 << T::MANTISSA_BITS) - 1);
        let quiet = 1 << (T::MANTISSA_BITS - 1);
        let sign = if negative { "-" } else { "" };
        return if mantissa == quiet {
            format!("{sign}nan")
        } else {
            format!("{sign}nan({mantissa:#x})")
        };
    }
    if value.is_infinite() {
        return if negative { "-inf" } else { "inf" }.to_string();
    }
    let (first, fallback) = T::DIGITS;
    let text = format_g(value, first);
    let reads_back = T::parse_decimal(&text).is_some_and(|y| y.to_bits64() == bits);
    if reads_back {
        text
    } else {
        format_g(value, fallback)
    }
}

/// Parses a float token as printed by [`format_float`] (and any decimal
/// number): `1.5`, `-2e-05`, `inf`, `-nan`, `nan(0x1)`. `None` if the token
/// is not a number of this type (e.g. a NaN payload that is zero or too
/// wide).
pub(crate) fn parse_float<T: TextFloat>(token: &str) -> Option<T> {
    let (negative, body) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token.strip_prefix('+').unwrap_or(token)),
    };
    let sign_bit = u64::from(negative) << (T::BITS - 1);
    let exponent_mask = ((1u64 << (T::BITS - 1)) - 1) & !((1 << T::MANTISSA_BITS) - 1);
    let mantissa = if body == "inf" {
        Some(0)
    } else if body == "nan" {
        Some(1 << (T::MANTISSA_BITS - 1))
    } else if let Some(hex) = body
        .strip_prefix("nan(0x")
        .and_then(|h| h.strip_suffix(')'))
    {
        let payload = u64::from_str_radix(hex, 16).ok()?;
        if payload == 0 || payload >> T::MANTISSA_BITS != 0 {
            return None;
        }
        Some(payload)
    } else {
        None
    };
    if let Some(mantissa) = mantissa {
        return Some(T::from_bits64(sign_bit | exponent_mask | mantissa));
    }
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    T::parse_decimal(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_g_matches_printf() {
        // Expected strings are what glibc's printf("%.*g") writes.
        let cases: &[(f64, usize, &str)] = &[
            (0.0, 6, "0"),
            (-0.0, 6, "-0"),
            (1.0, 6, "1"),
            (1024.0, 6, "1024"),
            (0.1, 6, "0.1"),
            (1e-5, 6, "1e-05"),
            (0.0001, 6, "0.0001"),
            (0.044715, 6, "0.044715"),
            (123456.0, 6, "123456"),
            (1234567.0, 6, "1.23457e+06"),
            (1e300, 15, "1e+300"),
            (2.5, 1, "2"),
            (3.5, 1, "4"),
            (-1.5e-7, 3, "-1.5e-07"),
            (5e-324, 15, "4.94065645841247e-324"),
            (f64::from(0.1f32), 9, "0.100000001"),
            (9.999999, 6, "10"),
            (99999.95, 6, "99999.9"),
            (999999.5, 6, "1e+06"),
        ];
        for &(x, p, want) in cases {
            assert_eq!(format_g(x, p), want, "%.{p}g of {x:e}");
        }
    }

    #[test]
    fn format_float_uses_xla_precisions() {
        assert_eq!(format_float(0.1f32), "0.1");
        assert_eq!(format_float(1e-5f32), "1e-05");
        assert_eq!(format_float(16777217.0f32), "16777216");
        assert_eq!(format_float(0.3f32 + 0.6f32), "0.900000036");
        assert_eq!(format_float(0.1f64 + 0.2f64), "0.30000000000000004");
        assert_eq!(format_float(5e-324f64), "4.94065645841247e-324");
        assert_eq!(format_float(f16::from_f64(0.1)), "0.099976");
        assert_eq!(format_float(f16::MAX), "65504");
        assert_eq!(format_float(bf16::from_f64(1.1)), "1.102");
        assert_eq!(format_float(bf16::from_f64(-3e38)), "-3.004e+38");
        assert_eq!(format_float(f32::INFINITY), "inf");
        assert_eq!(format_float(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_float(-0.0f32), "-0");
    }

    #[test]
    fn nan_payloads() {
        let f = |bits: u32| format_float(f32::from_bits(bits));
        assert_eq!(f(0x7fc0_0000), "nan");
        assert_eq!(f(0xffc0_0000), "-nan");
        assert_eq!(f(0x7fc0_0001), "nan(0x400001)");
        assert_eq!(f(0x7f80_0001), "nan(0x1)");
        assert_eq!(f(0xff80_0001), "-nan(0x1)");
        assert_eq!(format_float(f16::from_bits(0x7e00)), "nan");
        assert_eq!(format_float(bf16::from_bits(0xffc1)), "-nan(0x41)");
        assert_eq!(
            format_float(f64::from_bits(0x7ff0_0000_0000_0002)),
            "nan(0x2)"
        );
        let p = |s: &str| parse_float::<f32>(s).map(f32::to_bits);
        assert_eq!(p("nan"), Some(0x7fc0_0000));
        assert_eq!(p("-nan"), Some(0xffc0_0000));
        assert_eq!(p("nan(0x1)"), Some(0x7f80_0001));
        assert_eq!(p("-nan(0x400001)"), Some(0xffc0_0001));
        assert_eq!(p("nan(0x0)"), None);
        assert_eq!(p("nan(0x800000)"), None);
    }

    #[test]
    fn parse_rejects_non_numbers() {
        assert_eq!(parse_float::<f32>("1.5"), Some(1.5));
        assert_eq!(parse_float::<f32>("-2e-05"), Some(-2e-5));
        assert_eq!(parse_float::<f64>("+3"), Some(3.0));
        assert_eq!(parse_float::<f32>("-inf"), Some(f32::NEG_INFINITY));
        for bad in ["", "-", "infinity", "NaN", "e5", "1.5x", "0x10"] {
            assert_eq!(parse_float::<f32>(bad), None, "{bad}");
        }
    }

    fn assert_round_trips<T: TextFloat>(bits: impl Iterator<Item = u64>) {
        for b in bits {
            let x = T::from_bits64(b);
            let text = format_float(x);
            let back = parse_float::<T>(&text).unwrap_or_else(|| panic!("{text} does not parse"));
            assert_eq!(back.to_bits64(), b, "{b:#x} printed as {text}");
        }
    }

    #[test]
    fn every_half_value_round_trips() {
        assert_round_trips::<f16>(0..=0xffff);
        assert_round_trips::<bf16>(0..=0xffff);
    }

    #[test]
    fn sampled_wide_values_round_trip() {
        // A multiplicative walk through the bit patterns hits every exponent.
        let walk = |n: u64, step: u64, mask: u64| (0..n).map(move |i| i.wrapping_mul(step) & mask);
        assert_round_trips::<f32>(walk(200_000, 0x9e37_79b9, 0xffff_ffff));
        assert_round_trips::<f64>(walk(200_000, 0x9e37_79b9_7f4a_7c15, u64::MAX));
        assert_round_trips::<f32>([0, 1, 0x8000_0000, 0x7f7f_ffff, 0x0080_0000].into_iter());
    }
}
