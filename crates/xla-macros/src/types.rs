//! Element types and symbolic sizes as the user writes them: `f32`, the
//! suffix of `2.0f32`, `B * N`.

use std::cmp::Ordering;
use std::fmt;

use xla_core::shape::sym::SymDim;
use xla_core::{Dim, PrimitiveType};

use crate::ast::{DimExpr, DimOp};
use crate::suggest::did_you_mean;

/// A symbolic size compared *exactly*: the macro's dimension type.
///
/// [`SymDim`] answers "are these sizes different?" only when it is known:
/// `B` and `N` may be equal at run time, so xla-core's inference, which is
/// written for modules whose sizes may be related in ways it cannot see,
/// lets them pass. In an `xla!` function, dimension names are independent
/// (as a Rust function's type parameters are), so two sizes are equal only
/// if their normalized polynomials are: `B * N` is `N * B`, but `B` is not
/// `N`. Orderings stay what is known (`N - 1 < N`; `K` against `N` is
/// unknown), so bounds such as a slice's limit are not over-reported.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ExactDim(pub SymDim);

impl ExactDim {
    /// The size named `name`.
    pub fn symbol(name: impl Into<String>) -> Self {
        ExactDim(SymDim::symbol(name))
    }
}

impl fmt::Display for ExactDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Dim for ExactDim {
    const SEPARATOR: &'static str = SymDim::SEPARATOR;

    fn constant(value: i64) -> Self {
        ExactDim(SymDim::constant(value))
    }

    fn as_const(&self) -> Option<i64> {
        self.0.as_const()
    }

    fn add(&self, other: &Self) -> Self {
        ExactDim(self.0.add(&other.0))
    }

    fn sub(&self, other: &Self) -> Self {
        ExactDim(self.0.sub(&other.0))
    }

    fn mul(&self, other: &Self) -> Self {
        ExactDim(self.0.mul(&other.0))
    }

    fn exact_div(&self, divisor: &Self) -> Option<Self> {
        self.0.exact_div(&divisor.0).map(ExactDim)
    }

    fn floor_div(&self, divisor: i64) -> Option<Self> {
        self.0.floor_div(divisor).map(ExactDim)
    }

    fn known_cmp(&self, other: &Self) -> Option<Ordering> {
        self.0.known_cmp(&other.0)
    }

    fn known_ne(&self, other: &Self) -> bool {
        self != other
    }
}

/// `true` for XLA's element type names (`f32`, `pred`, `bf16` …).
pub fn is_element_type_name(name: &str) -> bool {
    PrimitiveType::from_name(name).is_some()
}

/// The element type named by `ident`, or an error suggesting the closest
/// name.
pub fn element_type(ident: &syn::Ident) -> syn::Result<PrimitiveType> {
    let name = ident.to_string();
    if let Some(ty) = PrimitiveType::from_name(&name) {
        return Ok(ty);
    }
    let hint = match rust_name(&name) {
        Some(ty) => format!("; XLA spells it `{}`", ty.name()),
        None => did_you_mean(&name, PrimitiveType::ALL.iter().map(|t| t.name())),
    };
    Err(syn::Error::new(
        ident.span(),
        format!("unknown element type `{name}`{hint}"),
    ))
}

/// The element type of a literal suffix: XLA's names (`s32`, `bf16`) or
/// Rust's (`i32`, `f32`).
pub fn suffix_type(suffix: &str) -> Option<PrimitiveType> {
    PrimitiveType::from_name(suffix).or_else(|| rust_name(suffix))
}

/// Rust's integer names for XLA's signed types (`i32` is `s32`).
fn rust_name(name: &str) -> Option<PrimitiveType> {
    Some(match name {
        "i8" => PrimitiveType::S8,
        "i16" => PrimitiveType::S16,
        "i32" => PrimitiveType::S32,
        "i64" => PrimitiveType::S64,
        "bool" => PrimitiveType::Pred,
        _ => return None,
    })
}

/// The symbolic size a dimension expression denotes, given the function's
/// dimension names; unknown names are reported.
pub fn sym_dim(expr: &DimExpr, known: &dyn Fn(&str) -> bool) -> syn::Result<ExactDim> {
    match expr {
        DimExpr::Const(value, _) => Ok(ExactDim::constant(*value)),
        DimExpr::Symbol(ident) => {
            let name = ident.to_string();
            if known(&name) {
                Ok(ExactDim::symbol(name))
            } else {
                Err(syn::Error::new(
                    ident.span(),
                    format!(
                        "unknown dimension `{name}`: sizes are integers or dimension names \
                         from the function's parameter types"
                    ),
                ))
            }
        }
        DimExpr::Binary(op, lhs, rhs) => {
            let (a, b) = (sym_dim(lhs, known)?, sym_dim(rhs, known)?);
            Ok(match op {
                DimOp::Add => a.add(&b),
                DimOp::Sub => a.sub(&b),
                DimOp::Mul => a.mul(&b),
            })
        }
    }
}

/// The value of a size expression, with `value_of` giving each symbol's
/// size (`None` if a symbol has none).
pub fn eval_dim(
    expr: &DimExpr,
    value_of: &dyn Fn(&syn::Ident) -> Option<ExactDim>,
) -> Option<ExactDim> {
    Some(match expr {
        DimExpr::Const(value, _) => ExactDim::constant(*value),
        DimExpr::Symbol(ident) => value_of(ident)?,
        DimExpr::Binary(op, lhs, rhs) => {
            let (a, b) = (eval_dim(lhs, value_of)?, eval_dim(rhs, value_of)?);
            match op {
                DimOp::Add => a.add(&b),
                DimOp::Sub => a.sub(&b),
                DimOp::Mul => a.mul(&b),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sizes_differ_unless_equal_polynomials() {
        let (b, n) = (ExactDim::symbol("B"), ExactDim::symbol("N"));
        assert!(b.known_ne(&n));
        assert!(!b.mul(&n).known_ne(&n.mul(&b)));
        assert!(b.known_ne(&ExactDim::constant(4)));
        // Orderings stay what is known: `B < N` is not.
        assert_eq!(b.known_cmp(&n), None);
        assert!(n.sub(&ExactDim::constant(1)).known_lt(&n));
        assert_eq!(
            b.mul(&n).add(&ExactDim::constant(1)).to_string(),
            "B * N + 1"
        );
    }

    #[test]
    fn names_and_suffixes() {
        assert_eq!(suffix_type("i32"), Some(PrimitiveType::S32));
        assert_eq!(suffix_type("bf16"), Some(PrimitiveType::Bf16));
        assert_eq!(suffix_type("usize"), None);
        let ident = syn::Ident::new("f23", proc_macro2::Span::call_site());
        let err = element_type(&ident).unwrap_err().to_string();
        assert_eq!(err, "unknown element type `f23`; did you mean `f32`?");
    }
}
