//! Shape and layout text: `f32[2,3]{1,0}`, `(f32[2]{0}, s32[])`, `token[]`,
//! `bf16[4,8]{1,0:T(8,128)(2,1)}`, `f32[<=10]`, `f32[2,3]{0,1:P(3,5;zero)}`.
//!
//! ```text
//! shape  := array | "(" [shape ("," shape)*] ")" | "token[]" | "opaque[]"
//! array  := type "[" [dim ("," dim)*] "]" [layout]
//! dim    := INT | "<=" INT
//! layout := "{" [INT ("," INT)*] [":" item+] "}"
//! item   := "T" tile+ | "P(" INT ("," INT)* [";" value] ")" | "S(" INT ")"
//! tile   := "(" (INT | "*") ("," (INT | "*"))* ")"
//! ```

use std::str::FromStr;

use super::{Cursor, ParseError};
use crate::layout::{Layout, PaddingValue, Tile, COMBINE_DIM};
use crate::shape::{ArrayShape, Shape};
use crate::PrimitiveType;

/// Parses one shape at the cursor.
pub fn parse_shape(c: &mut Cursor<'_>) -> Result<Shape, ParseError> {
    parse_shape_with(c, false)
}

/// Parses a shape that a `{` may follow without being its layout — a
/// literal's values (`f32[2] {1, 0}`) or a computation body
/// (`-> f32[] {`): an array's layout is only read when `{` directly follows
/// `]`.
pub(crate) fn parse_shape_tight(c: &mut Cursor<'_>) -> Result<Shape, ParseError> {
    parse_shape_with(c, true)
}

fn parse_shape_with(c: &mut Cursor<'_>, tight_layout: bool) -> Result<Shape, ParseError> {
    if c.eat("(") {
        let mut elements = Vec::new();
        if c.eat(")") {
            return Ok(Shape::Tuple(elements));
        }
        loop {
            elements.push(c.nested(parse_shape)?);
            if c.eat(")") {
                return Ok(Shape::Tuple(elements));
            }
            if !c.eat(",") {
                return Err(c.error("`,` or `)`"));
            }
        }
    }
    let start = c.pos();
    let name = c.expect_name("a shape")?;
    let special = match name {
        "token" => Some(Shape::Token),
        "opaque" => Some(Shape::Opaque),
        _ => None,
    };
    if let Some(shape) = special {
        c.expect("[")?;
        c.expect("]")?;
        return Ok(shape);
    }
    let Some(element_type) = PrimitiveType::from_name(name) else {
        return Err(c.error_at(start, "an element type (pred, s8…s64, u8…u64, f16, bf16, f32, f64, c64, c128), `(`, `token` or `opaque`"));
    };
    c.expect("[")?;
    let mut dims = Vec::new();
    let mut dynamic = Vec::new();
    if !c.eat("]") {
        loop {
            dynamic.push(c.eat("<="));
            let at = c.pos();
            let size = c.int()?;
            if size < 0 {
                return Err(c.error_at(at, "a dimension size ≥ 0"));
            }
            dims.push(size);
            if c.eat("]") {
                break;
            }
            if !c.eat(",") {
                return Err(c.error("`,` or `]`"));
            }
        }
    }
    let mut array = ArrayShape::new(element_type, dims);
    for (d, is_dynamic) in dynamic.into_iter().enumerate() {
        array.set_dynamic_dim(d, is_dynamic);
    }
    let has_layout = if tight_layout {
        c.rest().starts_with('{')
    } else {
        c.looking_at("{")
    };
    if has_layout {
        let at = c.pos();
        let layout = parse_layout(c)?;
        if let Err(e) = crate::layout::IndexMap::new(array.dims(), &layout) {
            return Err(c.error_at(at, format!("a valid layout for {array} ({e})")));
        }
        array = array.with_layout(layout);
    }
    Ok(Shape::Array(array))
}

/// Parses a layout in braces at the cursor: `{1,0:T(2,2)}`.
pub fn parse_layout(c: &mut Cursor<'_>) -> Result<Layout, ParseError> {
    c.expect("{")?;
    let mut minor_to_major = Vec::new();
    if !c.looking_at("}") && !c.looking_at(":") {
        loop {
            minor_to_major.push(c.int()?);
            if !c.eat(",") {
                break;
            }
        }
    }
    let mut layout = Layout::new(minor_to_major);
    if c.eat(":") {
        // Each item at most once.
        let mut seen = Vec::new();
        loop {
            c.skip_ws();
            let at = c.pos();
            let Some((_, item)) = [("T", 'T'), ("P(", 'P'), ("S(", 'S')]
                .into_iter()
                .find(|(token, _)| c.eat(token))
            else {
                break;
            };
            if seen.contains(&item) {
                return Err(c.message_at(at, format!("a layout has at most one `{item}(…)` item")));
            }
            seen.push(item);
            match item {
                'T' => {
                    if !c.looking_at("(") {
                        return Err(c.error("`(` starting a tile"));
                    }
                    while c.looking_at("(") {
                        layout.tiles.push(parse_tile(c)?);
                    }
                }
                'P' => {
                    let mut dims = vec![c.int()?];
                    while c.eat(",") {
                        dims.push(c.int()?);
                    }
                    let mut value = PaddingValue::Unknown;
                    if c.eat(";") {
                        let at = c.pos();
                        let word = c.expect_name("a padding value")?;
                        value = PaddingValue::from_keyword(word).ok_or_else(|| {
                            c.error_at(at, "a padding value: zero, one, lowest or highest")
                        })?;
                    }
                    c.expect(")")?;
                    layout.padding = Some(crate::layout::Padding { dims, value });
                }
                _ => {
                    let at = c.pos();
                    layout.memory_space = c.int()?;
                    if layout.memory_space < 0 {
                        return Err(c.error_at(at, "a memory space ≥ 0"));
                    }
                    c.expect(")")?;
                }
            }
        }
    }
    if !c.eat("}") {
        return Err(c.error("`}`, or a layout item `T(…)`, `P(…)` or `S(…)`"));
    }
    Ok(layout)
}

fn parse_tile(c: &mut Cursor<'_>) -> Result<Tile, ParseError> {
    c.expect("(")?;
    let mut dims = Vec::new();
    loop {
        if c.eat("*") {
            dims.push(COMBINE_DIM);
        } else {
            let at = c.pos();
            let size = c.int()?;
            if size <= 0 {
                return Err(c.error_at(at, "a positive tile size or `*`"));
            }
            dims.push(size);
        }
        if c.eat(")") {
            return Ok(Tile { dims });
        }
        if !c.eat(",") {
            return Err(c.error("`,` or `)`"));
        }
    }
}

/// Parses a whole string with `parse`, requiring nothing after it.
fn parse_all<T>(
    s: &str,
    parse: impl FnOnce(&mut Cursor<'_>) -> Result<T, ParseError>,
) -> Result<T, ParseError> {
    let mut c = Cursor::new(s);
    let value = parse(&mut c)?;
    if !c.at_end() {
        return Err(c.error("end of input"));
    }
    Ok(value)
}

impl FromStr for Shape {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_all(s, parse_shape)
    }
}

impl FromStr for ArrayShape {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_all(s, |c| {
            let at = c.pos();
            match parse_shape(c)? {
                Shape::Array(a) => Ok(a),
                _ => Err(c.error_at(at, "an array shape")),
            }
        })
    }
}

impl FromStr for Layout {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_all(s, parse_layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_exactly() {
        for text in [
            "f32[]",
            "f32[2,3]{1,0}",
            "f32[2,3]{0,1}",
            "f32[3,5]{1,0:T(2,2)}",
            "bf16[4,8]{1,0:T(8,128)(2,1)}",
            "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
            "(f32[2]{0}, s32[])",
            "pred[7]",
            "token[]",
            "opaque[]",
            "()",
            "(f32[2,3]{1,0}, (s32[], token[]))",
            "f32[<=10]{0}",
            "f32[2,3]{0,1:P(3,5)}",
            "f32[2,3]{0,1:P(3,5;zero)}",
            "f32[2,3]{1,0:P(2,4;highest)T(2,2)}",
            "f32[2,3]{1,0:S(1)}",
            "c128[0,4]",
            "(f32[], s8[], u8[], pred[], f16[], /*index=5*/bf16[], token[])",
        ] {
            let shape: Shape = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(shape.to_string(), text);
        }
    }

    #[test]
    fn default_layout_when_omitted() {
        let a: ArrayShape = "f32[2,3]".parse().unwrap();
        assert_eq!(a.layout(), None);
        assert_eq!(a.layout_or_default(), Layout::new([1, 0]));
        let s: Shape = "f32[] {}".parse().unwrap();
        assert_eq!(s.to_string(), "f32[]");
        assert_eq!(s, Shape::scalar(PrimitiveType::F32));
    }

    #[test]
    fn errors_give_column_and_expectation() {
        let err = |s: &str| s.parse::<Shape>().unwrap_err();
        let e = err("f32[2,3");
        assert_eq!((e.col, e.expected.as_str()), (8, "`,` or `]`"));
        let e = err("f33[2]");
        assert_eq!(e.col, 1);
        assert!(e.expected.starts_with("an element type"), "{e}");
        let e = err("f32[2,x]");
        assert_eq!(
            (e.col, e.expected.as_str(), e.found.as_str()),
            (7, "an integer", "`x]`")
        );
        let e = err("f32[2,3]{1,1}");
        assert_eq!(e.col, 9);
        assert_eq!(
            e.expected,
            "a valid layout for f32[2,3] (layout {1,1}: minor_to_major is not a permutation of 0..2)"
        );
        let e = err("f32[3,5]{1,0:T(0,2)}");
        assert_eq!(
            (e.col, e.expected.as_str()),
            (16, "a positive tile size or `*`")
        );
        let e = err("f32[3,5]{1,0:Q}");
        assert_eq!(e.col, 14);
        let e = err("f32[3] x");
        assert_eq!((e.col, e.expected.as_str()), (8, "end of input"));
        let e = err("f32[-1]");
        assert_eq!((e.col, e.expected.as_str()), (5, "a dimension size ≥ 0"));
        assert_eq!(
            e.to_string(),
            "1:5: expected a dimension size ≥ 0, found `-1]`\nf32[-1]\n    ^"
        );
    }
}
