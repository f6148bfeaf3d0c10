//! Types: `tensor<2x?xf32>`, tuples, function types and element types.

use crate::mlir::ir::{ElementType, Type};
use crate::mlir::text::Parser;
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
}
