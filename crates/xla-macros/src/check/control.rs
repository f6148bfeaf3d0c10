//! Control flow: `while` loops over `let mut` state and `if … else …`.
//!
//! A loop becomes an XLA While whose state is the tuple of every outer
//! variable the condition or body uses; the variables the body assigns
//! are rebound to the loop's result afterwards. An `if` on a `pred[]`
//! becomes an XLA Conditional; each branch receives the outer variables it
//! uses as a tuple operand, and both must give the same shape.

use crate::types::ExactDim;
use xla_core::infer::{self, Signature};
use xla_core::{PrimitiveType, Shape};

use super::scope::{Binding, Capture, Frame, FrameKind, Ty, Val};
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{Block, Expr, ExprKind, Range, Stmt};
use crate::ir::{Instr, ParamShape};

/// The value-less `ParamShape` a state parameter has until the state's
/// tuple exists.
const PENDING: ParamShape = ParamShape::Scalar(PrimitiveType::Pred);

impl Checker<'_> {
    /// Opens a loop or branch frame whose parameter is the state tuple,
    /// with `seed` captures already in it.
    fn open_state_frame(&mut self, kind: FrameKind, name: String, seed: &[Capture]) {
        let mut frame = Frame::new(kind, name);
        let state = frame.param(PENDING);
        frame.state = Some(state);
        for (k, c) in seed.iter().enumerate() {
            let id = frame.push(Instr::GetTupleElement(state, k));
            frame.captures.push(Capture {
                current: Binding {
                    id: Some(id),
                    ..c.current.clone()
                },
                assigned: false,
                ..c.clone()
            });
        }
        self.frames.stack.push(frame);
    }

    /// `while cond { body }` as a statement.
    pub fn while_loop(&mut self, cond: &Expr, body: &Block, range: Range) {
        let name = self.computation_name("while");
        self.open_state_frame(FrameKind::Loop, format!("{name}_condition"), &[]);
        let c = self.expr(cond);
        let c = self.concrete(c);
        let cond_frame = self.frames.stack.pop().expect("the condition's frame");
        self.open_state_frame(
            FrameKind::Loop,
            format!("{name}_body"),
            &cond_frame.captures,
        );
        let before = self.errors.len();
        self.loop_body(body);
        let mut body_frame = self.frames.stack.pop().expect("the body's frame");
        if c.is_error() || self.errors.len() > before {
            return;
        }
        let shapes: Vec<Shape<ExactDim>> = body_frame
            .captures
            .iter()
            .map(|cap| match &cap.current.ty {
                Ty::Shape(s) => s.clone(),
                Ty::Weak(_) | Ty::Error => unreachable!("captures are checked values"),
            })
            .collect();
        let state = Shape::Tuple(shapes);
        let Ty::Shape(cond_shape) = &c.ty else {
            return;
        };
        let params = [state.clone()];
        let cond_sig = Signature {
            parameters: &params,
            result: cond_shape,
        };
        let body_sig = Signature {
            parameters: &params,
            result: &state,
        };
        let spans = OpSpans::new(range, vec![range])
            .attr("condition", c.range, vec![])
            .attr("body", body.range, vec![]);
        if let Err(err) = infer::while_loop(cond_sig, body_sig, &state) {
            self.report(err, &spans);
            return;
        }
        let results: Vec<usize> = body_frame
            .captures
            .iter()
            .map(|cap| cap.current.id.expect("a value"))
            .collect();
        let body_root = body_frame.push(Instr::Tuple(results));
        let outer: Vec<usize> = body_frame.captures.iter().map(|cap| cap.outer).collect();
        let init = self.frames.push_instr(Instr::Tuple(outer));
        let assigned: Vec<(usize, Capture)> = body_frame
            .captures
            .iter()
            .cloned()
            .enumerate()
            .filter(|(_, cap)| cap.assigned)
            .collect();
        let mut cond_frame = cond_frame;
        cond_frame.params[0] = ParamShape::Like(init);
        body_frame.params[0] = ParamShape::Like(init);
        let condition = Box::new(cond_frame.finish(c.id.expect("a value")));
        let body = Box::new(body_frame.finish(body_root));
        let result = self.frames.push_instr(Instr::While {
            condition,
            body,
            init,
        });
        for (k, cap) in assigned {
            let id = self.frames.push_instr(Instr::GetTupleElement(result, k));
            let binding = Binding {
                ty: cap.current.ty.clone(),
                id: Some(id),
                mutable: true,
            };
            if !self.frames.assign(&cap.name, binding) {
                self.error(
                    range,
                    format!(
                        "this loop assigns `{}`, which belongs to an enclosing `if` branch's computation; \
                         return the value from the branch instead",
                        cap.name
                    ),
                );
            }
        }
    }

    /// A loop body: statements only (a trailing assignment or loop needs
    /// no `;`).
    fn loop_body(&mut self, body: &Block) {
        self.frames.open_scope();
        for stmt in &body.stmts {
            match stmt {
                Stmt::Let { pat, ty, init } => self.let_stmt(pat, ty.as_ref(), init),
                Stmt::Expr(e) => self.statement(e),
            }
        }
        if let Some(tail) = &body.tail {
            match &tail.kind {
                ExprKind::Assign { .. } | ExprKind::While { .. } => self.statement(tail),
                _ => {
                    let v = self.expr(tail);
                    if !v.is_error() {
                        self.error(
                            tail.range,
                            "a loop body has no value; assign the result to a `let mut` variable",
                        );
                    }
                }
            }
        }
        self.frames.close_scope();
    }

    /// `if cond { a } else { b }`.
    pub fn if_else(
        &mut self,
        cond: &Expr,
        then: &Block,
        otherwise: Option<&Expr>,
        range: Range,
    ) -> Val {
        let pred = self.expr(cond);
        let pred = self.concrete(pred);
        let Some(otherwise) = otherwise else {
            self.error(
                range,
                "an `if` without `else` has no value; add an `else` branch",
            );
            self.block(then);
            return Val::error(range);
        };
        let name = self.computation_name("if");
        self.open_state_frame(FrameKind::Branch, format!("{name}_true"), &[]);
        let t = self.block(then);
        let then_frame = self.frames.stack.pop().expect("the branch's frame");
        self.open_state_frame(FrameKind::Branch, format!("{name}_false"), &[]);
        let f = self.expr(otherwise);
        let else_frame = self.frames.stack.pop().expect("the branch's frame");
        // Literal branches take the other branch's type.
        let (t, then_frame) = self.in_frame(then_frame, |this| match &f.ty {
            Ty::Shape(s) => match s.element_type() {
                Some(ty) => this.materialize(&t, ty),
                None => t.clone(),
            },
            _ => this.concrete(t.clone()),
        });
        let (f, else_frame) = self.in_frame(else_frame, |this| match &t.ty {
            Ty::Shape(s) => match s.element_type() {
                Some(ty) => this.materialize(&f, ty),
                None => f.clone(),
            },
            _ => this.concrete(f.clone()),
        });
        if pred.is_error() || t.is_error() || f.is_error() {
            return Val::error(range);
        }
        let (Ty::Shape(p), Ty::Shape(ts), Ty::Shape(fs)) = (&pred.ty, &t.ty, &f.ty) else {
            return Val::error(range);
        };
        let operand_shape = |frame: &Frame| {
            Shape::Tuple(
                frame
                    .captures
                    .iter()
                    .map(|c| match &c.current.ty {
                        Ty::Shape(s) => s.clone(),
                        Ty::Weak(_) | Ty::Error => unreachable!("captures are checked values"),
                    })
                    .collect(),
            )
        };
        let (to, fo) = (operand_shape(&then_frame), operand_shape(&else_frame));
        let (tp, fp) = ([to.clone()], [fo.clone()]);
        let sigs = [
            Signature {
                parameters: &tp,
                result: ts,
            },
            Signature {
                parameters: &fp,
                result: fs,
            },
        ];
        let spans = OpSpans::new(range, vec![pred.range])
            .attr("branch_computations[0]", t.range, vec![])
            .attr("branch_computations[1]", f.range, vec![]);
        if let Err(err) = infer::conditional(p, &sigs, &[&to, &fo]) {
            self.report(err, &spans);
            return Val::error(range);
        }
        if ts != fs {
            self.error(
                f.range,
                format!("mismatched types: the `if` branch gives {ts}, but the `else` branch gives {fs}"),
            );
            return Val::error(range);
        }
        let shape = ts.clone();
        let mut branches = Vec::new();
        for (frame, value) in [(then_frame, &t), (else_frame, &f)] {
            let outer: Vec<usize> = frame.captures.iter().map(|c| c.outer).collect();
            let operand = self.frames.push_instr(Instr::Tuple(outer));
            let mut frame = frame;
            frame.params[0] = ParamShape::Like(operand);
            branches.push((operand, frame.finish(value.id.expect("a value"))));
        }
        let id = self.frames.push_instr(Instr::Conditional {
            pred: pred.id.expect("a value"),
            branches,
        });
        Val::shape(shape, id, range)
    }

    /// Runs `f` with `frame` on top of the stack again; returns its result
    /// and the frame.
    fn in_frame<T>(&mut self, frame: Frame, f: impl FnOnce(&mut Self) -> T) -> (T, Frame) {
        self.frames.stack.push(frame);
        let out = f(self);
        let frame = self.frames.stack.pop().expect("the frame pushed above");
        (out, frame)
    }
}
