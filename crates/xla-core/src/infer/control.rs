//! Control flow and structure (`docs/semantics.md`, *Tuples*, *Computations and control flow*):
//! call, fusion, while, conditional, tuple, get-tuple-element, opt-barrier, custom-call.

use super::check::{self, bare, plain};
use super::error::InferError;
use super::parts::{Callee, Count, Kind, TypeClass};
use super::Signature;
use crate::hlo::Opcode;
use crate::{Dim, PrimitiveType, Shape};

/// Arguments passed to a computation: as many as it has parameters, each of
/// the parameter's shape (layouts ignored). Returns its result.
fn apply<D: Dim>(
    op: &'static str,
    computation: Callee,
    args: &[&Shape<D>],
    signature: Signature<'_, D>,
) -> Result<Shape<D>, InferError<D>> {
    check::called_arity(op, computation, signature, args.len())?;
    for (i, arg) in args.iter().enumerate() {
        check::called_parameter(op, computation, signature, i, arg)?;
    }
    Ok(plain(signature.result))
}

/// `call(args…), to_apply=…`: the arguments match the computation's
/// parameters; the result is its result.
pub fn call<D: Dim>(
    args: &[&Shape<D>],
    to_apply: Signature<'_, D>,
) -> Result<Shape<D>, InferError<D>> {
    apply(Opcode::Call.name(), Callee::ToApply, args, to_apply)
}

/// `fusion(operands…), calls=…`: like a call of the fused computation.
pub fn fusion<D: Dim>(
    operands: &[&Shape<D>],
    calls: Signature<'_, D>,
) -> Result<Shape<D>, InferError<D>> {
    apply(Opcode::Fusion.name(), Callee::Calls, operands, calls)
}

/// `while(init), condition=…, body=…` (`docs/semantics.md`, *While*): `condition` is
/// `T → pred[]`, `body` is `T → T` with `T` the shape of `init`, which is the
/// result.
pub fn while_loop<D: Dim>(
    condition: Signature<'_, D>,
    body: Signature<'_, D>,
    init: &Shape<D>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::While.name();
    apply(op, Callee::Condition, &[init], condition)?;
    let pred = Shape::scalar(PrimitiveType::Pred);
    check::called_result(op, Callee::Condition, condition, &pred)?;
    apply(op, Callee::Body, &[init], body)?;
    check::called_result(op, Callee::Body, body, init)?;
    Ok(plain(init))
}

/// `conditional(branch_index, operands…), branch_computations=…`
/// (`docs/semantics.md`, *Conditional*): a `pred` scalar selects between exactly two
/// branches (`true_computation` first), an `s32` scalar among N ≥ 1. Branch
/// `b` takes operand `b` and every branch returns branch 0's shape, which
/// is the result.
pub fn conditional<D: Dim>(
    branch_index: &Shape<D>,
    branches: &[Signature<'_, D>],
    operands: &[&Shape<D>],
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Conditional.name();
    let index = check::array(op, 0, branch_index)?;
    check::scalar(op, 0, index)?;
    check::element_type(op, 0, index, TypeClass::PredOrS32)?;
    let (expected, count_ok) = if index.element_type().is_pred() {
        (Count::Exactly(2), branches.len() == 2)
    } else {
        (Count::AtLeast(1), !branches.is_empty())
    };
    if !count_ok {
        return Err(InferError::CalledCount {
            op,
            expected,
            actual: branches.len(),
        });
    }
    check::operand_count(op, 1 + operands.len(), Count::Exactly(1 + branches.len()))?;
    for (b, (branch, operand)) in branches.iter().zip(operands).enumerate() {
        apply(op, Callee::Branch(b), &[operand], *branch)?;
        check::called_result(op, Callee::Branch(b), *branch, branches[0].result)?;
    }
    Ok(plain(branches[0].result))
}

/// `tuple(elements…)`: the tuple of the element shapes.
pub fn tuple<D: Dim>(elements: &[&Shape<D>]) -> Shape<D> {
    Shape::Tuple(elements.iter().map(|e| plain(e)).collect())
}

/// `get-tuple-element(tuple), index=i`: element `i` of a tuple operand.
pub fn get_tuple_element<D: Dim>(tuple: &Shape<D>, index: i64) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::GetTupleElement.name();
    let Shape::Tuple(elements) = tuple else {
        return Err(InferError::OperandKind {
            op,
            index: 0,
            expected: Kind::Tuple,
            shape: bare(tuple),
        });
    };
    usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i))
        .map(plain)
        .ok_or_else(|| InferError::TupleIndex {
            op,
            index,
            shape: bare(tuple),
            len: elements.len(),
        })
}

/// `opt-barrier(operand)`: any shape, returned unchanged.
pub fn optimization_barrier<D: Dim>(operand: &Shape<D>) -> Shape<D> {
    plain(operand)
}

/// `custom-call(operands…)`: the result is the declared shape (the target
/// decides it); with `operand_layout_constraints`, there is one constraint
/// per operand, each of its operand's shape (layouts aside), as XLA's
/// verifier requires.
pub fn custom_call<D: Dim>(
    operands: &[&Shape<D>],
    operand_layout_constraints: Option<&[Shape<D>]>,
    declared: &Shape<D>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::CustomCall.name();
    if let Some(constraints) = operand_layout_constraints {
        if constraints.len() != operands.len() {
            return Err(InferError::ListLength {
                op,
                list: "operand_layout_constraints",
                len: constraints.len(),
                other: "the number of operands",
                expected: operands.len(),
            });
        }
        for (index, (constraint, operand)) in constraints.iter().zip(operands).enumerate() {
            if !constraint.eq_ignoring_layout(operand) {
                return Err(InferError::LayoutConstraintShape {
                    op,
                    index,
                    constraint: bare(constraint),
                    shape: bare(operand),
                });
            }
        }
    }
    Ok(plain(declared))
}
