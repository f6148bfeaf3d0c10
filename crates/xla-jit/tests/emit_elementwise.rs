#![allow(clippy::needless_range_loop)] // element-by-element comparisons

//! Elementwise kernels against hand-written references of `docs/semantics.md`,
//! *Element-wise operations* (with the project's flush-to-zero rule), on edge values: ±0, ±∞,
//! NaN, subnormals, extremes of each integer type, and lengths that are
//! not a multiple of the vector width.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, NativeType, PrimitiveType};

/// The project rule: f32 subnormals read and write as zeros of the same
/// sign.
fn ftz(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        0.0f32.copysign(x)
    } else {
        x
    }
}

fn ftz64(x: f64) -> f64 {
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// All pairs of `values`, as two vectors.
fn pairs<T: Copy>(values: &[T]) -> (Vec<T>, Vec<T>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in values {
        for &y in values {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

fn binary_module(op: &str, ty: &str, out: &str, n: usize, attrs: &str) -> String {
    format!(
        "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  y = {ty}[{n}]{{0}} parameter(1)\n  \
         ROOT r = {out}[{n}]{{0}} {op}(x, y){attrs}\n}}"
    )
}

fn unary_module(op: &str, ty: &str, out: &str, n: usize) -> String {
    format!(
        "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  ROOT r = {out}[{n}]{{0}} {op}(x)\n}}"
    )
}

fn run_binary<T: NativeType, U: NativeType>(op: &str, attrs: &str, a: &[T], b: &[T]) -> Vec<U> {
    let text = binary_module(op, T::TYPE.name(), U::TYPE.name(), a.len(), attrs);
    let c = compile(&text);
    run(&c, &[&Literal::vector(a), &Literal::vector(b)])
        .to_vec::<U>()
        .unwrap()
}

fn run_unary<T: NativeType, U: NativeType>(op: &str, a: &[T]) -> Vec<U> {
    let c = compile(&unary_module(op, T::TYPE.name(), U::TYPE.name(), a.len()));
    run(&c, &[&Literal::vector(a)]).to_vec::<U>().unwrap()
}

fn max_rule(x: f32, y: f32) -> f32 {
    let (x, y) = (ftz(x), ftz(y));
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else if x == y {
        if x.is_sign_negative() {
            y
        } else {
            x
        }
    } else {
        x.max(y)
    }
}

fn min_rule(x: f32, y: f32) -> f32 {
    let (x, y) = (ftz(x), ftz(y));
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else if x == y {
        if x.is_sign_negative() {
            x
        } else {
            y
        }
    } else {
        x.min(y)
    }
}

#[test]
fn f32_arithmetic_on_edge_values() {
    let (a, b) = pairs(&f32_edges());
    type Rule = fn(f32, f32) -> f32;
    let cases: [(&str, Rule); 7] = [
        ("add", |x, y| ftz(ftz(x) + ftz(y))),
        ("subtract", |x, y| ftz(ftz(x) - ftz(y))),
        ("multiply", |x, y| ftz(ftz(x) * ftz(y))),
        ("divide", |x, y| ftz(ftz(x) / ftz(y))),
        ("maximum", max_rule),
        ("minimum", min_rule),
        ("remainder", |x, y| ftz(ftz(x) % ftz(y))),
    ];
    for (op, rule) in cases {
        let got: Vec<f32> = run_binary(op, "", &a, &b);
        for i in 0..a.len() {
            let want = rule(a[i], b[i]);
            assert!(
                same_f32(got[i], want),
                "{op}({:e}, {:e}) = {:e}, want {want:e}",
                a[i],
                b[i],
                got[i]
            );
        }
    }
}

#[test]
fn f64_arithmetic_on_edge_values() {
    let edges: Vec<f64> = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        1e-310,
        -1e-310,
        1e300,
        f64::INFINITY,
        f64::NAN,
        0.1,
    ]
    .to_vec();
    let (a, b) = pairs(&edges);
    type Rule = fn(f64, f64) -> f64;
    let cases: [(&str, Rule); 4] = [
        ("add", |x, y| ftz64(ftz64(x) + ftz64(y))),
        ("multiply", |x, y| ftz64(ftz64(x) * ftz64(y))),
        ("divide", |x, y| ftz64(ftz64(x) / ftz64(y))),
        ("remainder", |x, y| ftz64(ftz64(x) % ftz64(y))),
    ];
    for (op, rule) in cases {
        let got: Vec<f64> = run_binary(op, "", &a, &b);
        for i in 0..a.len() {
            let want = rule(a[i], b[i]);
            assert!(
                same_f64(got[i], want),
                "{op}({:e}, {:e}) = {:e}, want {want:e}",
                a[i],
                b[i],
                got[i]
            );
        }
    }
    let got: Vec<f64> = run_binary("maximum", "", &[1e-310, -0.0, f64::NAN], &[0.0, 0.0, 1.0]);
    assert_eq!(got[0].to_bits(), 0.0f64.to_bits());
    assert_eq!(got[1].to_bits(), 0.0f64.to_bits());
    assert!(got[2].is_nan());
}

#[test]
fn f32_comparisons() {
    let (a, b) = pairs(&f32_edges());
    let total_key = |x: f32| {
        let b = x.to_bits() as i32;
        if b < 0 {
            b ^ 0x7FFF_FFFF
        } else {
            b
        }
    };
    for (dir, rule) in [
        ("EQ", (|x: f32, y: f32| x == y) as fn(f32, f32) -> bool),
        ("NE", |x, y| x != y),
        ("LT", |x, y| x < y),
        ("LE", |x, y| x <= y),
        ("GT", |x, y| x > y),
        ("GE", |x, y| x >= y),
    ] {
        let got: Vec<bool> = run_binary("compare", &format!(", direction={dir}"), &a, &b);
        for i in 0..a.len() {
            assert_eq!(
                got[i],
                rule(ftz(a[i]), ftz(b[i])),
                "{dir} {:e} {:e}",
                a[i],
                b[i]
            );
        }
        let got: Vec<bool> = run_binary(
            "compare",
            &format!(", direction={dir}, type=TOTALORDER"),
            &a,
            &b,
        );
        for i in 0..a.len() {
            let (x, y) = (total_key(a[i]), total_key(b[i]));
            let want = match dir {
                "EQ" => x == y,
                "NE" => x != y,
                "LT" => x < y,
                "LE" => x <= y,
                "GT" => x > y,
                _ => x >= y,
            };
            assert_eq!(got[i], want, "total {dir} {:e} {:e}", a[i], b[i]);
        }
    }
}

#[test]
fn f32_unary_functions() {
    let x = f32_edges();
    type Rule = fn(f32) -> f32;
    let afz = |v: f32| {
        let v = ftz(v);
        let t = v.trunc();
        if (v - t).abs() >= 0.5 {
            t + 1f32.copysign(v)
        } else {
            t
        }
    };
    let cases: [(&str, Rule); 10] = [
        ("abs", |v| v.abs()),
        ("negate", |v| -v),
        ("floor", |v| ftz(v).floor()),
        ("ceil", |v| ftz(v).ceil()),
        ("round-nearest-even", |v| ftz(v).round_ties_even()),
        ("round-nearest-afz", afz),
        ("sign", |v| {
            let v = ftz(v);
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else {
                v
            }
        }),
        ("sqrt", |v| ftz(ftz(v).sqrt())),
        ("rsqrt", |v| ftz(1.0 / ftz(v).sqrt())),
        ("real", |v| v),
    ];
    for (op, rule) in cases {
        let got: Vec<f32> = run_unary(op, &x);
        for i in 0..x.len() {
            let want = rule(x[i]);
            assert!(
                same_f32(got[i], want),
                "{op}({:e}) = {:e}, want {want:e}",
                x[i],
                got[i]
            );
        }
    }
    let finite: Vec<bool> = run_unary("is-finite", &x);
    for i in 0..x.len() {
        assert_eq!(finite[i], x[i].is_finite(), "{:e}", x[i]);
    }
    // The worked examples of `docs/semantics.md`, *Unary functions*.
    let r: Vec<f32> = run_unary("round-nearest-afz", &[0.5f32, 1.5, 2.5, -0.5, -2.5, 2.4]);
    assert_eq!(r, [1.0, 2.0, 3.0, -1.0, -3.0, 2.0]);
    let r: Vec<f32> = run_unary("round-nearest-even", &[0.5f32, 1.5, 2.5, -0.5, -2.5]);
    assert_eq!(
        r.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        [0.0f32, 2.0, 2.0, -0.0, -2.0].map(f32::to_bits)
    );
    let r: Vec<f32> = run_unary("floor", &[-1e-40f32]);
    assert_eq!(r[0].to_bits(), (-0.0f32).to_bits());
}

fn int_values<T: Copy + TryFrom<i128>>(v: &[i128]) -> Vec<T> {
    v.iter().filter_map(|&x| T::try_from(x).ok()).collect()
}

macro_rules! int_ops {
    ($name:ident, $t:ty, $signed:expr) => {
        #[test]
        fn $name() {
            let raw: Vec<i128> = vec![
                0,
                1,
                -1,
                2,
                -2,
                3,
                7,
                -7,
                100,
                -128,
                127,
                255,
                300,
                -32768,
                32767,
                65535,
                i32::MIN as i128,
                i32::MAX as i128,
                u32::MAX as i128,
                i64::MIN as i128,
                i64::MAX as i128,
                u64::MAX as i128,
                31,
                32,
                63,
                64,
                8,
                16,
            ];
            let v: Vec<$t> = int_values(&raw);
            let (a, b) = pairs(&v);
            let bits = <$t>::BITS;
            type Rule = fn($t, $t) -> $t;
            let cases: Vec<(&str, Rule)> = vec![
                ("add", |x, y| x.wrapping_add(y)),
                ("subtract", |x, y| x.wrapping_sub(y)),
                ("multiply", |x, y| x.wrapping_mul(y)),
                ("divide", |x, y| if y == 0 { !0 } else { x.wrapping_div(y) }),
                (
                    "remainder",
                    |x, y| if y == 0 { x } else { x.wrapping_rem(y) },
                ),
                ("maximum", |x, y| x.max(y)),
                ("minimum", |x, y| x.min(y)),
                ("and", |x, y| x & y),
                ("or", |x, y| x | y),
                ("xor", |x, y| x ^ y),
                ("shift-left", |x, y| {
                    let s = y as u64;
                    if s >= <$t>::BITS as u64 {
                        0
                    } else {
                        x << s
                    }
                }),
                ("shift-right-logical", |x, y| {
                    let s = y as u64;
                    let u = x as u64 & (u64::MAX >> (64 - <$t>::BITS));
                    if s >= <$t>::BITS as u64 {
                        0
                    } else {
                        (u >> s) as $t
                    }
                }),
                ("shift-right-arithmetic", |x, y| {
                    let s = y as u64;
                    let w = <$t>::BITS;
                    let sx = ((x as i64) << (64 - w)) >> (64 - w);
                    let r = if s >= w as u64 {
                        sx >> (w - 1)
                    } else {
                        sx >> s
                    };
                    r as $t
                }),
            ];
            for (op, rule) in cases {
                let got: Vec<$t> = run_binary(op, "", &a, &b);
                for i in 0..a.len() {
                    assert_eq!(
                        got[i],
                        rule(a[i], b[i]),
                        "{op}({}, {}) bits {bits}",
                        a[i],
                        b[i]
                    );
                }
            }
            let lt: Vec<bool> = run_binary("compare", ", direction=LT", &a, &b);
            for i in 0..a.len() {
                assert_eq!(lt[i], a[i] < b[i]);
            }
            let neg: Vec<$t> = run_unary("negate", &v);
            let not: Vec<$t> = run_unary("not", &v);
            let pop: Vec<$t> = run_unary("popcnt", &v);
            let clz: Vec<$t> = run_unary("count-leading-zeros", &v);
            for i in 0..v.len() {
                assert_eq!(neg[i], v[i].wrapping_neg());
                assert_eq!(not[i], !v[i]);
                assert_eq!(pop[i], v[i].count_ones() as $t);
                assert_eq!(clz[i], v[i].leading_zeros() as $t);
            }
            if $signed {
                let abs: Vec<$t> = run_unary("abs", &v);
                let sign: Vec<$t> = run_unary("sign", &v);
                for i in 0..v.len() {
                    assert_eq!(abs[i], v[i].wrapping_abs_like());
                    assert_eq!(sign[i], v[i].signum_like());
                }
            }
        }
    };
}

/// Signed helpers usable from the macro for every integer type.
trait IntLike: Sized {
    fn wrapping_abs_like(self) -> Self;
    fn signum_like(self) -> Self;
}

macro_rules! int_like {
    (signed $($t:ty),*) => {$(
        impl IntLike for $t {
            fn wrapping_abs_like(self) -> Self { self.wrapping_abs() }
            fn signum_like(self) -> Self { self.signum() }
        }
    )*};
    (unsigned $($t:ty),*) => {$(
        impl IntLike for $t {
            fn wrapping_abs_like(self) -> Self { self }
            fn signum_like(self) -> Self { self.min(1) }
        }
    )*};
}
int_like!(signed i8, i16, i32, i64);
int_like!(unsigned u8, u16, u32, u64);

int_ops!(s8_ops, i8, true);
int_ops!(s16_ops, i16, true);
int_ops!(s32_ops, i32, true);
int_ops!(s64_ops, i64, true);
int_ops!(u8_ops, u8, false);
int_ops!(u16_ops, u16, false);
int_ops!(u32_ops, u32, false);
int_ops!(u64_ops, u64, false);

#[test]
fn integer_division_worked_examples() {
    let got: Vec<i32> = run_binary("divide", "", &[7, -7, 7, 5, i32::MIN], &[2, 2, -2, 0, -1]);
    assert_eq!(got, [3, -3, -3, -1, i32::MIN]);
    let got: Vec<i32> = run_binary(
        "remainder",
        "",
        &[7, -7, 7, -7, 5, i32::MIN],
        &[3, 3, -3, -3, 0, -1],
    );
    assert_eq!(got, [1, -1, 1, -1, 5, 0]);
    let got: Vec<u8> = run_binary("divide", "", &[9], &[0]);
    assert_eq!(got, [255]);
    let got: Vec<u32> = run_binary("shift-right-arithmetic", "", &[0x8000_0000u32], &[31u32]);
    assert_eq!(got, [0xFFFF_FFFF]);
}

#[test]
fn pred_logic_and_select_clamp() {
    let a = [false, false, true, true, true];
    let b = [false, true, false, true, true];
    let and: Vec<bool> = run_binary("and", "", &a, &b);
    let or: Vec<bool> = run_binary("or", "", &a, &b);
    let xor: Vec<bool> = run_binary("xor", "", &a, &b);
    let not: Vec<bool> = run_unary("not", &a);
    for i in 0..a.len() {
        assert_eq!(and[i], a[i] & b[i]);
        assert_eq!(or[i], a[i] | b[i]);
        assert_eq!(xor[i], a[i] ^ b[i]);
        assert_eq!(not[i], !a[i]);
    }
    let c = compile(
        "HloModule m
ENTRY e {
  p = pred[6]{0} parameter(0)
  x = f32[6]{0} parameter(1)
  y = f32[6]{0} parameter(2)
  s = f32[6]{0} select(p, x, y)
  lo = f32[] constant(0)
  hi = f32[] constant(6)
  ROOT c = f32[6]{0} clamp(lo, s, hi)
}",
    );
    let out = run(
        &c,
        &[
            &Literal::vector(&[true, false, false, true, true, false]),
            &Literal::vector(&[1.0f32, 2.0, 3.0, -4.0, 9.0, 0.0]),
            &Literal::vector(&[100.0f32, 200.0, f32::NAN, 400.0, 500.0, -0.0]),
        ],
    );
    let got = out.to_vec::<f32>().unwrap();
    let want = [1.0, 6.0, f32::NAN, 0.0, 6.0, 0.0];
    for i in 0..6 {
        assert!(same_f32(got[i], want[i]), "{i}: {} vs {}", got[i], want[i]);
    }
    // Clamp(5, [0,3,9], 2) = [2,2,2] (min > max gives max).
    let c = compile(
        "HloModule m
ENTRY e {
  x = s32[3]{0} parameter(0)
  lo = s32[] constant(5)
  hi = s32[] constant(2)
  ROOT c = s32[3]{0} clamp(lo, x, hi)
}",
    );
    let out = run(&c, &[&Literal::vector(&[0i32, 3, 9])]);
    assert_eq!(out.to_vec::<i32>().unwrap(), [2, 2, 2]);
}

/// Max, min and clamp against a constant bound take a one-instruction form
/// when the bound is normal (not NaN, zero or subnormal) and keep the
/// general one otherwise; both must follow the rules on every edge value,
/// with the constant on either side.
#[test]
fn f32_max_min_clamp_with_constant_bounds() {
    let x = f32_edges();
    let n = x.len();
    let bounds = [
        -1.0f32,
        2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        0.0,
        -0.0,
        1e-40,
        f32::NAN,
    ];
    let text = |body: &str, c: &str, d: &str| {
        format!(
            "HloModule m\nENTRY e {{\n  x = f32[{n}]{{0}} parameter(0)\n  \
             c = f32[] constant({c})\n  cb = f32[{n}]{{0}} broadcast(c), dimensions={{}}\n  \
             d = f32[] constant({d})\n  db = f32[{n}]{{0}} broadcast(d), dimensions={{}}\n  \
             {body}\n}}"
        )
    };
    let hlo = |v: f32| {
        if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            (if v > 0.0 { "inf" } else { "-inf" }).to_string()
        } else {
            format!("{v:e}")
        }
    };
    let check = |root: &str, c: f32, d: f32, rule: &dyn Fn(f32) -> f32| {
        let body = if root.starts_with("minimum(db, maximum") {
            format!("m = f32[{n}]{{0}} maximum(cb, x)\n  ROOT r = f32[{n}]{{0}} minimum(db, m)")
        } else {
            format!("ROOT r = f32[{n}]{{0}} {root}")
        };
        let compiled = compile(&text(&body, &hlo(c), &hlo(d)));
        let got = run(&compiled, &[&Literal::vector(&x)])
            .to_vec::<f32>()
            .unwrap();
        for i in 0..n {
            let want = rule(x[i]);
            assert!(
                same_f32(got[i], want),
                "{root} with c = {c:e}, d = {d:e}, x = {:e}: {:e}, want {want:e}",
                x[i],
                got[i]
            );
        }
    };
    for &c in &bounds {
        check("maximum(x, cb)", c, 0.0, &|v| max_rule(v, c));
        check("maximum(cb, x)", c, 0.0, &|v| max_rule(c, v));
        check("minimum(x, cb)", c, 0.0, &|v| min_rule(v, c));
        check("minimum(cb, x)", c, 0.0, &|v| min_rule(c, v));
        for &d in &bounds {
            check("clamp(cb, x, db)", c, d, &|v| min_rule(max_rule(v, c), d));
        }
        // A max, then a min of its (flushed) result.
        check("minimum(db, maximum(cb, x))", c, 2.0, &|v| {
            min_rule(2.0, max_rule(c, v))
        });
    }
}

/// The integer element types.
const INTEGER_TYPES: [&str; 8] = ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"];

/// Checks `op(x, broadcast(constant(c)))` on `x` of integer type `ty`
/// against the interpreter.
fn check_by_constant(ty: &str, x: &Literal, c: impl std::fmt::Display, op: &str) {
    let n = x.shape().as_array().unwrap().dims()[0];
    let text = format!(
        "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  \
         c = {ty}[] constant({c})\n  cb = {ty}[{n}]{{0}} broadcast(c), dimensions={{}}\n  \
         ROOT r = {ty}[{n}]{{0}} {op}(x, cb)\n}}"
    );
    assert_eq!(check(&text, &[x]), Checked::Same, "{text}");
}

/// Shifts by a constant amount are vector shifts by an immediate; amounts
/// of the lane width or more (a negative amount reads as a large unsigned
/// one) give 0, or the sign fill for an arithmetic shift. Every integer
/// type, against the interpreter, on lengths with a scalar tail.
#[test]
fn shifts_by_constant_amounts() {
    for ty in INTEGER_TYPES {
        let t: PrimitiveType = ty.parse().unwrap();
        let (bits, signed) = (t.bit_width() as i64, t.is_signed_integral());
        let n = 37;
        let values: Vec<f64> = (0..n)
            .map(|i| ((i * 7919 + 13) % 251) as f64 - if signed { 125.0 } else { 0.0 })
            .collect();
        let x = Literal::from_vec(&[n as i64], values)
            .unwrap()
            .convert(t)
            .unwrap();
        let mut amounts = vec![0, 1, 3, bits - 1, bits, bits + 3];
        if signed {
            amounts.push(-1);
        }
        for amount in amounts {
            for op in [
                "shift-left",
                "shift-right-logical",
                "shift-right-arithmetic",
            ] {
                check_by_constant(ty, &x, amount, op);
            }
        }
    }
}

/// Division and remainder by a constant divisor are scalar divisions by an
/// immediate (which Cranelift turns into multiplies), except for 0 and −1
/// (signed), whose rules keep the general form. Every integer type, the
/// extremes of each, against the interpreter.
#[test]
fn division_by_constant_divisors() {
    for ty in INTEGER_TYPES {
        let t: PrimitiveType = ty.parse().unwrap();
        let signed = t.is_signed_integral();
        let (min, max) = t.integer_range().unwrap();
        let mut values: Vec<i128> = vec![min, min + 1, max, max - 1, 0, 1, 2, 3, 6, 7, 100];
        if signed {
            values.extend([-1, -2, -3, -6, -7, -100]);
        }
        values.extend((0..20).map(|i| (i * 7919 + 13) % 127 - if signed { 63 } else { 0 }));
        let mut divisors = vec![1, 2, 3, 7, 10, 64, max, max - 1, 0];
        if signed {
            divisors.extend([-1, -2, -3, -7, min, min + 1]);
        }
        // f64 cannot hold the 64-bit extremes.
        let x = match ty {
            "s64" => Literal::vector(&values.iter().map(|&v| v as i64).collect::<Vec<_>>()),
            "u64" => Literal::vector(&values.iter().map(|&v| v as u64).collect::<Vec<_>>()),
            _ => Literal::from_vec(
                &[values.len() as i64],
                values.iter().map(|&v| v as f64).collect(),
            )
            .unwrap()
            .convert(t)
            .unwrap(),
        };
        for d in divisors {
            for op in ["divide", "remainder"] {
                check_by_constant(ty, &x, d, op);
            }
        }
    }
}

/// f32 tanh in a loop of several vectors per step is emitted in stages
/// across the step's vectors; each vector's result must equal what the
/// whole function gives one value at a time (a one-element module), with
/// the rare cases (tiny, subnormal, NaN, ±inf, clamped) in some vectors of
/// a step and not in others.
#[test]
fn staged_tanh_matches_the_unstaged_form_bit_for_bit() {
    let mut x = f32_edges();
    x.extend([3e-4f32, -3e-4, 4e-4, 7.9, -7.9, 8.5, 0.75, -2.5]);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    while x.len() < 96 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x.push(((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 12.0);
    }
    // Rare lanes only in the first vector of each step of 4.
    let mut ordinary: Vec<f32> = (0..64).map(|i| 0.5 + i as f32 / 64.0).collect();
    ordinary[1] = 1e-5;
    ordinary[18] = f32::NAN;
    for input in [x, ordinary] {
        let n = input.len();
        let gelu_like = format!(
            "HloModule m\nENTRY e {{\n  x = f32[{n}]{{0}} parameter(0)\n  \
             c = f32[] constant(0.797884583)\n  cb = f32[{n}]{{0}} broadcast(c), dimensions={{}}\n  \
             y = f32[{n}]{{0}} multiply(x, cb)\n  t = f32[{n}]{{0}} tanh(y)\n  \
             one = f32[] constant(1)\n  ob = f32[{n}]{{0}} broadcast(one), dimensions={{}}\n  \
             s = f32[{n}]{{0}} add(t, ob)\n  ROOT r = f32[{n}]{{0}} multiply(x, s)\n}}"
        );
        let staged = run(&compile(&gelu_like), &[&Literal::vector(&input)])
            .to_vec::<f32>()
            .unwrap();
        let one = compile(&gelu_like.replace(&format!("[{n}]"), "[1]"));
        for (i, &v) in input.iter().enumerate() {
            let want = run(&one, &[&Literal::vector(&[v])])
                .to_vec::<f32>()
                .unwrap()[0];
            assert!(
                staged[i].to_bits() == want.to_bits(),
                "x = {v:e} at {i}: staged {:e}, one at a time {want:e}",
                staged[i]
            );
        }
        let tanh: Vec<f32> = run_unary("tanh", &input);
        for (i, &v) in input.iter().enumerate() {
            let want: Vec<f32> = run_unary("tanh", &[v]);
            assert_eq!(tanh[i].to_bits(), want[0].to_bits(), "tanh({v:e}) at {i}");
        }
    }
}

/// Widening to f64: bf16 subnormals (f32 subnormals) flush to zeros of
/// their sign, f16 subnormals (normal f32 values) widen exactly, and both
/// keep their normal values, in vector steps and the scalar tail.
#[test]
fn sixteen_bit_floats_widen_to_f64_by_the_flush_rule() {
    let values = vec![
        1e-40, -1e-40, 9.2e-41, -3e-39, 1.2e-38, -1.5, 6e-8, -6e-5, 0.0,
    ];
    for ty in ["bf16", "f16"] {
        let x = Literal::from_vec(&[values.len() as i64], values.clone())
            .unwrap()
            .convert(ty.parse().unwrap())
            .unwrap();
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  x = {ty}[9]{{0}} parameter(0)\n  \
             ROOT r = f64[9]{{0}} convert(x)\n}}"
        );
        assert_eq!(check(&text, &[&x]), Checked::Same, "{text}");
    }
}

/// `select(compare(x, y), x, y)` and its mirror images are the shapes
/// Cranelift lowers to `minps`/`maxps` (`minss`… in scalar tails), which
/// return a subnormal operand flushed under DAZ; a select moves bits
/// unchanged (`docs/semantics.md`, *Flush to zero*), as the interpreter does. Every direction, both
/// operand orders, f32 (both kernel kinds) and f64, vector lanes and tails.
#[test]
fn select_by_a_compare_of_its_operands_keeps_subnormals() {
    let f32s = (
        vec![-1e-40f32, 1e-40, -1e-40, 2.0, -1e-40, 1e-40, 0.0],
        vec![0.3f32, 0.3, -0.0, 1e-40, 0.3, -5.0, 1e-40],
    );
    let f64s = (
        vec![-1e-310f64, 1e-310, 2.0, -1e-310, 0.5],
        vec![0.3f64, -0.3, 1e-310, -0.0, -1e-310],
    );
    for dir in ["LT", "LE", "GT", "GE"] {
        for (t, f) in [("x", "y"), ("y", "x")] {
            for (ty, x, y) in [
                (
                    "f32",
                    Literal::from_vec(&[7], f32s.0.clone()).unwrap(),
                    Literal::from_vec(&[7], f32s.1.clone()).unwrap(),
                ),
                (
                    "f64",
                    Literal::from_vec(&[5], f64s.0.clone()).unwrap(),
                    Literal::from_vec(&[5], f64s.1.clone()).unwrap(),
                ),
            ] {
                let n = x.shape().as_array().unwrap().element_count();
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {ty}[{n}]{{0}} parameter(0)\n  \
                     y = {ty}[{n}]{{0}} parameter(1)\n  \
                     c = pred[{n}]{{0}} compare(x, y), direction={dir}\n  \
                     ROOT r = {ty}[{n}]{{0}} select(c, {t}, {f})\n}}"
                );
                for native in every_backend() {
                    let c = compile_with(&text, native);
                    let want = interpret(&c, &[&x, &y]).unwrap();
                    assert_same(&run(&c, &[&x, &y]), &want, &text);
                }
            }
        }
    }
}

/// Arithmetic on a subnormal constant reads it as zero in every lane:
/// Cranelift's mid-end would fold scalar-tail arithmetic on constants in
/// IEEE arithmetic (`rsqrt(1e-40)` as `1e20`, not `inf`).
#[test]
fn subnormal_constants_act_as_zeros_in_tails_too() {
    for (ty, c) in [("f32", "1e-40"), ("f32", "-1e-40"), ("f64", "1e-310")] {
        for op in ["rsqrt", "sqrt", "negate", "abs"] {
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {ty}[5]{{0}} parameter(0)\n  \
                 k = {ty}[] constant({c})\n  b = {ty}[5]{{0}} broadcast(k), dimensions={{}}\n  \
                 u = {ty}[5]{{0}} {op}(b)\n  ROOT r = {ty}[5]{{0}} multiply(u, x)\n}}"
            );
            let x = if ty == "f32" {
                Literal::from_vec(&[5], vec![1.0f32, -2.0, 0.5, 3.0, -1.0]).unwrap()
            } else {
                Literal::from_vec(&[5], vec![1.0f64, -2.0, 0.5, 3.0, -1.0]).unwrap()
            };
            for native in every_backend() {
                let c = compile_with(&text, native);
                let want = interpret(&c, &[&x]).unwrap();
                assert_same(&run(&c, &[&x]), &want, &text);
            }
        }
    }
}

/// A staged function (tanh, emitted a stage at a time across the vectors
/// of a loop step) of a broadcast scalar has the same argument in every
/// vector: staged once per round (it was staged once per vector, past its
/// last stage, and the emitter panicked).
#[test]
fn staged_tanh_of_a_broadcast_scalar() {
    let text = "HloModule m
ENTRY e {
  x = f32[200]{0} parameter(0)
  q = f32[] parameter(1)
  qb = f32[200]{0} broadcast(q), dimensions={}
  t = f32[200]{0} tanh(qb)
  u = f32[200]{0} tanh(x)
  ROOT r = f32[200]{0} multiply(t, u)
}";
    let x = Literal::from_vec(&[200], (0..200).map(|i| i as f32 * 0.05 - 5.0).collect()).unwrap();
    // The kernels' tanh is XLA's (within 5 ulp), the interpreter's exact.
    for q in [0.75f32, -3.0, 1e-5] {
        let q = Literal::from_vec(&[], vec![q]).unwrap();
        assert_eq!(check_within_ulps(text, &[&x, &q], 12), Checked::Same);
    }
}
