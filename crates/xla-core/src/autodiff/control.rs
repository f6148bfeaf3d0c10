//! Gradients of control flow: `while` loops whose trip count is known at
//! compile time, and `conditional`.
//!
//! A loop is differentiated by keeping what each iteration's backward pass
//! needs: the forward loop is replayed with one stack per element of the
//! carry that changes from one iteration to the next (iteration `t` stores
//! its input carry at row `t`; elements the body passes through unchanged,
//! such as weights or a `scan`'s `xs`, are not stored) and one per
//! *residual*, a value inside the body that its vector-Jacobian product
//! reads (the body is split into a forward part that also returns them and
//! a backward part that takes them, as `jax.grad` of `scan` stores its
//! residuals). The reverse loop runs the backward part from the last
//! iteration to the first, reading each iteration's carry and residuals
//! back from the stacks: the body runs once forward and once backward. A
//! body with loops or conditionals of its own is not split; its reverse
//! loop recomputes the body's forward pass from the stored carries.

use super::rules::no_rule;
use super::{split_vjp, vjp_computation, zeros, Ct, Tape};
use crate::builder::{XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{ComparisonDirection, HloComputation, HloInstruction, InstrId, Opcode};
use crate::{ArrayShape, PrimitiveType, Result, Shape};

/// The carries of a differentiated loop.
struct Plan {
    /// The shapes of the loop's carried tuple.
    shapes: Vec<ArrayShape>,
    /// Which elements change from one iteration to the next.
    varying: Vec<bool>,
    /// The number of iterations.
    trips: i64,
    /// The shapes of the residuals each iteration stores.
    residuals: Vec<ArrayShape>,
}

impl Plan {
    /// The stacking loop's carry: the original elements, the iteration
    /// counter, one stack per changing element, one per residual.
    fn stacking_layout(&self) -> Vec<Shape> {
        let mut layout: Vec<Shape> = self.shapes.iter().cloned().map(Shape::Array).collect();
        layout.push(Shape::scalar(PrimitiveType::S32));
        let changing = (self.shapes.iter().zip(&self.varying))
            .filter(|(_, &v)| v)
            .map(|(s, _)| s);
        layout.extend(
            changing
                .chain(&self.residuals)
                .map(|s| Shape::Array(stacked(s, self.trips))),
        );
        layout
    }

    /// The reverse loop's carry: `[t, cotangents…, stack or value…,
    /// residual stacks…]`.
    fn reverse_layout(&self) -> Shape {
        let mut layout = vec![Shape::scalar(PrimitiveType::S32)];
        layout.extend(self.shapes.iter().cloned().map(Shape::Array));
        for (s, &v) in self.shapes.iter().zip(&self.varying) {
            layout.push(Shape::Array(if v {
                stacked(s, self.trips)
            } else {
                s.clone()
            }));
        }
        layout.extend(
            self.residuals
                .iter()
                .map(|s| Shape::Array(stacked(s, self.trips))),
        );
        Shape::Tuple(layout)
    }
}

/// What the forward replay of a differentiated loop kept.
pub(super) struct LoopTape {
    plan: Plan,
    /// The stacked carry of each element that changes (by element).
    stacks: Vec<Option<XlaOp>>,
    /// The stacked residuals.
    residual_stacks: Vec<XlaOp>,
    /// The loop's final carry (elements that do not change hold their
    /// initial value throughout).
    result: XlaOp,
    /// `(carry, cotangent of the next carry, residuals…) → cotangent of
    /// the carry`.
    backward: XlaComputation,
}

impl Tape<'_> {
    /// Replays `while` instruction `instr` (operands already replayed) as a
    /// loop that also stacks the carries and residuals the reverse loop
    /// needs.
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
        let (forward, backward, residuals) = match split_vjp(self.module, body)? {
            Some(split) => (split.forward, split.backward, split.residuals),
            None => (
                self.computation(body)?,
                vjp_computation(self.module, body)?,
                Vec::new(),
            ),
        };
        let plan = Plan {
            shapes,
            varying,
            trips,
            residuals,
        };
        let n = plan.shapes.len();
        let init = self.operand(instr, 0)?;
        let mut carry: Vec<XlaOp> = (0..n)
            .map(|k| b.get_tuple_element(init, k as i64))
            .collect::<Result<_>>()?;
        carry.push(self.scalar(PrimitiveType::S32, 0.0)?);
        for shape in &plan.stacking_layout()[n + 1..] {
            carry.push(self.zeros(shape)?);
        }
        let stacking = stacking_body(&plan, &forward)?;
        let condition = on_prefix(n, &plan.stacking_layout(), &self.computation(cond)?)?;
        let looped = b.while_loop(&condition, &stacking, b.tuple(&carry)?)?;
        let part = |k: usize| b.get_tuple_element(looped, k as i64);
        let result = b.tuple(&(0..n).map(part).collect::<Result<Vec<_>>>()?)?;
        let mut next = n + 1;
        let mut stacks = Vec::with_capacity(n);
        for &v in &plan.varying {
            stacks.push(
                v.then(|| {
                    next += 1;
                    part(next - 1)
                })
                .transpose()?,
            );
        }
        let residual_stacks = (next..next + plan.residuals.len())
            .map(part)
            .collect::<Result<_>>()?;
        Ok((
            result,
            LoopTape {
                plan,
                stacks,
                residual_stacks,
                result,
                backward,
            },
        ))
    }

    /// The cotangent of a loop's initial carry from that of its result:
    /// the body's backward part, run from the last iteration to the first.
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
        let plan = &tape.plan;
        let n = plan.shapes.len();
        let ct = self.materialize(&ct, &instr.shape)?;
        let mut carry = vec![self.scalar(PrimitiveType::S32, plan.trips as f64)?];
        for k in 0..n {
            carry.push(b.get_tuple_element(ct, k as i64)?);
        }
        for k in 0..n {
            carry.push(match tape.stacks[k] {
                Some(stack) => stack,
                None => b.get_tuple_element(tape.result, k as i64)?,
            });
        }
        carry.extend(&tape.residual_stacks);
        let reverse_body = reverse_body(plan, &tape.backward)?;
        let reverse_cond = counter_positive(plan)?;
        let looped = b.while_loop(&reverse_cond, &reverse_body, b.tuple(&carry)?)?;
        let parts = (plan.shapes.iter().enumerate())
            .map(|(k, s)| {
                let floating = s.element_type().is_floating();
                floating
                    .then(|| Ok(Ct::Array(b.get_tuple_element(looped, k as i64 + 1)?)))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
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
            operands.push(b.tuple(&[self.operand(instr, k + 1)?, ct])?);
        }
        let refs: Vec<&XlaComputation> = branches.iter().collect();
        let chosen = b.conditional_indexed(self.operand(instr, 0)?, &refs, &operands)?;
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

/// `computation` (of the original carry) applied to the first `count`
/// elements of a carry laid out as `layout`.
fn on_prefix(
    count: usize,
    layout: &[Shape],
    computation: &XlaComputation,
) -> Result<XlaComputation> {
    let b = XlaBuilder::new("condition");
    let p = b.parameter(0, &Shape::Tuple(layout.to_vec()), "carry")?;
    let root = b.call(computation, &[prefix(&b, p, count)?])?;
    b.build(root)
}

/// `value` (of `shape`) stored at row `t` of `stack`.
fn store(
    b: &XlaBuilder,
    stack: XlaOp,
    value: XlaOp,
    t: XlaOp,
    shape: &ArrayShape,
) -> Result<XlaOp> {
    let mut row = vec![1];
    row.extend_from_slice(shape.dims());
    let mut at = vec![t];
    at.extend(std::iter::repeat_n(b.constant_r0(0i32)?, shape.rank()));
    b.dynamic_update_slice(stack, b.reshape(value, &row)?, &at)
}

/// Row `t` of `stack`, of `shape`.
fn load(b: &XlaBuilder, stack: XlaOp, t: XlaOp, shape: &ArrayShape) -> Result<XlaOp> {
    let mut row = vec![1];
    row.extend_from_slice(shape.dims());
    let mut at = vec![t];
    at.extend(std::iter::repeat_n(b.constant_r0(0i32)?, shape.rank()));
    b.reshape(b.dynamic_slice(stack, &at, &row)?, shape.dims())
}

/// The stacking loop's body: `forward` (the body, or its forward part
/// returning the residuals after the next carry) on the original
/// elements; each changing element's input and each residual stored at
/// row `t` of its stack; `t + 1`.
fn stacking_body(plan: &Plan, forward: &XlaComputation) -> Result<XlaComputation> {
    let n = plan.shapes.len();
    let b = XlaBuilder::new("stacking_body");
    let p = b.parameter(0, &Shape::Tuple(plan.stacking_layout()), "carry")?;
    let out = b.call(forward, &[prefix(&b, p, n)?])?;
    let mut next: Vec<XlaOp> = (0..n)
        .map(|k| b.get_tuple_element(out, k as i64))
        .collect::<Result<_>>()?;
    let t = b.get_tuple_element(p, n as i64)?;
    next.push(b.add(t, b.constant_r0(1i32)?, &[])?);
    let mut slot = n as i64 + 1;
    for (k, shape) in plan.shapes.iter().enumerate() {
        if plan.varying[k] {
            let value = b.get_tuple_element(p, k as i64)?;
            next.push(store(&b, b.get_tuple_element(p, slot)?, value, t, shape)?);
            slot += 1;
        }
    }
    for (j, shape) in plan.residuals.iter().enumerate() {
        let value = b.get_tuple_element(out, (n + j) as i64)?;
        next.push(store(&b, b.get_tuple_element(p, slot)?, value, t, shape)?);
        slot += 1;
    }
    b.build(b.tuple(&next)?)
}

/// `t > 0` on the reverse loop's carry.
fn counter_positive(plan: &Plan) -> Result<XlaComputation> {
    let b = XlaBuilder::new("reverse_condition");
    let p = b.parameter(0, &plan.reverse_layout(), "carry")?;
    let t = b.get_tuple_element(p, 0)?;
    let root = b.gt(t, b.constant_r0(0i32)?, &[])?;
    b.build(root)
}

/// The reverse loop's body: `t − 1`; the carry and residuals of iteration
/// `t − 1` read back; the cotangents passed through `backward`.
fn reverse_body(plan: &Plan, backward: &XlaComputation) -> Result<XlaComputation> {
    let n = plan.shapes.len();
    let b = XlaBuilder::new("reverse_body");
    let p = b.parameter(0, &plan.reverse_layout(), "carry")?;
    let t = b.sub(b.get_tuple_element(p, 0)?, b.constant_r0(1i32)?, &[])?;
    let mut values = Vec::with_capacity(n);
    for (k, shape) in plan.shapes.iter().enumerate() {
        let slot = b.get_tuple_element(p, (n + 1 + k) as i64)?;
        values.push(match plan.varying[k] {
            true => load(&b, slot, t, shape)?,
            false => slot,
        });
    }
    let cts: Vec<XlaOp> = (0..n)
        .map(|k| b.get_tuple_element(p, k as i64 + 1))
        .collect::<Result<_>>()?;
    let mut operands = vec![b.tuple(&values)?, b.tuple(&cts)?];
    for (j, shape) in plan.residuals.iter().enumerate() {
        let stack = b.get_tuple_element(p, (2 * n + 1 + j) as i64)?;
        operands.push(load(&b, stack, t, shape)?);
    }
    let back = b.call(backward, &operands)?;
    let mut next = vec![t];
    for k in 0..n {
        next.push(b.get_tuple_element(back, k as i64)?);
    }
    for k in 0..n + plan.residuals.len() {
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
