//! `select-and-scatter` kernels against the interpreter and the worked examples of
//! `docs/semantics.md`, *Select-and-scatter*: overlapping windows, ties (the first of equal
//! values stays selected with `ge`), `le` selects, padding (never
//! selected), non-add scatters, size-0 sources, non-default layouts and a
//! fused operand producer.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, Shape};

/// A literal of `shape` (any layout) with values that repeat (ties).
fn data(shape: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let n = a.element_count() as usize;
    let values: Vec<f64> = (0..n).map(|i| ((i * 37 + 11) % 13) as f64 - 5.0).collect();
    let lit = Literal::from_vec(a.dims(), values).unwrap();
    let lit = lit.convert(a.element_type()).unwrap();
    lit.relayout(&a.layout_or_default()).unwrap()
}

/// A module selecting with `select` (`ge`, `le`, …) and scattering with
/// `scatter` (`add`, `maximum`, …).
fn module(
    ty: &str,
    operand: &str,
    source: &str,
    window: &str,
    select: &str,
    scatter: &str,
) -> String {
    format!(
        "HloModule m\nsel {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
         ROOT r = pred[] compare(a, b), direction={select}\n}}\n\
         sca {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
         ROOT r = {ty}[] {scatter}(a, b)\n}}\n\
         ENTRY e {{\n  x = {operand} parameter(0)\n  s = {source} parameter(1)\n  \
         i = {ty}[] constant(0)\n  \
         ROOT r = {operand} select-and-scatter(x, s, i), window={{{window}}}, select=sel, \
         scatter=sca\n}}"
    )
}

fn f32s(dims: &[i64], values: &[f32]) -> Literal {
    Literal::from_vec(dims, values.to_vec()).unwrap()
}

/// Checks the kernels against the interpreter and, when given, against
/// `want` (row-major `f32` values).
fn check_sas(text: &str, args: &[&Literal], want: Option<&[f32]>) {
    assert_eq!(check(text, args), Checked::Same, "{text}");
    if let Some(want) = want {
        let got = run(&compile(text), args);
        assert_eq!(got.data::<f32>().unwrap(), want, "{text}");
    }
}

#[test]
fn worked_examples() {
    let x = f32s(
        &[4, 6],
        &[
            7., 2., 5., 3., 10., 2., 3., 8., 9., 3., 4., 2., 1., 5., 7., 5., 6., 1., 0., 6., 2.,
            7., 2., 8.,
        ],
    );
    let src = f32s(&[2, 2], &[2., 6., 3., 1.]);
    let text = module(
        "f32",
        "f32[4,6]",
        "f32[2,2]",
        "size=2x3 stride=2x3",
        "GE",
        "add",
    );
    #[rustfmt::skip]
    let want = [
        0., 0., 0., 0., 6., 0.,
        0., 0., 2., 0., 0., 0.,
        0., 0., 3., 0., 0., 0.,
        0., 0., 0., 0., 0., 1.,
    ];
    check_sas(&text, &[&x, &src], Some(&want));
    let x = f32s(
        &[4, 5],
        &[
            7., 2., 5., 3., 8., 3., 8., 9., 3., 4., 1., 5., 7., 5., 6., 0., 6., 2., 10., 2.,
        ],
    );
    let text = module(
        "f32",
        "f32[4,5]",
        "f32[2,2]",
        "size=2x3 stride=2x2",
        "GE",
        "add",
    );
    #[rustfmt::skip]
    let want = [
        0., 0., 0., 0., 0.,
        0., 0., 8., 0., 0.,
        0., 0., 3., 0., 0.,
        0., 0., 0., 1., 0.,
    ];
    check_sas(&text, &[&x, &src], Some(&want));
    let x = f32s(&[6], &[1., 9., 3., 7., 5., 6.]);
    let src = f32s(&[4], &[34., 42., 53., 19.]);
    let text = module("f32", "f32[6]", "f32[4]", "size=3", "GE", "add");
    check_sas(&text, &[&x, &src], Some(&[0., 76., 0., 72., 0., 0.]));
}

#[test]
fn ties_first_wins_with_ge_last_with_gt_and_le() {
    let x = f32s(&[5], &[4., 4., 1., 4., 4.]);
    let src = f32s(&[2], &[10., 20.]);
    let ge = module("f32", "f32[5]", "f32[2]", "size=3 stride=2", "GE", "add");
    check_sas(&ge, &[&x, &src], Some(&[10., 0., 0., 20., 0.]));
    let text = module("f32", "f32[5]", "f32[2]", "size=3 stride=2", "GT", "add");
    check_sas(&text, &[&x, &src], Some(&[0., 10., 0., 0., 20.]));
    // The minimum 1 at position 2 is in both windows.
    let text = module("f32", "f32[5]", "f32[2]", "size=3 stride=2", "LE", "add");
    check_sas(&text, &[&x, &src], Some(&[0., 0., 30., 0., 0.]));
}

#[test]
fn overlapping_windows_padding_and_types() {
    for (ty, scatter) in [
        ("f32", "add"),
        ("s32", "maximum"),
        ("bf16", "add"),
        ("s8", "add"),
    ] {
        for (select, window, src) in [
            ("GE", "size=2x3 stride=2x2 pad=1_0x1_1", "[3,4]"),
            ("LE", "size=3x3 stride=1x1 pad=1_1x1_1", "[5,7]"),
            ("GE", "size=2x2 stride=1x2", "[4,3]"),
            ("GT", "size=1x1", "[5,7]"),
        ] {
            let operand = format!("{ty}[5,7]");
            let source = format!("{ty}{src}");
            let text = module(ty, &operand, &source, window, select, scatter);
            check_sas(&text, &[&data(&operand), &data(&source)], None);
        }
    }
}

#[test]
fn size_zero_and_layouts() {
    let text = module(
        "f32",
        "f32[0,4]",
        "f32[0,2]",
        "size=1x2 stride=1x2",
        "GE",
        "add",
    );
    check_sas(&text, &[&data("f32[0,4]"), &data("f32[0,2]")], None);
    let text = module("f32", "f32[4,3]", "f32[4,0]", "size=1x4", "GE", "add");
    check_sas(&text, &[&data("f32[4,3]"), &data("f32[4,0]")], None);
    for (ol, sl) in [
        ("{0,1}", "{1,0}"),
        ("{1,0:T(2,2)}", "{0,1}"),
        ("{0,1:P(40,40)}", "{0,1}"),
    ] {
        let operand = format!("f32[9,11]{ol}");
        let source = format!("f32[4,5]{sl}");
        let text = module("f32", &operand, &source, "size=3x3 stride=2x2", "GE", "add");
        check_sas(&text, &[&data(&operand), &data(&source)], None);
    }
}

#[test]
fn a_padded_operand_fuses() {
    // jax's max-pool gradient with SAME padding pads the operand with −inf.
    let text = "HloModule m\nsel {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                ROOT r = pred[] compare(a, b), direction=GE\n}\n\
                sca {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                ROOT r = f32[] add(a, b)\n}\n\
                ENTRY e {\n  x = f32[1,8,10,2] parameter(0)\n  g = f32[1,4,5,2] parameter(1)\n  \
                ninf = f32[] constant(-inf)\n  \
                p = f32[1,9,11,2] pad(x, ninf), padding=0_0x0_1x0_1x0_0\n  \
                zero = f32[] constant(0)\n  \
                ROOT r = f32[1,9,11,2] select-and-scatter(p, g, zero), \
                window={size=1x3x3x1 stride=1x2x2x1}, select=sel, scatter=sca\n}";
    let args = [&data("f32[1,8,10,2]"), &data("f32[1,4,5,2]")];
    check_sas(text, &args, None);
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
}
