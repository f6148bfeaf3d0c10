//! Flat elementwise fusions: every op at every length, exact ops against
//! the interpreter, constant bounds, scalars and layouts, what is left to
//! Cranelift, random programs, and eight elements as one 256-bit vector.

use super::*;

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
    let cube_root = "HloModule m
ENTRY e {
  x = f32[30]{0} parameter(0)
  ROOT r = f32[30]{0} cbrt(x)
}";
    both_ways(cube_root, &[&v], 16384, false);
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
