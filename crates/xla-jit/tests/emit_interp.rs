//! Differential tests: every elementwise op and conversion of every real
//! element type, compiled into a kernel and run by the reference
//! interpreter on edge values (±0, ±∞, NaN, subnormals, ties, extremes of
//! each integer type), compared bit for bit (any NaN equals any NaN).
//! Lengths are not multiples of the vector width, so vector loops and
//! scalar tails both run.

use crate::emit_harness;

use emit_harness::*;
use xla_core::hlo::{Cost, Form, Produces};
use xla_core::{Literal, Opcode, PrimitiveType};

use PrimitiveType as P;

/// Edge values of `ty` as a vector literal.
fn edges(ty: PrimitiveType) -> Literal {
    if ty.is_floating() {
        let v: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.3,
            -0.3,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MAX,
            f32::MAX as f64,
            -(f32::MAX as f64),
            f32::MIN_POSITIVE as f64,
            1e-40,
            -1e-40,
            1e-310,
            -1e-310,
            6e-8,
            -6.1e-5,
            65504.0,
            65520.0,
            -70000.0,
            3e9,
            -1e10,
            16777217.0,
            123.456,
            -7.75,
            1e-5,
            0.1,
            2147483648.0,
            -2147483649.0,
            300.0,
            -129.0,
        ];
        return Literal::vector(&v).convert(ty).unwrap();
    }
    if ty == P::Pred {
        return Literal::vector(&[false, true, true, false, true]);
    }
    let raw: Vec<i64> = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        7,
        -7,
        8,
        15,
        16,
        31,
        32,
        33,
        63,
        64,
        100,
        127,
        128,
        -128,
        -129,
        255,
        256,
        300,
        32767,
        -32768,
        65535,
        i32::MAX as i64,
        i32::MIN as i64,
        u32::MAX as i64,
        i64::MAX,
        i64::MIN,
        0x5555_5555_5555_5555,
    ];
    // Integer → integer conversion wraps: every type gets its extremes.
    Literal::vector(&raw).convert(ty).unwrap()
}

/// All ordered pairs of `ty`'s edge values, as two vectors.
fn pairs(ty: PrimitiveType) -> (Literal, Literal) {
    let e = edges(ty).convert(P::F64);
    let (a, b) = if ty.is_integral() && ty != P::Pred {
        let v = edges(ty).convert(P::S64).unwrap().to_vec::<i64>().unwrap();
        let (a, b): (Vec<i64>, Vec<i64>) = v
            .iter()
            .flat_map(|&x| v.iter().map(move |&y| (x, y)))
            .unzip();
        (
            Literal::vector(&a).convert(ty).unwrap(),
            Literal::vector(&b).convert(ty).unwrap(),
        )
    } else if ty == P::Pred {
        (
            Literal::vector(&[false, false, true, true]),
            Literal::vector(&[false, true, false, true]),
        )
    } else {
        // Floats pair through their exact f64 values (f16/bf16 widen exactly).
        let v = e.unwrap().to_vec::<f64>().unwrap();
        let (a, b): (Vec<f64>, Vec<f64>) = v
            .iter()
            .flat_map(|&x| v.iter().map(move |&y| (x, y)))
            .unzip();
        (
            Literal::vector(&a).convert(ty).unwrap(),
            Literal::vector(&b).convert(ty).unwrap(),
        )
    };
    (a, b)
}

fn len(l: &Literal) -> usize {
    l.array_shape().unwrap().element_count() as usize
}

/// The result type of a plain element-wise op of the op table on `ty`.
fn result_type(produces: Produces, ty: PrimitiveType) -> PrimitiveType {
    match produces {
        Produces::Same => ty,
        Produces::Predicate => P::Pred,
        Produces::Component => ty.component_type(),
        Produces::ComplexOf => ty.complex_type().unwrap(),
    }
}

/// Checks `text` on `args`: exactly, or within [`transcendental_ulps`]
/// for the approximated float functions (the op table's transcendental
/// and heavy cost classes, but `remainder`, which is exact).
fn check_op(op: Opcode, ty: PrimitiveType, text: &str, args: &[&Literal]) {
    let approximated = ty.is_floating()
        && matches!(op.cost(), Cost::Transcendental | Cost::Heavy)
        && op != Opcode::Remainder;
    let checked = if approximated {
        check_within_ulps(text, args, transcendental_ulps(ty))
    } else {
        check(text, args)
    };
    assert_eq!(checked, Checked::Same, "{op} on {}", ty.name());
}

/// Every unary op of the op table, on every real type its row admits: the
/// sweep a new row is covered by without new test code.
#[test]
fn unary_ops_of_every_type() {
    let mut same = 0;
    for &op in Opcode::ALL {
        let Form::Unary(class, produces) = op.form() else {
            continue;
        };
        for ty in REAL.into_iter().filter(|&t| class.contains(t)) {
            let x = edges(ty);
            let n = len(&x);
            let (t, out) = (ty.name(), result_type(produces, ty).name());
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {t}[{n}]{{0}} parameter(0)\n  \
                 ROOT r = {out}[{n}]{{0}} {op}(x)\n}}"
            );
            check_op(op, ty, &text, &[&x]);
            same += 1;
        }
    }
    assert!(same >= 120, "only {same} unary combinations ran");
}

/// Every binary op of the op table on every real type its row admits, on
/// all pairs of edge values; then `compare` in every direction.
#[test]
fn binary_ops_of_every_type() {
    let mut same = 0;
    for ty in REAL {
        let (a, b) = pairs(ty);
        let n = len(&a);
        let t = ty.name();
        for &op in Opcode::ALL {
            let Form::Binary(class, produces) = op.form() else {
                continue;
            };
            if !class.contains(ty) {
                continue;
            }
            let out = result_type(produces, ty).name();
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {t}[{n}]{{0}} parameter(0)\n  y = {t}[{n}]{{0}} parameter(1)\n  \
                 ROOT r = {out}[{n}]{{0}} {op}(x, y)\n}}"
            );
            check_op(op, ty, &text, &[&a, &b]);
            same += 1;
        }
        for dir in ["EQ", "NE", "LT", "LE", "GT", "GE"] {
            for kind in ["", ", type=TOTALORDER"] {
                if !ty.is_floating() && !kind.is_empty() {
                    continue;
                }
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {t}[{n}]{{0}} parameter(0)\n  y = {t}[{n}]{{0}} parameter(1)\n  \
                     ROOT r = pred[{n}]{{0}} compare(x, y), direction={dir}{kind}\n}}"
                );
                assert_eq!(
                    check(&text, &[&a, &b]),
                    Checked::Same,
                    "compare {dir}{kind} on {t}"
                );
                same += 1;
            }
        }
    }
    assert!(same >= 200, "only {same} binary combinations ran");
}

#[test]
fn conversions_between_every_pair_of_types() {
    let mut same = 0;
    for from in REAL {
        let x = edges(from);
        let n = len(&x);
        for to in REAL {
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {}[{n}]{{0}} parameter(0)\n  ROOT r = {}[{n}]{{0}} convert(x)\n}}",
                from.name(),
                to.name()
            );
            assert_eq!(
                check(&text, &[&x]),
                Checked::Same,
                "convert {} to {}",
                from.name(),
                to.name()
            );
            same += 1;
            if from.byte_size() == to.byte_size() && from != to {
                let text = text.replace("convert", "bitcast-convert");
                if check(&text, &[&x]) == Checked::Same {
                    same += 1;
                }
            }
        }
    }
    assert!(same >= 169 + 20, "only {same} conversions ran");
}

#[test]
fn reduce_precision_of_every_float_type() {
    for ty in [P::F16, P::Bf16, P::F32, P::F64] {
        let x = edges(ty);
        let n = len(&x);
        for (e, m) in [(5, 10), (8, 7), (3, 2), (11, 52), (8, 23), (1, 0)] {
            let t = ty.name();
            let text = format!(
                "HloModule m\nENTRY e {{\n  x = {t}[{n}]{{0}} parameter(0)\n  \
                 ROOT r = {t}[{n}]{{0}} reduce-precision(x), exponent_bits={e}, mantissa_bits={m}\n}}"
            );
            assert_eq!(
                check(&text, &[&x]),
                Checked::Same,
                "reduce-precision {t} ({e},{m})"
            );
        }
    }
}

#[test]
fn select_and_clamp_of_every_type() {
    for ty in REAL {
        let (a, b) = pairs(ty);
        let n = len(&a);
        let t = ty.name();
        let p: Vec<bool> = (0..n).map(|i| (i * 7) % 3 == 0).collect();
        let text = format!(
            "HloModule m\nENTRY e {{\n  p = pred[{n}]{{0}} parameter(0)\n  x = {t}[{n}]{{0}} parameter(1)\n  \
             y = {t}[{n}]{{0}} parameter(2)\n  ROOT r = {t}[{n}]{{0}} select(p, x, y)\n}}"
        );
        assert_eq!(
            check(&text, &[&Literal::vector(&p), &a, &b]),
            Checked::Same,
            "select {t}"
        );
        let text = format!(
            "HloModule m\nENTRY e {{\n  lo = {t}[{n}]{{0}} parameter(0)\n  x = {t}[{n}]{{0}} parameter(1)\n  \
             hi = {t}[{n}]{{0}} parameter(2)\n  ROOT r = {t}[{n}]{{0}} clamp(lo, x, hi)\n}}"
        );
        let mid = edges(ty);
        let reps = n / len(&mid);
        let mid: Vec<Literal> = (0..reps).map(|_| mid.clone()).collect();
        let mid = concat(ty, &mid);
        let r = check(&text, &[&a, &mid, &b]);
        assert!(r == Checked::Same || r == Checked::Rejected, "clamp {t}");
    }
}

/// Concatenates vector literals of type `ty`.
fn concat(ty: PrimitiveType, parts: &[Literal]) -> Literal {
    let mut bytes = Vec::new();
    let mut n = 0;
    for p in parts {
        bytes.extend_from_slice(p.bytes().unwrap());
        n += len(p);
    }
    let shape = xla_core::ArrayShape::new(ty, vec![n as i64]).with_default_layout();
    Literal::from_storage(
        shape,
        xla_core::literal::Storage::Owned(xla_core::literal::AlignedBytes::copy_from(&bytes)),
    )
    .unwrap()
}

#[test]
fn fused_chains_of_mixed_types() {
    // f16 arithmetic rounds after every op; integer, pred and float values
    // meet in one kernel.
    let text = "HloModule m
ENTRY e {
  a = f16[37]{0} parameter(0)
  b = f16[37]{0} parameter(1)
  i = s32[37]{0} parameter(2)
  m = f16[37]{0} multiply(a, b)
  s = f16[37]{0} add(m, a)
  fi = f16[37]{0} convert(i)
  d = f16[37]{0} divide(s, fi)
  c = pred[37]{0} compare(d, a), direction=GT
  w = f64[37]{0} convert(d)
  z = f64[] constant(-1)
  zb = f64[37]{0} broadcast(z), dimensions={}
  ROOT r = f64[37]{0} select(c, w, zb)
}";
    let a: Vec<f32> = (0..37).map(|i| (i as f32 - 18.0) * 0.37).collect();
    let b: Vec<f32> = (0..37).map(|i| 1.0 / (i as f32 + 0.5)).collect();
    let i: Vec<i32> = (0..37).map(|i| i - 10).collect();
    let args = [
        &Literal::vector(&a).convert(P::F16).unwrap(),
        &Literal::vector(&b).convert(P::F16).unwrap(),
        &Literal::vector(&i),
    ];
    assert_eq!(check(text, &args), Checked::Same);
}

#[test]
fn map_applies_its_computation_elementwise() {
    let text = "HloModule m
f {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] convert(b)
  p = f32[] multiply(a, c)
  one = f32[] constant(1)
  ROOT r = f32[] add(p, one)
}
ENTRY e {
  x = f32[19]{0} parameter(0)
  y = s32[19]{0} parameter(1)
  ROOT m = f32[19]{0} map(x, y), dimensions={0}, to_apply=f
}";
    let x: Vec<f32> = (0..19).map(|i| i as f32 * 0.75 - 3.0).collect();
    let y: Vec<i32> = (0..19).map(|i| 9 - i).collect();
    assert_eq!(
        check(text, &[&Literal::vector(&x), &Literal::vector(&y)]),
        Checked::Same
    );
}

#[test]
fn shifts_by_a_broadcast_amount() {
    for ty in [P::S8, P::U8, P::S16, P::U32, P::S32, P::S64, P::U64] {
        let t = ty.name();
        let x = edges(ty);
        let n = len(&x);
        for op in [
            "shift-left",
            "shift-right-logical",
            "shift-right-arithmetic",
        ] {
            for amount in [0i64, 1, 3, 7, 8, 31, 32, 63, 64, -1] {
                let a = Literal::scalar(amount).convert(ty).unwrap();
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {t}[{n}]{{0}} parameter(0)\n  a = {t}[] parameter(1)\n  \
                     ab = {t}[{n}]{{0}} broadcast(a), dimensions={{}}\n  ROOT r = {t}[{n}]{{0}} {op}(x, ab)\n}}"
                );
                assert_eq!(
                    check(&text, &[&x, &a]),
                    Checked::Same,
                    "{op} {t} by {amount}"
                );
            }
        }
    }
}

/// The largest distance allowed between a transcendental kernel and the
/// interpreter on these edge values. The kernels' documented errors are at
/// most about 1.2 ulp, except f32 tanh and logistic at `Accuracy::Xla`
/// (4.9 and 2.4 ulp, reached at inputs this set does not contain; their
/// whole range is checked in tests/math.rs); f16 and bf16 are computed in
/// f32 and rounded once, so they differ by at most one.
fn transcendental_ulps(ty: PrimitiveType) -> u64 {
    match ty {
        P::F16 | P::Bf16 => 1,
        _ => 4,
    }
}
