//! Dense element literals: `dense<…>` (elements or hex data), `array<…>`,
//! and the bytes of each element.

use half::{bf16, f16};

use crate::mlir::ir::{Attr, ElementType, Type};
use crate::mlir::text::Parser;
use crate::text::ParseError;
use crate::PrimitiveType;

/// Bytes per element of a dense literal of `element` (`index` is 8).
pub(crate) fn element_size(element: &ElementType) -> Option<usize> {
    match element {
        ElementType::Known(p) => Some(p.byte_size()),
        ElementType::Index => Some(8),
        ElementType::Other(_) => None,
    }
}

/// One element of a dense literal as written: a number, a bool, or a
/// complex pair.
pub(super) enum Scalar {
    Int(i128),
    Float(f64),
    /// A hexadecimal integer: the bit pattern of a float element.
    Bits(u64),
    Complex(Box<Scalar>, Box<Scalar>),
}

impl<'a> Parser<'a> {
    /// `array<i64: 1, 2>` / `array<i1: true>` (after `array`).
    pub(super) fn dense_array(&mut self) -> Result<Attr, ParseError> {
        self.c.expect("<")?;
        let element = self.c.expect_name("an element type")?.to_string();
        let bools = element == "i1";
        let mut ints = Vec::new();
        let mut flags = Vec::new();
        if self.c.eat(":") {
            loop {
                if bools {
                    flags.push(self.bool_token()?);
                } else if matches!(element.as_str(), "f32" | "f64") {
                    return Err(self.c.error("an integer array (float arrays are not read)"));
                } else {
                    ints.push(self.c.int()?);
                }
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        self.c.expect(">")?;
        Ok(if bools {
            Attr::Bools(flags)
        } else {
            Attr::Ints(ints)
        })
    }

    fn bool_token(&mut self) -> Result<bool, ParseError> {
        if self.c.eat_keyword("true") {
            Ok(true)
        } else if self.c.eat_keyword("false") {
            Ok(false)
        } else {
            Err(self.c.error("`true` or `false`"))
        }
    }

    /// `dense<…> : tensor<…>` (after `dense`).
    pub(super) fn dense(&mut self) -> Result<Attr, ParseError> {
        self.c.expect("<")?;
        let start = self.c.pos();
        let mut hex = None;
        let mut scalars = Vec::new();
        let mut nested = false;
        if self.c.looking_at("\"") {
            hex = Some(self.hex_string()?);
        } else if !self.c.looking_at(">") {
            nested = self.c.looking_at("[");
            self.dense_elements(&mut scalars)?;
        }
        self.c.expect(">")?;
        self.c.expect(":")?;
        let ty = self.ty()?;
        let Type::Tensor { element, dims } = &ty else {
            return Err(self.c.error_at(start, "a dense literal of tensor type"));
        };
        let count: i64 = dims.iter().map(|d| d.unwrap_or(0)).product();
        let size = element_size(element).ok_or_else(|| {
            self.c.message_at(
                start,
                format!("dense literals of element type {element:?} are not supported"),
            )
        })?;
        let mut bytes = Vec::new();
        let splat;
        if let Some(data) = hex {
            let is_pred = *element == ElementType::Known(PrimitiveType::Pred);
            if data.len() == size {
                splat = true;
                bytes = data;
            } else if data.len() as i64 == count * size as i64 {
                splat = false;
                bytes = data;
            } else if is_pred && data.len() as i64 == (count + 7) / 8 {
                splat = false;
                bytes = (0..count as usize)
                    .map(|i| (data[i / 8] >> (i % 8)) & 1)
                    .collect();
            } else {
                return Err(self.c.message_at(
                    start,
                    format!(
                        "hex data of {} bytes does not fill {count} elements of {size} bytes",
                        data.len()
                    ),
                ));
            }
        } else {
            splat = !nested && scalars.len() == 1;
            if !splat && scalars.len() as i64 != count {
                return Err(self.c.message_at(
                    start,
                    format!("{} elements for a tensor of {count}", scalars.len()),
                ));
            }
            for s in &scalars {
                push_scalar(&mut bytes, s, element)
                    .map_err(|what| self.c.message_at(start, what))?;
            }
        }
        Ok(Attr::Dense { ty, bytes, splat })
    }

    /// The elements of a dense literal, flattened in row-major order.
    fn dense_elements(&mut self, out: &mut Vec<Scalar>) -> Result<(), ParseError> {
        if self.c.eat("[") {
            self.deeper()?;
            if !self.c.eat("]") {
                loop {
                    self.dense_elements(out)?;
                    if self.c.eat("]") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            self.depth -= 1;
            return Ok(());
        }
        out.push(self.scalar()?);
        Ok(())
    }

    /// A number, `true`/`false` or `(re, im)`.
    pub(super) fn scalar(&mut self) -> Result<Scalar, ParseError> {
        if self.c.eat("(") {
            let re = self.scalar()?;
            self.c.expect(",")?;
            let im = self.scalar()?;
            self.c.expect(")")?;
            return Ok(Scalar::Complex(Box::new(re), Box::new(im)));
        }
        if self.c.eat_keyword("true") {
            return Ok(Scalar::Int(1));
        }
        if self.c.eat_keyword("false") {
            return Ok(Scalar::Int(0));
        }
        self.c.skip_ws();
        let rest = self.c.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
            .unwrap_or(rest.len());
        let token = &rest[..len];
        let body = token.strip_prefix('-').unwrap_or(token);
        let negative = token.starts_with('-');
        let scalar = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X"))
        {
            u64::from_str_radix(hex, 16).ok().map(Scalar::Bits)
        } else if body.bytes().all(|b| b.is_ascii_digit()) && !body.is_empty() {
            body.parse::<i128>()
                .ok()
                .map(|v| Scalar::Int(if negative { -v } else { v }))
        } else {
            match body {
                "inf" => Some(f64::INFINITY),
                "nan" => Some(f64::NAN),
                _ => body.parse::<f64>().ok(),
            }
            .map(|v| Scalar::Float(if negative { -v } else { v }))
        };
        let scalar = scalar.ok_or_else(|| self.c.error("a number"))?;
        self.c.set_pos(self.c.pos() + len);
        Ok(scalar)
    }

    /// `"0x…"`: a dense literal's hex data, decoded straight from the
    /// source (megabytes of weights).
    fn hex_string(&mut self) -> Result<Vec<u8>, ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        if !self.c.rest().starts_with("\"0x") {
            return Err(self.c.error("a hex string `\"0x…\"`"));
        }
        let body = &self.c.rest().as_bytes()[3..];
        let end = body
            .iter()
            .position(|&b| b == b'"')
            .ok_or_else(|| self.c.message_at(start, "an unterminated string"))?;
        let out = decode_hex(&body[..end])
            .map_err(|at| self.c.message_at(start + 3 + at, "a hex digit"))?;
        self.c.set_pos(start + 3 + end + 1);
        Ok(out)
    }
}

/// Hex digits as bytes, through a table of digit values (0x10 marks a
/// non-digit, checked once at the end: no branch per byte); the error is
/// the position of the first bad digit (or the end, for an odd count).
pub(crate) fn decode_hex(digits: &[u8]) -> Result<Vec<u8>, usize> {
    const NIBBLE: [u8; 256] = {
        let mut table = [0x10u8; 256];
        let mut i = 0;
        while i < 10 {
            table[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            table[b'a' as usize + i] = 10 + i as u8;
            table[b'A' as usize + i] = 10 + i as u8;
            i += 1;
        }
        table
    };
    if !digits.len().is_multiple_of(2) {
        return Err(digits.len());
    }
    let mut bad = 0u8;
    let out: Vec<u8> = digits
        .chunks_exact(2)
        .map(|pair| {
            let (hi, lo) = (NIBBLE[pair[0] as usize], NIBBLE[pair[1] as usize]);
            bad |= hi | lo;
            hi << 4 | (lo & 0x0f)
        })
        .collect();
    if bad & 0x10 != 0 {
        return Err(digits
            .iter()
            .position(|&b| NIBBLE[b as usize] == 0x10)
            .unwrap_or(0));
    }
    Ok(out)
}

/// The value of a float of type `p` with bit pattern `bits`.
pub(super) fn bits_to_f64(p: PrimitiveType, bits: u64) -> f64 {
    match p {
        PrimitiveType::F16 => f16::from_bits(bits as u16).to_f64(),
        PrimitiveType::Bf16 => bf16::from_bits(bits as u16).to_f64(),
        PrimitiveType::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// Appends one element of type `element`, little-endian.
fn push_scalar(out: &mut Vec<u8>, s: &Scalar, element: &ElementType) -> Result<(), String> {
    use PrimitiveType as P;
    let p = match element {
        ElementType::Known(p) => *p,
        ElementType::Index => P::S64,
        ElementType::Other(name) => return Err(format!("element type {name} is not supported")),
    };
    let float = |s: &Scalar, p: P| -> Result<Vec<u8>, String> {
        let (bits, value) = match s {
            Scalar::Bits(b) => (Some(*b), 0.0),
            Scalar::Int(v) => (None, *v as f64),
            Scalar::Float(v) => (None, *v),
            Scalar::Complex(..) => return Err("a complex element in a real literal".into()),
        };
        Ok(match p {
            P::F16 => bits
                .map_or(f16::from_f64(value).to_bits(), |b| b as u16)
                .to_le_bytes()
                .to_vec(),
            P::Bf16 => bits
                .map_or(bf16::from_f64(value).to_bits(), |b| b as u16)
                .to_le_bytes()
                .to_vec(),
            P::F32 => bits
                .map_or((value as f32).to_bits(), |b| b as u32)
                .to_le_bytes()
                .to_vec(),
            _ => bits.map_or(value.to_bits(), |b| b).to_le_bytes().to_vec(),
        })
    };
    match (p, s) {
        (P::C64 | P::C128, Scalar::Complex(re, im)) => {
            let part = if p == P::C64 { P::F32 } else { P::F64 };
            out.extend(float(re, part)?);
            out.extend(float(im, part)?);
        }
        (P::C64 | P::C128, _) => return Err("a complex literal needs `(re, im)` elements".into()),
        (P::F16 | P::Bf16 | P::F32 | P::F64, s) => out.extend(float(s, p)?),
        (_, Scalar::Int(v)) => {
            let bytes = v.to_le_bytes();
            out.extend_from_slice(&bytes[..p.byte_size()]);
        }
        (_, Scalar::Bits(v)) => out.extend_from_slice(&v.to_le_bytes()[..p.byte_size()]),
        _ => return Err(format!("a non-integer element in a {p:?} literal")),
    }
    Ok(())
}
