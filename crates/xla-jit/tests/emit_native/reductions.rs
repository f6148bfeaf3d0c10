//! Full reductions' native partials and column reductions.

use super::*;

/// Full reductions of flat operands run their partials as AVX-512 code:
/// sums, products, maxima and minima (exact on signed zeros, subnormals
/// and NaNs) of 1-D and 2-D operands and of elementwise expressions, in
/// iterations of 16 and 48 elements (many partials, a partial tail) and
/// whole.
#[test]
fn full_reductions_run_native_partials() {
    if !has_avx512() {
        return;
    }
    let min = "mn {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] minimum(a, b)\n}\n";
    for n in [1usize, 15, 16, 17, 100, 1000] {
        for (reducer, init) in [("add", "0"), ("mx", "-inf"), ("mn", "inf"), ("mul", "1")] {
            let one_d = format!(
                "HloModule m\n{REDUCERS}{min}ENTRY e {{
  x = f32[{n}]{{0}} parameter(0)
  z = f32[] constant({init})
  ROOT r = f32[] reduce(x, z), dimensions={{0}}, to_apply={reducer}
}}"
            );
            let expression = format!(
                "HloModule m\n{REDUCERS}{min}ENTRY e {{
  x = f32[{n}]{{0}} parameter(0)
  y = f32[{n}]{{0}} parameter(1)
  a = f32[{n}]{{0}} abs(x)
  s = f32[{n}]{{0}} sqrt(a)
  t = f32[{n}]{{0}} multiply(s, y)
  z = f32[] constant({init})
  ROOT r = f32[] reduce(t, z), dimensions={{0}}, to_apply={reducer}
}}"
            );
            // Products and sums of many values overflow or lose all
            // digits: small magnitudes.
            let small: Vec<f32> = values(n, 5)
                .into_iter()
                .map(|v| {
                    if v.is_finite() {
                        1.0 + (v / 1e10).clamp(-0.5, 0.5)
                    } else {
                        v
                    }
                })
                .collect();
            let x = Literal::from_vec(&[n as i64], small.clone()).unwrap();
            let y = Literal::from_vec(&[n as i64], small.iter().rev().copied().collect()).unwrap();
            for chunk in [16, 48, 16384] {
                let c = compile_chunked(&one_d, Some(Width::Zmm), chunk);
                assert!(
                    kernels(&c).iter().any(|k| k.contains("_avx512_partials_")),
                    "{:?}",
                    kernels(&c)
                );
                let want = interpret(&c, &[&x]).unwrap();
                assert_within_ulps(&run(&c, &[&x]), &want, 64, &one_d);
                let c = compile_chunked(&expression, Some(Width::Zmm), chunk);
                let want = interpret(&c, &[&x, &y]).unwrap();
                assert_within_ulps(&run(&c, &[&x, &y]), &want, 64, &expression);
            }
        }
    }
    // A 2-D operand, both dimensions reduced; maxima of zeros of both
    // signs, subnormals and a NaN.
    let text = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[37,5]{{1,0}} parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[] reduce(x, z), dimensions={{0,1}}, to_apply=mx
}}"
    );
    for special in [
        vec![-0.0f32; 185],
        (0..185)
            .map(|i| if i == 100 { 0.0 } else { -0.0 })
            .collect(),
        (0..185)
            .map(|i| if i % 2 == 0 { 1e-40 } else { -1.0 })
            .collect(),
        (0..185)
            .map(|i| if i == 184 { f32::NAN } else { i as f32 })
            .collect(),
    ] {
        let x = Literal::from_vec(&[37, 5], special).unwrap();
        for chunk in [16, 16384] {
            let c = compile_chunked(&text, Some(Width::Zmm), chunk);
            let want = interpret(&c, &[&x]).unwrap();
            assert_same(&run(&c, &[&x]), &want, &text);
        }
    }
}

/// Column reductions against the interpreter: `logsumexp` over axis 0
/// (a column maximum, then the sum of `exp(x − max)`), sums with a
/// per-row weight, a per-column shift and a scalar init value, products
/// and minima; two rows up to thousands, column counts with and without a
/// two-vector step, a vector step and a masked tail, one chunk or two
/// (more than 4096 columns), one group of rows or several (partials and
/// their fold), rank 3, and a column-major operand.
#[test]
fn column_reductions_match_the_interpreter() {
    if native_mark().is_none() {
        return;
    }
    for (rows, cols) in [
        (2, 7),
        (8, 12),
        (127, 16),
        (128, 33),
        (300, 19),
        (1000, 64),
        (130, 5000),
        (2000, 40),
    ] {
        let s = format!("f32[{rows},{cols}]{{1,0}}");
        let c = format!("f32[{cols}]{{0}}");
        let x = matrix(rows, cols, (rows + cols) as u32);
        let logsumexp = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  lo = f32[] constant(-inf)
  m = {c} reduce(x, lo), dimensions={{0}}, to_apply=mx
  mb = {s} broadcast(m), dimensions={{1}}
  d = {s} subtract(x, mb)
  ex = {s} exponential(d)
  z = f32[] constant(0)
  sum = {c} reduce(ex, z), dimensions={{0}}, to_apply=add
  l = {c} log(sum)
  ROOT o = {c} add(l, m)
}}"
        );
        native_both_ways(&logsumexp, &[&x], "column", true);
        let weighted = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  w = f32[{rows}]{{0}} parameter(1)
  k = {c} parameter(2)
  i = f32[] parameter(3)
  wb = {s} broadcast(w), dimensions={{0}}
  kb = {s} broadcast(k), dimensions={{1}}
  p = {s} multiply(x, wb)
  q = {s} subtract(p, kb)
  ROOT o = {c} reduce(q, i), dimensions={{0}}, to_apply=add
}}"
        );
        let w = vector(rows, 3);
        let k = vector(cols, 4);
        let i = Literal::scalar(1.5f32);
        native_both_ways(&weighted, &[&x, &w, &k, &i], "column", true);
        for (reducer, init) in [("mul", "1"), ("mx", "-inf")] {
            let text = format!(
                "HloModule m\n{REDUCERS}
mn {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] minimum(a, b)
}}
ENTRY e {{
  x = {s} parameter(0)
  z = f32[] constant({init})
  a = {s} abs(x)
  t = {s} tanh(a)
  ROOT o = {c} reduce(t, z), dimensions={{0}}, to_apply={reducer}
}}"
            );
            native_both_ways(&text, &[&x], "column", true);
            let min = text
                .replace("to_apply=mx", "to_apply=mn")
                .replace("-inf", "inf");
            native_both_ways(&min, &[&x], "column", true);
        }
    }
    let rank3 = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[4,50,24]{{2,1,0}} parameter(0)
  z = f32[] constant(0)
  ROOT o = f32[24]{{0}} reduce(x, z), dimensions={{0,1}}, to_apply=add
}}"
    );
    let x3 = Literal::from_vec(&[4, 50, 24], values(4 * 50 * 24, 9)).unwrap();
    native_both_ways(&rank3, &[&x3], "column", true);
    let column_major = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[40,300]{{0,1}} parameter(0)
  z = f32[] constant(0)
  ROOT o = f32[40]{{0}} reduce(x, z), dimensions={{1}}, to_apply=add
}}"
    );
    native_both_ways(&column_major, &[&matrix(40, 300, 10)], "column", true);
}

/// A reduce that keeps a dimension besides the column, or reduces the
/// column, is not a column reduction: Cranelift's kernels run it.
#[test]
fn other_column_reductions_are_left_to_cranelift() {
    if native_mark().is_none() {
        return;
    }
    let kept = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[4,50,24]{{2,1,0}} parameter(0)
  z = f32[] constant(0)
  ROOT o = f32[4,24]{{1,0}} reduce(x, z), dimensions={{1}}, to_apply=add
}}"
    );
    let x3 = Literal::from_vec(&[4, 50, 24], values(4 * 50 * 24, 11)).unwrap();
    native_both_ways(&kept, &[&x3], "column", false);
    let single = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[64,1]{{1,0}} parameter(0)
  z = f32[] constant(0)
  ROOT o = f32[1]{{0}} reduce(x, z), dimensions={{0}}, to_apply=add
}}"
    );
    native_both_ways(&single, &[&matrix(64, 1, 12)], "column", false);
}
