//! Element-wise ops: the array kernels (`docs/semantics.md`, *Element-wise operations*, *Convert*,
//! *Bitcast-convert*, *Reduce-precision*, *Map*).
//!
//! Each kernel dispatches on the element type once and runs a typed loop
//! over row-major buffers; what an op computes per element comes from the
//! semantics table in [`table`].

mod bits;
mod complex;
pub(super) mod float;
mod int;
pub(crate) mod table;

pub(super) use bits::{bitcast_convert, reduce_precision};

use std::sync::Arc;

use table::{apply1, apply2, Elem, Scalar};

use super::array::{result_shape, with_element_size, zeros};
use super::eval::{invalid, row_major, unsupported, Ctx};
use super::scalar::{literal_of, Elements, ScalarFn};
use super::InterpError;
use crate::hlo::{ComparisonDirection, ComparisonType, Form, HloInstruction, Opcode};
use crate::literal::{read_element, write_element};
use crate::{dispatch_native, ArrayShape, Literal, NativeType, PrimitiveType, C128, C64};

/// `op` on complex scalars exactly as the interpreter computes it, for
/// compiled code that calls back into the one table (the JIT's complex
/// helpers): a unary op applies to `a` (`abs`, `real` and `imag` give
/// `(result, 0)`), a binary op to `(a, b)`. `None` if `op` is not an
/// elementwise op on `c64`.
pub fn complex_op_c64(op: Opcode, a: C64, b: C64) -> Option<C64> {
    match complex_op(op, Scalar::C64(a), Scalar::C64(b))? {
        Scalar::C64(z) => Some(z),
        Scalar::F32(x) => Some(C64::new(x, 0.0)),
        _ => None,
    }
}

/// [`complex_op_c64`] on `c128`.
pub fn complex_op_c128(op: Opcode, a: C128, b: C128) -> Option<C128> {
    match complex_op(op, Scalar::C128(a), Scalar::C128(b))? {
        Scalar::C128(z) => Some(z),
        Scalar::F64(x) => Some(C128::new(x, 0.0)),
        _ => None,
    }
}

fn complex_op(op: Opcode, a: Scalar, b: Scalar) -> Option<Scalar> {
    match op.form() {
        Form::Unary(..) => a.unary(op),
        Form::Binary(..) => a.binary(op, b),
        Form::Own => None,
    }
}

/// `out[i] = f(x[i])` over the row-major buffer of `x`.
fn map1<S: NativeType, D: NativeType>(
    x: &Literal,
    shape: &ArrayShape,
    f: impl Fn(S) -> D,
) -> Result<Literal, InterpError> {
    let mut out = zeros(shape)?;
    for (d, &s) in out.data_mut::<D>()?.iter_mut().zip(x.data::<S>()?) {
        *d = f(s);
    }
    Ok(out)
}

/// `out[i] = f(a[i], b[i])` over row-major buffers of equal length.
fn map2<A: NativeType, B: NativeType, D: NativeType>(
    a: &Literal,
    b: &Literal,
    shape: &ArrayShape,
    f: impl Fn(A, B) -> D,
) -> Result<Literal, InterpError> {
    let mut out = zeros(shape)?;
    let (a, b) = (a.data::<A>()?, b.data::<B>()?);
    for ((d, &x), &y) in out.data_mut::<D>()?.iter_mut().zip(a).zip(b) {
        *d = f(x, y);
    }
    Ok(out)
}

fn element_type(x: &Literal) -> Result<PrimitiveType, InterpError> {
    Ok(x.array_shape()?.element_type())
}

fn undefined(instr: &HloInstruction, ty: PrimitiveType) -> InterpError {
    unsupported(instr, format!("{} of {ty}", instr.opcode))
}

/// A unary element-wise op.
pub(super) fn unary(
    instr: &HloInstruction,
    operands: &[&Literal],
    op: Opcode,
) -> Result<Literal, InterpError> {
    let x = row_major(operands[0])?;
    let shape = result_shape(instr)?;
    let ty = element_type(&x)?;
    let to_real = matches!(op, Opcode::Abs | Opcode::Real | Opcode::Imag);
    match ty {
        PrimitiveType::C64 if to_real => {
            let f = complex::to_real::<f32>(op).ok_or_else(|| undefined(instr, ty))?;
            map1::<C64, f32>(&x, &shape, f)
        }
        PrimitiveType::C128 if to_real => {
            let f = complex::to_real::<f64>(op).ok_or_else(|| undefined(instr, ty))?;
            map1::<C128, f64>(&x, &shape, f)
        }
        _ if op == Opcode::IsFinite => dispatch_native!(ty, T => {
            let f = T::is_finite_fn().ok_or_else(|| undefined(instr, ty))?;
            map1::<T, bool>(&x, &shape, |v| f(v.widen()))
        }),
        _ => dispatch_native!(ty, T => match T::on_bits(op) {
            Some(f) => map1::<T, T>(&x, &shape, f),
            None => {
                let f = T::unary(op).ok_or_else(|| undefined(instr, ty))?;
                map1::<T, T>(&x, &shape, |v| apply1(f, v))
            }
        }),
    }
}

/// A binary element-wise op (operands of equal dimensions).
pub(super) fn binary(
    instr: &HloInstruction,
    operands: &[&Literal],
    op: Opcode,
) -> Result<Literal, InterpError> {
    let (a, b) = (row_major(operands[0])?, row_major(operands[1])?);
    let shape = result_shape(instr)?;
    let ty = element_type(&a)?;
    match (op, ty) {
        (Opcode::Complex, PrimitiveType::F32) => map2(&a, &b, &shape, C64::new),
        (Opcode::Complex, PrimitiveType::F64) => map2(&a, &b, &shape, C128::new),
        _ => dispatch_native!(ty, T => {
            let f = T::binary(op).ok_or_else(|| undefined(instr, ty))?;
            map2::<T, T, T>(&a, &b, &shape, |x, y| apply2(f, x, y))
        }),
    }
}

/// `compare`, with `type=TOTALORDER` selecting the total order of floats.
pub(super) fn compare(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let (a, b) = (row_major(operands[0])?, row_major(operands[1])?);
    let shape = result_shape(instr)?;
    let ty = element_type(&a)?;
    let direction = instr
        .attrs
        .comparison_direction
        .ok_or_else(|| invalid(instr, "compare without a direction"))?;
    let total = instr.attrs.comparison_type == Some(ComparisonType::TotalOrder);
    dispatch_native!(ty, T => compare_typed::<T>(instr, &a, &b, &shape, direction, total))
}

fn compare_typed<T: Elem>(
    instr: &HloInstruction,
    a: &Literal,
    b: &Literal,
    shape: &ArrayShape,
    direction: ComparisonDirection,
    total: bool,
) -> Result<Literal, InterpError> {
    if let (true, Some(key)) = (total, T::total_order_key()) {
        let cmp = table::key_compare(direction);
        return map2::<T, T, bool>(a, b, shape, |x, y| cmp(key(x), key(y)));
    }
    let f = T::compare(direction).ok_or_else(|| {
        unsupported(
            instr,
            format!("compare direction={direction} of {}", T::TYPE),
        )
    })?;
    map2::<T, T, bool>(a, b, shape, |x, y| f(x.widen(), y.widen()))
}

/// `select(pred, on_true, on_false)`: element-wise with an array `pred`,
/// the whole of one operand (array or tuple) with a scalar `pred`. Bit
/// patterns are kept.
pub(super) fn select(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let pred = row_major(operands[0])?;
    if pred.array_shape()?.rank() == 0 {
        let chosen = if pred.get::<bool>(&[])? {
            operands[1]
        } else {
            operands[2]
        };
        return Ok(chosen.clone());
    }
    let (t, f) = (row_major(operands[1])?, row_major(operands[2])?);
    let shape = result_shape(instr)?;
    let mut out = zeros(&shape)?;
    let p = pred.data::<bool>()?;
    let size = shape.element_type().byte_size();
    with_element_size!(size, N => {
        let (t, _) = t.bytes()?.as_chunks::<N>();
        let (f, _) = f.bytes()?.as_chunks::<N>();
        let (o, _) = out.bytes_mut()?.as_chunks_mut::<N>();
        for (i, o) in o.iter_mut().enumerate() {
            *o = if p[i] { t[i] } else { f[i] };
        }
    });
    Ok(out)
}

/// `clamp(min, operand, max) = min(max(min, operand), max)`, with `min` and
/// `max` scalars or arrays of the operand's dimensions.
pub(super) fn clamp(instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    let lo = row_major(operands[0])?;
    let x = row_major(operands[1])?;
    let hi = row_major(operands[2])?;
    let shape = result_shape(instr)?;
    let ty = element_type(&x)?;
    dispatch_native!(ty, T => {
        let max = T::binary(Opcode::Maximum).ok_or_else(|| undefined(instr, ty))?;
        let min = T::binary(Opcode::Minimum).ok_or_else(|| undefined(instr, ty))?;
        let (lo, x, hi) = (lo.data::<T>()?, x.data::<T>()?, hi.data::<T>()?);
        let at = |bound: &[T], i: usize| if bound.len() == 1 { bound[0] } else { bound[i] };
        let mut out = zeros(&shape)?;
        for (i, o) in out.data_mut::<T>()?.iter_mut().enumerate() {
            *o = apply2(min, apply2(max, at(lo, i), x[i]), at(hi, i));
        }
        Ok(out)
    })
}

/// `convert` (`docs/semantics.md`, *Convert*, rules in [`crate::literal::convert`]).
pub(super) fn convert(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let to = result_shape(instr)?.element_type();
    Ok(operands[0].convert(to)?)
}

/// `map`: the called computation on each element of the operands.
pub(super) fn map(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let callee = *instr
        .called
        .first()
        .ok_or_else(|| invalid(instr, "map without a computation"))?;
    let mut f = ScalarFn::new(ctx.module, callee, instr);
    let inputs = operands
        .iter()
        .map(|o| row_major(o))
        .collect::<Result<Vec<_>, _>>()?;
    let views = inputs
        .iter()
        .map(|o| Elements::of(o))
        .collect::<Result<Vec<_>, _>>()?;
    let shape = result_shape(instr)?;
    let n = shape.element_count() as usize;
    let mut args = vec![Scalar::Pred(false); views.len()];
    let mut result = [Scalar::Pred(false)];
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        for (arg, view) in args.iter_mut().zip(&views) {
            *arg = view.get(i);
        }
        f.call(ctx, &args, &mut result)?;
        values.push(result[0]);
    }
    literal_of(&shape, &values, instr)
}

/// `acc[i] = op(acc[i], x[i])` for every element of two packed arrays of
/// one element type held as bytes: the semantics table's binary `op`,
/// for collectives that combine other devices' buffers (the JIT's
/// all-reduce). Both slices hold the same whole number of elements.
#[derive(Clone)]
pub struct ByteCombiner(Arc<CombineBytes>);

/// `acc = op(acc, x)` over two arrays' bytes.
type CombineBytes = dyn Fn(&mut [u8], &[u8]) + Send + Sync;

impl std::fmt::Debug for ByteCombiner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ByteCombiner")
    }
}

impl ByteCombiner {
    /// The combiner of binary `op` on `ty`, if the table defines it.
    pub fn new(op: Opcode, ty: PrimitiveType) -> Option<ByteCombiner> {
        dispatch_native!(ty, T => {
            let f = T::binary(op)?;
            Some(ByteCombiner(Arc::new(move |acc: &mut [u8], x: &[u8]| {
                for i in 0..acc.len() / std::mem::size_of::<T>() {
                    let (a, b): (T, T) = (read_element(acc, i), read_element(x, i));
                    write_element(acc, i, apply2(f, a, b));
                }
            })))
        })
    }

    /// `acc[i] = op(acc[i], x[i])` for every element.
    pub fn apply(&self, acc: &mut [u8], x: &[u8]) {
        (self.0)(acc, x)
    }
}
