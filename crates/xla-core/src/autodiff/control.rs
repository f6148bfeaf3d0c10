//! Gradients of control flow: `while` loops whose trip count is known at
//! compile time, and `conditional`.
//!
//! A loop is differentiated by keeping its carries: the forward loop is
//! replayed with one stack per element of the carry that changes from one
//! iteration to the next (iteration `t` stores its input carry at row
//! `t`); elements the body passes through unchanged (weights, the `xs` of a
//! `scan`) are not stored. The reverse loop runs the body's
//! vector-Jacobian product from the last iteration to the first, reading
//! each iteration's carry back from the stacks, so the memory is one carry
//! per iteration for the changing elements and the time about three
//! forward passes of the body (the same trade as `jax.grad` of `scan`).

use super::rules::no_rule;
use super::{vjp_computation, zeros, Ct, Tape};
use crate::builder::{XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{ComparisonDirection, HloComputation, HloInstruction, InstrId, Opcode};
use crate::{ArrayShape, PrimitiveType, Result, Shape};

/// What the forward replay of a differentiated loop kept.
pub(super) struct LoopTape {
    /// The number of iterations.
    trips: i64,
    /// The stacked carry of each element that changes (by element).
    stacks: Vec<Option<XlaOp>>,
    /// The loop's final carry (elements that do not change hold their
    /// initial value throughout).
    result: XlaOp,
}

impl Tape<'_> {
    /// Replays `while` instruction `instr` (operands already replayed) as a
    /// loop that also stacks the carries the reverse loop needs.
    pub(super) fn replay_loop(&self, instr: &HloInstruction) -> Result<(XlaOp, LoopTape)> {
        let b = self.b;
        let (cond, body) = (instr.called[0], instr.called[1]);
        let trips = self
            .trip_count(instr)
            .ok_or_else(|| no_rule(instr, "its trip count is not known at compile time (reverse mode needs a fixed-length loop, as JAX's does)"))?;
        let shapes = carry_shapes(instr)?;
        let body_comp = self.module.computation(body);
        let varying: Vec<bool> = (0..shapes.len())
            .map(|k| !passes_through(body_comp, k))
            .collect();
        let init = self.operand(instr, 0);
        let mut carry: Vec<XlaOp> = (0..shapes.len())
            .map(|k| b.get_tuple_element(init, k as i64))
            .collect::<Result<_>>()?;
        let n = shapes.len();
        carry.push(self.scalar(PrimitiveType::S32, 0.0)?);
        for (k, shape) in shapes.iter().enumerate() {
            if varying[k] {
                carry.push(self.full(&stacked(shape, trips), 0.0)?);
            }
        }
        let stacking = stacking_body(&shapes, &varying, trips, &self.computation(body)?)?;
        let condition = on_prefix(
            &shapes,
            &carry_layout(&shapes, &varying, trips),
            &self.computation(cond)?,
        )?;
        let looped = b.while_loop(&condition, &stacking, b.tuple(&carry)?)?;
        let parts: Vec<XlaOp> = (0..n)
            .map(|k| b.get_tuple_element(looped, k as i64))
            .collect::<Result<_>>()?;
        let result = b.tuple(&parts)?;
        let mut stacks = Vec::with_capacity(n);
        let mut next = n as i64 + 1;
        for &v in &varying {
            stacks.push(match v {
                true => {
                    next += 1;
                    Some(b.get_tuple_element(looped, next - 1)?)
                }
                false => None,
            });
        }
        Ok((
            result,
            LoopTape {
                trips,
                stacks,
                result,
            },
        ))
    }

    /// The cotangent of a loop's initial carry from that of its result:
    /// the body's vector-Jacobian product, run from the last iteration to
    /// the first.
    pub(super) fn while_rule(
        &self,
        id: InstrId,
        instr: &HloInstruction,
        ct: Ct,
    ) -> Result<Vec<Option<Ct>>> {
        let b = self.b;
        let tape = self
            .loops
            .get(&id)
            .ok_or_else(|| no_rule(instr, "the loop was not replayed"))?;
        let shapes = carry_shapes(instr)?;
        let n = shapes.len();
        let body_vjp = vjp_computation(self.module, instr.called[1])?;
        let ct = self.materialize(&ct, &instr.shape)?;
        let mut carry = vec![self.scalar(PrimitiveType::S32, tape.trips as f64)?];
        for k in 0..n {
            carry.push(b.get_tuple_element(ct, k as i64)?);
        }
        for k in 0..n {
            carry.push(match tape.stacks[k] {
                Some(stack) => stack,
                None => b.get_tuple_element(tape.result, k as i64)?,
            });
        }
        let reverse_body = reverse_body(&shapes, &tape.stacks, tape.trips, &body_vjp)?;
        let reverse_cond = counter_positive(&shapes, &tape.stacks, tape.trips)?;
        let looped = b.while_loop(&reverse_cond, &reverse_body, b.tuple(&carry)?)?;
        let parts = (0..n)
            .map(|k| Ok(Some(Ct::Array(b.get_tuple_element(looped, k as i64 + 1)?))))
            .collect::<Result<Vec<_>>>()?;
        let parts = parts
            .into_iter()
            .zip(&shapes)
            .map(|(p, s)| p.filter(|_| s.element_type().is_floating()))
            .collect();
        Ok(vec![Some(Ct::Tuple(parts))])
    }

    /// The number of iterations of `instr` when it is a counted loop: one
    /// carry element starts at a constant, the body adds 1 to it, and the
    /// condition compares it with a constant (`<` or `≤`), as JAX's
    /// `fori_loop` and `scan` write them.
    fn trip_count(&self, instr: &HloInstruction) -> Option<i64> {
        let cond = self.module.computation(instr.called[0]);
        let body = self.module.computation(instr.called[1]);
        let init = self.comp.instr(instr.operands[0]);
        if init.opcode != Opcode::Tuple {
            return None;
        }
        let root = cond.root_instr();
        if root.opcode != Opcode::Compare || root.operands.len() != 2 {
            return None;
        }
        let direction = root.attrs.comparison_direction?;
        let (k, limit, direction) = match (
            element_of_parameter(cond, root.operands[0]),
            constant_of(cond.instr(root.operands[1])),
            element_of_parameter(cond, root.operands[1]),
            constant_of(cond.instr(root.operands[0])),
        ) {
            (Some(k), Some(limit), _, _) => (k, limit, direction),
            (_, _, Some(k), Some(limit)) => (k, limit, mirrored(direction)?),
            _ => return None,
        };
        let start = constant_of(self.comp.instr(*init.operands.get(k)?))?;
        if !increments(body, k) {
            return None;
        }
        let trips = match direction {
            ComparisonDirection::Lt => limit - start,
            ComparisonDirection::Le => limit - start + 1,
            _ => return None,
        };
        Some(trips.max(0))
    }

    /// A `conditional`: the chosen branch's vector-Jacobian product, run
    /// by a conditional on the same branch index; the other branches'
    /// operands get zeros.
    pub(super) fn conditional_rule(
        &self,
        instr: &HloInstruction,
        ct: Ct,
        wanted: &[bool],
    ) -> Result<Vec<Option<Ct>>> {
        let b = self.b;
        let ct = self.materialize(&ct, &instr.shape)?;
        let operand_shapes: Vec<Shape> = instr.operands[1..]
            .iter()
            .map(|&o| self.comp.instr(o).shape.clone())
            .collect();
        let mut branches = Vec::new();
        let mut operands = Vec::new();
        for (k, &branch) in instr.called.iter().enumerate() {
            let vjp = vjp_computation(self.module, branch)?;
            branches.push(branch_vjp(k, &operand_shapes, &instr.shape, &vjp)?);
            operands.push(b.tuple(&[self.operand(instr, k + 1), ct])?);
        }
        let refs: Vec<&XlaComputation> = branches.iter().collect();
        let chosen = b.conditional_indexed(self.operand(instr, 0), &refs, &operands)?;
        let mut out = vec![None];
        for k in 0..instr.called.len() {
            out.push(
                wanted[k + 1]
                    .then(|| b.get_tuple_element(chosen, k as i64))
                    .transpose()?
                    .map(|op| self.split(op, &operand_shapes[k]))
                    .transpose()?,
            );
        }
        Ok(out)
    }

    /// A value of `shape` as a cotangent (a tuple split into its
    /// elements).
    pub(super) fn split(&self, op: XlaOp, shape: &Shape) -> Result<Ct> {
        match shape {
            Shape::Tuple(parts) => Ok(Ct::Tuple(
                (parts.iter().enumerate())
                    .map(|(k, s)| {
                        Ok(Some(
                            self.split(self.b.get_tuple_element(op, k as i64)?, s)?,
                        ))
                    })
                    .collect::<Result<_>>()?,
            )),
            _ => Ok(Ct::Array(op)),
        }
    }
}

/// The array shapes of a loop's carried tuple (nested tuples are not
/// differentiated).
fn carry_shapes(instr: &HloInstruction) -> Result<Vec<ArrayShape>> {
    let parts = instr
        .shape
        .tuple_shapes()
        .ok_or_else(|| no_rule(instr, "a loop whose carry is not a tuple of arrays"))?;
    parts
        .iter()
        .map(|s| {
            s.as_array()
                .cloned()
                .ok_or_else(|| no_rule(instr, "a loop whose carry is not a tuple of arrays"))
        })
        .collect()
}

/// `shape` with a leading dimension of `trips`.
fn stacked(shape: &ArrayShape, trips: i64) -> ArrayShape {
    let mut dims = vec![trips];
    dims.extend_from_slice(shape.dims());
    ArrayShape::new(shape.element_type(), dims)
}

/// The shapes of the stacking loop's carry: the original elements, the
/// iteration counter, then one stack per changing element.
fn carry_layout(shapes: &[ArrayShape], varying: &[bool], trips: i64) -> Vec<Shape> {
    let mut layout: Vec<Shape> = shapes.iter().cloned().map(Shape::Array).collect();
    layout.push(Shape::scalar(PrimitiveType::S32));
    for (s, &v) in shapes.iter().zip(varying) {
        if v {
            layout.push(Shape::Array(stacked(s, trips)));
        }
    }
    layout
}

/// Whether element `k` of a loop body's result is element `k` of its
/// parameter, unchanged.
fn passes_through(body: &HloComputation, k: usize) -> bool {
    let root = body.root_instr();
    root.opcode == Opcode::Tuple
        && root
            .operands
            .get(k)
            .is_some_and(|&o| element_of_parameter(body, o) == Some(k))
}

/// Whether element `k` of the body's result is element `k` of its
/// parameter plus the constant 1.
fn increments(body: &HloComputation, k: usize) -> bool {
    let root = body.root_instr();
    let Some(&next) = root
        .operands
        .get(k)
        .filter(|_| root.opcode == Opcode::Tuple)
    else {
        return false;
    };
    let add = body.instr(next);
    if add.opcode != Opcode::Add {
        return false;
    }
    let [a, c] = [add.operands[0], add.operands[1]];
    let one = |id: InstrId| constant_of(body.instr(id)) == Some(1);
    (element_of_parameter(body, a) == Some(k) && one(c))
        || (element_of_parameter(body, c) == Some(k) && one(a))
}

/// `k` when instruction `id` is `get-tuple-element(parameter(0)), index=k`.
fn element_of_parameter(comp: &HloComputation, id: InstrId) -> Option<usize> {
    let instr = comp.instr(id);
    let tuple = comp.instr(*instr.operands.first()?);
    (instr.opcode == Opcode::GetTupleElement && tuple.opcode == Opcode::Parameter)
        .then_some(instr.attrs.tuple_index? as usize)
}

/// The value of an integer scalar constant.
fn constant_of(instr: &HloInstruction) -> Option<i64> {
    let literal = instr
        .attrs
        .literal
        .as_ref()
        .filter(|_| instr.opcode == Opcode::Constant)?;
    let wide = literal.convert(PrimitiveType::S64).ok()?;
    match wide.to_vec::<i64>().ok()?.as_slice() {
        [v] if literal.element_type().is_some_and(|t| t.is_integral()) => Some(*v),
        _ => None,
    }
}

/// `c < x` as `x > c`, and so on.
fn mirrored(direction: ComparisonDirection) -> Option<ComparisonDirection> {
    match direction {
        ComparisonDirection::Gt => Some(ComparisonDirection::Lt),
        ComparisonDirection::Ge => Some(ComparisonDirection::Le),
        _ => None,
    }
}

/// The original elements of a carry laid out as `layout` (they come
/// first), as a tuple of the original carry's shape.
fn prefix(b: &XlaBuilder, p: XlaOp, count: usize) -> Result<XlaOp> {
    let parts: Vec<XlaOp> = (0..count)
        .map(|k| b.get_tuple_element(p, k as i64))
        .collect::<Result<_>>()?;
    b.tuple(&parts)
}

/// `computation` (of the original carry) applied to the original elements
/// of a carry laid out as `layout`.
fn on_prefix(
    shapes: &[ArrayShape],
    layout: &[Shape],
    computation: &XlaComputation,
) -> Result<XlaComputation> {
    let b = XlaBuilder::new("condition");
    let p = b.parameter(0, &Shape::Tuple(layout.to_vec()), "carry")?;
    let root = b.call(computation, &[prefix(&b, p, shapes.len())?])?;
    b.build(root)
}

/// The stacking loop's body: the original body on the original elements;
/// each changing element's input stored at row `t` of its stack; `t + 1`.
fn stacking_body(
    shapes: &[ArrayShape],
    varying: &[bool],
    trips: i64,
    body: &XlaComputation,
) -> Result<XlaComputation> {
    let n = shapes.len();
    let layout = carry_layout(shapes, varying, trips);
    let b = XlaBuilder::new("stacking_body");
    let p = b.parameter(0, &Shape::Tuple(layout.clone()), "carry")?;
    let out = b.call(body, &[prefix(&b, p, n)?])?;
    let mut next: Vec<XlaOp> = (0..n)
        .map(|k| b.get_tuple_element(out, k as i64))
        .collect::<Result<_>>()?;
    let t = b.get_tuple_element(p, n as i64)?;
    next.push(b.add(t, b.constant_r0(1i32)?, &[])?);
    let zero = b.constant_r0(0i32)?;
    let mut slot = n as i64 + 1;
    for (k, shape) in shapes.iter().enumerate() {
        if !varying[k] {
            continue;
        }
        let stack = b.get_tuple_element(p, slot)?;
        let mut row = vec![1];
        row.extend_from_slice(shape.dims());
        let value = b.reshape(b.get_tuple_element(p, k as i64)?, &row)?;
        let mut at = vec![t];
        at.extend(std::iter::repeat_n(zero, shape.rank()));
        next.push(b.dynamic_update_slice(stack, value, &at)?);
        slot += 1;
    }
    b.build(b.tuple(&next)?)
}

/// The reverse loop's carry: `[t, cotangents…, stack or value…]`.
fn reverse_layout(shapes: &[ArrayShape], stacks: &[Option<XlaOp>], trips: i64) -> Shape {
    let mut layout = vec![Shape::scalar(PrimitiveType::S32)];
    layout.extend(shapes.iter().cloned().map(Shape::Array));
    for (s, stack) in shapes.iter().zip(stacks) {
        layout.push(Shape::Array(match stack {
            Some(_) => stacked(s, trips),
            None => s.clone(),
        }));
    }
    Shape::Tuple(layout)
}

/// `t > 0` on the reverse loop's carry.
fn counter_positive(
    shapes: &[ArrayShape],
    stacks: &[Option<XlaOp>],
    trips: i64,
) -> Result<XlaComputation> {
    let b = XlaBuilder::new("reverse_condition");
    let p = b.parameter(0, &reverse_layout(shapes, stacks, trips), "carry")?;
    let t = b.get_tuple_element(p, 0)?;
    let root = b.gt(t, b.constant_r0(0i32)?, &[])?;
    b.build(root)
}

/// The reverse loop's body: `t − 1`; the carry of iteration `t − 1` read
/// back; the cotangents passed through the body's vector-Jacobian
/// product.
fn reverse_body(
    shapes: &[ArrayShape],
    stacks: &[Option<XlaOp>],
    trips: i64,
    body_vjp: &XlaComputation,
) -> Result<XlaComputation> {
    let n = shapes.len();
    let layout = reverse_layout(shapes, stacks, trips);
    let b = XlaBuilder::new("reverse_body");
    let p = b.parameter(0, &layout, "carry")?;
    let t = b.sub(b.get_tuple_element(p, 0)?, b.constant_r0(1i32)?, &[])?;
    let zero = b.constant_r0(0i32)?;
    let mut values = Vec::with_capacity(n);
    for (k, shape) in shapes.iter().enumerate() {
        let slot = b.get_tuple_element(p, (n + 1 + k) as i64)?;
        values.push(match stacks[k] {
            Some(_) => {
                let mut at = vec![t];
                at.extend(std::iter::repeat_n(zero, shape.rank()));
                let mut row = vec![1];
                row.extend_from_slice(shape.dims());
                b.reshape(b.dynamic_slice(slot, &at, &row)?, shape.dims())?
            }
            None => slot,
        });
    }
    let cts: Vec<XlaOp> = (0..n)
        .map(|k| b.get_tuple_element(p, k as i64 + 1))
        .collect::<Result<_>>()?;
    let back = b.call(body_vjp, &[b.tuple(&values)?, b.tuple(&cts)?])?;
    let mut next = vec![t];
    for k in 0..n {
        next.push(b.get_tuple_element(back, k as i64)?);
    }
    for k in 0..n {
        next.push(b.get_tuple_element(p, (n + 1 + k) as i64)?);
    }
    b.build(b.tuple(&next)?)
}

/// A conditional branch for the reverse pass: takes `(operand, cotangent
/// of the result)` and returns the cotangent of every branch's operand,
/// its own from `vjp` and zeros for the others.
fn branch_vjp(
    k: usize,
    operands: &[Shape],
    result: &Shape,
    vjp: &XlaComputation,
) -> Result<XlaComputation> {
    let b = XlaBuilder::new("branch_vjp");
    let p = b.parameter(
        0,
        &Shape::Tuple(vec![operands[k].clone(), result.clone()]),
        "operand_and_cotangent",
    )?;
    let mine = b.call(
        vjp,
        &[b.get_tuple_element(p, 0)?, b.get_tuple_element(p, 1)?],
    )?;
    let parts = (operands.iter().enumerate())
        .map(|(j, s)| if j == k { Ok(mine) } else { zeros(&b, s) })
        .collect::<Result<Vec<_>>>()?;
    b.build(b.tuple(&parts)?)
}
