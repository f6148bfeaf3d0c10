//! Reductions (`docs/semantics.md`, *Reduce*, *Reduce-window*, *Select-and-scatter*, *Sort and
//! top-k*): reduce, reduce-window, select-and-scatter, sort and top-k.

use super::check::{self, bare_array, Order};
use super::error::InferError;
use super::parts::{Attr, Callee, Count, RankRule, TypeClass};
use super::window::{check_window, window_output};
use super::Signature;
use crate::hlo::{Opcode, Window};
use crate::{ArrayShape, Dim, PrimitiveType, Shape};

/// A reduction computation over element types `T_0…T_{N−1}`:
/// `(T_0…T_{N−1}, T_0…T_{N−1}) → Collate(T_0…T_{N−1})`, all scalars (the
/// accumulators first, then the inputs).
pub(crate) fn reducer<D: Dim>(
    op: &'static str,
    computation: Callee,
    signature: Signature<'_, D>,
    types: &[PrimitiveType],
) -> Result<(), InferError<D>> {
    let n = types.len();
    check::called_arity(op, computation, signature, 2 * n)?;
    for (i, &ty) in types.iter().enumerate() {
        let scalar = Shape::scalar(ty);
        check::called_parameter(op, computation, signature, i, &scalar)?;
        check::called_parameter(op, computation, signature, n + i, &scalar)?;
    }
    let result = check::collate(types.iter().map(|&t| Shape::scalar(t)).collect());
    check::called_result(op, computation, signature, &result)
}

/// The inputs and init values of reduce and reduce-window: N ≥ 1 inputs of
/// equal dimensions, then N scalar init values of their element types.
fn inputs_and_inits<D: Dim>(
    op: &'static str,
    inputs: &[&ArrayShape<D>],
    init_values: &[&ArrayShape<D>],
) -> Result<Vec<PrimitiveType>, InferError<D>> {
    let n = inputs.len();
    if n == 0 || init_values.len() != n {
        return Err(InferError::OperandCount {
            op,
            expected: Count::InputsAndInits,
            actual: n + init_values.len(),
        });
    }
    for (i, input) in inputs.iter().enumerate().skip(1) {
        check::same_dims(op, i, input, 0, inputs[0])?;
    }
    for (i, (init, input)) in init_values.iter().zip(inputs).enumerate() {
        check::scalar(op, n + i, init)?;
        check::same_element_type(op, n + i, init, i, input)?;
    }
    Ok(inputs.iter().map(|s| s.element_type()).collect())
}

/// `reduce(inputs…, init_values…), dimensions=…, to_apply=…` (`docs/semantics.md`,
/// *Reduce*): `Collate` of arrays with the reduced dimensions removed (the rest
/// keep their order). `f32[B, N]` reduced over `{1}` is `f32[B]`.
pub fn reduce<D: Dim>(
    inputs: &[&ArrayShape<D>],
    init_values: &[&ArrayShape<D>],
    to_apply: Signature<'_, D>,
    dimensions: &[i64],
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Reduce.name();
    let types = inputs_and_inits(op, inputs, init_values)?;
    let first = inputs[0];
    check::dim_list(op, "dimensions", dimensions, first.rank(), Order::Unique)?;
    reducer(op, Callee::ToApply, to_apply, &types)?;
    let kept: Vec<usize> = (0..first.rank())
        .filter(|d| !dimensions.contains(&(*d as i64)))
        .collect();
    let dims: Vec<D> = kept.iter().map(|&d| first.dims()[d].clone()).collect();
    let dynamic: Vec<bool> = kept.iter().map(|&d| first.is_dynamic_dim(d)).collect();
    let shapes = types
        .iter()
        .map(|&t| check::with_dynamic(t, dims.clone(), &dynamic).into())
        .collect();
    Ok(check::collate(shapes))
}

/// `reduce-window(inputs…, init_values…), window=…, to_apply=…`
/// (`docs/semantics.md`, *Reduce-window*): one window dimension per input dimension; each
/// result dimension counts the window positions.
pub fn reduce_window<D: Dim>(
    inputs: &[&ArrayShape<D>],
    init_values: &[&ArrayShape<D>],
    to_apply: Signature<'_, D>,
    window: &Window,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::ReduceWindow.name();
    let types = inputs_and_inits(op, inputs, init_values)?;
    let first = inputs[0];
    check::list_rank(op, "window", window.dims.len(), 0, first)?;
    check_window(op, window)?;
    reducer(op, Callee::ToApply, to_apply, &types)?;
    let sizes: Vec<D> = window.dims.iter().map(|w| D::constant(w.size)).collect();
    let dims = window_output(op, first.dims(), &sizes, window)?;
    let shapes = types
        .iter()
        .map(|&t| ArrayShape::new(t, dims.clone()).into())
        .collect();
    Ok(check::collate(shapes))
}

/// `select-and-scatter(operand, source, init_value), window=…,
/// select=…, scatter=…` (`docs/semantics.md`, *Select-and-scatter*): `select` is `(T, T) → pred`,
/// `scatter` a reduction over `T`, `source` has the dimensions of the window
/// positions; the result is the operand's shape.
pub fn select_and_scatter<D: Dim>(
    operand: &ArrayShape<D>,
    select: Signature<'_, D>,
    window: &Window,
    source: &ArrayShape<D>,
    init_value: &ArrayShape<D>,
    scatter: Signature<'_, D>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::SelectAndScatter.name();
    let ty = operand.element_type();
    check::same_element_type(op, 1, source, 0, operand)?;
    check::scalar(op, 2, init_value)?;
    check::same_element_type(op, 2, init_value, 0, operand)?;
    check::list_rank(op, "window", window.dims.len(), 0, operand)?;
    check_window(op, window)?;
    check::called_arity(op, Callee::Select, select, 2)?;
    for i in 0..2 {
        check::called_parameter(op, Callee::Select, select, i, &Shape::scalar(ty))?;
    }
    check::called_result(
        op,
        Callee::Select,
        select,
        &Shape::scalar(PrimitiveType::Pred),
    )?;
    reducer(op, Callee::Scatter, scatter, &[ty])?;
    let sizes: Vec<D> = window.dims.iter().map(|w| D::constant(w.size)).collect();
    let positions = window_output(op, operand.dims(), &sizes, window)?;
    let fits = source.rank() == positions.len()
        && source
            .dims()
            .iter()
            .zip(&positions)
            .all(|(a, b)| !a.known_ne(b));
    if !fits {
        return Err(InferError::WindowPositions {
            op,
            index: 1,
            shape: bare_array(source),
            expected: Box::new(ArrayShape::new(ty, positions).into()),
        });
    }
    Ok(operand.clone().without_layout())
}

/// `sort(operands…), dimensions={d}, to_apply=…` (`docs/semantics.md`, *Sort and top-k*):
/// n ≥ 1 operands of equal dimensions (types may differ); the comparator
/// takes `2n` scalars (operand `k`'s two values at parameters `2k`, `2k+1`)
/// and returns `pred`. The result is `Collate` of the operand shapes.
pub fn sort<D: Dim>(
    operands: &[&ArrayShape<D>],
    dimension: i64,
    comparator: Signature<'_, D>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Sort.name();
    check::operand_count(op, operands.len(), Count::AtLeast(1))?;
    let first = operands[0];
    for (i, operand) in operands.iter().enumerate().skip(1) {
        check::same_dims(op, i, operand, 0, first)?;
    }
    check::in_range(op, Attr::entry("dimensions", 0), dimension, first.rank())?;
    check::called_arity(op, Callee::ToApply, comparator, 2 * operands.len())?;
    for (k, operand) in operands.iter().enumerate() {
        let scalar = Shape::scalar(operand.element_type());
        check::called_parameter(op, Callee::ToApply, comparator, 2 * k, &scalar)?;
        check::called_parameter(op, Callee::ToApply, comparator, 2 * k + 1, &scalar)?;
    }
    let pred = Shape::scalar(PrimitiveType::Pred);
    check::called_result(op, Callee::ToApply, comparator, &pred)?;
    Ok(check::collate(
        operands
            .iter()
            .map(|o| (*o).clone().without_layout().into())
            .collect(),
    ))
}

/// `topk(operand), k=…, largest=…` (`docs/semantics.md`, *Sort and top-k*): on the last
/// dimension; returns `(values, indices)` whose last dimension is `k`, the
/// indices `s32`. Needs rank ≥ 1 and `0 ≤ k ≤` the last dimension's size.
pub fn topk<D: Dim>(operand: &ArrayShape<D>, k: &D) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::TopK.name();
    let Some(last) = operand.dims().last() else {
        return Err(InferError::Rank {
            op,
            index: 0,
            shape: bare_array(operand),
            expected: RankRule::AtLeast(1),
        });
    };
    // Complex values have no order (XLA's comparator is `GT`).
    check::element_type(op, 0, operand, TypeClass::Real)?;
    check::non_negative(op, Attr::scalar("k"), k)?;
    if k.known_gt(last) {
        return Err(InferError::SizeExceeds {
            op,
            attr: Attr::scalar("k"),
            size: k.clone(),
            index: 0,
            shape: bare_array(operand),
            dim: operand.rank() - 1,
            bound: last.clone(),
        });
    }
    let mut dims = operand.dims().to_vec();
    *dims.last_mut().expect("rank ≥ 1") = k.clone();
    Ok(Shape::Tuple(vec![
        ArrayShape::new(operand.element_type(), dims.clone()).into(),
        ArrayShape::new(PrimitiveType::S32, dims).into(),
    ]))
}
