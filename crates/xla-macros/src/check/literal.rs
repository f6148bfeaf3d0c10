//! Literals: `2.0`, `-1`, `true`, `2.0f32`, `f32::INFINITY`, and sizes used
//! as values (`x / N`).
//!
//! An unsuffixed number is *weak*: it takes the element type of the
//! operand it meets (`x * 2` with `x: f32[N]` multiplies by `2f32`), and
//! must be a valid value of that type (`x + 2.5` with `x: s32[N]` is an
//! error, as is `x + 300` with `x: u8[N]`). Where nothing gives it a type,
//! it defaults as in JAX: `s32` for integers, `f32` for floats.

use xla_core::{PrimitiveType, Shape};

use super::scope::{Deferred, Ty, Val, Weak};
use super::Checker;
use crate::ast::{LitValue, Range};
use crate::ir::Instr;
use crate::types::{element_type, suffix_type};

/// The type a weak literal gets when nothing else decides.
pub fn default_type(weak: &Weak) -> PrimitiveType {
    match weak {
        Weak::Int(_) | Weak::Size(_) => PrimitiveType::S32,
        Weak::Float(_) | Weak::Deferred(_) => PrimitiveType::F32,
    }
}

/// The largest finite value of a floating-point type.
fn float_max(ty: PrimitiveType) -> f64 {
    match ty {
        PrimitiveType::F16 => 65504.0,
        PrimitiveType::Bf16 => 3.389_531_389_251_535e38,
        PrimitiveType::F32 | PrimitiveType::C64 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// `value` as a constant of `ty`, or why it is not one.
fn convert(weak: &Weak, ty: PrimitiveType) -> Result<Option<LitValue>, String> {
    match weak {
        Weak::Deferred(_) => unreachable!("materialize computes deferred numbers"),
        Weak::Size(_) if ty.is_pred() => Err("a size is not a pred value".to_string()),
        Weak::Size(_) => Ok(None),
        Weak::Int(_) if ty.is_pred() => {
            Err("pred values are `true` and `false`, not integers".to_string())
        }
        Weak::Int(v) if ty.is_integral() => {
            let (lo, hi) = ty.integer_range().expect("an integral type");
            if (lo..=hi).contains(v) {
                Ok(Some(LitValue::Int(*v)))
            } else {
                Err(format!("it is out of range for {ty} ({lo} to {hi})"))
            }
        }
        Weak::Int(v) => Ok(Some(LitValue::Float(*v as f64))),
        Weak::Float(_) if !(ty.is_floating() || ty.is_complex()) => Err(format!(
            "{ty} is not a floating-point type; write an integer"
        )),
        Weak::Float(v) if v.is_finite() && v.abs() > float_max(ty) => Err(format!(
            "it overflows {ty} (largest finite value {})",
            float_max(ty)
        )),
        Weak::Float(v) => Ok(Some(LitValue::Float(*v))),
    }
}

/// Whether `weak` is a valid value of `ty`.
pub fn fits(weak: &Weak, ty: PrimitiveType) -> bool {
    match weak {
        Weak::Deferred(_) => ty.is_floating() || ty.is_complex(),
        _ => convert(weak, ty).is_ok(),
    }
}

fn describe(weak: &Weak) -> String {
    match weak {
        Weak::Int(v) => v.to_string(),
        Weak::Float(v) => format!("{v:?}"),
        Weak::Size(_) => "the size".to_string(),
        Weak::Deferred(_) => "the expression".to_string(),
    }
}

impl Checker<'_> {
    /// A literal as written: suffixed literals have their type now,
    /// `true`/`false` are `pred`, other numbers are weak.
    pub fn literal(&mut self, value: &LitValue, suffix: Option<&str>, range: Range) -> Val {
        let weak = match value {
            LitValue::Bool(_) => {
                let id = self
                    .frames
                    .push_instr(Instr::Constant(PrimitiveType::Pred, value.clone()));
                return Val::shape(Shape::scalar(PrimitiveType::Pred), id, range);
            }
            LitValue::Int(v) => Weak::Int(*v),
            LitValue::Float(v) => Weak::Float(*v),
        };
        let val = Val {
            ty: Ty::Weak(weak),
            id: None,
            range,
        };
        match suffix {
            None => val,
            Some(suffix) => match suffix_type(suffix) {
                Some(ty) => self.materialize(&val, ty),
                None => {
                    self.error(range, format!("unknown literal suffix `{suffix}`; use an element type such as `f32` or `s32`"));
                    Val::error(range)
                }
            },
        }
    }

    /// A weak value as a scalar constant of `ty` (reports values that do
    /// not fit). Other values are returned as they are.
    pub fn materialize(&mut self, value: &Val, ty: PrimitiveType) -> Val {
        let Ty::Weak(weak) = &value.ty else {
            return value.clone();
        };
        if let Weak::Deferred(deferred) = weak {
            return self.materialize_deferred(deferred, ty, value.range);
        }
        let instr = match convert(weak, ty) {
            Ok(Some(lit)) => Instr::Constant(ty, lit),
            Ok(None) => {
                let Weak::Size(size) = weak else {
                    unreachable!("only sizes convert without a value")
                };
                Instr::SizeConstant(ty, size.clone())
            }
            Err(why) => {
                let text = format!("the literal {} is not a valid {ty}: {why}", describe(weak));
                self.error(value.range, text);
                return Val::error(value.range);
            }
        };
        let id = self.frames.push_instr(instr);
        Val::shape(Shape::scalar(ty), id, value.range)
    }

    /// A deferred weak number computed in `ty`: its operands become
    /// constants of `ty`, then the op applies.
    fn materialize_deferred(
        &mut self,
        deferred: &Deferred,
        ty: PrimitiveType,
        range: Range,
    ) -> Val {
        match deferred {
            Deferred::Binary(op, l, r) => {
                let (l, r) = (self.materialize(l, ty), self.materialize(r, ty));
                if l.is_error() || r.is_error() {
                    return Val::error(range);
                }
                self.binary_values(*op, l, r, range)
            }
            Deferred::Unary(opcode, builder, x) => {
                let x = self.materialize(x, ty);
                if x.is_error() {
                    return Val::error(range);
                }
                self.unary(*opcode, builder, x, range)
            }
        }
    }

    /// A weak value with its default type; other values as they are.
    pub fn concrete(&mut self, value: Val) -> Val {
        match &value.ty {
            Ty::Weak(weak) => {
                let ty = default_type(weak);
                self.materialize(&value, ty)
            }
            Ty::Shape(_) | Ty::Error => value,
        }
    }

    /// `f32::INFINITY`, `s32::MAX` and friends.
    pub fn path_constant(
        &mut self,
        ty: &syn::Ident,
        item: &syn::Ident,
        consts: bool,
        range: Range,
    ) -> Val {
        let ty = match element_type(ty) {
            Ok(t) => t,
            Err(e) => {
                self.errors.push(e);
                return Val::error(range);
            }
        };
        let name = item.to_string();
        if consts {
            return self.math_constant(ty, item, range);
        }
        let value = if ty.is_floating() {
            let max = float_max(ty);
            match name.as_str() {
                "INFINITY" => Some(f64::INFINITY),
                "NEG_INFINITY" => Some(f64::NEG_INFINITY),
                "NAN" => Some(f64::NAN),
                "MAX" => Some(max),
                "MIN" => Some(-max),
                "EPSILON" => ty.float_bits().map(|(_, m)| 2f64.powi(-(m as i32))),
                _ => None,
            }
            .map(LitValue::Float)
        } else if let Some((lo, hi)) = ty.integer_range() {
            match name.as_str() {
                "MAX" => Some(LitValue::Int(hi)),
                "MIN" => Some(LitValue::Int(lo)),
                _ => None,
            }
        } else {
            None
        };
        let Some(value) = value else {
            let names = if ty.is_floating() {
                "INFINITY, NEG_INFINITY, NAN, MAX, MIN, EPSILON"
            } else if ty.is_integral() {
                "MAX, MIN"
            } else {
                "none"
            };
            self.error(
                Range::single(item.span()),
                format!("no constant `{ty}::{name}`; the constants of {ty} are: {names}"),
            );
            return Val::error(range);
        };
        let id = self.frames.push_instr(Instr::Constant(ty, value));
        Val::shape(Shape::scalar(ty), id, range)
    }

    /// `std::f32::consts::PI` and the other constants of Rust's
    /// `std::f64::consts`, for every floating-point type (rounded to it).
    fn math_constant(&mut self, ty: PrimitiveType, item: &syn::Ident, range: Range) -> Val {
        use std::f64::consts;
        let name = item.to_string();
        if !ty.is_floating() {
            let text = format!(
                "no constant `{ty}::consts::{name}`: only floating-point types have `consts`"
            );
            self.error(range, text);
            return Val::error(range);
        }
        let value = match name.as_str() {
            "PI" => consts::PI,
            "TAU" => consts::TAU,
            "E" => consts::E,
            "SQRT_2" => consts::SQRT_2,
            "FRAC_1_SQRT_2" => consts::FRAC_1_SQRT_2,
            "LN_2" => consts::LN_2,
            "LN_10" => consts::LN_10,
            "LOG2_E" => consts::LOG2_E,
            "LOG10_E" => consts::LOG10_E,
            "LOG2_10" => consts::LOG2_10,
            "LOG10_2" => consts::LOG10_2,
            "FRAC_PI_2" => consts::FRAC_PI_2,
            "FRAC_PI_3" => consts::FRAC_PI_3,
            "FRAC_PI_4" => consts::FRAC_PI_4,
            "FRAC_PI_6" => consts::FRAC_PI_6,
            "FRAC_PI_8" => consts::FRAC_PI_8,
            "FRAC_1_PI" => consts::FRAC_1_PI,
            "FRAC_2_PI" => consts::FRAC_2_PI,
            "FRAC_2_SQRT_PI" => consts::FRAC_2_SQRT_PI,
            _ => {
                self.error(
                    Range::single(item.span()),
                    format!(
                        "no constant `{ty}::consts::{name}`; the constants are those of Rust's \
                         `std::f64::consts` (PI, TAU, E, SQRT_2, LN_2, …)"
                    ),
                );
                return Val::error(range);
            }
        };
        let id = self
            .frames
            .push_instr(Instr::Constant(ty, LitValue::Float(value)));
        Val::shape(Shape::scalar(ty), id, range)
    }

    /// The shape of a dimension used as a value: a weak size.
    pub fn size_value(&mut self, size: crate::ast::DimExpr, range: Range) -> Val {
        Val {
            ty: Ty::Weak(Weak::Size(size)),
            id: None,
            range,
        }
    }
}
