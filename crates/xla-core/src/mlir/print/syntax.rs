//! How names, types and values are spelled: symbols, tensor types,
//! `array<…>` lists, padding tensors and `dense<…>` literals.

use std::fmt::Write;

use crate::mlir::ir::primitive_name;
use crate::{Literal, PrimitiveType, Shape};

/// A symbol name, quoted when it is not a bare identifier.
pub(super) fn symbol(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'));
    if bare {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// A type: `tensor<2x3xf32>`, `tuple<…>`, `!stablehlo.token`.
pub(super) fn ty(shape: &Shape) -> String {
    match shape {
        Shape::Array(a) => {
            let mut out = String::from("tensor<");
            for d in a.dims() {
                write!(out, "{d}x").expect("writing to a String");
            }
            out.push_str(primitive_name(a.element_type()));
            out.push('>');
            out
        }
        Shape::Tuple(parts) => format!(
            "tuple<{}>",
            parts.iter().map(ty).collect::<Vec<_>>().join(", ")
        ),
        Shape::Token | Shape::Opaque => "!stablehlo.token".to_string(),
    }
}

pub(super) fn ints(values: &[i64]) -> String {
    format!(
        "array<i64{}{}>",
        if values.is_empty() { "" } else { ": " },
        join(values)
    )
}

/// One field of every window dimension, as `array<i64: …>`.
pub(super) fn window_field(
    dims: &[crate::hlo::WindowDim],
    field: fn(&crate::hlo::WindowDim) -> i64,
) -> String {
    ints(&dims.iter().map(field).collect::<Vec<_>>())
}

pub(super) fn list(values: &[i64]) -> String {
    format!("[{}]", join(values))
}

fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn bools(values: &[bool]) -> String {
    let items: Vec<&str> = values
        .iter()
        .map(|&b| if b { "true" } else { "false" })
        .collect();
    format!(
        "array<i1{}{}>",
        if items.is_empty() { "" } else { ": " },
        items.join(", ")
    )
}

/// An `N×2` padding tensor.
pub(super) fn pairs(values: &[(i64, i64)]) -> String {
    let rows: Vec<String> = values.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    format!(
        "dense<[{}]> : tensor<{}x2xi64>",
        rows.join(", "),
        values.len()
    )
}

/// A literal as `dense<…> : tensor<…>`: raw little-endian hex (exact for
/// every type), `true`/`false` lists for `pred`.
pub(super) fn dense(literal: &Literal) -> Result<String, String> {
    let shape = literal.shape();
    let array = shape
        .as_array()
        .ok_or("a tuple constant has no StableHLO form here")?;
    let bytes = literal.bytes().map_err(|e| e.to_string())?;
    let t = ty(shape);
    if array.dims().iter().product::<i64>() == 0 {
        return Ok(format!("dense<> : {t}"));
    }
    if array.element_type() == PrimitiveType::Pred {
        let items: Vec<&str> = bytes
            .iter()
            .map(|&b| if b != 0 { "true" } else { "false" })
            .collect();
        return Ok(if array.rank() == 0 {
            format!("dense<{}> : {t}", items[0])
        } else {
            format!("dense<[{}]> : {t}", nest(&items, array.dims()))
        });
    }
    let mut hex = String::with_capacity(2 + 2 * bytes.len());
    hex.push_str("0x");
    for b in bytes {
        write!(hex, "{b:02X}").expect("writing to a String");
    }
    Ok(format!("dense<\"{hex}\"> : {t}"))
}

/// Items nested in brackets by `dims` (the outer brackets left out).
fn nest(items: &[&str], dims: &[i64]) -> String {
    if dims.len() <= 1 {
        return items.join(", ");
    }
    let inner: i64 = dims[1..].iter().product();
    items
        .chunks(inner.max(1) as usize)
        .map(|chunk| format!("[{}]", nest(chunk, &dims[1..])))
        .collect::<Vec<_>>()
        .join(", ")
}
