//! Attribute and type entries: the builtin and VHLO dialects' custom
//! bytecode encodings, decoded on demand into [`ir::Attr`] / [`ir::Type`]
//! and memoised, with nesting depth and total size bounded.

mod builtin;
mod data;
mod vhlo;

use std::rc::Rc;

use super::{BytecodeError, Cur, File, Result, MAX_DEPTH};
use crate::mlir::ir::{Attr, ElementType, Location, Type};

pub(crate) use data::ints_from_le;

/// A decoded attribute entry: an attribute or a location.
#[derive(Clone, Debug)]
pub(crate) enum Decoded {
    Attr(Attr),
    Loc(Location),
}

#[derive(Clone)]
enum Slot<T> {
    Todo,
    Busy,
    Done(Rc<T>, usize),
}

/// Decodes attribute and type entries of one file.
pub(crate) struct Tables<'f, 'a> {
    pub(super) file: &'f File<'a>,
    attrs: Vec<Slot<Decoded>>,
    types: Vec<Slot<Type>>,
    depth: usize,
    spent: usize,
    limit: usize,
}

/// The approximate size of an attribute, in nodes plus bytes.
pub(crate) fn attr_size(a: &Attr) -> usize {
    match a {
        Attr::String(b) => 1 + b.len(),
        Attr::Opaque(s) | Attr::Symbol(s) => 1 + s.len(),
        Attr::Array(v) => 1 + v.iter().map(attr_size).sum::<usize>(),
        Attr::Ints(v) => 1 + v.len() * 8,
        Attr::Bools(v) => 1 + v.len(),
        Attr::Dense { ty, bytes, .. } => 1 + type_size(ty) + bytes.len(),
        Attr::Type(t) => 1 + type_size(t),
        Attr::Dict(v) => 1 + v.iter().map(|(k, a)| k.len() + attr_size(a)).sum::<usize>(),
        Attr::Enum(k, v) => 1 + k.len() + v.len(),
        _ => 1,
    }
}

fn type_size(t: &Type) -> usize {
    match t {
        Type::Tensor { dims, .. } => 2 + dims.len(),
        Type::Tuple(v) => 1 + v.iter().map(type_size).sum::<usize>(),
        Type::Function(i, o) => 1 + i.iter().chain(o).map(type_size).sum::<usize>(),
        Type::Element(ElementType::Other(s)) => 1 + s.len(),
        _ => 1,
    }
}

impl<'f, 'a> Tables<'f, 'a> {
    pub(crate) fn new(file: &'f File<'a>) -> Self {
        Tables {
            file,
            attrs: vec![Slot::Todo; file.attrs.len()],
            types: vec![Slot::Todo; file.types.len()],
            depth: 0,
            spent: 0,
            limit: file.len.saturating_mul(64).saturating_add(1 << 24),
        }
    }

    /// Charges `n` units to the size budget.
    pub(crate) fn charge(&mut self, n: usize) -> Result<()> {
        self.spent = self.spent.saturating_add(n);
        if self.spent > self.limit {
            return Err(BytecodeError::TooLarge { limit: self.limit });
        }
        Ok(())
    }

    /// The attribute entry `index`, referenced at `c`.
    pub(crate) fn attr_entry(&mut self, index: usize, at: &Cur<'_>) -> Result<Rc<Decoded>> {
        match &self.attrs.get(index) {
            None => {
                return Err(
                    at.malformed("attribute reference", format!("index {index} out of range"))
                )
            }
            Some(Slot::Done(a, size)) => {
                let (a, size) = (a.clone(), *size);
                self.charge(size)?;
                return Ok(a);
            }
            Some(Slot::Busy) => return Err(at.malformed("attribute reference", "cyclic reference")),
            Some(Slot::Todo) => {}
        }
        if self.depth >= MAX_DEPTH {
            return Err(BytecodeError::TooDeep {
                offset: at.offset(),
                what: "attributes",
            });
        }
        self.attrs[index] = Slot::Busy;
        self.depth += 1;
        let r = self.decode_attr_entry(index);
        self.depth -= 1;
        let d = r?;
        let size = match &d {
            Decoded::Attr(a) => attr_size(a),
            Decoded::Loc(_) => 1,
        };
        self.charge(size)?;
        let d = Rc::new(d);
        self.attrs[index] = Slot::Done(d.clone(), size);
        Ok(d)
    }

    /// A reference to an attribute: a varint index.
    pub(crate) fn attr(&mut self, c: &mut Cur<'_>) -> Result<Attr> {
        let at = c.clone();
        let i = c.varint()?;
        let i = usize::try_from(i).unwrap_or(usize::MAX);
        match &*self.attr_entry(i, &at)? {
            Decoded::Attr(a) => Ok(a.clone()),
            Decoded::Loc(_) => {
                Err(at.malformed("attribute", "a location where an attribute is expected"))
            }
        }
    }

    /// A reference to a location attribute (unknown-shaped ones give `None`).
    pub(crate) fn loc(&mut self, c: &mut Cur<'_>) -> Result<Option<Location>> {
        let at = c.clone();
        let i = c.varint()?;
        let i = usize::try_from(i).unwrap_or(usize::MAX);
        Ok(match &*self.attr_entry(i, &at)? {
            Decoded::Loc(l) => Some(l.clone()).filter(|l| l != &Location::default()),
            Decoded::Attr(_) => None,
        })
    }

    /// A reference to a type: a varint index.
    pub(crate) fn ty(&mut self, c: &mut Cur<'_>) -> Result<Type> {
        let at = c.clone();
        let i = c.varint()?;
        self.type_at(usize::try_from(i).unwrap_or(usize::MAX), &at)
    }

    pub(crate) fn type_at(&mut self, index: usize, at: &Cur<'_>) -> Result<Type> {
        match &self.types.get(index) {
            None => {
                return Err(at.malformed("type reference", format!("index {index} out of range")))
            }
            Some(Slot::Done(t, size)) => {
                let (t, size) = ((**t).clone(), *size);
                self.charge(size)?;
                return Ok(t);
            }
            Some(Slot::Busy) => return Err(at.malformed("type reference", "cyclic reference")),
            Some(Slot::Todo) => {}
        }
        if self.depth >= MAX_DEPTH {
            return Err(BytecodeError::TooDeep {
                offset: at.offset(),
                what: "types",
            });
        }
        self.types[index] = Slot::Busy;
        self.depth += 1;
        let r = self.decode_type_entry(index);
        self.depth -= 1;
        let t = r?;
        let size = type_size(&t);
        self.charge(size)?;
        self.types[index] = Slot::Done(Rc::new(t.clone()), size);
        Ok(t)
    }

    fn decode_attr_entry(&mut self, index: usize) -> Result<Decoded> {
        let e = &self.file.attrs[index];
        let mut c = e.data.clone();
        let dialect = self.file.dialects[e.dialect].clone();
        let d = if !e.custom {
            let text = String::from_utf8_lossy(c.cstr("attribute text")?).into_owned();
            Decoded::Attr(Attr::Opaque(text))
        } else {
            match dialect.as_str() {
                "builtin" => self.builtin_attr(&mut c)?,
                "vhlo" => Decoded::Attr(self.vhlo_attr(&mut c)?),
                "sdy" => Decoded::Attr(self.sdy_attr(&mut c)?),
                other => {
                    c.pos = c.data.len();
                    Decoded::Attr(Attr::Opaque(format!("#{other}<custom bytecode>")))
                }
            }
        };
        if !c.is_empty() {
            return Err(c.malformed("attribute", "trailing bytes after the entry"));
        }
        Ok(d)
    }

    fn decode_type_entry(&mut self, index: usize) -> Result<Type> {
        let e = &self.file.types[index];
        let mut c = e.data.clone();
        let dialect = self.file.dialects[e.dialect].clone();
        let t = if !e.custom {
            let text = String::from_utf8_lossy(c.cstr("type text")?).into_owned();
            Type::Element(ElementType::Other(text))
        } else {
            match dialect.as_str() {
                "builtin" => self.builtin_type(&mut c)?,
                "vhlo" => self.vhlo_type(&mut c)?,
                other => {
                    c.pos = c.data.len();
                    Type::Element(ElementType::Other(format!("!{other}.custom")))
                }
            }
        };
        if !c.is_empty() {
            return Err(c.malformed("type", "trailing bytes after the entry"));
        }
        Ok(t)
    }

    fn attrs_list(&mut self, c: &mut Cur<'_>) -> Result<Vec<Attr>> {
        let n = c.count("attribute list")?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.attr(c)?);
        }
        Ok(v)
    }

    fn types_list(&mut self, c: &mut Cur<'_>) -> Result<Vec<Type>> {
        let n = c.count("type list")?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.ty(c)?);
        }
        Ok(v)
    }

    fn dict(&mut self, c: &mut Cur<'_>) -> Result<Attr> {
        let n = c.count("dictionary")?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let at = c.clone();
            let key = match self.attr(c)? {
                Attr::String(s) => String::from_utf8_lossy(&s).into_owned(),
                other => {
                    return Err(
                        at.malformed("dictionary", format!("key is not a string: {other:?}"))
                    )
                }
            };
            v.push((key, self.attr(c)?));
        }
        Ok(Attr::Dict(v))
    }

    fn string_attr(&mut self, c: &mut Cur<'_>) -> Result<String> {
        let at = c.clone();
        match self.attr(c)? {
            Attr::String(s) => Ok(String::from_utf8_lossy(&s).into_owned()),
            other => Err(at.malformed("attribute", format!("expected a string, found {other:?}"))),
        }
    }

    fn loc_ref(&mut self, c: &mut Cur<'_>) -> Result<Location> {
        Ok(self.loc(c)?.unwrap_or_default())
    }

    /// An attribute reference that may be a location or an attribute.
    fn attr_entry_any(&mut self, c: &mut Cur<'_>) -> Result<()> {
        let at = c.clone();
        let i = c.varint()?;
        self.attr_entry(usize::try_from(i).unwrap_or(usize::MAX), &at)?;
        Ok(())
    }
}
