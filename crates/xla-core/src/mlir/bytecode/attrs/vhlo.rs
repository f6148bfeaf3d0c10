//! The VHLO dialect's attributes and types: its element types, enums,
//! scalars, tensors, output-operand aliases and result accuracies.

use super::builtin::{complex, known};
use super::data::{blob, element_of, read_float, read_int, vhlo_tensor};
use super::Tables;
use crate::mlir::bytecode::{BytecodeError, Cur, Result};
use crate::mlir::ir::{Attr, ElementType, Type};
use crate::PrimitiveType;

impl Tables<'_, '_> {
    pub(super) fn vhlo_type(&mut self, c: &mut Cur<'_>) -> Result<Type> {
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

    pub(super) fn vhlo_attr(&mut self, c: &mut Cur<'_>) -> Result<Attr> {
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
