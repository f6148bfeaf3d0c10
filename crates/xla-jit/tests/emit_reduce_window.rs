//! `reduce-window` kernels against the interpreter (bit for bit, same fold
//! order) and the worked examples of `docs/semantics.md`, *Reduce-window*: max/min/sum with
//! padding, strides, base and window dilations, cumulative-sum windows,
//! integer, f32, f64 and bf16 types, layouts, and fusion.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, Shape};

/// A literal of `shape` (any layout) with distinct, sign-mixed values whose
/// float sums round (so the fold order shows).
fn data(shape: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let n = a.element_count() as usize;
    let values: Vec<f64> = (0..n)
        .map(|i| (((i * 37 + 11) % 101) as f64 - 50.0) * if i % 3 == 0 { 1.1e-3 } else { 7.7 })
        .collect();
    let lit = Literal::from_vec(a.dims(), values).unwrap();
    let lit = if a.element_type().is_integral() {
        let ints: Vec<i64> = (0..n).map(|i| ((i * 37 + 11) % 101) as i64 - 50).collect();
        Literal::from_vec(a.dims(), ints).unwrap()
    } else {
        lit
    };
    let lit = lit.convert(a.element_type()).unwrap();
    lit.relayout(&a.layout_or_default()).unwrap()
}

/// A module reducing `operand` over `window` with computation `op`
/// (`add`, `maximum`, `minimum`) from the init value `init`.
fn module(operand: &str, out: &str, window: &str, op: &str, init: &str) -> String {
    let ty = operand.split('[').next().unwrap();
    format!(
        "HloModule m\n\
         f {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {op}(a, b)\n}}\n\
         ENTRY e {{\n  p0 = {operand} parameter(0)\n  c = {ty}[] constant({init})\n  \
         ROOT w = {out} reduce-window(p0, c), window={{{window}}}, to_apply=f\n}}"
    )
}

fn check_module(text: &str, args: &[&Literal]) {
    assert_eq!(check(text, args), Checked::Same, "{text}");
}

/// The kernels' result in row-major order.
fn run_f32(text: &str, args: &[&Literal]) -> Vec<f32> {
    check_module(text, args);
    let c = compile(text);
    run(&c, args).data::<f32>().unwrap().to_vec()
}

#[test]
fn worked_examples() {
    let x = Literal::from_vec(
        &[4, 6],
        vec![
            7f32, 2., 5., 3., 10., 2., 3., 8., 9., 3., 4., 2., 1., 5., 7., 5., 6., 1., 0., 6., 2.,
            7., 2., 8.,
        ],
    )
    .unwrap();
    let text = module(
        "f32[4,6]",
        "f32[2,2]",
        "size=2x3 stride=2x3",
        "maximum",
        "-inf",
    );
    assert_eq!(run_f32(&text, &[&x]), [9., 10., 7., 8.]);
    let text = module("f32[4,6]", "f32[3,4]", "size=2x3", "maximum", "-inf");
    assert_eq!(
        run_f32(&text, &[&x]),
        [9., 9., 10., 10., 9., 9., 9., 6., 7., 7., 7., 8.]
    );
    let y = Literal::vector(&[10000f32, 1000., 100., 10., 1.]);
    let text = module("f32[5]", "f32[2]", "size=3 stride=2", "minimum", "inf");
    assert_eq!(run_f32(&text, &[&y]), [100., 1.]);
    let text = module(
        "f32[5]",
        "f32[3]",
        "size=3 stride=2 pad=1_1",
        "minimum",
        "inf",
    );
    assert_eq!(run_f32(&text, &[&y]), [1000., 10., 1.]);
    let z = Literal::vector(&[1f32, 2., 3., 4., 5.]);
    let text = module("f32[5]", "f32[8]", "size=2 lhs_dilate=2", "add", "0");
    assert_eq!(run_f32(&text, &[&z]), [1., 2., 2., 3., 3., 4., 4., 5.]);
    let text = module("f32[5]", "f32[3]", "size=2 rhs_dilate=2", "add", "0");
    assert_eq!(run_f32(&text, &[&z]), [4., 6., 8.]);
    let text = module("f32[5]", "f32[6]", "size=2 pad=1_1", "add", "0");
    assert_eq!(run_f32(&text, &[&z]), [1., 3., 5., 7., 9., 5.]);
}

#[test]
fn cumulative_sums_along_each_dimension() {
    // jnp.cumsum: a window as long as the dimension, padded in front.
    for ty in ["f32", "f64", "bf16", "s32"] {
        let x = data(&format!("{ty}[9,13]"));
        let text = module(
            &format!("{ty}[9,13]"),
            &format!("{ty}[9,13]"),
            "size=1x13 pad=0_0x12_0",
            "add",
            "0",
        );
        check_module(&text, &[&x]);
        let text = module(
            &format!("{ty}[9,13]"),
            &format!("{ty}[9,13]"),
            "size=9x1 pad=8_0x0_0",
            "add",
            "0",
        );
        check_module(&text, &[&x]);
    }
}

/// Cumulative reductions along dimension `d` of a row-major f32 array, by
/// the window's own fold: output `i` folds `init` over `n − 1 − i` padding
/// taps, then elements `0..=i`, from `init`.
fn window_fold(x: &[f32], dims: &[usize], d: usize, init: f32, f: fn(f32, f32) -> f32) -> Vec<f32> {
    let n = dims[d];
    let inner: usize = dims[d + 1..].iter().product();
    let mut out = vec![0f32; x.len()];
    for (line, o) in x.chunks(n * inner).zip(out.chunks_mut(n * inner)) {
        for j in 0..inner {
            for i in 0..n {
                let mut acc = init;
                for _ in 0..n - 1 - i {
                    acc = f(acc, init);
                }
                for k in 0..=i {
                    acc = f(acc, line[k * inner + j]);
                }
                o[i * inner + j] = acc;
            }
        }
    }
    out
}

/// Runs the reduce-window module `text` on `x`: whether it compiles to a
/// scan kernel must be `scan`, and the result must be `want` bit for bit
/// (and the interpreter's, see `run_f32`).
fn check_scan(text: &str, x: &Literal, scan: bool, want: &[f32]) {
    let c = compile(text);
    let kernels: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        kernels.iter().any(|k| k.contains("_scan_")),
        scan,
        "{text}\n{kernels:?}"
    );
    let got = run_f32(text, &[x]);
    assert_eq!(got.len(), want.len(), "{text}");
    assert!(
        got.iter()
            .zip(want)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "{text}"
    );
}

#[test]
fn long_cumulative_windows_run_as_scans_with_the_window_fold() {
    // From 64 elements on, a cumulative window whose init the combiner
    // leaves unchanged runs as a running fold (its own kernel), bit for
    // bit the window's fold; other inits keep the elemental form.
    let add: fn(f32, f32) -> f32 = |a, b| a + b;
    let mul: fn(f32, f32) -> f32 = |a, b| a * b;
    let max: fn(f32, f32) -> f32 = |a, b| if a.is_nan() || a > b { a } else { b };
    let cases = [
        (
            "f32[1000]",
            "size=1000 pad=999_0",
            vec![1000],
            0,
            "add",
            "0",
            0f32,
            add,
            true,
        ),
        (
            "f32[7,300]",
            "size=1x300 pad=0_0x299_0",
            vec![7, 300],
            1,
            "add",
            "-0",
            -0.0,
            add,
            true,
        ),
        (
            "f32[300,7]",
            "size=300x1 pad=299_0x0_0",
            vec![300, 7],
            0,
            "add",
            "0",
            0.0,
            add,
            true,
        ),
        (
            "f32[3,64,5]",
            "size=1x64x1 pad=0_0x63_0x0_0",
            vec![3, 64, 5],
            1,
            "maximum",
            "-inf",
            f32::NEG_INFINITY,
            max,
            true,
        ),
        (
            "f32[100]",
            "size=100 pad=99_0",
            vec![100],
            0,
            "multiply",
            "1",
            1.0,
            mul,
            true,
        ),
        (
            "f32[100]",
            "size=100 pad=99_0",
            vec![100],
            0,
            "add",
            "0.5",
            0.5,
            add,
            false,
        ),
        (
            "f32[20]",
            "size=20 pad=19_0",
            vec![20],
            0,
            "add",
            "0",
            0.0,
            add,
            false,
        ),
    ];
    for (shape, window, dims, d, op, init_text, init, f, scan) in cases {
        let mut x = data(shape);
        if op == "multiply" {
            // Factors near 1, so that the products stay finite and round.
            let v: Vec<f32> = x
                .data::<f32>()
                .unwrap()
                .iter()
                .map(|v| 1.0 + v / 512.0)
                .collect();
            x = Literal::from_vec(&[100], v).unwrap();
        }
        let text = module(shape, shape, window, op, init_text);
        let want = window_fold(x.data::<f32>().unwrap(), &dims, d, init, f);
        check_scan(&text, &x, scan, &want);
    }
}

/// A reverse cumulative reduction (padding after) of a row-major f32
/// vector: from 64 elements on, with an init the combiner leaves unchanged,
/// a running fold from the last element; otherwise the window's fold
/// (element `i`, …, element `n − 1`, then `i` padding taps).
fn reverse_fold(x: &[f32], init: f32, f: fn(f32, f32) -> f32, running: bool) -> Vec<f32> {
    let n = x.len();
    if running {
        let mut out = vec![0f32; n];
        let mut acc = init;
        for i in (0..n).rev() {
            acc = f(acc, x[i]);
            out[i] = acc;
        }
        return out;
    }
    (0..n)
        .map(|i| {
            let acc = x[i..].iter().fold(init, |a, &v| f(a, v));
            (0..i).fold(acc, |a, _| f(a, init))
        })
        .collect()
}

#[test]
fn long_reverse_cumulative_windows_fold_from_the_end() {
    // jnp.cumsum(reverse=True) and cumsum's gradient: the window is padded
    // after the elements. The window's order is unspecified (`docs/semantics.md`, *Reduce-window*);
    // from 64 elements both backends fold from the last element.
    let add: fn(f32, f32) -> f32 = |a, b| a + b;
    let max: fn(f32, f32) -> f32 = |a, b| if a.is_nan() || a > b { a } else { b };
    let cases = [
        (1000, "0", 0f32, "add", add, true),
        (100, "-inf", f32::NEG_INFINITY, "maximum", max, true),
        (100, "0.5", 0.5, "add", add, false),
        (40, "0", 0.0, "add", add, false),
    ];
    for (n, init_text, init, op, f, running) in cases {
        let shape = format!("f32[{n}]");
        let window = format!("size={n} pad=0_{}", n - 1);
        let text = module(&shape, &shape, &window, op, init_text);
        let x = data(&shape);
        let want = reverse_fold(x.data::<f32>().unwrap(), init, f, running);
        check_scan(&text, &x, running, &want);
    }
    // Along the first of two dimensions, as the interpreter folds it.
    let text = module(
        "f32[100,3]",
        "f32[100,3]",
        "size=100x1 pad=0_99x0_0",
        "add",
        "0",
    );
    let c = compile(&text);
    assert!(
        c.kernels.iter().any(|k| k.name.contains("_scan_")),
        "{text}"
    );
    check_module(&text, &[&data("f32[100,3]")]);
}

#[test]
fn pooling_with_strides_padding_and_dilations() {
    let windows = [
        (
            "f32[2,8,10,3]",
            "f32[2,4,5,3]",
            "size=1x2x2x1 stride=1x2x2x1",
        ),
        (
            "f32[2,8,10,3]",
            "f32[2,4,5,3]",
            "size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0",
        ),
        (
            "f32[2,8,10,3]",
            "f32[2,6,7,3]",
            "size=1x2x3x1 rhs_dilate=1x2x2x1 pad=0_0x0_0x1_0x0_0",
        ),
        (
            "f32[2,8,10,3]",
            "f32[2,14,10,3]",
            "size=1x2x1x1 lhs_dilate=1x2x1x1",
        ),
        (
            "f32[2,8,10,3]",
            "f32[2,4,9,2]",
            "size=1x3x3x2 stride=1x2x1x1 pad=0_0x1_0x1_0x0_0 lhs_dilate=1x1x1x1 rhs_dilate=1x1x1x1",
        ),
        (
            "f32[2,8,10,3]",
            "f32[2,8,4,3]",
            "size=1x1x3x1 stride=1x1x3x1 pad=0_0x0_0x1_2x0_0 lhs_dilate=1x1x1x1",
        ),
        (
            "f32[2,8,10,3]",
            "f32[2,6,8,3]",
            "size=1x2x2x1 pad=0_0x-1_0x0_-1x0_0",
        ),
    ];
    for (operand, out, window) in windows {
        for ty in ["f32", "f64", "bf16", "s32", "u8"] {
            let operand = operand.replace("f32", ty);
            let out = out.replace("f32", ty);
            let x = data(&operand);
            for (op, init) in [("maximum", "-inf"), ("minimum", "inf"), ("add", "0")] {
                let init = match (ty, init) {
                    ("s32", "-inf") => "-2147483648",
                    ("s32", "inf") => "2147483647",
                    ("u8", "-inf") => "0",
                    ("u8", "inf") => "255",
                    (_, i) => i,
                };
                check_module(&module(&operand, &out, window, op, init), &[&x]);
            }
        }
    }
}

#[test]
fn vectors_along_padded_and_dilated_minor_dimensions() {
    // Lanes walk the padded minor dimension with a window stride and
    // dilation (vectors straddle the padding), or a base-dilated one.
    let windows = [
        (
            "f32[5,16]",
            "f32[5,8]",
            "size=1x3 stride=1x2 pad=0_0x2_1 rhs_dilate=1x2",
        ),
        (
            "f32[5,16]",
            "f32[5,31]",
            "size=1x2 pad=0_0x1_0 lhs_dilate=1x2",
        ),
        (
            "f32[5,16]",
            "f32[3,18]",
            "size=3x3 pad=0_0x2_2 lhs_dilate=1x1",
        ),
        (
            "f32[5,16]",
            "f32[5,5]",
            "size=1x3 stride=1x3 pad=0_0x1_0 lhs_dilate=1x1",
        ),
    ];
    for (operand, out, window) in windows {
        for ty in ["f32", "f64", "bf16", "s64", "s8"] {
            let operand = operand.replace("f32", ty);
            let out = out.replace("f32", ty);
            let x = data(&operand);
            check_module(&module(&operand, &out, window, "add", "0"), &[&x]);
            check_module(&module(&operand, &out, window, "maximum", "-100"), &[&x]);
        }
    }
}

#[test]
fn float_edge_values() {
    let mut values = f32_edges();
    values.truncate(16);
    values.resize(16, 1.5);
    let x = Literal::from_vec(&[4, 4], values).unwrap();
    for (op, init) in [("maximum", "-inf"), ("minimum", "inf"), ("add", "-0")] {
        let text = module("f32[4,4]", "f32[4,4]", "size=2x2 pad=1_0x0_1", op, init);
        check_module(&text, &[&x]);
    }
}

#[test]
fn layouts_and_degenerate_sizes() {
    for (l0, l1) in [
        ("{0,1}", "{1,0}"),
        ("{1,0}", "{0,1}"),
        ("{1,0:T(2,2)}", "{0,1}"),
    ] {
        let operand = format!("f32[7,9]{l0}");
        let x = data(&operand);
        let text = module(
            &operand,
            &format!("f32[4,8]{l1}"),
            "size=2x2 stride=2x1 pad=1_0x0_0",
            "add",
            "0",
        );
        check_module(&text, &[&x]);
    }
    let x = data("f32[0,5]");
    check_module(
        &module("f32[0,5]", "f32[0,4]", "size=1x2", "add", "0"),
        &[&x],
    );
    let x = data("f32[3,5]");
    check_module(
        &module("f32[3,5]", "f32[3,0]", "size=1x7", "add", "0"),
        &[&x],
    );
    check_module(
        &module("f32[3,5]", "f32[3,1]", "size=1x5", "add", "0"),
        &[&x],
    );
    let x = data("f32[]");
    check_module(&module("f32[]", "f32[]", "", "add", "0"), &[&x]);
    // A window of i64::MAX × 7 taps over an empty operand: the cost
    // estimate's tap count overflowed (found by fuzzing).
    let x = data("f32[0,7]");
    check_module(
        &module(
            "f32[0,7]",
            "f32[0,7]",
            "size=9223372036854775807x7 pad=0_0x6_0",
            "add",
            "0",
        ),
        &[&x],
    );
}

#[test]
fn fuses_with_cheap_producers_and_elementwise_users() {
    let text = "HloModule m\n\
                f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n\
                ENTRY e {\n  p0 = bf16[6,40] parameter(0)\n  x = f32[6,40] convert(p0)\n  \
                c = f32[] constant(0)\n  \
                w = f32[6,40] reduce-window(x, c), window={size=1x40 pad=0_0x39_0}, to_apply=f\n  \
                ROOT n = f32[6,40] negate(w)\n}";
    let x = data("bf16[6,40]");
    check_module(text, &[&x]);
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
    // From 64 elements on, the same window is a prefix scan: a kernel of
    // its own, which its user does not join.
    let long = text
        .replace("6,40", "6,100")
        .replace("1x40 pad=0_0x39_0", "1x100 pad=0_0x99_0");
    let long_x = data("bf16[6,100]");
    check_module(&long, &[&long_x]);
    let c = compile(&long);
    assert_eq!(c.plan.fusions.len(), 2, "{}", plan_text(&c));
    assert!(plan_text(&c).contains("a prefix scan"), "{}", plan_text(&c));
    // An expensive producer is not recomputed for every tap.
    let text = text
        .replace("convert(p0)", "convert(p0)\n  y = f32[6,40] exponential(x)")
        .replace("reduce-window(x, c)", "reduce-window(y, c)");
    check_module(&text, &[&x]);
    let c = compile(&text);
    assert_eq!(c.plan.fusions.len(), 2, "{}", plan_text(&c));
    assert!(
        plan_text(&c).contains("recomputed for every window tap or comparison"),
        "{}",
        plan_text(&c)
    );
    // Also through cheap members between it and the reduce-window.
    let text = text
        .replace("reduce-window(y, c)", "reduce-window(z, c)")
        .replace(
            "exponential(x)",
            "exponential(x)\n  z = f32[6,40] negate(y)",
        );
    check_module(&text, &[&x]);
    let c = compile(&text);
    assert_eq!(c.plan.fusions.len(), 2, "{}", plan_text(&c));
}

/// An argmax pool: the maximum and the index of its first occurrence
/// (`jnp` style, ties keep the earlier), with padding taps (`-inf`, -1).
fn argmax_pool(values: &str, out: &str, window: &str) -> String {
    let indices = values.replace("f32", "s32").replace("f64", "s32");
    let out_indices = out.replace("f32", "s32").replace("f64", "s32");
    let ty = values.split('[').next().unwrap();
    format!(
        "HloModule m\n\
         f {{\n  a = {ty}[] parameter(0)\n  i = s32[] parameter(1)\n  b = {ty}[] parameter(2)\n  \
         j = s32[] parameter(3)\n  gt = pred[] compare(b, a), direction=GT\n  \
         m = {ty}[] select(gt, b, a)\n  k = s32[] select(gt, j, i)\n  \
         ROOT r = ({ty}[], s32[]) tuple(m, k)\n}}\n\
         ENTRY e {{\n  p0 = {values} parameter(0)\n  p1 = {indices} parameter(1)\n  \
         c = {ty}[] constant(-inf)\n  d = s32[] constant(-1)\n  \
         ROOT w = ({out}, {out_indices}) reduce-window(p0, p1, c, d), window={{{window}}}, to_apply=f\n}}"
    )
}

#[test]
fn variadic_argmax_pools() {
    let x = Literal::vector(&[3f32, 7., 7., 1., 9., 9.]);
    let i = Literal::vector(&[0i32, 1, 2, 3, 4, 5]);
    let text = argmax_pool("f32[6]", "f32[4]", "size=3");
    assert_eq!(check(&text, &[&x, &i]), Checked::Same, "{text}");
    let c = compile(&text);
    let results = run(&c, &[&x, &i]).into_tuple_elements().unwrap();
    assert_eq!(results[0].data::<f32>().unwrap(), [7., 7., 9., 9.]);
    assert_eq!(results[1].data::<i32>().unwrap(), [1, 1, 4, 4]);
    for (values, out, window) in [
        ("f32[6,11]", "f32[3,11]", "size=2x3 stride=2x1 pad=0_0x1_1"),
        (
            "f64[6,11]{0,1}",
            "f64[6,6]{0,1}",
            "size=1x2 stride=1x2 pad=0_0x1_0",
        ),
        ("f32[6,11]", "f32[6,11]{0,1}", "size=3x3 pad=1_1x1_1"),
    ] {
        let x = data(values);
        let i = data(&values.replace("f32", "s32").replace("f64", "s32"));
        let text = argmax_pool(values, out, window);
        assert_eq!(check(&text, &[&x, &i]), Checked::Same, "{text}");
    }
}
