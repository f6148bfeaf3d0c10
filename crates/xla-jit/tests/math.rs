//! The JIT's vector math library: accuracy bounds (the figures documented
//! in `xla_jit::math`) on special values and a few thousand inputs spread
//! over each domain, C99 special cases exactly, vector and scalar paths
//! bit-identical, and every length of tail. Every kernel is compiled with
//! Cranelift's verifier on.

mod reference;

use reference::{binary_reference, special_values, ulp_error, unary_range, unary_reference, Rng};
use xla_jit::codegen::CodegenOptions;
use xla_jit::codegen::{BinaryKernel, MathFloat, UnaryKernel};
use xla_jit::math::{Accuracy, BinaryFn, UnaryFn};

fn options() -> CodegenOptions {
    CodegenOptions {
        verify: true,
        keep_clif: false,
        ..CodegenOptions::default()
    }
}

/// The documented maximum error in ulp (the measured maxima in the table of
/// `xla_jit::math`, rounded up): `(f32, f64)`, f64 against `std` (which is
/// what the f64 figures in parentheses there are).
fn bound(f: UnaryFn) -> (f64, f64) {
    match f {
        UnaryFn::Exp => (0.79, 1.0),
        UnaryFn::Expm1 => (0.96, 1.0),
        UnaryFn::Log => (0.97, 1.0),
        UnaryFn::Log1p => (1.02, 1.0),
        UnaryFn::Logistic => (0.87, 1.0),
        UnaryFn::Tanh => (1.0, 2.0),
        UnaryFn::Erf => (1.24, 1.0),
        UnaryFn::Sin | UnaryFn::Cos => (0.77, 1.0),
        UnaryFn::Tan => (0.95, 1.0),
        UnaryFn::Cbrt => (0.51, 1.0),
        UnaryFn::Sqrt => (0.5, 0.0),
        UnaryFn::Rsqrt => (0.51, 0.0),
    }
}

/// The documented maximum error of binary functions: `(f32, f64)`.
fn bound2(f: BinaryFn) -> (f64, f64) {
    match f {
        BinaryFn::Atan2 => (0.93, 1.0),
        BinaryFn::Pow => (0.51, 2.0),
    }
}

/// Special values, then `n` values of every magnitude (random mantissa and
/// sign, exponents spread over the whole range) and `n` in the core range.
fn inputs(f: UnaryFn, n: usize, f32: bool) -> Vec<f64> {
    let mut rng = Rng::new(f as u64 + 1);
    let mut v = special_values();
    let (emin, emax) = if f32 { (-149, 128) } else { (-1074, 1024) };
    for i in 0..n {
        let e = emin + ((emax - emin) as usize * i / n) as i32;
        let m = rng.uniform(1.0, 2.0)
            * if rng.next().is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
        v.push(m * 2f64.powi(e));
    }
    let (lo, hi) = unary_range(f);
    v.extend((0..n).map(|_| rng.uniform(lo, hi)));
    v
}

/// Runs `f` on `x` both as one array (vector loop and tail) and element by
/// element (scalar path); checks that both agree bit for bit and that the
/// error stays within `limit` ulp.
fn check_unary<T: MathFloat + Into<f64>>(f: UnaryFn, x: &[T], limit: f64) {
    check_unary_at(f, x, limit, Accuracy::Full);
}

/// [`check_unary`] at the given accuracy. At [`Accuracy::Xla`], subnormal
/// inputs must act as zeros and subnormal results must be flushed: the
/// error is measured on the other inputs.
fn check_unary_at<T: MathFloat + Into<f64>>(f: UnaryFn, x: &[T], limit: f64, accuracy: Accuracy) {
    let kernel = UnaryKernel::<T>::compile_with(&options(), f, accuracy).expect("compiles");
    let want = unary_reference(f);
    let f32 = T::TYPE.bits() == 32;
    let all = kernel.map(x);
    for (i, (&xi, &yi)) in x.iter().zip(&all).enumerate() {
        let (xv, yv): (f64, f64) = (xi.into(), yi.into());
        let single: f64 = kernel.map(&[xi])[0].into();
        assert!(
            single.to_bits() == yv.to_bits() || (single.is_nan() && yv.is_nan()),
            "{}({xv:e}) [{}]: vector path {yv:e}, scalar path {single:e} (element {i})",
            f.name(),
            T::TYPE
        );
        let subnormal = |v: f64| v != 0.0 && v.abs() < f64::from(f32::MIN_POSITIVE);
        if accuracy == Accuracy::Xla {
            assert!(
                !subnormal(yv),
                "{}({xv:e}) [{}] = {yv:e} is subnormal",
                f.name(),
                T::TYPE
            );
            if subnormal(xv) {
                let zero: f64 = kernel.map(&[T::default()])[0].into();
                let sign_ok = f != UnaryFn::Tanh || yv.is_sign_negative() == xv.is_sign_negative();
                assert!(
                    yv.abs() == zero.abs() && sign_ok,
                    "{}({xv:e}) = {yv:e}, not the result of a zero ({zero:e})",
                    f.name()
                );
                continue;
            }
            if subnormal(want(xv)) {
                continue;
            }
        }
        let err = ulp_error(yv, want(xv), f32);
        assert!(
            err <= limit,
            "{}({xv:e}) [{}] = {yv:e}, want {:e}: {err} ulp > {limit}",
            f.name(),
            T::TYPE,
            want(xv)
        );
    }
}

#[test]
fn unary_f32_within_documented_bounds() {
    for f in UnaryFn::ALL {
        let x: Vec<f32> = inputs(f, 1500, true).iter().map(|&v| v as f32).collect();
        check_unary(f, &x, bound(f).0);
    }
}

/// The f32 functions [`Accuracy::Xla`] makes faster, with their documented
/// bounds (the exhaustive maxima of the table of `xla_jit::math`, rounded
/// up; XLA:CPU's own are 5.12, 4.90 and 2.48 ulp).
#[test]
fn fast_f32_forms_within_xla_accuracy() {
    for (f, limit) in [
        (UnaryFn::Exp, 1.05),
        (UnaryFn::Tanh, 4.9),
        (UnaryFn::Logistic, 2.41),
    ] {
        let x: Vec<f32> = inputs(f, 3000, true).iter().map(|&v| v as f32).collect();
        check_unary_at(f, &x, limit, Accuracy::Xla);
    }
}

/// XLA's f32 tanh at the edges of its two special ranges, a few ulp either
/// side, each in a vector with ordinary arguments: below `0.0004` it is `x`
/// itself, and from the clamp at `7.99881172` on it is the value at the
/// clamp. The fast path tests both ranges on the bit pattern of `|x|`: an
/// off-by-one at the tiny end passes the rational's result (an ulp from
/// `x`) and fails here; just above the clamp the unclamped rational still
/// gives the clamp's value, so there the test pins the result, not the
/// boundary.
#[test]
fn fast_f32_tanh_at_the_edges_of_its_special_ranges() {
    let kernel = UnaryKernel::<f32>::compile_with(&options(), UnaryFn::Tanh, Accuracy::Xla)
        .expect("compiles");
    let tiny = 0.0004f32.to_bits();
    let clamp = 7.998_811_7f32.to_bits();
    let at_clamp = kernel.map(&[7.998_811_7f32, -7.998_811_7]);
    let at_half = kernel.map(&[0.5])[0];
    for sign in [1.0f32, -1.0] {
        for k in 0..8u32 {
            let below_tiny = sign * f32::from_bits(tiny - 1 - k);
            let above_clamp = sign * f32::from_bits(clamp + 1 + k);
            let y = kernel.map(&[below_tiny, 0.5, above_clamp, -0.25, below_tiny]);
            assert_eq!(y[0].to_bits(), below_tiny.to_bits(), "tanh({below_tiny:e})");
            assert_eq!(y[4].to_bits(), below_tiny.to_bits(), "tanh({below_tiny:e})");
            let want = if sign > 0.0 { at_clamp[0] } else { at_clamp[1] };
            assert_eq!(y[2].to_bits(), want.to_bits(), "tanh({above_clamp:e})");
            assert_eq!(y[1], at_half);
            // At and just above `0.0004` the rational applies: within a
            // few ulp of `x` but computed, not passed through.
            let at_tiny = sign * f32::from_bits(tiny + k);
            let r = kernel.map(&[at_tiny, 1.0, 2.0, 3.0])[0];
            assert!(ulp_error(r.into(), (at_tiny as f64).tanh(), true) <= 4.9);
        }
    }
}

#[test]
fn unary_f64_within_documented_bounds() {
    for f in UnaryFn::ALL {
        check_unary(f, &inputs(f, 1500, false), bound(f).1);
    }
}

/// Pairs for a binary function: all special pairs, a grid over the core
/// domain and random pairs of every magnitude.
fn pairs(f: BinaryFn, f32: bool) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(f as u64 + 100);
    let ((x0, x1), (y0, y1)) = reference::binary_range(f);
    let (mut xs, mut ys) = reference::special_pairs(f);
    for i in 0..40 {
        for j in 0..40 {
            xs.push(x0 + (x1 - x0) * f64::from(i) / 39.0);
            ys.push(y0 + (y1 - y0) * f64::from(j) / 39.0);
        }
    }
    let bits = |rng: &mut Rng| {
        if f32 {
            f64::from(f32::from_bits(rng.next() as u32))
        } else {
            f64::from_bits(rng.next())
        }
    };
    for _ in 0..1000 {
        xs.push(bits(&mut rng));
        ys.push(bits(&mut rng));
    }
    reference::binary_extra_pairs(f, &mut rng, &mut xs, &mut ys);
    xs.truncate(6000);
    ys.truncate(6000);
    (xs, ys)
}

fn check_binary<T: MathFloat + Into<f64>>(f: BinaryFn, x: &[T], y: &[T], limit: f64) {
    let kernel = BinaryKernel::<T>::compile(&options(), f).expect("compiles");
    let want = binary_reference(f);
    let f32 = T::TYPE.bits() == 32;
    let all = kernel.map(x, y);
    for (i, ((&xi, &yi), &zi)) in x.iter().zip(y).zip(&all).enumerate() {
        let (xv, yv, zv): (f64, f64, f64) = (xi.into(), yi.into(), zi.into());
        let single: f64 = kernel.map(&[xi], &[yi])[0].into();
        assert!(
            single.to_bits() == zv.to_bits() || (single.is_nan() && zv.is_nan()),
            "{}({xv:e}, {yv:e}) [{}]: vector path {zv:e}, scalar path {single:e} (element {i})",
            f.name(),
            T::TYPE
        );
        let err = ulp_error(zv, want(xv, yv), f32);
        assert!(
            err <= limit,
            "{}({xv:e}, {yv:e}) [{}] = {zv:e}, want {:e}: {err} ulp > {limit}",
            f.name(),
            T::TYPE,
            want(xv, yv)
        );
    }
}

#[test]
fn binary_within_documented_bounds() {
    for f in BinaryFn::ALL {
        let (xs, ys) = pairs(f, true);
        let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        let y32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
        check_binary(f, &x32, &y32, bound2(f).0);
        let (xs, ys) = pairs(f, false);
        check_binary(f, &xs, &ys, bound2(f).1);
    }
}

/// `f(x)` through the f32 and the f64 kernel, as f64 values.
fn eval(f: UnaryFn, x: f64) -> (f64, f64) {
    let k32 = UnaryKernel::<f32>::compile(&options(), f).unwrap();
    let k64 = UnaryKernel::<f64>::compile(&options(), f).unwrap();
    (f64::from(k32.map(&[x as f32])[0]), k64.map(&[x])[0])
}

/// Asserts `f(x)` is exactly `want` (bit for bit, or NaN) in f32 and f64.
fn exact(f: UnaryFn, x: f64, want: f64) {
    let (y32, y64) = eval(f, x);
    for (ty, y) in [("f32", y32), ("f64", y64)] {
        let want = if ty == "f32" {
            f64::from(want as f32)
        } else {
            want
        };
        assert!(
            y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()),
            "{}({x:e}) [{ty}] = {y:e}, want {want:e}",
            f.name()
        );
    }
}

#[test]
fn unary_special_values_are_exact() {
    use std::f64::consts::{FRAC_PI_2, PI};
    use UnaryFn::*;
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let cases: &[(UnaryFn, f64, f64)] = &[
        (Exp, 0.0, 1.0),
        (Exp, -0.0, 1.0),
        (Exp, inf, inf),
        (Exp, -inf, 0.0),
        (Exp, nan, nan),
        (Exp, 1000.0, inf),
        (Exp, -1000.0, 0.0),
        (Expm1, -0.0, -0.0),
        (Expm1, 0.0, 0.0),
        (Expm1, -inf, -1.0),
        (Expm1, inf, inf),
        (Expm1, nan, nan),
        (Log, 1.0, 0.0),
        (Log, 0.0, -inf),
        (Log, -0.0, -inf),
        (Log, -1.0, nan),
        (Log, -inf, nan),
        (Log, inf, inf),
        (Log, nan, nan),
        (Log1p, -0.0, -0.0),
        (Log1p, 0.0, 0.0),
        (Log1p, -1.0, -inf),
        (Log1p, -2.0, nan),
        (Log1p, inf, inf),
        (Log1p, nan, nan),
        (Logistic, 0.0, 0.5),
        (Logistic, -0.0, 0.5),
        (Logistic, inf, 1.0),
        (Logistic, -inf, 0.0),
        (Logistic, nan, nan),
        (Tanh, -0.0, -0.0),
        (Tanh, inf, 1.0),
        (Tanh, -inf, -1.0),
        (Tanh, 30.0, 1.0),
        (Tanh, nan, nan),
        (Erf, -0.0, -0.0),
        (Erf, inf, 1.0),
        (Erf, -inf, -1.0),
        (Erf, 10.0, 1.0),
        (Erf, nan, nan),
        (Sin, -0.0, -0.0),
        (Sin, inf, nan),
        (Sin, nan, nan),
        (Cos, 0.0, 1.0),
        (Cos, -inf, nan),
        (Tan, -0.0, -0.0),
        (Tan, inf, nan),
        (Cbrt, -8.0, -2.0),
        (Cbrt, 27.0, 3.0),
        (Cbrt, -0.0, -0.0),
        (Cbrt, inf, inf),
        (Cbrt, -inf, -inf),
        (Cbrt, nan, nan),
        (Sqrt, -1.0, nan),
        (Sqrt, -0.0, -0.0),
        (Sqrt, 4.0, 2.0),
        (Rsqrt, 0.0, inf),
        (Rsqrt, -0.0, -inf),
        (Rsqrt, inf, 0.0),
        (Rsqrt, 4.0, 0.5),
        (Rsqrt, -1.0, nan),
    ];
    for &(f, x, want) in cases {
        exact(f, x, want);
    }
    // sin/cos of the largest finite values go through the large-argument
    // reduction: sin(f32::MAX) = -0.521876..., sin(1e22) = -0.852200849767...
    let (s32, _) = eval(Sin, f64::from(f32::MAX));
    assert_eq!(s32 as f32, (f64::from(f32::MAX)).sin() as f32);
    let (_, s64) = eval(Sin, 1e22);
    assert_eq!(s64, -0.8522008497671888);
    let (c32, c64) = eval(Cos, PI);
    assert_eq!((c32, c64), (-1.0, -1.0));
    let (_, t64) = eval(Tan, FRAC_PI_2);
    assert!(t64 > 1e16, "tan(pi/2) = {t64}");
}

#[test]
fn binary_special_values_are_exact() {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let atan2: &[(f64, f64, f64)] = &[
        (0.0, 0.0, 0.0),
        (-0.0, 0.0, -0.0),
        (0.0, -0.0, PI),
        (-0.0, -0.0, -PI),
        (0.0, -1.0, PI),
        (-0.0, -1.0, -PI),
        (0.0, 1.0, 0.0),
        (-0.0, 1.0, -0.0),
        (1.0, 0.0, FRAC_PI_2),
        (-1.0, -0.0, -FRAC_PI_2),
        (inf, inf, FRAC_PI_4),
        (-inf, inf, -FRAC_PI_4),
        (inf, -inf, 3.0 * FRAC_PI_4),
        (-inf, -inf, -3.0 * FRAC_PI_4),
        (1.0, inf, 0.0),
        (-1.0, inf, -0.0),
        (1.0, -inf, PI),
        (-1.0, -inf, -PI),
        (inf, 1.0, FRAC_PI_2),
        (-inf, -1.0, -FRAC_PI_2),
        (1.0, 1.0, FRAC_PI_4),
        (nan, 1.0, nan),
        (1.0, nan, nan),
        (inf, nan, nan),
        (0.0, nan, nan),
    ];
    let pow: &[(f64, f64, f64)] = &[
        (nan, 0.0, 1.0),
        (nan, -0.0, 1.0),
        (inf, 0.0, 1.0),
        (1.0, nan, 1.0),
        (1.0, inf, 1.0),
        (-1.0, inf, 1.0),
        (-1.0, -inf, 1.0),
        (-1.0, nan, nan),
        (nan, 1.0, nan),
        (2.0, nan, nan),
        (-8.0, 1.0 / 3.0, nan),
        (-2.0, 3.0, -8.0),
        (-2.0, 2.0, 4.0),
        (-2.0, -3.0, -0.125),
        (2.0, 10.0, 1024.0),
        (10.0, 3.0, 1000.0),
        (3.0, -2.0, 1.0 / 9.0),
        (0.0, -1.0, inf),
        (-0.0, -1.0, -inf),
        (-0.0, -2.0, inf),
        (0.0, -0.5, inf),
        (-0.0, 3.0, -0.0),
        (-0.0, 2.0, 0.0),
        (0.0, 0.5, 0.0),
        (0.0, -inf, inf),
        (-0.0, -inf, inf),
        (0.5, inf, 0.0),
        (0.5, -inf, inf),
        (2.0, inf, inf),
        (2.0, -inf, 0.0),
        (-2.0, inf, inf),
        (-inf, 3.0, -inf),
        (-inf, -3.0, -0.0),
        (-inf, 2.0, inf),
        (-inf, -2.0, 0.0),
        (-inf, 0.5, inf),
        (inf, -1.0, 0.0),
        (inf, 0.5, inf),
        (4.0, 0.5, 2.0),
        (10.0, 400.0, inf),
        (10.0, -400.0, 0.0),
    ];
    for (f, table) in [(BinaryFn::Atan2, atan2), (BinaryFn::Pow, pow)] {
        let k32 = BinaryKernel::<f32>::compile(&options(), f).unwrap();
        let k64 = BinaryKernel::<f64>::compile(&options(), f).unwrap();
        for &(x, y, want) in table {
            let y32 = f64::from(k32.map(&[x as f32], &[y as f32])[0]);
            let y64 = k64.map(&[x], &[y])[0];
            for (ty, got, want) in [("f32", y32, f64::from(want as f32)), ("f64", y64, want)] {
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{}({x:e}, {y:e}) [{ty}] = {got:e}, want {want:e}",
                    f.name()
                );
            }
        }
    }
}

#[test]
fn every_tail_length_matches_the_scalar_path() {
    // Lengths 0..=9 cover empty input, tails of 1..3 (f32) or 1 (f64)
    // after 0, 1 and 2 vectors.
    let x: Vec<f64> = (0..9).map(|i| 0.37 * f64::from(i) - 1.1).collect();
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    for f in UnaryFn::ALL {
        let k32 = UnaryKernel::<f32>::compile(&options(), f).unwrap();
        let k64 = UnaryKernel::<f64>::compile(&options(), f).unwrap();
        for n in 0..=x.len() {
            let y32 = k32.map(&x32[..n]);
            let y64 = k64.map(&x[..n]);
            assert_eq!(y32.len(), n);
            for i in 0..n {
                let s32 = k32.map(&x32[i..=i])[0];
                let s64 = k64.map(&x[i..=i])[0];
                assert!(y32[i].to_bits() == s32.to_bits() || (y32[i].is_nan() && s32.is_nan()));
                assert!(y64[i].to_bits() == s64.to_bits() || (y64[i].is_nan() && s64.is_nan()));
            }
        }
    }
}
