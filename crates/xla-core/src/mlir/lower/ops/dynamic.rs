//! Shapes known only at lowering: JAX's shape assertions, the dynamic
//! shape ops, the small integer values computed from dimension sizes, and
//! the static shapes inferred for dynamically typed results.

use super::attrs::attributes;
use super::read::{ints_of, Reader};
use crate::hlo::Attrs;
use crate::mlir::ir::{Attr, ElementType, Operation, Type};
use crate::mlir::lower::{primitive, Lowering, OpResult};
use crate::{Opcode, PrimitiveType, Shape, XlaBuilder, XlaComputation, XlaOp};

impl Lowering<'_> {
    /// JAX's `shape_assertion(predicate, values…)`: evaluated when the
    /// shapes are known (its message, with `{i}` the values, when it
    /// fails), dropped otherwise.
    pub(super) fn shape_assertion(&self, op: &Operation) -> OpResult<()> {
        let known: Vec<Option<&Vec<i64>>> =
            op.operands.iter().map(|v| self.known_value(*v)).collect();
        let Some(Some(predicate)) = known.first() else {
            return Ok(());
        };
        if predicate.iter().all(|&p| p != 0) {
            return Ok(());
        }
        let mut message = match op.attr("error_message") {
            Some(Attr::String(m)) => String::from_utf8_lossy(m).into_owned(),
            _ => "a shape assertion failed".into(),
        };
        for (i, value) in known.iter().enumerate().skip(1) {
            if let Some(v) = value.and_then(|v| v.first()) {
                message = message.replace(&format!("{{{}}}", i - 1), &v.to_string());
            }
        }
        Err(format!(
            "the arguments break the exported shapes: {message}"
        ))
    }

    /// `dynamic_broadcast_in_dim`, `dynamic_reshape` and `dynamic_iota`,
    /// whose output shape operand is known: as their static forms.
    pub(super) fn dynamic_shape_op(
        &self,
        b: &XlaBuilder,
        op: &Operation,
        args: &[XlaOp],
    ) -> OpResult<Vec<XlaOp>> {
        let e = |r: crate::Result<XlaOp>| r.map_err(|e| e.to_string());
        let shape_operand = if op.name == "stablehlo.dynamic_iota" {
            0
        } else {
            1
        };
        let dims = op
            .operands
            .get(shape_operand)
            .and_then(|v| self.known_value(*v))
            .cloned()
            .ok_or("an output shape that is not computed from the arguments' shapes")?;
        let element = match op.results.first().map(|(_, t)| t) {
            Some(Type::Tensor { element, .. }) => primitive(element)?,
            _ => return Err("a tensor result".into()),
        };
        let operand = || args.first().copied().ok_or("an operand");
        let x = match op.name.as_str() {
            "stablehlo.dynamic_broadcast_in_dim" => e(b.broadcast_in_dim(
                operand()?,
                &dims,
                &Reader(op).ints("broadcast_dimensions")?,
            ))?,
            "stablehlo.dynamic_reshape" => e(b.reshape(operand()?, &dims))?,
            _ => e(b.iota(
                &crate::ArrayShape::new(element, dims),
                Reader(op).int("iota_dimension")?,
            ))?,
        };
        Ok(vec![x])
    }
}

/// The result shape (and attributes) of an op whose type has dynamic
/// dimensions, now that its operands' shapes are static: what shape
/// inference gives, which must agree with the type's static sizes. (Ops whose result dimensions are an
/// input, `broadcast_in_dim` and `reshape`, come with a shape operand in
/// their dynamic forms, lowered apart.)
pub(super) fn refined_shape(
    op: &Operation,
    opcode: Opcode,
    operands: &[Shape],
    called: &[XlaComputation],
) -> OpResult<(Shape, Attrs)> {
    let [(_, ty)] = op.results.as_slice() else {
        return Err("an op of several dynamically shaped results".into());
    };
    let Type::Tensor { element, dims } = ty else {
        return Err("a dynamically shaped result that is not a tensor".into());
    };
    // A placeholder with the operand's sizes where the type has none.
    let like = operands
        .first()
        .and_then(Shape::as_array)
        .map(|a| a.dims().to_vec())
        .unwrap_or_default();
    let guess: Vec<i64> = dims
        .iter()
        .enumerate()
        .map(|(i, d)| d.unwrap_or_else(|| if like.len() == dims.len() { like[i] } else { 1 }))
        .collect();
    let mut declared = Shape::array(primitive(element)?, guess);
    let attrs = attributes(op, opcode, operands, &mut declared)?;
    let refs: Vec<&Shape> = operands.iter().collect();
    let programs: Vec<crate::hlo::ProgramShape> =
        called.iter().map(XlaComputation::program_shape).collect();
    let inferred = crate::infer::infer_instruction(opcode, &refs, &attrs, &programs, &declared)
        .map_err(|e| e.to_string())?;
    let fits = inferred.as_array().is_some_and(|a| {
        a.rank() == dims.len()
            && a.dims()
                .iter()
                .zip(dims)
                .all(|(&n, d)| d.is_none_or(|d| d == n))
    });
    if !fits {
        return Err(format!(
            "inferred {inferred}, which does not fit the result type"
        ));
    }
    Ok((inferred, attrs))
}

/// Whether `op` has one result of an integer (or pred) type of rank 0
/// or 1: what [`fold`] may know the value of.
pub(super) fn small_integer(op: &Operation) -> bool {
    matches!(
        op.results.as_slice(),
        [(_, Type::Tensor { element: ElementType::Known(e), dims })]
            if (e.is_integral() || *e == PrimitiveType::Pred) && dims.len() <= 1
    )
}

/// The value of an integer result computed from known values (constants
/// and dimension sizes): what shape computations on symbolic dimensions
/// need, for tensors of at most 16 elements.
pub(super) fn fold(op: &Operation, known: &[Option<&Vec<i64>>]) -> Option<Vec<i64>> {
    let [(_, Type::Tensor { dims, .. })] = op.results.as_slice() else {
        return None;
    };
    let all: Option<Vec<&Vec<i64>>> = known.iter().copied().collect();
    let binary = |f: fn(i64, i64) -> Option<i64>| pairwise(all.as_deref()?, f);
    let value = match op.name.trim_start_matches("stablehlo.") {
        "constant" => match op.attr("value") {
            Some(attr @ Attr::Dense { .. }) => ints_of(attr).ok().filter(|v| v.len() <= 16)?,
            _ => return None,
        },
        "reshape" | "convert" | "broadcast_in_dim" => {
            let v = (*known.first()?)?.clone();
            let n = dims.iter().map(|d| d.unwrap_or(1)).product::<i64>();
            match v.as_slice() {
                [one] if (0..=16).contains(&n) => vec![*one; n as usize],
                _ => v,
            }
        }
        "concatenate" => all?.into_iter().flatten().copied().collect(),
        "add" => binary(i64::checked_add)?,
        "subtract" => binary(i64::checked_sub)?,
        "multiply" => binary(i64::checked_mul)?,
        "divide" => binary(i64::checked_div)?,
        "remainder" => binary(i64::checked_rem)?,
        "maximum" => binary(|a, b| Some(a.max(b)))?,
        "minimum" => binary(|a, b| Some(a.min(b)))?,
        "compare" => {
            let test: fn(i64, i64) -> bool = match op.attr("comparison_direction") {
                Some(Attr::Enum(_, d)) => match d.as_str() {
                    "EQ" => |a, b| a == b,
                    "NE" => |a, b| a != b,
                    "LT" => |a, b| a < b,
                    "LE" => |a, b| a <= b,
                    "GT" => |a, b| a > b,
                    "GE" => |a, b| a >= b,
                    _ => return None,
                },
                _ => return None,
            };
            pairwise(all.as_deref()?, |a, b| Some(i64::from(test(a, b))))?
        }
        _ => return None,
    };
    (value.len() <= 16).then_some(value)
}

/// `f` of two known integer lists, element by element (a one-element list
/// stands for every element).
fn pairwise(all: &[&Vec<i64>], f: impl Fn(i64, i64) -> Option<i64>) -> Option<Vec<i64>> {
    let [a, b] = all else { return None };
    let n = a.len().max(b.len());
    let at = |v: &Vec<i64>, i: usize| {
        if v.len() == 1 {
            v.first().copied()
        } else {
            v.get(i).copied()
        }
    };
    (0..n).map(|i| f(at(a, i)?, at(b, i)?)).collect()
}
