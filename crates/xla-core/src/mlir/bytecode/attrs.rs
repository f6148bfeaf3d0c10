//! Attribute and type entries: the builtin and VHLO dialects' custom
//! bytecode encodings, decoded on demand into [`ir::Attr`] / [`ir::Type`]
//! and memoised, with nesting depth and total size bounded.

use std::rc::Rc;

use super::{BytecodeError, Cur, File, Result, MAX_DEPTH};
use crate::mlir::ir::{Attr, ElementType, Location, Type};
use crate::PrimitiveType;

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

    fn builtin_attr(&mut self, c: &mut Cur<'_>) -> Result<Decoded> {
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

    /// An attribute reference that may be a location or an attribute.
    fn attr_entry_any(&mut self, c: &mut Cur<'_>) -> Result<()> {
        let at = c.clone();
        let i = c.varint()?;
        self.attr_entry(usize::try_from(i).unwrap_or(usize::MAX), &at)?;
        Ok(())
    }

    fn builtin_type(&mut self, c: &mut Cur<'_>) -> Result<Type> {
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

    fn tensor(&mut self, c: &mut Cur<'_>) -> Result<Type> {
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

    fn vhlo_type(&mut self, c: &mut Cur<'_>) -> Result<Type> {
        use PrimitiveType as P;
        let at = c.clone();
        let code = c.varint()?;
        let other = |s: &str| Type::Element(ElementType::Other(s.to_string()));
        Ok(match code {
            0 => known(P::Pred),
            1 => complex(self.ty(c)?),
            2 => known(P::Bf16),
            3 => known(P::F16),
            4 => known(P::F32),
            5 => known(P::F64),
            6 => other("f8E4M3FN"),
            7 => other("f8E5M2"),
            8 => {
                let i = self.types_list(c)?;
                let o = self.types_list(c)?;
                Type::Function(i, o)
            }
            9 => Type::Element(ElementType::Index),
            10 => other("i4"),
            11 => known(P::S8),
            12 => known(P::S16),
            13 => known(P::S32),
            14 => known(P::S64),
            15 => other("ui4"),
            16 => known(P::U8),
            17 => known(P::U16),
            18 => known(P::U32),
            19 => known(P::U64),
            20 | 21 => {
                if code == 21 {
                    self.attr_entry_any(c)?;
                }
                self.tensor(c)?
            }
            22 => Type::Token,
            23 => Type::Tuple(self.types_list(c)?),
            24 | 30 => {
                // Quantized element types: kept by name for the lowering's error.
                c.pos = c.data.len();
                other("!quant.uniform")
            }
            25 => {
                let e = self.ty(c)?;
                return Err(at.unsupported("type", format!("unranked tensor of {e:?}")));
            }
            26 => other("!shape.witness"),
            27 => other("f8E4M3FNUZ"),
            28 => other("f8E5M2FNUZ"),
            29 => other("f8E4M3B11FNUZ"),
            31 => other("i2"),
            32 => other("ui2"),
            33 => other("none"),
            34 => other("tf32"),
            35 => other("f8E4M3"),
            36 => other("f8E3M4"),
            37 => other("f4E2M1FN"),
            38 => other("f6E2M3FN"),
            39 => other("f6E3M2FN"),
            40 => other("f8E8M0FNU"),
            41 => {
                c.pos = c.data.len();
                other("!stablehlo.buffer")
            }
            42 => {
                self.types_list(c)?;
                other("!stablehlo.future")
            }
            other => return Err(at.unsupported("VHLO type", format!("code {other}"))),
        })
    }

    fn vhlo_attr(&mut self, c: &mut Cur<'_>) -> Result<Attr> {
        let at = c.clone();
        let code = c.varint()?;
        Ok(match code {
            1 => Attr::Array(self.attrs_list(c)?),
            2 => match c.varint()? {
                0 => Attr::Bool(false),
                1 => Attr::Bool(true),
                v => return Err(at.malformed("boolean attribute", format!("value {v}"))),
            },
            3 => enum_attr(
                c,
                "comparison_direction",
                &["EQ", "NE", "GE", "GT", "LE", "LT"],
            )?,
            4 => enum_attr(
                c,
                "comparison_type",
                &["NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"],
            )?,
            5 => enum_attr(
                c,
                "custom_call_api_version",
                &[
                    "API_VERSION_UNSPECIFIED",
                    "API_VERSION_ORIGINAL",
                    "API_VERSION_STATUS_RETURNING",
                    "API_VERSION_STATUS_RETURNING_UNIFIED",
                    "API_VERSION_TYPED_FFI",
                ],
            )?,
            6 => self.dict(c)?,
            7 => enum_attr(c, "fft_type", &["FFT", "IFFT", "RFFT", "IRFFT"])?,
            8 => {
                let t = self.ty(c)?;
                let e = element_of(&t, &at)?;
                Attr::Float(read_float(c, &e, &at)?, e)
            }
            9 => {
                let t = self.ty(c)?;
                let e = element_of(&t, &at)?;
                Attr::Int(read_int(c, &e, &at)?, e)
            }
            10 => {
                let out = svarints(c)?;
                let operand = c.svarint()?;
                let operand_tuple = svarints(c)?;
                Attr::Dict(vec![
                    ("output_tuple_indices".into(), Attr::Ints(out)),
                    (
                        "operand_index".into(),
                        Attr::Int(operand, ElementType::Known(PrimitiveType::S64)),
                    ),
                    ("operand_tuple_indices".into(), Attr::Ints(operand_tuple)),
                ])
            }
            11 => enum_attr(c, "precision", &["DEFAULT", "HIGH", "HIGHEST"])?,
            12 => enum_attr(c, "rng_algorithm", &["DEFAULT", "THREE_FRY", "PHILOX"])?,
            13 => enum_attr(c, "rng_distribution", &["", "UNIFORM", "NORMAL"])?,
            14 => Attr::String(self.file.string(c)?.to_vec()),
            15 => {
                let t = self.ty(c)?;
                let raw = blob(c)?;
                vhlo_tensor(t, raw, &at)?
            }
            16 => enum_attr(
                c,
                "transpose",
                &["TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"],
            )?,
            17 => Attr::Type(self.ty(c)?),
            18 => {
                let bounds = svarints(c)?;
                Attr::Opaque(format!("#stablehlo.bounds<{bounds:?}>"))
            }
            19 => enum_attr(
                c,
                "result_accuracy_mode",
                &["DEFAULT", "HIGHEST", "TOLERANCE"],
            )?,
            20 => {
                let f64t = ElementType::Known(PrimitiveType::F64);
                let atol = read_float(c, &f64t, &at)?;
                let rtol = read_float(c, &f64t, &at)?;
                let ulps = c.svarint()?;
                let mode = self.attr(c)?;
                Attr::Dict(vec![
                    ("atol".into(), Attr::Float(atol, f64t.clone())),
                    ("rtol".into(), Attr::Float(rtol, f64t)),
                    (
                        "ulps".into(),
                        Attr::Int(ulps, ElementType::Known(PrimitiveType::S64)),
                    ),
                    ("mode".into(), mode),
                ])
            }
            21..=25 => {
                // Sharding metadata (axis refs, meshes): not read by the lowering.
                c.pos = c.data.len();
                Attr::Opaque(format!("#vhlo.sharding_attr<{code}>"))
            }
            other => return Err(at.unsupported("VHLO attribute", format!("code {other}"))),
        })
    }
}

fn known(p: PrimitiveType) -> Type {
    Type::Element(ElementType::Known(p))
}

fn complex(t: Type) -> Type {
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

fn element_of(t: &Type, at: &Cur<'_>) -> Result<ElementType> {
    match t {
        Type::Element(e) => Ok(e.clone()),
        other => Err(at.malformed(
            "scalar attribute",
            format!("type {other:?} is not an element type"),
        )),
    }
}

fn enum_attr(c: &mut Cur<'_>, kind: &str, names: &[&str]) -> Result<Attr> {
    let at = c.offset();
    let v = c.varint()?;
    match names.get(v as usize).filter(|n| !n.is_empty()) {
        Some(n) => Ok(Attr::Enum(kind.into(), (*n).into())),
        None => Err(BytecodeError::Malformed {
            offset: at,
            what: "enum attribute",
            detail: format!("{kind} value {v}"),
        }),
    }
}

fn svarints(c: &mut Cur<'_>) -> Result<Vec<i64>> {
    let n = c.count("integer list")?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(c.svarint()?);
    }
    Ok(v)
}

fn blob<'a>(c: &mut Cur<'a>) -> Result<&'a [u8]> {
    let n = c.varint()?;
    if n > c.remaining() as u64 {
        return Err(c.truncated("blob"));
    }
    c.take(n as usize, "blob")
}

/// The bit width of an integer element type (index is 64).
fn int_width(e: &ElementType) -> Option<u32> {
    use PrimitiveType as P;
    match e {
        ElementType::Index => Some(64),
        ElementType::Known(p) => match p {
            P::Pred => Some(1),
            P::S8 | P::U8 => Some(8),
            P::S16 | P::U16 => Some(16),
            P::S32 | P::U32 => Some(32),
            P::S64 | P::U64 => Some(64),
            _ => None,
        },
        ElementType::Other(s) => match s.as_str() {
            "i2" | "ui2" => Some(2),
            "i4" | "ui4" => Some(4),
            _ => None,
        },
    }
}

/// An APInt of the element type's width: one byte up to 8 bits, else a
/// signed varint; sign-extended unless the type is unsigned.
fn read_int(c: &mut Cur<'_>, e: &ElementType, at: &Cur<'_>) -> Result<i64> {
    let w =
        int_width(e).ok_or_else(|| at.unsupported("integer attribute", format!("type {e:?}")))?;
    let raw = if w <= 8 {
        u64::from(c.byte()?)
    } else {
        c.svarint()? as u64
    };
    let unsigned = matches!(
        e,
        ElementType::Known(
            PrimitiveType::Pred
                | PrimitiveType::U8
                | PrimitiveType::U16
                | PrimitiveType::U32
                | PrimitiveType::U64
        )
    ) || matches!(e, ElementType::Other(s) if s.starts_with("ui"));
    if w == 64 {
        return Ok(raw as i64);
    }
    let masked = raw & ((1u64 << w) - 1);
    if unsigned {
        Ok(masked as i64)
    } else {
        let shift = 64 - w;
        Ok(((masked << shift) as i64) >> shift)
    }
}

/// An APFloat: the bits of the float type as an APInt.
fn read_float(c: &mut Cur<'_>, e: &ElementType, at: &Cur<'_>) -> Result<f64> {
    use PrimitiveType as P;
    let bits = match e {
        ElementType::Known(P::F16 | P::Bf16) => c.svarint()? as u64 & 0xffff,
        ElementType::Known(P::F32) => c.svarint()? as u64 & 0xffff_ffff,
        ElementType::Known(P::F64) => c.svarint()? as u64,
        other => return Err(at.unsupported("float attribute", format!("type {other:?}"))),
    };
    Ok(match e {
        ElementType::Known(P::F16) => f64::from(half::f16::from_bits(bits as u16)),
        ElementType::Known(P::Bf16) => f64::from(half::bf16::from_bits(bits as u16)),
        ElementType::Known(P::F32) => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    })
}

/// The byte size of one stored element, when known.
pub(crate) fn element_bytes(e: &ElementType) -> Option<usize> {
    match e {
        ElementType::Known(p) => Some(p.byte_size()),
        ElementType::Index => Some(8),
        ElementType::Other(_) => None,
    }
}

fn num_elements(dims: &[Option<i64>], at: &Cur<'_>) -> Result<usize> {
    let mut n: usize = 1;
    for d in dims {
        let d = d.ok_or_else(|| at.malformed("dense attribute", "dynamic dimension"))?;
        n = n
            .checked_mul(d as usize)
            .filter(|&n| n <= 1 << 40)
            .ok_or_else(|| at.malformed("dense attribute", "element count overflows"))?;
    }
    Ok(n)
}

/// A builtin dense attribute: the raw buffer, a splat when it holds one
/// element (i1 elements are bytes here, as MLIR stores them in memory for
/// this attribute's raw data after VHLO's unpacking).
fn dense(ty: Type, raw: &[u8], at: &Cur<'_>) -> Result<Attr> {
    let (element, dims) = match &ty {
        Type::Tensor { element, dims } => (element.clone(), dims.clone()),
        other => return Err(at.malformed("dense attribute", format!("type {other:?}"))),
    };
    let n = num_elements(&dims, at)?;
    let mut bytes = raw.to_vec();
    let pred = element == ElementType::Known(PrimitiveType::Pred);
    if pred && raw.len() != n && !(raw.len() == 1 && (raw[0] == 0 || raw[0] == 0xff)) {
        // Builtin i1 buffers are bit-packed.
        if raw.len() != n.div_ceil(8) {
            return Err(at.malformed("dense attribute", "i1 data has the wrong size"));
        }
        bytes = (0..n).map(|i| (raw[i / 8] >> (i % 8)) & 1).collect();
    }
    finish_dense(ty, element, n, bytes, pred, at)
}

/// A VHLO tensor attribute: raw data, i1 bit-packed (`0xFF` a true splat).
fn vhlo_tensor(ty: Type, raw: &[u8], at: &Cur<'_>) -> Result<Attr> {
    let (element, dims) = match &ty {
        Type::Tensor { element, dims } => (element.clone(), dims.clone()),
        other => return Err(at.malformed("tensor attribute", format!("type {other:?}"))),
    };
    let n = num_elements(&dims, at)?;
    let pred = element == ElementType::Known(PrimitiveType::Pred);
    let bytes = if !pred {
        raw.to_vec()
    } else if raw.len() == 1 && n > 1 && (raw[0] == 0xff || raw[0] == 0) {
        vec![u8::from(raw[0] == 0xff)]
    } else if raw.len() == n.div_ceil(8) && raw.len() != n {
        (0..n).map(|i| (raw[i / 8] >> (i % 8)) & 1).collect()
    } else {
        raw.to_vec()
    };
    finish_dense(ty, element, n, bytes, pred, at)
}

fn finish_dense(
    ty: Type,
    element: ElementType,
    n: usize,
    mut bytes: Vec<u8>,
    pred: bool,
    at: &Cur<'_>,
) -> Result<Attr> {
    if pred {
        for b in &mut bytes {
            *b = u8::from(*b != 0);
        }
    }
    if let Some(size) = element_bytes(&element) {
        // MLIR stores a constant of an empty tensor as a splat of one
        // element (`dense<1> : tensor<0xi16>`): it has no elements.
        if n == 0 && bytes.len() == size {
            bytes.clear();
        }
        if bytes.len() != size * n && !(bytes.len() == size && n > 0) {
            return Err(at.malformed(
                "dense attribute",
                format!("{} bytes for {n} elements of {size} bytes", bytes.len()),
            ));
        }
        let splat = bytes.len() == size && n > 0;
        return Ok(Attr::Dense { ty, bytes, splat });
    }
    Ok(Attr::Dense {
        ty,
        bytes,
        splat: false,
    })
}

/// A builtin `array<T: …>`: integer lists as [`Attr::Ints`], i1 lists as
/// [`Attr::Bools`], float lists as a one-dimensional dense attribute.
fn dense_array(e: &ElementType, n: u64, raw: &[u8], at: &Cur<'_>) -> Result<Attr> {
    let size = element_bytes(e)
        .ok_or_else(|| at.unsupported("dense array", format!("element type {e:?}")))?;
    if (raw.len() as u64) != n.saturating_mul(size as u64) {
        return Err(at.malformed("dense array", "data size does not match the element count"));
    }
    if *e == ElementType::Known(PrimitiveType::Pred) {
        return Ok(Attr::Bools(raw.iter().map(|&b| b != 0).collect()));
    }
    if let Some(v) = ints_from_le(e, raw) {
        return Ok(Attr::Ints(v));
    }
    Ok(Attr::Dense {
        ty: Type::Tensor {
            element: e.clone(),
            dims: vec![Some(n as i64)],
        },
        bytes: raw.to_vec(),
        splat: false,
    })
}

/// Little-endian integers of an integer element type, sign- or
/// zero-extended to `i64`.
pub(crate) fn ints_from_le(e: &ElementType, raw: &[u8]) -> Option<Vec<i64>> {
    use PrimitiveType as P;
    let (size, signed) = match e {
        ElementType::Known(P::S8) => (1, true),
        ElementType::Known(P::S16) => (2, true),
        ElementType::Known(P::S32) => (4, true),
        ElementType::Known(P::S64) => (8, true),
        ElementType::Known(P::U8) => (1, false),
        ElementType::Known(P::U16) => (2, false),
        ElementType::Known(P::U32) => (4, false),
        ElementType::Known(P::U64) => (8, false),
        ElementType::Index => (8, true),
        _ => return None,
    };
    Some(
        raw.chunks_exact(size)
            .map(|ch| {
                let mut w = [0u8; 8];
                w[..size].copy_from_slice(ch);
                let v = u64::from_le_bytes(w);
                if signed && size < 8 {
                    let shift = 64 - 8 * size as u32;
                    ((v << shift) as i64) >> shift
                } else {
                    v as i64
                }
            })
            .collect(),
    )
}
