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

/// The unary ops the emitter takes.
const UNARY: [&str; 14] = [
    "sine",
    "cosine",
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

/// One op of every kind the emitter takes, each on edge values at lengths
/// around the vector width and the unrolled step: the tails and the
/// single-vector step, with iteration spaces of 16 and 48 elements (so a
/// call starts mid-array) and of whole arrays.
#[test]
fn every_op_matches_cranelift_at_every_length() {
    if native_mark().is_none() {
        return;
    }
    for n in [1, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 100] {
        let x = vector(n, 1);
        let y = vector(n, 2);
        let s = format!("f32[{n}]{{0}}");
        for op in UNARY {
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {s} parameter(0)\n  ROOT r = {s} {op}(x)\n}}"
            );
            for chunk in [16, 48, 16384] {
                both_ways(&text, &[&x], chunk, true);
            }
        }
        for op in BINARY {
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {s} parameter(0)\n  y = {s} parameter(1)\n  \
                 ROOT r = {s} {op}(x, y)\n}}"
            );
            for chunk in [16, 48, 16384] {
                both_ways(&text, &[&x, &y], chunk, true);
            }
        }
        for dir in DIRECTIONS {
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {s} parameter(0)\n  y = {s} parameter(1)\n  \
                 c = pred[{n}]{{0}} compare(x, y), direction={dir}\n  \
                 ROOT r = {s} select(c, x, y)\n}}"
            );
            both_ways(&text, &[&x, &y], 16, true);
        }
    }
}

/// The exact ops agree with the interpreter too (the math functions are
/// approximations, checked against Cranelift's above).
#[test]
fn exact_ops_match_the_interpreter() {
    if native_mark().is_none() {
        return;
    }
    let n = 93;
    let (x, y, z) = (vector(n, 3), vector(n, 4), vector(n, 5));
    let s = format!("f32[{n}]{{0}}");
    let p = format!("pred[{n}]{{0}}");
    let text = format!(
        "HloModule m
ENTRY e {{
  x = {s} parameter(0)
  y = {s} parameter(1)
  z = {s} parameter(2)
  a = {s} add(x, y)
  m = {s} multiply(a, z)
  d = {s} divide(m, y)
  mx = {s} maximum(d, x)
  mn = {s} minimum(mx, z)
  c = {s} clamp(y, mn, z)
  sq = {s} sqrt(c)
  n = {s} negate(sq)
  ab = {s} abs(x)
  lt = {p} compare(n, ab), direction=LT
  ge = {p} compare(x, z), direction=GE
  ne = {p} compare(y, y), direction=NE
  both = {p} and(lt, ge)
  either = {p} or(both, ne)
  flip = {p} xor(either, lt)
  not = {p} not(flip)
  f = {s} floor(a)
  sel = {s} select(not, n, f)
  ROOT r = {s} subtract(sel, c)
}}"
    );
    let got = both_ways(&text, &[&x, &y, &z], 16, true);
    let c = compile(&text);
    let want = interpret(&c, &[&x, &y, &z]).expect("the interpreter runs it");
    assert_same(&got, &want, "AVX-512 vs interpreter");
}

/// `max`/`min` against constants take the emitter's compare-and-blend
/// forms (ReLU adds `+0`; bounds that may keep a subnormal flush), except
/// NaN, subnormal and (for min) `−0` bounds, which take the general form:
/// each, at every operand order, as Cranelift computes it.
#[test]
fn max_and_min_by_every_kind_of_constant() {
    if native_mark().is_none() {
        return;
    }
    let n = 40;
    let x = vector(n, 6);
    let s = format!("f32[{n}]{{0}}");
    for c in [
        "0", "-0", "1", "-1", "1e-40", "-1e-40", "nan", "inf", "-inf", "3.5e38",
    ] {
        for op in ["maximum", "minimum"] {
            for swap in [false, true] {
                let args = if swap { "b, x" } else { "x, b" };
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {s} parameter(0)\n  \
                     k = f32[] constant({c})\n  b = {s} broadcast(k), dimensions={{}}\n  \
                     ROOT r = {s} {op}({args})\n}}"
                );
                both_ways(&text, &[&x], 16384, true);
            }
        }
        let text = format!(
            "HloModule m\nENTRY e {{\n  x = {s} parameter(0)\n  k = f32[] constant({c})\n  \
             ROOT r = {s} clamp(k, x, k)\n}}"
        );
        both_ways(&text, &[&x], 16384, true);
    }
}

/// Scalar parameters are read as broadcast memory operands (an array of
/// one element of any rank is one), and a layout other than row-major is
/// walked as stored when every array has it, up to where size-1
/// dimensions go.
#[test]
fn scalars_and_shared_layouts() {
    if native_mark().is_none() {
        return;
    }
    let a = Literal::from_vec(&[], vec![1.5f32]).unwrap();
    let b = Literal::from_vec(&[1], vec![-0.25f32]).unwrap();
    let laid = |salt, minor_to_major: Vec<i64>| {
        Literal::from_vec(&[5, 1, 7], values(35, salt))
            .unwrap()
            .relayout(&xla_core::Layout::new(minor_to_major))
            .unwrap()
    };
    let x = laid(7, vec![0, 2, 1]);
    let y = laid(8, vec![1, 0, 2]);
    let text = "HloModule m
ENTRY e {
  a = f32[] parameter(0)
  b = f32[1]{0} parameter(1)
  x = f32[5,1,7]{0,2,1} parameter(2)
  y = f32[5,1,7]{1,0,2} parameter(3)
  ab = f32[5,1,7]{0,2,1} broadcast(a), dimensions={}
  bb = f32[5,1,7]{0,2,1} broadcast(b), dimensions={1}
  ax = f32[5,1,7]{0,2,1} multiply(ab, x)
  by = f32[5,1,7]{0,2,1} multiply(y, bb)
  ROOT r = f32[5,1,7]{0,2,1} subtract(ax, by)
}";
    let got = both_ways(text, &[&a, &b, &x, &y], 16, true);
    let c = compile(text);
    let want = interpret(&c, &[&a, &b, &x, &y]).expect("a valid module");
    assert_same(&got, &want, "scalars and layouts vs interpreter");
}

/// What the emitter does not take runs as Cranelift's kernel: arrays in
/// different orders, another element type, an op it lacks, more buffers
/// than it has registers for, more live values than vector registers.
#[test]
fn other_fusions_are_left_to_cranelift() {
    if native_mark().is_none() {
        return;
    }
    let x = Literal::from_vec(&[4, 6], values(24, 9)).unwrap();
    let xt = x.relayout(&xla_core::Layout::new(vec![0, 1])).unwrap();
    let mixed = "HloModule m
ENTRY e {
  x = f32[4,6]{1,0} parameter(0)
  y = f32[4,6]{0,1} parameter(1)
  ROOT r = f32[4,6]{1,0} add(x, y)
}";
    both_ways(mixed, &[&x, &xt], 16384, false);
    let v = vector(30, 10);
    let tangent = "HloModule m
ENTRY e {
  x = f32[30]{0} parameter(0)
  ROOT r = f32[30]{0} tan(x)
}";
    both_ways(tangent, &[&v], 16384, false);
    let f64 = Literal::from_vec(&[9], (0..9).map(|i| i as f64 * 0.7 - 3.0).collect()).unwrap();
    let double = "HloModule m
ENTRY e {
  x = f64[9]{0} parameter(0)
  ROOT r = f64[9]{0} multiply(x, x)
}";
    both_ways(double, &[&f64], 16384, false);
    // Eleven inputs and an output: twelve buffers.
    let params: Vec<String> = (0..11)
        .map(|i| format!("  p{i} = f32[20]{{0}} parameter({i})"))
        .collect();
    let mut sum = String::from("p0");
    let mut adds = Vec::new();
    for i in 1..11 {
        adds.push(format!("  s{i} = f32[20]{{0}} add({sum}, p{i})"));
        sum = format!("s{i}");
    }
    let many = format!(
        "HloModule m\nENTRY e {{\n{}\n{}\n  ROOT r = f32[20]{{0}} negate({sum})\n}}",
        params.join("\n"),
        adds.join("\n")
    );
    let inputs: Vec<Literal> = (0..11).map(|i| vector(20, 20 + i)).collect();
    let refs: Vec<&Literal> = inputs.iter().collect();
    both_ways(&many, &refs, 16384, false);
    // 40 values all live at once: each `w` is read only by the product
    // chain, which starts from the last one.
    let mut body = vec!["  x = f32[24]{0} parameter(0)".to_string()];
    for i in 0..40 {
        body.push(format!("  k{i} = f32[] constant({}.5)", i));
        body.push(format!(
            "  b{i} = f32[24]{{0}} broadcast(k{i}), dimensions={{}}"
        ));
        body.push(format!("  v{i} = f32[24]{{0}} sqrt(x)"));
        body.push(format!("  w{i} = f32[24]{{0}} add(v{i}, b{i})"));
    }
    // Combine last-to-first so every w is live until the end.
    let mut acc = "w39".to_string();
    for i in (0..39).rev() {
        body.push(format!("  m{i} = f32[24]{{0}} multiply(w{i}, {acc})"));
        acc = format!("m{i}");
    }
    let live = format!(
        "HloModule m\nENTRY e {{\n{}\n  ROOT r = f32[24]{{0}} negate({acc})\n}}",
        body.join("\n")
    );
    let x = Literal::from_vec(&[24], (0..24).map(|i| i as f32 * 0.25).collect()).unwrap();
    both_ways(&live, &[&x], 16384, false);
}

/// A random flat program over `n` elements: a few array and scalar
/// parameters and constants, then ops of every kind on earlier values.
fn random_program(rng: &mut Rng, n: usize) -> (String, usize, usize) {
    let s = format!("f32[{n}]{{0}}");
    let p = format!("pred[{n}]{{0}}");
    let arrays = 1 + rng.below(3);
    let scalars = rng.below(2);
    let mut lines = Vec::new();
    let mut vals: Vec<String> = Vec::new();
    let mut preds: Vec<String> = Vec::new();
    for i in 0..arrays {
        lines.push(format!("  a{i} = {s} parameter({i})"));
        vals.push(format!("a{i}"));
    }
    for i in 0..scalars {
        lines.push(format!("  q{i} = f32[] parameter({})", arrays + i));
        lines.push(format!("  qb{i} = {s} broadcast(q{i}), dimensions={{}}"));
        vals.push(format!("qb{i}"));
    }
    let constants = [
        "0", "-0", "1", "-2.5", "0.5", "1e-40", "nan", "inf", "100", "-87.5",
    ];
    let steps = 3 + rng.below(12);
    for k in 0..steps {
        let pick = |rng: &mut Rng, v: &[String]| v[rng.below(v.len())].clone();
        let line = match rng.below(10) {
            0 => {
                let c = constants[rng.below(constants.len())];
                lines.push(format!("  k{k} = f32[] constant({c})"));
                format!("  v{k} = {s} broadcast(k{k}), dimensions={{}}")
            }
            1 | 2 => format!(
                "  v{k} = {s} {}({})",
                UNARY[rng.below(UNARY.len())],
                pick(rng, &vals)
            ),
            3 => {
                let (a, b) = (pick(rng, &vals), pick(rng, &vals));
                let dir = DIRECTIONS[rng.below(DIRECTIONS.len())];
                lines.push(format!("  c{k} = {p} compare({a}, {b}), direction={dir}"));
                preds.push(format!("c{k}"));
                format!(
                    "  v{k} = {s} select(c{k}, {}, {})",
                    pick(rng, &vals),
                    pick(rng, &vals)
                )
            }
            4 if preds.len() >= 2 => {
                let op = ["and", "or", "xor"][rng.below(3)];
                let (a, b) = (pick(rng, &preds), pick(rng, &preds));
                lines.push(format!("  l{k} = {p} {op}({a}, {b})"));
                lines.push(format!("  n{k} = {p} not(l{k})"));
                preds.push(format!("n{k}"));
                format!(
                    "  v{k} = {s} select(n{k}, {}, {})",
                    pick(rng, &vals),
                    pick(rng, &vals)
                )
            }
            5 => format!(
                "  v{k} = {s} clamp({}, {}, {})",
                pick(rng, &vals),
                pick(rng, &vals),
                pick(rng, &vals)
            ),
            _ => format!(
                "  v{k} = {s} {}({}, {})",
                BINARY[rng.below(BINARY.len())],
                pick(rng, &vals),
                pick(rng, &vals)
            ),
        };
        lines.push(line);
        vals.push(format!("v{k}"));
    }
    let last = vals.last().cloned().expect("a value");
    lines.push(format!(
        "  ROOT r = {s} add({last}, {})",
        vals[vals.len() / 2]
    ));
    (
        format!("HloModule m\nENTRY e {{\n{}\n}}", lines.join("\n")),
        arrays,
        scalars,
    )
}

/// Random flat programs agree with Cranelift's kernels bit for bit.
#[test]
fn random_flat_programs_match_cranelift() {
    if native_mark().is_none() {
        return;
    }
    let mut rng = Rng(0x5EED_A512);
    for case in 0..300 {
        let n = [1, 5, 16, 19, 33, 64, 77, 200][case % 8];
        let (text, arrays, scalars) = random_program(&mut rng, n);
        let mut args: Vec<Literal> = (0..arrays)
            .map(|i| vector(n, 100 * case as u32 + i as u32))
            .collect();
        for i in 0..scalars {
            let v = values(8, case as u32 * 7 + i as u32)[rng.below(8)];
            args.push(Literal::from_vec(&[], vec![v]).unwrap());
        }
        let refs: Vec<&Literal> = args.iter().collect();
        let chunk = [16, 32, 16384][case % 3];
        let narrow = compile_chunked(&text, None, chunk);
        let want = run(&narrow, &refs);
        for width in native_widths() {
            let wide = compile_chunked(&text, Some(width), chunk);
            assert!(
                kernels(&wide).iter().any(|k| k.contains(mark(width))),
                "case {case}: {:?}\n{text}",
                kernels(&wide)
            );
            let got = run(&wide, &refs);
            assert_same(
                &got,
                &want,
                &format!("case {case}, {width:?}, chunk {chunk}:\n{text}"),
            );
        }
    }
}

/// The `mx` (maximum), `add` and `mul` reducers of the row programs below.
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

/// Softmax, log-softmax, layernorm with per-column scale and bias, RMSNorm,
/// a variance (a reduction whose root is the reduce) and a row product, at
/// column counts with and without a two-vector step, a vector step and a
/// masked tail, and rows split across calls mid-array.
#[test]
fn row_kernels_match_the_interpreter() {
    if native_mark().is_none() {
        return;
    }
    for (rows, cols) in [
        (1, 1),
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
        for text in [&softmax, &log_softmax, &variance, &product] {
            rows_both_ways(text, &[&x], native);
        }
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

/// A flat fusion of eight f32 is one 256-bit vector: on a CPU with
/// AVX-512 it still compiles at 256 bits (no masked tail, whose stores do
/// not forward to the next step's loads), with Cranelift's results.
#[test]
fn eight_elements_are_one_256_bit_vector() {
    let widths = native_widths();
    if widths.is_empty() {
        return;
    }
    let text = "HloModule m\nENTRY e {\n  x = f32[8]{0} parameter(0)\n  \
                s = f32[8]{0} sine(x)\n  ROOT r = f32[8]{0} add(s, x)\n}";
    let x = vector(8, 3);
    let want = run(&compile_chunked(text, None, 16384), &[&x]);
    for width in widths {
        let c = compile_chunked(text, Some(width), 16384);
        assert!(
            kernels(&c).iter().any(|n| n.contains("_avx2_")),
            "{width:?}: {:?}",
            kernels(&c)
        );
        assert_same(&run(&c, &[&x]), &want, &format!("{width:?}"));
    }
}
