//! `sort` and `topk` kernels against the interpreter and the worked examples of
//! `docs/semantics.md`, *Sort and top-k*: multi-operand sorts with a key comparator,
//! descending order, NaN and ±0 under the total order, stability with
//! equal keys, every dimension of a 3-D array, non-default layouts, sizes
//! 0 and 1, 1023-element rows; top-k with ties, `k = 1` and `k = n`.

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

/// A comparator `name` comparing parameters 0 and 1 of type `ty` with
/// `direction` (and `type`, e.g. `, type=TOTALORDER`); the other `2·extra`
/// parameters (types `extra_types`) are ignored.
fn comparator(name: &str, ty: &str, direction: &str, kind: &str, extra: &[&str]) -> String {
    let mut params = format!("  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n");
    for (k, t) in extra.iter().enumerate() {
        params += &format!(
            "  p{} = {t}[] parameter({})\n  q{} = {t}[] parameter({})\n",
            k,
            2 * k + 2,
            k,
            2 * k + 3
        );
    }
    format!("{name} {{\n{params}  ROOT r = pred[] compare(a, b), direction={direction}{kind}\n}}\n")
}

/// A module sorting one operand of `shape` along `dim`.
fn sort1(shape: &str, dim: i64, direction: &str, kind: &str) -> String {
    let ty = &shape[..shape.find('[').unwrap()];
    format!(
        "HloModule m\n{}ENTRY e {{\n  x = {shape} parameter(0)\n  \
         ROOT s = {shape} sort(x), dimensions={{{dim}}}, to_apply=cmp\n}}",
        comparator("cmp", ty, direction, kind, &[])
    )
}

/// Checks the kernels against the interpreter and returns their result.
fn check_sort(text: &str, args: &[&Literal]) -> Literal {
    assert_eq!(check(text, args), Checked::Same, "{text}");
    run(&compile(text), args)
}

fn values<T: xla_core::NativeType>(l: &Literal) -> Vec<T> {
    l.to_vec::<T>().unwrap()
}

#[test]
fn worked_examples() {
    // Three operands permuted by the keys of the first.
    let text = format!(
        "HloModule m\n{}ENTRY e {{\n  x = s32[2]{{0}} parameter(0)\n  \
         y = s32[2]{{0}} parameter(1)\n  z = f32[2]{{0}} parameter(2)\n  \
         ROOT s = (s32[2]{{0}}, s32[2]{{0}}, f32[2]{{0}}) sort(x, y, z), dimensions={{0}}, \
         to_apply=cmp\n}}",
        comparator("cmp", "s32", "LT", "", &["s32", "f32"])
    );
    let args = [
        Literal::vector(&[3i32, 1]),
        Literal::vector(&[42i32, 50]),
        Literal::vector(&[-3.0f32, 1.1]),
    ];
    let got = check_sort(&text, &args.iter().collect::<Vec<_>>());
    let parts = got.tuple_elements().unwrap();
    assert_eq!(values::<i32>(&parts[0]), [1, 3]);
    assert_eq!(values::<i32>(&parts[1]), [50, 42]);
    assert_eq!(values::<f32>(&parts[2]), [1.1, -3.0]);

    // Rows and columns of a matrix.
    let m = Literal::from_vec(&[2, 3], vec![3i32, 1, 2, 0, 5, -1]).unwrap();
    let rows = check_sort(&sort1("s32[2,3]{1,0}", 1, "LT", ""), &[&m]);
    assert_eq!(values::<i32>(&rows), [1, 2, 3, -1, 0, 5]);
    let cols = check_sort(&sort1("s32[2,3]{1,0}", 0, "LT", ""), &[&m]);
    assert_eq!(values::<i32>(&cols), [0, 1, -1, 3, 5, 2]);

    // Descending.
    let d = check_sort(
        &sort1("s32[3]{0}", 0, "GT", ""),
        &[&Literal::vector(&[5i32, 1, 4])],
    );
    assert_eq!(values::<i32>(&d), [5, 4, 1]);
}

#[test]
fn equal_keys_keep_their_order() {
    for stable in ["true", "false"] {
        let text = format!(
            "HloModule m\n{}ENTRY e {{\n  k = s32[4]{{0}} parameter(0)\n  \
             v = s32[4]{{0}} parameter(1)\n  \
             ROOT s = (s32[4]{{0}}, s32[4]{{0}}) sort(k, v), dimensions={{0}}, \
             is_stable={stable}, to_apply=cmp\n}}",
            comparator("cmp", "s32", "LT", "", &["s32"])
        );
        let k = Literal::vector(&[2i32, 1, 2, 1]);
        let v = Literal::vector(&[10i32, 20, 30, 40]);
        let got = check_sort(&text, &[&k, &v]);
        let parts = got.tuple_elements().unwrap();
        assert_eq!(values::<i32>(&parts[0]), [1, 1, 2, 2]);
        assert_eq!(values::<i32>(&parts[1]), [20, 40, 10, 30]);
    }
}

#[test]
fn nan_and_signed_zeros_under_the_total_order() {
    let x = Literal::vector(&[
        f32::NAN,
        0.0,
        -0.0,
        1.0,
        -f32::NAN,
        f32::NEG_INFINITY,
        -0.0,
        f32::INFINITY,
    ]);
    let up = check_sort(&sort1("f32[8]{0}", 0, "LT", ", type=TOTALORDER"), &[&x]);
    let bits: Vec<u32> = values::<f32>(&up).iter().map(|v| v.to_bits()).collect();
    let want: Vec<u32> = [
        -f32::NAN,
        f32::NEG_INFINITY,
        -0.0,
        -0.0,
        0.0,
        1.0,
        f32::INFINITY,
        f32::NAN,
    ]
    .iter()
    .map(|v| v.to_bits())
    .collect();
    assert_eq!(bits, want);
    // The partial order too (NaN compares false: some permutation, the
    // interpreter's).
    check_sort(&sort1("f32[8]{0}", 0, "GT", ""), &[&x]);
    check_sort(&sort1("f32[8]{0}", 0, "GT", ", type=TOTALORDER"), &[&x]);
}

#[test]
fn every_dimension_and_layout() {
    for layout in ["{2,1,0}", "{0,1,2}", "{1,2,0}"] {
        let shape = format!("f32[3,4,5]{layout}");
        let x = data(&shape);
        for dim in 0..3 {
            for direction in ["LT", "GT"] {
                check_sort(&sort1(&shape, dim, direction, ""), &[&x]);
            }
        }
    }
    // Types: integers, pred, f16.
    for shape in [
        "s8[6,7]{1,0}",
        "u16[6,7]{0,1}",
        "s64[6,7]{1,0}",
        "f16[6,7]{1,0}",
    ] {
        check_sort(&sort1(shape, 1, "LT", ""), &[&data(shape)]);
    }
    let p = Literal::vector(&[true, false, true, false, false]);
    let got = check_sort(&sort1("pred[5]{0}", 0, "LT", ""), &[&p]);
    assert_eq!(values::<bool>(&got), [false, false, false, true, true]);
}

#[test]
fn sizes_zero_one_and_long_rows() {
    for shape in [
        "f32[0]{0}",
        "f32[1]{0}",
        "f32[3,0]{1,0}",
        "f32[0,3]{1,0}",
        "f32[4,1]{1,0}",
    ] {
        let x = data(shape);
        let last = shape.split('{').next().unwrap().matches(',').count() as i64;
        let got = check_sort(&sort1(shape, last, "LT", ""), &[&x]);
        assert_eq!(values::<f32>(&got), values::<f32>(&x), "{shape}");
    }
    let long = data("f32[3,1023]{1,0}");
    let got = check_sort(&sort1("f32[3,1023]{1,0}", 1, "LT", ""), &[&long]);
    let v = values::<f32>(&got);
    assert!(v[..1023].windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn argsort_with_a_fused_iota() {
    let text = format!(
        "HloModule m\n{}ENTRY e {{\n  x = f32[2,9]{{1,0}} parameter(0)\n  \
         i = s32[2,9]{{1,0}} iota(), iota_dimension=1\n  \
         ROOT s = (f32[2,9]{{1,0}}, s32[2,9]{{1,0}}) sort(x, i), dimensions={{1}}, \
         to_apply=cmp\n}}",
        comparator("cmp", "f32", "LT", ", type=TOTALORDER", &["s32"])
    );
    check_sort(&text, &[&data("f32[2,9]{1,0}")]);
}

/// A module taking the top `k` along the last dimension of `shape`.
fn topk(shape: &str, k: i64, largest: bool) -> String {
    let ty = &shape[..shape.find('[').unwrap()];
    let dims: Vec<&str> = shape[shape.find('[').unwrap() + 1..shape.find(']').unwrap()]
        .split(',')
        .collect();
    let mut out = dims.clone();
    let k_text = k.to_string();
    *out.last_mut().unwrap() = &k_text;
    let out = out.join(",");
    let layout: String = (0..dims.len())
        .rev()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    format!(
        "HloModule m\nENTRY e {{\n  x = {shape} parameter(0)\n  \
         ROOT t = ({ty}[{out}]{{{layout}}}, s32[{out}]{{{layout}}}) topk(x), k={k}, \
         largest={largest}\n}}"
    )
}

#[test]
fn topk_ties_and_extremes() {
    let x = Literal::vector(&[1.0f32, 3.0, -0.0, 3.0, 0.0, f32::NAN, 3.0]);
    let got = check_sort(&topk("f32[7]{0}", 3, true), &[&x]);
    let parts = got.tuple_elements().unwrap();
    assert!(values::<f32>(&parts[0])[0].is_nan());
    assert_eq!(values::<f32>(&parts[0])[1..], [3.0, 3.0]);
    assert_eq!(values::<i32>(&parts[1]), [5, 1, 3]);

    let got = check_sort(&topk("f32[7]{0}", 2, false), &[&x]);
    let parts = got.tuple_elements().unwrap();
    assert_eq!(values::<i32>(&parts[1]), [2, 4]);
    assert_eq!(values::<f32>(&parts[0])[0].to_bits(), (-0.0f32).to_bits());

    for (shape, k) in [
        ("f32[4,6]", 1),
        ("f32[4,6]", 6),
        ("s32[3,2,5]", 2),
        ("bf16[9]", 4),
        ("f32[3,0]", 0),
    ] {
        for largest in [true, false] {
            check_topk_of_data(shape, k, largest);
        }
    }
}

/// Checks the top `k` of [`data`] of `shape` (written without a layout:
/// the default one) against the interpreter.
fn check_topk_of_data(shape: &str, k: i64, largest: bool) {
    let layout: String = (0..shape.matches(',').count() + 1)
        .rev()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let x = data(&format!("{shape}{{{layout}}}"));
    check_sort(&topk(&format!("{shape}{{{layout}}}"), k, largest), &[&x]);
}

/// Top-k selects through order keys (the float total order as unsigned
/// bits) and a host selection (a heap for a few of many): long rows with
/// many ties (k below, at and around the middle), every integer kind, and the float specials with
/// both NaN signs, against the interpreter's stable sort.
#[test]
fn topk_long_rows_keys_and_specials() {
    for (shape, ks) in [
        ("f32[3,1000]", &[1, 10, 500, 999][..]),
        ("f64[2,300]", &[7, 300]),
        ("u32[2,50]", &[3]),
        ("u8[40]", &[5]),
        // k of many (a heap) among ties: 256 values over 400 positions.
        ("u8[2,400]", &[3, 20]),
        ("s8[40]", &[40]),
        ("s64[64]", &[9]),
        ("f16[33]", &[4]),
    ] {
        for &k in ks {
            for largest in [true, false] {
                check_topk_of_data(shape, k, largest);
            }
        }
    }
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        f32::NAN,
    ];
    let x = Literal::vector(&specials);
    for k in [1, 4, 13] {
        for largest in [true, false] {
            check_sort(&topk("f32[13]{0}", k, largest), &[&x]);
        }
    }
    let got = check_sort(&topk("f32[13]{0}", 4, false), &[&x]);
    let parts = got.tuple_elements().unwrap();
    assert_eq!(values::<i32>(&parts[1]), [1, 3, 9, 11]);
    let x64 = Literal::vector(&specials.map(f64::from));
    check_sort(&topk("f64[13]{0}", 5, true), &[&x64]);
}

/// `jnp.median`'s prologue: a full `reduce` (any NaN?) broadcast into the
/// sorted operand. The reduce is not a row pass of the sort (the sort
/// kernel does not compute its root element by element): it runs first and
/// the sort kernel reads its result.
#[test]
fn a_reduce_feeding_a_sort_runs_before_it() {
    let text = format!(
        "HloModule m\n{}or {{\n  p = pred[] parameter(0)\n  q = pred[] parameter(1)\n  \
         ROOT r = pred[] or(p, q)\n}}\nENTRY e {{\n  x = f32[6]{{0}} parameter(0)\n  \
         ne = pred[6]{{0}} compare(x, x), direction=NE\n  f = pred[] constant(false)\n  \
         any = pred[] reduce(ne, f), dimensions={{0}}, to_apply=or\n  \
         anyb = pred[6]{{0}} broadcast(any), dimensions={{}}\n  nan = f32[] constant(nan)\n  \
         nanb = f32[6]{{0}} broadcast(nan), dimensions={{}}\n  \
         sel = f32[6]{{0}} select(anyb, nanb, x)\n  \
         ROOT s = f32[6]{{0}} sort(sel), dimensions={{0}}, to_apply=cmp\n}}",
        comparator("cmp", "f32", "LT", "", &[])
    );
    let x = Literal::vector(&[3.0f32, -1.0, 2.0, 0.5, 7.0, -4.0]);
    let sorted = check_sort(&text, &[&x]);
    assert_eq!(values::<f32>(&sorted), [-4.0, -1.0, 0.5, 2.0, 3.0, 7.0]);
    let with_nan = Literal::vector(&[3.0f32, f32::NAN, 2.0, 0.5, 7.0, -4.0]);
    let sorted = check_sort(&text, &[&with_nan]);
    assert!(values::<f32>(&sorted).iter().all(|v| v.is_nan()));
}
