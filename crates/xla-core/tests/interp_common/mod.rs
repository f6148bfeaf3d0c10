//! Helpers shared by the interpreter tests: build a module from HLO text
//! and run it.

#![allow(dead_code)]

use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal, NativeType};

/// A module whose entry computation is `body` (instructions, one per line,
/// the last one the root), after the computations in `extra`.
pub fn module(extra: &str, body: &str) -> String {
    let lines: Vec<&str> = body.trim().lines().map(str::trim).collect();
    let (root, rest) = lines.split_last().expect("a body");
    let mut text = format!("HloModule m\n\n{extra}\n\nENTRY e {{\n");
    for line in rest {
        text.push_str(&format!("  {line}\n"));
    }
    text.push_str(&format!("  ROOT {root}\n}}\n"));
    text
}

/// Parses `text` and runs it on `args`, panicking with the error.
pub fn run_text(text: &str, args: &[&Literal]) -> Literal {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    Interpreter::new()
        .run(&module, args)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Runs an entry computation with `body` (see [`module`]).
pub fn run(body: &str, args: &[&Literal]) -> Literal {
    run_text(&module("", body), args)
}

/// Runs an entry computation after the computations in `extra`.
pub fn run_with(extra: &str, body: &str, args: &[&Literal]) -> Literal {
    run_text(&module(extra, body), args)
}

/// The error of running `body`.
pub fn run_err(extra: &str, body: &str, args: &[&Literal]) -> String {
    let text = module(extra, body);
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    match Interpreter::new().run(&module, args) {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e.to_string(),
    }
}

/// `(a, b) -> a <op> b` on scalars of `ty`, named `name`.
pub fn binary_computation(name: &str, op: &str, ty: &str) -> String {
    format!(
        "{name} {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {op}(a, b)\n}}\n"
    )
}

/// The bit patterns of f32 values.
pub fn bits32(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The bit patterns of f64 values.
pub fn bits64(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// `op(args…)` as one instruction with result element type `ty` and the
/// dimensions of the first argument; `attrs` follows the operand list.
pub fn apply(op: &str, attrs: &str, ty: &str, args: &[&Literal]) -> Literal {
    let dims: Vec<String> = args[0]
        .array_shape()
        .unwrap()
        .dims()
        .iter()
        .map(i64::to_string)
        .collect();
    let mut body = String::new();
    for (i, a) in args.iter().enumerate() {
        body.push_str(&format!("p{i} = {} parameter({i})\n", a.shape()));
    }
    let names: Vec<String> = (0..args.len()).map(|i| format!("p{i}")).collect();
    body.push_str(&format!(
        "r = {ty}[{}] {op}({}){attrs}",
        dims.join(","),
        names.join(", ")
    ));
    run(&body, args)
}

/// A rank-1 literal.
pub fn v<T: NativeType>(values: &[T]) -> Literal {
    Literal::vector(values)
}
