//! The syntax tree of an `xla!` invocation, as parsed. Every node keeps the
//! span of its source (first and last token), so that a check failing on a
//! node reports at exactly that sub-expression.

use proc_macro2::{Span, TokenStream, TokenTree};

/// The source range of a node: its first and last token's spans. An error
/// built from it underlines the whole range (`syn::Error::new_spanned` with
/// two tokens), which works on stable Rust where `Span::join` does not.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub start: Span,
    pub end: Span,
}

impl Range {
    pub fn new(start: Span, end: Span) -> Self {
        Range { start, end }
    }

    pub fn single(span: Span) -> Self {
        Range::new(span, span)
    }

    /// From the start of `self` to the end of `other`.
    pub fn to(self, other: Range) -> Range {
        Range::new(self.start, other.end)
    }

    pub fn error(self, message: impl std::fmt::Display) -> syn::Error {
        let mut tokens = TokenStream::new();
        for span in [self.start, self.end] {
            tokens.extend([TokenTree::Ident(proc_macro2::Ident::new("x", span))]);
        }
        syn::Error::new_spanned(tokens, message)
    }
}

/// The whole macro input: one or more functions.
pub struct Program {
    pub functions: Vec<Function>,
}

/// `#[attrs] vis fn name(params) -> type { body }`.
pub struct Function {
    /// Outer attributes (doc comments), copied onto the generated module.
    pub attrs: Vec<syn::Attribute>,
    /// `#[grad(w, b)]`: the parameters to differentiate with respect to.
    pub grad: Option<Vec<syn::Ident>>,
    pub vis: syn::Visibility,
    pub name: syn::Ident,
    pub params: Vec<Param>,
    pub ret: TypeSpec,
    pub body: Block,
}

/// `name: f32[B, N]`.
pub struct Param {
    pub name: syn::Ident,
    pub ty: TypeSpec,
}

/// A value's type as written: `f32[B, N]`, `f32` (a scalar), or a tuple
/// `(f32[N], s32[N])`.
#[derive(Clone)]
pub enum TypeSpec {
    Array {
        /// The element type's name as written (`f32`); checked later.
        element_type: syn::Ident,
        dims: Vec<DimExpr>,
        range: Range,
    },
    Tuple {
        elements: Vec<TypeSpec>,
        range: Range,
    },
}

impl TypeSpec {
    pub fn range(&self) -> Range {
        match self {
            TypeSpec::Array { range, .. } | TypeSpec::Tuple { range, .. } => *range,
        }
    }
}

/// A dimension size in a type: an integer, a named size, or `+ - *` of
/// those (`B * N`, `N - 2`).
#[derive(Clone, Debug)]
pub enum DimExpr {
    Const(i64, Range),
    Symbol(syn::Ident),
    Binary(DimOp, Box<DimExpr>, Box<DimExpr>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DimOp {
    Add,
    Sub,
    Mul,
}

impl DimExpr {
    pub fn range(&self) -> Range {
        match self {
            DimExpr::Const(_, range) => *range,
            DimExpr::Symbol(ident) => Range::single(ident.span()),
            DimExpr::Binary(_, lhs, rhs) => lhs.range().to(rhs.range()),
        }
    }

    /// `a * S + b` for one symbol `S` and constants `a ≠ 0`, `b`: a size a
    /// call can solve for `S` (`2 * H` binds `H` to half the size).
    pub fn linear(&self) -> Option<(syn::Ident, i64, i64)> {
        /// `(symbol, a, b)` with no symbol for a constant.
        fn walk(e: &DimExpr) -> Option<(Option<syn::Ident>, i64, i64)> {
            Some(match e {
                DimExpr::Const(v, _) => (None, 0, *v),
                DimExpr::Symbol(s) => (Some(s.clone()), 1, 0),
                DimExpr::Binary(op, l, r) => {
                    let ((ls, la, lb), (rs, ra, rb)) = (walk(l)?, walk(r)?);
                    match op {
                        DimOp::Add | DimOp::Sub => {
                            let sign = if *op == DimOp::Sub { -1 } else { 1 };
                            let symbol = match (ls, rs) {
                                (Some(a), Some(b)) if a != b => return None,
                                (a, b) => a.or(b),
                            };
                            (symbol, la + sign * ra, lb + sign * rb)
                        }
                        DimOp::Mul => match (ls, rs) {
                            (Some(_), Some(_)) => return None,
                            (Some(s), None) => (Some(s), la * rb, lb * rb),
                            (None, s) => (s, ra * lb, rb * lb),
                        },
                    }
                }
            })
        }
        match walk(self)? {
            (Some(s), a, b) if a != 0 => Some((s, a, b)),
            _ => None,
        }
    }

    /// Every symbol the expression mentions, in order.
    pub fn symbols(&self, out: &mut Vec<syn::Ident>) {
        match self {
            DimExpr::Const(..) => {}
            DimExpr::Symbol(ident) => out.push(ident.clone()),
            DimExpr::Binary(_, lhs, rhs) => {
                lhs.symbols(out);
                rhs.symbols(out);
            }
        }
    }
}

/// `{ stmts; tail }`.
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of the block (absent: the block has no value).
    pub tail: Option<Box<Expr>>,
    pub range: Range,
}

pub enum Stmt {
    /// `let pat: type = init;` (the type is optional).
    Let {
        pat: Pat,
        ty: Option<TypeSpec>,
        init: Expr,
    },
    /// An expression evaluated for its effect: an assignment or a loop.
    Expr(Expr),
}

/// A binding pattern: `x`, `mut x`, `_`, `(a, b)`.
pub enum Pat {
    Ident { name: syn::Ident, mutable: bool },
    Wild(Range),
    Tuple(Vec<Pat>, Range),
}

impl Pat {
    pub fn range(&self) -> Range {
        match self {
            Pat::Ident { name, .. } => Range::single(name.span()),
            Pat::Wild(range) | Pat::Tuple(_, range) => *range,
        }
    }
}

pub struct Expr {
    pub kind: ExprKind,
    pub range: Range,
}

/// A literal: an integer, a float or a bool, with an optional type suffix
/// (`2.0f32`, `1u8`, `3s32`).
#[derive(Clone, Debug)]
pub enum LitValue {
    Int(i128),
    Float(f64),
    Bool(bool),
}

pub enum ExprKind {
    Lit {
        value: LitValue,
        /// The suffix as written (`f32`, `i32`, `s32`), if any.
        suffix: Option<String>,
    },
    /// A variable, or (where a size or an element type is expected) a
    /// dimension or type name.
    Var(syn::Ident),
    /// A constant of an element type: `f32::INFINITY`, or a mathematical
    /// one, `std::f32::consts::PI` (`consts` is true).
    Path {
        ty: syn::Ident,
        item: syn::Ident,
        consts: bool,
    },
    /// A string: a convolution's `dim_labels`.
    Str(String),
    /// `f32[B, N]` in an argument (`iota(s32[N], 0)`).
    Type(TypeSpec),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Method {
        receiver: Box<Expr>,
        name: syn::Ident,
        args: Vec<Expr>,
    },
    Call {
        name: syn::Ident,
        args: Vec<Expr>,
    },
    /// `t.0`.
    Field(Box<Expr>, u32, Range),
    Tuple(Vec<Expr>),
    Array(Vec<Expr>),
    Paren(Box<Expr>),
    Block(Block),
    If {
        cond: Box<Expr>,
        then: Block,
        /// A block or another `if`.
        otherwise: Option<Box<Expr>>,
    },
    While {
        cond: Box<Expr>,
        body: Block,
    },
    /// `x = value` or `x op= value`.
    Assign {
        target: syn::Ident,
        op: Option<BinOp>,
        value: Box<Expr>,
    },
    Closure {
        params: Vec<ClosureParam>,
        body: Box<Expr>,
    },
    /// `GatherDims { offset_dims: [1], … }`.
    Struct {
        name: syn::Ident,
        fields: Vec<(syn::Ident, Expr)>,
    },
}

pub struct ClosureParam {
    pub pat: Pat,
    pub ty: Option<TypeSpec>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DimExpr;

    fn linear(text: &str) -> Option<(String, i64, i64)> {
        let e: DimExpr = syn::parse_str(text).unwrap();
        e.linear().map(|(s, a, b)| (s.to_string(), a, b))
    }

    #[test]
    fn linear_sizes_solve_for_their_name() {
        assert_eq!(linear("2 * H"), Some(("H".to_string(), 2, 0)));
        assert_eq!(linear("H * 2 + 1"), Some(("H".to_string(), 2, 1)));
        assert_eq!(linear("3 - N"), Some(("N".to_string(), -1, 3)));
        assert_eq!(linear("(N + 1) * 4 - N"), Some(("N".to_string(), 3, 4)));
        assert_eq!(linear("N - N + 2"), None);
        assert_eq!(linear("N * M"), None);
        assert_eq!(linear("N + M"), None);
        assert_eq!(linear("N * N"), None);
        assert_eq!(linear("4"), None);
    }
}
