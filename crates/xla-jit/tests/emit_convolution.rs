//! `convolution` kernels against the interpreter (bit for bit: the kernels
//! sum in the interpreter's order) and the worked examples of `docs/semantics.md`,
//! *Convolution*: NCHW, NHWC, 1-D and 3-D dimension numbers, strides, padding
//! (negative too), lhs and rhs dilation, window reversal, feature and
//! batch groups, bf16/f16/f64/s8→s32/bf16→f32, size-1 and size-0
//! dimensions, non-default layouts, and fusion with its consumers.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, Shape};

/// A literal of `shape` (any layout) with distinct, sign-mixed values whose
/// float sums round (so the summation order shows).
fn data(shape: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let n = a.element_count() as usize;
    let lit = if a.element_type().is_integral() {
        let ints: Vec<i64> = (0..n).map(|i| ((i * 37 + 11) % 101) as i64 - 50).collect();
        Literal::from_vec(a.dims(), ints).unwrap()
    } else {
        let values: Vec<f64> = (0..n)
            .map(|i| (((i * 37 + 11) % 101) as f64 - 50.0) * if i % 3 == 0 { 1.1e-3 } else { 0.77 })
            .collect();
        Literal::from_vec(a.dims(), values).unwrap()
    };
    let lit = lit.convert(a.element_type()).unwrap();
    lit.relayout(&a.layout_or_default()).unwrap()
}

/// A module convolving `lhs` with `rhs` into `out`; `attrs` follow the
/// operands (`window={…}, dim_labels=…`, group counts).
fn module(lhs: &str, rhs: &str, out: &str, attrs: &str) -> String {
    format!(
        "HloModule m\n\
         ENTRY e {{\n  p0 = {lhs} parameter(0)\n  p1 = {rhs} parameter(1)\n  \
         ROOT c = {out} convolution(p0, p1), {attrs}\n}}"
    )
}

/// Checks the kernels against the interpreter on generated operands.
fn check_conv(lhs: &str, rhs: &str, out: &str, attrs: &str) {
    let text = module(lhs, rhs, out, attrs);
    let (x, w) = (data(lhs), data(rhs));
    assert_eq!(check(&text, &[&x, &w]), Checked::Same, "{text}");
}

/// The kernels' f32 result in row-major order (checked against the
/// interpreter first).
fn run_f32(text: &str, args: &[&Literal]) -> Vec<f32> {
    assert_eq!(check(text, args), Checked::Same, "{text}");
    let c = compile(text);
    let out = run(&c, args);
    let default = xla_core::Layout::default_for_rank(out.array_shape().unwrap().rank());
    out.relayout(&default)
        .unwrap()
        .data::<f32>()
        .unwrap()
        .to_vec()
}

#[test]
fn worked_examples_2d() {
    let x = Literal::from_vec(&[1, 1, 3, 3], (1..=9).map(|v| v as f32).collect()).unwrap();
    let w = Literal::from_vec(&[1, 1, 2, 2], vec![1f32, 0., 0., -1.]).unwrap();
    let cases: [(&str, &str, &[f32]); 6] = [
        ("f32[1,1,2,2]", "size=2x2", &[-4., -4., -4., -4.]),
        (
            "f32[1,1,2,2]",
            "size=2x2 stride=2x2 pad=1_1x1_1",
            &[-1., -3., -7., -4.],
        ),
        (
            "f32[1,1,3,3]",
            "size=2x2 pad=0_1x0_1",
            &[-4., -4., 3., -4., -4., 6., 7., 8., 9.],
        ),
        ("f32[1,1,1,2]", "size=2x2 pad=-1_0x0_0", &[-4., -4.]),
        (
            "f32[1,1,4,4]",
            "size=2x2 lhs_dilate=2x2",
            &[
                1., 0., 2., 0., 0., -5., 0., -6., 4., 0., 5., 0., 0., -8., 0., -9.,
            ],
        ),
        ("f32[1,1,1,1]", "size=2x2 rhs_dilate=2x2", &[-8.]),
    ];
    for (out, window, want) in cases {
        let text = module(
            "f32[1,1,3,3]",
            "f32[1,1,2,2]",
            out,
            &format!("window={{{window}}}, dim_labels=bf01_oi01->bf01"),
        );
        assert_eq!(run_f32(&text, &[&x, &w]), want, "{window}");
    }
}

#[test]
fn worked_examples_1d() {
    let x = Literal::from_vec(&[1, 2, 4], vec![1f32, 2., 3., 4., 10., 20., 30., 40.]).unwrap();
    let plain = Literal::from_vec(&[2, 2, 2], vec![1f32, 1., 0., 0., 0., 0., 1., -1.]).unwrap();
    let text = module(
        "f32[1,2,4]",
        "f32[2,2,2]",
        "f32[1,2,3]",
        "window={size=2}, dim_labels=bf0_oi0->bf0",
    );
    assert_eq!(
        run_f32(&text, &[&x, &plain]),
        [3., 5., 7., -10., -10., -10.]
    );
    let grouped = Literal::from_vec(&[2, 1, 2], vec![1f32, 1., 1., -1.]).unwrap();
    let text = module(
        "f32[1,2,4]",
        "f32[2,1,2]",
        "f32[1,2,3]",
        "window={size=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2",
    );
    assert_eq!(
        run_f32(&text, &[&x, &grouped]),
        [3., 5., 7., -10., -10., -10.]
    );
    let batches = Literal::from_vec(&[2, 1, 3], vec![1f32, 2., 3., 10., 20., 30.]).unwrap();
    let text = module(
        "f32[2,1,3]",
        "f32[2,1,2]",
        "f32[1,2,2]",
        "window={size=2}, dim_labels=bf0_oi0->bf0, batch_group_count=2",
    );
    assert_eq!(run_f32(&text, &[&batches, &grouped]), [3., 5., -10., -10.]);
}

/// Strides, padding (also negative and straddling vectors) and dilations,
/// with lanes along the output feature (NHWC) and along a spatial
/// dimension (NCHW).
#[test]
fn windows_nhwc_and_nchw() {
    // (input spatial, kernel, window, output spatial)
    let cases = [
        ("9,10", "3,3", "size=3x3", "7,8"),
        ("9,10", "3,3", "size=3x3 pad=1_1x1_1", "9,10"),
        ("9,10", "3,3", "size=3x3 stride=2x3 pad=1_1x2_0", "5,4"),
        ("9,10", "2,3", "size=2x3 pad=-1_2x3_-2", "9,9"),
        ("9,10", "2,3", "size=2x3 rhs_dilate=2x3", "7,4"),
        ("5,6", "2,3", "size=2x3 pad=1_1x2_2 lhs_dilate=2x3", "10,18"),
        (
            "6,7",
            "3,2",
            "size=3x2 stride=2x1 pad=2_1x0_3 lhs_dilate=1x2 rhs_dilate=2x1",
            "3,15",
        ),
        ("4,5", "4,5", "size=4x5 pad=0_0x0_0", "1,1"),
        // Window dilation with clipped tap ranges, and outputs whose
        // windows lie entirely in the padding.
        (
            "9,10",
            "3,3",
            "size=3x3 stride=2x2 pad=4_3x2_5 rhs_dilate=3x2",
            "5,7",
        ),
        ("3,4", "2,2", "size=2x2 pad=6_6x1_1", "14,5"),
    ];
    for (input, kernel, window, output) in cases {
        check_conv(
            &format!("f32[2,{input},5]"),
            &format!("f32[{kernel},5,6]"),
            &format!("f32[2,{output},6]"),
            &format!("window={{{window}}}, dim_labels=b01f_01io->b01f"),
        );
        check_conv(
            &format!("f32[2,5,{input}]"),
            &format!("f32[6,5,{kernel}]"),
            &format!("f32[2,6,{output}]"),
            &format!("window={{{window}}}, dim_labels=bf01_oi01->bf01"),
        );
        // Lanes along the batch dimension.
        check_conv(
            &format!("f32[{input},5,8]"),
            &format!("f32[6,{kernel},5]"),
            &format!("f32[6,{output},8]"),
            &format!("window={{{window}}}, dim_labels=01fb_o01i->f01b"),
        );
    }
}

#[test]
fn reversed_window() {
    check_conv(
        "f32[1,3,7,6]",
        "f32[4,3,3,2]",
        "f32[1,4,7,5]",
        "window={size=3x2 pad=1_1x0_0 rhs_reversal=1x0}, dim_labels=bf01_oi01->bf01",
    );
}

#[test]
fn one_and_three_spatial_dimensions() {
    check_conv(
        "f32[2,9,3]",
        "f32[5,3,4]",
        "f32[2,2,4]",
        "window={size=5 stride=3 pad=4_0 rhs_dilate=2}, dim_labels=b0f_0io->b0f",
    );
    check_conv(
        "f32[1,3,4,3,5]",
        "f32[2,3,2,3,2]",
        "f32[1,2,4,1,6]",
        "window={size=2x3x2 stride=1x2x1 pad=1_0x0_1x1_1}, dim_labels=bf012_oi012->bf012",
    );
    check_conv(
        "f32[1,4,3,5,3]",
        "f32[2,3,2,3,2]",
        "f32[1,4,1,6,2]",
        "window={size=2x3x2 stride=1x2x1 pad=1_0x0_1x1_1}, dim_labels=b012f_012io->b012f",
    );
}

#[test]
fn feature_groups() {
    // Depthwise NHWC: 8 output features, 2 per input feature.
    check_conv(
        "f32[1,6,6,4]",
        "f32[3,3,1,8]",
        "f32[1,6,6,8]",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=4",
    );
    // Depthwise, one output feature per input feature: lanes along the
    // output feature read consecutive input features (also with two input
    // features per group).
    check_conv(
        "f32[2,6,7,12]",
        "f32[3,3,1,12]",
        "f32[2,6,7,12]",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=12",
    );
    check_conv(
        "f32[2,6,7,12]",
        "f32[3,3,2,6]",
        "f32[2,4,7,6]",
        "window={size=3x3 pad=0_0x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6",
    );
    // Grouped NCHW (lanes along x) and grouped with lanes along features
    // crossing groups.
    check_conv(
        "f32[2,6,7,9]",
        "f32[6,2,3,3]",
        "f32[2,6,5,9]",
        "window={size=3x3 pad=0_0x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=3",
    );
    check_conv(
        "f32[2,7,9,6]",
        "f32[3,3,2,6]",
        "f32[2,5,9,6]",
        "window={size=3x3 pad=0_0x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3",
    );
}

#[test]
fn batch_groups() {
    check_conv(
        "f32[2,3,5,5]",
        "f32[6,3,2,2]",
        "f32[1,6,4,4]",
        "window={size=2x2}, dim_labels=bf01_oi01->bf01, batch_group_count=2",
    );
    check_conv(
        "f32[6,5,5,3]",
        "f32[2,2,3,6]",
        "f32[2,5,5,6]",
        "window={size=2x2 pad=0_1x1_0}, dim_labels=b01f_01io->b01f, batch_group_count=3",
    );
}

#[test]
fn element_types() {
    let window = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
    for ty in ["bf16", "f16", "f64", "s32", "s8", "u8", "s64"] {
        check_conv(
            &format!("{ty}[1,5,6,4]"),
            &format!("{ty}[3,3,4,3]"),
            &format!("{ty}[1,5,6,3]"),
            window,
        );
    }
    // Mixed: s8 operands with an s32 result, bf16 and f16 into f32.
    check_conv(
        "s8[1,2,5,5]",
        "s8[3,2,3,3]",
        "s32[1,3,5,5]",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01",
    );
    check_conv("bf16[1,5,6,4]", "bf16[3,3,4,3]", "f32[1,5,6,3]", window);
    check_conv("f16[1,5,6,4]", "f16[3,3,4,3]", "f32[1,5,6,3]", window);
}

/// bf16 products are summed in f32 and rounded once (`docs/semantics.md`,
/// *Accumulation in dot and convolution*): nine taps of `2⁻⁹` and one of 1 sum to `1.015625`.
#[test]
fn bf16_sums_round_once() {
    let x = Literal::from_vec(&[1, 1, 10], vec![1f32; 10])
        .unwrap()
        .convert(xla_core::PrimitiveType::Bf16)
        .unwrap();
    let mut weights = vec![2f32.powi(-9); 10];
    weights[0] = 1.0;
    let w = Literal::from_vec(&[1, 1, 10], weights)
        .unwrap()
        .convert(xla_core::PrimitiveType::Bf16)
        .unwrap();
    let text = module(
        "bf16[1,1,10]",
        "bf16[1,1,10]",
        "bf16[1,1,1]",
        "window={size=10}, dim_labels=bf0_oi0->bf0",
    );
    assert_eq!(check(&text, &[&x, &w]), Checked::Same);
    let c = compile(&text);
    let out = run(&c, &[&x, &w])
        .convert(xla_core::PrimitiveType::F32)
        .unwrap();
    assert_eq!(out.data::<f32>().unwrap(), [1.015625]);
}

#[test]
fn size_one_and_size_zero_dimensions() {
    let labels = "dim_labels=b01f_01io->b01f";
    check_conv(
        "f32[1,1,1,1]",
        "f32[1,1,1,1]",
        "f32[1,1,1,1]",
        &format!("window={{size=1x1}}, {labels}"),
    );
    check_conv(
        "f32[0,5,5,3]",
        "f32[3,3,3,4]",
        "f32[0,3,3,4]",
        &format!("window={{size=3x3}}, {labels}"),
    );
    check_conv(
        "f32[2,5,5,0]",
        "f32[3,3,0,4]",
        "f32[2,3,3,4]",
        &format!("window={{size=3x3}}, {labels}"),
    );
    check_conv(
        "f32[2,5,5,3]",
        "f32[3,3,3,0]",
        "f32[2,3,3,0]",
        &format!("window={{size=3x3}}, {labels}"),
    );
    // The window is larger than the padded input: no output positions.
    check_conv(
        "f32[2,2,5,3]",
        "f32[3,3,3,4]",
        "f32[2,0,3,4]",
        &format!("window={{size=3x3}}, {labels}"),
    );
}

#[test]
fn non_default_layouts() {
    check_conv(
        "f32[2,7,6,5]{0,1,2,3}",
        "f32[3,2,5,6]{2,3,0,1}",
        "f32[2,7,5,6]{1,3,2,0}",
        "window={size=3x2 pad=1_1x0_0}, dim_labels=b01f_01io->b01f",
    );
    // NHWC operands, NCHW output.
    check_conv(
        "f32[1,5,5,3]",
        "f32[2,2,3,3]",
        "f32[1,3,4,4]",
        "window={size=2x2}, dim_labels=b01f_01io->bf01",
    );
}

/// Consumers of the convolution (bias add, relu) join its kernel; a
/// computed operand is materialized rather than recomputed per tap.
#[test]
fn fusion() {
    let text = "HloModule m\n\
        ENTRY e {\n  x = f32[1,6,6,4] parameter(0)\n  w = f32[3,3,4,8] parameter(1)\n  \
        b = f32[8] parameter(2)\n  \
        c = f32[1,6,6,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n  \
        bb = f32[1,6,6,8] broadcast(b), dimensions={3}\n  s = f32[1,6,6,8] add(c, bb)\n  \
        z = f32[] constant(0)\n  zb = f32[1,6,6,8] broadcast(z), dimensions={}\n  \
        ROOT r = f32[1,6,6,8] maximum(s, zb)\n}";
    let args = [data("f32[1,6,6,4]"), data("f32[3,3,4,8]"), data("f32[8]")];
    let refs: Vec<&Literal> = args.iter().collect();
    assert_eq!(check(text, &refs), Checked::Same);
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
    let text = text.replace(
        "parameter(0)\n",
        "parameter(0)\n  xe = f32[1,6,6,4] exponential(x0)\n",
    );
    let text = text
        .replace(
            "x = f32[1,6,6,4] parameter(0)",
            "x0 = f32[1,6,6,4] parameter(0)",
        )
        .replace("xe = ", "x = ");
    assert_eq!(check(&text, &refs), Checked::Same);
    let c = compile(&text);
    assert_eq!(c.plan.fusions.len(), 2, "{}", plan_text(&c));
    assert!(
        plan_text(&c).contains("a convolution operand"),
        "{}",
        plan_text(&c)
    );
}

/// A reduce-window (max pooling) reading a convolution would recompute it
/// for every tap: the convolution gets its own kernel. A reduce of a
/// convolution reads each element once and fuses with it.
#[test]
fn fusion_with_windows_and_reductions() {
    let conv = "c = f32[1,6,6,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, \
                dim_labels=b01f_01io->b01f";
    let head = "HloModule m\n\
        f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n\
        ENTRY e {\n  x = f32[1,6,6,4] parameter(0)\n  w = f32[3,3,4,8] parameter(1)\n  \
        z = f32[] constant(0)\n";
    let args = [data("f32[1,6,6,4]"), data("f32[3,3,4,8]")];
    let refs: Vec<&Literal> = args.iter().collect();
    let pooled = format!(
        "{head}  {conv}\n  ROOT p = f32[1,3,3,8] reduce-window(c, z), \
         window={{size=1x2x2x1 stride=1x2x2x1}}, to_apply=f\n}}"
    );
    assert_eq!(check(&pooled, &refs), Checked::Same);
    let c = compile(&pooled);
    assert_eq!(c.plan.fusions.len(), 2, "{}", plan_text(&c));
    assert!(
        plan_text(&c).contains("recomputed for every window tap or comparison"),
        "{}",
        plan_text(&c)
    );
    let reduced = format!(
        "{head}  {conv}\n  ROOT r = f32[1,8] reduce(c, z), dimensions={{1,2}}, to_apply=f\n}}"
    );
    assert_eq!(check(&reduced, &refs), Checked::Same);
    let c = compile(&reduced);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
}
