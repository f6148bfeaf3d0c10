//! Op arguments other than operands: dimension numbers (`[0, 1]`), sizes
//! (`[B, N * 2]`), element types (`f32`), closures (`|a, b| a + b`) and
//! padding (`same`, `valid`, `[(1, 1), …]`).

use std::ops::RangeInclusive;

use crate::types::ExactDim;
use xla_core::infer::{Callee, InferError};
use xla_core::{ArrayShape, PrimitiveType, Shape};

use super::ops::Call;
use super::scope::{Binding, Frame, FrameKind, Ty, Val};
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{DimExpr, DimOp, Expr, ExprKind, LitValue, Pat, Range, UnOp};
use crate::ir::{Comp, ParamShape};
use crate::types::element_type;

/// A list argument: its values, its range and each entry's range.
pub type ListArg = (Vec<i64>, Range, Vec<Range>);

/// A checked closure: its computation and signature.
pub struct Closure {
    pub comp: Box<Comp>,
    pub params: Vec<Shape<ExactDim>>,
    pub result: Shape<ExactDim>,
    pub range: Range,
}

/// Padding of a window: SAME, VALID or explicit `(low, high)` pairs.
pub enum Padding {
    Same,
    Valid,
    Pairs(Vec<(i64, i64)>),
}

impl Checker<'_> {
    /// Reports an inference error at the range `spans` picks for it.
    pub fn report(&mut self, err: InferError<ExactDim>, spans: &OpSpans) {
        let range = spans.of(&err);
        self.error(range, err);
    }

    /// Checks the number of arguments (the receiver of a method counts).
    pub fn arity(&mut self, call: &Call, expected: RangeInclusive<usize>) -> bool {
        if expected.contains(&call.args.len()) {
            return true;
        }
        self.error(
            call.range,
            format!(
                "wrong number of arguments to `{}`: expected `{}`",
                call.name, call.usage
            ),
        );
        for a in &call.args {
            self.argument_for_errors(a);
        }
        false
    }

    /// Checks an argument of a call that failed, for its own errors: values
    /// are checked, lists and closures (whose meaning depends on the op) are
    /// not.
    pub fn argument_for_errors(&mut self, e: &Expr) {
        let value_like = !matches!(
            e.kind,
            ExprKind::Closure { .. }
                | ExprKind::Array(_)
                | ExprKind::Struct { .. }
                | ExprKind::Type(_)
                | ExprKind::Str(_)
                | ExprKind::Tuple(_)
                | ExprKind::Var(_)
        );
        if value_like {
            self.expr(e);
        }
    }

    /// An integer constant such as `1` or `-1`.
    pub fn int(&mut self, e: &Expr) -> Option<i64> {
        let value = match &e.kind {
            ExprKind::Lit {
                value: LitValue::Int(v),
                suffix: None,
            } => Some(*v),
            ExprKind::Unary(UnOp::Neg, inner) => match &inner.kind {
                ExprKind::Lit {
                    value: LitValue::Int(v),
                    suffix: None,
                } => Some(-*v),
                _ => None,
            },
            ExprKind::Paren(inner) => return self.int(inner),
            _ => None,
        };
        match value.and_then(|v| i64::try_from(v).ok()) {
            Some(v) => Some(v),
            None if self.mentions_size(e) => {
                self.error(
                    e.range,
                    "expected an integer constant, not a size: dimension numbers, windows, the \
                     padding of windows and convolutions, and group counts are constants (sizes such \
                     as `N` go in shapes, broadcasts, reshapes, slices, dynamic slices and pads)",
                );
                None
            }
            None => {
                self.error(e.range, "expected an integer constant");
                None
            }
        }
    }

    /// Whether `e` is a size expression naming a dimension: `N`, `N - 1`.
    fn mentions_size(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(ident) => self.symbols.contains(&ident.to_string()),
            ExprKind::Paren(inner) | ExprKind::Unary(UnOp::Neg, inner) => self.mentions_size(inner),
            ExprKind::Binary(_, l, r) => self.mentions_size(l) || self.mentions_size(r),
            _ => false,
        }
    }

    /// A list of integer constants, `[0, 1]`, with each entry's range.
    pub fn ints(&mut self, e: &Expr) -> Option<(Vec<i64>, Vec<Range>)> {
        let ExprKind::Array(items) = &e.kind else {
            self.error(
                e.range,
                "expected a list of dimension numbers such as `[0, 1]`",
            );
            return None;
        };
        let values: Vec<Option<i64>> = items.iter().map(|i| self.int(i)).collect();
        let values: Option<Vec<i64>> = values.into_iter().collect();
        Some((values?, items.iter().map(|i| i.range).collect()))
    }

    /// A size: an integer, a dimension name, or `+ - *` of those.
    pub fn size_arg(&mut self, e: &Expr) -> Option<(DimExpr, ExactDim)> {
        let expr = self.dim_expr(e)?;
        let sym = self.size(&expr)?;
        Some((expr, sym))
    }

    fn dim_expr(&mut self, e: &Expr) -> Option<DimExpr> {
        let binary = |op, l: &Expr, r: &Expr, this: &mut Self| {
            let (l, r) = (this.dim_expr(l), this.dim_expr(r));
            Some(DimExpr::Binary(op, Box::new(l?), Box::new(r?)))
        };
        if is_int_literal(e) {
            return self.int(e).map(|v| DimExpr::Const(v, e.range));
        }
        match &e.kind {
            ExprKind::Unary(UnOp::Neg, inner) => {
                let inner = self.dim_expr(inner)?;
                let zero = DimExpr::Const(0, e.range);
                Some(DimExpr::Binary(DimOp::Sub, Box::new(zero), Box::new(inner)))
            }
            ExprKind::Var(ident) => Some(DimExpr::Symbol(ident.clone())),
            ExprKind::Paren(inner) => self.dim_expr(inner),
            ExprKind::Binary(crate::ast::BinOp::Add, l, r) => binary(DimOp::Add, l, r, self),
            ExprKind::Binary(crate::ast::BinOp::Sub, l, r) => binary(DimOp::Sub, l, r, self),
            ExprKind::Binary(crate::ast::BinOp::Mul, l, r) => binary(DimOp::Mul, l, r, self),
            _ => {
                self.error(
                    e.range,
                    "expected a size: an integer, a dimension name such as `N`, or `+ - *` of those",
                );
                None
            }
        }
    }

    /// A list of sizes, `[B, N * 2]`: the expressions, their symbolic
    /// values and each entry's range.
    pub fn sizes(&mut self, e: &Expr) -> Option<(Vec<DimExpr>, Vec<ExactDim>, Vec<Range>)> {
        let ExprKind::Array(items) = &e.kind else {
            self.error(e.range, "expected a list of sizes such as `[B, N]`");
            return None;
        };
        let sizes: Vec<Option<(DimExpr, ExactDim)>> =
            items.iter().map(|i| self.size_arg(i)).collect();
        let sizes: Option<Vec<(DimExpr, ExactDim)>> = sizes.into_iter().collect();
        let (exprs, syms) = sizes?.into_iter().unzip();
        Some((exprs, syms, items.iter().map(|i| i.range).collect()))
    }

    /// An element type argument, `f32`.
    pub fn type_arg(&mut self, e: &Expr) -> Option<PrimitiveType> {
        match &e.kind {
            ExprKind::Var(ident) => element_type(ident)
                .map_err(|err| self.errors.push(err))
                .ok(),
            _ => {
                self.error(e.range, "expected an element type such as `f32`");
                None
            }
        }
    }

    /// The array shape of an operand, or an `OperandKind` error for a
    /// tuple (as the builder reports it). `None` for errors and weak
    /// values (callers materialize those first).
    pub fn array_of(
        &mut self,
        v: &Val,
        op: &'static str,
        index: usize,
    ) -> Option<ArrayShape<ExactDim>> {
        match &v.ty {
            Ty::Shape(Shape::Array(a)) => Some(a.clone()),
            Ty::Shape(other) => {
                let err = InferError::OperandKind {
                    op,
                    index,
                    expected: xla_core::infer::Kind::Array,
                    shape: Box::new(other.clone()),
                };
                self.error(v.range, err);
                None
            }
            Ty::Weak(_) | Ty::Error => None,
        }
    }

    /// A list of operands, `[a, b]`.
    pub fn operand_list(&mut self, e: &Expr) -> Option<Vec<Val>> {
        match &e.kind {
            ExprKind::Array(items) => Some(items.iter().map(|i| self.expr(i)).collect()),
            _ => {
                self.error(e.range, "expected a list of operands such as `[a, b]`");
                None
            }
        }
    }

    /// A closure taking scalars of `params` types, checked as a
    /// computation of its own (`op` names it in errors).
    pub fn closure(
        &mut self,
        e: &Expr,
        params: &[PrimitiveType],
        op: &'static str,
    ) -> Option<Closure> {
        let ExprKind::Closure {
            params: declared,
            body,
        } = &e.kind
        else {
            self.error(
                e.range,
                format!("expected a closure such as `|a, b| a + b` for {op}"),
            );
            return None;
        };
        if declared.len() != params.len() {
            let err: InferError<ExactDim> = InferError::CalledArity {
                op,
                computation: Callee::ToApply,
                expected: params.len(),
                actual: declared.len(),
            };
            self.error(e.range, err);
            return None;
        }
        let name = self.computation_name(op);
        let mut frame = Frame::new(FrameKind::Closure(op), name);
        let mut shapes = Vec::new();
        let mut names = Vec::new();
        for (p, &ty) in declared.iter().zip(params) {
            let id = frame.param(ParamShape::Scalar(ty));
            let shape = Shape::scalar(ty);
            if let Some(written) = &p.ty {
                if let Some(written_shape) = self.type_shape(written) {
                    if written_shape != shape {
                        self.error(
                            written.range(),
                            format!("mismatched types: this parameter of the {op} closure is {shape}, not {written_shape}"),
                        );
                    }
                }
            }
            match &p.pat {
                Pat::Ident { name, .. } => names.push((name.to_string(), shape.clone(), id)),
                Pat::Wild(_) => {}
                Pat::Tuple(_, range) => {
                    self.error(
                        *range,
                        "closure parameters are scalars: use one name per parameter",
                    );
                }
            }
            shapes.push(shape);
        }
        self.frames.stack.push(frame);
        for (name, shape, id) in names {
            let binding = Binding {
                ty: Ty::Shape(shape),
                id: Some(id),
                mutable: false,
                weak_site: None,
            };
            self.frames.define(name, binding);
        }
        let value = self.expr(body);
        let value = self.concrete(value);
        let frame = self.frames.stack.pop().expect("the closure's frame");
        let (Ty::Shape(result), Some(root)) = (value.ty, value.id) else {
            return None;
        };
        Some(Closure {
            comp: Box::new(frame.finish(root)),
            params: shapes,
            result,
            range: e.range,
        })
    }

    /// `same`, `valid`, or `[(low, high), …]`.
    pub fn padding_arg(&mut self, e: &Expr) -> Option<Padding> {
        match &e.kind {
            ExprKind::Var(ident) if ident == "same" => Some(Padding::Same),
            ExprKind::Var(ident) if ident == "valid" => Some(Padding::Valid),
            ExprKind::Array(items) => {
                let mut pairs = Vec::new();
                for item in items {
                    let ExprKind::Tuple(pair) = &item.kind else {
                        self.error(item.range, "expected a `(low, high)` pair");
                        return None;
                    };
                    let [low, high] = pair.as_slice() else {
                        self.error(item.range, "expected a `(low, high)` pair");
                        return None;
                    };
                    pairs.push((self.int(low)?, self.int(high)?));
                }
                Some(Padding::Pairs(pairs))
            }
            _ => {
                self.error(
                    e.range,
                    "expected padding: `same`, `valid` or `[(low, high), …]`",
                );
                None
            }
        }
    }
}

fn is_int_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit {
            value: LitValue::Int(_),
            suffix: None,
        } => true,
        ExprKind::Unary(UnOp::Neg, inner) => is_int_literal(inner),
        _ => false,
    }
}
