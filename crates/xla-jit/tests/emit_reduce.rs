#![allow(clippy::needless_range_loop)] // element-by-element comparisons

//! Reduction kernels (row, column, full; recognized and generic reducers;
//! variadic argmax) against sequential references. Data are small integers
//! in floats, so every summation order gives the exact same result.

use crate::emit_harness;

use emit_harness::*;
use xla_core::Literal;

const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";
const MAX: &str =
    "mx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\n";

fn data(rows: usize, cols: usize) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| ((i * 7919) % 23) as f32 - 11.0)
        .collect()
}

fn reduce_module(
    shape: &str,
    out: &str,
    dims: &str,
    init: &str,
    reducer: &str,
    name: &str,
) -> String {
    format!(
        "HloModule m\n{reducer}ENTRY e {{\n  x = {shape} parameter(0)\n  z = f32[] constant({init})\n  \
         ROOT r = {out} reduce(x, z), dimensions={{{dims}}}, to_apply={name}\n}}"
    )
}

#[test]
fn row_column_and_full_sums() {
    for &(rows, cols) in &[
        (7usize, 13usize),
        (33, 1000),
        (4, 4),
        (1, 70000),
        (3, 1),
        (300, 50),
        (1000, 3),
    ] {
        let x = data(rows, cols);
        let lit = Literal::from_vec(&[rows as i64, cols as i64], x.clone()).unwrap();
        let shape = format!("f32[{rows},{cols}]{{1,0}}");
        // Row sums, with a non-identity init counted once per output.
        let c = compile(&reduce_module(
            &shape,
            &format!("f32[{rows}]{{0}}"),
            "1",
            "5",
            ADD,
            "add",
        ));
        let got = run(&c, &[&lit]).to_vec::<f32>().unwrap();
        for r in 0..rows {
            let want: f32 = 5.0 + x[r * cols..(r + 1) * cols].iter().sum::<f32>();
            assert_eq!(got[r], want, "row {r} of {rows}x{cols}\n{}", plan_text(&c));
        }
        // Column sums.
        let c = compile(&reduce_module(
            &shape,
            &format!("f32[{cols}]{{0}}"),
            "0",
            "5",
            ADD,
            "add",
        ));
        let got = run(&c, &[&lit]).to_vec::<f32>().unwrap();
        for col in 0..cols {
            let want: f32 = 5.0 + (0..rows).map(|r| x[r * cols + col]).sum::<f32>();
            assert_eq!(got[col], want, "column {col} of {rows}x{cols}");
        }
        // Everything.
        let c = compile(&reduce_module(&shape, "f32[]", "0,1", "5", ADD, "add"));
        let got = run(&c, &[&lit]).to_vec::<f32>().unwrap();
        assert_eq!(got[0], 5.0 + x.iter().sum::<f32>(), "{rows}x{cols}");
        let c = compile(&reduce_module(&shape, "f32[]", "0,1", "-inf", MAX, "mx"));
        let got = run(&c, &[&lit]).to_vec::<f32>().unwrap();
        assert_eq!(got[0], x.iter().cloned().fold(f32::NEG_INFINITY, f32::max));
    }
}

#[test]
fn column_major_operands_and_three_dimensions() {
    let (a, b, c) = (5usize, 6usize, 7usize);
    let x: Vec<f32> = (0..a * b * c).map(|i| (i % 17) as f32).collect();
    let lit = Literal::from_vec(&[a as i64, b as i64, c as i64], x.clone()).unwrap();
    let at = |i: usize, j: usize, k: usize| x[(i * b + j) * c + k];
    for layout in ["{2,1,0}", "{0,1,2}", "{1,2,0}"] {
        let module = reduce_module(
            &format!("f32[{a},{b},{c}]{layout}"),
            &format!("f32[{b}]{{0}}"),
            "0,2",
            "0",
            ADD,
            "add",
        );
        let comp = compile(&module);
        let got = run(&comp, &[&lit]).to_vec::<f32>().unwrap();
        for j in 0..b {
            let want: f32 = (0..a)
                .flat_map(|i| (0..c).map(move |k| (i, k)))
                .map(|(i, k)| at(i, j, k))
                .sum();
            assert_eq!(got[j], want, "{layout} {j}");
        }
        let module = reduce_module(
            &format!("f32[{a},{b},{c}]{layout}"),
            &format!("f32[{a},{c}]{{0,1}}"),
            "1",
            "0",
            ADD,
            "add",
        );
        let comp = compile(&module);
        let out = run(&comp, &[&lit]);
        for i in 0..a {
            for k in 0..c {
                let want: f32 = (0..b).map(|j| at(i, j, k)).sum();
                assert_eq!(
                    out.get::<f32>(&[i as i64, k as i64]).unwrap(),
                    want,
                    "{layout}"
                );
            }
        }
    }
}

#[test]
fn generic_reducers_fold_in_order() {
    // max written so that it is not recognized: folded one element at a time.
    let reducer =
        "mx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  nb = f32[] negate(b)\n  \
                   b2 = f32[] negate(nb)\n  ROOT s = f32[] maximum(a, b2)\n}\n";
    let x = data(9, 31);
    let lit = Literal::from_vec(&[9, 31], x.clone()).unwrap();
    for (dims, out) in [("1", "f32[9]{0}"), ("0", "f32[31]{0}"), ("0,1", "f32[]")] {
        let c = compile(&reduce_module(
            "f32[9,31]{1,0}",
            out,
            dims,
            "-100",
            reducer,
            "mx",
        ));
        let got = run(&c, &[&lit]).to_vec::<f32>().unwrap();
        let want: Vec<f32> = match dims {
            "1" => (0..9)
                .map(|r| {
                    x[r * 31..(r + 1) * 31]
                        .iter()
                        .cloned()
                        .fold(-100.0, f32::max)
                })
                .collect(),
            "0" => (0..31)
                .map(|c| (0..9).map(|r| x[r * 31 + c]).fold(-100.0, f32::max))
                .collect(),
            _ => vec![x.iter().cloned().fold(-100.0, f32::max)],
        };
        assert_eq!(got, want, "{dims}");
    }
}

#[test]
fn argmax_is_a_variadic_reduce() {
    let text = "HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[ROWS,COLS]{1,0} parameter(0)
  iota = s32[ROWS,COLS]{1,0} iota(), iota_dimension=DIM
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[OUT]{0}, s32[OUT]{0}) reduce(x, iota, lo, zero), dimensions={DIM}, to_apply=argmax
}";
    // Few long rows (8 of 40000) reduce one row an iteration, so that the
    // pool's threads share them (not one iteration of up to 64 rows).
    for (rows, cols, dim, out) in [
        (6usize, 10usize, 1usize, 6usize),
        (6, 10, 0, 10),
        (200, 10, 0, 10),
        (8, 40000, 1, 8),
    ] {
        let x: Vec<f32> = (0..rows * cols).map(|i| ((i * 37) % 11) as f32).collect();
        let lit = Literal::from_vec(&[rows as i64, cols as i64], x.clone()).unwrap();
        let c = compile(
            &text
                .replace("DIM", &dim.to_string())
                .replace("OUT", &out.to_string())
                .replace("ROWS", &rows.to_string())
                .replace("COLS", &cols.to_string()),
        );
        if cols == 40000 {
            assert_eq!(c.kernels[0].iterations, 8);
        }
        let result = run(&c, &[&lit]);
        let parts = result.tuple_elements().unwrap();
        let vals = parts[0].to_vec::<f32>().unwrap();
        let idxs = parts[1].to_vec::<i32>().unwrap();
        for o in 0..out {
            let elems: Vec<f32> = if dim == 1 {
                x[o * cols..(o + 1) * cols].to_vec()
            } else {
                (0..rows).map(|r| x[r * cols + o]).collect()
            };
            let best = elems.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            let first = elems.iter().position(|&v| v == best).unwrap() as i32;
            assert_eq!((vals[o], idxs[o]), (best, first), "dim {dim} output {o}");
        }
    }
}

#[test]
fn integer_and_pred_reductions() {
    let text = "HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[1000]{0} parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[] reduce(x, z), dimensions={0}, to_apply=add
}";
    let x: Vec<i32> = (0..1000).map(|i| i32::MAX - i * 3).collect();
    let c = compile(text);
    let got = run(&c, &[&Literal::vector(&x)]).to_vec::<i32>().unwrap();
    assert_eq!(got[0], x.iter().fold(0i32, |a, &b| a.wrapping_add(b)));
    let text = "HloModule m
all {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT s = pred[] and(a, b)
}
ENTRY e {
  x = pred[3,37]{1,0} parameter(0)
  t = pred[] constant(true)
  ROOT r = pred[3]{0} reduce(x, t), dimensions={1}, to_apply=all
}";
    let mut x = vec![true; 3 * 37];
    x[37 + 36] = false;
    x[2 * 37] = false;
    let c = compile(text);
    let got = run(&c, &[&Literal::from_vec(&[3, 37], x).unwrap()])
        .to_vec::<bool>()
        .unwrap();
    assert_eq!(got, [true, false, false]);
    let text = "HloModule m
mx {
  a = u8[] parameter(0)
  b = u8[] parameter(1)
  ROOT s = u8[] maximum(a, b)
}
ENTRY e {
  x = u8[100]{0} parameter(0)
  z = u8[] constant(3)
  ROOT r = u8[] reduce(x, z), dimensions={0}, to_apply=mx
}";
    let x: Vec<u8> = (0..100).map(|i| (i * 2) as u8).collect();
    let c = compile(text);
    let got = run(&c, &[&Literal::vector(&x)]).to_vec::<u8>().unwrap();
    assert_eq!(got[0], 198);
}

#[test]
fn empty_reductions_give_the_init_value() {
    let c = compile(&reduce_module(
        "f32[4,0]{1,0}",
        "f32[4]{0}",
        "1",
        "2.5",
        ADD,
        "add",
    ));
    let got = run(&c, &[&Literal::from_vec::<f32>(&[4, 0], vec![]).unwrap()])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(got, [2.5; 4]);
    let c = compile(&reduce_module("f32[0]{0}", "f32[]", "0", "2.5", ADD, "add"));
    let got = run(&c, &[&Literal::from_vec::<f32>(&[0], vec![]).unwrap()])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(got, [2.5]);
}

#[test]
fn fused_producers_and_nan_in_max() {
    let text = "HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[3,9]{1,0} parameter(0)
  n = f32[3,9]{1,0} negate(x)
  lo = f32[] constant(-inf)
  ROOT r = f32[3]{0} reduce(n, lo), dimensions={1}, to_apply=mx
}";
    let mut x: Vec<f32> = (0..27).map(|i| i as f32).collect();
    x[13] = f32::NAN;
    x[20] = -1e-40;
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1);
    let got = run(&c, &[&Literal::from_vec(&[3, 9], x).unwrap()])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(got[0], -0.0);
    assert!(got[1].is_nan());
    // Row 2 holds -18..-26 and a flushed +1e-40: the maximum is +0.
    assert_eq!(got[2].to_bits(), 0.0f32.to_bits());
}

#[test]
fn float_extrema_signed_zeros_nan_and_subnormals() {
    let text = |op: &str, init: &str| {
        format!(
            "HloModule m\nr {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] {op}(a, b)\n}}\n\
             ENTRY e {{\n  x = f32[40]{{0}} parameter(0)\n  z = f32[] constant({init})\n  \
             ROOT o = f32[] reduce(x, z), dimensions={{0}}, to_apply=r\n}}"
        )
    };
    let max = compile(&text("maximum", "-inf"));
    let min = compile(&text("minimum", "inf"));
    let run1 = |c: &Compiled, x: &[f32]| run(c, &[&Literal::vector(x)]).to_vec::<f32>().unwrap()[0];
    // Signed zeros: max is +0 and min is -0 whatever the order.
    let mut x = vec![-0.0f32; 40];
    x[17] = 0.0;
    assert_eq!(run1(&max, &x).to_bits(), 0.0f32.to_bits());
    assert_eq!(run1(&min, &x).to_bits(), (-0.0f32).to_bits());
    let x = vec![-0.0f32; 40];
    assert_eq!(run1(&max, &x).to_bits(), (-0.0f32).to_bits());
    // Subnormals count as zeros of their sign.
    let mut x = vec![-5.0f32; 40];
    x[3] = 1e-40;
    assert_eq!(run1(&max, &x).to_bits(), 0.0f32.to_bits());
    let mut x = vec![5.0f32; 40];
    x[38] = -1e-40;
    assert_eq!(run1(&min, &x).to_bits(), (-0.0f32).to_bits());
    // NaN anywhere (vector part or tail) wins; negative NaN too.
    for at in [0usize, 21, 39] {
        let mut x: Vec<f32> = (0..40).map(|i| i as f32).collect();
        x[at] = -f32::NAN;
        assert!(run1(&max, &x).is_nan(), "{at}");
        assert!(run1(&min, &x).is_nan(), "{at}");
    }
    let x: Vec<f32> = (0..40).map(|i| (i as f32 - 20.0) * 1.5).collect();
    assert_eq!(run1(&max, &x), 28.5);
    assert_eq!(run1(&min, &x), -30.0);
    assert_eq!(run1(&max, &[f32::NEG_INFINITY; 40]), f32::NEG_INFINITY);
    assert_eq!(run1(&min, &[f32::INFINITY; 40]), f32::INFINITY);
    // All negative, all positive: the vector part accumulates the bits
    // under signed and unsigned orders, which must hand over correctly.
    let negative: Vec<f32> = (0..40).map(|i| -3.0 - i as f32 * 0.75).collect();
    assert_eq!(run1(&max, &negative), -3.0);
    assert_eq!(run1(&min, &negative), -32.25);
    let positive: Vec<f32> = (0..40).map(|i| 3.0 + i as f32 * 0.75).collect();
    assert_eq!(run1(&max, &positive), 32.25);
    assert_eq!(run1(&min, &positive), 3.0);
    let mut x = positive.clone();
    x[9] = f32::NEG_INFINITY;
    x[30] = f32::INFINITY;
    assert_eq!(run1(&max, &x), f32::INFINITY);
    assert_eq!(run1(&min, &x), f32::NEG_INFINITY);
    // A NaN of either sign among values of either sign.
    for values in [&negative, &positive] {
        for nan in [f32::NAN, -f32::NAN] {
            let mut x = values.clone();
            x[5] = nan;
            assert!(run1(&max, &x).is_nan(), "max {nan:?} in {x:?}");
            assert!(run1(&min, &x).is_nan(), "min {nan:?} in {x:?}");
        }
    }
}

#[test]
fn every_type_and_reducer_against_the_interpreter() {
    use xla_core::PrimitiveType as P;
    let types = [
        P::S8,
        P::S32,
        P::U64,
        P::F16,
        P::Bf16,
        P::F32,
        P::F64,
        P::Pred,
    ];
    let mut checked = 0;
    for ty in types {
        let t = ty.name();
        let ops: &[&str] = match ty {
            P::Pred => &["and", "or", "maximum"],
            _ if ty.is_floating() => &["add", "maximum", "minimum"],
            _ => &["add", "multiply", "maximum", "minimum", "xor"],
        };
        for op in ops {
            for (dims, out) in [("1", "[9]{0}"), ("0", "[37]{0}"), ("0,1", "[]")] {
                let init = if ty == P::Pred { "true" } else { "1" };
                let text = format!(
                    "HloModule m\nr {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  ROOT s = {t}[] {op}(a, b)\n}}\n\
                     ENTRY e {{\n  x = {t}[9,37]{{1,0}} parameter(0)\n  z = {t}[] constant({init})\n  \
                     ROOT o = {t}{out} reduce(x, z), dimensions={{{dims}}}, to_apply=r\n}}"
                );
                let x: Vec<f64> = (0..9 * 37).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
                let x = Literal::from_vec(&[9, 37], x).unwrap().convert(ty).unwrap();
                assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3 * (5 * 3 + 4 * 3 + 3));
}

/// The kernels skip combining with an init value that is the reducer's
/// identity bit for bit (`-inf` for a maximum, `-0` for a sum) and combine
/// with any other: a sum of `-0`s from `+0` is `+0`, from `-0` it stays
/// `-0`; a maximum of `-inf`s from a finite init is that init. Row, full
/// and softmax-like (pipelined row) reductions, against the interpreter.
#[test]
fn init_values_that_are_and_are_not_the_identity() {
    let (rows, cols) = (6usize, 37usize);
    let mut x = vec![-0.0f32; rows * cols];
    for c in 0..cols {
        x[cols + c] = f32::NEG_INFINITY;
        x[2 * cols + c] = if c == 11 { f32::NAN } else { -1.5 };
        x[3 * cols + c] = if c % 2 == 0 { 0.0 } else { -0.0 };
    }
    x[4 * cols + 36] = 7.0;
    let lit = Literal::from_vec(&[rows as i64, cols as i64], x).unwrap();
    let shape = format!("f32[{rows},{cols}]{{1,0}}");
    let row = format!("f32[{rows}]{{0}}");
    for (reducer, name, inits) in [
        (ADD, "add", ["0", "-0", "2.5"]),
        (MAX, "mx", ["-inf", "-1e30", "0"]),
    ] {
        for init in inits {
            for (dims, out) in [("1", row.as_str()), ("0,1", "f32[]")] {
                let text = reduce_module(&shape, out, dims, init, reducer, name);
                assert_eq!(check(&text, &[&lit]), Checked::Same, "{text}");
            }
            let softmax_like = format!(
                "HloModule m\n{reducer}ENTRY e {{\n  x = {shape} parameter(0)\n  \
                 z = f32[] constant({init})\n  r = {row} reduce(x, z), dimensions={{1}}, \
                 to_apply={name}\n  b = {shape} broadcast(r), dimensions={{0}}\n  \
                 e = {shape} exponential(x)\n  ROOT d = {shape} subtract(e, b)\n}}"
            );
            assert_eq!(
                check(&softmax_like, &[&lit]),
                Checked::Same,
                "{softmax_like}"
            );
        }
    }
}

/// Test data: element `i`'s value.
type Pattern = fn(usize) -> f64;

/// Float maxima and minima accumulate `maxps`/`minps`, a NaN mask and the
/// and (or) of the bits, which settles zeros and subnormals: chunks and
/// rows where each of them decides the result, next to ones where it does
/// not, for every float type, against the interpreter bit for bit.
#[test]
fn float_extrema_of_every_kind_of_chunk_and_row() {
    use xla_core::PrimitiveType as P;
    // 70001: four whole chunks of the full reduction and a short one;
    // 65536: whole chunks only; [5,5003]: rows.
    let shapes: [(&[i64], &str, &str); 3] = [
        (&[70001], "[70001]{0}", "0"),
        (&[65536], "[65536]{0}", "0"),
        (&[5, 5003], "[5,5003]{1,0}", "1"),
    ];
    let patterns: [(&str, Pattern); 8] = [
        ("varied", |i| ((i * 7919) % 1999) as f64 - 999.5),
        ("zeros of both signs", |i| {
            if i % 40_000 == 39_999 {
                0.0
            } else {
                -0.0
            }
        }),
        (
            "negative, then zeros",
            |i| if i < 30_000 { -2.5 } else { -0.0 },
        ),
        ("subnormals and zeros", |i| match i % 5 {
            0 => 1e-41,
            1 => -1e-41,
            2 => -0.0,
            3 => 4e-310,
            _ => -4e-310,
        }),
        ("one NaN", |i| {
            if i == 50_001 {
                f64::NAN
            } else {
                (i % 97) as f64
            }
        }),
        ("one negative NaN", |i| {
            if i == 3 {
                -f64::NAN
            } else {
                -((i % 89) as f64)
            }
        }),
        ("infinities", |i| match i % 1000 {
            7 => f64::INFINITY,
            8 => f64::NEG_INFINITY,
            _ => (i % 13) as f64 * 0.5,
        }),
        ("ones and a zero", |i| if i == 64_000 { 0.0 } else { 1.0 }),
    ];
    for ty in [P::F32, P::F64, P::F16, P::Bf16] {
        let t = ty.name();
        for (op, init) in [("maximum", "-inf"), ("minimum", "inf")] {
            for (dims, shape, reduced) in shapes {
                let out = if dims.len() == 1 { "[]" } else { "[5]{0}" };
                let text = format!(
                    "HloModule m\nr {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  \
                     ROOT s = {t}[] {op}(a, b)\n}}\n\
                     ENTRY e {{\n  x = {t}{shape} parameter(0)\n  z = {t}[] constant({init})\n  \
                     ROOT o = {t}{out} reduce(x, z), dimensions={{{reduced}}}, to_apply=r\n}}"
                );
                let n = dims.iter().product::<i64>() as usize;
                for (name, f) in patterns {
                    let x: Vec<f64> = (0..n).map(f).collect();
                    let x = Literal::from_vec(dims, x).unwrap().convert(ty).unwrap();
                    assert_eq!(check(&text, &[&x]), Checked::Same, "{name}: {text}");
                }
            }
        }
    }
}
