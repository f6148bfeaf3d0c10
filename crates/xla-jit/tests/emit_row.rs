#![allow(clippy::needless_range_loop)] // element-by-element comparisons

//! Row kernels (reduce–broadcast–consume) against sequential references.

use crate::emit_harness;

use emit_harness::*;
use xla_core::Literal;
use xla_jit::fusion::FusionKind;

#[test]
fn layernorm_is_one_row_kernel() {
    for (rows, cols) in [(37usize, 100usize), (5, 1024), (3, 7)] {
        let text = suite_module("layernorm")
            .replace("4096", &rows.to_string())
            .replace("1024", &cols.to_string());
        let c = compile(&text);
        assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
        assert_eq!(c.plan.fusions[0].kind, FusionKind::Row);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 31) % 97) as f32 * 0.25 - 10.0)
            .collect();
        let scale: Vec<f32> = (0..cols).map(|i| 1.0 + i as f32 * 0.01).collect();
        let bias: Vec<f32> = (0..cols).map(|i| i as f32 * -0.5).collect();
        let out = run(
            &c,
            &[
                &Literal::from_vec(&[rows as i64, cols as i64], x.clone()).unwrap(),
                &Literal::vector(&scale),
                &Literal::vector(&bias),
            ],
        );
        let got = out.to_vec::<f32>().unwrap();
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let mean = row.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
            let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
            let inv = 1.0 / (var + 1e-5).sqrt();
            for j in 0..cols {
                let want = ((row[j] as f64 - mean) * inv * scale[j] as f64 + bias[j] as f64) as f32;
                let g = got[r * cols + j];
                assert!(
                    (g - want).abs() <= 1e-4 * want.abs().max(1.0),
                    "({r},{j}) {g} vs {want}"
                );
            }
        }
    }
}

#[test]
fn row_minus_its_max_is_exact() {
    let text = "HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[6,19]{1,0} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[6]{0} reduce(x, lo), dimensions={1}, to_apply=mx
  mb = f32[6,19]{1,0} broadcast(m), dimensions={0}
  ROOT d = f32[6,19]{1,0} subtract(x, mb)
}";
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1);
    assert_eq!(c.plan.fusions[0].kind, FusionKind::Row);
    let x: Vec<f32> = (0..6 * 19).map(|i| ((i * 13) % 29) as f32).collect();
    let got = run(&c, &[&Literal::from_vec(&[6, 19], x.clone()).unwrap()])
        .to_vec::<f32>()
        .unwrap();
    for r in 0..6 {
        let m = x[r * 19..(r + 1) * 19]
            .iter()
            .cloned()
            .fold(f32::NEG_INFINITY, f32::max);
        for j in 0..19 {
            assert_eq!(got[r * 19 + j], x[r * 19 + j] - m);
        }
    }
}

#[test]
fn variance_is_a_row_kernel_with_a_reduce_root() {
    let text = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,3,8]{2,1,0} parameter(0)
  z = f32[] constant(0)
  s = f32[4,3]{1,0} reduce(x, z), dimensions={2}, to_apply=add
  n = f32[] constant(8)
  nb = f32[4,3]{1,0} broadcast(n), dimensions={}
  mean = f32[4,3]{1,0} divide(s, nb)
  mb = f32[4,3,8]{2,1,0} broadcast(mean), dimensions={0,1}
  d = f32[4,3,8]{2,1,0} subtract(x, mb)
  sq = f32[4,3,8]{2,1,0} multiply(d, d)
  ROOT v = f32[4,3]{1,0} reduce(sq, z), dimensions={2}, to_apply=add
}";
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
    assert_eq!(c.plan.fusions[0].kind, FusionKind::Row);
    let x: Vec<f32> = (0..96).map(|i| ((i * 5) % 16) as f32).collect();
    let out = run(&c, &[&Literal::from_vec(&[4, 3, 8], x.clone()).unwrap()]);
    let got = out.to_vec::<f32>().unwrap();
    for r in 0..12 {
        let row = &x[r * 8..r * 8 + 8];
        let mean = row.iter().sum::<f32>() / 8.0;
        let var: f32 = row.iter().map(|v| (v - mean) * (v - mean)).sum();
        assert_eq!(got[r], var, "row {r}");
    }
}

#[test]
fn expensive_values_are_kept_for_the_row() {
    // y = x / 4 is computed by the sum pass and needed by the output: it is
    // kept in a stack buffer (the CLIF divides once per element).
    let text = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,70]{1,0} parameter(0)
  c = f32[] constant(4)
  cb = f32[5,70]{1,0} broadcast(c), dimensions={}
  y = f32[5,70]{1,0} divide(x, cb)
  z = f32[] constant(0)
  s = f32[5]{0} reduce(y, z), dimensions={1}, to_apply=add
  sb = f32[5,70]{1,0} broadcast(s), dimensions={0}
  ROOT o = f32[5,70]{1,0} divide(y, sb)
}";
    let x: Vec<f32> = (0..350).map(|i| ((i * 13) % 17) as f32 + 1.0).collect();
    let x = Literal::from_vec(&[5, 70], x).unwrap();
    assert_eq!(check(text, &[&x]), Checked::Same);
    let c = compile_cranelift(text);
    assert_eq!(c.plan.fusions.len(), 1);
    let clif = &c.jit.clif()[0].1;
    // One vector division for y per unrolled copy and the vector tail in
    // the pass, and the same for o in the output pass: no recomputation
    // of y in the output pass.
    let divides = clif.matches("fdiv").count();
    assert_eq!(divides, 2 * (4 + 1 + 1), "{clif}");
}

/// The `mx` (maximum) and `add` reducers of the row programs below.
macro_rules! reducers {
    () => {
        "mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"
    };
}

/// The names of the compiled kernels.
fn kernel_names(c: &Compiled) -> Vec<String> {
    c.jit.clif().iter().map(|(name, _)| name.clone()).collect()
}

/// Asserts that every kernel of `c` is a pipelined row kernel, or that
/// none is.
fn assert_pipelined(c: &Compiled, pipelined: bool) {
    let names = kernel_names(c);
    assert!(
        names
            .iter()
            .all(|n| n.contains("pipelined_rows") == pipelined),
        "{names:?}"
    );
}

/// Deterministic values in about [−6, 6] with NaN, ±inf and ±0 at
/// `edges` of the positions (every `edges`-th element, when nonzero).
fn values(n: usize, edges: usize) -> Vec<f32> {
    let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 88.0];
    (0..n)
        .map(|i| {
            if edges > 0 && i % edges == edges - 1 {
                special[(i / edges) % special.len()]
            } else {
                ((i * 7919) % 1201) as f32 / 100.0 - 6.0
            }
        })
        .collect()
}

const SOFTMAX: &str = concat!(
    "HloModule m\n",
    reducers!(),
    "ENTRY e {
  x = f32[ROWS,COLS]{1,0} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[ROWS]{0} reduce(x, lo), dimensions={1}, to_apply=mx
  mb = f32[ROWS,COLS]{1,0} broadcast(m), dimensions={0}
  d = f32[ROWS,COLS]{1,0} subtract(x, mb)
  ex = f32[ROWS,COLS]{1,0} exponential(d)
  z = f32[] constant(0)
  s = f32[ROWS]{0} reduce(ex, z), dimensions={1}, to_apply=add
  sb = f32[ROWS,COLS]{1,0} broadcast(s), dimensions={0}
  ROOT o = f32[ROWS,COLS]{1,0} divide(ex, sb)
}"
);

// Softmax's outputs differ from the interpreter's by a few ulp: exp's
// rounding and the order of the sums (vector accumulators) differ; a wrong
// row's max or sum would differ by far more.

#[test]
fn softmax_rows_are_pipelined_and_match_the_interpreter() {
    // Rows of whole steps, a vector tail, a scalar tail; row counts that
    // split unevenly between the harness's two calls; edge values.
    for (rows, cols, edges) in [
        (40, 64, 0),
        (33, 100, 0),
        (50, 1024, 0),
        (25, 17, 0),
        (41, 64, 13),
    ] {
        let text = SOFTMAX
            .replace("ROWS", &rows.to_string())
            .replace("COLS", &cols.to_string());
        let c = compile_cranelift(&text);
        assert_pipelined(&c, true);
        let x = Literal::from_vec(&[rows as i64, cols as i64], values(rows * cols, edges)).unwrap();
        assert_eq!(
            check_within_ulps(&text, &[&x], 32),
            Checked::Same,
            "{rows}x{cols}"
        );
    }
}

#[test]
fn short_or_few_rows_are_not_pipelined() {
    for (rows, cols) in [(3, 1024), (40, 8)] {
        let text = SOFTMAX
            .replace("ROWS", &rows.to_string())
            .replace("COLS", &cols.to_string());
        let c = compile_cranelift(&text);
        assert_pipelined(&c, false);
        let x = Literal::from_vec(&[rows as i64, cols as i64], values(rows * cols, 0)).unwrap();
        assert_eq!(check_within_ulps(&text, &[&x], 32), Checked::Same);
    }
}

#[test]
fn pipelined_rows_with_a_row_invariant_three_passes_and_kept_values() {
    // log-softmax: `log(sum)` is a row invariant of the output stage.
    let log_softmax = concat!(
        "HloModule m\n",
        reducers!(),
        "ENTRY e {
  x = f32[3,9,96]{2,1,0} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[3,9]{1,0} reduce(x, lo), dimensions={2}, to_apply=mx
  mb = f32[3,9,96]{2,1,0} broadcast(m), dimensions={0,1}
  d = f32[3,9,96]{2,1,0} subtract(x, mb)
  ex = f32[3,9,96]{2,1,0} exponential(d)
  z = f32[] constant(0)
  s = f32[3,9]{1,0} reduce(ex, z), dimensions={2}, to_apply=add
  l = f32[3,9]{1,0} log(s)
  lb = f32[3,9,96]{2,1,0} broadcast(l), dimensions={0,1}
  ROOT o = f32[3,9,96]{2,1,0} subtract(d, lb)
}"
    );
    // Three passes: `ex` is kept from the second pass for the third and
    // the output, in a ring of four row buffers.
    let three = concat!(
        "HloModule m\n",
        reducers!(),
        "ENTRY e {
  x = f32[45,80]{1,0} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[45]{0} reduce(x, lo), dimensions={1}, to_apply=mx
  mb = f32[45,80]{1,0} broadcast(m), dimensions={0}
  d = f32[45,80]{1,0} subtract(x, mb)
  ex = f32[45,80]{1,0} exponential(d)
  z = f32[] constant(0)
  s = f32[45]{0} reduce(ex, z), dimensions={1}, to_apply=add
  sb = f32[45,80]{1,0} broadcast(s), dimensions={0}
  p = f32[45,80]{1,0} divide(ex, sb)
  pp = f32[45,80]{1,0} multiply(p, p)
  q = f32[45]{0} reduce(pp, z), dimensions={1}, to_apply=add
  qb = f32[45,80]{1,0} broadcast(q), dimensions={0}
  ROOT o = f32[45,80]{1,0} divide(p, qb)
}"
    );
    for (text, dims) in [(log_softmax, vec![3i64, 9, 96]), (three, vec![45, 80])] {
        let c = compile_cranelift(text);
        assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
        assert_pipelined(&c, true);
        let n = dims.iter().product::<i64>() as usize;
        let x = Literal::from_vec(&dims, values(n, 0)).unwrap();
        assert_eq!(check_within_ulps(text, &[&x], 32), Checked::Same);
    }
}

#[test]
fn pipelined_rows_in_column_major_layout() {
    // Rows along dimension 1, columns along dimension 0, which is minor.
    let text = concat!(
        "HloModule m\n",
        reducers!(),
        "ENTRY e {
  x = f32[72,30]{0,1} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[30]{0} reduce(x, lo), dimensions={0}, to_apply=mx
  mb = f32[72,30]{0,1} broadcast(m), dimensions={1}
  d = f32[72,30]{0,1} subtract(x, mb)
  ex = f32[72,30]{0,1} exponential(d)
  z = f32[] constant(0)
  s = f32[30]{0} reduce(ex, z), dimensions={0}, to_apply=add
  sb = f32[72,30]{0,1} broadcast(s), dimensions={1}
  ROOT o = f32[72,30]{0,1} divide(ex, sb)
}"
    );
    let c = compile_cranelift(text);
    assert_pipelined(&c, true);
    let x = Literal::from_vec(&[72, 30], values(72 * 30, 11))
        .unwrap()
        .relayout(&xla_core::Layout::new(vec![0, 1]))
        .unwrap();
    assert_eq!(check_within_ulps(text, &[&x], 32), Checked::Same);
}

/// A random row program over `f32[rows, cols]` (reduced along the minor
/// dimension of `layout`): one to three passes, each reducing the previous
/// value and combining it with the broadcast result through vector math.
fn random_row_program(seed: u64) -> (String, Vec<i64>, Vec<i64>) {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut below = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let (rows, cols) = (24 + below(60) as i64, 16 + below(150) as i64);
    let column_major = below(3) == 0;
    let (dims, layout, reduced, kept) = if column_major {
        (vec![cols, rows], "{0,1}", 0, 1)
    } else {
        (vec![rows, cols], "{1,0}", 1, 0)
    };
    let full = format!("f32[{},{}]{layout}", dims[0], dims[1]);
    let row = format!("f32[{rows}]{{0}}");
    // (reducer, init, expression of the previous value and the broadcast).
    let steps = [
        ("mx", "-inf", "exponential(subtract(PREV, B))"),
        ("mx", "-inf", "tanh(subtract(PREV, B))"),
        ("add", "0", "logistic(divide(PREV, B))"),
        ("add", "0", "divide(exponential(PREV), B)"),
        ("mx", "-inf", "subtract(PREV, B)"),
    ];
    let mut body = format!("  x = {full} parameter(0)\n");
    let mut prev = "x".to_string();
    let passes = 1 + below(3);
    for k in 0..=passes {
        let (reducer, init, expr) = steps[below(steps.len() as u64) as usize];
        let (reducer, init, expr) = if k == 0 {
            ("mx", "-inf", steps[0].2)
        } else {
            (reducer, init, expr)
        };
        body += &format!(
            "  i{k} = f32[] constant({init})\n  r{k} = {row} reduce({prev}, i{k}), dimensions={{{reduced}}}, to_apply={reducer}\n  b{k} = {full} broadcast(r{k}), dimensions={{{kept}}}\n"
        );
        // Nested ops as separate instructions: `op(inner, b)` inside out.
        let mut text = expr.replace("PREV", &prev).replace('B', &format!("b{k}"));
        let mut n = 0;
        while let Some(open) = text.rfind('(') {
            let start = text[..open].rfind(['(', ' ']).map_or(0, |p| p + 1);
            let close = open + text[open..].find(')').expect("balanced");
            let name = format!("v{k}_{n}");
            n += 1;
            body += &format!("  {name} = {full} {}\n", &text[start..=close]);
            text.replace_range(start..=close, &name);
        }
        prev = text;
    }
    body = body.replace(&format!("  {prev} = "), &format!("  ROOT {prev} = "));
    let text = format!("HloModule m\n{}ENTRY e {{\n{body}}}", reducers!());
    let minor_to_major = if column_major { vec![0, 1] } else { vec![1, 0] };
    (text, dims, minor_to_major)
}

#[test]
fn random_row_programs_match_the_interpreter() {
    let mut pipelined = 0;
    for seed in 0..60 {
        let (text, dims, minor_to_major) = random_row_program(seed);
        let n = (dims[0] * dims[1]) as usize;
        let x = Literal::from_vec(&dims, values(n, 0))
            .unwrap()
            .relayout(&xla_core::Layout::new(minor_to_major))
            .unwrap();
        // Cranelift's kernels, then the native ones of every width the CPU
        // runs.
        for native in every_backend() {
            let c = compile_with(&text, native);
            if native.is_none() {
                pipelined += kernel_names(&c)
                    .iter()
                    .filter(|n| n.contains("pipelined_rows"))
                    .count();
            }
            let want = interpret(&c, &[&x]).expect("the interpreter runs row programs");
            let got = run(&c, &[&x]);
            let default = xla_core::Layout::default_for_rank(2);
            let (got, want) = (
                got.relayout(&default).unwrap().to_vec::<f32>().unwrap(),
                want.relayout(&default).unwrap().to_vec::<f32>().unwrap(),
            );
            assert_eq!(got.len(), want.len(), "seed {seed}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let close = (g.is_nan() && w.is_nan())
                    || g == w
                    || (g - w).abs() <= 1e-4 * w.abs().max(1e-3);
                assert!(
                    close,
                    "seed {seed}, {native:?}: element {i} is {g}, the interpreter says {w}\n{text}"
                );
            }
        }
    }
    assert!(pipelined >= 30, "only {pipelined} of 60 programs pipelined");
}

/// The pipelined max pass is exact on rows whose maximum is a zero or a
/// subnormal or that hold a NaN. The output is a softmax divided by the
/// row's maximum, so a wrong sign of zero shows as an infinity of the
/// wrong sign and a lost NaN as a number.
#[test]
fn pipelined_row_maxima_are_exact_on_zeros_subnormals_and_nans() {
    let text = |rows: usize, cols: usize| {
        format!(
            "HloModule m\n{}ENTRY e {{
  x = f32[{rows},{cols}]{{1,0}} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[{rows}]{{0}} reduce(x, lo), dimensions={{1}}, to_apply=mx
  mb = f32[{rows},{cols}]{{1,0}} broadcast(m), dimensions={{0}}
  d = f32[{rows},{cols}]{{1,0}} subtract(x, mb)
  ex = f32[{rows},{cols}]{{1,0}} exponential(d)
  z = f32[] constant(0)
  s = f32[{rows}]{{0}} reduce(ex, z), dimensions={{1}}, to_apply=add
  sb = f32[{rows},{cols}]{{1,0}} broadcast(s), dimensions={{0}}
  p = f32[{rows},{cols}]{{1,0}} divide(ex, sb)
  ROOT o = f32[{rows},{cols}]{{1,0}} divide(p, mb)
}}",
            reducers!()
        )
    };
    // Row kinds, by row number modulo 7.
    let value = |row: usize, col: usize| -> f32 {
        match row % 7 {
            0 => ((row * 31 + col * 7) % 50) as f32 / 10.0 - 2.5,
            1 => -0.0,
            2 if col == (row * 5) % 64 => 0.0,
            2 => -0.0,
            3 if col.is_multiple_of(2) => 1e-40,
            3 => -3.0,
            4 if col == 7 => f32::NAN,
            4 => col as f32,
            5 if col == 40 => -f32::NAN,
            5 => -(col as f32) - 1.0,
            _ => -1e-41,
        }
    };
    for (rows, cols) in [(42, 64), (29, 100), (30, 1024)] {
        let text = text(rows, cols);
        let c = compile_cranelift(&text);
        assert_pipelined(&c, true);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| value(i / cols, i % cols))
            .collect();
        let x = Literal::from_vec(&[rows as i64, cols as i64], x).unwrap();
        assert_eq!(
            check_within_ulps(&text, &[&x], 32),
            Checked::Same,
            "{rows}x{cols}"
        );
    }
}
