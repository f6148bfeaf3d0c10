#![allow(clippy::needless_range_loop)] // element-by-element comparisons

//! Elementwise kernels against hand-written references of `docs/semantics.md`,
//! *Element-wise operations* (with the project's flush-to-zero rule), on edge values: ±0, ±∞,
//! NaN, subnormals, extremes of each integer type, and lengths that are
//! not a multiple of the vector width.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, NativeType, PrimitiveType};

mod float;
mod integer;

/// The project rule: f32 subnormals read and write as zeros of the same
/// sign.
fn ftz(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn ftz64(x: f64) -> f64 {
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// All pairs of `values`, as two vectors.
fn pairs<T: Copy>(values: &[T]) -> (Vec<T>, Vec<T>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in values {
        for &y in values {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

fn binary_module(op: &str, ty: &str, out: &str, n: usize, attrs: &str) -> String {
    format!(
        "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  y = {ty}[{n}]{{0}} parameter(1)\n  \
         ROOT r = {out}[{n}]{{0}} {op}(x, y){attrs}\n}}"
    )
}

fn unary_module(op: &str, ty: &str, out: &str, n: usize) -> String {
    format!(
        "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  ROOT r = {out}[{n}]{{0}} {op}(x)\n}}"
    )
}

fn run_binary<T: NativeType, U: NativeType>(op: &str, attrs: &str, a: &[T], b: &[T]) -> Vec<U> {
    let text = binary_module(op, T::TYPE.name(), U::TYPE.name(), a.len(), attrs);
    let c = compile(&text);
    run(&c, &[&Literal::vector(a), &Literal::vector(b)])
        .to_vec::<U>()
        .unwrap()
}

fn run_unary<T: NativeType, U: NativeType>(op: &str, a: &[T]) -> Vec<U> {
    let c = compile(&unary_module(op, T::TYPE.name(), U::TYPE.name(), a.len()));
    run(&c, &[&Literal::vector(a)]).to_vec::<U>().unwrap()
}

fn max_rule(x: f32, y: f32) -> f32 {
    let (x, y) = (ftz(x), ftz(y));
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else if x == y {
        if x.is_sign_negative() {
            y
        } else {
            x
        }
    } else {
        x.max(y)
    }
}

fn min_rule(x: f32, y: f32) -> f32 {
    let (x, y) = (ftz(x), ftz(y));
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else if x == y {
        if x.is_sign_negative() {
            x
        } else {
            y
        }
    } else {
        x.min(y)
    }
}

#[test]
fn pred_logic_and_select_clamp() {
    let a = [false, false, true, true, true];
    let b = [false, true, false, true, true];
    let and: Vec<bool> = run_binary("and", "", &a, &b);
    let or: Vec<bool> = run_binary("or", "", &a, &b);
    let xor: Vec<bool> = run_binary("xor", "", &a, &b);
    let not: Vec<bool> = run_unary("not", &a);
    for i in 0..a.len() {
        assert_eq!(and[i], a[i] & b[i]);
        assert_eq!(or[i], a[i] | b[i]);
        assert_eq!(xor[i], a[i] ^ b[i]);
        assert_eq!(not[i], !a[i]);
    }
    let c = compile(
        "HloModule m
ENTRY e {
  p = pred[6]{0} parameter(0)
  x = f32[6]{0} parameter(1)
  y = f32[6]{0} parameter(2)
  s = f32[6]{0} select(p, x, y)
  lo = f32[] constant(0)
  hi = f32[] constant(6)
  ROOT c = f32[6]{0} clamp(lo, s, hi)
}",
    );
    let out = run(
        &c,
        &[
            &Literal::vector(&[true, false, false, true, true, false]),
            &Literal::vector(&[1.0f32, 2.0, 3.0, -4.0, 9.0, 0.0]),
            &Literal::vector(&[100.0f32, 200.0, f32::NAN, 400.0, 500.0, -0.0]),
        ],
    );
    let got = out.to_vec::<f32>().unwrap();
    let want = [1.0, 6.0, f32::NAN, 0.0, 6.0, 0.0];
    for i in 0..6 {
        assert!(same_f32(got[i], want[i]), "{i}: {} vs {}", got[i], want[i]);
    }
    // Clamp(5, [0,3,9], 2) = [2,2,2] (min > max gives max).
    let c = compile(
        "HloModule m
ENTRY e {
  x = s32[3]{0} parameter(0)
  lo = s32[] constant(5)
  hi = s32[] constant(2)
  ROOT c = s32[3]{0} clamp(lo, x, hi)
}",
    );
    let out = run(&c, &[&Literal::vector(&[0i32, 3, 9])]);
    assert_eq!(out.to_vec::<i32>().unwrap(), [2, 2, 2]);
}
