//! The interpreter's floating-point and complex element-wise ops (`docs/semantics.md`,
//! *Element-wise arithmetic*, *Comparisons*, *Unary functions*): max/min, fmod, rounding, special
//! functions, the subnormal project rule and f16/bf16 rounding after every op.

use crate::interp_common;

use half::{bf16, f16};
use interp_common::*;
use xla_core::{C128, C64};

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

// === floats ===

#[test]
fn max_min_propagate_nan_and_order_signed_zeros() {
    let a = v(&[0.0f32, -0.0, f32::NAN, 1.0, -3.0, f32::INFINITY]);
    let b = v(&[-0.0f32, 0.0, 1.0, f32::NAN, -2.0, 5.0]);
    let max = apply("maximum", "", "f32", &[&a, &b])
        .to_vec::<f32>()
        .unwrap();
    let min = apply("minimum", "", "f32", &[&a, &b])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(bits32(&max[..2]), bits32(&[0.0, 0.0]));
    assert_eq!(bits32(&min[..2]), bits32(&[-0.0, -0.0]));
    assert!(max[2].is_nan() && max[3].is_nan() && min[2].is_nan() && min[3].is_nan());
    assert_eq!(
        (max[4], max[5], min[4], min[5]),
        (-2.0, f32::INFINITY, -3.0, 5.0)
    );
}

#[test]
fn float_remainder_is_fmod() {
    let a = v(&[-7.5f64, 7.5, 5.0, 1.0, -0.0]);
    let b = v(&[2.0f64, -2.0, 2.5, 0.0, 1.0]);
    let r = apply("remainder", "", "f64", &[&a, &b])
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(&r[..3], [-1.5, 1.5, 0.0]);
    assert!(r[3].is_nan());
    assert_eq!(r[4].to_bits(), (-0.0f64).to_bits());
}

#[test]
fn rounding_functions() {
    let x = v(&[0.5f32, 1.5, 2.5, -0.5, -2.5, 2.4, -0.0, f32::INFINITY]);
    let afz = apply("round-nearest-afz", "", "f32", &[&x])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(
        bits32(&afz),
        bits32(&[1.0, 2.0, 3.0, -1.0, -3.0, 2.0, -0.0, f32::INFINITY])
    );
    let even = apply("round-nearest-even", "", "f32", &[&x])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(
        bits32(&even),
        bits32(&[0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -0.0, f32::INFINITY])
    );
    let y = v(&[1.5f64, -1.5, -0.0, f64::NEG_INFINITY]);
    assert_eq!(
        apply("ceil", "", "f64", &[&y]).to_vec::<f64>().unwrap()[..2],
        [2.0, -1.0]
    );
    assert_eq!(
        apply("floor", "", "f64", &[&y]).to_vec::<f64>().unwrap()[..2],
        [1.0, -2.0]
    );
    let f = apply("floor", "", "f64", &[&y]).to_vec::<f64>().unwrap();
    assert_eq!(bits64(&f[2..]), bits64(&[-0.0, f64::NEG_INFINITY]));
}

#[test]
fn sign_and_special_functions() {
    let x = v(&[-2.0f32, -0.0, 0.0, 3.0, f32::NAN]);
    let s = apply("sign", "", "f32", &[&x]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&s[..4]), bits32(&[-1.0, -0.0, 0.0, 1.0]));
    assert!(s[4].is_nan());
    let y = v(&[0.0f32, -1.0, 4.0, -8.0]);
    let log = apply("log", "", "f32", &[&y]).to_vec::<f32>().unwrap();
    assert!(log[0] == f32::NEG_INFINITY && log[1].is_nan());
    let sqrt = apply("sqrt", "", "f32", &[&y]).to_vec::<f32>().unwrap();
    assert!(sqrt[1].is_nan() && sqrt[2] == 2.0);
    let rsqrt = apply("rsqrt", "", "f32", &[&y]).to_vec::<f32>().unwrap();
    assert_eq!((rsqrt[0], rsqrt[2]), (f32::INFINITY, 0.5));
    assert_eq!(
        apply("cbrt", "", "f32", &[&y]).to_vec::<f32>().unwrap()[3],
        -2.0
    );
    assert_eq!(
        apply("logistic", "", "f32", &[&y]).to_vec::<f32>().unwrap()[0],
        0.5
    );
    assert_eq!(
        apply("exponential", "", "f32", &[&y])
            .to_vec::<f32>()
            .unwrap()[0],
        1.0
    );
    assert_eq!(
        apply("erf", "", "f64", &[&v(&[0.0f64])])
            .to_vec::<f64>()
            .unwrap(),
        [0.0]
    );
    let tiny = v(&[1e-10f64]);
    assert_eq!(
        apply("exponential-minus-one", "", "f64", &[&tiny])
            .to_vec::<f64>()
            .unwrap(),
        [1.00000000005e-10]
    );
    assert_eq!(
        apply("log-plus-one", "", "f64", &[&tiny])
            .to_vec::<f64>()
            .unwrap(),
        [9.999999999500001e-11]
    );
    let fin = apply(
        "is-finite",
        "",
        "pred",
        &[&v(&[1.0f32, f32::INFINITY, f32::NAN, -0.0])],
    );
    assert_eq!(fin.to_vec::<bool>().unwrap(), [true, false, false, true]);
    let at = apply(
        "atan2",
        "",
        "f64",
        &[&v(&[1.0f64, 0.0]), &v(&[1.0f64, -1.0])],
    );
    assert_eq!(
        at.to_vec::<f64>().unwrap(),
        [std::f64::consts::FRAC_PI_4, std::f64::consts::PI]
    );
    let p = apply(
        "power",
        "",
        "f32",
        &[
            &v(&[2.0f32, 1.0, f32::NAN, 0.0]),
            &v(&[10.0f32, f32::NAN, 0.0, -1.0]),
        ],
    );
    assert_eq!(
        p.to_vec::<f32>().unwrap(),
        [1024.0, 1.0, 1.0, f32::INFINITY]
    );
}

#[test]
fn real_imag_and_tanh_of_floats() {
    let x = v(&[-1.5f32, f32::from_bits(1)]);
    let re = apply("real", "", "f32", &[&x]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&re), bits32(&[-1.5, f32::from_bits(1)]));
    assert_eq!(
        apply("imag", "", "f32", &[&x]).to_vec::<f32>().unwrap(),
        [0.0, 0.0]
    );
    let t = apply("tanh", "", "f64", &[&v(&[0.0f64, 50.0, -50.0])]);
    assert_eq!(t.to_vec::<f64>().unwrap(), [0.0, 1.0, -1.0]);
}

// === the subnormal project rule (`docs/semantics.md`, *Flush to zero*) ===

#[test]
fn f32_and_f64_computations_flush_subnormals() {
    let one = v(&[1.0f32, 1e-20]);
    let x = v(&[1e-40f32, 1e-20]);
    assert_eq!(
        apply("multiply", "", "f32", &[&x, &one])
            .to_vec::<f32>()
            .unwrap(),
        [0.0, 0.0]
    );
    let neg = v(&[-1e-40f32]);
    // −1e−40 reads as −0, and −0 + −0 = −0.
    let z = apply("add", "", "f32", &[&neg, &v(&[-0.0f32])])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(bits32(&z), bits32(&[-0.0]));
    let gt = apply(
        "compare",
        ", direction=GT",
        "pred",
        &[&v(&[1e-40f32]), &v(&[0.0f32])],
    );
    assert_eq!(gt.to_vec::<bool>().unwrap(), [false]);
    let eq = apply(
        "compare",
        ", direction=EQ",
        "pred",
        &[&v(&[1e-40f32]), &v(&[0.0f32])],
    );
    assert_eq!(eq.to_vec::<bool>().unwrap(), [true]);
    let max = apply("maximum", "", "f32", &[&v(&[1e-40f32]), &v(&[0.0f32])])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(bits32(&max), [0]);
    let floor = apply("floor", "", "f32", &[&neg]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&floor), bits32(&[-0.0]));
    let sign = apply("sign", "", "f32", &[&neg]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&sign), bits32(&[-0.0]));
    let d = v(&[1e-160f64]);
    assert_eq!(
        apply("multiply", "", "f64", &[&d, &d])
            .to_vec::<f64>()
            .unwrap(),
        [0.0]
    );
    let to_f32 = apply("convert", "", "f32", &[&v(&[1e-40f64])])
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(to_f32, [0.0]);
    assert_eq!(
        apply("convert", "", "pred", &[&v(&[1e-40f32])])
            .to_vec::<bool>()
            .unwrap(),
        [false]
    );
}

#[test]
fn data_movement_neg_and_abs_keep_subnormal_bits() {
    let x = v(&[1e-40f32, -1e-40]);
    let neg = apply("negate", "", "f32", &[&x]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&neg), bits32(&[-1e-40, 1e-40]));
    let abs = apply("abs", "", "f32", &[&x]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&abs), bits32(&[1e-40, 1e-40]));
    let copy = apply("copy", "", "f32", &[&x]).to_vec::<f32>().unwrap();
    assert_eq!(bits32(&copy), bits32(&[1e-40, -1e-40]));
    let pred = v(&[true, false]);
    let sel = apply("select", "", "f32", &[&pred, &x, &v(&[0.0f32, 0.0])]);
    assert_eq!(bits32(&sel.to_vec::<f32>().unwrap()), bits32(&[1e-40, 0.0]));
    let bits = apply("bitcast-convert", "", "u32", &[&x])
        .to_vec::<u32>()
        .unwrap();
    assert_eq!(bits, bits32(&[1e-40, -1e-40]));
}

#[test]
fn f16_keeps_subnormal_results_and_bf16_flushes() {
    let r = apply("multiply", "", "f16", &[&v(&[h(1e-4)]), &v(&[h(1e-3)])]);
    assert_eq!(r.to_vec::<f16>().unwrap()[0].to_bits(), 0x0002);
    let tiny = bf16::from_f32(1e-40);
    let r = apply("multiply", "", "bf16", &[&v(&[tiny]), &v(&[bf16::ONE])]);
    assert_eq!(r.to_vec::<bf16>().unwrap()[0].to_bits(), 0);
    // f32 → bf16 keeps the bit pattern (a conversion, not a computation).
    let c = apply("convert", "", "bf16", &[&v(&[1e-40f32])]);
    assert_eq!(c.to_vec::<bf16>().unwrap()[0], bf16::from_f32(1e-40));
}

#[test]
fn half_types_round_after_every_op() {
    // (2048 + 1) − 2048 in f16: the sum rounds to 2048 (even) first.
    let body = "a = f16[1] parameter(0)\nb = f16[1] parameter(1)\ns = f16[1] add(a, b)\nd = f16[1] subtract(s, a)";
    let r = run(body, &[&v(&[h(2048.0)]), &v(&[h(1.0)])]);
    assert_eq!(r.to_vec::<f16>().unwrap(), [h(0.0)]);
    // bf16: 256 + 1 rounds to 256; f32 would keep 257.
    let r = apply(
        "add",
        "",
        "bf16",
        &[&v(&[bf16::from_f32(256.0)]), &v(&[bf16::ONE])],
    );
    assert_eq!(r.to_vec::<bf16>().unwrap(), [bf16::from_f32(256.0)]);
    // 1/3 rounds to the nearest f16.
    let r = apply("divide", "", "f16", &[&v(&[h(1.0)]), &v(&[h(3.0)])]);
    assert_eq!(r.to_vec::<f16>().unwrap()[0].to_bits(), 0x3555);
}

// === complex arithmetic ===

#[test]
fn complex_arithmetic() {
    let a = v(&[C128::new(1.0, 2.0), C128::new(3.0, 4.0)]);
    let b = v(&[C128::new(3.0, -4.0), C128::new(0.0, 0.0)]);
    let mul = apply("multiply", "", "c128", &[&a, &b])
        .to_vec::<C128>()
        .unwrap();
    assert_eq!(mul[0], C128::new(11.0, 2.0));
    let div = apply(
        "divide",
        "",
        "c128",
        &[&v(&[C128::new(11.0, 2.0)]), &v(&[C128::new(3.0, -4.0)])],
    );
    assert_eq!(div.to_vec::<C128>().unwrap(), [C128::new(1.0, 2.0)]);
    let inf = apply("divide", "", "c128", &[&a, &b])
        .to_vec::<C128>()
        .unwrap();
    assert_eq!(inf[1], C128::new(f64::INFINITY, f64::INFINITY));
    assert_eq!(
        apply("abs", "", "f64", &[&v(&[C128::new(3.0, -4.0)])])
            .to_vec::<f64>()
            .unwrap(),
        [5.0]
    );
    assert_eq!(
        apply("real", "", "f64", &[&a]).to_vec::<f64>().unwrap(),
        [1.0, 3.0]
    );
    assert_eq!(
        apply("imag", "", "f64", &[&a]).to_vec::<f64>().unwrap(),
        [2.0, 4.0]
    );
    let sign = apply(
        "sign",
        "",
        "c128",
        &[&v(&[C128::new(3.0, -4.0), C128::new(0.0, 0.0)])],
    );
    assert_eq!(
        sign.to_vec::<C128>().unwrap(),
        [C128::new(0.6, -0.8), C128::new(0.0, 0.0)]
    );
    let c = apply(
        "complex",
        "",
        "c64",
        &[&v(&[1.0f32, -0.0]), &v(&[2.0f32, 3.0])],
    );
    assert_eq!(
        c.to_vec::<C64>().unwrap(),
        [C64::new(1.0, 2.0), C64::new(-0.0, 3.0)]
    );
    let e = apply("exponential", "", "c128", &[&v(&[C128::new(0.0, 0.0)])]);
    assert_eq!(e.to_vec::<C128>().unwrap(), [C128::new(1.0, 0.0)]);
    let s = apply("sqrt", "", "c128", &[&v(&[C128::new(0.0, 0.0)])]);
    assert_eq!(s.to_vec::<C128>().unwrap(), [C128::new(0.0, 0.0)]);
    let n = apply("negate", "", "c64", &[&v(&[C64::new(1.0, -0.0)])]);
    assert_eq!(n.to_vec::<C64>().unwrap()[0].im.to_bits(), 0);
}

#[test]
fn complex_functions_match_their_definitions() {
    use num_complex::Complex;
    let z = [
        Complex::new(0.5f64, -1.25),
        Complex::new(-2.0, 0.75),
        Complex::new(3.0, 4.0),
        Complex::new(-0.1, -0.2),
    ];
    let x = v(&z);
    let close = |name: &str, got: Vec<C128>, want: &dyn Fn(C128) -> C128| {
        for (g, &zi) in got.iter().zip(&z) {
            let w = want(zi);
            assert!(
                (g - w).norm() <= 1e-13 * w.norm().max(1.0),
                "{name}({zi}) = {g}, want {w}"
            );
        }
    };
    let un = |op: &str| apply(op, "", "c128", &[&x]).to_vec::<C128>().unwrap();
    close("exp", un("exponential"), &|z| z.exp());
    close("expm1", un("exponential-minus-one"), &|z| z.exp() - 1.0);
    close("log", un("log"), &|z| z.ln());
    close("log1p", un("log-plus-one"), &|z| (z + 1.0).ln());
    close("sqrt", un("sqrt"), &|z| z.sqrt());
    close("rsqrt", un("rsqrt"), &|z| 1.0 / z.sqrt());
    close("sin", un("sine"), &|z| z.sin());
    close("cos", un("cosine"), &|z| z.cos());
    close("tan", un("tan"), &|z| z.tan());
    close("tanh", un("tanh"), &|z| z.tanh());
    close("logistic", un("logistic"), &|z| 1.0 / (1.0 + (-z).exp()));
    let y = v(&[
        Complex::new(2.0f64, 0.0),
        Complex::new(0.5, 0.5),
        Complex::new(-1.0, 0.0),
        Complex::new(1.0, 1.0),
    ]);
    let pow = apply("power", "", "c128", &[&x, &y])
        .to_vec::<C128>()
        .unwrap();
    let ys = y.to_vec::<C128>().unwrap();
    for ((g, &zi), &yi) in pow.iter().zip(&z).zip(&ys) {
        let w = zi.powc(yi);
        assert!(
            (g - w).norm() <= 1e-13 * w.norm(),
            "pow({zi}, {yi}) = {g}, want {w}"
        );
    }
    // atan2(y, x) for real values inside complex numbers is the real atan2.
    let at = apply(
        "atan2",
        "",
        "c128",
        &[&v(&[C128::new(1.0, 0.0)]), &v(&[C128::new(-1.0, 0.0)])],
    );
    let at = at.to_vec::<C128>().unwrap()[0];
    assert!(
        (at.re - 3.0 * std::f64::consts::FRAC_PI_4).abs() < 1e-15 && at.im.abs() < 1e-15,
        "{at}"
    );
    // Special values: log(−1) = iπ, sqrt(−inf) = i∞, rsqrt(0) = ∞ + NaN i.
    let s = apply("log", "", "c128", &[&v(&[C128::new(-1.0, 0.0)])])
        .to_vec::<C128>()
        .unwrap();
    assert_eq!(s, [C128::new(0.0, std::f64::consts::PI)]);
    let s = apply(
        "sqrt",
        "",
        "c128",
        &[&v(&[C128::new(f64::NEG_INFINITY, 1.0)])],
    )
    .to_vec::<C128>()
    .unwrap();
    assert_eq!(s, [C128::new(0.0, f64::INFINITY)]);
    let r = apply("rsqrt", "", "c128", &[&v(&[C128::new(0.0, 0.0)])])
        .to_vec::<C128>()
        .unwrap()[0];
    assert!(r.re == f64::INFINITY && r.im.is_nan());
}
