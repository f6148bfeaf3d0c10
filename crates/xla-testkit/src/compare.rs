//! Literals compared element by element, by the rule of
//! `tests/conformance/README.md` ("Comparing"):
//!
//! - integers and `pred`: equal values;
//! - floats, exact: equal bit patterns (`-0 ≠ +0`, subnormals distinct
//!   from zero), or both NaN (any sign or payload; the same bits with
//!   [`Rule::BITS`]);
//! - floats, toleranced: both NaN; or equal (`+0 == -0`); or both finite
//!   and `|got − want| ≤ atol + rtol·|want|`; or at most `ulp` apart in the
//!   type's ordered sequence of values;
//! - complex: each part by the float rule, or (toleranced) both finite and
//!   within `atol + rtol·|want|` in complex magnitude.

use std::fmt;

use xla_core::half::{bf16, f16};
use xla_core::layout::Layout;
use xla_core::{Literal, PrimitiveType};

/// How two literals are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    /// Bit for bit (NaNs of any payload match).
    pub exact: bool,
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance (of the expected value).
    pub rtol: f64,
    /// Distance in units in the last place.
    pub ulp: Option<f64>,
    /// NaNs match only the same bits (payload, sign and signalling bit):
    /// for ops that move bits and never compute (`bitcast-convert`).
    pub nan_bits: bool,
}

impl Rule {
    /// Bit for bit, NaNs of any payload matching.
    pub const EXACT: Rule = Rule {
        exact: true,
        atol: 0.0,
        rtol: 0.0,
        ulp: None,
        nan_bits: false,
    };

    /// Bit for bit, NaNs included.
    pub const BITS: Rule = Rule {
        nan_bits: true,
        ..Rule::EXACT
    };

    /// At most `ulp` units in the last place apart.
    pub fn ulps(ulp: f64) -> Rule {
        Rule {
            exact: false,
            atol: 0.0,
            rtol: 0.0,
            ulp: Some(ulp),
            nan_bits: false,
        }
    }

    /// Compares two arrays of one element type and dimensions (any
    /// layouts), skipping the row-major flat indices in `skip`. `Err` says
    /// how many elements differ and shows the first three.
    pub fn compare(&self, got: &Literal, want: &Literal, skip: &[usize]) -> Result<(), String> {
        let (Ok(g), Ok(w)) = (got.array_shape(), want.array_shape()) else {
            return Err(format!("got {}, expected {}", got.shape(), want.shape()));
        };
        if g.element_type() != w.element_type() || g.dims() != w.dims() {
            return Err(format!(
                "got {}, expected {}",
                got.shape().clone().without_layouts(),
                want.shape().clone().without_layouts()
            ));
        }
        let (g, w) = (elements(got)?, elements(want)?);
        let bad: Vec<String> = (g.iter().zip(&w).enumerate())
            .filter(|(e, (g, w))| !skip.contains(e) && !self.matches(**g, **w))
            .map(|(e, (g, w))| format!("[{e}] got {g}, expected {w}"))
            .collect();
        match bad.len() {
            0 => Ok(()),
            n => Err(format!(
                "{n} of {} elements differ: {}",
                w.len(),
                bad[..n.min(3)].join("; ")
            )),
        }
    }

    /// Compares two values of any shape: tuples element by element, arrays
    /// by [`Rule::compare`].
    pub fn compare_values(&self, got: &Literal, want: &Literal) -> Result<(), String> {
        match (got.tuple_elements(), want.tuple_elements()) {
            (Some(g), Some(w)) if g.len() == w.len() => {
                for (i, (g, w)) in g.iter().zip(w).enumerate() {
                    self.compare_values(g, w)
                        .map_err(|e| format!("tuple element {i}: {e}"))?;
                }
                Ok(())
            }
            (None, None) if !got.shape().is_array() => Ok(()),
            (None, None) => self.compare(got, want, &[]),
            _ => Err(format!("got {}, expected {}", got.shape(), want.shape())),
        }
    }

    fn matches(&self, got: Element, want: Element) -> bool {
        match (got, want) {
            (Element::Exact(a), Element::Exact(b)) => a == b,
            (Element::Float(g), Element::Float(w)) => self.float_matches(g, w),
            (Element::Complex(g), Element::Complex(w)) => {
                let parts = self.float_matches(g[0], w[0]) && self.float_matches(g[1], w[1]);
                let values = [g[0].value, g[1].value, w[0].value, w[1].value];
                let close = !self.exact
                    && values.iter().all(|v| v.is_finite())
                    && (g[0].value - w[0].value).hypot(g[1].value - w[1].value)
                        <= self.atol + self.rtol * w[0].value.hypot(w[1].value);
                parts || close
            }
            _ => false,
        }
    }

    fn float_matches(&self, got: Float, want: Float) -> bool {
        let (g, w) = (got.value, want.value);
        if g.is_nan() || w.is_nan() {
            return g.is_nan() && w.is_nan() && (!self.nan_bits || got.bits == want.bits);
        }
        if self.exact {
            return got.bits == want.bits;
        }
        if g == w {
            return true;
        }
        let close =
            g.is_finite() && w.is_finite() && (g - w).abs() <= self.atol + self.rtol * w.abs();
        close
            || self
                .ulp
                .is_some_and(|ulp| (got.order - want.order).unsigned_abs() as f64 <= ulp)
    }
}

/// The array leaves of a value, tuples flattened in order.
pub fn flatten(value: &Literal) -> Vec<&Literal> {
    match value.tuple_elements() {
        Some(elements) => elements.iter().flat_map(flatten).collect(),
        None => vec![value],
    }
}

/// One float: its value, its bit pattern, and its position in the ordered
/// sequence of its type's values (`±0` at 0), for ulp distances.
#[derive(Clone, Copy, Debug)]
struct Float {
    value: f64,
    bits: u64,
    order: i64,
}

impl Float {
    fn new(bits: u64, width: u32, value: f64) -> Float {
        let sign = 1u64 << (width - 1);
        let magnitude = (bits & (sign - 1)) as i64;
        let order = if bits & sign != 0 {
            -magnitude
        } else {
            magnitude
        };
        Float { value, bits, order }
    }
}

/// One element, for comparison.
#[derive(Clone, Copy, Debug)]
enum Element {
    /// Integers and pred: the bytes, as a number.
    Exact(u64),
    /// A real float.
    Float(Float),
    /// A complex number's parts.
    Complex([Float; 2]),
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Exact(v) => write!(f, "{v:#x}"),
            Element::Float(x) => write!(f, "{:e} ({:#x})", x.value, x.bits),
            Element::Complex([re, im]) => write!(f, "({:e}, {:e})", re.value, im.value),
        }
    }
}

/// The elements of an array in row-major order.
fn elements(l: &Literal) -> Result<Vec<Element>, String> {
    let shape = l.array_shape().map_err(|e| e.to_string())?;
    let l = (l.relayout(&Layout::default_for_rank(shape.rank()))).map_err(|e| e.to_string())?;
    let ty = shape.element_type();
    let bytes = l.bytes().map_err(|e| e.to_string())?;
    let word = |b: &[u8]| b.iter().rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
    let f32_at = |b: &[u8]| {
        let w = word(b);
        Float::new(w, 32, f64::from(f32::from_bits(w as u32)))
    };
    let f64_at = |b: &[u8]| {
        let w = word(b);
        Float::new(w, 64, f64::from_bits(w))
    };
    Ok(bytes
        .chunks_exact(ty.byte_size())
        .map(|b| match ty {
            PrimitiveType::F16 => {
                let w = word(b);
                Element::Float(Float::new(w, 16, f16::from_bits(w as u16).to_f64()))
            }
            PrimitiveType::Bf16 => {
                let w = word(b);
                Element::Float(Float::new(w, 16, bf16::from_bits(w as u16).to_f64()))
            }
            PrimitiveType::F32 => Element::Float(f32_at(b)),
            PrimitiveType::F64 => Element::Float(f64_at(b)),
            PrimitiveType::C64 => Element::Complex([f32_at(&b[..4]), f32_at(&b[4..])]),
            PrimitiveType::C128 => Element::Complex([f64_at(&b[..8]), f64_at(&b[8..])]),
            _ => Element::Exact(word(b)),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Literal {
        Literal::from_vec(&[v.len() as i64], v.to_vec()).unwrap()
    }

    #[test]
    fn exact_compares_bits_and_any_nan_matches() {
        let t = Rule::EXACT;
        assert!(t
            .compare(&f32s(&[1.0, f32::NAN]), &f32s(&[1.0, -f32::NAN]), &[])
            .is_ok());
        assert!(t.compare(&f32s(&[0.0]), &f32s(&[-0.0]), &[]).is_err());
        assert!(t.compare(&f32s(&[1e-45]), &f32s(&[0.0]), &[]).is_err());
        assert!(t
            .compare(&f32s(&[1.0, 2.0]), &f32s(&[1.0, 3.0]), &[1])
            .is_ok());
    }

    #[test]
    fn tolerances_take_absolute_relative_and_ulp_distances() {
        let one_ulp = f32::from_bits(1.0f32.to_bits() + 1);
        assert!(Rule::ulps(1.0)
            .compare(&f32s(&[one_ulp]), &f32s(&[1.0]), &[])
            .is_ok());
        assert!(Rule::ulps(0.0)
            .compare(&f32s(&[one_ulp]), &f32s(&[1.0]), &[])
            .is_err());
        let relative = Rule {
            rtol: 1e-3,
            ..Rule::ulps(0.0)
        };
        assert!(relative
            .compare(&f32s(&[1000.5]), &f32s(&[1000.0]), &[])
            .is_ok());
        assert!(relative
            .compare(&f32s(&[f32::NAN]), &f32s(&[1.0]), &[])
            .is_err());
        assert!(relative.compare(&f32s(&[0.0]), &f32s(&[-0.0]), &[]).is_ok());
    }
}
