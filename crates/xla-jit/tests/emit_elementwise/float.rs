//! f32 and f64: arithmetic, comparisons and functions on edge values,
//! constant bounds, staged tanh, 16-bit widening, subnormals kept by a
//! select and read as zeros in constants.

use super::*;

#[test]
fn f32_arithmetic_on_edge_values() {
    let (a, b) = pairs(&f32_edges());
    type Rule = fn(f32, f32) -> f32;
    let cases: [(&str, Rule); 7] = [
        ("add", |x, y| ftz(ftz(x) + ftz(y))),
        ("subtract", |x, y| ftz(ftz(x) - ftz(y))),
        ("multiply", |x, y| ftz(ftz(x) * ftz(y))),
        ("divide", |x, y| ftz(ftz(x) / ftz(y))),
        ("maximum", max_rule),
        ("minimum", min_rule),
        ("remainder", |x, y| ftz(ftz(x) % ftz(y))),
    ];
    for (op, rule) in cases {
        let got: Vec<f32> = run_binary(op, "", &a, &b);
        for i in 0..a.len() {
            let want = rule(a[i], b[i]);
            assert!(
                same_f32(got[i], want),
                "{op}({:e}, {:e}) = {:e}, want {want:e}",
                a[i],
                b[i],
                got[i]
            );
        }
    }
}

#[test]
fn f64_arithmetic_on_edge_values() {
    let edges: Vec<f64> = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        1e-310,
        -1e-310,
        1e300,
        f64::INFINITY,
        f64::NAN,
        0.1,
    ]
    .to_vec();
    let (a, b) = pairs(&edges);
    type Rule = fn(f64, f64) -> f64;
    let cases: [(&str, Rule); 4] = [
        ("add", |x, y| ftz64(ftz64(x) + ftz64(y))),
        ("multiply", |x, y| ftz64(ftz64(x) * ftz64(y))),
        ("divide", |x, y| ftz64(ftz64(x) / ftz64(y))),
        ("remainder", |x, y| ftz64(ftz64(x) % ftz64(y))),
    ];
    for (op, rule) in cases {
        let got: Vec<f64> = run_binary(op, "", &a, &b);
        for i in 0..a.len() {
            let want = rule(a[i], b[i]);
            assert!(
                same_f64(got[i], want),
                "{op}({:e}, {:e}) = {:e}, want {want:e}",
                a[i],
                b[i],
                got[i]
            );
        }
    }
    let got: Vec<f64> = run_binary("maximum", "", &[1e-310, -0.0, f64::NAN], &[0.0, 0.0, 1.0]);
    assert_eq!(got[0].to_bits(), 0.0f64.to_bits());
    assert_eq!(got[1].to_bits(), 0.0f64.to_bits());
    assert!(got[2].is_nan());
}

#[test]
fn f32_comparisons() {
    let (a, b) = pairs(&f32_edges());
    let total_key = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 {
            b ^ 0x7FFF_FFFF
        } else {
            b
        }
    };
    for (dir, rule) in [
        ("EQ", (|x: f32, y: f32| x == y) as fn(f32, f32) -> bool),
        ("NE", |x, y| x != y),
        ("LT", |x, y| x < y),
        ("LE", |x, y| x <= y),
        ("GT", |x, y| x > y),
        ("GE", |x, y| x >= y),
    ] {
        let got: Vec<bool> = run_binary("compare", &format!(", direction={dir}"), &a, &b);
        for i in 0..a.len() {
            assert_eq!(
                got[i],
                rule(ftz(a[i]), ftz(b[i])),
                "{dir} {:e} {:e}",
                a[i],
                b[i]
            );
        }
        let got: Vec<bool> = run_binary(
            "compare",
            &format!(", direction={dir}, type=TOTALORDER"),
            &a,
            &b,
        );
        for i in 0..a.len() {
            let (x, y) = (total_key(a[i]), total_key(b[i]));
            let want = match dir {
                "EQ" => x == y,
                "NE" => x != y,
                "LT" => x < y,
                "LE" => x <= y,
                "GT" => x > y,
                _ => x >= y,
            };
            assert_eq!(got[i], want, "total {dir} {:e} {:e}", a[i], b[i]);
        }
    }
}

#[test]
fn f32_unary_functions() {
    let x = f32_edges();
    type Rule = fn(f32) -> f32;
    let afz = |v: f32| {
        let v = ftz(v);
        let t = v.trunc();
        if (v - t).abs() >= 0.5 {
            t + 1f32.copysign(v)
        } else {
            t
        }
    };
    let cases: [(&str, Rule); 10] = [
        ("abs", |v| v.abs()),
        ("negate", |v| -v),
        ("floor", |v| ftz(v).floor()),
        ("ceil", |v| ftz(v).ceil()),
        ("round-nearest-even", |v| ftz(v).round_ties_even()),
        ("round-nearest-afz", afz),
        ("sign", |v| {
            let v = ftz(v);
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                v
            }
        }),
        ("sqrt", |v| ftz(ftz(v).sqrt())),
        ("rsqrt", |v| ftz(1.0 / ftz(v).sqrt())),
        ("real", |v| v),
    ];
    for (op, rule) in cases {
        let got: Vec<f32> = run_unary(op, &x);
        for i in 0..x.len() {
            let want = rule(x[i]);
            assert!(
                same_f32(got[i], want),
                "{op}({:e}) = {:e}, want {want:e}",
                x[i],
                got[i]
            );
        }
    }
    let finite: Vec<bool> = run_unary("is-finite", &x);
    for i in 0..x.len() {
        assert_eq!(finite[i], x[i].is_finite(), "{:e}", x[i]);
    }
    // The worked examples of `docs/semantics.md`, *Unary functions*.
    let r: Vec<f32> = run_unary("round-nearest-afz", &[0.5f32, 1.5, 2.5, -0.5, -2.5, 2.4]);
    assert_eq!(r, [1.0, 2.0, 3.0, -1.0, -3.0, 2.0]);
    let r: Vec<f32> = run_unary("round-nearest-even", &[0.5f32, 1.5, 2.5, -0.5, -2.5]);
    assert_eq!(
        r.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        [0.0f32, 2.0, 2.0, -0.0, -2.0].map(f32::to_bits)
    );
    let r: Vec<f32> = run_unary("floor", &[-1e-40f32]);
    assert_eq!(r[0].to_bits(), (-0.0f32).to_bits());
}

/// Max, min and clamp against a constant bound take a one-instruction form
/// when the bound is normal (not NaN, zero or subnormal) and keep the
/// general one otherwise; both must follow the rules on every edge value,
/// with the constant on either side.
#[test]
fn f32_max_min_clamp_with_constant_bounds() {
    let x = f32_edges();
    let n = x.len();
    let bounds = [
        -1.0f32,
        2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        0.0,
        -0.0,
        1e-40,
        f32::NAN,
    ];
    let text = |body: &str, c: &str, d: &str| {
        format!(
            "HloModule m\nENTRY e {{\n  x = f32[{n}]{{0}} parameter(0)\n  \
             c = f32[] constant({c})\n  cb = f32[{n}]{{0}} broadcast(c), dimensions={{}}\n  \
             d = f32[] constant({d})\n  db = f32[{n}]{{0}} broadcast(d), dimensions={{}}\n  \
             {body}\n}}"
        )
    };
    let hlo = |v: f32| {
        if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            (if v > 0.0 { "inf" } else { "-inf" }).to_string()
        } else {
            format!("{v:e}")
        }
    };
    let check = |root: &str, c: f32, d: f32, rule: &dyn Fn(f32) -> f32| {
        let body = if root.starts_with("minimum(db, maximum") {
            format!("m = f32[{n}]{{0}} maximum(cb, x)\n  ROOT r = f32[{n}]{{0}} minimum(db, m)")
        } else {
            format!("ROOT r = f32[{n}]{{0}} {root}")
        };
        let compiled = compile(&text(&body, &hlo(c), &hlo(d)));
        let got = run(&compiled, &[&Literal::vector(&x)])
            .to_vec::<f32>()
            .unwrap();
        for i in 0..n {
            let want = rule(x[i]);
            assert!(
                same_f32(got[i], want),
                "{root} with c = {c:e}, d = {d:e}, x = {:e}: {:e}, want {want:e}",
                x[i],
                got[i]
            );
        }
    };
    for &c in &bounds {
        check("maximum(x, cb)", c, 0.0, &|v| max_rule(v, c));
        check("maximum(cb, x)", c, 0.0, &|v| max_rule(c, v));
        check("minimum(x, cb)", c, 0.0, &|v| min_rule(v, c));
        check("minimum(cb, x)", c, 0.0, &|v| min_rule(c, v));
        for &d in &bounds {
            check("clamp(cb, x, db)", c, d, &|v| min_rule(max_rule(v, c), d));
        }
        // A max, then a min of its (flushed) result.
        check("minimum(db, maximum(cb, x))", c, 2.0, &|v| {
            min_rule(2.0, max_rule(c, v))
        });
    }
}

/// f32 tanh in a loop of several vectors per step is emitted in stages
/// across the step's vectors; each vector's result must equal what the
/// whole function gives one value at a time (a one-element module), with
/// the rare cases (tiny, subnormal, NaN, ±inf, clamped) in some vectors of
/// a step and not in others.
#[test]
fn staged_tanh_matches_the_unstaged_form_bit_for_bit() {
    let mut x = f32_edges();
    x.extend([3e-4f32, -3e-4, 4e-4, 7.9, -7.9, 8.5, 0.75, -2.5]);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    while x.len() < 96 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x.push(((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 12.0);
    }
    // Rare lanes only in the first vector of each step of 4.
    let mut ordinary: Vec<f32> = (0..64).map(|i| 0.5 + i as f32 / 64.0).collect();
    ordinary[1] = 1e-5;
    ordinary[18] = f32::NAN;
    for input in [x, ordinary] {
        let n = input.len();
        let gelu_like = format!(
            "HloModule m\nENTRY e {{\n  x = f32[{n}]{{0}} parameter(0)\n  \
             c = f32[] constant(0.797884583)\n  cb = f32[{n}]{{0}} broadcast(c), dimensions={{}}\n  \
             y = f32[{n}]{{0}} multiply(x, cb)\n  t = f32[{n}]{{0}} tanh(y)\n  \
             one = f32[] constant(1)\n  ob = f32[{n}]{{0}} broadcast(one), dimensions={{}}\n  \
             s = f32[{n}]{{0}} add(t, ob)\n  ROOT r = f32[{n}]{{0}} multiply(x, s)\n}}"
        );
        let staged = run(&compile(&gelu_like), &[&Literal::vector(&input)])
            .to_vec::<f32>()
            .unwrap();
        let one = compile(&gelu_like.replace(&format!("[{n}]"), "[1]"));
        for (i, &v) in input.iter().enumerate() {
            let want = run(&one, &[&Literal::vector(&[v])])
                .to_vec::<f32>()
                .unwrap()[0];
            assert!(
                staged[i].to_bits() == want.to_bits(),
                "x = {v:e} at {i}: staged {:e}, one at a time {want:e}",
                staged[i]
            );
        }
        let tanh: Vec<f32> = run_unary("tanh", &input);
        for (i, &v) in input.iter().enumerate() {
            let want: Vec<f32> = run_unary("tanh", &[v]);
            assert_eq!(tanh[i].to_bits(), want[0].to_bits(), "tanh({v:e}) at {i}");
        }
    }
}

/// Widening to f64: bf16 subnormals (f32 subnormals) flush to zeros of
/// their sign, f16 subnormals (normal f32 values) widen exactly, and both
/// keep their normal values, in vector steps and the scalar tail.
#[test]
fn sixteen_bit_floats_widen_to_f64_by_the_flush_rule() {
    let values = vec![
        1e-40, -1e-40, 9.2e-41, -3e-39, 1.2e-38, -1.5, 6e-8, -6e-5, 0.0,
    ];
    for ty in ["bf16", "f16"] {
        let x = Literal::from_vec(&[values.len() as i64], values.clone())
            .unwrap()
            .convert(ty.parse().unwrap())
            .unwrap();
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  x = {ty}[9]{{0}} parameter(0)\n  \
             ROOT r = f64[9]{{0}} convert(x)\n}}"
        );
        assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
    }
}

/// `select(compare(x, y), x, y)` and its mirror images are the shapes
/// Cranelift lowers to `minps`/`maxps` (`minss`… in scalar tails), which
/// return a subnormal operand flushed under DAZ; a select moves bits
/// unchanged (`docs/semantics.md`, *Flush to zero*), as the interpreter does. Every direction, both
/// operand orders, f32 (both kernel kinds) and f64, vector lanes and tails.
#[test]
fn select_by_a_compare_of_its_operands_keeps_subnormals() {
    let f32s = (
        vec![-1e-40f32, 1e-40, -1e-40, 2.0, -1e-40, 1e-40, 0.0],
        vec![0.3f32, 0.3, -0.0, 1e-40, 0.3, -5.0, 1e-40],
    );
    let f64s = (
        vec![-1e-310f64, 1e-310, 2.0, -1e-310, 0.5],
        vec![0.3f64, -0.3, 1e-310, -0.0, -1e-310],
    );
    for dir in ["LT", "LE", "GT", "GE"] {
        for (t, f) in [("x", "y"), ("y", "x")] {
            for (ty, x, y) in [
                (
                    "f32",
                    Literal::from_vec(&[7], f32s.0.clone()).unwrap(),
                    Literal::from_vec(&[7], f32s.1.clone()).unwrap(),
                ),
                (
                    "f64",
                    Literal::from_vec(&[5], f64s.0.clone()).unwrap(),
                    Literal::from_vec(&[5], f64s.1.clone()).unwrap(),
                ),
            ] {
                let n = x.shape().as_array().unwrap().element_count();
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  \
                     y = {ty}[{n}]{{0}} parameter(1)\n  \
                     c = pred[{n}]{{0}} compare(x, y), direction={dir}\n  \
                     ROOT r = {ty}[{n}]{{0}} select(c, {t}, {f})\n}}"
                );
                for native in every_backend() {
                    let c = compile_with(&text, native);
                    let want = interpret(&c, &[&x, &y]).unwrap();
                    assert_same(&run(&c, &[&x, &y]), &want, &text);
                }
            }
        }
    }
}

/// Arithmetic on a subnormal constant reads it as zero in every lane:
/// Cranelift's mid-end would fold scalar-tail arithmetic on constants in
/// IEEE arithmetic (`rsqrt(1e-40)` as `1e20`, not `inf`).
#[test]
fn subnormal_constants_act_as_zeros_in_tails_too() {
    for (ty, c) in [("f32", "1e-40"), ("f32", "-1e-40"), ("f64", "1e-310")] {
        for op in ["rsqrt", "sqrt", "negate", "abs"] {
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {ty}[5]{{0}} parameter(0)\n  \
                 k = {ty}[] constant({c})\n  b = {ty}[5]{{0}} broadcast(k), dimensions={{}}\n  \
                 u = {ty}[5]{{0}} {op}(b)\n  ROOT r = {ty}[5]{{0}} multiply(u, x)\n}}"
            );
            let x = if ty == "f32" {
                Literal::from_vec(&[5], vec![1.0f32, -2.0, 0.5, 3.0, -1.0]).unwrap()
            } else {
                Literal::from_vec(&[5], vec![1.0f64, -2.0, 0.5, 3.0, -1.0]).unwrap()
            };
            for native in every_backend() {
                let c = compile_with(&text, native);
                let want = interpret(&c, &[&x]).unwrap();
                assert_same(&run(&c, &[&x]), &want, &text);
            }
        }
    }
}

/// A staged function (tanh, emitted a stage at a time across the vectors
/// of a loop step) of a broadcast scalar has the same argument in every
/// vector: staged once per round (it was staged once per vector, past its
/// last stage, and the emitter panicked).
#[test]
fn staged_tanh_of_a_broadcast_scalar() {
    let text = "HloModule m
ENTRY e {
  x = f32[200]{0} parameter(0)
  q = f32[] parameter(1)
  qb = f32[200]{0} broadcast(q), dimensions={}
  t = f32[200]{0} tanh(qb)
  u = f32[200]{0} tanh(x)
  ROOT r = f32[200]{0} multiply(t, u)
}";
    let x = Literal::from_vec(&[200], (0..200).map(|i| i as f32 * 0.05 - 5.0).collect()).unwrap();
    // The kernels' tanh is XLA's (within 5 ulp), the interpreter's exact.
    for q in [0.75f32, -3.0, 1e-5] {
        let q = Literal::from_vec(&[], vec![q]).unwrap();
        assert_eq!(check_within_ulps(text, &[&x, &q], 12), Checked::Same);
    }
}
