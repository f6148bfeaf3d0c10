//! The native kernels of flat elementwise fusions (AVX-512, or AVX2 on a
//! CPU without it) against Cranelift's kernels of the same fusions: both
//! compute the same operations, so they must agree bit for bit (any NaN
//! equals any NaN), on edge values, every tail length, chunked iteration
//! spaces started mid-array, every op the emitter takes, and random
//! programs of them. Cranelift's kernels are tested against the reference
//! interpreter elsewhere; the exact ops are checked against it here too.
//! The row kernels are checked against the interpreter. The partials of
//! full reductions are AVX-512 only: their test is skipped on CPUs
//! without AVX-512, the others on CPUs with neither.

use crate::emit_harness;
use crate::runtime_support;

use emit_harness::*;
use runtime_support::Rng;
use xla_core::Literal;
use xla_jit::wide::Width;

mod flat;
mod reductions;
mod rows;

/// The unary ops the emitter takes.
const UNARY: [&str; 15] = [
    "sine",
    "cosine",
    "tan",
    "erf",
    "log",
    "negate",
    "abs",
    "sqrt",
    "rsqrt",
    "floor",
    "ceil",
    "round-nearest-even",
    "exponential",
    "tanh",
    "logistic",
];

/// The binary ops the emitter takes.
const BINARY: [&str; 6] = [
    "add", "subtract", "multiply", "divide", "maximum", "minimum",
];

/// Every comparison direction.
const DIRECTIONS: [&str; 6] = ["EQ", "NE", "LT", "LE", "GT", "GE"];

fn has_avx512() -> bool {
    let has = xla_jit::wide::cpu_has_avx512();
    if !has {
        eprintln!("skipped: this CPU has no AVX-512");
    }
    has
}

/// The mark in the names of this CPU's widest native flat kernels
/// (`_avx512_`, or `_avx2_` without AVX-512); `None` on a CPU with
/// neither.
fn native_mark() -> Option<&'static str> {
    match xla_jit::wide::native_width() {
        Some(width) => Some(mark(width)),
        None => {
            eprintln!("skipped: this CPU has neither AVX-512 nor AVX2");
            None
        }
    }
}

/// The mark in the names of native kernels of `width`.
fn mark(width: Width) -> &'static str {
    match width {
        Width::Zmm => "_avx512_",
        Width::Ymm => "_avx2_",
    }
}

/// Kernel names of a compiled module.
fn kernels(c: &Compiled) -> Vec<String> {
    c.kernels.iter().map(|k| k.name.clone()).collect()
}

/// Compiles `text` with Cranelift's kernels and with the native ones of
/// every width the CPU runs (iterations of `chunk` elements), checks the
/// native emitter took the fusion (or not, per `native`), runs them all on
/// `args` and asserts the same results; returns the widest's.
fn both_ways(text: &str, args: &[&Literal], chunk: i64, native: bool) -> Literal {
    let narrow = compile_chunked(text, None, chunk);
    let want = run(&narrow, args);
    let widths = native_widths();
    assert!(!widths.is_empty(), "a native width");
    let mut widest = None;
    for width in widths {
        let wide = compile_chunked(text, Some(width), chunk);
        let names = kernels(&wide);
        let mark = mark(width);
        assert_eq!(
            names.iter().any(|n| n.contains(mark)),
            native,
            "kernels {names:?} of\n{text}"
        );
        assert!(kernels(&narrow).iter().all(|n| !n.contains(mark)));
        let got = run(&wide, args);
        assert_same(
            &got,
            &want,
            &format!("{width:?} vs Cranelift, chunk {chunk}:\n{text}"),
        );
        widest.get_or_insert(got);
    }
    widest.expect("a native width")
}

/// `n` f32 values: the edge values, then a spread of ordinary ones.
fn values(n: usize, salt: u32) -> Vec<f32> {
    let edges = f32_edges();
    (0..n)
        .map(|i| {
            let k = (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(salt.wrapping_mul(40503));
            if (k >> 7).is_multiple_of(3) {
                edges[(k as usize >> 9) % edges.len()]
            } else {
                ((k >> 8) % 20001) as f32 / 1000.0 - 10.0
            }
        })
        .collect()
}

fn vector(n: usize, salt: u32) -> Literal {
    Literal::from_vec(&[n as i64], values(n, salt)).unwrap()
}

/// The `mx` (maximum), `add` and `mul` reducers of the row and column
/// programs (`rows.rs`, `reductions.rs`).
const REDUCERS: &str = "mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] multiply(a, b)
}
";

/// Compiles `text`, checks the native row emitter took its fusion (or
/// not, per `native`), and compares both kinds of kernels with the
/// interpreter: the same NaNs and infinities, finite values within 1e-5
/// of the magnitude of the interpreter's (at least 1): the sums are
/// reassociated, and layernorm's `x − mean` cancels.
fn rows_both_ways(text: &str, args: &[&Literal], native: bool) {
    native_both_ways(text, args, "rows_", native);
}

/// [`rows_both_ways`] for the emitter whose kernels' names have `part`
/// after the width's mark.
fn native_both_ways(text: &str, args: &[&Literal], part: &str, native: bool) {
    let c = compile(text);
    let names = kernels(&c);
    let rows = format!("{}{part}", native_mark().expect("a native width"));
    assert_eq!(
        names.iter().any(|n| n.contains(&rows)),
        native,
        "kernels {names:?} of\n{text}"
    );
    let want = interpret(&c, args).expect("a valid module");
    let row_major = |l: &Literal| {
        let rank = l.shape().as_array().map_or(0, |a| a.rank());
        l.relayout(&xla_core::Layout::default_for_rank(rank))
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
    };
    let want = row_major(&want);
    for native in every_backend() {
        let got = row_major(&run(&compile_with(text, native), args));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let same = g.to_bits() == w.to_bits()
                || (g.is_nan() && w.is_nan())
                || (g.is_finite() && w.is_finite() && (g - w).abs() <= 1e-5 * w.abs().max(1.0));
            assert!(
                same,
                "{native:?}: element {i} is {g}, the interpreter says {w}\n{text}"
            );
        }
    }
}

/// `f32[rows, cols]` of ordinary values with a few edge values.
fn matrix(rows: usize, cols: usize, salt: u32) -> Literal {
    let v: Vec<f32> = values(rows * cols, salt)
        .into_iter()
        .map(|x| {
            if x.is_finite() && x.abs() < 1e6 {
                x
            } else {
                0.5
            }
        })
        .collect();
    Literal::from_vec(&[rows as i64, cols as i64], v).unwrap()
}
