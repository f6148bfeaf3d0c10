//! The interpreter's reductions: reduce (variadic, dynamic sizes),
//! reduce-window, select-and-scatter, sort and top-k (`docs/semantics.md`,
//! *Reduce*, *Reduce-window*, *Select-and-scatter*, *Sort and top-k*, *Dynamic dimension sizes*)
//! with the worked examples and edge cases.

use crate::interp_common;

use interp_common::*;
use xla_core::layout::Layout;
use xla_core::Literal;

fn i32s(l: &Literal) -> Vec<i32> {
    l.to_vec::<i32>().unwrap()
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.to_vec::<f32>().unwrap()
}

/// `got` (an f32 literal) equals `want` bit for bit.
fn assert_bits(got: &Literal, want: &[f32], what: &str) {
    let got = f32s(got);
    assert!(
        got.iter()
            .zip(want)
            .all(|(a, b)| a.to_bits() == b.to_bits())
            && got.len() == want.len(),
        "{what}"
    );
}

fn computations(ty: &str) -> String {
    [
        binary_computation("add", "add", ty),
        binary_computation("mul", "multiply", ty),
        binary_computation("max", "maximum", ty),
        binary_computation("min", "minimum", ty),
        format!("ge {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GE\n}}\n"),
        format!("lt {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=LT\n}}\n"),
    ]
    .concat()
}

/// `reduce(x, init)` over `dims` with computation `f`.
fn reduce(x: &Literal, init: &Literal, dims: &str, out: &str, f: &str) -> Literal {
    let ty = x.element_type().unwrap().name();
    let body = format!(
        "x = {} parameter(0)\ni = {ty}[] parameter(1)\nr = {ty}[{out}] reduce(x, i), dimensions={{{dims}}}, to_apply={f}",
        x.shape()
    );
    run_with(&computations(ty), &body, &[x, init])
}

#[test]
fn reduce_examples() {
    // `docs/semantics.md`, *Reduce*.
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let zero = Literal::scalar(0i32);
    assert_eq!(i32s(&reduce(&m, &zero, "0", "3", "add")), [5, 7, 9]);
    assert_eq!(i32s(&reduce(&m, &zero, "1", "2", "add")), [6, 15]);
    let cube = Literal::from_vec(&[4, 2, 3], [1i32, 2, 3, 4, 5, 6].repeat(4)).unwrap();
    assert_eq!(
        i32s(&reduce(&cube, &zero, "0", "2,3", "add")),
        [4, 8, 12, 16, 20, 24]
    );
    assert_eq!(
        i32s(&reduce(&cube, &zero, "2", "4,2", "add")),
        [6, 15].repeat(4)
    );
    assert_eq!(i32s(&reduce(&cube, &zero, "0,1", "3", "add")), [20, 28, 36]);
    assert_eq!(i32s(&reduce(&cube, &zero, "0,1,2", "", "add")), [84]);
    assert_eq!(i32s(&reduce(&cube, &zero, "1,0", "3", "add")), [20, 28, 36]);
    // No reduced dimensions, an empty dimension, any layout.
    assert_eq!(
        i32s(&reduce(&m, &zero, "", "2,3", "add")),
        [1, 2, 3, 4, 5, 6]
    );
    let empty = Literal::from_vec::<i32>(&[2, 0], vec![]).unwrap();
    assert_eq!(
        i32s(&reduce(&empty, &Literal::scalar(7i32), "1", "2", "add")),
        [7, 7]
    );
    let col = m.relayout(&Layout::new([0, 1])).unwrap();
    assert_eq!(i32s(&reduce(&col, &zero, "1", "2", "max")), [3, 6]);
    assert_eq!(
        i32s(&reduce(&m, &Literal::scalar(1i32), "0,1", "", "mul")),
        [720]
    );
}

#[test]
fn float_reductions_fold_in_order_with_the_table_rules() {
    let x = Literal::vector(&[1.0f32, f32::NAN, -0.0, 1e-40]);
    let max = reduce(&x, &Literal::scalar(f32::NEG_INFINITY), "0", "", "max");
    assert!(f32s(&max)[0].is_nan());
    let zeros = Literal::vector(&[0.0f32, -0.0]);
    let max = reduce(&zeros, &Literal::scalar(f32::NEG_INFINITY), "0", "", "max");
    assert_eq!(bits32(&f32s(&max)), [0]);
    let min = reduce(&zeros, &Literal::scalar(f32::INFINITY), "0", "", "min");
    assert_eq!(bits32(&f32s(&min)), bits32(&[-0.0]));
    // Subnormals are flushed by the add.
    let tiny = Literal::vector(&[1e-40f32, 1e-40]);
    assert_eq!(
        f32s(&reduce(&tiny, &Literal::scalar(0.0f32), "0", "", "add")),
        [0.0]
    );
    // Left fold: ((0 + 1e8) + 1) − 1e8 ≠ 1 in f32.
    let x = Literal::vector(&[1e8f32, 1.0, -1e8]);
    assert_eq!(
        f32s(&reduce(&x, &Literal::scalar(0.0f32), "0", "", "add")),
        [0.0]
    );
    // f16 rounds after each add: 2048 + 1 + 1 stays 2048.
    let h = half::f16::from_f32;
    let x = Literal::vector(&[h(2048.0), h(1.0), h(1.0)]);
    let r = reduce(&x, &Literal::scalar(h(0.0)), "0", "", "add");
    assert_eq!(r.to_vec::<half::f16>().unwrap(), [h(2048.0)]);
}

#[test]
fn variadic_argmax() {
    // `docs/semantics.md`, *Reduce*.
    let extra = "argmax {\n  m = f32[] parameter(0)\n  i = s32[] parameter(1)\n  v = f32[] parameter(2)\n  \
                 k = s32[] parameter(3)\n  ge = pred[] compare(v, m), direction=GE\n  a = f32[] select(ge, v, m)\n  \
                 b = s32[] select(ge, k, i)\n  ROOT t = (f32[], s32[]) tuple(a, b)\n}";
    let body = "v = f32[4] parameter(0)\nk = s32[4] iota(), iota_dimension=0\nmi = f32[] constant(-inf)\n\
                ki = s32[] constant(0)\nr = (f32[], s32[]) reduce(v, k, mi, ki), dimensions={0}, to_apply=argmax";
    let r = run_with(extra, body, &[&Literal::vector(&[3.0f32, 7.0, 7.0, 2.0])]);
    let parts = r.tuple_elements().unwrap();
    assert_eq!((f32s(&parts[0]), i32s(&parts[1])), (vec![7.0], vec![2]));
    let body = "v = f32[2,3] parameter(0)\nk = s32[2,3] iota(), iota_dimension=1\nmi = f32[] constant(-inf)\n\
                ki = s32[] constant(-1)\nr = (f32[2], s32[2]) reduce(v, k, mi, ki), dimensions={1}, to_apply=argmax";
    let r = run_with(
        extra,
        body,
        &[&Literal::matrix(&[[1.0f32, 9.0, 4.0], [8.0, 2.0, 8.0]])],
    );
    let parts = r.tuple_elements().unwrap();
    assert_eq!(
        (f32s(&parts[0]), i32s(&parts[1])),
        (vec![9.0, 8.0], vec![1, 2])
    );
}

#[test]
fn reduce_ignores_elements_beyond_runtime_sizes() {
    // `docs/semantics.md`, *Dynamic dimension sizes*: v = 1…10 with runtime size 5 (or 6).
    let v = Literal::vector(&(1..=10).map(|x| x as f32).collect::<Vec<_>>());
    let five = v.clone().with_dynamic_size(0, 5).unwrap();
    assert_eq!(
        f32s(&reduce(&five, &Literal::scalar(0.0f32), "0", "", "add")),
        [15.0]
    );
    assert_eq!(
        f32s(&reduce(&five, &Literal::scalar(1.0f32), "0", "", "mul")),
        [120.0]
    );
    let six = v.with_dynamic_size(0, 6).unwrap();
    assert_eq!(
        f32s(&reduce(&six, &Literal::scalar(0.0f32), "0", "", "add")),
        [21.0]
    );
    // A dynamic kept dimension: results beyond its size are the init value.
    let m = Literal::matrix(&[[1i32, 2], [3, 4], [5, 6]])
        .with_dynamic_size(0, 2)
        .unwrap();
    assert_eq!(
        i32s(&reduce(&m, &Literal::scalar(0i32), "1", "3", "add")),
        [3, 7, 0]
    );
}

/// `reduce-window(x, init)` with `window` and computation `f`.
fn reduce_window(x: &Literal, init: &Literal, window: &str, out: &str, f: &str) -> Literal {
    let ty = x.element_type().unwrap().name();
    let body = format!(
        "x = {} parameter(0)\ni = {ty}[] parameter(1)\nr = {ty}[{out}] reduce-window(x, i), window={{{window}}}, to_apply={f}",
        x.shape()
    );
    run_with(&computations(ty), &body, &[x, init])
}

fn x46() -> Literal {
    Literal::matrix(&[
        [7.0f32, 2.0, 5.0, 3.0, 10.0, 2.0],
        [3.0, 8.0, 9.0, 3.0, 4.0, 2.0],
        [1.0, 5.0, 7.0, 5.0, 6.0, 1.0],
        [0.0, 6.0, 2.0, 7.0, 2.0, 8.0],
    ])
}

#[test]
fn reduce_window_examples() {
    // `docs/semantics.md`, *Reduce-window*.
    let ninf = Literal::scalar(f32::NEG_INFINITY);
    let r = reduce_window(&x46(), &ninf, "size=2x3 stride=2x3", "2,2", "max");
    assert_eq!(f32s(&r), [9.0, 10.0, 7.0, 8.0]);
    let r = reduce_window(&x46(), &ninf, "size=2x3", "3,4", "max");
    assert_eq!(
        f32s(&r),
        [9.0, 9.0, 10.0, 10.0, 9.0, 9.0, 9.0, 6.0, 7.0, 7.0, 7.0, 8.0]
    );
    let x = Literal::vector(&[10000.0f32, 1000.0, 100.0, 10.0, 1.0]);
    let inf = Literal::scalar(f32::MAX);
    assert_eq!(
        f32s(&reduce_window(&x, &inf, "size=3 stride=2", "2", "min")),
        [100.0, 1.0]
    );
    assert_eq!(
        f32s(&reduce_window(
            &x,
            &inf,
            "size=3 stride=2 pad=1_1",
            "3",
            "min"
        )),
        [1000.0, 10.0, 1.0]
    );
    let x = Literal::vector(&[1.0f32, 2.0, 3.0, 4.0, 5.0]);
    let zero = Literal::scalar(0.0f32);
    let r = reduce_window(&x, &zero, "size=2 lhs_dilate=2", "8", "add");
    assert_eq!(f32s(&r), [1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0]);
    assert_eq!(
        f32s(&reduce_window(&x, &zero, "size=2 rhs_dilate=2", "3", "add")),
        [4.0, 6.0, 8.0]
    );
    let r = reduce_window(&x, &zero, "size=2 pad=1_1", "6", "add");
    assert_eq!(f32s(&r), [1.0, 3.0, 5.0, 7.0, 9.0, 5.0]);
}

#[test]
fn reduce_window_padding_reads_the_init_value() {
    // With a non-identity init every padded tap is combined with the init.
    let x = Literal::vector(&[1i32, 2]);
    let r = reduce_window(&x, &Literal::scalar(10i32), "size=3 pad=1_1", "2", "add");
    assert_eq!(i32s(&r), [10 + 10 + 1 + 2, 10 + 1 + 2 + 10]);
    // A window larger than the padded base gives an empty result.
    let r = reduce_window(&x, &Literal::scalar(0i32), "size=3", "0", "add");
    assert_eq!(i32s(&r), Vec::<i32>::new());
}

#[test]
fn cumulative_windows_fold_like_the_window() {
    // jnp.cumsum's window (the whole dimension, padded in front) runs as a
    // running fold when the init is unchanged by combining it with itself;
    // the result must be the window's own fold bit for bit. An init that
    // changes (0.5 for a sum) keeps the window's fold.
    let n = 1500usize;
    let values: Vec<f32> = (0..n)
        .map(|i| ((i * 37 + 11) % 101) as f32 * 0.37 - 18.1)
        .collect();
    let x = Literal::vector(&values);
    let window = format!("size={n} pad={}_0", n - 1);
    for init in [0.0f32, -0.0, 0.5] {
        let r = reduce_window(&x, &Literal::scalar(init), &window, &n.to_string(), "add");
        let want: Vec<f32> = (0..n)
            .map(|i| {
                let pads = (0..n - 1 - i).fold(init, |a, _| a + init);
                values[..=i].iter().fold(pads, |a, &v| a + v)
            })
            .collect();
        assert_bits(&r, &want, &format!("init {init}"));
    }
    // Along the first of two dimensions, both ways: s32 sums from 0,
    // maxima from MIN.
    let m: Vec<i32> = (0..3 * 200).map(|i| (i * 7919 % 211) - 105).collect();
    let xm = Literal::from_vec(&[200, 3], m.clone()).unwrap();
    let add: fn(i32, i32) -> i32 = i32::wrapping_add;
    let max: fn(i32, i32) -> i32 = i32::max;
    for (op, init, f) in [("add", 0, add), ("max", i32::MIN, max)] {
        let window = "size=200x1 pad=199_0x0_0";
        let r = reduce_window(&xm, &Literal::scalar(init), window, "200,3", op);
        let mut want = m.clone();
        for k in 3..want.len() {
            want[k] = f(want[k - 3], m[k]);
        }
        assert_eq!(i32s(&r), want, "{op}");
        let window = "size=200x1 pad=0_199x0_0";
        let r = reduce_window(&xm, &Literal::scalar(init), window, "200,3", op);
        let mut want = m.clone();
        for k in (0..want.len() - 3).rev() {
            want[k] = f(want[k + 3], m[k]);
        }
        assert_eq!(i32s(&r), want, "reverse {op}");
    }
    // Padded after (reverse, cumsum's gradient): from 64 elements a running
    // fold from the last element, shorter ones in the window's order.
    for len in [n, 20] {
        let window = format!("size={len} pad=0_{}", len - 1);
        let xs = Literal::vector(&values[..len]);
        let r = reduce_window(
            &xs,
            &Literal::scalar(0f32),
            &window,
            &len.to_string(),
            "add",
        );
        let want: Vec<f32> = if len >= 64 {
            let mut acc = 0f32;
            let mut out: Vec<f32> = values[..len]
                .iter()
                .rev()
                .map(|&v| {
                    acc += v;
                    acc
                })
                .collect();
            out.reverse();
            out
        } else {
            (0..len)
                .map(|i| values[i..len].iter().fold(0f32, |a, &v| a + v))
                .collect()
        };
        assert_bits(&r, &want, &format!("reverse {len}"));
    }
    // A computation that is no single op (a sum of squares, as
    // cumlogsumexp's is no single op) scans the same way.
    let squares = "sq {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                   m = f32[] multiply(b, b)\n  ROOT r = f32[] add(a, m)\n}\n";
    let body = format!(
        "x = f32[{n}] parameter(0)\ni = f32[] parameter(1)\n\
         r = f32[{n}] reduce-window(x, i), window={{{window}}}, to_apply=sq"
    );
    let r = run_with(squares, &body, &[&x, &Literal::scalar(0f32)]);
    let want: Vec<f32> = (0..n)
        .map(|i| values[..=i].iter().fold(0f32, |a, &v| a + v * v))
        .collect();
    assert_bits(&r, &want, "sum of squares");
}

#[test]
fn variadic_reduce_window() {
    let extra = "pair {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = s32[] parameter(2)\n  \
                 d = s32[] parameter(3)\n  s = s32[] add(a, c)\n  m = s32[] maximum(b, d)\n  ROOT t = (s32[], s32[]) tuple(s, m)\n}";
    let body = "x = s32[4] parameter(0)\ny = s32[4] parameter(1)\ni = s32[] constant(0)\nj = s32[] constant(-100)\n\
                r = (s32[3], s32[3]) reduce-window(x, y, i, j), window={size=2}, to_apply=pair";
    let r = run_with(
        extra,
        body,
        &[
            &Literal::vector(&[1i32, 2, 3, 4]),
            &Literal::vector(&[5i32, -1, 0, 9]),
        ],
    );
    let parts = r.tuple_elements().unwrap();
    assert_eq!(i32s(&parts[0]), [3, 5, 7]);
    assert_eq!(i32s(&parts[1]), [5, 0, 9]);
}

/// `select-and-scatter(operand, source, init)` with `select=ge`, `scatter=add`.
fn select_and_scatter(operand: &Literal, source: &Literal, window: &str) -> Literal {
    let ty = operand.element_type().unwrap().name();
    let body = format!(
        "x = {} parameter(0)\ns = {} parameter(1)\ni = {ty}[] constant(0)\n\
         r = {} select-and-scatter(x, s, i), window={{{window}}}, select=ge, scatter=add",
        operand.shape(),
        source.shape(),
        operand.shape()
    );
    run_with(&computations(ty), &body, &[operand, source])
}

#[test]
fn select_and_scatter_examples() {
    // `docs/semantics.md`, *Select-and-scatter*.
    let source = Literal::matrix(&[[2.0f32, 6.0], [3.0, 1.0]]);
    let r = select_and_scatter(&x46(), &source, "size=2x3 stride=2x3");
    assert_eq!(
        f32s(&r),
        [
            0.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0
        ]
    );
    let operand = Literal::matrix(&[
        [7.0f32, 2.0, 5.0, 3.0, 8.0],
        [3.0, 8.0, 9.0, 3.0, 4.0],
        [1.0, 5.0, 7.0, 5.0, 6.0],
        [0.0, 6.0, 2.0, 10.0, 2.0],
    ]);
    let r = select_and_scatter(&operand, &source, "size=2x3 stride=2x2");
    let mut expected = vec![0.0f32; 20];
    expected[7] = 8.0;
    expected[12] = 3.0;
    expected[18] = 1.0;
    assert_eq!(f32s(&r), expected);
    let operand = Literal::vector(&[1i32, 9, 3, 7, 5, 6]);
    let r = select_and_scatter(&operand, &Literal::vector(&[34i32, 42, 53, 19]), "size=3");
    assert_eq!(i32s(&r), [0, 76, 0, 72, 0, 0]);
    // Ties: the first of equal maxima is kept.
    let r = select_and_scatter(
        &Literal::vector(&[4i32, 4, 4]),
        &Literal::vector(&[5i32]),
        "size=3",
    );
    assert_eq!(i32s(&r), [5, 0, 0]);
    // Padding is never selected, even where it would win.
    let r = select_and_scatter(
        &Literal::vector(&[-5i32, -7]),
        &Literal::vector(&[1i32, 2]),
        "size=2 pad=1_0",
    );
    assert_eq!(i32s(&r), [3, 0]);
}

/// `sort(operands…)` along `dim` with a comparator.
fn sort(operands: &[&Literal], dim: i64, comparator: &str, extra: &str, stable: bool) -> Literal {
    let mut body = String::new();
    let mut names = Vec::new();
    let mut shapes = Vec::new();
    for (i, o) in operands.iter().enumerate() {
        body.push_str(&format!("p{i} = {} parameter({i})\n", o.shape()));
        names.push(format!("p{i}"));
        shapes.push(o.shape().to_string());
    }
    let shape = if shapes.len() == 1 {
        shapes[0].clone()
    } else {
        format!("({})", shapes.join(", "))
    };
    let stable = if stable { ", is_stable=true" } else { "" };
    body.push_str(&format!(
        "r = {shape} sort({}), dimensions={{{dim}}}{stable}, to_apply={comparator}",
        names.join(", ")
    ));
    run_with(extra, &body, operands)
}

#[test]
fn sort_examples() {
    // `docs/semantics.md`, *Sort and top-k*.
    let extra = "by_first {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = s32[] parameter(2)\n  \
                 d = s32[] parameter(3)\n  e = f32[] parameter(4)\n  f = f32[] parameter(5)\n  \
                 ROOT r = pred[] compare(a, b), direction=LT\n}";
    let r = sort(
        &[
            &Literal::vector(&[3i32, 1]),
            &Literal::vector(&[42i32, 50]),
            &Literal::vector(&[-3.0f32, 1.1]),
        ],
        0,
        "by_first",
        extra,
        false,
    );
    let parts = r.tuple_elements().unwrap();
    assert_eq!(
        (i32s(&parts[0]), i32s(&parts[1]), f32s(&parts[2])),
        (vec![1, 3], vec![50, 42], vec![1.1, -3.0])
    );
    let m = Literal::matrix(&[[3i32, 1, 2], [0, 5, -1]]);
    let lt = computations("s32");
    assert_eq!(i32s(&sort(&[&m], 1, "lt", &lt, false)), [1, 2, 3, -1, 0, 5]);
    assert_eq!(i32s(&sort(&[&m], 0, "lt", &lt, false)), [0, 1, -1, 3, 5, 2]);
    let keys_only =
        "keys {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = s32[] parameter(2)\n  \
                     d = s32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=LT\n}";
    let r = sort(
        &[
            &Literal::vector(&[2i32, 1, 2, 1]),
            &Literal::vector(&[10i32, 20, 30, 40]),
        ],
        0,
        "keys",
        keys_only,
        true,
    );
    let parts = r.tuple_elements().unwrap();
    assert_eq!(
        (i32s(&parts[0]), i32s(&parts[1])),
        (vec![1, 1, 2, 2], vec![20, 40, 10, 30])
    );
    let gt = "gt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GT\n}";
    assert_eq!(
        i32s(&sort(
            &[&Literal::vector(&[5i32, 1, 4])],
            0,
            "gt",
            gt,
            false
        )),
        [5, 4, 1]
    );
}

#[test]
fn sort_with_total_order_and_general_comparators() {
    let total = "total {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}";
    let x = Literal::vector(&[
        1.0f32,
        f32::NAN,
        -0.0,
        f32::NEG_INFINITY,
        0.0,
        -f32::NAN,
        -1.0,
    ]);
    let r = f32s(&sort(&[&x], 0, "total", total, false));
    assert_eq!(
        bits32(&r),
        bits32(&[-f32::NAN, f32::NEG_INFINITY, -1.0, -0.0, 0.0, 1.0, f32::NAN])
    );
    // A comparator the scalar compiler does not take (a call) still sorts.
    let extra = "inner {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GT\n}\n\
                 outer {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = pred[] call(a, b), to_apply=inner\n}";
    assert_eq!(
        i32s(&sort(
            &[&Literal::vector(&[2i32, 9, 4])],
            0,
            "outer",
            extra,
            true
        )),
        [9, 4, 2]
    );
    // A comparator that is not a strict weak order gives a permutation.
    let always = "always {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = pred[] constant(true)\n}";
    let mut r = i32s(&sort(
        &[&Literal::vector(&[3i32, 1, 2])],
        0,
        "always",
        always,
        false,
    ));
    r.sort();
    assert_eq!(r, [1, 2, 3]);
}

#[test]
fn topk_orders_by_total_order_with_lower_indices_first() {
    let body = "x = f32[2,4] parameter(0)\nr = (f32[2,2], s32[2,2]) topk(x), k=2, largest=true";
    let x = Literal::matrix(&[[1.0f32, 5.0, 5.0, 2.0], [f32::NAN, 3.0, 0.0, -0.0]]);
    let r = run(body, &[&x]);
    let parts = r.tuple_elements().unwrap();
    let values = f32s(&parts[0]);
    assert_eq!(&values[..2], [5.0, 5.0]);
    assert!(values[2].is_nan() && values[3] == 3.0);
    assert_eq!(i32s(&parts[1]), [1, 2, 0, 1]);
    let body = "x = f32[2,4] parameter(0)\nr = (f32[2,3], s32[2,3]) topk(x), k=3, largest=false";
    let r = run(body, &[&x]);
    let parts = r.tuple_elements().unwrap();
    assert_eq!(bits32(&f32s(&parts[0])[3..]), bits32(&[-0.0, 0.0, 3.0]));
    assert_eq!(i32s(&parts[1]), [0, 3, 1, 3, 2, 1]);
    let body = "x = s32[5] parameter(0)\nr = (s32[0], s32[0]) topk(x), k=0, largest=true";
    let r = run(body, &[&Literal::vector(&[1i32, 2, 3, 4, 5])]);
    assert_eq!(i32s(&r.tuple_elements().unwrap()[1]), Vec::<i32>::new());
}

#[test]
fn runtime_sizes_survive_layout_changes() {
    // The parameter is relaid to its declared column-major layout first.
    let m = Literal::matrix(&[[1i32, 2], [3, 4], [5, 6]])
        .with_dynamic_size(0, 2)
        .unwrap();
    let body = "x = s32[3,2]{0,1} parameter(0)\ni = s32[] constant(0)\nr = s32[2] reduce(x, i), dimensions={0}, to_apply=add";
    let r = run_with(&computations("s32"), body, &[&m]);
    assert_eq!(i32s(&r), [4, 6]);
}

/// A reduce-window with an empty output allocates nothing per output
/// position: fuzzing found `f32[1099511627776,0]` tabulating the window
/// taps of its 2^40 rows and aborting.
#[test]
fn reduce_window_of_an_empty_array_with_a_huge_dimension() {
    let x = Literal::zeros(&"f32[1099511627776,0]".parse().unwrap()).unwrap();
    let extra = computations("f32");
    let body = "x = f32[1099511627776,0] parameter(0)\n\
                init = f32[] constant(-inf)\n\
                r = f32[1099511627776,0] reduce-window(x, init), window={size=1x7 pad=0_0x6_0}, \
                to_apply=max";
    let r = run_with(&extra, body, &[&x]);
    assert_eq!(r.shape().to_string(), "f32[1099511627776,0]{1,0}");
}

/// Sort and top-k of empty arrays whose other dimensions are huge return at
/// once (fuzzing found sort walking 3·2^40 empty slices).
#[test]
fn sort_and_topk_of_empty_arrays_with_huge_dimensions() {
    let x = Literal::zeros(&"f32[3,0,1099511627776]".parse().unwrap()).unwrap();
    let extra = computations("f32");
    let body = "x = f32[3,0,1099511627776] parameter(0)\n\
                r = f32[3,0,1099511627776] sort(x), dimensions={1}, is_stable=true, to_apply=lt";
    let r = run_with(&extra, body, &[&x]);
    assert_eq!(r.shape().to_string(), "f32[3,0,1099511627776]{2,1,0}");
    let x = Literal::zeros(&"f32[1099511627776,0]".parse().unwrap()).unwrap();
    let body = "x = f32[1099511627776,0] parameter(0)\n\
                r = (f32[1099511627776,0], s32[1099511627776,0]) topk(x), k=0, largest=true";
    let r = run(body, &[&x]);
    assert_eq!(
        r.shape().to_string(),
        "(f32[1099511627776,0]{1,0}, s32[1099511627776,0]{1,0})"
    );
}

/// XLA's optimized modules reinterpret scalars in called computations with
/// `bitcast` (a total-order float min over `s32` bit patterns here): the
/// bits are read as the other type, not moved as a value.
#[test]
fn bitcasts_between_types_in_a_reducer_reinterpret_the_bits() {
    let text = "HloModule m

red {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  fa = f32[] bitcast(a)
  fb = f32[] bitcast(b)
  m = f32[] minimum(fa, fb)
  ROOT r = s32[] bitcast(m)
}

ENTRY e {
  p = s32[4] parameter(0)
  z = s32[] constant(2139095040)
  ROOT r = s32[] reduce(p, z), dimensions={0}, to_apply=red
}
";
    let bits: Vec<i32> = [1.0f32, -1.0, 0.0, -0.0]
        .iter()
        .map(|v| v.to_bits() as i32)
        .collect();
    let got = run_text(text, &[&Literal::vector(&bits)]);
    assert_eq!(i32s(&got), [(-1.0f32).to_bits() as i32]);
}
