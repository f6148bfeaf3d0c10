//! Checking: the shapes of every expression, at compile time.
//!
//! Each op is checked by xla-core's own shape inference (`xla_core::infer`,
//! the functions `XlaBuilder` runs at run time) with symbolic sizes
//! ([`ExactDim`]), so every rule the builder enforces is enforced here, with
//! the same message. An error is reported at the offending sub-expression
//! or argument; the failed expression gets the error type [`Ty::Error`],
//! which silences the checks depending on it, so that independent
//! mistakes are all reported and none twice.
//!
//! Checking produces the IR ([`crate::ir`]) that `expand` turns into
//! builder calls.

mod args;
mod branch;
mod call;
mod control;
mod data_movement;
mod dot;
mod elementwise;
mod expr;
mod indexing;
mod literal;
mod operators;
mod ops;
mod reduce;
mod reduce_dim;
mod scope;
mod spans;

use std::collections::{HashMap, HashSet};

use crate::types::ExactDim;
use xla_core::{PrimitiveType, Shape};

use crate::ast::{DimExpr, Function, Program, Range, TypeSpec};
use crate::ir::{FunctionIr, ParamIr, ParamShape, ResultIr};
use crate::types::{element_type, sym_dim};
use scope::{Binding, Frame, FrameKind, Frames, Ty, Val};

/// Checks every function; returns the IR (a function whose body failed has
/// `body: None`) and the errors, combined, in source order.
pub fn check(program: &Program) -> (Vec<FunctionIr>, Option<syn::Error>) {
    let mut signatures: HashMap<String, Signature> = HashMap::new();
    let mut signature_errors = Vec::new();
    for f in &program.functions {
        let mut errors = Vec::new();
        let name = f.name.to_string();
        if signatures.contains_key(&name) {
            errors.push(syn::Error::new(
                f.name.span(),
                format!("the function `{name}` is defined twice"),
            ));
            signature_errors.push((errors, false));
            continue;
        }
        let sig = Signature::of(f, &mut errors);
        signatures.insert(name, sig);
        signature_errors.push((errors, true));
    }
    let mut errors = Vec::new();
    let mut calls = Vec::new();
    let mut out = Vec::new();
    for (f, (sig_errors, first)) in program.functions.iter().zip(signature_errors) {
        errors.extend(sig_errors);
        if !first {
            continue;
        }
        let sig = &signatures[&f.name.to_string()];
        // A `let mut` literal whose type a use contradicts asks for another
        // check with the type the use needs (`Binding::weak_site`); the
        // last check's errors are the ones reported.
        let mut hints: HashMap<usize, PrimitiveType> = HashMap::new();
        let (mut checker, body) = loop {
            let mut checker = Checker {
                signatures: &signatures,
                function: f.name.to_string(),
                symbols: sig.symbols.iter().map(|s| s.to_string()).collect(),
                frames: Frames::default(),
                errors: Vec::new(),
                calls: Vec::new(),
                computations: 0,
                hints: hints.clone(),
                requests: Vec::new(),
            };
            let body = sig.valid.then(|| checker.function_body(f, sig)).flatten();
            let before = hints.len();
            for &(site, ty) in &checker.requests {
                hints.entry(site).or_insert(ty);
            }
            if checker.errors.is_empty() || hints.len() == before {
                break (checker, body);
            }
        };
        let grad = f
            .grad
            .as_ref()
            .map(|names| grad_positions(f, sig, names, &mut checker.errors));
        let ok = checker.errors.is_empty();
        errors.append(&mut checker.errors);
        calls.extend(
            checker
                .calls
                .into_iter()
                .map(|(callee, range)| (f.name.to_string(), callee, range)),
        );
        out.push(FunctionIr {
            name: f.name.clone(),
            attrs: f.attrs.clone(),
            vis: f.vis.clone(),
            params: sig.params.clone(),
            symbols: sig.symbols.clone(),
            result: result_ir(&f.ret),
            body: body.filter(|_| ok),
            grad,
        });
    }
    errors.extend(recursion_errors(&calls));
    let combined = errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    });
    (out, combined)
}

/// The positions of the parameters `#[grad(…)]` names, each a
/// floating-point parameter; the function must return a floating-point
/// scalar.
fn grad_positions(
    f: &Function,
    sig: &Signature,
    names: &[syn::Ident],
    errors: &mut Vec<syn::Error>,
) -> Vec<usize> {
    let scalar = match &f.ret {
        TypeSpec::Array {
            element_type: ty,
            dims,
            ..
        } => dims.is_empty() && element_type(ty).is_ok_and(|t| t.is_floating()),
        TypeSpec::Tuple { .. } => false,
    };
    if !scalar {
        errors.push(syn::Error::new(
            f.name.span(),
            format!("`#[grad]` needs a floating-point scalar result (`-> f32`); `{}` returns another type", f.name),
        ));
    }
    let mut positions = Vec::new();
    for name in names {
        match sig.params.iter().position(|p| p.name == *name) {
            Some(k) if sig.params[k].element_type.is_some_and(|t| t.is_floating()) => {
                positions.push(k)
            }
            Some(_) => errors.push(syn::Error::new(
                name.span(),
                format!("`#[grad]` differentiates floating-point parameters; `{name}` is not one"),
            )),
            None => errors.push(syn::Error::new(
                name.span(),
                format!(
                    "`#[grad]` names `{name}`, which is not a parameter of `{}`",
                    f.name
                ),
            )),
        }
    }
    positions
}

fn result_ir(ty: &TypeSpec) -> ResultIr {
    match ty {
        TypeSpec::Array {
            element_type, dims, ..
        } => ResultIr::Array {
            element_type: element_type.to_string(),
            dims: dims.clone(),
        },
        TypeSpec::Tuple { elements, .. } => {
            ResultIr::Tuple(elements.iter().map(result_ir).collect())
        }
    }
}

/// A cycle of calls would inline forever: XLA has no recursion.
fn recursion_errors(calls: &[(String, String, Range)]) -> Vec<syn::Error> {
    let mut errors = Vec::new();
    for (caller, callee, range) in calls {
        let mut seen = HashSet::new();
        let mut todo = vec![callee.as_str()];
        while let Some(f) = todo.pop() {
            if f == caller {
                errors.push(range.error(format!(
                    "`{caller}` calls itself through `{callee}`: XLA computations cannot recurse; \
                     use a `while` loop"
                )));
                break;
            }
            if seen.insert(f) {
                todo.extend(calls.iter().filter(|c| c.0 == f).map(|c| c.1.as_str()));
            }
        }
    }
    errors
}

/// A function's checked signature, used to check its body and the calls
/// to it.
pub struct Signature {
    pub params: Vec<ParamIr>,
    pub symbols: Vec<syn::Ident>,
    pub ret: TypeSpec,
    /// The types are well-formed (else neither the body nor calls are
    /// checked).
    pub valid: bool,
}

impl Signature {
    fn of(f: &Function, errors: &mut Vec<syn::Error>) -> Self {
        let before = errors.len();
        let mut symbols: Vec<syn::Ident> = Vec::new();
        let mut mentioned: Vec<syn::Ident> = Vec::new();
        let mut silenced: Vec<syn::Ident> = Vec::new();
        let mut params = Vec::new();
        let mut param_names = HashSet::new();
        for p in &f.params {
            if !param_names.insert(p.name.to_string()) {
                errors.push(syn::Error::new(
                    p.name.span(),
                    format!("the parameter `{}` is declared twice", p.name),
                ));
            }
            let (element_type, dims) = match &p.ty {
                TypeSpec::Array {
                    element_type: ty,
                    dims,
                    ..
                } => (
                    element_type(ty).map_err(|e| errors.push(e)).ok(),
                    dims.clone(),
                ),
                TypeSpec::Tuple { range, .. } => {
                    errors.push(range.error(
                        "parameters are arrays: tuple parameters are not supported; pass the elements as separate parameters",
                    ));
                    // Its names still count, so that the result type does not
                    // report them again.
                    type_symbols(&p.ty, &mut silenced);
                    (None, Vec::new())
                }
            };
            for d in &dims {
                match d {
                    DimExpr::Symbol(s) if !symbols.contains(s) => symbols.push(s.clone()),
                    DimExpr::Symbol(_) | DimExpr::Const(..) => {}
                    DimExpr::Binary(..) => match d.linear() {
                        Some((s, ..)) if !symbols.contains(&s) => symbols.push(s),
                        Some(_) => {}
                        None => d.symbols(&mut mentioned),
                    },
                }
                if let DimExpr::Const(v, range) = d {
                    if *v < 0 {
                        errors.push(range.error("a size cannot be negative"));
                    }
                }
            }
            params.push(ParamIr {
                name: p.name.clone(),
                element_type,
                dims,
            });
        }
        for s in &mentioned {
            if !symbols.contains(s) {
                errors.push(syn::Error::new(
                    s.span(),
                    format!(
                        "the dimension `{s}` cannot be bound from the arguments: give some parameter \
                         a dimension that is `{s}`, or `a * {s} + b` with constants `a`, `b`"
                    ),
                ));
            }
        }
        // Names reported above are known to the result type, so that one
        // mistake gives one error.
        let known = |name: &str| {
            symbols
                .iter()
                .chain(&mentioned)
                .chain(&silenced)
                .any(|s| s == name)
        };
        check_result_type(&f.ret, &known, errors);
        Signature {
            params,
            symbols: symbols.clone(),
            ret: f.ret.clone(),
            valid: errors.len() == before,
        }
    }
}

/// The dimension names a type mentions.
fn type_symbols(ty: &TypeSpec, out: &mut Vec<syn::Ident>) {
    match ty {
        TypeSpec::Array { dims, .. } => dims.iter().for_each(|d| d.symbols(out)),
        TypeSpec::Tuple { elements, .. } => elements.iter().for_each(|e| type_symbols(e, out)),
    }
}

fn check_result_type(ty: &TypeSpec, known: &dyn Fn(&str) -> bool, errors: &mut Vec<syn::Error>) {
    match ty {
        TypeSpec::Array {
            element_type: name,
            dims,
            ..
        } => {
            if let Err(e) = element_type(name) {
                errors.push(e);
            }
            let mut names = Vec::new();
            for d in dims {
                d.symbols(&mut names);
            }
            for name in names {
                if !known(&name.to_string()) {
                    errors.push(syn::Error::new(
                        name.span(),
                        format!(
                            "unknown dimension `{name}` in the result type: the result's sizes are \
                             computed from the dimensions of the parameter types"
                        ),
                    ));
                }
            }
        }
        TypeSpec::Tuple { elements, .. } => {
            for e in elements {
                check_result_type(e, known, errors);
            }
        }
    }
}

/// Checks one function body.
pub struct Checker<'a> {
    pub signatures: &'a HashMap<String, Signature>,
    pub function: String,
    pub symbols: Vec<String>,
    pub frames: Frames,
    pub errors: Vec<syn::Error>,
    /// Calls of other functions of the invocation (for recursion).
    pub calls: Vec<(String, Range)>,
    /// Sub-computations made so far (for unique names).
    pub computations: usize,
    /// The element type of each `let mut` literal a previous check found
    /// (`Binding::weak_site`).
    pub hints: HashMap<usize, PrimitiveType>,
    /// The types uses of `let mut` literals asked for in this check.
    pub requests: Vec<(usize, PrimitiveType)>,
}

impl Checker<'_> {
    pub fn error(&mut self, range: Range, message: impl std::fmt::Display) {
        self.errors.push(range.error(message));
    }

    /// The symbolic size of `expr` in this function.
    pub fn size(&mut self, expr: &DimExpr) -> Option<ExactDim> {
        let symbols = &self.symbols;
        match sym_dim(expr, &|name| symbols.iter().any(|s| s == name)) {
            Ok(d) => Some(d),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// The shape a type denotes (`None` after reporting an error).
    pub fn type_shape(&mut self, ty: &TypeSpec) -> Option<Shape<ExactDim>> {
        match ty {
            TypeSpec::Array {
                element_type: name,
                dims,
                ..
            } => {
                let ty = element_type(name).map_err(|e| self.errors.push(e)).ok();
                let dims: Option<Vec<ExactDim>> = dims.iter().map(|d| self.size(d)).collect();
                Some(Shape::array(ty?, dims?))
            }
            TypeSpec::Tuple { elements, .. } => {
                let shapes: Option<Vec<_>> = elements.iter().map(|e| self.type_shape(e)).collect();
                Some(Shape::Tuple(shapes?))
            }
        }
    }

    /// A fresh name for a sub-computation: `softmax_reduce_2`.
    pub fn computation_name(&mut self, what: &str) -> String {
        self.computations += 1;
        format!("{}_{what}_{}", self.function, self.computations)
    }

    fn function_body(&mut self, f: &Function, sig: &Signature) -> Option<crate::ir::Comp> {
        let mut frame = Frame::new(FrameKind::Function, self.function.clone());
        let mut bindings = Vec::new();
        for p in &sig.params {
            let ty = p.element_type.expect("a valid signature has element types");
            let dims: Option<Vec<ExactDim>> = p.dims.iter().map(|d| self.size(d)).collect();
            let id = frame.param(ParamShape::Declared);
            bindings.push((p.name.to_string(), Shape::array(ty, dims?), id));
        }
        self.frames.stack.push(frame);
        for (name, shape, id) in bindings {
            let binding = Binding {
                ty: Ty::Shape(shape),
                id: Some(id),
                mutable: false,
                weak_site: None,
            };
            self.frames.define(name, binding);
        }
        let declared = self.type_shape(&f.ret);
        let value = self.block(&f.body);
        let value = match declared {
            Some(declared) => self.coerce(value, &declared, |actual| {
                format!(
                    "mismatched types: `{}` returns {declared}, but its body gives {actual}",
                    f.name
                )
            }),
            None => Val::error(value.range),
        };
        let frame = self.frames.stack.pop().expect("the function's frame");
        Some(frame.finish(value.id?))
    }

    /// `value` as a value of shape `expected` (a weak literal becomes a
    /// constant of its element type); reports `message(actual)` at the
    /// value if the shapes differ. Sizes compare exactly: `B` is not `N`.
    pub fn coerce(
        &mut self,
        value: Val,
        expected: &Shape<ExactDim>,
        message: impl FnOnce(&str) -> String,
    ) -> Val {
        match &value.ty {
            Ty::Error => value,
            Ty::Weak(_) => match expected {
                Shape::Array(a) if a.rank() == 0 => self.materialize(&value, a.element_type()),
                _ => {
                    let text = message("a literal");
                    self.error(value.range, text);
                    Val::error(value.range)
                }
            },
            Ty::Shape(actual) if actual == expected => value,
            Ty::Shape(actual) => {
                let text = message(&actual.to_string());
                self.error(value.range, text);
                Val::error(value.range)
            }
        }
    }
}
