//! Types, attributes, dense element literals and locations in MLIR's text
//! form, as StableHLO modules print them.

use half::{bf16, f16};

use super::ops::int;
use super::Parser;
use crate::mlir::ir::{Attr, ElementType, Location, Type};
use crate::text::ParseError;
use crate::PrimitiveType;

/// The element type named `name` (`f32`, `i1`, `ui8`, `index`, …).
pub(crate) fn element_type(name: &str) -> ElementType {
    use PrimitiveType as P;
    let known = match name {
        "i1" => P::Pred,
        "i8" | "si8" => P::S8,
        "i16" | "si16" => P::S16,
        "i32" | "si32" => P::S32,
        "i64" | "si64" => P::S64,
        "ui8" => P::U8,
        "ui16" => P::U16,
        "ui32" => P::U32,
        "ui64" => P::U64,
        "f16" => P::F16,
        "bf16" => P::Bf16,
        "f32" => P::F32,
        "f64" => P::F64,
        "index" => return ElementType::Index,
        other => return ElementType::Other(other.to_string()),
    };
    ElementType::Known(known)
}

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
enum Scalar {
    Int(i128),
    Float(f64),
    /// A hexadecimal integer: the bit pattern of a float element.
    Bits(u64),
    Complex(Box<Scalar>, Box<Scalar>),
}

impl<'a> Parser<'a> {
    /// Reads a type.
    pub(crate) fn ty(&mut self) -> Result<Type, ParseError> {
        self.c.skip_ws();
        if self.c.eat("(") {
            let inputs = self.type_list_until(")")?;
            self.c.expect("->")?;
            let outputs = self.result_types()?;
            return Ok(Type::Function(inputs, outputs));
        }
        if self.c.eat("!stablehlo.token") {
            return Ok(Type::Token);
        }
        if self.c.eat_keyword("tensor") {
            self.c.expect("<")?;
            let (dims, element) = self.shape_and_element()?;
            if self.c.eat(",") {
                // An encoding (`#stablehlo.bounds<…>`): bounds of dynamic
                // dimensions, which static programs do not have.
                self.opaque_attr()?;
            }
            self.c.expect(">")?;
            return Ok(Type::Tensor { element, dims });
        }
        if self.c.eat_keyword("tuple") {
            self.c.expect("<")?;
            let parts = self.type_list_until(">")?;
            return Ok(Type::Tuple(parts));
        }
        Ok(Type::Element(self.element()?))
    }

    /// `-> t` or `-> (t {attrs}, …)`: result types (attributes dropped).
    pub(crate) fn result_types(&mut self) -> Result<Vec<Type>, ParseError> {
        if self.c.eat("(") {
            let mut out = Vec::new();
            if self.c.eat(")") {
                return Ok(out);
            }
            loop {
                out.push(self.ty()?);
                if self.c.looking_at("{") {
                    self.attr_dict()?;
                }
                if self.c.eat(")") {
                    return Ok(out);
                }
                self.c.expect(",")?;
            }
        }
        Ok(vec![self.ty()?])
    }

    /// Types separated by commas up to `close` (consumed).
    pub(crate) fn type_list_until(&mut self, close: &str) -> Result<Vec<Type>, ParseError> {
        let mut out = Vec::new();
        if self.c.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.ty()?);
            if self.c.eat(close) {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// An element type: `f32`, `complex<f64>`, `ui8`, `f8E4M3FN`, ….
    /// Dialect types (`!quant.uniform<…>`) are kept by their text.
    fn element(&mut self) -> Result<ElementType, ParseError> {
        if self.c.looking_at("!") {
            return Ok(ElementType::Other(self.skipped_text(Self::opaque_attr)?));
        }
        if self.c.eat_keyword("complex") {
            self.c.expect("<")?;
            let part = self.element()?;
            self.c.expect(">")?;
            return match part {
                ElementType::Known(PrimitiveType::F32) => {
                    Ok(ElementType::Known(PrimitiveType::C64))
                }
                ElementType::Known(PrimitiveType::F64) => {
                    Ok(ElementType::Known(PrimitiveType::C128))
                }
                other => Ok(ElementType::Other(format!("complex<{other:?}>"))),
            };
        }
        let start = self.c.pos();
        let name = self.c.name().ok_or_else(|| self.c.error("a type"))?;
        if self.c.rest().starts_with('<') {
            // Another parametric type (`memref<2xf32>`, `vector<4xf32>`).
            self.opaque_attr()?;
            return Ok(ElementType::Other(
                self.c.source()[start..self.c.pos()].trim().to_string(),
            ));
        }
        Ok(element_type(name))
    }

    /// `2x?x3xf32` (inside `tensor<…>`): the dimensions and element type.
    fn shape_and_element(&mut self) -> Result<(Vec<Option<i64>>, ElementType), ParseError> {
        let mut dims = Vec::new();
        loop {
            self.c.skip_ws();
            let rest = self.c.rest();
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let (dim, len) = if digits > 0 && rest.as_bytes().get(digits) == Some(&b'x') {
                let dim = rest[..digits]
                    .parse()
                    .map_err(|_| self.c.error("a dimension that fits in 64 bits"))?;
                (Some(dim), digits)
            } else if rest.starts_with("?x") {
                (None, 1)
            } else {
                return Ok((dims, self.element()?));
            };
            dims.push(dim);
            self.c.set_pos(self.c.pos() + len + 1);
        }
    }

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

    /// Skips an attribute this reader keeps as text: `#name…<…>` with
    /// balanced brackets, or `<…>`.
    pub(crate) fn opaque_attr(&mut self) -> Result<(), ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let bytes = self.c.source().as_bytes();
        let mut i = start;
        while i < bytes.len()
            && !matches!(
                bytes[i],
                b'<' | b',' | b'}' | b')' | b']' | b'>' | b' ' | b'\n'
            )
        {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'<' {
            self.c.set_pos(i);
            return self.skip_group();
        }
        if i == start {
            return Err(self.c.error("an attribute"));
        }
        self.c.set_pos(i);
        Ok(())
    }

    /// The text `skip` passes over (from the next non-blank character):
    /// what the reader keeps of an attribute it does not interpret.
    pub(crate) fn skipped_text(
        &mut self,
        skip: fn(&mut Self) -> Result<(), ParseError>,
    ) -> Result<String, ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        skip(self)?;
        Ok(self.c.source()[start..self.c.pos()].to_string())
    }

    /// Skips one bracketed group at the cursor (`<…>`, `[…]`, `{…}`,
    /// `(…)`), nested brackets, quoted strings and `->` arrows included.
    pub(crate) fn skip_group(&mut self) -> Result<(), ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let bytes = self.c.source().as_bytes();
        let (mut depth, mut in_string) = (0usize, false);
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if in_string => i += 1,
                b'"' => in_string = !in_string,
                _ if in_string => {}
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' if i > start && bytes[i - 1] == b'-' => {}
                b'>' | b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.c.set_pos(i + 1);
                        return Ok(());
                    }
                }
                _ if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        Err(self.c.error_at(start, "a balanced bracketed group"))
    }

    /// `array<i64: 1, 2>` / `array<i1: true>` (after `array`).
    fn dense_array(&mut self) -> Result<Attr, ParseError> {
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
    fn dense(&mut self) -> Result<Attr, ParseError> {
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
    fn scalar(&mut self) -> Result<Scalar, ParseError> {
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

    /// A location: `loc(…)`; `None` for `loc(unknown)`. An alias
    /// (`loc(#loc3)`) is resolved when the module has been read.
    pub(crate) fn location(&mut self) -> Result<Option<Location>, ParseError> {
        self.c.expect("loc")?;
        self.c.expect("(")?;
        let loc = self.location_body()?;
        self.c.expect(")")?;
        Ok(loc)
    }

    fn location_body(&mut self) -> Result<Option<Location>, ParseError> {
        self.deeper()?;
        let loc = self.location_inner();
        self.depth -= 1;
        loc
    }

    fn location_inner(&mut self) -> Result<Option<Location>, ParseError> {
        if self.c.eat("#") {
            let alias = self.c.expect_name("a location alias")?.to_string();
            return Ok(Some(Location {
                name: Some(format!("#{alias}")),
                file: None,
            }));
        }
        if self.c.eat_keyword("unknown") {
            return Ok(None);
        }
        if self.c.eat_keyword("callsite") {
            self.c.expect("(")?;
            let callee = self.location_body()?;
            self.c.expect("at")?;
            let caller = self.location_body()?;
            self.c.expect(")")?;
            return Ok(merge(callee, caller));
        }
        if self.c.eat_keyword("fused") {
            if self.c.looking_at("<") {
                self.opaque_attr()?;
            }
            self.c.expect("[")?;
            let mut loc = None;
            if !self.c.eat("]") {
                loop {
                    loc = merge(loc, self.location_body()?);
                    if self.c.eat("]") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            return Ok(loc);
        }
        let text = self.string_utf8()?;
        if self.c.eat(":") {
            let line = self.c.int()?;
            self.c.expect(":")?;
            let col = self.c.int()?;
            if self.c.eat_keyword("to") {
                // `to :117` or `to 12:3`: the end of the range.
                if !self.c.eat(":") {
                    self.c.int()?;
                    self.c.expect(":")?;
                }
                self.c.int()?;
            }
            return Ok(Some(Location {
                name: None,
                file: Some((text, line.max(0) as u32, col.max(0) as u32)),
            }));
        }
        let child = if self.c.eat("(") {
            let child = self.location_body()?;
            self.c.expect(")")?;
            child
        } else {
            None
        };
        Ok(Some(Location {
            name: Some(text),
            file: child.and_then(|c| c.file),
        }))
    }

    /// Reads a quoted string's bytes: MLIR's escapes are `\\`, `\"`, `\n`,
    /// `\t` and `\XX` (two hex digits).
    pub(crate) fn string_bytes(&mut self) -> Result<Vec<u8>, ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let src = self.c.rest().as_bytes();
        if src.first() != Some(&b'"') {
            return Err(self.c.error("a quoted string"));
        }
        let mut out = Vec::new();
        let mut i = 1;
        while i < src.len() {
            match src[i] {
                b'"' => {
                    self.c.set_pos(start + i + 1);
                    return Ok(out);
                }
                b'\\' => {
                    let hex = |b: u8| (b as char).to_digit(16);
                    match (src.get(i + 1), src.get(i + 2)) {
                        (Some(b'n'), _) => out.push(b'\n'),
                        (Some(b't'), _) => out.push(b'\t'),
                        (Some(b'\\'), _) => out.push(b'\\'),
                        (Some(b'"'), _) => out.push(b'"'),
                        (Some(&a), Some(&b)) if hex(a).is_some() && hex(b).is_some() => {
                            out.push((hex(a).unwrap_or(0) * 16 + hex(b).unwrap_or(0)) as u8);
                            i += 1;
                        }
                        _ => return Err(self.c.message_at(start + i, "a bad string escape")),
                    }
                    i += 2;
                }
                b => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        Err(self.c.message_at(start, "an unterminated string"))
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

    /// A quoted string that must be UTF-8.
    pub(crate) fn string_utf8(&mut self) -> Result<String, ParseError> {
        let start = self.c.pos();
        String::from_utf8(self.string_bytes()?)
            .map_err(|_| self.c.message_at(start, "a string that is not UTF-8"))
    }

    /// `@name` (and `@"quoted name"`).
    pub(crate) fn symbol(&mut self) -> Result<String, ParseError> {
        self.c.expect("@")?;
        if self.c.rest().starts_with('"') {
            return self.string_utf8();
        }
        let rest = self.c.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.c.error("a symbol name"));
        }
        self.c.set_pos(self.c.pos() + len);
        Ok(rest[..len].to_string())
    }
}

/// The more useful of two locations: a name from the first that has one,
/// a file position from the first that has one.
fn merge(a: Option<Location>, b: Option<Location>) -> Option<Location> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Location {
            name: a.name.or(b.name),
            file: a.file.or(b.file),
        }),
        (a, b) => a.or(b),
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
fn bits_to_f64(p: PrimitiveType, bits: u64) -> f64 {
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
