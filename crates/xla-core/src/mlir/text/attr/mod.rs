//! Types, attributes, dense element literals and locations in MLIR's text
//! form, as StableHLO modules print them.

mod dense;
mod location;
mod tokens;
mod types;

use super::ops::int;
use super::Parser;
use crate::mlir::ir::{Attr, ElementType, Type};
use crate::text::ParseError;
use crate::PrimitiveType;
use dense::{bits_to_f64, Scalar};
pub(crate) use dense::{decode_hex, element_size};

impl<'a> Parser<'a> {
    /// `{name = attr, name, …}`.
    pub(crate) fn attr_dict(&mut self) -> Result<Vec<(String, Attr)>, ParseError> {
        self.c.expect("{")?;
        let mut out = Vec::new();
        if self.c.eat("}") {
            return Ok(out);
        }
        loop {
            let key = self.attr_name()?;
            let value = if self.c.eat("=") {
                self.attr()?
            } else {
                Attr::Unit
            };
            out.push((key, value));
            if self.c.eat("}") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// An attribute name: a bare name or a quoted string.
    fn attr_name(&mut self) -> Result<String, ParseError> {
        if self.c.looking_at("\"") {
            return self.string_utf8();
        }
        Ok(self.c.expect_name("an attribute name")?.to_string())
    }

    /// An attribute value.
    pub(crate) fn attr(&mut self) -> Result<Attr, ParseError> {
        self.deeper()?;
        let attr = self.attr_value();
        self.depth -= 1;
        attr
    }

    fn attr_value(&mut self) -> Result<Attr, ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let rest = self.c.rest();
        if rest.starts_with('"') {
            let bytes = self.string_bytes()?;
            if self.c.eat(":") {
                self.ty()?;
            }
            return Ok(Attr::String(bytes));
        }
        if rest.starts_with('[') {
            self.c.expect("[")?;
            let mut items = Vec::new();
            if !self.c.eat("]") {
                loop {
                    items.push(self.attr()?);
                    if self.c.eat("]") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            return Ok(Attr::Array(items));
        }
        if rest.starts_with('{') {
            return Ok(Attr::Dict(self.attr_dict()?));
        }
        if rest.starts_with('@') {
            return Ok(Attr::Symbol(self.symbol()?));
        }
        if rest.starts_with("#stablehlo<") || rest.starts_with("#chlo<") {
            // `#stablehlo<comparison_direction LT>`
            let open = rest.find('<').unwrap_or(0);
            self.c.set_pos(start + open + 1);
            let kind = self.c.expect_name("an enum kind")?.to_string();
            let value = self.c.expect_name("an enum value")?.to_string();
            self.c.expect(">")?;
            return Ok(Attr::Enum(kind, value));
        }
        if rest.starts_with("#stablehlo.") || rest.starts_with("#chlo.") {
            return self.struct_attr();
        }
        if rest.starts_with('#') {
            return Ok(Attr::Opaque(self.skipped_text(Self::opaque_attr)?));
        }
        if self.c.eat_keyword("dense") {
            return self.dense();
        }
        if self.c.eat_keyword("dense_resource") {
            self.c.expect("<")?;
            let key = self.c.expect_name("a resource name")?.to_string();
            self.c.expect(">")?;
            self.c.expect(":")?;
            let ty = self.ty()?;
            // Resolved from the file's `dialect_resources` when it has been read.
            return Ok(Attr::Dict(vec![
                ("#".into(), Attr::String(b"dense_resource".to_vec())),
                ("key".into(), Attr::String(key.into_bytes())),
                ("type".into(), Attr::Type(ty)),
            ]));
        }
        if self.c.eat_keyword("array") {
            return self.dense_array();
        }
        if self.c.eat_keyword("true") {
            return Ok(Attr::Bool(true));
        }
        if self.c.eat_keyword("false") {
            return Ok(Attr::Bool(false));
        }
        if self.c.eat_keyword("unit") {
            return Ok(Attr::Unit);
        }
        if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
            let scalar = self.scalar()?;
            let ty = if self.c.eat(":") {
                match self.ty()? {
                    Type::Element(e) => e,
                    _ => return Err(self.c.error_at(start, "a number with an element type")),
                }
            } else {
                ElementType::Known(PrimitiveType::S64)
            };
            return match (scalar, &ty) {
                (Scalar::Int(v), ElementType::Known(p)) if p.is_floating() => {
                    Ok(Attr::Float(v as f64, ty))
                }
                (Scalar::Int(v), _) => Ok(Attr::Int(v as i64, ty)),
                (Scalar::Float(v), _) => Ok(Attr::Float(v, ty)),
                (Scalar::Bits(bits), ElementType::Known(p)) if p.is_floating() => {
                    Ok(Attr::Float(bits_to_f64(*p, bits), ty))
                }
                (Scalar::Bits(bits), _) => Ok(Attr::Int(bits as i64, ty)),
                (Scalar::Complex(..), _) => Err(self.c.error_at(start, "a number")),
            };
        }
        if rest.starts_with("tensor<")
            || rest.starts_with("tuple<")
            || rest.starts_with('(')
            || rest.starts_with('!')
        {
            return Ok(Attr::Type(self.ty()?));
        }
        // A bare element type (`i32`) or a keyword the attribute's op knows.
        let name = self.c.name().ok_or_else(|| self.c.error("an attribute"))?;
        Ok(Attr::Opaque(name.to_string()))
    }

    /// `#stablehlo.name<key = value, …>` (and the convolution's
    /// `#stablehlo.conv<[b, 0, f]x[…]->[…]>`) as a dictionary, with the
    /// kind under the key `"#"`.
    fn struct_attr(&mut self) -> Result<Attr, ParseError> {
        self.c.expect("#")?;
        let kind = self.c.expect_name("an attribute kind")?.to_string();
        let mut fields = vec![("#".to_string(), Attr::String(kind.clone().into_bytes()))];
        self.c.expect("<")?;
        if kind == "stablehlo.conv" && self.c.looking_at("[") {
            fields.extend(self.conv_layout()?);
            self.c.expect(">")?;
            return Ok(Attr::Dict(fields));
        }
        if kind == "stablehlo.conv" {
            self.c.eat_keyword("raw");
        }
        if self.c.eat(">") {
            return Ok(Attr::Dict(fields));
        }
        // `#stablehlo.result_accuracy_mode<HIGHEST>`: a bare value.
        let save = self.c.pos();
        if let Some(word) = self.c.name() {
            if self.c.eat(">") {
                return Ok(Attr::Enum(
                    kind.trim_start_matches("stablehlo.").to_string(),
                    word.to_string(),
                ));
            }
        }
        self.c.set_pos(save);
        loop {
            let key = self.c.expect_name("a field name")?.to_string();
            self.c.expect("=")?;
            let save = self.c.pos();
            let value = match self.c.int_list("[", "]") {
                Ok(ints) => Attr::Ints(ints),
                Err(_) => {
                    self.c.set_pos(save);
                    self.field_value()?
                }
            };
            fields.push((key, value));
            if self.c.eat(">") {
                return Ok(Attr::Dict(fields));
            }
            self.c.expect(",")?;
        }
    }

    /// A field of a structured attribute: an attribute, or a bare keyword
    /// (`tf32`, `HIGHEST`), kept as an enum of unknown kind.
    fn field_value(&mut self) -> Result<Attr, ParseError> {
        let save = self.c.pos();
        match self.attr() {
            Ok(Attr::Opaque(word)) if !word.starts_with('#') => Ok(Attr::Enum(String::new(), word)),
            Ok(other) => Ok(other),
            Err(e) => {
                // A field in a syntax of its own (`sub_axis_info = (1)2`):
                // kept as text up to the next `,` or `>` outside brackets.
                self.c.set_pos(save);
                let bytes = self.c.source().as_bytes();
                let (mut i, mut depth) = (save, 0usize);
                while i < bytes.len() {
                    match bytes[i] {
                        b'(' | b'[' | b'{' | b'<' => depth += 1,
                        b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                        b'>' if depth == 0 => break,
                        b'>' => depth -= 1,
                        b',' if depth == 0 => break,
                        b'\n' => return Err(e),
                        _ => {}
                    }
                    i += 1;
                }
                self.c.set_pos(i);
                Ok(Attr::Opaque(self.c.source()[save..i].trim().to_string()))
            }
        }
    }

    /// `[b, 0, 1, f]x[o, i, 0, 1]->[b, f, 0, 1]`: the dimension numbers of
    /// a convolution, under VHLO's names.
    pub(crate) fn conv_layout(&mut self) -> Result<Vec<(String, Attr)>, ParseError> {
        let input = self.conv_dims(['b', 'f'])?;
        self.c.expect("x")?;
        let kernel = self.conv_dims(['o', 'i'])?;
        self.c.expect("->")?;
        let output = self.conv_dims(['b', 'f'])?;
        Ok(vec![
            ("input_batch_dimension".into(), int(input.0)),
            ("input_feature_dimension".into(), int(input.1)),
            ("input_spatial_dimensions".into(), Attr::Ints(input.2)),
            ("kernel_output_feature_dimension".into(), int(kernel.0)),
            ("kernel_input_feature_dimension".into(), int(kernel.1)),
            ("kernel_spatial_dimensions".into(), Attr::Ints(kernel.2)),
            ("output_batch_dimension".into(), int(output.0)),
            ("output_feature_dimension".into(), int(output.1)),
            ("output_spatial_dimensions".into(), Attr::Ints(output.2)),
        ])
    }

    /// `[b, 0, 1, f]`: the positions of the two named dimensions and of the
    /// spatial dimensions `0, 1, …` in order.
    fn conv_dims(&mut self, names: [char; 2]) -> Result<(i64, i64, Vec<i64>), ParseError> {
        self.c.expect("[")?;
        let (mut first, mut second) = (None, None);
        let mut spatial: Vec<(i64, i64)> = Vec::new();
        let mut position = 0;
        loop {
            self.c.skip_ws();
            let at = self.c.pos();
            if let Ok(k) = self.c.int() {
                spatial.push((k, position));
            } else {
                let name = self.c.expect_name("a dimension letter or number")?;
                match name.chars().next() {
                    Some(ch) if name.len() == 1 && ch == names[0] => first = Some(position),
                    Some(ch) if name.len() == 1 && ch == names[1] => second = Some(position),
                    _ => {
                        return Err(self
                            .c
                            .error_at(at, format!("`{}` or `{}`", names[0], names[1])))
                    }
                }
            }
            position += 1;
            if self.c.eat("]") {
                break;
            }
            self.c.expect(",")?;
        }
        spatial.sort();
        let spatial_ok = spatial.iter().enumerate().all(|(i, &(k, _))| k == i as i64);
        match (first, second) {
            (Some(a), Some(b)) if spatial_ok => {
                Ok((a, b, spatial.into_iter().map(|(_, p)| p).collect()))
            }
            _ => Err(self.c.error("a complete convolution layout")),
        }
    }
}
