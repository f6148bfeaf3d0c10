//! Every integer type: the ops against Rust's wrapping arithmetic, the
//! worked division examples, and shifts and divisions by constants.

use super::*;

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
