//! `chlo` ops: each expanded into the HLO XLA makes of it, porting
//! StableHLO's `ChloLegalizeToStablehlo.cpp` and
//! `ChloDecompositionPatterns*.td` (same formulas, constants, upcasts of
//! `f16`/`bf16` to `f32` and `f32`/`f64` variants).

mod special;
mod trig;

use super::{shape, OpResult};
use crate::hlo::{ComparisonDirection, ComparisonType};
use crate::mlir::ir::{Attr, Operation};
use crate::{Literal, PrimitiveType, XlaBuilder, XlaOp};

/// Lowers the `chlo` op `op` with operands `args`; returns its results.
pub(crate) fn lower(b: &XlaBuilder, op: &Operation, args: &[XlaOp]) -> OpResult<Vec<XlaOp>> {
    let name = op.name.trim_start_matches("chlo.");
    let g = G(b);
    let x = *args.first().ok_or("an operand")?;
    let one = match name {
        "top_k" => {
            let k = match op.attr("k") {
                Some(Attr::Int(k, _)) => *k,
                _ => return Err("missing `k`".into()),
            };
            let t = built(b.top_k(x, k, true))?;
            return Ok(vec![
                built(b.get_tuple_element(t, 0))?,
                built(b.get_tuple_element(t, 1))?,
            ]);
        }
        "conj" => built(b.conj(x))?,
        "erf" => built(b.erf(x))?,
        "erfc" => special::erfc(&g, x)?,
        "erf_inv" => special::erf_inv(&g, x)?,
        "lgamma" => g.upcast(&[x], |g, a| special::lgamma(g, a[0]))?,
        "digamma" => g.upcast(&[x], |g, a| special::digamma(g, a[0]))?,
        "bessel_i1e" => special::bessel_i1e(&g, x)?,
        "is_inf" => {
            let a = g.abs(x)?;
            g.cmp(a, g.inf(x, false)?, ComparisonDirection::Eq)?
        }
        "is_pos_inf" => g.cmp(x, g.inf(x, false)?, ComparisonDirection::Eq)?,
        "is_neg_inf" => g.cmp(x, g.inf(x, true)?, ComparisonDirection::Eq)?,
        "constant_like" => constant_like(&g, op)?,
        "mulhi" => {
            let [l, r] = broadcast_pair(&g, op, args)?;
            mulhi(&g, l, r)?
        }
        "square" => trig::square(&g, x)?,
        "sinh" => trig::sinh(&g, x)?,
        "cosh" => trig::cosh(&g, x)?,
        "tan" => built(b.tan(x))?,
        "asin" => trig::asin(&g, x)?,
        "acos" => trig::acos(&g, x)?,
        "atan" => trig::atan(&g, x)?,
        "asinh" => trig::asinh(&g, x)?,
        "acosh" => trig::acosh(&g, x)?,
        "atanh" => trig::atanh(&g, x)?,
        "next_after" | "polygamma" | "zeta" | "broadcast_select" => {
            let args = to_result(&g, op, args, None)?;
            match (name, args.as_slice()) {
                ("next_after", &[x, y]) => special::next_after(&g, x, y)?,
                ("polygamma", &[n, x]) => {
                    g.upcast(&[n, x], |g, a| special::polygamma(g, a[0], a[1]))?
                }
                ("zeta", &[x, q]) => g.upcast(&[x, q], |g, a| special::zeta(g, a[0], a[1]))?,
                ("broadcast_select", &[p, t, f]) => g.select(p, t, f)?,
                _ => return Err(format!("`chlo.{name}` takes other operands")),
            }
        }
        "broadcast_compare" => {
            let [l, r] = broadcast_pair(&g, op, args)?;
            let direction = match op.attr("comparison_direction") {
                Some(Attr::Enum(_, d)) => ComparisonDirection::from_name(d)
                    .ok_or_else(|| format!("unknown comparison `{d}`"))?,
                _ => return Err("missing `comparison_direction`".into()),
            };
            let compare_type = match op.attr("compare_type") {
                Some(Attr::Enum(_, t)) => Some(
                    ComparisonType::from_name(t)
                        .ok_or_else(|| format!("unknown comparison type `{t}`"))?,
                ),
                _ => None,
            };
            built(b.compare(l, r, &[], direction, compare_type))?
        }
        other => match other.strip_prefix("broadcast_") {
            Some(binary) => {
                let [l, r] = broadcast_pair(&g, op, args)?;
                broadcast_binary(b, binary, l, r)?
            }
            None => return Err(format!("`chlo.{other}` is not supported")),
        },
    };
    Ok(vec![one])
}

/// `chlo.broadcast_<binary>` once its operands have the result's dimensions.
fn broadcast_binary(b: &XlaBuilder, binary: &str, l: XlaOp, r: XlaOp) -> OpResult<XlaOp> {
    built(match binary {
        "add" => b.add(l, r, &[]),
        "subtract" => b.sub(l, r, &[]),
        "multiply" => b.mul(l, r, &[]),
        "divide" => b.div(l, r, &[]),
        "remainder" => b.rem(l, r, &[]),
        "power" => b.pow(l, r, &[]),
        "maximum" => b.max(l, r, &[]),
        "minimum" => b.min(l, r, &[]),
        "atan2" => b.atan2(l, r, &[]),
        "complex" => b.complex(l, r, &[]),
        "and" => b.and(l, r, &[]),
        "or" => b.or(l, r, &[]),
        "xor" => b.xor(l, r, &[]),
        "shift_left" => b.shift_left(l, r, &[]),
        "shift_right_arithmetic" => b.shift_right_arithmetic(l, r, &[]),
        "shift_right_logical" => b.shift_right_logical(l, r, &[]),
        other => return Err(format!("`chlo.broadcast_{other}` is not supported")),
    })
}

/// The two operands of a broadcasting binary op, broadcast to the result's
/// dimensions by its `broadcast_dimensions` (or numpy's trailing
/// alignment).
fn broadcast_pair(g: &G, op: &Operation, args: &[XlaOp]) -> OpResult<[XlaOp; 2]> {
    let dims = match op.attr("broadcast_dimensions") {
        Some(a) => Some(super::ops::ints_of(a)?),
        None => None,
    };
    let v = to_result(g, op, args, dims.as_deref())?;
    <[XlaOp; 2]>::try_from(v).map_err(|_| "two operands".to_string())
}

/// `args` broadcast to the dimensions of `op`'s (first) result: an
/// operand of lower rank by `broadcast_dimensions` when given, otherwise
/// aligned to the trailing dimensions; size-1 dimensions stretch.
fn to_result(
    g: &G,
    op: &Operation,
    args: &[XlaOp],
    broadcast_dimensions: Option<&[i64]>,
) -> OpResult<Vec<XlaOp>> {
    let (_, ty) = op.results.first().ok_or("a result")?;
    let out = shape(ty)?;
    let out = out.as_array().ok_or("an array result")?.dims().to_vec();
    let rank = out.len();
    args.iter()
        .map(|&a| {
            let dims = g.dims(a)?;
            if dims == out {
                return Ok(a);
            }
            let map: Vec<i64> = match broadcast_dimensions {
                Some(m) if dims.len() < rank => m.to_vec(),
                _ => (rank - dims.len()..rank).map(|d| d as i64).collect(),
            };
            built(g.0.broadcast_in_dim(a, &out, &map))
        })
        .collect()
}

/// `chlo.mulhi`: the high half of the double-width product. Narrower
/// than 64 bits through the type of twice the width; `u64` from 32-bit
/// halves; `s64` as the `u64` one corrected for negative operands.
fn mulhi(g: &G, l: XlaOp, r: XlaOp) -> OpResult<XlaOp> {
    use PrimitiveType as P;
    let t = g.ty(l)?;
    let wide = match t {
        P::S8 => P::S16,
        P::S16 => P::S32,
        P::S32 => P::S64,
        P::U8 => P::U16,
        P::U16 => P::U32,
        P::U32 => P::U64,
        P::U64 => return mulhi_u64(g, l, r),
        P::S64 => {
            let (ul, ur) = (g.convert(l, P::U64)?, g.convert(r, P::U64)?);
            let hi = mulhi_u64(g, ul, ur)?;
            let zero = g.ki(l, 0)?;
            let uzero = g.ki(ul, 0)?;
            let l_neg = g.select(g.cmp(l, zero, ComparisonDirection::Lt)?, ur, uzero)?;
            let r_neg = g.select(g.cmp(r, zero, ComparisonDirection::Lt)?, ul, uzero)?;
            return g.convert(g.sub(g.sub(hi, l_neg)?, r_neg)?, P::S64);
        }
        t => return Err(format!("`chlo.mulhi` of {t} is not supported")),
    };
    let product = g.mul(g.convert(l, wide)?, g.convert(r, wide)?)?;
    let shift = g.ki(product, t.bit_width() as i64)?;
    let high = if t.is_signed_integral() {
        g.shift_right_arithmetic(product, shift)?
    } else {
        g.shift_right_logical(product, shift)?
    };
    g.convert(high, t)
}

/// `chlo.mulhi` of `u64` from the 32-bit halves of its operands.
fn mulhi_u64(g: &G, l: XlaOp, r: XlaOp) -> OpResult<XlaOp> {
    let shift = g.ki(l, 32)?;
    let mask = g.ki(l, 0xFFFF_FFFF)?;
    let (a_hi, b_hi) = (
        g.shift_right_logical(l, shift)?,
        g.shift_right_logical(r, shift)?,
    );
    let (a_lo, b_lo) = (g.and(l, mask)?, g.and(r, mask)?);
    let carry_p0 = g.shift_right_logical(g.mul(a_lo, b_lo)?, shift)?;
    let mid1 = g.add(g.mul(a_lo, b_hi)?, carry_p0)?;
    let carry_mid1 = g.shift_right_logical(mid1, shift)?;
    let mid2 = g.add(g.mul(a_hi, b_lo)?, g.and(mid1, mask)?)?;
    let carry_mid2 = g.shift_right_logical(mid2, shift)?;
    g.add(g.add(g.mul(a_hi, b_hi)?, carry_mid1)?, carry_mid2)
}

/// `chlo.constant_like`: the `value` attribute filled into the result's
/// shape.
fn constant_like(g: &G, op: &Operation) -> OpResult<XlaOp> {
    let (_, ty) = op.results.first().ok_or("a result")?;
    let out = shape(ty)?;
    let out = out.as_array().ok_or("an array result")?;
    let t = out.element_type();
    let scalar = match op.attr("value") {
        Some(Attr::Float(v, _)) => float_literal(*v, t)?,
        Some(Attr::Int(v, _)) => int_literal(*v, t)?,
        Some(Attr::Bool(v)) => Literal::scalar(*v),
        other => return Err(format!("`chlo.constant_like` of value {other:?}")),
    };
    let c = built(g.0.constant(&scalar))?;
    built(g.0.broadcast(c, out.dims()))
}

/// A scalar float (or complex, imaginary part 0) literal of type `t`,
/// rounded once from `v`.
fn float_literal(v: f64, t: PrimitiveType) -> OpResult<Literal> {
    Literal::scalar(v).convert(t).map_err(|e| e.to_string())
}

/// A scalar integer literal of type `t` holding the low bits of `v` (as
/// MLIR truncates an integer attribute to its width).
fn int_literal(v: i64, t: PrimitiveType) -> OpResult<Literal> {
    use PrimitiveType as P;
    Ok(match t {
        P::S8 => Literal::scalar(v as i8),
        P::S16 => Literal::scalar(v as i16),
        P::S32 => Literal::scalar(v as i32),
        P::S64 => Literal::scalar(v),
        P::U8 => Literal::scalar(v as u8),
        P::U16 => Literal::scalar(v as u16),
        P::U32 => Literal::scalar(v as u32),
        P::U64 => Literal::scalar(v as u64),
        P::Pred => Literal::scalar(v != 0),
        t => float_literal(v as f64, t)?,
    })
}

/// Maps a builder error to the lowering's error string.
fn built<T>(r: crate::Result<T>) -> OpResult<T> {
    r.map_err(|e| e.to_string())
}

/// The builder with the StableHLO ops the decompositions use, each
/// element-wise on operands of one shape.
struct G<'a>(&'a XlaBuilder);

/// One element-wise op per method.
macro_rules! unary {
    ($($name:ident),*) => {
        impl G<'_> {
            $(
                fn $name(&self, x: XlaOp) -> OpResult<XlaOp> {
                    built(self.0.$name(x))
                }
            )*
        }
    };
}

/// One element-wise binary op per method (operands of one shape).
macro_rules! binary {
    ($($name:ident),*) => {
        impl G<'_> {
            $(
                fn $name(&self, x: XlaOp, y: XlaOp) -> OpResult<XlaOp> {
                    built(self.0.$name(x, y, &[]))
                }
            )*
        }
    };
}

unary!(abs, neg, exp, expm1, log, log1p, sqrt, floor, sin, cos, sign, is_finite, real, imag);
binary!(
    add,
    sub,
    mul,
    div,
    rem,
    pow,
    atan2,
    and,
    or,
    complex,
    shift_right_logical,
    shift_right_arithmetic
);

impl G<'_> {
    /// The element type of `x`.
    fn ty(&self, x: XlaOp) -> OpResult<PrimitiveType> {
        let s = built(self.0.get_shape(x))?;
        Ok(s.as_array().ok_or("an array operand")?.element_type())
    }

    /// The dimensions of `x`.
    fn dims(&self, x: XlaOp) -> OpResult<Vec<i64>> {
        let s = built(self.0.get_shape(x))?;
        Ok(s.as_array().ok_or("an array operand")?.dims().to_vec())
    }

    /// `getConstantLike`: `v` rounded to `like`'s element type, broadcast
    /// to its dimensions.
    fn k(&self, like: XlaOp, v: f64) -> OpResult<XlaOp> {
        self.splat(like, float_literal(v, self.ty(like)?)?)
    }

    /// An integer constant like `like` (its low bits).
    fn ki(&self, like: XlaOp, v: i64) -> OpResult<XlaOp> {
        self.splat(like, int_literal(v, self.ty(like)?)?)
    }

    /// `±∞` like `like`.
    fn inf(&self, like: XlaOp, negative: bool) -> OpResult<XlaOp> {
        let v = if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        self.k(like, v)
    }

    /// The largest finite value of `like`'s element type, like `like`.
    fn max_finite(&self, like: XlaOp) -> OpResult<XlaOp> {
        let v = match self.ty(like)? {
            PrimitiveType::F16 => half::f16::MAX.to_f64(),
            PrimitiveType::Bf16 => half::bf16::MAX.to_f64(),
            PrimitiveType::F32 => f64::from(f32::MAX),
            PrimitiveType::F64 => f64::MAX,
            t => return Err(format!("no largest value of {t}")),
        };
        self.k(like, v)
    }

    fn splat(&self, like: XlaOp, scalar: Literal) -> OpResult<XlaOp> {
        let c = built(self.0.constant(&scalar))?;
        built(self.0.broadcast(c, &self.dims(like)?))
    }

    fn cmp(&self, x: XlaOp, y: XlaOp, direction: ComparisonDirection) -> OpResult<XlaOp> {
        built(self.0.compare(x, y, &[], direction, None))
    }

    fn select(&self, p: XlaOp, t: XlaOp, f: XlaOp) -> OpResult<XlaOp> {
        built(self.0.select(p, t, f))
    }

    fn convert(&self, x: XlaOp, t: PrimitiveType) -> OpResult<XlaOp> {
        built(self.0.convert_element_type(x, t))
    }

    /// `materializeWithUpcast`: `f` on `args` converted to `f32` when they
    /// are narrower floats, its result converted back. Other element types
    /// than floats are an error.
    fn upcast(
        &self,
        args: &[XlaOp],
        f: impl FnOnce(&Self, &[XlaOp]) -> OpResult<XlaOp>,
    ) -> OpResult<XlaOp> {
        let t = self.ty(*args.first().ok_or("an operand")?)?;
        match t {
            PrimitiveType::F16 | PrimitiveType::Bf16 => {
                let wide = args
                    .iter()
                    .map(|&a| self.convert(a, PrimitiveType::F32))
                    .collect::<OpResult<Vec<_>>>()?;
                let y = f(self, &wide)?;
                self.convert(y, t)
            }
            PrimitiveType::F32 | PrimitiveType::F64 => f(self, args),
            t => Err(format!("element type {t} is not supported")),
        }
    }
}
