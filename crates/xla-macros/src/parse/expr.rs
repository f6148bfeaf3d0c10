//! Expressions: precedence climbing over Rust's operator table.
//!
//! ```text
//! expr     := IDENT ("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=") expr
//!           | binary
//! binary   := unary (BINOP unary)*          (Rust's precedence; comparisons do not chain)
//! unary    := ("-" | "!") unary | postfix
//! postfix  := primary ("." IDENT "(" args ")" | "." INTEGER)*
//! primary  := LITERAL | IDENT | IDENT "::" IDENT | IDENT "(" args ")"
//!           | ELEMENT_TYPE "[" dims "]" | IDENT "{" fields "}"
//!           | "(" ")" | "(" expr ")" | "(" expr ("," expr)+ ","? ")" | "[" args "]"
//!           | "|" params "|" expr | block | "if" expr block ("else" (block | if))?
//!           | "while" expr block
//! ```

use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{bracketed, parenthesized, Token};

use super::parse_array_dims;
use crate::ast::{BinOp, Block, ClosureParam, Expr, ExprKind, LitValue, Pat, Range, UnOp};
use crate::types::is_element_type_name;

/// Whether the next tokens start an expression that ends with a block
/// (`while`, `if`, `{`): as a statement it needs no `;`.
pub(super) fn starts_block_like(input: ParseStream) -> bool {
    input.peek(Token![while]) || input.peek(Token![if]) || input.peek(syn::token::Brace)
}

/// An expression. `allow_struct` is false in the condition of `if` and
/// `while`, where `{` starts the body (as in Rust).
pub(super) fn parse_expr(input: ParseStream, allow_struct: bool) -> syn::Result<Expr> {
    let lhs = parse_binary(input, 0, allow_struct)?;
    let Some(op) = peek_assign(input)? else {
        return Ok(lhs);
    };
    let ExprKind::Var(target) = lhs.kind else {
        return Err(lhs
            .range
            .error("only a variable can be assigned to: `x = …`"));
    };
    let value = parse_expr(input, allow_struct)?;
    let range = lhs.range.to(value.range);
    Ok(Expr {
        kind: ExprKind::Assign {
            target,
            op,
            value: Box::new(value),
        },
        range,
    })
}

/// Consumes an assignment operator: `Some(None)` for `=`, `Some(Some(op))`
/// for `op=`.
fn peek_assign(input: ParseStream) -> syn::Result<Option<Option<BinOp>>> {
    macro_rules! compound {
        ($($tok:tt => $op:expr),*) => {
            $(if input.peek(Token![$tok]) {
                input.parse::<Token![$tok]>()?;
                return Ok(Some(Some($op)));
            })*
        };
    }
    compound!(<<= => BinOp::Shl, >>= => BinOp::Shr, += => BinOp::Add, -= => BinOp::Sub,
              *= => BinOp::Mul, /= => BinOp::Div, %= => BinOp::Rem, &= => BinOp::BitAnd,
              |= => BinOp::BitOr, ^= => BinOp::BitXor);
    if input.peek(Token![=]) && !input.peek(Token![==]) && !input.peek(Token![=>]) {
        input.parse::<Token![=]>()?;
        return Ok(Some(None));
    }
    Ok(None)
}

/// Binding power of a binary operator (higher binds tighter), as in Rust.
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
        BinOp::BitOr => 4,
        BinOp::BitXor => 5,
        BinOp::BitAnd => 6,
        BinOp::Shl | BinOp::Shr => 7,
        BinOp::Add | BinOp::Sub => 8,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 9,
    }
}

/// The binary operator at the cursor, without consuming it. Longer tokens
/// are tried first (`<<` before `<`), and compound assignments (`+=`) are
/// not operators here.
fn peek_binop(input: ParseStream) -> Option<BinOp> {
    macro_rules! first {
        ($($tok:tt => $op:expr),*) => {
            $(if input.peek(Token![$tok]) { return $op; })*
        };
    }
    first!(<<= => None, >>= => None, << => Some(BinOp::Shl), >> => Some(BinOp::Shr),
           <= => Some(BinOp::Le), >= => Some(BinOp::Ge), == => Some(BinOp::Eq),
           != => Some(BinOp::Ne), && => Some(BinOp::And), || => Some(BinOp::Or),
           += => None, -= => None, *= => None, /= => None, %= => None, &= => None,
           |= => None, ^= => None, -> => None, => => None,
           < => Some(BinOp::Lt), > => Some(BinOp::Gt), + => Some(BinOp::Add),
           - => Some(BinOp::Sub), * => Some(BinOp::Mul), / => Some(BinOp::Div),
           % => Some(BinOp::Rem), & => Some(BinOp::BitAnd), | => Some(BinOp::BitOr),
           ^ => Some(BinOp::BitXor));
    None
}

fn consume_binop(input: ParseStream, op: BinOp) -> syn::Result<()> {
    macro_rules! eat {
        ($($op:ident => $tok:tt),*) => {
            match op { $(BinOp::$op => { input.parse::<Token![$tok]>()?; })* }
        };
    }
    eat!(Add => +, Sub => -, Mul => *, Div => /, Rem => %, BitAnd => &, BitOr => |,
         BitXor => ^, Shl => <<, Shr => >>, Eq => ==, Ne => !=, Lt => <, Le => <=,
         Gt => >, Ge => >=, And => &&, Or => ||);
    Ok(())
}

fn is_comparison(op: BinOp) -> bool {
    precedence(op) == 3
}

fn parse_binary(input: ParseStream, min: u8, allow_struct: bool) -> syn::Result<Expr> {
    let mut lhs = parse_unary(input, allow_struct)?;
    while let Some(op) = peek_binop(input) {
        let prec = precedence(op);
        if prec < min {
            break;
        }
        let op_span = input.cursor().span();
        consume_binop(input, op)?;
        let rhs = parse_binary(input, prec + 1, allow_struct)?;
        if is_comparison(op) {
            if let Some(next) = peek_binop(input).filter(|&n| is_comparison(n)) {
                return Err(syn::Error::new(
                    op_span,
                    format!(
                        "comparison operators cannot be chained; use parentheses: `(a {} b) {} c`",
                        op.symbol(),
                        next.symbol()
                    ),
                ));
            }
        }
        let range = lhs.range.to(rhs.range);
        lhs = Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            range,
        };
    }
    Ok(lhs)
}

fn parse_unary(input: ParseStream, allow_struct: bool) -> syn::Result<Expr> {
    let op = if input.peek(Token![-]) {
        Some((UnOp::Neg, input.parse::<Token![-]>()?.span))
    } else if input.peek(Token![!]) {
        Some((UnOp::Not, input.parse::<Token![!]>()?.span))
    } else {
        None
    };
    if let Some((op, span)) = op {
        let operand = parse_unary(input, allow_struct)?;
        let range = Range::single(span).to(operand.range);
        return Ok(Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            range,
        });
    }
    parse_postfix(input, allow_struct)
}

fn parse_postfix(input: ParseStream, allow_struct: bool) -> syn::Result<Expr> {
    let mut e = parse_primary(input, allow_struct)?;
    while input.peek(Token![.]) && !input.peek(Token![..]) {
        input.parse::<Token![.]>()?;
        if input.peek(syn::LitInt) {
            let index: syn::LitInt = input.parse()?;
            let range = e.range.to(Range::single(index.span()));
            let i = index.base10_parse::<u32>()?;
            e = field(e, i, range);
            continue;
        }
        if input.peek(syn::LitFloat) {
            // `t.0.1` lexes as `t`, `.`, `0.1`.
            let pair: syn::LitFloat = input.parse()?;
            let range = e.range.to(Range::single(pair.span()));
            let text = pair.to_string();
            let parts: Option<Vec<u32>> = text.split('.').map(|p| p.parse().ok()).collect();
            let Some([a, b]) = parts.as_deref().and_then(|p| <[u32; 2]>::try_from(p).ok()) else {
                return Err(syn::Error::new(
                    pair.span(),
                    "expected a tuple field such as `.0`",
                ));
            };
            e = field(field(e, a, range), b, range);
            continue;
        }
        let name = input.call(syn::Ident::parse_any)?;
        if !input.peek(syn::token::Paren) {
            let hint = if name == "T" {
                "; JAX's `x.T` is `x.transpose([1, 0])`, with the permutation written out"
            } else {
                ""
            };
            return Err(syn::Error::new(
                name.span(),
                format!("expected a method call `.{name}(…)`; values have no named fields{hint}"),
            ));
        }
        let (args, close) = parse_args(input)?;
        let range = e.range.to(Range::single(close));
        e = Expr {
            kind: ExprKind::Method {
                receiver: Box::new(e),
                name,
                args,
            },
            range,
        };
    }
    if input.peek(syn::token::Bracket) {
        return Err(input.error(
            "indexing `x[…]` is not part of the xla! language: an element or a row at a \
             computed index is `x.dynamic_slice([i, 0], [1, N])` (then `reshape` drops the \
             size-1 dimension), a fixed range is `x.slice([start], [limit])`",
        ));
    }
    if input.peek(Token![as]) {
        return Err(
            input.error("`as` is not part of the xla! language: a conversion is `x.convert(f32)`")
        );
    }
    Ok(e)
}

fn field(base: Expr, index: u32, range: Range) -> Expr {
    Expr {
        kind: ExprKind::Field(Box::new(base), index, range),
        range,
    }
}

/// `( expr, … )`; returns the arguments and the closing parenthesis' span.
fn parse_args(input: ParseStream) -> syn::Result<(Vec<Expr>, proc_macro2::Span)> {
    let content;
    let paren = parenthesized!(content in input);
    let args = comma_separated(&content)?;
    Ok((args, paren.span.close()))
}

fn comma_separated(content: ParseStream) -> syn::Result<Vec<Expr>> {
    let mut args = Vec::new();
    while !content.is_empty() {
        args.push(parse_expr(content, true)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(args)
}

fn parse_primary(input: ParseStream, allow_struct: bool) -> syn::Result<Expr> {
    if input.peek(syn::Lit) {
        return parse_literal(input);
    }
    if starts_block_like(input) {
        return parse_block_like(input);
    }
    if input.peek(Token![|]) {
        return parse_closure(input);
    }
    if input.peek(syn::token::Paren) {
        let content;
        let paren = parenthesized!(content in input);
        let range = Range::new(paren.span.open(), paren.span.close());
        let mut elements = Vec::new();
        let mut trailing_comma = false;
        while !content.is_empty() {
            elements.push(parse_expr(&content, true)?);
            trailing_comma = false;
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
            trailing_comma = true;
        }
        let kind = if elements.len() == 1 && !trailing_comma {
            ExprKind::Paren(Box::new(elements.pop().expect("one element")))
        } else {
            ExprKind::Tuple(elements)
        };
        return Ok(Expr { kind, range });
    }
    if input.peek(syn::token::Bracket) {
        let content;
        let bracket = bracketed!(content in input);
        let range = Range::new(bracket.span.open(), bracket.span.close());
        let elements = comma_separated(&content)?;
        return Ok(Expr {
            kind: ExprKind::Array(elements),
            range,
        });
    }
    for (keyword, what, instead) in [
        (
            input.peek(Token![for]),
            "for",
            "use `while` over `let mut` state",
        ),
        (
            input.peek(Token![loop]),
            "loop",
            "use `while` with a condition",
        ),
        (
            input.peek(Token![return]),
            "return",
            "a block's value is its final expression",
        ),
        (
            input.peek(Token![break]),
            "break",
            "a `while` loop ends when its condition is false",
        ),
        (
            input.peek(Token![continue]),
            "continue",
            "use `if … else …` inside the loop",
        ),
        (
            input.peek(Token![match]),
            "match",
            "use `if … else if … else …`",
        ),
    ] {
        if keyword {
            return Err(input.error(format!(
                "`{what}` is not part of the xla! language; {instead}"
            )));
        }
    }
    if input.peek(Token![*]) {
        return Err(input.error(
            "expected an expression; `**` is not an operator: `x.pow(y)` raises to a power",
        ));
    }
    if !input.peek(syn::Ident) {
        return Err(input.error("expected an expression"));
    }
    let name: syn::Ident = input.parse()?;
    let start = Range::single(name.span());
    if input.peek(Token![::]) {
        return parse_path(input, name);
    }
    if input.peek(syn::token::Paren) {
        let (args, close) = parse_args(input)?;
        return Ok(Expr {
            kind: ExprKind::Call { name, args },
            range: start.to(Range::single(close)),
        });
    }
    if input.peek(syn::token::Bracket) && is_element_type_name(&name.to_string()) {
        let ty = parse_array_dims(input, name)?;
        let range = ty.range();
        return Ok(Expr {
            kind: ExprKind::Type(ty),
            range,
        });
    }
    if allow_struct && input.peek(syn::token::Brace) {
        return parse_struct(input, name);
    }
    Ok(Expr {
        kind: ExprKind::Var(name),
        range: start,
    })
}

/// A constant's path after its first segment `first`: `f32::MAX`, or a
/// mathematical constant `f32::consts::PI`, `std::f32::consts::PI`.
fn parse_path(input: ParseStream, first: syn::Ident) -> syn::Result<Expr> {
    let mut segments = vec![first];
    while input.peek(Token![::]) {
        input.parse::<Token![::]>()?;
        segments.push(input.call(syn::Ident::parse_any)?);
    }
    let range = Range::single(segments[0].span()).to(Range::single(
        segments.last().expect("at least one segment").span(),
    ));
    let names: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (ty, item, consts) = match names.as_slice() {
        [_, _] => (&segments[0], &segments[1], false),
        [_, "consts", _] => (&segments[0], &segments[2], true),
        ["std" | "core", _, "consts", _] => (&segments[1], &segments[3], true),
        _ => {
            return Err(range.error(
                "expected a constant such as `f32::MAX`, `s32::MIN` or `std::f32::consts::PI`",
            ))
        }
    };
    Ok(Expr {
        kind: ExprKind::Path {
            ty: ty.clone(),
            item: item.clone(),
            consts,
        },
        range,
    })
}

fn parse_literal(input: ParseStream) -> syn::Result<Expr> {
    let lit: syn::Lit = input.parse()?;
    let range = Range::single(lit.span());
    let (value, suffix) = match &lit {
        syn::Lit::Int(i) => (LitValue::Int(i.base10_parse::<i128>()?), i.suffix()),
        syn::Lit::Float(f) => (LitValue::Float(f.base10_parse::<f64>()?), f.suffix()),
        syn::Lit::Bool(b) => (LitValue::Bool(b.value), ""),
        syn::Lit::Str(s) => {
            return Ok(Expr {
                kind: ExprKind::Str(s.value()),
                range,
            })
        }
        _ => {
            return Err(syn::Error::new(
                lit.span(),
                "expected a number, `true` or `false`",
            ))
        }
    };
    let suffix = (!suffix.is_empty()).then(|| suffix.to_string());
    Ok(Expr {
        kind: ExprKind::Lit { value, suffix },
        range,
    })
}

/// `while`, `if` or a block.
pub(super) fn parse_block_like(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Token![while]) {
        let keyword: Token![while] = input.parse()?;
        let cond = parse_expr(input, false)?;
        let body: Block = input.parse()?;
        let range = Range::single(keyword.span).to(body.range);
        return Ok(Expr {
            kind: ExprKind::While {
                cond: Box::new(cond),
                body,
            },
            range,
        });
    }
    if input.peek(Token![if]) {
        let keyword: Token![if] = input.parse()?;
        let cond = parse_expr(input, false)?;
        let then: Block = input.parse()?;
        let mut range = Range::single(keyword.span).to(then.range);
        let otherwise = if input.peek(Token![else]) {
            input.parse::<Token![else]>()?;
            let e = if input.peek(Token![if]) {
                parse_block_like(input)?
            } else {
                let block: Block = input.parse()?;
                Expr {
                    range: block.range,
                    kind: ExprKind::Block(block),
                }
            };
            range = range.to(e.range);
            Some(Box::new(e))
        } else {
            None
        };
        return Ok(Expr {
            kind: ExprKind::If {
                cond: Box::new(cond),
                then,
                otherwise,
            },
            range,
        });
    }
    let block: Block = input.parse()?;
    Ok(Expr {
        range: block.range,
        kind: ExprKind::Block(block),
    })
}

/// `|a, b: f32| body`.
fn parse_closure(input: ParseStream) -> syn::Result<Expr> {
    let open: Token![|] = input.parse()?;
    let mut params = Vec::new();
    while !input.peek(Token![|]) {
        let pat: Pat = input.parse()?;
        let ty = if input.peek(Token![:]) {
            input.parse::<Token![:]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        params.push(ClosureParam { pat, ty });
        if input.peek(Token![|]) {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    input.parse::<Token![|]>()?;
    let body = parse_expr(input, true)?;
    let range = Range::single(open.span).to(body.range);
    Ok(Expr {
        kind: ExprKind::Closure {
            params,
            body: Box::new(body),
        },
        range,
    })
}

/// `Name { field: expr, … }`.
fn parse_struct(input: ParseStream, name: syn::Ident) -> syn::Result<Expr> {
    let content;
    let brace = syn::braced!(content in input);
    let mut fields = Vec::new();
    while !content.is_empty() {
        let field: syn::Ident = content.parse()?;
        content.parse::<Token![:]>()?;
        let value = parse_expr(&content, true)?;
        fields.push((field, value));
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    let range = Range::single(name.span()).to(Range::single(brace.span.close()));
    Ok(Expr {
        kind: ExprKind::Struct { name, fields },
        range,
    })
}
