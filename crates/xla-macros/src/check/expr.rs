//! Expressions, statements and blocks; calls of the invocation's own
//! functions.

use std::collections::HashMap;

use crate::types::ExactDim;
use xla_core::infer;
use xla_core::Shape;

use super::scope::{Binding, LookupError, Ty, Val, Weak};
use super::Checker;
use crate::ast::{Block, DimExpr, Expr, ExprKind, Pat, Range, Stmt, TypeSpec, UnOp};
use crate::ir::Instr;
use crate::suggest::did_you_mean;
use crate::types::{element_type, eval_dim};

impl Checker<'_> {
    /// Checks an expression that produces a value.
    pub fn expr(&mut self, e: &Expr) -> Val {
        let range = e.range;
        match &e.kind {
            ExprKind::Lit { value, suffix } => self.literal(value, suffix.as_deref(), range),
            ExprKind::Var(ident) => self.variable(ident, range),
            ExprKind::Path(ty, item) => self.path_constant(ty, item, range),
            ExprKind::Str(_) => {
                self.error(
                    range,
                    "a string is not a value; strings are a convolution's `dim_labels`",
                );
                Val::error(range)
            }
            ExprKind::Type(ty) => {
                self.error(
                    ty.range(),
                    "a type is not a value; types are arguments of `iota`, `convert` and type ascriptions",
                );
                Val::error(range)
            }
            ExprKind::Unary(op, operand) => self.unary_operator(*op, operand, range),
            ExprKind::Binary(op, lhs, rhs) => self.binary_operator(*op, lhs, rhs, range),
            ExprKind::Method {
                receiver,
                name,
                args,
            } => {
                let mut all = vec![&**receiver];
                all.extend(args);
                self.op(name, all, range, true)
            }
            ExprKind::Call { name, args } => {
                if self.signatures.contains_key(&name.to_string()) {
                    self.function_call(name, args, range)
                } else {
                    self.op(name, args.iter().collect(), range, false)
                }
            }
            ExprKind::Field(base, index, field_range) => {
                let base = self.expr(base);
                self.field(base, *index as usize, *field_range)
            }
            ExprKind::Tuple(elements) => {
                if elements.is_empty() {
                    self.error(range, "`()` has no value in the xla! language");
                    return Val::error(range);
                }
                let values: Vec<Val> = elements.iter().map(|e| self.expr(e)).collect();
                self.tuple(values, range)
            }
            ExprKind::Array(_) => {
                self.error(
                    range,
                    "a list `[…]` is an argument of an op (dimension numbers, sizes or operands), not a value",
                );
                Val::error(range)
            }
            ExprKind::Paren(inner) => {
                let mut v = self.expr(inner);
                v.range = range;
                v
            }
            ExprKind::Block(block) => self.block(block),
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => self.if_else(cond, then, otherwise.as_deref(), range),
            ExprKind::While { .. } | ExprKind::Assign { .. } => {
                self.statement(e);
                self.error(range, "this expression has no value: it is a statement");
                Val::error(range)
            }
            ExprKind::Closure { .. } => {
                self.error(
                    range,
                    "a closure is an argument of `reduce`, `reduce_window`, `map`, `sort` or `scatter`, not a value",
                );
                Val::error(range)
            }
            ExprKind::Struct { name, .. } => {
                self.error(
                    range,
                    format!(
                        "`{name} {{ … }}` is an argument of `gather` or `scatter`, not a value"
                    ),
                );
                Val::error(range)
            }
        }
    }

    fn variable(&mut self, ident: &syn::Ident, range: Range) -> Val {
        let name = ident.to_string();
        match self.frames.lookup(&name) {
            Ok(binding) => binding.val(range),
            Err(LookupError::Captured { closure }) => {
                self.error(
                    range,
                    format!(
                        "the {closure} closure cannot use `{name}`: it is a computation of its own that \
                         sees only its parameters (and literal constants)"
                    ),
                );
                Val::error(range)
            }
            Err(LookupError::Unknown) if self.symbols.contains(&name) => {
                self.size_value(DimExpr::Symbol(ident.clone()), range)
            }
            Err(LookupError::Unknown) => {
                let visible = self.visible_names();
                let hint = did_you_mean(&name, visible.iter().map(String::as_str));
                self.error(
                    range,
                    format!("cannot find value `{name}` in this scope{hint}"),
                );
                Val::error(range)
            }
        }
    }

    /// Every variable and dimension name in scope (for suggestions).
    fn visible_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.symbols.clone();
        for frame in &self.frames.stack {
            for scope in &frame.scopes {
                names.extend(scope.keys().cloned());
            }
        }
        names
    }

    fn unary_operator(&mut self, op: UnOp, operand: &Expr, range: Range) -> Val {
        let v = self.expr(operand);
        match (&v.ty, op) {
            (Ty::Weak(Weak::Int(x)), UnOp::Neg) => Val {
                ty: Ty::Weak(Weak::Int(-x)),
                id: None,
                range,
            },
            (Ty::Weak(Weak::Float(x)), UnOp::Neg) => Val {
                ty: Ty::Weak(Weak::Float(-x)),
                id: None,
                range,
            },
            _ => {
                let (opcode, builder) = match op {
                    UnOp::Neg => (xla_core::Opcode::Negate, "neg"),
                    UnOp::Not => (xla_core::Opcode::Not, "not"),
                };
                let v = self.concrete(v);
                self.unary(opcode, builder, v, range)
            }
        }
    }

    /// `t.i`.
    pub fn field(&mut self, base: Val, index: usize, range: Range) -> Val {
        let Ty::Shape(shape) = &base.ty else {
            if matches!(base.ty, Ty::Weak(_)) {
                self.error(range, "a literal has no fields");
            }
            return Val::error(range);
        };
        match infer::get_tuple_element(shape, index as i64) {
            Ok(element) => {
                let id = self
                    .frames
                    .push_instr(Instr::GetTupleElement(base.id.expect("a value"), index));
                Val::shape(element, id, range)
            }
            Err(err) => {
                self.error(range, err);
                Val::error(range)
            }
        }
    }

    /// `(a, b)`.
    pub fn tuple(&mut self, values: Vec<Val>, range: Range) -> Val {
        let values: Vec<Val> = values.into_iter().map(|v| self.concrete(v)).collect();
        if values.iter().any(Val::is_error) {
            return Val::error(range);
        }
        let shapes: Vec<&Shape<ExactDim>> = values
            .iter()
            .map(|v| match &v.ty {
                Ty::Shape(s) => s,
                Ty::Weak(_) | Ty::Error => unreachable!("concrete, not an error"),
            })
            .collect();
        let shape = infer::tuple(&shapes);
        let id = self.frames.push_instr(Instr::Tuple(
            values.iter().map(|v| v.id.expect("a value")).collect(),
        ));
        Val::shape(shape, id, range)
    }

    /// `{ stmts; tail }`: the tail's value, or an error if there is none.
    pub fn block(&mut self, block: &Block) -> Val {
        self.frames.open_scope();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { pat, ty, init } => self.let_stmt(pat, ty.as_ref(), init),
                Stmt::Expr(e) => self.statement(e),
            }
        }
        let value = match &block.tail {
            Some(tail) => self.expr(tail),
            None => {
                self.error(
                    block.range,
                    "this block has no value: end it with an expression (no `;`)",
                );
                Val::error(block.range)
            }
        };
        self.frames.close_scope();
        value
    }

    /// An expression statement: an assignment, a loop, or an expression
    /// whose value is dropped.
    pub fn statement(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Assign { target, op, value } => self.assign(target, *op, value, e.range),
            ExprKind::While { cond, body } => self.while_loop(cond, body, e.range),
            _ => {
                self.expr(e);
            }
        }
    }

    pub fn let_stmt(&mut self, pat: &Pat, ty: Option<&TypeSpec>, init: &Expr) {
        let mut value = self.expr(init);
        if let Some(ty) = ty {
            if let Some(declared) = self.type_shape(ty) {
                value = self.coerce(value, &declared, |actual| {
                    format!("mismatched types: the binding is declared {declared}, but the value is {actual}")
                });
            }
        }
        self.bind(pat, value);
    }

    /// Binds a pattern to a value (destructuring tuples).
    fn bind(&mut self, pat: &Pat, value: Val) {
        match pat {
            Pat::Wild(_) => {}
            Pat::Ident { name, mutable } => {
                // A mutable variable needs a type now; an immutable literal
                // stays weak, as a constant.
                let value = if *mutable {
                    self.concrete(value)
                } else {
                    value
                };
                let binding = Binding {
                    ty: value.ty,
                    id: value.id,
                    mutable: *mutable,
                };
                self.frames.define(name.to_string(), binding);
            }
            Pat::Tuple(elements, range) => {
                let arity = match &value.ty {
                    Ty::Shape(Shape::Tuple(t)) => Some(t.len()),
                    Ty::Error => None,
                    Ty::Shape(other) => {
                        self.error(value.range, format!("mismatched types: a tuple pattern needs a tuple, but the value is {other}"));
                        None
                    }
                    Ty::Weak(_) => {
                        self.error(value.range, "mismatched types: a tuple pattern needs a tuple, but the value is a literal");
                        None
                    }
                };
                if let Some(n) = arity {
                    if n != elements.len() {
                        self.error(
                            *range,
                            format!(
                                "mismatched types: the pattern has {} elements, but the value {} has {n}",
                                elements.len(),
                                shape_text(&value)
                            ),
                        );
                    }
                }
                for (i, p) in elements.iter().enumerate() {
                    let element = match arity {
                        Some(n) if n == elements.len() => self.field(value.clone(), i, p.range()),
                        _ => Val::error(p.range()),
                    };
                    self.bind(p, element);
                }
            }
        }
    }

    fn assign(
        &mut self,
        target: &syn::Ident,
        op: Option<crate::ast::BinOp>,
        value: &Expr,
        range: Range,
    ) {
        let name = target.to_string();
        let target_range = Range::single(target.span());
        let current = match self.frames.lookup(&name) {
            Ok(b) => b,
            Err(_) => {
                let v = self.variable(target, target_range);
                debug_assert!(v.is_error());
                self.expr(value);
                return;
            }
        };
        let new = match op {
            None => self.expr(value),
            Some(op) => {
                let lhs = current.val(target_range);
                let rhs = self.expr(value);
                self.binary_values(op, lhs, rhs, range)
            }
        };
        if !current.mutable {
            self.error(
                target_range,
                format!("cannot assign twice to immutable variable `{name}`; declare it with `let mut {name}`"),
            );
            return;
        }
        let new = match &current.ty {
            Ty::Shape(shape) => {
                let shape = shape.clone();
                self.coerce(new, &shape, |actual| {
                    format!(
                        "mismatched types: `{name}` is {shape}, but the value assigned is {actual}"
                    )
                })
            }
            Ty::Weak(_) | Ty::Error => return,
        };
        if new.is_error() {
            return;
        }
        let binding = Binding {
            ty: new.ty,
            id: new.id,
            mutable: true,
        };
        if !self.frames.assign(&name, binding) {
            self.error(
                target_range,
                format!(
                    "`{name}` belongs to the enclosing computation and cannot be assigned here: \
                     an `if` branch or closure returns values instead (`{name} = if c {{ … }} else {{ … }};`)"
                ),
            );
        }
    }

    /// A call of another function of this invocation: the arguments bind
    /// its dimensions; the result is its declared result type under that
    /// binding.
    fn function_call(&mut self, name: &syn::Ident, args: &[Expr], range: Range) -> Val {
        let callee = name.to_string();
        let values: Vec<Val> = args.iter().map(|a| self.expr(a)).collect();
        self.calls.push((callee.clone(), range));
        let sig = &self.signatures[&callee];
        if !sig.valid {
            return Val::error(range);
        }
        if values.len() != sig.params.len() {
            let params: Vec<String> = sig.params.iter().map(|p| p.name.to_string()).collect();
            self.error(
                range,
                format!(
                    "`{callee}` takes {} ({}), but {} given",
                    plural(params.len(), "argument"),
                    params.join(", "),
                    match values.len() {
                        1 => "1 was".to_string(),
                        n => format!("{n} were"),
                    }
                ),
            );
            return Val::error(range);
        }
        let mut binding: HashMap<String, (ExactDim, String)> = HashMap::new();
        let mut ids = Vec::new();
        let mut failed = false;
        // Plain symbols bind first; then compound sizes are compared.
        for pass in 0..2 {
            for (p, v) in sig.params.iter().zip(&values) {
                let ty = p.element_type.expect("a valid signature");
                let v = if pass == 0 {
                    self.materialize(v, ty)
                } else {
                    v.clone()
                };
                let a = match &v.ty {
                    Ty::Shape(Shape::Array(a)) => a.clone(),
                    Ty::Error => {
                        failed = true;
                        continue;
                    }
                    _ => {
                        if pass == 0 {
                            self.error(
                                v.range,
                                format!(
                                    "mismatched types: `{callee}` takes `{}: {}`, but this is {}",
                                    p.name,
                                    declared_text(p),
                                    shape_text(&v)
                                ),
                            );
                        }
                        failed = true;
                        continue;
                    }
                };
                if pass == 0 {
                    ids.push(v.id.expect("a value"));
                }
                let declared = declared_text(p);
                if a.element_type() != ty || a.rank() != p.dims.len() {
                    if pass == 0 {
                        self.error(v.range, format!("mismatched types: `{callee}` takes `{}: {declared}`, but this is {a}", p.name));
                    }
                    failed = true;
                    continue;
                }
                for (d, (expr, size)) in p.dims.iter().zip(a.dims()).enumerate() {
                    let expected = match (pass, expr) {
                        (0, DimExpr::Symbol(s)) => match binding.get(&s.to_string()) {
                            None => {
                                binding.insert(
                                    s.to_string(),
                                    (size.clone(), format!("`{}`: {a}", p.name)),
                                );
                                continue;
                            }
                            Some((bound, _)) => bound.clone(),
                        },
                        (0, _) | (_, DimExpr::Symbol(_)) => continue,
                        _ => match sym_dim_bound(expr, &binding) {
                            Some(s) => s,
                            None => continue,
                        },
                    };
                    if &expected != size {
                        let origin = match expr {
                            DimExpr::Symbol(s) => format!(
                                "where {s} is {expected} (from {})",
                                binding[&s.to_string()].1
                            ),
                            _ => format!("whose dimension {d} is {expected} here"),
                        };
                        self.error(
                            v.range,
                            format!(
                                "mismatched dimension: `{callee}` takes `{}: {declared}`, {origin}, but this is {a}",
                                p.name
                            ),
                        );
                        failed = true;
                    }
                }
            }
        }
        if failed {
            return Val::error(range);
        }
        let bound = |ty: &TypeSpec| result_shape(ty, &binding);
        let Some(shape) = bound(&sig.ret) else {
            return Val::error(range);
        };
        let id = self.frames.push_instr(Instr::Function(name.clone(), ids));
        Val::shape(shape, id, range)
    }
}

/// A size expression of the callee under the binding of its symbols.
fn sym_dim_bound(
    expr: &DimExpr,
    binding: &HashMap<String, (ExactDim, String)>,
) -> Option<ExactDim> {
    eval_dim(expr, &|s| {
        binding.get(&s.to_string()).map(|(v, _)| v.clone())
    })
}

fn result_shape(
    ty: &TypeSpec,
    binding: &HashMap<String, (ExactDim, String)>,
) -> Option<Shape<ExactDim>> {
    match ty {
        TypeSpec::Array {
            element_type: e,
            dims,
            ..
        } => {
            let ty = element_type(e).ok()?;
            let dims: Option<Vec<ExactDim>> =
                dims.iter().map(|d| sym_dim_bound(d, binding)).collect();
            Some(Shape::array(ty, dims?))
        }
        TypeSpec::Tuple { elements, .. } => {
            let shapes: Option<Vec<_>> =
                elements.iter().map(|e| result_shape(e, binding)).collect();
            Some(Shape::Tuple(shapes?))
        }
    }
}

/// The declared type of a parameter, printed as shapes print.
fn declared_text(p: &crate::ir::ParamIr) -> String {
    let dims: Option<Vec<ExactDim>> = p
        .dims
        .iter()
        .map(|d| eval_dim(d, &|s| Some(ExactDim::symbol(s.to_string()))))
        .collect();
    match (p.element_type, dims) {
        (Some(ty), Some(dims)) => Shape::array(ty, dims).to_string(),
        _ => "?".to_string(),
    }
}

/// `1 argument`, `2 arguments`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn shape_text(v: &Val) -> String {
    match &v.ty {
        Ty::Shape(s) => s.to_string(),
        Ty::Weak(_) => "a literal".to_string(),
        Ty::Error => "an error".to_string(),
    }
}
