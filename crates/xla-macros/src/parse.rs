//! Parsing: the macro input into the syntax tree of [`crate::ast`], one
//! function per construct. The language is Rust's expression syntax with
//! XLA's types:
//!
//! ```text
//! program   := function+
//! function  := attribute* visibility "fn" IDENT "(" (param ("," param)* ","?)? ")"
//!              "->" type block
//! param     := IDENT ":" type
//! type      := ELEMENT_TYPE ("[" (dim ("," dim)* ","?)? "]")?
//!            | "(" type ("," type)* ","? ")"
//! dim       := dim_term (("+" | "-") dim_term)*
//! dim_term  := dim_atom ("*" dim_atom)*
//! dim_atom  := INTEGER | IDENT | "(" dim ")"
//! block     := "{" stmt* expr? "}"
//! stmt      := "let" pat (":" type)? "=" expr ";"
//!            | block_like ";"?          (while, if, block)
//!            | expr ";"
//! pat       := "mut"? IDENT | "_" | "(" pat ("," pat)* ","? ")"
//! ```
//!
//! Expressions (`parse/expr.rs`) follow Rust's precedence: assignment,
//! `||`, `&&`, comparisons, `|`, `^`, `&`, shifts, `+ -`, `* / %`, unary
//! `- !`, then method calls, calls and tuple fields.

mod expr;

use syn::parse::{Parse, ParseStream};
use syn::{braced, bracketed, parenthesized, Token};

use crate::ast::{Block, DimExpr, DimOp, Function, Param, Pat, Program, Range, Stmt, TypeSpec};

impl Parse for Program {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut functions = Vec::new();
        while !input.is_empty() {
            functions.push(input.parse()?);
        }
        if functions.is_empty() {
            return Err(
                input.error("expected at least one function: `fn name(x: f32[N]) -> f32[N] { … }`")
            );
        }
        Ok(Program { functions })
    }
}

impl Parse for Function {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut attrs = input.call(syn::Attribute::parse_outer)?;
        let mut grad = None;
        if let Some(k) = attrs.iter().position(|a| a.path().is_ident("grad")) {
            let names = attrs.remove(k).parse_args_with(
                syn::punctuated::Punctuated::<syn::Ident, Token![,]>::parse_terminated,
            )?;
            grad = Some(names.into_iter().collect());
        }
        let vis: syn::Visibility = input.parse()?;
        input.parse::<Token![fn]>()?;
        let name: syn::Ident = input.parse()?;
        let content;
        parenthesized!(content in input);
        let params = content.parse_terminated(Param::parse, Token![,])?;
        input.parse::<Token![->]>()?;
        let ret = input.parse()?;
        let body = input.parse()?;
        Ok(Function {
            attrs,
            grad,
            vis,
            name,
            params: params.into_iter().collect(),
            ret,
            body,
        })
    }
}

impl Parse for Param {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty = input.parse()?;
        Ok(Param { name, ty })
    }
}

impl Parse for TypeSpec {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(syn::token::Paren) {
            let content;
            let paren = parenthesized!(content in input);
            let elements = content.parse_terminated(TypeSpec::parse, Token![,])?;
            let range = Range::new(paren.span.open(), paren.span.close());
            if elements.is_empty() {
                return Err(range.error("expected a tuple type with at least one element"));
            }
            return Ok(TypeSpec::Tuple {
                elements: elements.into_iter().collect(),
                range,
            });
        }
        let element_type: syn::Ident = input.parse().map_err(|_| {
            input.error("expected a type: an element type (`f32`, `s32`, `pred` …) with dimensions `[B, N]`, or a tuple of types")
        })?;
        parse_array_dims(input, element_type)
    }
}

/// The optional `[dims]` after an element type name.
pub(crate) fn parse_array_dims(
    input: ParseStream,
    element_type: syn::Ident,
) -> syn::Result<TypeSpec> {
    let start = element_type.span();
    if !input.peek(syn::token::Bracket) {
        return Ok(TypeSpec::Array {
            element_type,
            dims: Vec::new(),
            range: Range::single(start),
        });
    }
    let content;
    let bracket = bracketed!(content in input);
    let dims = content.parse_terminated(DimExpr::parse, Token![,])?;
    Ok(TypeSpec::Array {
        element_type,
        dims: dims.into_iter().collect(),
        range: Range::new(start, bracket.span.close()),
    })
}

impl Parse for DimExpr {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut lhs = parse_dim_term(input)?;
        loop {
            let op = if input.peek(Token![+]) {
                input.parse::<Token![+]>()?;
                DimOp::Add
            } else if input.peek(Token![-]) {
                input.parse::<Token![-]>()?;
                DimOp::Sub
            } else {
                return Ok(lhs);
            };
            let rhs = parse_dim_term(input)?;
            lhs = DimExpr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
    }
}

fn parse_dim_term(input: ParseStream) -> syn::Result<DimExpr> {
    let mut lhs = parse_dim_atom(input)?;
    while input.peek(Token![*]) {
        input.parse::<Token![*]>()?;
        let rhs = parse_dim_atom(input)?;
        lhs = DimExpr::Binary(DimOp::Mul, Box::new(lhs), Box::new(rhs));
    }
    Ok(lhs)
}

fn parse_dim_atom(input: ParseStream) -> syn::Result<DimExpr> {
    if input.peek(syn::LitInt) {
        let lit: syn::LitInt = input.parse()?;
        let value = lit.base10_parse::<i64>()?;
        if !lit.suffix().is_empty() {
            return Err(syn::Error::new(lit.span(), "a size takes no type suffix"));
        }
        return Ok(DimExpr::Const(value, Range::single(lit.span())));
    }
    if input.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        let inner = content.parse()?;
        if !content.is_empty() {
            return Err(content.error("expected `)`"));
        }
        return Ok(inner);
    }
    if input.peek(syn::Ident) {
        return Ok(DimExpr::Symbol(input.parse()?));
    }
    Err(input
        .error("expected a size: an integer, a dimension name such as `N`, or `+ - *` of those"))
}

impl Parse for Block {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let content;
        let brace = braced!(content in input);
        let range = Range::new(brace.span.open(), brace.span.close());
        let mut stmts = Vec::new();
        let mut tail = None;
        while !content.is_empty() {
            if content.peek(Token![let]) {
                stmts.push(parse_let(&content)?);
                continue;
            }
            let block_like = expr::starts_block_like(&content);
            let e = if block_like {
                expr::parse_block_like(&content)?
            } else {
                expr::parse_expr(&content, true)?
            };
            if content.peek(Token![;]) {
                content.parse::<Token![;]>()?;
                stmts.push(Stmt::Expr(e));
            } else if content.is_empty() {
                tail = Some(Box::new(e));
            } else if block_like {
                stmts.push(Stmt::Expr(e));
            } else {
                return Err(content.error("expected `;` or `}` after the expression"));
            }
        }
        Ok(Block { stmts, tail, range })
    }
}

fn parse_let(input: ParseStream) -> syn::Result<Stmt> {
    input.parse::<Token![let]>()?;
    let pat = input.parse()?;
    let ty = if input.peek(Token![:]) {
        input.parse::<Token![:]>()?;
        Some(input.parse()?)
    } else {
        None
    };
    input.parse::<Token![=]>()?;
    let init = expr::parse_expr(input, true)?;
    input.parse::<Token![;]>()?;
    Ok(Stmt::Let { pat, ty, init })
}

impl Parse for Pat {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![_]) {
            let underscore: Token![_] = input.parse()?;
            return Ok(Pat::Wild(Range::single(underscore.span)));
        }
        if input.peek(syn::token::Paren) {
            let content;
            let paren = parenthesized!(content in input);
            let elements = content.parse_terminated(Pat::parse, Token![,])?;
            let range = Range::new(paren.span.open(), paren.span.close());
            return Ok(Pat::Tuple(elements.into_iter().collect(), range));
        }
        let mutable = input.peek(Token![mut]);
        if mutable {
            input.parse::<Token![mut]>()?;
        }
        let name = input.parse().map_err(|_| {
            input.error("expected a pattern: a name, `mut name`, `_` or a tuple `(a, b)`")
        })?;
        Ok(Pat::Ident { name, mutable })
    }
}
