//! Differential tests of complex elements (`c64`, `c128`) in kernels:
//! arithmetic, comparisons, conversions, data movement, reductions and
//! maps, run by the kernels and by the interpreter on every pair of edge
//! components (±0, ±1, ±∞, NaN, huge and tiny magnitudes, subnormals),
//! compared bit for bit component by component (any NaN equals any NaN). 169 elements: odd, so
//! `c64`'s two-lane vector loop and its scalar tail both run.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, PrimitiveType, C128, C64};

use PrimitiveType as P;

const PARTS: [f64; 13] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    3.0,
    -4.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e300,
    1e-300,
    1e-310,
];

/// Every pair of edge components, in order (`rotate` shifts the pairs so a
/// second operand differs from the first).
fn edges(ty: PrimitiveType, rotate: usize) -> Literal {
    let mut pairs: Vec<(f64, f64)> = PARTS
        .iter()
        .flat_map(|&re| PARTS.iter().map(move |&im| (re, im)))
        .collect();
    pairs.rotate_left(rotate);
    if ty == P::C64 {
        // f32 edges: 1e30/1e-30 huge/tiny, 1e-40 subnormal.
        let f = |x: f64| match x {
            1e300 => 1e30f32,
            1e-300 => 1e-30,
            1e-310 => 1e-40,
            x => x as f32,
        };
        let v: Vec<C64> = pairs.iter().map(|&(r, i)| C64::new(f(r), f(i))).collect();
        Literal::vector(&v)
    } else {
        let v: Vec<C128> = pairs.iter().map(|&(r, i)| C128::new(r, i)).collect();
        Literal::vector(&v)
    }
}

const N: usize = PARTS.len() * PARTS.len();

fn unary_module(op: &str, ty: PrimitiveType, out: PrimitiveType) -> String {
    let (t, o) = (ty.name(), out.name());
    format!(
        "HloModule m\nENTRY e {{\n  x = {t}[{N}]{{0}} parameter(0)\n  \
         ROOT r = {o}[{N}]{{0}} {op}(x)\n}}"
    )
}

fn binary_module(op: &str, ty: PrimitiveType, out: PrimitiveType, attrs: &str) -> String {
    let (t, o) = (ty.name(), out.name());
    format!(
        "HloModule m\nENTRY e {{\n  x = {t}[{N}]{{0}} parameter(0)\n  \
         y = {t}[{N}]{{0}} parameter(1)\n  ROOT r = {o}[{N}]{{0}} {op}(x, y){attrs}\n}}"
    )
}

#[test]
fn unary_ops_match_the_interpreter() {
    for ty in [P::C64, P::C128] {
        let x = edges(ty, 0);
        let real = ty.component_type();
        for op in ["real", "imag", "abs"] {
            let text = unary_module(op, ty, real);
            assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
        }
        for op in [
            "negate",
            "sign",
            "exponential",
            "exponential-minus-one",
            "log",
            "log-plus-one",
            "sqrt",
            "rsqrt",
            "tanh",
            "sine",
            "cosine",
            "tan",
            "logistic",
        ] {
            let text = unary_module(op, ty, ty);
            assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
        }
    }
}

#[test]
fn binary_ops_and_comparisons_match_the_interpreter() {
    for ty in [P::C64, P::C128] {
        let x = edges(ty, 0);
        for rotate in [0, 1, 14, 80] {
            let y = edges(ty, rotate);
            for op in ["add", "subtract", "multiply", "divide", "power", "atan2"] {
                let text = binary_module(op, ty, ty, "");
                assert_eq!(check(&text, &[&x, &y]), Checked::Same, "{text}");
            }
            for dir in ["EQ", "NE"] {
                let text = binary_module("compare", ty, P::Pred, &format!(", direction={dir}"));
                assert_eq!(check(&text, &[&x, &y]), Checked::Same, "{text}");
            }
        }
    }
}

#[test]
fn complex_from_components_matches_the_interpreter() {
    for ty in [P::F32, P::F64] {
        let re = Literal::vector(&PARTS).convert(ty).unwrap();
        let mut rotated = PARTS;
        rotated.rotate_left(5);
        let im = Literal::vector(&rotated).convert(ty).unwrap();
        let t = ty.name();
        let c = if ty == P::F32 { "c64" } else { "c128" };
        let n = PARTS.len();
        let text = format!(
            "HloModule m\nENTRY e {{\n  x = {t}[{n}]{{0}} parameter(0)\n  \
             y = {t}[{n}]{{0}} parameter(1)\n  ROOT r = {c}[{n}]{{0}} complex(x, y)\n}}"
        );
        assert_eq!(check(&text, &[&re, &im]), Checked::Same, "{text}");
    }
}

#[test]
fn conversions_to_and_from_complex_match_the_interpreter() {
    let values = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        -7.75,
        300.0,
        1e10,
        -3e9,
        65520.0,
        1e-40,
        1e-310,
        f64::INFINITY,
        f64::NAN,
    ];
    for c in [P::C64, P::C128] {
        for r in REAL {
            let x = Literal::vector(&values).convert(r).unwrap();
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {}[14]{{0}} parameter(0)\n  \
                 ROOT r = {}[14]{{0}} convert(x)\n}}",
                r.name(),
                c.name()
            );
            assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
            if r == P::Pred {
                continue;
            }
            let z = edges(c, 3);
            let text = unary_module("convert", c, r);
            assert_eq!(check(&text, &[&z]), Checked::Same, "{text}");
        }
        let other = if c == P::C64 { P::C128 } else { P::C64 };
        let text = unary_module("convert", c, other);
        assert_eq!(check(&text, &[&edges(c, 0)]), Checked::Same, "{text}");
    }
}

#[test]
fn data_movement_of_complex_values_matches_the_interpreter() {
    for ty in [P::C64, P::C128] {
        let t = ty.name();
        let x = edges(ty, 0);
        let y = edges(ty, 7);
        let modules = [
            // transpose into a non-default layout, reverse, slice
            format!(
                "HloModule m\nENTRY e {{\n  x = {t}[{N}]{{0}} parameter(0)\n  \
                 r = {t}[13,13]{{1,0}} reshape(x)\n  \
                 t = {t}[13,13]{{0,1}} transpose(r), dimensions={{1,0}}\n  \
                 v = {t}[13,13]{{0,1}} reverse(t), dimensions={{1}}\n  \
                 ROOT s = {t}[5,7]{{1,0}} slice(v), slice={{[1:11:2], [0:13:2]}}\n}}"
            ),
            // broadcast, pad with a constant, concatenate, iota, select
            format!(
                "HloModule m\nENTRY e {{\n  x = {t}[{N}]{{0}} parameter(0)\n  \
                 y = {t}[{N}]{{0}} parameter(1)\n  \
                 c = {t}[] constant((1.5, -2))\n  \
                 p = {t}[{}]{{0}} pad(x, c), padding=3_4_1\n  \
                 q = {t}[{}]{{0}} concatenate(y, y, y), dimensions={{0}}\n  \
                 s = {t}[{}]{{0}} slice(q), slice={{[0:{}]}}\n  \
                 i = {t}[{}]{{0}} iota(), iota_dimension=0\n  \
                 k = pred[{}]{{0}} compare(s, i), direction=NE\n  \
                 m = {t}[{}]{{0}} select(k, p, s)\n  \
                 b = {t}[3,{}]{{0,1}} broadcast(m), dimensions={{1}}\n  \
                 ROOT a = {t}[3,{}]{{0,1}} add(b, b)\n}}",
                2 * N + 6,
                3 * N,
                2 * N + 6,
                2 * N + 6,
                2 * N + 6,
                2 * N + 6,
                2 * N + 6,
                2 * N + 6,
                2 * N + 6,
            ),
            // dynamic-slice, dynamic-update-slice
            format!(
                "HloModule m\nENTRY e {{\n  x = {t}[{N}]{{0}} parameter(0)\n  \
                 y = {t}[{N}]{{0}} parameter(1)\n  \
                 i = s32[] constant(100)\n  j = s32[] constant(-3)\n  \
                 d = {t}[50]{{0}} dynamic-slice(y, i), dynamic_slice_sizes={{50}}\n  \
                 n = {t}[50]{{0}} negate(d)\n  \
                 ROOT u = {t}[{N}]{{0}} dynamic-update-slice(x, n, j)\n}}"
            ),
        ];
        for (k, text) in modules.iter().enumerate() {
            let args: &[&Literal] = if k == 0 { &[&x] } else { &[&x, &y] };
            assert_eq!(check(text, args), Checked::Same, "{text}");
        }
    }
}

#[test]
fn bitcast_convert_of_complex_values_matches_the_interpreter() {
    let x = edges(P::C128, 0);
    let text = format!(
        "HloModule m\nENTRY e {{\n  x = c128[{N}]{{0}} parameter(0)\n  \
         b = c64[{N},2]{{1,0}} bitcast-convert(x)\n  \
         n = c64[{N},2]{{1,0}} negate(b)\n  \
         ROOT r = c128[{N}]{{0}} bitcast-convert(n)\n}}"
    );
    assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
    let x = edges(P::C64, 0);
    let text = format!(
        "HloModule m\nENTRY e {{\n  x = c64[{N}]{{0}} parameter(0)\n  \
         ROOT r = c64[{N}]{{0}} bitcast-convert(x)\n}}"
    );
    assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
}

#[test]
fn complex_arithmetic_runs_on_vectors() {
    let c = compile(&binary_module("multiply", P::C128, P::C128, ""));
    let clif: String = c.jit.clif().iter().map(|(_, f)| f.clone()).collect();
    assert!(clif.contains("bitcast.f64x2"), "{clif}");
    let c = compile(&binary_module("multiply", P::C64, P::C64, ""));
    let clif: String = c.jit.clif().iter().map(|(_, f)| f.clone()).collect();
    assert!(clif.contains("bitcast.f32x4"), "{clif}");
    assert!(!clif.contains("call_indirect"), "{clif}");
    let c = compile(&binary_module("divide", P::C64, P::C64, ""));
    let clif: String = c.jit.clif().iter().map(|(_, f)| f.clone()).collect();
    assert!(clif.contains("call_indirect"), "{clif}");
}

/// `c64` or `c128` values with small integer components (sums and
/// products are exact in any order).
fn small(ty: PrimitiveType, n: usize, seed: usize) -> Literal {
    let part = |k: usize| ((k * 7 + seed) % 9) as f64 - 4.0;
    if ty == P::C64 {
        let v: Vec<C64> = (0..n)
            .map(|k| C64::new(part(k) as f32, part(k + 3) as f32))
            .collect();
        Literal::vector(&v)
    } else {
        let v: Vec<C128> = (0..n).map(|k| C128::new(part(k), part(k + 3))).collect();
        Literal::vector(&v)
    }
}

#[test]
fn reductions_and_maps_of_complex_values_match_the_interpreter() {
    for ty in [P::C64, P::C128] {
        let t = ty.name();
        let x = small(ty, 7 * 9, 1)
            .relayout(&xla_core::Layout::default_for_rank(1))
            .unwrap();
        let y = small(ty, 7 * 9, 5);
        let head = format!(
            "HloModule m\nadd {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  \
             ROOT s = {t}[] add(a, b)\n}}\nmul {{\n  a = {t}[] parameter(0)\n  \
             b = {t}[] parameter(1)\n  ROOT s = {t}[] multiply(a, b)\n}}\n\
             ENTRY e {{\n  x = {t}[63]{{0}} parameter(0)\n  y = {t}[63]{{0}} parameter(1)\n  \
             p = {t}[63]{{0}} multiply(x, y)\n  r = {t}[7,9]{{1,0}} reshape(p)\n  \
             z = {t}[] constant((0, 0))\n  one = {t}[] constant((1, 0))\n"
        );
        for root in [
            format!("ROOT s = {t}[7]{{0}} reduce(r, z), dimensions={{1}}, to_apply=add"),
            format!("ROOT s = {t}[9]{{0}} reduce(r, z), dimensions={{0}}, to_apply=add"),
            format!("ROOT s = {t}[] reduce(r, z), dimensions={{0,1}}, to_apply=add"),
            format!("ROOT s = {t}[7]{{0}} reduce(r, one), dimensions={{1}}, to_apply=mul"),
            format!("ROOT s = {t}[7,9]{{1,0}} map(r, r), dimensions={{0,1}}, to_apply=mul"),
        ] {
            let text = format!("{head}  {root}\n}}");
            assert_eq!(check(&text, &[&x, &y]), Checked::Same, "{text}");
        }
    }
}

#[test]
fn row_fusions_and_tiled_layouts_of_complex_values_match_the_interpreter() {
    for ty in [P::C64, P::C128] {
        let t = ty.name();
        let x = small(ty, 63, 2);
        // x − (Σ_row x)·x: a reduce broadcast back along its row.
        let text = format!(
            "HloModule m\nadd {{\n  a = {t}[] parameter(0)\n  b = {t}[] parameter(1)\n  \
             ROOT s = {t}[] add(a, b)\n}}\nENTRY e {{\n  x = {t}[63]{{0}} parameter(0)\n  \
             r = {t}[7,9]{{1,0}} reshape(x)\n  z = {t}[] constant((0, 0))\n  \
             s = {t}[7]{{0}} reduce(r, z), dimensions={{1}}, to_apply=add\n  \
             b = {t}[7,9]{{1,0}} broadcast(s), dimensions={{0}}\n  \
             m = {t}[7,9]{{1,0}} multiply(b, r)\n  ROOT d = {t}[7,9]{{1,0}} subtract(r, m)\n}}"
        );
        assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
        // A tiled result layout.
        let text = format!(
            "HloModule m\nENTRY e {{\n  x = {t}[63]{{0}} parameter(0)\n  \
             r = {t}[7,9]{{1,0}} reshape(x)\n  \
             ROOT n = {t}[9,7]{{1,0:T(2,4)}} transpose(r), dimensions={{1,0}}\n}}"
        );
        assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
    }
}

#[test]
fn c64_sums_keep_signed_zeros_and_infinities() {
    // Row 0: all (−0, −0), summing to (−0, −0); row 1: (−0, +0) and
    // (+0, −0) mixed, summing to (+0, +0); row 2: an infinite and a NaN
    // part.
    let mut v = vec![C64::new(-0.0, -0.0); 9];
    v.extend((0..9).map(|k| {
        if k % 2 == 0 {
            C64::new(-0.0, 0.0)
        } else {
            C64::new(0.0, -0.0)
        }
    }));
    v.extend((0..9).map(|k| {
        C64::new(
            if k == 4 { f32::INFINITY } else { 1.0 },
            if k == 7 { f32::NAN } else { 2.0 },
        )
    }));
    let x = Literal::vector(&v);
    let text = "HloModule m\nadd {\n  a = c64[] parameter(0)\n  b = c64[] parameter(1)\n  \
                ROOT s = c64[] add(a, b)\n}\nENTRY e {\n  x = c64[27]{0} parameter(0)\n  \
                r = c64[3,9]{1,0} reshape(x)\n  z = c64[] constant((-0, -0))\n  \
                ROOT s = c64[3]{0} reduce(r, z), dimensions={1}, to_apply=add\n}";
    assert_eq!(check(text, &[&x]), Checked::Same, "{text}");
    let c = compile(text);
    let got = run(&c, &[&x]).to_vec::<C64>().unwrap();
    assert_eq!(got[0].re.to_bits(), (-0.0f32).to_bits());
    assert_eq!(got[0].im.to_bits(), (-0.0f32).to_bits());
    assert_eq!(got[1].re.to_bits(), 0);
    assert_eq!(got[2].re, f32::INFINITY);
    assert!(got[2].im.is_nan());
}
