//! The builtin dialect's attributes and types: lists, dictionaries,
//! strings, symbols, scalars, locations, dense data; integer, float,
//! complex, function, tensor and tuple types.

use super::data::{blob, dense, dense_array, element_of, read_float, read_int};
use super::{Decoded, Tables};
use crate::mlir::bytecode::{BytecodeError, Cur, Result};
use crate::mlir::ir::{Attr, ElementType, Location, Type};
use crate::PrimitiveType;

impl Tables<'_, '_> {
    pub(super) fn builtin_attr(&mut self, c: &mut Cur<'_>) -> Result<Decoded> {
        let at = c.clone();
        let code = c.varint()?;
        let a = match code {
            0 => Attr::Array(self.attrs_list(c)?),
            1 => self.dict(c)?,
            2 => Attr::String(self.file.string(c)?.to_vec()),
            3 => {
                let s = self.file.string(c)?.to_vec();
                self.ty(c)?;
                Attr::String(s)
            }
            4 => Attr::Symbol(self.string_attr(c)?),
            5 => {
                let mut s = self.string_attr(c)?;
                let n = c.count("symbol reference")?;
                for _ in 0..n {
                    match self.attr(c)? {
                        Attr::Symbol(leaf) => {
                            s.push_str("::@");
                            s.push_str(&leaf);
                        }
                        other => return Err(at.malformed("symbol reference", format!("{other:?}"))),
                    }
                }
                Attr::Symbol(s)
            }
            6 => Attr::Type(self.ty(c)?),
            7 => Attr::Unit,
            8 => {
                let t = self.ty(c)?;
                let e = element_of(&t, &at)?;
                let v = read_int(c, &e, &at)?;
                if e == ElementType::Known(PrimitiveType::Pred) {
                    Attr::Bool(v != 0)
                } else {
                    Attr::Int(v, e)
                }
            }
            9 => {
                let t = self.ty(c)?;
                let e = element_of(&t, &at)?;
                Attr::Float(read_float(c, &e, &at)?, e)
            }
            10 => {
                let callee = self.loc_ref(c)?;
                let caller = self.loc_ref(c)?;
                return Ok(Decoded::Loc(Location {
                    name: callee.name.or(caller.name),
                    file: callee.file.or(caller.file),
                }));
            }
            11 => {
                let f = self.string_attr(c)?;
                let line = c.varint()?;
                let col = c.varint()?;
                return Ok(Decoded::Loc(Location {
                    name: None,
                    file: Some((f, line as u32, col as u32)),
                }));
            }
            12 | 13 => {
                let n = c.count("fused location")?;
                let mut l = Location::default();
                for _ in 0..n {
                    let sub = self.loc_ref(c)?;
                    l.name = l.name.or(sub.name);
                    l.file = l.file.or(sub.file);
                }
                if code == 13 {
                    self.attr_entry_any(c)?;
                }
                return Ok(Decoded::Loc(l));
            }
            14 => {
                let name = self.string_attr(c)?;
                let child = self.loc_ref(c)?;
                return Ok(Decoded::Loc(Location {
                    name: Some(name),
                    file: child.file,
                }));
            }
            15 => return Ok(Decoded::Loc(Location::default())),
            17 => {
                let t = self.ty(c)?;
                let e = element_of(&t, &at)?;
                let n = c.varint()?;
                let blob = blob(c)?;
                dense_array(&e, n, blob, &at)?
            }
            18 => {
                let t = self.ty(c)?;
                let raw = blob(c)?;
                dense(t, raw, &at)?
            }
            22 => {
                let f = self.string_attr(c)?;
                let n = c.count("file location")?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(c.varint()?);
                }
                let line = v.first().copied().unwrap_or(0);
                let col = v.get(1).copied().unwrap_or(0);
                return Ok(Decoded::Loc(Location {
                    name: None,
                    file: Some((f, line as u32, col as u32)),
                }));
            }
            other => return Err(at.unsupported("builtin attribute", format!("code {other}"))),
        };
        Ok(Decoded::Attr(a))
    }

    pub(super) fn builtin_type(&mut self, c: &mut Cur<'_>) -> Result<Type> {
        let at = c.clone();
        let code = c.varint()?;
        Ok(match code {
            0 => {
                let ws = c.varint()?;
                let (w, s) = (ws >> 2, ws & 3);
                Type::Element(int_type(w, s))
            }
            1 => Type::Element(ElementType::Index),
            2 => {
                let i = self.types_list(c)?;
                let o = self.types_list(c)?;
                Type::Function(i, o)
            }
            3 => known(PrimitiveType::Bf16),
            4 => known(PrimitiveType::F16),
            5 => known(PrimitiveType::F32),
            6 => known(PrimitiveType::F64),
            9 => complex(self.ty(c)?),
            12 => Type::Element(ElementType::Other("none".into())),
            13 | 14 => {
                if code == 14 {
                    self.attr_entry_any(c)?;
                }
                self.tensor(c)?
            }
            15 => Type::Tuple(self.types_list(c)?),
            other => return Err(at.unsupported("builtin type", format!("code {other}"))),
        })
    }

    pub(super) fn tensor(&mut self, c: &mut Cur<'_>) -> Result<Type> {
        let n = c.count("tensor shape")?;
        let mut dims = Vec::with_capacity(n);
        for _ in 0..n {
            let at = c.offset();
            let d = c.svarint()?;
            dims.push(match d {
                i64::MIN => None,
                d if d >= 0 => Some(d),
                d => {
                    return Err(BytecodeError::Malformed {
                        offset: at,
                        what: "tensor type",
                        detail: format!("dimension {d}"),
                    })
                }
            });
        }
        let at = c.clone();
        let element = match self.ty(c)? {
            Type::Element(e) => e,
            other => return Err(at.malformed("tensor type", format!("element type {other:?}"))),
        };
        Ok(Type::Tensor { element, dims })
    }
}

pub(super) fn known(p: PrimitiveType) -> Type {
    Type::Element(ElementType::Known(p))
}

pub(super) fn complex(t: Type) -> Type {
    match t {
        Type::Element(ElementType::Known(PrimitiveType::F32)) => known(PrimitiveType::C64),
        Type::Element(ElementType::Known(PrimitiveType::F64)) => known(PrimitiveType::C128),
        other => Type::Element(ElementType::Other(format!("complex<{other:?}>"))),
    }
}

fn int_type(width: u64, signedness: u64) -> ElementType {
    use PrimitiveType as P;
    let p = match (width, signedness) {
        (1, _) => Some(P::Pred),
        (8, 0 | 1) => Some(P::S8),
        (16, 0 | 1) => Some(P::S16),
        (32, 0 | 1) => Some(P::S32),
        (64, 0 | 1) => Some(P::S64),
        (8, 2) => Some(P::U8),
        (16, 2) => Some(P::U16),
        (32, 2) => Some(P::U32),
        (64, 2) => Some(P::U64),
        _ => None,
    };
    match p {
        Some(p) => ElementType::Known(p),
        None => ElementType::Other(format!(
            "{}i{width}",
            ["", "si", "ui", ""][signedness as usize & 3]
        )),
    }
}
