//! Row kernels (softmax, layernorm, RMSNorm, …) against the interpreter:
//! exact row maxima, layouts, what is left to Cranelift, and the code kept
//! for the output loop.

use super::*;

/// A row program over `f32[rows, cols]`: the row maximum `m` (broadcast
/// `mb`), `d = x − mb`, `ex = exp(d)`, the row sum `sum` of `ex`
/// (broadcast `sb`), then `rest`, the lines that compute the root.
fn shifted_exps(rows: usize, cols: usize, rest: &str) -> String {
    let s = format!("f32[{rows},{cols}]{{1,0}}");
    let r = format!("f32[{rows}]{{0}}");
    format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  lo = f32[] constant(-inf)
  m = {r} reduce(x, lo), dimensions={{1}}, to_apply=mx
  mb = {s} broadcast(m), dimensions={{0}}
  d = {s} subtract(x, mb)
  ex = {s} exponential(d)
  z = f32[] constant(0)
  sum = {r} reduce(ex, z), dimensions={{1}}, to_apply=add
  sb = {s} broadcast(sum), dimensions={{0}}
{rest}
}}"
    )
}

/// Softmax, log-softmax, layernorm with per-column scale and bias, RMSNorm,
/// a variance (a reduction whose root is the reduce) and a row product, at
/// column counts with and without a two-vector step, a vector step and a
/// masked tail, rows split across calls mid-array, and a single row (a
/// decode step's, whose per-row values are uniform).
#[test]
fn row_kernels_match_the_interpreter() {
    if native_mark().is_none() {
        return;
    }
    for (rows, cols) in [
        (1, 1),
        (1, 17),
        (1, 40),
        (3, 5),
        (7, 16),
        (5, 17),
        (9, 33),
        (4, 48),
        (6, 64),
        (3, 100),
        (2, 1024),
    ] {
        let s = format!("f32[{rows},{cols}]{{1,0}}");
        let r = format!("f32[{rows}]{{0}}");
        let c = format!("f32[{cols}]{{0}}");
        let softmax = shifted_exps(rows, cols, &format!("  ROOT o = {s} divide(ex, sb)"));
        let log_softmax = shifted_exps(
            rows,
            cols,
            &format!(
                "  l = {r} log(sum)\n  lb = {s} broadcast(l), dimensions={{0}}\n  \
                 ROOT o = {s} subtract(d, lb)"
            ),
        );
        let layernorm = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  g = {c} parameter(1)
  b = {c} parameter(2)
  z = f32[] constant(0)
  n = f32[] constant({cols})
  nb = {r} broadcast(n), dimensions={{}}
  sum = {r} reduce(x, z), dimensions={{1}}, to_apply=add
  mean = {r} divide(sum, nb)
  mb = {s} broadcast(mean), dimensions={{0}}
  d = {s} subtract(x, mb)
  sq = {s} multiply(d, d)
  ss = {r} reduce(sq, z), dimensions={{1}}, to_apply=add
  var = {r} divide(ss, nb)
  eps = f32[] constant(1e-5)
  eb = {r} broadcast(eps), dimensions={{}}
  ve = {r} add(var, eb)
  inv = {r} rsqrt(ve)
  ib = {s} broadcast(inv), dimensions={{0}}
  y = {s} multiply(d, ib)
  gb = {s} broadcast(g), dimensions={{1}}
  bb = {s} broadcast(b), dimensions={{1}}
  yg = {s} multiply(y, gb)
  ROOT o = {s} add(yg, bb)
}}"
        );
        let rms = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  g = {c} parameter(1)
  z = f32[] constant(0)
  sq = {s} multiply(x, x)
  ss = {r} reduce(sq, z), dimensions={{1}}, to_apply=add
  n = f32[] constant({cols})
  nb = {r} broadcast(n), dimensions={{}}
  ms = {r} divide(ss, nb)
  inv = {r} rsqrt(ms)
  r2 = f32[{rows},1]{{1,0}} reshape(inv)
  r1 = {r} reshape(r2)
  ib = {s} broadcast(r1), dimensions={{0}}
  y = {s} multiply(x, ib)
  gb = {s} broadcast(g), dimensions={{1}}
  ROOT o = {s} multiply(y, gb)
}}"
        );
        let variance = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  z = f32[] constant(0)
  sum = {r} reduce(x, z), dimensions={{1}}, to_apply=add
  n = f32[] constant({cols})
  nb = {r} broadcast(n), dimensions={{}}
  mean = {r} divide(sum, nb)
  mb = {s} broadcast(mean), dimensions={{0}}
  d = {s} subtract(x, mb)
  sq = {s} multiply(d, d)
  ROOT v = {r} reduce(sq, z), dimensions={{1}}, to_apply=add
}}"
        );
        let product = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  a = {s} abs(x)
  one = f32[] constant(1)
  ROOT p = {r} reduce(a, one), dimensions={{1}}, to_apply=mul
}}"
        );
        let x = matrix(rows, cols, (rows * cols) as u32);
        let g = vector(cols, 3);
        let b = vector(cols, 4);
        // Rows of one element reduce over a dimension of size 1: no
        // column for the row kernel.
        let native = cols > 1;
        for text in [&softmax, &log_softmax, &variance] {
            rows_both_ways(text, &[&x], native);
        }
        // A single row's product is a full reduction, whose partials run
        // at 512 bits where the CPU has them.
        let partials = rows == 1 && xla_jit::wide::native_width() == Some(Width::Zmm);
        rows_both_ways(&product, &[&x], native && !partials);
        rows_both_ways(&layernorm, &[&x, &g, &b], native);
        rows_both_ways(&rms, &[&x, &g], native);
    }
}

/// The row maximum is exact: rows whose maximum is `+0` among `−0`s, a
/// subnormal (flushed), or that hold a NaN; the output divides a softmax
/// by the row maximum, so a wrong sign of zero shows as an infinity of
/// the wrong sign and a lost NaN as a number. Also rows along the minor
/// dimension of a column-major array, and of a rank-3 array.
#[test]
fn row_maxima_are_exact_and_rows_follow_the_layout() {
    if native_mark().is_none() {
        return;
    }
    let value = |row: usize, col: usize| -> f32 {
        match row % 6 {
            0 => ((row * 31 + col * 7) % 50) as f32 / 10.0 - 2.5,
            1 => -0.0,
            2 if col == (row * 5) % 19 => 0.0,
            2 => -0.0,
            3 if col.is_multiple_of(2) => 1e-40,
            3 => -3.0,
            4 if col == 7 => f32::NAN,
            4 => col as f32,
            _ => -1e-41,
        }
    };
    let (rows, cols) = (24, 19);
    let x: Vec<f32> = (0..rows * cols)
        .map(|i| value(i / cols, i % cols))
        .collect();
    let x = Literal::from_vec(&[rows as i64, cols as i64], x).unwrap();
    let text = shifted_exps(
        rows,
        cols,
        "  p = f32[24,19]{1,0} divide(ex, sb)\n  ROOT o = f32[24,19]{1,0} divide(p, mb)",
    );
    rows_both_ways(&text, &[&x], true);
    let column_major = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[40,6]{{0,1}} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[6]{{0}} reduce(x, lo), dimensions={{0}}, to_apply=mx
  mb = f32[40,6]{{0,1}} broadcast(m), dimensions={{1}}
  ROOT d = f32[40,6]{{0,1}} subtract(x, mb)
}}"
    );
    let x = matrix(40, 6, 9)
        .relayout(&xla_core::Layout::new(vec![0, 1]))
        .unwrap();
    rows_both_ways(&column_major, &[&x], true);
    let rank3 = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[3,5,21]{{2,1,0}} parameter(0)
  z = f32[] constant(0)
  s = f32[3,5]{{1,0}} reduce(x, z), dimensions={{2}}, to_apply=add
  sb = f32[3,5,21]{{2,1,0}} broadcast(s), dimensions={{0,1}}
  ROOT d = f32[3,5,21]{{2,1,0}} divide(x, sb)
}}"
    );
    // Positive: the sums do not cancel (a reassociated sum that cancels is
    // far from a sequential one).
    let x: Vec<f32> = (0..315).map(|i| (i % 23) as f32 * 0.5 + 1.0).collect();
    let x = Literal::from_vec(&[3, 5, 21], x).unwrap();
    rows_both_ways(&rank3, &[&x], true);
}

/// Row fusions the emitter does not take run as Cranelift's kernels: a
/// value read through a transpose.
#[test]
fn other_row_fusions_are_left_to_cranelift() {
    if native_mark().is_none() {
        return;
    }
    let transposed = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  x = f32[10,10]{{1,0}} parameter(0)
  t = f32[10,10]{{1,0}} transpose(x), dimensions={{1,0}}
  a = f32[10,10]{{1,0}} add(x, t)
  z = f32[] constant(0)
  s = f32[10]{{0}} reduce(a, z), dimensions={{1}}, to_apply=add
  sb = f32[10,10]{{1,0}} broadcast(s), dimensions={{0}}
  ROOT d = f32[10,10]{{1,0}} divide(a, sb)
}}"
    );
    rows_both_ways(&transposed, &[&matrix(10, 10, 2)], false);
}

/// Softmax keeps `exp(x − max)` from the sum's loop for the output loop:
/// the exponential's polynomial appears once in the kernel's code.
#[test]
fn softmax_keeps_its_exponentials() {
    if native_mark().is_none() {
        return;
    }
    let text = shifted_exps(8, 256, "  ROOT o = f32[8,256]{1,0} divide(ex, sb)");
    let fmas = |text: &str| -> usize {
        let c = compile(text);
        let asm: String = c.jit.disasm().iter().map(|(_, s)| s.as_str()).collect();
        asm.matches("vfmadd").count()
    };
    // A flat exp kernel computes four: its two-vector step, its one-vector
    // step and its tail.
    let exp = "HloModule m\nENTRY e {\n  x = f32[40]{0} parameter(0)\n  \
               ROOT e = f32[40]{0} exponential(x)\n}";
    let per_exp = fmas(exp) / 4;
    // The softmax computes two (its loops' two vectors), in the sum's loop
    // only (256 columns: no one-vector step nor tail).
    assert_eq!(fmas(&text), 2 * per_exp, "{text}");
    rows_both_ways(&text, &[&matrix(8, 256, 5)], true);
}

/// A reduce over a dimension of size 1 in a row fusion (JAX's gradient of
/// a `[rows, 1]` value) is not a pass over the row's columns: the
/// emitter leaves the fusion to Cranelift (it summed the value once per
/// column).
#[test]
fn reduces_over_a_dimension_of_size_one_are_not_row_passes() {
    if native_mark().is_none() {
        return;
    }
    let text = format!(
        "HloModule m\n{REDUCERS}ENTRY e {{
  a = f32[8,5]{{1,0}} parameter(0)
  b = f32[8,1]{{1,0}} parameter(1)
  z = f32[] constant(0)
  s = f32[8]{{0}} reduce(a, z), dimensions={{1}}, to_apply=add
  s1 = f32[8,1]{{1,0}} bitcast(s)
  d = f32[8,1]{{1,0}} divide(s1, b)
  t = f32[8]{{0}} reduce(d, z), dimensions={{1}}, to_apply=add
  tb = f32[8,5]{{1,0}} broadcast(t), dimensions={{0}}
  ROOT o = f32[8,5]{{1,0}} multiply(tb, a)
}}"
    );
    let b = Literal::from_vec(&[8, 1], (0..8).map(|i| i as f32 + 1.5).collect()).unwrap();
    rows_both_ways(&text, &[&matrix(8, 5, 3), &b], false);
}

/// Loop fusions the flat emitter does not take run as row kernels without
/// reduces: a bias broadcast along the rows, a per-row scale, and slices
/// of the columns (a GRU's three gates, read from one input and its sum
/// with a bias, each at three offsets), at column counts around the vector
/// width, row-major and column-major. Rows shorter than a vector stay with
/// Cranelift, and so does a slice of the rows.
#[test]
fn loop_fusions_with_broadcasts_and_column_slices() {
    if native_mark().is_none() {
        return;
    }
    let lanes = xla_jit::wide::native_width().map_or(1, |w| w.lanes() as usize);
    let gates = |n: usize, column_major: bool| {
        let (w, n2) = (3 * n, 2 * n);
        let (layout, column) = match column_major {
            false => ("{1,0}", 1),
            true => ("{0,1}", 0),
        };
        let shape = |r: usize, c: usize| match column_major {
            false => format!("{r},{c}"),
            true => format!("{c},{r}"),
        };
        let bounds = |first: usize, end: usize| match column {
            1 => format!("{{[0:6], [{first}:{end}]}}"),
            _ => format!("{{[{first}:{end}], [0:6]}}"),
        };
        let s = format!("f32[{}]{layout}", shape(6, n));
        let wide = format!("f32[{}]{layout}", shape(6, w));
        format!(
            "HloModule m
ENTRY e {{
  g = {wide} parameter(0)
  b = f32[{n}]{{0}} parameter(1)
  k = f32[6]{{0}} parameter(2)
  c = f32[{w}]{{0}} parameter(3)
  cb = {wide} broadcast(c), dimensions={{{column}}}
  gc = {wide} add(g, cb)
  r = {s} slice(g), slice={}
  z = {s} slice(gc), slice={}
  h = {s} slice(gc), slice={}
  h2 = {s} slice(g), slice={}
  bb = {s} broadcast(b), dimensions={{{column}}}
  kb = {s} broadcast(k), dimensions={{{}}}
  rz = {s} multiply(r, z)
  t = {s} tanh(h)
  th = {s} multiply(t, h2)
  a = {s} add(rz, bb)
  m = {s} multiply(a, kb)
  ROOT o = {s} subtract(m, th)
}}",
            bounds(0, n),
            bounds(n, n2),
            bounds(n2, w),
            bounds(n2, w),
            1 - column,
        )
    };
    for n in [lanes, lanes + 1, 2 * lanes + 1, 40, 100] {
        for column_major in [false, true] {
            let g = matrix(6, 3 * n, n as u32);
            let g = match column_major {
                false => g,
                true => Literal::from_vec(&[3 * n as i64, 6], values(18 * n, 7))
                    .unwrap()
                    .relayout(&xla_core::Layout::new(vec![0, 1]))
                    .unwrap(),
            };
            let (b, k, c) = (vector(n, 3), vector(6, 4), vector(3 * n, 5));
            rows_both_ways(&gates(n, column_major), &[&g, &b, &k, &c], true);
        }
    }
    let short = gates(lanes - 1, false);
    let g = matrix(6, 3 * (lanes - 1), 5);
    let args = [
        &g,
        &vector(lanes - 1, 3),
        &vector(6, 4),
        &vector(3 * (lanes - 1), 5),
    ];
    rows_both_ways(&short, &args, false);
    let rows = format!(
        "HloModule m
ENTRY e {{
  x = f32[8,{lanes}]{{1,0}} parameter(0)
  b = f32[{lanes}]{{0}} parameter(1)
  s = f32[4,{lanes}]{{1,0}} slice(x), slice={{[2:6], [0:{lanes}]}}
  bb = f32[4,{lanes}]{{1,0}} broadcast(b), dimensions={{1}}
  ROOT o = f32[4,{lanes}]{{1,0}} add(s, bb)
}}"
    );
    rows_both_ways(&rows, &[&matrix(8, lanes, 6), &vector(lanes, 2)], false);
}

/// An input along only some of the row dimensions (a bias over the
/// middle one of three) is not one number per row: such a fusion is left
/// to Cranelift. Along all of them (a bias over both row dimensions), it
/// is read once per row.
#[test]
fn biases_along_some_or_all_row_dimensions() {
    if native_mark().is_none() {
        return;
    }
    let lanes = xla_jit::wide::native_width().map_or(1, |w| w.lanes() as usize);
    let n = lanes + 3;
    let text = |bias: &str, dims: &str| {
        format!(
            "HloModule m
ENTRY e {{
  x = f32[4,5,{n}]{{2,1,0}} parameter(0)
  b = {bias} parameter(1)
  bb = f32[4,5,{n}]{{2,1,0}} broadcast(b), dimensions={{{dims}}}
  ROOT o = f32[4,5,{n}]{{2,1,0}} add(x, bb)
}}"
        )
    };
    let x = Literal::from_vec(&[4, 5, n as i64], values(20 * n, 3)).unwrap();
    rows_both_ways(&text("f32[5]{0}", "1"), &[&x, &vector(5, 4)], false);
    rows_both_ways(&text("f32[4]{0}", "0"), &[&x, &vector(4, 5)], false);
    rows_both_ways(&text("f32[4,5]{1,0}", "0,1"), &[&x, &matrix(4, 5, 6)], true);
}

/// A causal softmax runs as one native row kernel: the mask's row and
/// column numbers (an iota broadcast two ways, an iota of rank 2, and a
/// per-head number from an iota along a dimension above the rows') are
/// read from tables of their values, and the mask, varying along the
/// columns and some of the row dimensions only, is computed per element.
/// Rows around the vector width, with the tail.
#[test]
fn causal_masks_from_iotas() {
    if native_mark().is_none() {
        return;
    }
    let lanes = xla_jit::wide::native_width().map_or(1, |w| w.lanes() as usize);
    for t in [lanes - 1, lanes + 1, 40] {
        let heads = 3;
        let s = format!("f32[2,{heads},{t},{t}]{{3,2,1,0}}");
        let p = format!("pred[2,{heads},{t},{t}]{{3,2,1,0}}");
        let i = format!("s32[2,{heads},{t},{t}]{{3,2,1,0}}");
        let r = format!("f32[2,{heads},{t}]{{2,1,0}}");
        let text = format!(
            "HloModule m\n{REDUCERS}ENTRY e {{
  x = {s} parameter(0)
  it = s32[{t}]{{0}} iota(), iota_dimension=0
  rows = s32[{t},{t}]{{1,0}} broadcast(it), dimensions={{0}}
  cols = s32[{t},{t}]{{1,0}} iota(), iota_dimension=1
  ge = pred[{t},{t}]{{1,0}} compare(rows, cols), direction=GE
  m = {p} broadcast(ge), dimensions={{2,3}}
  ih = s32[{heads}]{{0}} iota(), iota_dimension=0
  hb = {i} broadcast(ih), dimensions={{1}}
  ic = {i} broadcast(it), dimensions={{3}}
  near = {p} compare(ic, hb), direction=LE
  both = {p} xor(m, near)
  k = f32[] constant(-3.4e38)
  kb = {s} broadcast(k), dimensions={{}}
  masked = {s} select(both, x, kb)
  z = f32[] constant(-inf)
  top = {r} reduce(masked, z), dimensions={{3}}, to_apply=mx
  tb = {s} broadcast(top), dimensions={{0,1,2}}
  d = {s} subtract(masked, tb)
  ex = {s} exponential(d)
  zero = f32[] constant(0)
  sum = {r} reduce(ex, zero), dimensions={{3}}, to_apply=add
  sb = {s} broadcast(sum), dimensions={{0,1,2}}
  ROOT o = {s} divide(ex, sb)
}}"
        );
        let x =
            Literal::from_vec(&[2, heads, t as i64, t as i64], values(2 * 3 * t * t, 9)).unwrap();
        rows_both_ways(&text, &[&x], true);
    }
}

/// A mask of indices read through a slice of the columns compares the
/// indices of the slice's window (columns `t..2t` of a wider mask), not
/// those of the space's first columns.
#[test]
fn masks_of_indices_read_through_slices() {
    if native_mark().is_none() {
        return;
    }
    let t = xla_jit::wide::native_width().map_or(1, |w| w.lanes() as usize) + 3;
    let (r, w) = (6, 2 * t);
    let text = format!(
        "HloModule m
ENTRY e {{
  x = f32[{r},{t}]{{1,0}} parameter(0)
  ic = s32[{w}]{{0}} iota(), iota_dimension=0
  ir = s32[{r}]{{0}} iota(), iota_dimension=0
  cols = s32[{r},{w}]{{1,0}} broadcast(ic), dimensions={{1}}
  rows = s32[{r},{w}]{{1,0}} broadcast(ir), dimensions={{0}}
  lt = pred[{r},{w}]{{1,0}} compare(cols, rows), direction=LT
  m = pred[{r},{t}]{{1,0}} slice(lt), slice={{[0:{r}], [{t}:{w}]}}
  k = f32[] constant(-1)
  kb = f32[{r},{t}]{{1,0}} broadcast(k), dimensions={{}}
  ROOT o = f32[{r},{t}]{{1,0}} select(m, kb, x)
}}"
    );
    rows_both_ways(&text, &[&matrix(r, t, 4)], true);
}
