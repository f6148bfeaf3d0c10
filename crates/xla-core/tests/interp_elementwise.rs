//! The interpreter's element-wise ops: integers and pred (`docs/semantics.md`, *Element-wise
//! arithmetic* project rules), comparisons, select, clamp, convert, bitcast-convert,
//! reduce-precision and map (`docs/semantics.md`, *Comparisons*, *Unary functions*, *Select and
//! clamp*, *Convert*, *Bitcast-convert*, *Reduce-precision*, *Map*), on
//! any layout. Floats and complex values: `interp_elementwise_float.rs`.

use crate::interp_common;

use half::{bf16, f16};
use interp_common::*;
use xla_core::layout::{Layout, Tile};
use xla_core::{Literal, C64};

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

// === integers ===

#[test]
fn integer_arithmetic_wraps() {
    let a = v(&[i32::MAX, i32::MIN, 7]);
    let b = v(&[1i32, -1, -3]);
    assert_eq!(
        apply("add", "", "s32", &[&a, &b]).to_vec::<i32>().unwrap(),
        [i32::MIN, i32::MAX, 4]
    );
    assert_eq!(
        apply("subtract", "", "s32", &[&a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [i32::MAX - 1, i32::MIN + 1, 10]
    );
    assert_eq!(
        apply("multiply", "", "s32", &[&a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [i32::MAX, i32::MIN, -21]
    );
    let u = v(&[250u8, 3]);
    assert_eq!(
        apply("add", "", "u8", &[&u, &v(&[10u8, 255])])
            .to_vec::<u8>()
            .unwrap(),
        [4, 2]
    );
    assert_eq!(
        apply("negate", "", "u8", &[&u]).to_vec::<u8>().unwrap(),
        [6, 253]
    );
    let s = v(&[i8::MIN, -5, 0, 5]);
    assert_eq!(
        apply("negate", "", "s8", &[&s]).to_vec::<i8>().unwrap(),
        [i8::MIN, 5, 0, -5]
    );
    assert_eq!(
        apply("abs", "", "s8", &[&s]).to_vec::<i8>().unwrap(),
        [i8::MIN, 5, 0, 5]
    );
    assert_eq!(
        apply("sign", "", "s8", &[&s]).to_vec::<i8>().unwrap(),
        [-1, -1, 0, 1]
    );
}

#[test]
fn integer_division_and_remainder() {
    // `docs/semantics.md`, *Element-wise arithmetic*: truncation, and the project rules for 0 and
    // INT_MIN/−1.
    let a = v(&[7i32, -7, 7, -7, 5, i32::MIN, i32::MIN]);
    let b = v(&[2i32, 2, -2, -2, 0, -1, 0]);
    assert_eq!(
        apply("divide", "", "s32", &[&a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [3, -3, -3, 3, -1, i32::MIN, -1]
    );
    let b = v(&[3i32, 3, -3, -3, 0, -1, 0]);
    assert_eq!(
        apply("remainder", "", "s32", &[&a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [1, -1, 1, -1, 5, 0, i32::MIN]
    );
    let (a, b) = (v(&[7u16, 9, 0]), v(&[2u16, 0, 0]));
    assert_eq!(
        apply("divide", "", "u16", &[&a, &b])
            .to_vec::<u16>()
            .unwrap(),
        [3, u16::MAX, u16::MAX]
    );
    assert_eq!(
        apply("remainder", "", "u16", &[&a, &b])
            .to_vec::<u16>()
            .unwrap(),
        [1, 9, 0]
    );
}

#[test]
fn shifts_read_the_amount_as_unsigned() {
    let a = v(&[1i32, 1, 1, -16, -16, -16, -16, 0x4000_0000]);
    let n = v(&[31i32, 32, -1, 2, 40, -1, 3, 1]);
    assert_eq!(
        apply("shift-left", "", "s32", &[&a, &n])
            .to_vec::<i32>()
            .unwrap(),
        [i32::MIN, 0, 0, -64, 0, 0, -128, i32::MIN]
    );
    assert_eq!(
        apply("shift-right-logical", "", "s32", &[&a, &n])
            .to_vec::<i32>()
            .unwrap(),
        [0, 0, 0, 0x3FFF_FFFC, 0, 0, 0x1FFF_FFFE, 0x2000_0000]
    );
    assert_eq!(
        apply("shift-right-arithmetic", "", "s32", &[&a, &n])
            .to_vec::<i32>()
            .unwrap(),
        [0, 0, 0, -4, -1, -1, -2, 0x2000_0000]
    );
    // The arithmetic shift replicates the top bit of unsigned values too.
    let u = v(&[0x8000_0000u32, 0x8000_0000, 0x4000_0000]);
    let n = v(&[31u32, 99, 99]);
    assert_eq!(
        apply("shift-right-arithmetic", "", "u32", &[&u, &n])
            .to_vec::<u32>()
            .unwrap(),
        [0xFFFF_FFFF, 0xFFFF_FFFF, 0]
    );
}

#[test]
fn integer_power() {
    let a = v(&[3i32, 2, 2, 0, 2, 1, -1, -1, 0, -2]);
    let b = v(&[4i32, 31, 32, 0, -1, -5, -3, -4, -2, 3]);
    assert_eq!(
        apply("power", "", "s32", &[&a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [81, i32::MIN, 0, 1, 0, 1, -1, 1, 0, -8]
    );
    let (a, b) = (v(&[3u8, 2, 255]), v(&[5u8, 9, 2]));
    assert_eq!(
        apply("power", "", "u8", &[&a, &b]).to_vec::<u8>().unwrap(),
        [243, 0, 1]
    );
}

#[test]
fn integer_bit_ops() {
    let a = v(&[-1i8, 0, 7, i8::MIN]);
    assert_eq!(
        apply("popcnt", "", "s8", &[&a]).to_vec::<i8>().unwrap(),
        [8, 0, 3, 1]
    );
    assert_eq!(
        apply("count-leading-zeros", "", "s8", &[&a])
            .to_vec::<i8>()
            .unwrap(),
        [0, 8, 5, 0]
    );
    assert_eq!(
        apply("not", "", "s8", &[&a]).to_vec::<i8>().unwrap(),
        [0, -1, -8, i8::MAX]
    );
    assert_eq!(
        apply("popcnt", "", "u32", &[&v(&[7u32])])
            .to_vec::<u32>()
            .unwrap(),
        [3]
    );
    let b = v(&[0x0Fi8, 3, 5, -1]);
    assert_eq!(
        apply("and", "", "s8", &[&a, &b]).to_vec::<i8>().unwrap(),
        [0x0F, 0, 5, i8::MIN]
    );
    assert_eq!(
        apply("or", "", "s8", &[&a, &b]).to_vec::<i8>().unwrap(),
        [-1, 3, 7, -1]
    );
    assert_eq!(
        apply("xor", "", "s8", &[&a, &b]).to_vec::<i8>().unwrap(),
        [-16, 3, 2, i8::MAX]
    );
    let (x, y) = (v(&[3u64, u64::MAX]), v(&[5u64, 1]));
    assert_eq!(
        apply("maximum", "", "u64", &[&x, &y])
            .to_vec::<u64>()
            .unwrap(),
        [5, u64::MAX]
    );
    assert_eq!(
        apply("minimum", "", "u64", &[&x, &y])
            .to_vec::<u64>()
            .unwrap(),
        [3, 1]
    );
}

#[test]
fn pred_ops() {
    let a = v(&[false, false, true, true]);
    let b = v(&[false, true, false, true]);
    assert_eq!(
        apply("and", "", "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap(),
        [false, false, false, true]
    );
    assert_eq!(
        apply("or", "", "pred", &[&a, &b]).to_vec::<bool>().unwrap(),
        [false, true, true, true]
    );
    assert_eq!(
        apply("xor", "", "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap(),
        [false, true, true, false]
    );
    assert_eq!(
        apply("maximum", "", "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap(),
        [false, true, true, true]
    );
    assert_eq!(
        apply("minimum", "", "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap(),
        [false, false, false, true]
    );
    assert_eq!(
        apply("add", "", "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap(),
        [false, true, true, true]
    );
    assert_eq!(
        apply("multiply", "", "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap(),
        [false, false, false, true]
    );
    assert_eq!(
        apply("not", "", "pred", &[&a]).to_vec::<bool>().unwrap(),
        [true, true, false, false]
    );
}

// === comparisons (`docs/semantics.md`, *Comparisons*) ===

#[test]
fn ieee_comparisons() {
    let a = v(&[1.0f32, f32::NAN, -0.0, 2.0]);
    let b = v(&[2.0f32, f32::NAN, 0.0, 2.0]);
    let cmp = |dir: &str| {
        apply("compare", &format!(", direction={dir}"), "pred", &[&a, &b])
            .to_vec::<bool>()
            .unwrap()
    };
    assert_eq!(cmp("EQ"), [false, false, true, true]);
    assert_eq!(cmp("NE"), [true, true, false, false]);
    assert_eq!(cmp("LT"), [true, false, false, false]);
    assert_eq!(cmp("LE"), [true, false, true, true]);
    assert_eq!(cmp("GT"), [false, false, false, false]);
    assert_eq!(cmp("GE"), [false, false, true, true]);
    let (x, y) = (v(&[-1i32, 5]), v(&[1i32, 5]));
    let lt = apply("compare", ", direction=LT", "pred", &[&x, &y]);
    assert_eq!(lt.to_vec::<bool>().unwrap(), [true, false]);
    let (x, y) = (v(&[u32::MAX, 0]), v(&[1u32, 0]));
    let gt = apply(
        "compare",
        ", direction=GT, type=UNSIGNED",
        "pred",
        &[&x, &y],
    );
    assert_eq!(gt.to_vec::<bool>().unwrap(), [true, false]);
    let (p, q) = (v(&[false, true]), v(&[true, true]));
    let lt = apply("compare", ", direction=LT", "pred", &[&p, &q]);
    assert_eq!(lt.to_vec::<bool>().unwrap(), [true, false]);
}

#[test]
fn total_order_comparisons() {
    // −NaN < −Inf < −1 < −0 < +0 < +1 < +Inf < +NaN on the bit patterns of `docs/semantics.md`,
    // *Comparisons*.
    let order = [
        0xFFC0_0000u32,
        0xFF80_0000,
        0xBF80_0000,
        0x8000_0000,
        0,
        0x3F80_0000,
        0x7F80_0000,
        0x7FC0_0000,
    ];
    let xs: Vec<f32> = order.iter().map(|&b| f32::from_bits(b)).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &xs {
        for &y in &xs {
            a.push(x);
            b.push(y);
        }
    }
    let (a, b) = (v(&a), v(&b));
    let lt = apply(
        "compare",
        ", direction=LT, type=TOTALORDER",
        "pred",
        &[&a, &b],
    )
    .to_vec::<bool>()
    .unwrap();
    let eq = apply(
        "compare",
        ", direction=EQ, type=TOTALORDER",
        "pred",
        &[&a, &b],
    )
    .to_vec::<bool>()
    .unwrap();
    for i in 0..8 {
        for j in 0..8 {
            assert_eq!(lt[i * 8 + j], i < j, "{i} < {j}");
            assert_eq!(eq[i * 8 + j], i == j, "{i} == {j}");
        }
    }
    let (x, y) = (v(&[h(-0.0), h(f32::NAN)]), v(&[h(0.0), h(f32::NAN)]));
    let ne = apply(
        "compare",
        ", direction=NE, type=TOTALORDER",
        "pred",
        &[&x, &y],
    );
    assert_eq!(ne.to_vec::<bool>().unwrap(), [true, false]);
}

#[test]
fn complex_equality() {
    let a = v(&[
        C64::new(1.0, 2.0),
        C64::new(1.0, 2.0),
        C64::new(f32::NAN, 0.0),
    ]);
    let b = v(&[
        C64::new(1.0, 2.0),
        C64::new(1.0, -2.0),
        C64::new(f32::NAN, 0.0),
    ]);
    let eq = apply("compare", ", direction=EQ", "pred", &[&a, &b]);
    assert_eq!(eq.to_vec::<bool>().unwrap(), [true, false, false]);
    let ne = apply("compare", ", direction=NE", "pred", &[&a, &b]);
    assert_eq!(ne.to_vec::<bool>().unwrap(), [false, true, true]);
}

// === select and clamp (`docs/semantics.md`, *Select and clamp*) ===

#[test]
fn select_forms() {
    let on_true = v(&[1i32, 2, 3, 4]);
    let on_false = v(&[100i32, 200, 300, 400]);
    let pred = v(&[true, false, false, true]);
    let r = apply("select", "", "s32", &[&pred, &on_true, &on_false]);
    assert_eq!(r.to_vec::<i32>().unwrap(), [1, 200, 300, 4]);
    let body = "p = pred[] parameter(0)\nt = s32[4] parameter(1)\nf = s32[4] parameter(2)\nr = s32[4] select(p, t, f)";
    assert_eq!(
        run(body, &[&Literal::scalar(true), &on_true, &on_false])
            .to_vec::<i32>()
            .unwrap(),
        [1, 2, 3, 4]
    );
    assert_eq!(
        run(body, &[&Literal::scalar(false), &on_true, &on_false])
            .to_vec::<i32>()
            .unwrap(),
        [100, 200, 300, 400]
    );
    let tuple = "p = pred[] parameter(0)\na = s32[4] parameter(1)\nb = s32[4] parameter(2)\n\
                 t = (s32[4], s32[4]) tuple(a, b)\nf = (s32[4], s32[4]) tuple(b, a)\n\
                 r = (s32[4], s32[4]) select(p, t, f)";
    let r = run(tuple, &[&Literal::scalar(false), &on_true, &on_false]);
    let parts = r.tuple_elements().unwrap();
    assert_eq!(parts[0].to_vec::<i32>().unwrap(), [100, 200, 300, 400]);
    assert_eq!(parts[1].to_vec::<i32>().unwrap(), [1, 2, 3, 4]);
}

#[test]
fn clamp_rules() {
    let body = "lo = s32[] parameter(0)\nx = s32[3] parameter(1)\nhi = s32[] parameter(2)\nr = s32[3] clamp(lo, x, hi)";
    let x = v(&[-1i32, 5, 9]);
    let r = run(body, &[&Literal::scalar(0i32), &x, &Literal::scalar(6i32)]);
    assert_eq!(r.to_vec::<i32>().unwrap(), [0, 5, 6]);
    // min > max gives max.
    let r = run(
        body,
        &[
            &Literal::scalar(5i32),
            &v(&[0i32, 3, 9]),
            &Literal::scalar(2i32),
        ],
    );
    assert_eq!(r.to_vec::<i32>().unwrap(), [2, 2, 2]);
    // Array bounds, NaN anywhere gives NaN, signed zeros as max/min.
    let lo = v(&[0.0f32, f32::NAN, 1.0, -0.0]);
    let x = v(&[-1.0f32, 1.0, f32::NAN, 0.0]);
    let hi = v(&[2.0f32, 3.0, 3.0, 0.0]);
    let r = apply("clamp", "", "f32", &[&lo, &x, &hi])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(r[0], 0.0);
    assert!(r[1].is_nan() && r[2].is_nan());
    assert_eq!(r[3].to_bits(), 0);
}

// === convert, bitcast-convert, reduce-precision (`docs/semantics.md`, *Convert*,
// *Bitcast-convert*, *Reduce-precision*) ===

#[test]
fn convert_uses_the_conversion_rules() {
    let x = v(&[2.7f32, -2.7, 1e10, -1e10, f32::NAN]);
    assert_eq!(
        apply("convert", "", "s32", &[&x]).to_vec::<i32>().unwrap(),
        [2, -2, i32::MAX, i32::MIN, 0]
    );
    assert_eq!(
        apply("convert", "", "s8", &[&v(&[300i32, -129])])
            .to_vec::<i8>()
            .unwrap(),
        [44, 127]
    );
    let f = apply("convert", "", "f32", &[&v(&[16777217i32, 16777219])]);
    assert_eq!(f.to_vec::<f32>().unwrap(), [16777216.0, 16777220.0]);
    let c = apply("convert", "", "s32", &[&v(&[C64::new(1.7, 2.0)])]);
    assert_eq!(c.to_vec::<i32>().unwrap(), [1]);
}

#[test]
fn bitcast_convert_is_little_endian() {
    let body = "x = f32[] parameter(0)\nr = f16[2] bitcast-convert(x)";
    let r = run(body, &[&Literal::scalar(1.0f32)])
        .to_vec::<f16>()
        .unwrap();
    assert_eq!(r, [h(0.0), h(1.875)]);
    let body = "x = s32[] parameter(0)\nr = s8[4] bitcast-convert(x)";
    let r = run(body, &[&Literal::scalar(0x0102_0304i32)]);
    assert_eq!(r.to_vec::<i8>().unwrap(), [4, 3, 2, 1]);
    let body = "x = f16[2] parameter(0)\nr = f32[] bitcast-convert(x)";
    assert_eq!(
        run(body, &[&v(&[h(0.0), h(1.875)])])
            .to_vec::<f32>()
            .unwrap(),
        [1.0]
    );
    let body = "x = f32[2] parameter(0)\nr = s32[2] bitcast-convert(x)";
    assert_eq!(
        run(body, &[&v(&[1.0f32, -0.0])]).to_vec::<i32>().unwrap(),
        [1065353216, i32::MIN]
    );
    let body = "x = f32[2,2] parameter(0)\nr = u16[2,2,2] bitcast-convert(x)";
    let m = Literal::matrix(&[[1.0f32, 2.0], [-1.0, 0.5]]);
    assert_eq!(
        run(body, &[&m]).to_vec::<u16>().unwrap(),
        [0, 0x3F80, 0, 0x4000, 0, 0xBF80, 0, 0x3F00]
    );
}

#[test]
fn reduce_precision_table() {
    let p8 = 2f32.powi(-8);
    let x = v(&[
        1.0 + p8,
        1.0 + 3.0 * p8,
        std::f32::consts::PI,
        65504.0,
        65520.0,
        1e-5,
        -1e6,
        f32::NAN,
    ]);
    let e8m7 = apply(
        "reduce-precision",
        ", exponent_bits=8, mantissa_bits=7",
        "f32",
        &[&x],
    );
    let e8m7 = e8m7.to_vec::<f32>().unwrap();
    assert_eq!(
        &e8m7[..7],
        [
            1.0,
            1.015625,
            3.140625,
            65536.0,
            65536.0,
            168.0 * 2f32.powi(-24),
            -999424.0
        ]
    );
    assert!(e8m7[7].is_nan());
    let e5m10 = apply(
        "reduce-precision",
        ", exponent_bits=5, mantissa_bits=10",
        "f32",
        &[&x],
    );
    let e5m10 = e5m10.to_vec::<f32>().unwrap();
    assert_eq!(
        &e5m10[..7],
        [
            1.0 + p8,
            1.0 + 3.0 * p8,
            3.140625,
            65504.0,
            f32::INFINITY,
            0.0,
            f32::NEG_INFINITY
        ]
    );
    // A NaN keeps its bit pattern even with no mantissa bits left.
    let nan = v(&[f64::from_bits(0x7FF0_0000_0000_0123)]);
    let r = apply(
        "reduce-precision",
        ", exponent_bits=2, mantissa_bits=0",
        "f64",
        &[&nan],
    );
    assert_eq!(
        r.to_vec::<f64>().unwrap()[0].to_bits(),
        0x7FF0_0000_0000_0123
    );
    // On f16 bits: 1 + 2⁻¹⁰ keeps 10 mantissa bits, loses them at 2.
    let r = apply(
        "reduce-precision",
        ", exponent_bits=5, mantissa_bits=2",
        "f16",
        &[&v(&[h(1.375), h(1.0 + 1.0 / 1024.0)])],
    );
    assert_eq!(r.to_vec::<f16>().unwrap(), [h(1.5), h(1.0)]);
    let r = apply(
        "reduce-precision",
        ", exponent_bits=8, mantissa_bits=7",
        "bf16",
        &[&v(&[bf16::from_f32(3.0)])],
    );
    assert_eq!(r.to_vec::<bf16>().unwrap(), [bf16::from_f32(3.0)]);
}

// === map ===

#[test]
fn map_calls_the_computation_per_element() {
    let extra = "f {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] convert(b)\n  ROOT r = f32[] multiply(a, c)\n}";
    let body = "x = f32[3] parameter(0)\ny = s32[3] parameter(1)\nr = f32[3] map(x, y), dimensions={0}, to_apply=f";
    let r = run_with(extra, body, &[&v(&[1.5f32, 2.0, -1.0]), &v(&[2i32, 3, 4])]);
    assert_eq!(r.to_vec::<f32>().unwrap(), [3.0, 6.0, -4.0]);
    // A computation the scalar compiler does not take runs through the
    // general evaluator.
    let extra = "g {\n  a = s32[] parameter(0)\n  b = s32[1] broadcast(a), dimensions={}\n  \
                 c = s32[1] add(b, b)\n  ROOT r = s32[] reshape(c)\n}";
    let body = "x = s32[2,2] parameter(0)\nr = s32[2,2] map(x), dimensions={0,1}, to_apply=g";
    let r = run_with(extra, body, &[&Literal::matrix(&[[1i32, 2], [3, 4]])]);
    assert_eq!(r.to_vec::<i32>().unwrap(), [2, 4, 6, 8]);
}

// === shapes and layouts ===

#[test]
fn any_input_layout_rank_zero_and_empty() {
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let col = m.relayout(&Layout::new([0, 1])).unwrap();
    let body =
        "a = s32[2,3]{1,0} parameter(0)\nb = s32[2,3]{0,1} parameter(1)\nr = s32[2,3] add(a, b)";
    assert_eq!(
        run(body, &[&m, &col]).to_vec::<i32>().unwrap(),
        [2, 4, 6, 8, 10, 12]
    );
    let tiled = Literal::matrix(&[[1i32, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]])
        .relayout(&Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]))
        .unwrap();
    let body = "a = s32[3,5]{1,0:T(2,2)} parameter(0)\nr = s32[3,5] negate(a)";
    let r = run(body, &[&tiled]).to_vec::<i32>().unwrap();
    assert_eq!(r, (1..=15).map(|x| -x).collect::<Vec<i32>>());
    // The result takes the root's declared layout.
    let body = "a = s32[2,3] parameter(0)\nr = s32[2,3]{0,1} negate(a)";
    let r = run(body, &[&m]);
    assert_eq!(r.shape().to_string(), "s32[2,3]{0,1}");
    assert_eq!(r.data::<i32>().unwrap(), [-1, -4, -2, -5, -3, -6]);
    let s = apply(
        "add",
        "",
        "f64",
        &[&Literal::scalar(1.5f64), &Literal::scalar(2.0f64)],
    );
    assert_eq!(s.to_vec::<f64>().unwrap(), [3.5]);
    let empty = Literal::from_vec::<f32>(&[0, 3], vec![]).unwrap();
    let body = "a = f32[0,3] parameter(0)\nr = f32[0,3] exponential(a)";
    assert_eq!(
        run(body, &[&empty]).to_vec::<f32>().unwrap(),
        Vec::<f32>::new()
    );
}

#[test]
fn errors_name_the_instruction() {
    let err = run_err(
        "",
        "a = f32[2] parameter(0)\nr = f32[3] add(a, a)",
        &[&v(&[1.0f32, 2.0])],
    );
    assert_eq!(
        err,
        "instruction r (add): inferred f32[2] but the instruction says f32[3]"
    );
    let err = run_err(
        "",
        "a = u8[2] parameter(0)\nr = u8[2] abs(a)",
        &[&v(&[1u8, 2])],
    );
    assert_eq!(
        err,
        "instruction r: abs: operand 0 u8[2] must have a signed integral, floating-point or complex element type"
    );
}
