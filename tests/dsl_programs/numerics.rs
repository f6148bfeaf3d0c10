//! Integer, bool, mixed-precision and complex programs, conversions
//! between every width, and scalar constants of every type. Expected
//! values are exact (hand-computed from the spec's rules) except the
//! mixed-precision ones, which come from JAX.

use super::{backends, check, fx, lit, vals};
use xla::half::{bf16, f16};
use xla::prelude::*;
use xla::C64;

xla! {
    /// A xorshift step, bit counts, masks and shifts, including shift
    /// amounts of the bit width and more.
    pub fn bits(x: u32[N], y: s32[N], s: u32[N]) -> (u32[N], s32[N], s32[N], u32[N], s32[N], s32[N], u32[N], pred[N]) {
        let mut h = x ^ (x << 13);
        h = h ^ (h >> 17);
        h = h ^ (h << 5);
        let masked = (x & 0xFF) | 0x100;
        (h, y >> 1, y.shift_right_logical(1), masked, y.population_count(), y.clz(), x << s, x % 7 == 0)
    }

    /// Integer division and remainder truncate toward zero; by zero they
    /// follow the project's rule.
    pub fn int_div(a: s32[N], b: s32[N]) -> (s32[N], s32[N], s32[N], s32[N]) {
        (a / b, a % b, a.max(b), a.min(b).abs())
    }

    /// Every integer width from s32, wrapping; to floats, rounding; to pred.
    pub fn widths(x: s32[N]) -> (s8[N], u8[N], s16[N], u16[N], s64[N], u64[N], f16[N], bf16[N], f64[N], pred[N]) {
        (x.convert(s8), x.convert(u8), x.convert(s16), x.convert(u16), x.convert(s64),
         x.convert(u64), x.convert(f16), x.convert(bf16), x.convert(f64), x.convert(pred))
    }

    /// Floats to integers truncate and saturate; NaN gives 0.
    pub fn float_to_int(x: f32[N]) -> (s32[N], u8[N], s64[N], u16[N]) {
        (x.convert(s32), x.convert(u8), x.convert(s64), x.convert(f64).convert(u16))
    }

    /// Wide integers through narrow and unsigned ones.
    pub fn wide(x: u64[N], y: s64[N]) -> (u32[N], s8[N], f64[N], u64[N], s64[N]) {
        (x.convert(u32), y.convert(s8), x.convert(f64), y.convert(u64), (x >> 60).convert(s64) + y)
    }

    /// Logic on pred arrays, and counting.
    pub fn logic(a: pred[N], b: pred[N]) -> (pred[N], pred[N], pred[N], pred[N], pred, pred, s32) {
        (a && b, a || !b, a ^ b, a == b, a.reduce_and([0]), (a & b).reduce_or([0]),
         a.convert(s32).reduce_sum([0]))
    }

    /// A scalar constant of every type.
    pub fn constants() -> (s8, s16, s32, s64, u8, u16, u32, u64, f16, bf16, f32, f64, pred) {
        (-128s8, 32767s16, -7, s64::MIN, u8::MAX, 65535u16, 4000000000u32, u64::MAX,
         1.5f16, -2.5bf16, f32::EPSILON, 0.1f64, true)
    }

    /// Extremes of the 16-bit floats.
    pub fn half_limits() -> (f16, f16, bf16, bf16) {
        (f16::MAX, f16::EPSILON, bf16::MIN, bf16::EPSILON)
    }

    /// Mathematical constants, as Rust spells them, in every float type.
    pub fn math_constants(x: f32[N]) -> (f32[N], f64, f16, bf16, f32) {
        (x * std::f32::consts::PI, f64::consts::E, core::f16::consts::LN_2, bf16::consts::TAU,
         std::f32::consts::FRAC_1_SQRT_2)
    }

    /// A bf16 matmul accumulated in f32, one rounded to bf16, and a
    /// layernorm of f16 data computed in f32.
    pub fn mixed_precision(x: f32[B, K], w: f32[K, N], gamma: f32[K]) -> (f32[B, N], f32[B, N], f16[B, K]) {
        let xh = x.convert(bf16);
        let wh = w.convert(bf16);
        let y32 = xh.dot_general(wh, ([1], [0]), f32);
        let y16 = xh.dot(wh).convert(f32);
        let h = x.convert(f16).convert(f32);
        let mean = h.reduce_sum([1]) / K;
        let xc = h.sub(mean, [0]);
        let var = (xc * xc).reduce_sum([1]) / K;
        let ln = xc.mul((var + 1e-5).rsqrt(), [0]).mul(gamma, [1]);
        (y32, y16, ln.convert(f16))
    }

    /// f16 arithmetic rounds after each operation.
    pub fn half_math(x: f16[N], y: bf16[N]) -> (f16[N], bf16[N], f16[N]) {
        (x * x + 1.0, y * 3.0 - 1.0, (x.convert(f32) * 1000.0).convert(f16))
    }

    /// Python-style scalars: a float with a size, and a float op of a size,
    /// are computed in the type they meet; scalar `select` branches are
    /// broadcast (`jnp.where(p, 1.0, 0.0)`).
    pub fn weak_scalars(x: f16[N], y: f32[N], p: pred[N]) -> (f16[N], f32[N], f32[N], f32[N], s32[N], f16[N]) {
        let scale = 1.0 / N;
        let lowest = y.reduce_min([0]);
        (x * scale, y * N.sqrt(), select(p, 1.0, 0.0), select(p, y, lowest), p.select(1, -1),
         x / (2.0 * N - 0.5).sqrt())
    }

    /// Rounding, signs and the transcendental functions on special values.
    pub fn unary_math(x: f32[N], y: f32[N]) -> (f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N]) {
        (x.round(), x.round_nearest_even(), x.floor(), x.ceil(), x.sign(), x.cbrt(), x.erf(), x.tan(),
         x.atan2(y), x.expm1(), x.abs().log1p(), x.pow(y), x % y, x.abs().rsqrt(), x.sin(), x.cos())
    }

    /// Complex arithmetic.
    pub fn complex_math(re: f32[N], im: f32[N]) -> (c64[N], f32[N], f32[N], c64[N], f32[N]) {
        let z = re.complex(im);
        let sq = z * z;
        ((z * z.conj()), z.abs(), sq.imag(), z * 2.0 + 1.0, (z / z.conj()).real())
    }
}

#[test]
fn bit_manipulation() {
    let x = [1u32, 0xDEAD_BEEF, 0, 7];
    let y = [-7i32, 8, -1, 0];
    let s = [0u32, 31, 32, 40];
    for (name, be) in backends() {
        let (h, sra, srl, masked, pop, clz, shl, div7) =
            bits::call(be, &lit(&[4], &x), &lit(&[4], &y), &lit(&[4], &s)).unwrap();
        let xorshift = |mut v: u32| {
            v ^= v << 13;
            v ^= v >> 17;
            v ^ (v << 5)
        };
        assert_eq!(vals::<u32>(&h), x.map(xorshift), "{name}");
        assert_eq!(vals::<i32>(&sra), [-4, 4, -1, 0], "{name}");
        assert_eq!(
            vals::<i32>(&srl),
            [0x7FFF_FFFC, 4, 0x7FFF_FFFF, 0],
            "{name}"
        );
        assert_eq!(vals::<u32>(&masked), [0x101, 0x1EF, 0x100, 0x107], "{name}");
        assert_eq!(vals::<i32>(&pop), [30, 1, 32, 0], "{name}");
        assert_eq!(vals::<i32>(&clz), [0, 28, 0, 32], "{name}");
        // Shifting by the bit width or more gives 0.
        assert_eq!(vals::<u32>(&shl), [1, 0x8000_0000, 0, 0], "{name}");
        assert_eq!(vals::<bool>(&div7), [false, false, true, true], "{name}");
    }
}

#[test]
fn integer_division() {
    let a = [-7i32, 7, i32::MIN, 5, -5];
    let b = [2i32, -2, -1, 0, 3];
    for (name, be) in backends() {
        let (q, r, mx, mn) = int_div::call(be, &lit(&[5], &a), &lit(&[5], &b)).unwrap();
        assert_eq!(vals::<i32>(&q), [-3, -3, i32::MIN, -1, -1], "{name}");
        assert_eq!(vals::<i32>(&r), [-1, 1, 0, 5, -2], "{name}");
        assert_eq!(vals::<i32>(&mx), [2, 7, -1, 5, 3], "{name}");
        assert_eq!(vals::<i32>(&mn), [7, 2, i32::MIN, 0, 5], "{name}");
    }
}

#[test]
fn conversions_between_widths() {
    let x = [300i32, -129, 200, -1, 65537, 0];
    for (name, be) in backends() {
        let (s8, u8, s16, u16, s64, u64, h, b, d, p) = widths::call(be, &lit(&[6], &x)).unwrap();
        assert_eq!(vals::<i8>(&s8), [44, 127, -56, -1, 1, 0], "{name}");
        assert_eq!(vals::<u8>(&u8), [44, 127, 200, 255, 1, 0], "{name}");
        assert_eq!(vals::<i16>(&s16), [300, -129, 200, -1, 1, 0], "{name}");
        assert_eq!(vals::<u16>(&u16), [300, 65407, 200, 65535, 1, 0], "{name}");
        assert_eq!(vals::<i64>(&s64), [300, -129, 200, -1, 65537, 0], "{name}");
        let wrapped = [300, u64::MAX - 128, 200, u64::MAX, 65537, 0];
        assert_eq!(vals::<u64>(&u64), wrapped, "{name}");
        let halfs = [300.0, -129.0, 200.0, -1.0, f32::INFINITY, 0.0].map(f16::from_f32);
        assert_eq!(vals::<f16>(&h), halfs, "{name}");
        let brains = [300.0, -129.0, 200.0, -1.0, 65536.0, 0.0].map(bf16::from_f32);
        assert_eq!(vals::<bf16>(&b), brains, "{name}");
        assert_eq!(vals::<f64>(&d), x.map(f64::from), "{name}");
        assert_eq!(
            vals::<bool>(&p),
            [true, true, true, true, true, false],
            "{name}"
        );

        let f = [2.7f32, -2.7, 1e10, -1e10, f32::NAN, 300.0];
        let (i, u, l, w) = float_to_int::call(be, &lit(&[6], &f)).unwrap();
        assert_eq!(
            vals::<i32>(&i),
            [2, -2, i32::MAX, i32::MIN, 0, 300],
            "{name}"
        );
        assert_eq!(vals::<u8>(&u), [2, 0, 255, 0, 0, 255], "{name}");
        let longs = [2, -2, 10_000_000_000, -10_000_000_000, 0, 300];
        assert_eq!(vals::<i64>(&l), longs, "{name}");
        assert_eq!(vals::<u16>(&w), [2, 0, 65535, 0, 0, 300], "{name}");

        let big = [u64::MAX, 1 << 40, 3];
        let y = [-1i64, 300, i64::MIN];
        let (n, s, f, u, sum) = wide::call(be, &lit(&[3], &big), &lit(&[3], &y)).unwrap();
        assert_eq!(vals::<u32>(&n), [u32::MAX, 0, 3], "{name}");
        assert_eq!(vals::<i8>(&s), [-1, 44, 0], "{name}");
        assert_eq!(
            vals::<f64>(&f),
            [18446744073709551616.0, 1099511627776.0, 3.0],
            "{name}"
        );
        assert_eq!(vals::<u64>(&u), [u64::MAX, 300, 1 << 63], "{name}");
        assert_eq!(vals::<i64>(&sum), [14, 300, i64::MIN], "{name}");
    }
}

#[test]
fn pred_logic() {
    let a = [true, true, false, false];
    let b = [true, false, true, false];
    for (name, be) in backends() {
        let (and, or_not, xor, eq, all, any, count) =
            logic::call(be, &lit(&[4], &a), &lit(&[4], &b)).unwrap();
        assert_eq!(vals::<bool>(&and), [true, false, false, false], "{name}");
        assert_eq!(vals::<bool>(&or_not), [true, true, false, true], "{name}");
        assert_eq!(vals::<bool>(&xor), [false, true, true, false], "{name}");
        assert_eq!(vals::<bool>(&eq), [true, false, false, true], "{name}");
        assert_eq!(vals::<bool>(&all), [false], "{name}");
        assert_eq!(vals::<bool>(&any), [true], "{name}");
        assert_eq!(vals::<i32>(&count), [2], "{name}");
    }
}

#[test]
fn scalar_constants() {
    for (name, be) in backends() {
        let (a, b, c, d, e, f, g, h, i, j, k, l, m) = constants::call(be).unwrap();
        assert_eq!(vals::<i8>(&a), [-128], "{name}");
        assert_eq!(vals::<i16>(&b), [32767], "{name}");
        assert_eq!(vals::<i32>(&c), [-7], "{name}");
        assert_eq!(vals::<i64>(&d), [i64::MIN], "{name}");
        assert_eq!(vals::<u8>(&e), [255], "{name}");
        assert_eq!(vals::<u16>(&f), [65535], "{name}");
        assert_eq!(vals::<u32>(&g), [4_000_000_000], "{name}");
        assert_eq!(vals::<u64>(&h), [u64::MAX], "{name}");
        assert_eq!(vals::<f16>(&i), [f16::from_f32(1.5)], "{name}");
        assert_eq!(vals::<bf16>(&j), [bf16::from_f32(-2.5)], "{name}");
        assert_eq!(vals::<f32>(&k), [f32::EPSILON], "{name}");
        assert_eq!(vals::<f64>(&l), [0.1], "{name}");
        assert_eq!(vals::<bool>(&m), [true], "{name}");
        let (hmax, heps, bmin, beps) = half_limits::call(be).unwrap();
        assert_eq!(vals::<f16>(&hmax), [f16::MAX], "{name}");
        assert_eq!(vals::<f16>(&heps), [f16::EPSILON], "{name}");
        assert_eq!(vals::<bf16>(&bmin), [bf16::MIN], "{name}");
        assert_eq!(vals::<bf16>(&beps), [bf16::EPSILON], "{name}");
        let (pi, e, ln2, tau, r2) = math_constants::call(be, &lit(&[2], &[1.0f32, 2.0])).unwrap();
        use std::f32::consts as c32;
        assert_eq!(vals::<f32>(&pi), [c32::PI, 2.0 * c32::PI], "{name}");
        assert_eq!(vals::<f64>(&e), [std::f64::consts::E], "{name}");
        assert_eq!(vals::<f16>(&ln2), [f16::LN_2], "{name}");
        assert_eq!(
            vals::<bf16>(&tau),
            [bf16::from_f64(std::f64::consts::TAU)],
            "{name}"
        );
        assert_eq!(vals::<f32>(&r2), [c32::FRAC_1_SQRT_2], "{name}");
    }
}

#[test]
fn mixed_precision_matches_jax() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("mixed_precision/{n}"));
        let (y32, y16, ln) = mixed_precision::call(be, p("x"), p("w"), p("gamma")).unwrap();
        check(name, "mixed_precision/out0", &y32, 1e-5, 1e-5);
        // One bf16 rounding of the f32-accumulated sum: half an ulp of bf16.
        check(name, "mixed_precision/out1", &y16, 1.0 / 256.0, 0.0);
        check(name, "mixed_precision/out2", &ln, 1.0 / 1024.0, 0.0);
    }
}

#[test]
fn half_precision_arithmetic() {
    let x = [1.0f32, 0.1, 300.0, -2.0].map(f16::from_f32);
    let y = [1.0f32, 0.1, 300.0, -2.0].map(bf16::from_f32);
    for (name, be) in backends() {
        let (a, b, c) = half_math::call(be, &lit(&[4], &x), &lit(&[4], &y)).unwrap();
        let want_a =
            x.map(|v| f16::from_f32(f16::from_f32(v.to_f32() * v.to_f32()).to_f32() + 1.0));
        assert_eq!(vals::<f16>(&a), want_a, "{name}");
        let want_b = y.map(|v| bf16::from_f32(bf16::from_f32(v.to_f32() * 3.0).to_f32() - 1.0));
        assert_eq!(vals::<bf16>(&b), want_b, "{name}");
        let want_c = x.map(|v| f16::from_f32(v.to_f32() * 1000.0));
        assert_eq!(vals::<f16>(&c), want_c, "{name}");
    }
}

#[test]
fn unary_functions_match_jax() {
    let names = [
        "round",
        "round_nearest_even",
        "floor",
        "ceil",
        "sign",
        "cbrt",
        "erf",
        "tan",
        "atan2",
        "expm1",
        "log1p",
        "pow",
        "rem",
        "rsqrt",
        "sin",
        "cos",
    ];
    for (name, be) in backends() {
        let (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) =
            unary_math::call(be, fx("unary_math/x"), fx("unary_math/y")).unwrap();
        let outs = [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p];
        for (i, (got, op)) in outs.iter().zip(names).enumerate() {
            // Exact for rounding, signs and rem; a few ulps for the rest.
            let rtol = if i < 5 || op == "rem" { 0.0 } else { 4e-7 };
            check(
                &format!("{name} ({op})"),
                &format!("unary_math/out{i}"),
                got,
                rtol,
                1e-30,
            );
        }
    }
}

#[test]
fn python_scalars() {
    let x = [1.0f32, 2.0, 3.0, 4.0].map(f16::from_f32);
    let y = [1.0f32, -2.0, 0.5, 3.0];
    let p = [true, false, false, true];
    for (name, be) in backends() {
        let (scaled, root, ones, floor, signs, normed) =
            weak_scalars::call(be, &lit(&[4], &x), &lit(&[4], &y), &lit(&[4], &p)).unwrap();
        let quarter = [0.25f32, 0.5, 0.75, 1.0].map(f16::from_f32);
        assert_eq!(vals::<f16>(&scaled), quarter, "{name}");
        assert_eq!(vals::<f32>(&root), [2.0, -4.0, 1.0, 6.0], "{name}");
        assert_eq!(vals::<f32>(&ones), [1.0, 0.0, 0.0, 1.0], "{name}");
        assert_eq!(vals::<f32>(&floor), [1.0, -2.0, -2.0, 3.0], "{name}");
        assert_eq!(vals::<i32>(&signs), [1, -1, -1, 1], "{name}");
        // sqrt(7.5) in f16 (2.738), then each quotient rounded to f16.
        let root = f16::from_f32(7.5f32.sqrt());
        let want = x.map(|v| f16::from_f32(v.to_f32() / root.to_f32()));
        assert_eq!(vals::<f16>(&normed), want, "{name}");
    }
}

#[test]
fn complex_numbers() {
    let re = [1.0f32, 0.0, -3.0, 0.5];
    let im = [2.0f32, -1.0, 4.0, 0.0];
    for (name, be) in backends() {
        let (norm2, abs, sq_im, affine, ratio) =
            complex_math::call(be, &lit(&[4], &re), &lit(&[4], &im)).unwrap();
        let z: Vec<C64> = re.iter().zip(&im).map(|(&r, &i)| C64::new(r, i)).collect();
        let want: Vec<C64> = z.iter().map(|z| z * z.conj()).collect();
        assert_eq!(vals::<C64>(&norm2), want, "{name}");
        assert_eq!(vals::<f32>(&abs), [5f32.sqrt(), 1.0, 5.0, 0.5], "{name}");
        assert_eq!(vals::<f32>(&sq_im), [4.0, 0.0, -24.0, 0.0], "{name}");
        let want: Vec<C64> = z.iter().map(|z| z * 2.0 + 1.0).collect();
        assert_eq!(vals::<C64>(&affine), want, "{name}");
        let r = vals::<f32>(&ratio);
        for (got, z) in r.iter().zip(&z) {
            let want = (z / z.conj()).re;
            assert!((got - want).abs() <= 1e-6, "{name}: {r:?}");
        }
    }
}
