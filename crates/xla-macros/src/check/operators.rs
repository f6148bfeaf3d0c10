//! Operators: `+ - * / %`, `& | ^`, `<< >>`, comparisons and `&& ||`
//! lower to the element-wise ops; operators on two weak literals fold
//! (`2 * N` stays a size, `1.0 / 3.0` a literal).

use xla_core::hlo::{ComparisonDirection as Dir, Opcode};

use super::scope::{Deferred, Ty, Val, Weak};
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{BinOp, DimExpr, DimOp, Expr, ExprKind, Range};

/// What a binary operator does.
enum Lowering {
    Binary(Opcode, &'static str),
    Compare(Dir),
    /// `>>`: arithmetic for signed types, logical for unsigned ones (as
    /// Rust's `>>`).
    ShiftRight,
    /// `&&` / `||`: `and` / `or` of `pred` values.
    Logical(Opcode, &'static str),
}

fn lowering(op: BinOp) -> Lowering {
    match op {
        BinOp::Add => Lowering::Binary(Opcode::Add, "add"),
        BinOp::Sub => Lowering::Binary(Opcode::Subtract, "sub"),
        BinOp::Mul => Lowering::Binary(Opcode::Multiply, "mul"),
        BinOp::Div => Lowering::Binary(Opcode::Divide, "div"),
        BinOp::Rem => Lowering::Binary(Opcode::Remainder, "rem"),
        BinOp::BitAnd => Lowering::Binary(Opcode::And, "and"),
        BinOp::BitOr => Lowering::Binary(Opcode::Or, "or"),
        BinOp::BitXor => Lowering::Binary(Opcode::Xor, "xor"),
        BinOp::Shl => Lowering::Binary(Opcode::ShiftLeft, "shift_left"),
        BinOp::Shr => Lowering::ShiftRight,
        BinOp::Eq => Lowering::Compare(Dir::Eq),
        BinOp::Ne => Lowering::Compare(Dir::Ne),
        BinOp::Lt => Lowering::Compare(Dir::Lt),
        BinOp::Le => Lowering::Compare(Dir::Le),
        BinOp::Gt => Lowering::Compare(Dir::Gt),
        BinOp::Ge => Lowering::Compare(Dir::Ge),
        BinOp::And => Lowering::Logical(Opcode::And, "and"),
        BinOp::Or => Lowering::Logical(Opcode::Or, "or"),
    }
}

pub fn compare_method(dir: Dir, total_order: bool) -> &'static str {
    match (dir, total_order) {
        (Dir::Eq, false) => "eq",
        (Dir::Ne, false) => "ne",
        (Dir::Lt, false) => "lt",
        (Dir::Le, false) => "le",
        (Dir::Gt, false) => "gt",
        (Dir::Ge, false) => "ge",
        (Dir::Eq, true) => "eq_total_order",
        (Dir::Ne, true) => "ne_total_order",
        (Dir::Lt, true) => "lt_total_order",
        (Dir::Le, true) => "le_total_order",
        (Dir::Gt, true) => "gt_total_order",
        (Dir::Ge, true) => "ge_total_order",
    }
}

/// Folds an operator on two weak numbers (`2 * N`, `1.0 / 3.0`); `None`
/// when the result is not a weak number.
fn fold(op: BinOp, a: &Weak, b: &Weak, range: Range) -> Option<Weak> {
    let size = |w: &Weak| match w {
        Weak::Int(v) => i64::try_from(*v).ok().map(|v| DimExpr::Const(v, range)),
        Weak::Size(d) => Some(d.clone()),
        Weak::Float(_) | Weak::Deferred(_) => None,
    };
    let float = |w: &Weak| match w {
        Weak::Int(v) => Some(*v as f64),
        Weak::Float(v) => Some(*v),
        Weak::Size(_) | Weak::Deferred(_) => None,
    };
    match (a, b) {
        (Weak::Int(x), Weak::Int(y)) => match op {
            BinOp::Add => x.checked_add(*y),
            BinOp::Sub => x.checked_sub(*y),
            BinOp::Mul => x.checked_mul(*y),
            _ => None,
        }
        .map(Weak::Int),
        (Weak::Size(_), _) | (_, Weak::Size(_)) => {
            let dim_op = match op {
                BinOp::Add => DimOp::Add,
                BinOp::Sub => DimOp::Sub,
                BinOp::Mul => DimOp::Mul,
                _ => return None,
            };
            let (x, y) = (size(a)?, size(b)?);
            Some(Weak::Size(DimExpr::Binary(
                dim_op,
                Box::new(x),
                Box::new(y),
            )))
        }
        _ => {
            let (x, y) = (float(a)?, float(b)?);
            match op {
                BinOp::Add => Some(x + y),
                BinOp::Sub => Some(x - y),
                BinOp::Mul => Some(x * y),
                BinOp::Div => Some(x / y),
                _ => None,
            }
            .map(Weak::Float)
        }
    }
}

impl Checker<'_> {
    /// `lhs op rhs` as written with an operator.
    pub fn binary_operator(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, range: Range) -> Val {
        let l = self.expr(lhs);
        let r = self.expr(rhs);
        let result = self.binary_values(op, l.clone(), r.clone(), range);
        if result.is_error() {
            // `total + x` with `let mut total = 0.0;` and `x: f64`.
            for (e, var, other) in [(lhs, &l, &r), (rhs, &r, &l)] {
                if let ExprKind::Var(name) = &e.kind {
                    let site = self
                        .frames
                        .lookup(&name.to_string())
                        .ok()
                        .and_then(|b| b.weak_site);
                    self.request_type(site, var, other);
                }
            }
        }
        result
    }

    /// An operator on checked values.
    pub fn binary_values(&mut self, op: BinOp, l: Val, r: Val, range: Range) -> Val {
        if let (Ty::Weak(a), Ty::Weak(b)) = (&l.ty, &r.ty) {
            let float = |w: &Weak| matches!(w, Weak::Float(_) | Weak::Deferred(_));
            let arithmetic = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div);
            let weak = match fold(op, a, b, range) {
                Some(w) => Some(w),
                // `1.0 / N`: computed in the type it takes.
                None if arithmetic && (float(a) || float(b)) => Some(Weak::Deferred(Box::new(
                    Deferred::Binary(op, l.clone(), r.clone()),
                ))),
                None => None,
            };
            if let Some(w) = weak {
                return Val {
                    ty: Ty::Weak(w),
                    id: None,
                    range,
                };
            }
        }
        let Some((l, r)) = self.unify_literals(l, r) else {
            return Val::error(range);
        };
        let spans = OpSpans::new(range, vec![l.range, r.range]);
        match lowering(op) {
            Lowering::Binary(opcode, builder) => self.binary(opcode, builder, l, r, None, &spans),
            Lowering::Compare(dir) => self.compare(dir, false, l, r, None, &spans),
            Lowering::ShiftRight => {
                let unsigned = matches!(&l.ty, Ty::Shape(s) if s.element_type().is_some_and(|t| t.is_unsigned_integral()));
                let (opcode, builder) = if unsigned {
                    (Opcode::ShiftRightLogical, "shift_right_logical")
                } else {
                    (Opcode::ShiftRightArithmetic, "shift_right_arithmetic")
                };
                self.binary(opcode, builder, l, r, None, &spans)
            }
            Lowering::Logical(opcode, builder) => {
                let v = self.binary(opcode, builder, l, r, None, &spans);
                let not_pred =
                    matches!(&v.ty, Ty::Shape(s) if s.element_type().is_some_and(|t| !t.is_pred()));
                if not_pred {
                    self.error(
                        range,
                        format!(
                            "`{}` takes pred operands; for a bitwise {} of integers use `{}`",
                            op.symbol(),
                            builder,
                            &op.symbol()[..1]
                        ),
                    );
                    return Val::error(range);
                }
                v
            }
        }
    }

    /// Gives a weak operand the element type of the other one (both weak:
    /// their default types). `None` if either failed.
    pub fn unify_literals(&mut self, l: Val, r: Val) -> Option<(Val, Val)> {
        if l.is_error() || r.is_error() {
            return None;
        }
        let type_of = |v: &Val| match &v.ty {
            Ty::Shape(s) => s.element_type(),
            Ty::Weak(_) | Ty::Error => None,
        };
        let l = match type_of(&r) {
            Some(t) => self.materialize(&l, t),
            None => self.concrete(l),
        };
        let r = match type_of(&l) {
            Some(t) => self.materialize(&r, t),
            None => self.concrete(r),
        };
        (!l.is_error() && !r.is_error()).then_some((l, r))
    }
}
