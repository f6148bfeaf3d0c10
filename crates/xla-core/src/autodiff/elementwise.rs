//! Gradients of element-wise ops: the derivative of each unary and binary
//! function, as JAX defines it (including its choices at kinks), and of
//! `select`, `clamp` and conversions.

use super::rules::no_rule;
use super::Tape;
use crate::builder::XlaOp;
use crate::hlo::{ComparisonDirection as Dir, HloInstruction, Opcode};
use crate::Result;

/// `2/√π`, the derivative of `erf` at 0.
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

impl Tape<'_> {
    /// The cotangent of the operand of a unary op `y = f(x)`: `g·f′(x)`,
    /// with `f′` written in terms of `x` or `y`; `None` for the piecewise
    /// constant functions (`sign`, `floor`, rounding), whose derivative is
    /// zero wherever it exists.
    pub(super) fn unary(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        g: XlaOp,
    ) -> Result<Option<XlaOp>> {
        let b = self.b;
        let x = self.operand(instr, 0)?;
        let ty = self.operand_shape(instr, 0).element_type();
        let k = |v: f64| self.scalar(ty, v);
        let times = |d: XlaOp| b.mul(g, d, &[]).map(Some);
        let real = self
            .operand_shape(instr, 0)
            .clone()
            .with_element_type(ty.component_type());
        let zeros = || self.full(&real, 0.0);
        match instr.opcode {
            Opcode::Negate => b.neg(g).map(Some),
            // JAX's transposes: `real` → `complex(t, 0)`, `imag` →
            // `complex(0, −t)`; `|z|` → `complex(t, 0)·conj(z)/|z|` (|z| = 0
            // read as 1).
            Opcode::Real => b.complex(g, zeros()?, &[]).map(Some),
            Opcode::Imag => b.complex(zeros()?, b.neg(g)?, &[]).map(Some),
            Opcode::Abs if ty.is_complex() => {
                let magnitude = b.select(b.eq(y, zeros()?, &[])?, self.full(&real, 1.0)?, y)?;
                let conj = b.complex(b.real(x)?, b.neg(b.imag(x)?)?, &[])?;
                let unit = b.div(conj, b.complex(magnitude, zeros()?, &[])?, &[])?;
                b.mul(b.complex(g, zeros()?, &[])?, unit, &[]).map(Some)
            }
            Opcode::Abs => times(b.sign(x)?),
            Opcode::Exp => times(y),
            Opcode::Expm1 => times(b.add(y, k(1.0)?, &[])?),
            Opcode::Log => b.div(g, x, &[]).map(Some),
            Opcode::Log1p => b.div(g, b.add(x, k(1.0)?, &[])?, &[]).map(Some),
            Opcode::Sqrt => times(b.div(k(0.5)?, y, &[])?),
            Opcode::Rsqrt => times(b.mul(k(-0.5)?, b.div(y, x, &[])?, &[])?),
            Opcode::Cbrt => times(b.div(k(1.0 / 3.0)?, b.mul(y, y, &[])?, &[])?),
            Opcode::Tanh => {
                let one_plus = b.add(g, b.mul(g, y, &[])?, &[])?;
                b.mul(one_plus, b.sub(k(1.0)?, y, &[])?, &[]).map(Some)
            }
            Opcode::Logistic => times(b.mul(y, b.sub(k(1.0)?, y, &[])?, &[])?),
            Opcode::Sin => times(b.cos(x)?),
            Opcode::Cos => b.neg(b.mul(g, b.sin(x)?, &[])?).map(Some),
            Opcode::Tan => times(b.add(k(1.0)?, b.mul(y, y, &[])?, &[])?),
            Opcode::Erf => {
                let gauss = b.exp(b.neg(b.mul(x, x, &[])?)?)?;
                times(b.mul(k(TWO_OVER_SQRT_PI)?, gauss, &[])?)
            }
            Opcode::Sign
            | Opcode::Floor
            | Opcode::Ceil
            | Opcode::RoundNearestAfz
            | Opcode::RoundNearestEven => Ok(None),
            _ => Err(no_rule(instr, "it has no gradient rule")),
        }
    }

    /// The cotangents of the operands of a binary op `y = f(a, b)`.
    pub(super) fn binary(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        g: XlaOp,
        wanted: &[bool],
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let (x0, x1) = (self.operand(instr, 0)?, self.operand(instr, 1)?);
        let ty = self.operand_shape(instr, 0).element_type();
        let k = |v: f64| self.scalar(ty, v);
        let (d0, d1) = match instr.opcode {
            Opcode::Add => (Some(g), Some(g)),
            Opcode::Subtract => (Some(g), Some(b.neg(g)?)),
            Opcode::Multiply => {
                let shape = self.operand_shape(instr, 0);
                (
                    Some(self.scaled(g, x1, instr.operands[1], shape)?),
                    Some(self.scaled(g, x0, instr.operands[0], shape)?),
                )
            }
            Opcode::Divide => {
                let d1 = wanted[1]
                    .then(|| b.div(b.mul(b.neg(g)?, x0, &[])?, b.mul(x1, x1, &[])?, &[]))
                    .transpose()?;
                (Some(b.div(g, x1, &[])?), d1)
            }
            Opcode::Maximum | Opcode::Minimum => return self.chooser(instr, y, g),
            Opcode::Power => {
                let d0 = wanted[0]
                    .then(|| {
                        let pow = b.pow(x0, b.sub(x1, k(1.0)?, &[])?, &[])?;
                        b.mul(g, b.mul(x1, pow, &[])?, &[])
                    })
                    .transpose()?;
                let d1 = wanted[1]
                    .then(|| {
                        let zero = b.eq(x0, self.full(self.operand_shape(instr, 0), 0.0)?, &[])?;
                        let safe =
                            b.select(zero, self.full(self.operand_shape(instr, 0), 1.0)?, x0)?;
                        b.mul(g, b.mul(b.log(safe)?, y, &[])?, &[])
                    })
                    .transpose()?;
                (d0, d1)
            }
            Opcode::Atan2 => {
                let norm = b.add(b.mul(x0, x0, &[])?, b.mul(x1, x1, &[])?, &[])?;
                (
                    Some(b.mul(g, b.div(x1, norm, &[])?, &[])?),
                    Some(b.mul(g, b.div(b.neg(x0)?, norm, &[])?, &[])?),
                )
            }
            Opcode::Complex => (Some(b.real(g)?), Some(b.neg(b.imag(g)?)?)),
            Opcode::Remainder => {
                let q = b.div(x0, x1, &[])?;
                let whole = b.mul(b.sign(q)?, b.floor(b.abs(q)?)?, &[])?;
                (Some(g), Some(b.mul(b.neg(g)?, whole, &[])?))
            }
            _ => return Err(no_rule(instr, "it has no gradient rule")),
        };
        Ok(vec![d0, d1])
    }

    /// `maximum`/`minimum`: the cotangent goes to the operand the result
    /// equals, split in halves on a tie (JAX's `_balanced_eq`); against a
    /// constant zero (`relu`), it goes to the other operand only where
    /// that one is strictly chosen, so `relu′(0) = 0` as in `jax.nn.relu`.
    fn chooser(&self, instr: &HloInstruction, y: XlaOp, g: XlaOp) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let shape = self.operand_shape(instr, 0);
        let zeros = self.full(shape, 0.0)?;
        let operands = [self.operand(instr, 0)?, self.operand(instr, 1)?];
        if let Some(z) = (0..2).find(|&k| self.is_constant_zero(instr.operands[k])) {
            let x = operands[1 - z];
            let dir = if instr.opcode == Opcode::Maximum {
                Dir::Gt
            } else {
                Dir::Lt
            };
            let strict = b.compare(x, zeros, &[], dir, None)?;
            let mut out = vec![None, None];
            out[1 - z] = Some(b.select(strict, g, zeros)?);
            return Ok(out);
        }
        let ones = self.full(shape, 1.0)?;
        let twos = self.full(shape, 2.0)?;
        let hit = |x: XlaOp| b.eq(x, y, &[]);
        let (hit0, hit1) = (hit(operands[0])?, hit(operands[1])?);
        let share = |mine, other| -> Result<XlaOp> {
            let num = b.select(mine, ones, zeros)?;
            let den = b.select(other, twos, ones)?;
            b.mul(g, b.div(num, den, &[])?, &[])
        };
        Ok(vec![Some(share(hit0, hit1)?), Some(share(hit1, hit0)?)])
    }

    /// The values of instruction `id` when it is a constant (a scalar, or
    /// a broadcast of one), as f64.
    fn constant_values(&self, id: crate::hlo::InstrId) -> Option<Vec<f64>> {
        let mut instr = self.comp.instr(id);
        while instr.opcode == Opcode::Broadcast {
            instr = self.comp.instr(instr.operands[0]);
        }
        let literal = instr
            .attrs
            .literal
            .as_ref()
            .filter(|_| instr.opcode == Opcode::Constant)?;
        literal
            .convert(crate::PrimitiveType::F64)
            .ok()?
            .to_vec::<f64>()
            .ok()
    }

    /// Whether instruction `id` is the constant 0.
    fn is_constant_zero(&self, id: crate::hlo::InstrId) -> bool {
        self.constant_values(id)
            .is_some_and(|v| !v.is_empty() && v.iter().all(|&e| e == 0.0))
    }

    /// `g·c` for the operand multiplied by `c`; when `c` is a constant
    /// holding an infinity or NaN (as in the unselected branch of a
    /// primitive JAX lowers to `select`s, such as `erf_inv`'s `x·∞` at
    /// `|x| = 1`), a zero cotangent stays zero instead of becoming NaN,
    /// as it does under JAX's rule for the primitive itself.
    fn scaled(
        &self,
        g: XlaOp,
        c: XlaOp,
        c_id: crate::hlo::InstrId,
        shape: &crate::ArrayShape,
    ) -> Result<XlaOp> {
        let b = self.b;
        let product = b.mul(g, c, &[])?;
        let non_finite = self
            .constant_values(c_id)
            .is_some_and(|v| v.iter().any(|e| !e.is_finite()));
        if !non_finite {
            return Ok(product);
        }
        let zeros = self.full(shape, 0.0)?;
        b.select(b.eq(g, zeros, &[])?, zeros, product)
    }

    /// `select`, `clamp`, `convert`, `copy` and `reduce-precision`.
    pub(super) fn elementwise_special(
        &self,
        instr: &HloInstruction,
        g: XlaOp,
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        match instr.opcode {
            Opcode::Select => {
                let zeros = self.full(self.operand_shape(instr, 1), 0.0)?;
                let p = self.operand(instr, 0)?;
                Ok(vec![
                    None,
                    Some(b.select(p, g, zeros)?),
                    Some(b.select(p, zeros, g)?),
                ])
            }
            Opcode::Clamp => {
                let (lo, x, hi) = (
                    self.operand(instr, 0)?,
                    self.operand(instr, 1)?,
                    self.operand(instr, 2)?,
                );
                let shape = self.operand_shape(instr, 1);
                let zeros = self.full(shape, 0.0)?;
                let spread = |v: XlaOp, k: usize| -> Result<XlaOp> {
                    match self.operand_shape(instr, k).rank() {
                        0 if shape.rank() > 0 => b.broadcast(v, shape.dims()),
                        _ => Ok(v),
                    }
                };
                let (lo_b, hi_b) = (spread(lo, 0)?, spread(hi, 2)?);
                let both = |a, c| b.and(a, c, &[]);
                let to_lo = both(b.gt(lo_b, x, &[])?, b.lt(lo_b, hi_b, &[])?)?;
                let to_x = both(b.gt(x, lo_b, &[])?, b.lt(x, hi_b, &[])?)?;
                let to_hi = b.lt(hi_b, x, &[])?;
                let bound = |mask, k: usize| -> Result<XlaOp> {
                    let d = b.select(mask, g, zeros)?;
                    match self.operand_shape(instr, k).rank() {
                        0 if shape.rank() > 0 => {
                            self.sum(d, &(0..shape.rank() as i64).collect::<Vec<_>>())
                        }
                        _ => Ok(d),
                    }
                };
                Ok(vec![
                    Some(bound(to_lo, 0)?),
                    Some(b.select(to_x, g, zeros)?),
                    Some(bound(to_hi, 2)?),
                ])
            }
            Opcode::Convert => {
                // To a real type, a complex value keeps its real part, so
                // the cotangent comes back as `complex(t, 0)`; a real value
                // made complex gets the real part of its cotangent.
                let from = self.operand_shape(instr, 0);
                let back = match (
                    from.element_type().is_complex(),
                    self.dims_type(g)?.1.is_complex(),
                ) {
                    (true, false) => {
                        let part = from
                            .clone()
                            .with_element_type(from.element_type().component_type());
                        let re = b.convert_element_type(g, part.element_type())?;
                        b.complex(re, self.full(&part, 0.0)?, &[])?
                    }
                    _ => b.convert_element_type(g, from.element_type())?,
                };
                Ok(vec![Some(back)])
            }
            _ => Ok(vec![Some(g)]),
        }
    }
}
