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

use super::scope::{Binding, Capture, Frame, FrameKind, Ty};
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
    pub fn open_state_frame(&mut self, kind: FrameKind, name: String, seed: &[Capture]) {
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
        self.statements(body, "a loop body");
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
                weak_site: None,
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

    /// A block of statements only, such as a loop body (a trailing
    /// assignment, loop or `if` needs no `;`); `what` names it in the
    /// error for a trailing value.
    pub fn statements(&mut self, body: &Block, what: &str) {
        self.frames.open_scope();
        for stmt in &body.stmts {
            match stmt {
                Stmt::Let { pat, ty, init } => self.let_stmt(pat, ty.as_ref(), init),
                Stmt::Expr(e) => self.statement(e),
            }
        }
        if let Some(tail) = &body.tail {
            if is_statement(tail) {
                self.statement(tail);
            } else {
                let v = self.expr(tail);
                if !v.is_error() {
                    self.error(
                        tail.range,
                        format!("{what} has no value; assign the result to a `let mut` variable"),
                    );
                }
            }
        }
        self.frames.close_scope();
    }

    /// Runs `f` with `frame` on top of the stack again; returns its result
    /// and the frame.
    pub fn in_frame<T>(&mut self, frame: Frame, f: impl FnOnce(&mut Self) -> T) -> (T, Frame) {
        self.frames.stack.push(frame);
        let out = f(self);
        let frame = self.frames.stack.pop().expect("the frame pushed above");
        (out, frame)
    }
}

/// Whether an expression is a statement rather than a value: an
/// assignment, a loop, or an `if` whose branches end in statements.
pub fn is_statement(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Assign { .. } | ExprKind::While { .. } => true,
        ExprKind::If { then, .. } => then.tail.as_deref().is_none_or(is_statement),
        _ => false,
    }
}
