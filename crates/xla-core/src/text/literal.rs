//! Literal text: XLA's `Literal::ToString` and the payload of HLO
//! `constant(…)`.
//!
//! ```text
//! with shape     f32[2,3] {{1, 2, 3}, {4, 5, 6}}      s32[] 7      (f32[2] {1, 2}, pred[] true)
//! payload only   {{1, 2, 3}, {4, 5, 6}}               7            ( {1, 2}, true )
//!
//! payload := value | "{" [payload ("," payload)*] "}" | "(" [payload ("," payload)*] ")"
//! value   := INT | FLOAT | "true" | "false" | "(" FLOAT "," FLOAT ")"      (complex)
//! FLOAT   := decimal | "inf" | "-inf" | "nan" | "-nan" | "nan(0x" HEX ")" | "-nan(0x" HEX ")"
//! ```
//!
//! Values are listed in logical row-major order whatever the layout; `pred`
//! prints as `true`/`false` at rank 0 and `1`/`0` inside arrays. XLA's printer
//! adds spaces inside nested braces (`{ { 1, 2 }, { 3, 4 } }`) and
//! `/*i0=1*/` comments at rank > 3; the parser ignores whitespace and
//! comments. A shape's layout is only read when `{` directly follows `]`
//! (`f32[2]{0} {1, 2}`), since `f32[2] {1, 0}` is a payload.

use std::str::FromStr;

use half::{bf16, f16};

use super::float::{format_float, parse_float, TextFloat};
use super::shape::parse_shape_tight;
use super::{Cursor, ParseError};
use crate::{dispatch_native, ArrayShape, Literal, NativeType, Shape, C128, C64};

/// Which of XLA's literal printers to imitate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LiteralFormat {
    /// Print each array's shape before its values.
    pub with_shape: bool,
    /// Print shapes with their layouts (only with `with_shape`).
    pub with_layout: bool,
    /// One line (XLA's `…Oneline` printers) rather than one line per row.
    pub oneline: bool,
}

impl LiteralFormat {
    /// `Literal::ToString`: shapes without layouts, rows on separate lines.
    pub const TO_STRING: Self = LiteralFormat {
        with_shape: true,
        with_layout: false,
        oneline: false,
    };
    /// `Literal::ToStringWithLayoutOneline`: what `literal=` of a custom call
    /// holds.
    pub const WITH_LAYOUT_ONELINE: Self = LiteralFormat {
        with_shape: true,
        with_layout: true,
        oneline: true,
    };
    /// The payload of an HLO `constant(…)`: values only, one line.
    pub const CONSTANT: Self = LiteralFormat {
        with_shape: false,
        with_layout: false,
        oneline: true,
    };
}

/// Prints a literal in XLA's text form.
///
/// ```
/// use xla_core::{Literal, text::{print_literal, LiteralFormat}};
/// let l = Literal::from_vec(&[2, 2], vec![1.5f32, -0.0, f32::NAN, 1e-5])?;
/// assert_eq!(print_literal(&l, LiteralFormat::CONSTANT), "{ { 1.5, -0 }, { nan, 1e-05 } }");
/// assert_eq!(print_literal(&l, LiteralFormat::TO_STRING), "f32[2,2] {\n  { 1.5, -0 },\n  { nan, 1e-05 }\n}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn print_literal(literal: &Literal, format: LiteralFormat) -> String {
    let mut out = String::new();
    write_literal(&mut out, literal, format);
    out
}

/// Appends a literal's text to `out` (see [`print_literal`]).
pub fn write_literal(out: &mut String, literal: &Literal, format: LiteralFormat) {
    match literal.shape() {
        Shape::Tuple(_) => {
            let elements = literal
                .tuple_elements()
                .expect("a tuple-shaped literal holds elements");
            out.push_str(if format.oneline { "( " } else { "(\n" });
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(if format.oneline { ", " } else { ",\n" });
                }
                write_literal(out, element, format);
            }
            out.push_str(if format.oneline { " )" } else { "\n)" });
        }
        Shape::Token => out.push_str("token"),
        Shape::Opaque => out.push_str("opaque"),
        Shape::Array(array) => {
            if format.with_shape {
                if format.with_layout {
                    out.push_str(&array.to_string());
                } else {
                    out.push_str(&array.clone().without_layout().to_string());
                }
                out.push(' ');
            }
            dispatch_native!(array.element_type(), T => write_array::<T>(out, literal, array, format.oneline));
        }
    }
}

/// Prints the values of an array literal, nested as XLA's
/// `DenseArrayPrintHelper` does: `{1, 2}` at rank 1, `{ { 1, 2 }, { 3, 4 } }`
/// at rank 2 (one line), `{ /*i0=0*/ … }` comments at rank > 3.
fn write_array<T: TextValue>(
    out: &mut String,
    literal: &Literal,
    array: &ArrayShape,
    oneline: bool,
) {
    let data = literal.data::<T>().expect("element type matches the shape");
    let map = array.index_map().expect("a literal's layout is valid");
    let dims = array.dims();
    let mut index = Vec::with_capacity(dims.len());
    let mut printer = ArrayPrinter {
        out,
        rank: dims.len(),
        linebreak: if oneline { " " } else { "\n" },
        oneline,
        value: |out: &mut String, index: &[i64]| {
            data[map.linear(index) as usize].write(out, !dims.is_empty())
        },
    };
    printer.print(dims, &mut index);
}

struct ArrayPrinter<'o, F> {
    out: &'o mut String,
    rank: usize,
    linebreak: &'static str,
    oneline: bool,
    value: F,
}

impl<F: FnMut(&mut String, &[i64])> ArrayPrinter<'_, F> {
    fn print(&mut self, dims: &[i64], index: &mut Vec<i64>) {
        let Some((&size, inner)) = dims.split_first() else {
            (self.value)(self.out, index);
            return;
        };
        let open = self.open_brace(dims, index);
        self.out.push_str(&open);
        for i in 0..size {
            index.push(i);
            self.print(inner, index);
            index.pop();
            if i < size - 1 {
                self.out.push(',');
                self.out.push_str(if inner.is_empty() {
                    " "
                } else {
                    self.linebreak
                });
            }
        }
        let close = self.close_brace(dims);
        self.out.push_str(&close);
    }

    fn open_brace(&self, dims: &[i64], index: &[i64]) -> String {
        if self.rank == 1 {
            return "{".to_string();
        }
        if dims.len() == 1 {
            let indent = if self.oneline { "" } else { "  " };
            let space = if dims[0] <= 1 { "" } else { " " };
            return format!("{indent}{{{space}");
        }
        if self.rank > 3 && !index.is_empty() {
            let comment = format!("{{ /*i{}={}*/", index.len() - 1, index[index.len() - 1]);
            let brk = if dims[0] > 0 { self.linebreak } else { "" };
            return format!("{comment}{brk}");
        }
        format!("{{{}", self.linebreak)
    }

    fn close_brace(&self, dims: &[i64]) -> String {
        if self.rank == 1 {
            "}".to_string()
        } else if dims.len() == 1 {
            if dims[0] <= 1 { "}" } else { " }" }.to_string()
        } else {
            format!("{}}}", self.linebreak)
        }
    }
}

/// Parses a literal written with its shape: `f32[2] {1, 2}`, `s32[] 7`,
/// `(f32[2] {1, 2}, pred[] true)`, `f32[2,1]{0,1} {{1}, {2}}`.
pub fn parse_literal(c: &mut Cursor<'_>) -> Result<Literal, ParseError> {
    if c.eat("(") {
        let mut elements = Vec::new();
        if !c.eat(")") {
            loop {
                elements.push(c.nested(parse_literal)?);
                if c.eat(")") {
                    break;
                }
                if !c.eat(",") {
                    return Err(c.error("`,` or `)` in a tuple literal"));
                }
            }
        }
        return Ok(Literal::tuple(elements));
    }
    if c.eat_keyword("token") {
        return Ok(Literal::token());
    }
    let shape = parse_shape_tight(c)?;
    parse_literal_payload(c, &shape)
}

/// Parses the values of a literal of a known shape (the form inside
/// `constant(…)`): `{ {1, 2}, {3, 4} }`, `7`, `( {1, 2}, true )`.
///
/// The result has exactly `shape` (layout included); values are placed by
/// logical index, so any layout (tiled, padded) works.
pub fn parse_literal_payload(c: &mut Cursor<'_>, shape: &Shape) -> Result<Literal, ParseError> {
    let start = c.pos();
    match shape {
        Shape::Tuple(elements) => {
            c.expect("(")?;
            let mut values = Vec::with_capacity(elements.len());
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    c.expect(",")?;
                }
                values.push(parse_literal_payload(c, element)?);
            }
            if !c.eat(")") {
                return Err(c.error(format!(
                    "`)` after the {} elements of tuple {shape}",
                    elements.len()
                )));
            }
            Ok(Literal::tuple(values))
        }
        Shape::Token => {
            if !c.eat_keyword("token") {
                return Err(c.error("`token`"));
            }
            Ok(Literal::token())
        }
        Shape::Opaque => Err(c.message_at(start, "opaque values have no literal syntax")),
        Shape::Array(array) => {
            // Values first: their count bounds the allocation by the text's
            // length, whatever size the shape claims.
            dispatch_native!(array.element_type(), T => {
                let values = parse_values::<T>(c, array)?;
                let mut literal = Literal::zeros(shape).map_err(|e| {
                    c.message_at(start, format!("cannot hold a literal of shape {shape}: {e}"))
                })?;
                let map = array.index_map().expect("Literal::zeros validated the layout");
                let data = literal.data_mut::<T>().expect("element type matches the shape");
                for_each_index(array.dims(), |linear, index| {
                    data[map.linear(index) as usize] = values[linear];
                });
                Ok(literal)
            })
        }
    }
}

/// Calls `f(row_major_position, index)` for every index of `dims`, in
/// row-major order.
fn for_each_index(dims: &[i64], mut f: impl FnMut(usize, &[i64])) {
    if dims.contains(&0) {
        return;
    }
    let mut index = vec![0i64; dims.len()];
    let mut linear = 0;
    loop {
        f(linear, &index);
        linear += 1;
        let mut d = dims.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Reads the nested braces of an array payload into row-major values.
fn parse_values<T: TextValue>(
    c: &mut Cursor<'_>,
    array: &ArrayShape,
) -> Result<Vec<T>, ParseError> {
    let mut values = Vec::new();
    parse_level(c, array, 0, &mut values)?;
    Ok(values)
}

fn parse_level<T: TextValue>(
    c: &mut Cursor<'_>,
    array: &ArrayShape,
    dim: usize,
    values: &mut Vec<T>,
) -> Result<(), ParseError> {
    let dims = array.dims();
    if dim == dims.len() {
        values.push(T::parse(c)?);
        return Ok(());
    }
    if !c.eat("{") {
        let what = if dim == 0 {
            "`{` starting the values of"
        } else {
            "`{` starting dimension"
        };
        let detail = if dim == 0 {
            String::new()
        } else {
            format!(" {dim} of")
        };
        return Err(c.error(format!("{what}{detail} {array}")));
    }
    let size = dims[dim];
    for i in 0..size {
        if i > 0 && !c.eat(",") {
            return Err(c.error(format!(
                "`,` and element {} of {size} in dimension {dim} of {array}",
                i + 1
            )));
        }
        parse_level(c, array, dim + 1, values)?;
    }
    if !c.eat("}") {
        return Err(c.error(format!(
            "`}}` after the {size} elements of dimension {dim} of {array}"
        )));
    }
    Ok(())
}

impl FromStr for Literal {
    type Err = ParseError;

    /// Parses a literal with its shape, e.g. `"f32[2] {1, 2}"`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut c = Cursor::new(s);
        let literal = parse_literal(&mut c)?;
        if !c.at_end() {
            return Err(c.error("end of input"));
        }
        Ok(literal)
    }
}

/// An element type's value syntax.
trait TextValue: NativeType {
    /// Appends the value; `in_array` is false only for rank-0 literals.
    fn write(self, out: &mut String, in_array: bool);
    /// Reads one value.
    fn parse(c: &mut Cursor<'_>) -> Result<Self, ParseError>;
}

impl TextValue for bool {
    fn write(self, out: &mut String, in_array: bool) {
        out.push_str(match (in_array, self) {
            (true, true) => "1",
            (true, false) => "0",
            (false, true) => "true",
            (false, false) => "false",
        });
    }

    fn parse(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        c.skip_ws();
        if c.eat_keyword("true") || c.eat_keyword("1") {
            Ok(true)
        } else if c.eat_keyword("false") || c.eat_keyword("0") {
            Ok(false)
        } else {
            Err(c.error("a pred value (`true`, `false`, `1` or `0`)"))
        }
    }
}

macro_rules! text_int {
    ($($t:ty => $name:literal),*) => {$(
        impl TextValue for $t {
            fn write(self, out: &mut String, _in_array: bool) {
                out.push_str(&self.to_string());
            }

            fn parse(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
                let at = c.pos();
                let value = c.int128()?;
                <$t>::try_from(value).map_err(|_| {
                    c.error_at(at, format!(concat!("an ", $name, " value ({}…{})"), <$t>::MIN, <$t>::MAX))
                })
            }
        }
    )*};
}

text_int!(i8 => "s8", i16 => "s16", i32 => "s32", i64 => "s64",
          u8 => "u8", u16 => "u16", u32 => "u32", u64 => "u64");

fn parse_component<T: TextFloat>(c: &mut Cursor<'_>, what: &str) -> Result<T, ParseError> {
    let at = c.pos();
    c.float_token()
        .and_then(parse_float::<T>)
        .ok_or_else(|| c.error_at(at, format!("{what} (a number, `inf`, `nan` or `nan(0x…)`)")))
}

macro_rules! text_floats {
    ($($t:ty => $name:literal),*) => {$(
        impl TextValue for $t {
            fn write(self, out: &mut String, _in_array: bool) {
                out.push_str(&format_float(self));
            }

            fn parse(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
                parse_component::<$t>(c, $name)
            }
        }
    )*};
}

text_floats!(f16 => "an f16 value", bf16 => "a bf16 value", f32 => "an f32 value", f64 => "an f64 value");

macro_rules! text_complex {
    ($($t:ty, $part:ty => $name:literal),*) => {$(
        impl TextValue for $t {
            fn write(self, out: &mut String, _in_array: bool) {
                out.push('(');
                out.push_str(&format_float(self.re));
                out.push_str(", ");
                out.push_str(&format_float(self.im));
                out.push(')');
            }

            fn parse(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
                if !c.eat("(") {
                    return Err(c.error(concat!("`(` starting a ", $name, " value `(real, imag)`")));
                }
                let re = parse_component::<$part>(c, concat!("the real part of a ", $name, " value"))?;
                c.expect(",")?;
                let im = parse_component::<$part>(c, concat!("the imaginary part of a ", $name, " value"))?;
                c.expect(")")?;
                Ok(<$t>::new(re, im))
            }
        }
    )*};
}

text_complex!(C64, f32 => "c64", C128, f64 => "c128");
