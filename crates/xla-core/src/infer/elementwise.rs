//! Element-wise ops (`docs/semantics.md`, *Element-wise operations*, *Convert*, *Bitcast-convert*,
//! *Reduce-precision*): unary and binary arithmetic, compare, select, clamp, convert,
//! bitcast-convert, reduce-precision and map.

use super::broadcast::broadcast_binary;
use super::check::{self, bare_array};
use super::error::InferError;
use super::parts::{Callee, Count, DimList, Kind, TypeClass};
use super::Signature;
use crate::hlo::{ComparisonDirection, ComparisonType, Form, Opcode, Produces};
use crate::{ArrayShape, Dim, PrimitiveType, Shape};

fn result_type(produces: Produces, ty: PrimitiveType) -> PrimitiveType {
    match produces {
        Produces::Same => ty,
        Produces::Predicate => PrimitiveType::Pred,
        Produces::Component => ty.component_type(),
        Produces::ComplexOf => ty
            .complex_type()
            .expect("the operand type class admits only f32 and f64"),
    }
}

/// `true` for the element-wise unary ops that [`unary`] accepts.
pub fn is_unary(op: Opcode) -> bool {
    matches!(op.form(), Form::Unary(..))
}

/// `true` for the element-wise binary ops that [`binary`] accepts.
pub fn is_binary(op: Opcode) -> bool {
    matches!(op.form(), Form::Binary(..))
}

/// An element-wise unary op: the operand's dimensions, with the element type
/// the op produces (`abs` of `c64` is `f32`, `is-finite` is `pred`).
///
/// # Panics
///
/// If `op` is not an element-wise unary op (see [`is_unary`]).
pub fn unary<D: Dim>(op: Opcode, operand: &ArrayShape<D>) -> Result<ArrayShape<D>, InferError<D>> {
    let Form::Unary(accepted, produces) = op.form() else {
        panic!("{op} is not an element-wise unary op");
    };
    check::element_type(op.name(), 0, operand, accepted)?;
    let ty = result_type(produces, operand.element_type());
    Ok(operand.clone().without_layout().with_element_type(ty))
}

/// An element-wise binary op, `Op(lhs, rhs)` or `Op(lhs, rhs,
/// broadcast_dimensions)`: both operands have one element type; the shape is
/// [`broadcast_binary`]'s.
///
/// # Panics
///
/// If `op` is not an element-wise binary op (see [`is_binary`]).
pub fn binary<D: Dim>(
    op: Opcode,
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
    broadcast_dimensions: Option<&[i64]>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let Form::Binary(accepted, produces) = op.form() else {
        panic!("{op} is not an element-wise binary op");
    };
    let name = op.name();
    check::element_type(name, 0, lhs, accepted)?;
    check::same_element_type(name, 1, rhs, 0, lhs)?;
    let shape = broadcast_binary(name, lhs, rhs, broadcast_dimensions)?;
    let ty = result_type(produces, lhs.element_type());
    Ok(shape.with_element_type(ty))
}

/// The comparison type used when none is given: `FLOAT` for floating and
/// complex types, `SIGNED` for signed integers, `UNSIGNED` for unsigned
/// integers and `pred`.
pub fn default_comparison_type(ty: PrimitiveType) -> ComparisonType {
    if ty.is_floating() || ty.is_complex() {
        ComparisonType::Float
    } else if ty.is_signed_integral() {
        ComparisonType::Signed
    } else {
        ComparisonType::Unsigned
    }
}

/// `compare(lhs, rhs), direction=…, type=…`: a `pred` array of the
/// broadcast shape (`docs/semantics.md`, *Comparisons*).
///
/// | operands | direction | type         | verdict                         |
/// |----------|-----------|--------------|---------------------------------|
/// | `f32`    | `LT`      | `TOTALORDER` | ok                              |
/// | `s32`    | `LT`      | `TOTALORDER` | error: total order is for floats |
/// | `u8`     | `LT`      | `SIGNED`     | error                           |
/// | `pred`   | `EQ`      | `UNSIGNED`   | ok                              |
/// | `c64`    | `EQ`      | `FLOAT`      | ok                              |
/// | `c64`    | `LT`      | none         | error: complex only EQ/NE       |
pub fn compare<D: Dim>(
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
    broadcast_dimensions: Option<&[i64]>,
    direction: ComparisonDirection,
    comparison_type: Option<ComparisonType>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Compare.name();
    check::same_element_type(op, 1, rhs, 0, lhs)?;
    let ty = lhs.element_type();
    if ty.is_complex() && !matches!(direction, ComparisonDirection::Eq | ComparisonDirection::Ne) {
        return Err(InferError::ComplexOrder {
            op,
            direction,
            element_type: ty,
        });
    }
    if let Some(comparison_type) = comparison_type {
        let fits = match comparison_type {
            ComparisonType::Float => ty.is_floating() || ty.is_complex(),
            ComparisonType::TotalOrder => ty.is_floating(),
            ComparisonType::Signed => ty.is_signed_integral(),
            ComparisonType::Unsigned => ty.is_unsigned_integral() || ty.is_pred(),
        };
        if !fits {
            return Err(InferError::ComparisonType {
                op,
                comparison_type,
                element_type: ty,
            });
        }
    }
    let shape = broadcast_binary(op, lhs, rhs, broadcast_dimensions)?;
    Ok(shape.with_element_type(PrimitiveType::Pred))
}

/// `select(pred, on_true, on_false)` (`docs/semantics.md`, *Select and clamp*): `on_true` and
/// `on_false` have one shape (arrays or tuples), which is the result; `pred`
/// is a `pred` array with their dimensions, or a `pred` scalar (required
/// for tuples).
pub fn select<D: Dim>(
    pred: &Shape<D>,
    on_true: &Shape<D>,
    on_false: &Shape<D>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Select.name();
    let pred = check::array(op, 0, pred)?;
    check::element_type(op, 0, pred, TypeClass::Pred)?;
    for (index, shape) in [(1, on_true), (2, on_false)] {
        if !(shape.is_array() || shape.is_tuple()) {
            return Err(InferError::OperandKind {
                op,
                index,
                expected: Kind::ArrayOrTuple,
                shape: check::bare(shape),
            });
        }
    }
    if !check::may_equal(on_false, on_true) {
        return Err(InferError::ShapeMismatch {
            op,
            index: 2,
            shape: check::bare(on_false),
            other_index: 1,
            other: check::bare(on_true),
            what: "shape",
        });
    }
    match on_true {
        Shape::Array(values) => {
            if pred.rank() != 0 && check::same_dims(op, 0, pred, 1, values).is_err() {
                return Err(InferError::ScalarOrSameDims {
                    op,
                    index: 0,
                    shape: bare_array(pred),
                    other_index: 1,
                    other: bare_array(values),
                });
            }
        }
        _ => check::scalar(op, 0, pred)?,
    }
    Ok(check::plain(on_true))
}

/// `clamp(min, operand, max)` (`docs/semantics.md`, *Select and clamp*): `min` and `max` have
/// the operand's element type and are scalars or have its dimensions.
pub fn clamp<D: Dim>(
    min: &ArrayShape<D>,
    operand: &ArrayShape<D>,
    max: &ArrayShape<D>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Clamp.name();
    for (index, bound) in [(0, min), (2, max)] {
        check::same_element_type(op, index, bound, 1, operand)?;
        if bound.rank() != 0 && check::same_dims(op, index, bound, 1, operand).is_err() {
            return Err(InferError::ScalarOrSameDims {
                op,
                index,
                shape: bare_array(bound),
                other_index: 1,
                other: bare_array(operand),
            });
        }
    }
    Ok(operand.clone().without_layout())
}

/// `convert`: the operand's dimensions with element type `to` (`docs/semantics.md`,
/// *Convert*). Every conversion between array types is allowed except complex →
/// `pred`.
pub fn convert<D: Dim>(
    operand: &ArrayShape<D>,
    to: PrimitiveType,
) -> Result<ArrayShape<D>, InferError<D>> {
    let from = operand.element_type();
    if from.is_complex() && to.is_pred() {
        return Err(InferError::Conversion {
            op: Opcode::Convert.name(),
            from,
            to,
            reason: "a complex value has no truth value",
        });
    }
    Ok(operand.clone().without_layout().with_element_type(to))
}

/// `bitcast-convert` (`docs/semantics.md`, *Bitcast-convert*): reinterprets the bits. With
/// `B`, `B'` the bit widths of the operand's and the new element type:
///
/// | `B` vs `B'` | result                                   | example                     |
/// |-------------|------------------------------------------|-----------------------------|
/// | `B = B'`    | same dimensions                          | `f32[10]` → `s32[10]`       |
/// | `B > B'`    | a new minor dimension of size `B/B'`     | `f32[10]` → `f16[10,2]`     |
/// | `B < B'`    | the last dimension (size `B'/B`) removed | `f16[10,2]` → `f32[10]`     |
/// | `B < B'`    | error if the last dimension is not `B'/B` or rank is 0 | `f16[10,3]` → `f32` |
/// | complex ↔ real | error                                 | `c64[2]` → `f64`            |
pub fn bitcast_convert<D: Dim>(
    operand: &ArrayShape<D>,
    to: PrimitiveType,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::BitcastConvert.name();
    let from = operand.element_type();
    if from.is_complex() != to.is_complex() {
        return Err(InferError::Conversion {
            op,
            from,
            to,
            reason: "complex and real types cannot be reinterpreted as each other",
        });
    }
    check::no_bytes_to_pred(op, from, to)?;
    let (b, b2) = (from.bit_width() as i64, to.bit_width() as i64);
    if b.max(b2) % b.min(b2) != 0 {
        return Err(InferError::Conversion {
            op,
            from,
            to,
            reason: "the larger bit width must be a multiple of the smaller",
        });
    }
    let mut dims = operand.dims().to_vec();
    let mut dynamic = check::dynamic_flags(operand);
    if b > b2 {
        dims.push(D::constant(b / b2));
        dynamic.push(false);
    } else if b < b2 {
        let ratio = b2 / b;
        let last_fits = dims
            .last()
            .is_some_and(|d| !d.known_ne(&D::constant(ratio)));
        if !last_fits {
            return Err(InferError::BitcastLastDim {
                op,
                shape: bare_array(operand),
                to,
                expected: ratio,
            });
        }
        dims.pop();
        dynamic.pop();
    }
    Ok(check::with_dynamic(to, dims, &dynamic))
}

/// `reduce-precision`: a floating-point operand, `exponent_bits ≥ 1`,
/// `mantissa_bits ≥ 0`; the result has the operand's shape.
pub fn reduce_precision<D: Dim>(
    operand: &ArrayShape<D>,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::ReducePrecision.name();
    check::element_type(op, 0, operand, TypeClass::Floating)?;
    if exponent_bits < 1 {
        return Err(InferError::InvalidAttribute {
            op,
            attribute: "exponent_bits",
            value: exponent_bits.to_string(),
            requirement: "at least one exponent bit is needed to tell 0 from infinity",
        });
    }
    if mantissa_bits < 0 {
        return Err(InferError::InvalidAttribute {
            op,
            attribute: "mantissa_bits",
            value: mantissa_bits.to_string(),
            requirement: "the mantissa width cannot be negative",
        });
    }
    Ok(operand.clone().without_layout())
}

/// `map(operands…), dimensions=…, to_apply=…` (`docs/semantics.md`, *Map*): N ≥ 1
/// operands with equal dimensions; `to_apply` takes N scalars of their
/// element types and returns a scalar `S`; `dimensions` lists every
/// dimension in order. The result has the operands' dimensions and type `S`.
pub fn map<D: Dim>(
    operands: &[&ArrayShape<D>],
    to_apply: Signature<'_, D>,
    dimensions: &[i64],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Map.name();
    check::operand_count(op, operands.len(), Count::AtLeast(1))?;
    let first = operands[0];
    for (index, operand) in operands.iter().enumerate().skip(1) {
        check::same_dims(op, index, operand, 0, first)?;
    }
    if !dimensions.iter().copied().eq(0..first.rank() as i64) {
        return Err(InferError::InvalidAttribute {
            op,
            attribute: "dimensions",
            value: DimList(dimensions.to_vec()).to_string(),
            requirement: "map applies to every element, so it must list every dimension in order",
        });
    }
    check::called_arity(op, Callee::ToApply, to_apply, operands.len())?;
    for (index, operand) in operands.iter().enumerate() {
        let expected = Shape::scalar(operand.element_type());
        check::called_parameter(op, Callee::ToApply, to_apply, index, &expected)?;
    }
    let result_type = match to_apply.result {
        Shape::Array(a) if a.rank() == 0 => a.element_type(),
        other => {
            return Err(InferError::CalledResult {
                op,
                computation: Callee::ToApply,
                expected: "a scalar".to_string(),
                actual: check::bare(other),
            })
        }
    };
    Ok(check::with_dynamic(
        result_type,
        first.dims().to_vec(),
        &check::dynamic_flags(first),
    ))
}
