//! Calls of the invocation's own functions: the arguments bind the
//! callee's dimension names, symbolically, by the rule calls use at run
//! time (`xla::dsl::Signature::bind`): names standing alone bind first,
//! then names solved from a linear size (`2 * H`), then every size must
//! match exactly.

use std::collections::HashMap;

use xla_core::{ArrayShape, Dim, Shape};

use super::scope::{Ty, Val};
use super::Checker;
use crate::ast::{DimExpr, Expr, Range, TypeSpec};
use crate::ir::{Instr, ParamIr};
use crate::types::{element_type, eval_dim, ExactDim};

/// Callee name → (its size in the caller, where it was bound).
type Binding = HashMap<String, (ExactDim, String)>;

impl Checker<'_> {
    /// `f(args…)` for a function `f` of this invocation: the result is its
    /// declared result type under the binding of its names.
    pub fn function_call(&mut self, name: &syn::Ident, args: &[Expr], range: Range) -> Val {
        let callee = name.to_string();
        let values: Vec<Val> = args.iter().map(|a| self.expr(a)).collect();
        self.calls.push((callee.clone(), range));
        let sig = &self.signatures[&callee];
        if !sig.valid {
            return Val::error(range);
        }
        if values.len() != sig.params.len() {
            let params: Vec<String> = sig.params.iter().map(|p| p.name.to_string()).collect();
            let given = match values.len() {
                1 => "1 was".to_string(),
                n => format!("{n} were"),
            };
            let takes = match params.len() {
                1 => "1 argument".to_string(),
                n => format!("{n} arguments"),
            };
            let text = format!(
                "`{callee}` takes {takes} ({}), but {given} given",
                params.join(", ")
            );
            self.error(range, text);
            return Val::error(range);
        }
        let mut arrays: Vec<(&ParamIr, ArrayShape<ExactDim>, Range)> = Vec::new();
        let mut ids = Vec::new();
        let mut failed = false;
        for (p, v) in sig.params.iter().zip(&values) {
            let ty = p.element_type.expect("a valid signature has element types");
            let v = self.materialize(v, ty);
            let declared = declared_text(p);
            match &v.ty {
                Ty::Shape(Shape::Array(a))
                    if a.element_type() == ty && a.rank() == p.dims.len() =>
                {
                    ids.push(v.id.expect("a value"));
                    arrays.push((p, a.clone(), v.range));
                }
                Ty::Error => failed = true,
                other => {
                    let actual = match other {
                        Ty::Shape(s) => s.to_string(),
                        Ty::Weak(_) | Ty::Error => "a literal".to_string(),
                    };
                    let text = format!(
                        "mismatched types: `{callee}` takes `{}: {declared}`, but this is {actual}",
                        p.name
                    );
                    self.error(v.range, text);
                    failed = true;
                }
            }
        }
        if failed {
            return Val::error(range);
        }
        let Some(binding) = self.bind_callee(&callee, &arrays) else {
            return Val::error(range);
        };
        let Some(shape) = result_shape(&sig.ret, &binding) else {
            return Val::error(range);
        };
        let id = self.frames.push_instr(Instr::Function(name.clone(), ids));
        Val::shape(shape, id, range)
    }

    /// Binds the callee's names from the argument shapes and checks every
    /// size; `None` after reporting a mismatch.
    fn bind_callee(
        &mut self,
        callee: &str,
        arrays: &[(&ParamIr, ArrayShape<ExactDim>, Range)],
    ) -> Option<Binding> {
        let mut binding = Binding::new();
        for (p, a, _) in arrays {
            for (expr, size) in p.dims.iter().zip(a.dims()) {
                if let DimExpr::Symbol(s) = expr {
                    let origin = format!("`{}`: {a}", p.name);
                    binding
                        .entry(s.to_string())
                        .or_insert((size.clone(), origin));
                }
            }
        }
        let mut ok = true;
        for (p, a, range) in arrays {
            for (d, (expr, size)) in p.dims.iter().zip(a.dims()).enumerate() {
                let Some((s, scale, offset)) = expr.linear() else {
                    continue;
                };
                if binding.contains_key(&s.to_string()) {
                    continue;
                }
                let solved = size
                    .sub(&ExactDim::constant(offset))
                    .exact_div(&ExactDim::constant(scale));
                match solved {
                    Some(value) => {
                        binding.insert(s.to_string(), (value, format!("`{}`: {a}", p.name)));
                    }
                    None => {
                        let text = format!(
                            "mismatched dimension: `{callee}` takes `{}: {}`, but dimension {d} of this {a} \
                             is {size}, which is not {} for any size {s}",
                            p.name,
                            declared_text(p),
                            eval_dim(expr, &|x| Some(ExactDim::symbol(x.to_string())))
                                .expect("every name has a value"),
                        );
                        self.error(*range, text);
                        ok = false;
                    }
                }
            }
        }
        for (p, a, range) in arrays {
            for (d, (expr, size)) in p.dims.iter().zip(a.dims()).enumerate() {
                let Some(expected) = bound_size(expr, &binding) else {
                    continue;
                };
                if &expected == size {
                    continue;
                }
                let origin = match expr {
                    DimExpr::Symbol(s) => {
                        format!(
                            "where {s} is {expected} (from {})",
                            binding[&s.to_string()].1
                        )
                    }
                    _ => format!("whose dimension {d} is {expected} here"),
                };
                let text = format!(
                    "mismatched dimension: `{callee}` takes `{}: {}`, {origin}, but this is {a}",
                    p.name,
                    declared_text(p)
                );
                self.error(*range, text);
                ok = false;
            }
        }
        ok.then_some(binding)
    }
}

/// A size of the callee under the binding of its names.
fn bound_size(expr: &DimExpr, binding: &Binding) -> Option<ExactDim> {
    eval_dim(expr, &|s| {
        binding.get(&s.to_string()).map(|(v, _)| v.clone())
    })
}

/// The callee's result type under the binding.
fn result_shape(ty: &TypeSpec, binding: &Binding) -> Option<Shape<ExactDim>> {
    match ty {
        TypeSpec::Array {
            element_type: e,
            dims,
            ..
        } => {
            let ty = element_type(e).ok()?;
            let dims: Option<Vec<ExactDim>> = dims.iter().map(|d| bound_size(d, binding)).collect();
            Some(Shape::array(ty, dims?))
        }
        TypeSpec::Tuple { elements, .. } => {
            let shapes: Option<Vec<_>> =
                elements.iter().map(|e| result_shape(e, binding)).collect();
            Some(Shape::Tuple(shapes?))
        }
    }
}

/// A parameter's declared type, printed as shapes print (`f32[2 * H, N]`).
pub fn declared_text(p: &ParamIr) -> String {
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
