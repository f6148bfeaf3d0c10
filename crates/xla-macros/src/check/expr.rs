//! Expressions, statements and blocks; calls of the invocation's own
//! functions.

use crate::types::ExactDim;
use xla_core::infer;
use xla_core::Shape;

use super::scope::{Binding, LookupError, Ty, Val, Weak};
use super::Checker;
use crate::ast::{Block, DimExpr, Expr, ExprKind, LitValue, Pat, Range, Stmt, TypeSpec, UnOp};
use crate::ir::Instr;
use crate::suggest::did_you_mean;

impl Checker<'_> {
    /// Checks an expression that produces a value.
    pub fn expr(&mut self, e: &Expr) -> Val {
        let range = e.range;
        match &e.kind {
            ExprKind::Lit { value, suffix } => self.literal(value, suffix.as_deref(), range),
            ExprKind::Var(ident) => self.variable(ident, range),
            ExprKind::Path { ty, item, consts } => self.path_constant(ty, item, *consts, range),
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
                if let ExprKind::Var(module) = &receiver.kind {
                    let text = module.to_string();
                    let python = ["jnp", "np", "lax", "jax", "nn", "numpy"];
                    if python.contains(&text.as_str()) && self.frames.lookup(&text).is_err() {
                        self.error(
                            range,
                            format!(
                                "`{text}` is not a name in the xla! language: ops are methods and \
                                 functions, `{text}.{name}(x, …)` is `x.{name}(…)` or `{name}(x, …)`"
                            ),
                        );
                        for a in args {
                            self.argument_for_errors(a);
                        }
                        return Val::error(range);
                    }
                }
                let mut all = vec![&**receiver];
                all.extend(args);
                self.op(name, all, range, true)
            }
            ExprKind::Call { name, args } => {
                if let Ok(binding) = self.frames.lookup(&name.to_string()) {
                    // A variable called as a function: a closure bound with
                    // `let` was reported where it was bound.
                    if !matches!(binding.ty, Ty::Error) {
                        self.error(
                            Range::single(name.span()),
                            format!("`{name}` is a variable, not a function"),
                        );
                    }
                    for a in args {
                        self.argument_for_errors(a);
                    }
                    return Val::error(range);
                }
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
                    "a closure is an argument of `reduce`, `reduce_window`, `map`, `sort` or \
                     `scatter`, not a value; a helper is another function of this `xla!` \
                     invocation, called as `helper(x)`",
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
        // A negated suffixed literal is one literal, as in Rust: `-128s8`
        // is s8's minimum, not the negation of an out-of-range 128.
        if let (UnOp::Neg, ExprKind::Lit { value, suffix }) = (op, &operand.kind) {
            let negated = match value {
                LitValue::Int(v) => Some(LitValue::Int(-v)),
                LitValue::Float(v) => Some(LitValue::Float(-v)),
                LitValue::Bool(_) => None,
            };
            if let (Some(negated), Some(suffix)) = (negated, suffix) {
                return self.literal(&negated, Some(suffix), range);
            }
        }
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
            ExprKind::If {
                cond,
                then,
                otherwise,
            } if super::control::is_statement(e) => {
                self.if_statement(cond, then, otherwise.as_deref(), e.range)
            }
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
                // A mutable variable needs a type now: a literal's default,
                // or the type a previous check found it needs (see
                // `Binding::weak_site`). An immutable literal stays weak, as
                // a constant.
                let site = (*mutable && matches!(value.ty, Ty::Weak(_)))
                    .then_some(name as *const syn::Ident as usize);
                let value = match (&value.ty, site.and_then(|s| self.hints.get(&s))) {
                    (Ty::Weak(weak), Some(&ty)) if super::literal::fits(weak, ty) => {
                        self.materialize(&value, ty)
                    }
                    _ if *mutable => self.concrete(value),
                    _ => value,
                };
                let binding = Binding {
                    ty: value.ty,
                    id: value.id,
                    mutable: *mutable,
                    weak_site: site,
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

    /// Asks for another check of the function where the `let mut` variable
    /// of `site` has `other`'s element type, when its literal's type
    /// (`var`'s) differs from it: `let mut total = 0.0;` met by `total + x`
    /// with `x: f64`. The request is only a guess; the next check decides.
    pub fn request_type(&mut self, site: Option<usize>, var: &Val, other: &Val) {
        let (Some(site), Ty::Shape(v), Ty::Shape(o)) = (site, &var.ty, &other.ty) else {
            return;
        };
        match (v.element_type(), o.element_type()) {
            (Some(a), Some(b)) if a != b => self.requests.push((site, b)),
            _ => {}
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
        // A target that cannot be found reports once; the value, which
        // would repeat the mistake, is not checked.
        let current = match self.frames.lookup(&name) {
            Ok(b) => b,
            Err(LookupError::Captured { closure }) => {
                self.error(
                    target_range,
                    format!(
                        "the {closure} closure cannot assign `{name}`: it is a computation of its own \
                         that sees only its parameters"
                    ),
                );
                return;
            }
            Err(LookupError::Unknown) => {
                self.variable(target, target_range);
                return;
            }
        };
        let new = match op {
            None => self.expr(value),
            Some(op) => {
                let lhs = current.val(target_range);
                let rhs = self.expr(value);
                let result = self.binary_values(op, lhs.clone(), rhs.clone(), range);
                if result.is_error() {
                    self.request_type(current.weak_site, &lhs, &rhs);
                }
                result
            }
        };
        if !new.is_error() {
            self.request_type(current.weak_site, &current.val(target_range), &new);
        }
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
            weak_site: None,
        };
        if !self.frames.assign(&name, binding) {
            self.error(
                target_range,
                format!(
                    "`{name}` belongs to the enclosing computation and cannot be assigned in a closure"
                ),
            );
        }
    }
}

fn shape_text(v: &Val) -> String {
    match &v.ty {
        Ty::Shape(s) => s.to_string(),
        Ty::Weak(_) => "a literal".to_string(),
        Ty::Error => "an error".to_string(),
    }
}
