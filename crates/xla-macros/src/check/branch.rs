//! `if … else …` on a `pred[]`: an XLA Conditional.
//!
//! Each branch is a computation whose operand is the tuple of the outer
//! variables it uses. As an expression, both branches give a value of one
//! type. Branches may also assign outer `let mut` variables (as
//! statements, `else` may then be left out): the conditional then returns
//! a tuple of the value (if any) and the assigned variables' new values,
//! and the variables are rebound to its elements afterwards; a branch that
//! does not assign a variable passes its value through.

use xla_core::infer::{self, Signature};
use xla_core::Shape;

use super::scope::{Binding, Frame, FrameKind, Ty, Val};
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{Block, Expr, ExprKind, Range};
use crate::ir::{Instr, ParamShape};
use crate::types::ExactDim;

/// A checked branch: its frame and value (none for a statement).
struct Branch {
    frame: Frame,
    value: Option<Val>,
}

impl Checker<'_> {
    /// `if cond { a } else { b }` as an expression.
    pub fn if_else(
        &mut self,
        cond: &Expr,
        then: &Block,
        otherwise: Option<&Expr>,
        range: Range,
    ) -> Val {
        if otherwise.is_none() {
            self.expr(cond);
            self.error(
                range,
                "an `if` without `else` has no value; add an `else` branch",
            );
            self.block(then);
            return Val::error(range);
        }
        self.conditional(cond, then, otherwise, range, true)
    }

    /// `if cond { … } else { … }` as a statement: its branches assign
    /// variables; `else` is optional.
    pub fn if_statement(
        &mut self,
        cond: &Expr,
        then: &Block,
        otherwise: Option<&Expr>,
        range: Range,
    ) {
        self.conditional(cond, then, otherwise, range, false);
    }

    fn branch(&mut self, name: String, body: impl FnOnce(&mut Self) -> Option<Val>) -> Branch {
        self.open_state_frame(FrameKind::Branch, name, &[]);
        let value = body(self);
        let frame = self.frames.stack.pop().expect("the branch's frame");
        Branch { frame, value }
    }

    fn conditional(
        &mut self,
        cond: &Expr,
        then: &Block,
        otherwise: Option<&Expr>,
        range: Range,
        value: bool,
    ) -> Val {
        let pred = self.expr(cond);
        let pred = self.concrete(pred);
        let name = self.computation_name("if");
        let before = self.errors.len();
        let mut t = self.branch(format!("{name}_true"), |this| {
            if value {
                Some(this.block(then))
            } else {
                this.statements(then, "an `if` statement's branch");
                None
            }
        });
        let mut f = self.branch(format!("{name}_false"), |this| match otherwise {
            Some(e) if value => Some(this.expr(e)),
            Some(e) => {
                match &e.kind {
                    ExprKind::Block(block) => this.statements(block, "an `if` statement's branch"),
                    // `else if …`.
                    _ => this.statement(e),
                }
                None
            }
            None => None,
        });
        self.unify_branch_literals(&mut t, &mut f);
        // Every variable either branch assigns is in both branches' results.
        let mut assigned: Vec<String> = Vec::new();
        for c in t.frame.captures.iter().chain(&f.frame.captures) {
            if c.assigned && !assigned.contains(&c.name) {
                assigned.push(c.name.clone());
            }
        }
        if pred.is_error() || self.errors.len() > before {
            return Val::error(range);
        }
        let t_result = self.branch_result(&mut t, &assigned);
        let f_result = self.branch_result(&mut f, &assigned);
        let (Some((ts, t_root)), Some((fs, f_root))) = (t_result, f_result) else {
            return Val::error(range);
        };
        let Ty::Shape(p) = &pred.ty else {
            return Val::error(range);
        };
        let operand = |frame: &Frame| {
            Shape::Tuple(
                frame
                    .captures
                    .iter()
                    .map(|c| capture_shape(&c.current))
                    .collect(),
            )
        };
        let (to, fo) = (operand(&t.frame), operand(&f.frame));
        let (tp, fp) = ([to.clone()], [fo.clone()]);
        let sigs = [
            Signature {
                parameters: &tp,
                result: &ts,
            },
            Signature {
                parameters: &fp,
                result: &fs,
            },
        ];
        let (t_range, f_range) = (
            range_of(&t, then.range),
            range_of(&f, otherwise.map_or(range, |e| e.range)),
        );
        let spans = OpSpans::new(range, vec![pred.range])
            .attr("branch_computations[0]", t_range, vec![])
            .attr("branch_computations[1]", f_range, vec![]);
        if let Err(err) = infer::conditional(p, &sigs, &[&to, &fo]) {
            self.report(err, &spans);
            return Val::error(range);
        }
        if ts != fs {
            let (a, b) = (
                value_shape(&ts, &assigned, value),
                value_shape(&fs, &assigned, value),
            );
            self.error(
                f_range,
                format!(
                    "mismatched types: the `if` branch gives {a}, but the `else` branch gives {b}"
                ),
            );
            return Val::error(range);
        }
        let mut branches = Vec::new();
        for (branch, root) in [(t, t_root), (f, f_root)] {
            let outer: Vec<usize> = branch.frame.captures.iter().map(|c| c.outer).collect();
            let operand = self.frames.push_instr(Instr::Tuple(outer));
            let mut frame = branch.frame;
            frame.params[0] = ParamShape::Like(operand);
            branches.push((operand, frame.finish(root)));
        }
        let id = self.frames.push_instr(Instr::Conditional {
            pred: pred.id.expect("a value"),
            branches,
        });
        if assigned.is_empty() {
            return Val::shape(ts, id, range);
        }
        let elements = ts
            .tuple_shapes()
            .expect("a tuple of the value and the variables")
            .to_vec();
        let offset = usize::from(value);
        for (k, name) in assigned.iter().enumerate() {
            let element = self
                .frames
                .push_instr(Instr::GetTupleElement(id, offset + k));
            let binding = Binding {
                ty: Ty::Shape(elements[offset + k].clone()),
                id: Some(element),
                mutable: true,
                weak_site: None,
            };
            self.frames.assign(name, binding);
        }
        if value {
            let v = self.frames.push_instr(Instr::GetTupleElement(id, 0));
            Val::shape(elements[0].clone(), v, range)
        } else {
            Val::error(range)
        }
    }

    /// A literal branch value takes the other branch's element type.
    fn unify_branch_literals(&mut self, t: &mut Branch, f: &mut Branch) {
        let type_of = |b: &Branch| match b.value.as_ref().map(|v| &v.ty) {
            Some(Ty::Shape(s)) => s.element_type(),
            _ => None,
        };
        let (tt, ft) = (type_of(t), type_of(f));
        for (branch, other) in [(&mut *t, ft), (&mut *f, tt)] {
            let Some(v) = branch.value.take() else {
                continue;
            };
            let frame = std::mem::replace(
                &mut branch.frame,
                Frame::new(FrameKind::Branch, String::new()),
            );
            let (v, frame) = self.in_frame(frame, |this| match other {
                Some(ty) => this.materialize(&v, ty),
                None => this.concrete(v),
            });
            branch.frame = frame;
            branch.value = Some(v);
        }
    }

    /// A branch's result: its value, or the tuple of its value and the
    /// current values of the assigned variables (captured here if the
    /// branch did not use them). Returns the shape and the root.
    fn branch_result(
        &mut self,
        branch: &mut Branch,
        assigned: &[String],
    ) -> Option<(Shape<ExactDim>, usize)> {
        let value = match &branch.value {
            Some(v) => match (&v.ty, v.id) {
                (Ty::Shape(s), Some(id)) => Some((s.clone(), id)),
                _ => return None,
            },
            None => None,
        };
        if assigned.is_empty() {
            return value;
        }
        let frame = std::mem::replace(
            &mut branch.frame,
            Frame::new(FrameKind::Branch, String::new()),
        );
        let (currents, frame) = self.in_frame(frame, |this| {
            assigned
                .iter()
                .map(|name| this.frames.lookup(name).ok())
                .collect::<Option<Vec<Binding>>>()
        });
        branch.frame = frame;
        let mut shapes = Vec::new();
        let mut ids = Vec::new();
        if let Some((s, id)) = value {
            shapes.push(s);
            ids.push(id);
        }
        for b in currents? {
            shapes.push(capture_shape(&b));
            ids.push(b.id?);
        }
        let root = branch.frame.push(Instr::Tuple(ids));
        Some((Shape::Tuple(shapes), root))
    }
}

fn capture_shape(b: &Binding) -> Shape<ExactDim> {
    match &b.ty {
        Ty::Shape(s) => s.clone(),
        Ty::Weak(_) | Ty::Error => unreachable!("captured variables are checked values"),
    }
}

/// The range errors about a branch point at: its value, else its body.
fn range_of(branch: &Branch, body: Range) -> Range {
    branch.value.as_ref().map_or(body, |v| v.range)
}

/// The value part of a branch result, for messages.
fn value_shape(result: &Shape<ExactDim>, assigned: &[String], value: bool) -> String {
    match (assigned.is_empty(), result.tuple_shapes()) {
        (false, Some(elements)) if value => elements[0].to_string(),
        _ => result.to_string(),
    }
}
