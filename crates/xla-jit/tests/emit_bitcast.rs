//! Differential tests of `bitcast-convert` between element types of
//! different widths (`docs/semantics.md`, *Bitcast-convert*): the result gains or loses a
//! minor-most dimension. Kernels and the interpreter must agree bit for bit
//! on every pair of real types whose widths divide, with pseudo-random
//! bytes (NaN payloads, subnormals and infinities among them), default and
//! non-default layouts, and as a member of a larger fusion.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, PrimitiveType, Shape};

use PrimitiveType as P;

/// Bytes 8..16 of the first 16 of a literal, read as little-endian
/// elements: `f16 0x7C01` (signalling NaN), `0x7F81` (an f16 quiet NaN, a
/// bf16 signalling one), `0x0001` (the smallest f16 subnormal), `0x7FF0`;
/// as f32, `0x7F817C01` (signalling) and `0x7FF00001`; as f64,
/// `0x7FF00001_7F817C01` (signalling). A bitcast must keep every one.
const SIGNALLING: [u8; 8] = [0x01, 0x7C, 0x81, 0x7F, 0x01, 0x00, 0xF0, 0x7F];

/// A literal of `shape` filled with pseudo-random bytes (pred bytes 0 or
/// 1), plus fixed patterns in bytes 8..16 of every 16: signalling NaNs of
/// every float width in the first ([`SIGNALLING`]), all-ones and zeros
/// (quiet NaNs, -1, 0) in the others.
fn bytes_of(shape: &str, seed: u64) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let ty = shape.element_type().unwrap();
    let mut lit = Literal::zeros(&shape).unwrap();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let bytes = lit.bytes_mut().unwrap();
    for (i, b) in bytes.iter_mut().enumerate() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *b = match (ty, i % 16) {
            (P::Pred, _) => (state & 1) as u8,
            (_, k @ 8..=15) if i < 16 => SIGNALLING[k - 8],
            (_, 8..=11) => 0xFF,
            (_, 12..=13) => 0,
            _ => state as u8,
        };
    }
    lit
}

fn narrowing(from: PrimitiveType, to: PrimitiveType, k: usize) -> Vec<(String, String)> {
    let (f, t) = (from.name(), to.name());
    vec![
        (format!("{f}[7]{{0}}"), format!("{t}[7,{k}]{{1,0}}")),
        (format!("{f}[]"), format!("{t}[{k}]{{0}}")),
        (format!("{f}[3,5]{{0,1}}"), format!("{t}[3,5,{k}]{{0,2,1}}")),
    ]
}

fn widening(from: PrimitiveType, to: PrimitiveType, k: usize) -> Vec<(String, String)> {
    let (f, t) = (from.name(), to.name());
    vec![
        (format!("{f}[7,{k}]{{1,0}}"), format!("{t}[7]{{0}}")),
        (format!("{f}[{k}]{{0}}"), format!("{t}[]")),
        (format!("{f}[3,5,{k}]{{1,0,2}}"), format!("{t}[3,5]{{0,1}}")),
    ]
}

#[test]
fn bitcast_convert_between_widths_matches_the_interpreter() {
    let mut same = 0;
    for from in REAL {
        for to in REAL {
            let (b, b2) = (from.byte_size(), to.byte_size());
            if b == b2 {
                continue;
            }
            let cases = if b > b2 {
                narrowing(from, to, b / b2)
            } else {
                widening(from, to, b2 / b)
            };
            for (seed, (x, r)) in cases.into_iter().enumerate() {
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {x} parameter(0)\n  \
                     ROOT r = {r} bitcast-convert(x)\n}}"
                );
                let arg = bytes_of(&x, seed as u64 + 1);
                let checked = check_bits(&text, &[&arg]);
                if to == P::Pred {
                    // Shape inference refuses bitcasts to pred.
                    assert_eq!(checked, Checked::Rejected, "{text}");
                } else {
                    assert_eq!(checked, Checked::Same, "{text}");
                    same += 1;
                }
            }
        }
    }
    assert_eq!(same, 3 * 116);
}

/// Between types of one width the kernels reinterpret registers; a 16-bit
/// float lives in an f32 register, and its signalling NaNs must come back
/// with the bits they went in with.
#[test]
fn bitcast_convert_between_types_of_one_width_keeps_every_bit() {
    let mut same = 0;
    for from in REAL {
        for to in REAL {
            if from.byte_size() != to.byte_size() || from == P::Pred || to == P::Pred {
                continue;
            }
            let (f, t) = (from.name(), to.name());
            for (seed, (x, r)) in [
                (format!("{f}[37]{{0}}"), format!("{t}[37]{{0}}")),
                (format!("{f}[4,9]{{0,1}}"), format!("{t}[4,9]{{1,0}}")),
            ]
            .into_iter()
            .enumerate()
            {
                let text = format!(
                    "HloModule m\nENTRY e {{\n  x = {x} parameter(0)\n  \
                     ROOT r = {r} bitcast-convert(x)\n}}"
                );
                let arg = bytes_of(&x, seed as u64 + 11);
                assert_eq!(check_bits(&text, &[&arg]), Checked::Same, "{text}");
                same += 1;
            }
        }
    }
    assert_eq!(same, 2 * (2 * 2 + 4 * 4 + 3 * 3 + 3 * 3));
}

/// The case that once drifted: bytes to f16 signalling NaNs.
#[test]
fn bitcast_convert_of_bytes_to_f16_keeps_signalling_nans() {
    let text = "HloModule m\nENTRY e {\n  p = u8[4,2] parameter(0)\n  \
                ROOT b = f16[4] bitcast-convert(p)\n}";
    let bytes: [u8; 8] = [0x01, 0x7C, 0x00, 0x7E, 0x01, 0xFC, 0x00, 0x3C];
    let arg = Literal::from_vec(&[4, 2], bytes.to_vec()).unwrap();
    for native in every_backend() {
        let got = run(&compile_with(text, native), &[&arg]);
        let bits: Vec<u16> = got
            .to_vec::<xla_core::half::f16>()
            .unwrap()
            .iter()
            .map(|h| h.to_bits())
            .collect();
        assert_eq!(
            bits,
            [0x7C01, 0x7E00, 0xFC01, 0x3C00],
            "native kernels: {native:?}"
        );
    }
}

/// `abs` and `negate` move the sign bit and keep a signalling NaN (as
/// XLA's `fabs`/`fneg` do); computing on a value quiets its NaNs, as the
/// interpreter (which computes 16-bit floats in f32) does: a signalling
/// NaN loaded from memory and converted or added to comes out quiet with
/// its payload.
#[test]
fn signalling_nans_are_kept_by_sign_ops_and_quieted_by_arithmetic() {
    for (ty, op, out) in [
        ("f16", "negate", "f16"),
        ("f16", "abs", "f16"),
        ("bf16", "negate", "bf16"),
        ("bf16", "abs", "bf16"),
        ("f16", "sqrt", "f16"),
        ("bf16", "floor", "bf16"),
        ("f16", "convert", "f32"),
        ("bf16", "convert", "f32"),
        ("f16", "convert", "bf16"),
        ("f32", "convert", "f16"),
        ("f32", "convert", "bf16"),
        ("f64", "convert", "f16"),
        ("f16", "convert", "f64"),
    ] {
        let text = format!(
            "HloModule m\nENTRY e {{\n  x = {ty}[9]{{0}} parameter(0)\n  \
             ROOT r = {out}[9]{{0}} {op}(x)\n}}"
        );
        let arg = bytes_of(&format!("{ty}[9]{{0}}"), 5);
        assert_eq!(check_bits(&text, &[&arg]), Checked::Same, "{text}");
    }
}

#[test]
fn bitcast_convert_fuses_with_its_neighbours() {
    // f32 → u8x4, reversed along the new dimension, back to f32: a byte
    // swap; then f64 ← u16x4 from a transposed operand.
    let text = "HloModule m\nENTRY e {\n  x = f32[9]{0} parameter(0)\n  \
                b = u8[9,4]{1,0} bitcast-convert(x)\n  \
                r = u8[9,4]{1,0} reverse(b), dimensions={1}\n  \
                ROOT y = f32[9]{0} bitcast-convert(r)\n}";
    let x = bytes_of("f32[9]{0}", 7);
    assert_eq!(check_bits(text, &[&x]), Checked::Same);
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));

    let text = "HloModule m\nENTRY e {\n  x = u16[4,6]{1,0} parameter(0)\n  \
                t = u16[6,4]{1,0} transpose(x), dimensions={1,0}\n  \
                ROOT y = f64[6]{0} bitcast-convert(t)\n}";
    let x = bytes_of("u16[4,6]{1,0}", 9);
    assert_eq!(check_bits(text, &[&x]), Checked::Same);
}

/// A `bitcast` that changes the element type (same bytes: `u32[2,2]` →
/// `u64[2]`) reinterprets bytes like a bitcast-convert. Kernels read a
/// bitcast's elements as its operand's, so it is left to the interpreter
/// (fuzzing found a kernel reading u32 lanes as u64 state, which failed
/// Cranelift's verifier); the compiled module computes what the
/// interpreter does.
#[test]
fn bitcast_changing_the_element_type_is_interpreted() {
    let cases = [
        (
            "HloModule m\nENTRY e {\n  s = u32[4]{0} parameter(0)\n  \
             r = u32[2,2]{1,0} reshape(s)\n  b = u64[2]{0} bitcast(r)\n  \
             ROOT t = (u64[2]{0}, u32[3,5]{1,0}) rng-bit-generator(b), algorithm=rng_philox\n}",
            "u32[4]{0}",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[6]{0} parameter(0)\n  \
             b = s32[6]{0} bitcast(x)\n  ROOT n = s32[6]{0} negate(b)\n}",
            "f32[6]{0}",
        ),
    ];
    for (text, arg) in cases {
        let module: xla_core::HloModule = text.parse().unwrap();
        let plan = xla_jit::fusion::plan(&module, module.entry, &xla_jit::emit::Kernels);
        let entry = module.entry_computation();
        let fallback: Vec<&str> = plan
            .fallback_ops()
            .map(|s| entry.instr(s.instr).name.as_str())
            .collect();
        assert_eq!(fallback, ["b"], "{text}");
        let x = bytes_of(arg, 5);
        let want = xla_core::interp::Interpreter::new()
            .run(&module, &[&x])
            .unwrap();
        let got = xla_jit::Client::cpu()
            .unwrap()
            .compile(&module)
            .unwrap()
            .execute(&[&x])
            .unwrap();
        assert_eq!(got, want, "{text}");
    }
}

#[test]
fn bitcast_convert_follows_the_project_byte_order() {
    // `docs/semantics.md`, *Bitcast-convert*: f32 1.0 → f16 [0.0, 1.875]; s32 0x01020304 → s8
    // [4,3,2,1].
    let c = compile(
        "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  \
         ROOT r = f16[2]{0} bitcast-convert(x)\n}",
    );
    let got = run(&c, &[&Literal::scalar(1.0f32)]);
    let want = [
        xla_core::half::f16::from_f32(0.0),
        xla_core::half::f16::from_f32(1.875),
    ];
    assert_eq!(got.to_vec::<xla_core::half::f16>().unwrap(), want);
    let c = compile(
        "HloModule m\nENTRY e {\n  x = s32[] parameter(0)\n  \
         ROOT r = s8[4]{0} bitcast-convert(x)\n}",
    );
    let got = run(&c, &[&Literal::scalar(0x0102_0304i32)]);
    assert_eq!(got.to_vec::<i8>().unwrap(), [4, 3, 2, 1]);
}

#[test]
fn bitcast_convert_runs_on_vectors_where_lanes_allow() {
    let clif = |text: &str| -> String {
        let c = compile(text);
        c.jit.clif().iter().map(|(_, f)| f.clone()).collect()
    };
    // Four bytes of one f32 per 4-lane vector.
    let text = "HloModule m\nENTRY e {\n  x = f32[9]{0} parameter(0)\n  \
                ROOT r = u8[9,4]{1,0} bitcast-convert(x)\n}";
    assert!(clif(text).contains("scalar_to_vector"));
    assert_eq!(
        check_bits(text, &[&bytes_of("f32[9]{0}", 3)]),
        Checked::Same
    );
    // Pairs of u16 widened to u32 lanes.
    let text = "HloModule m\nENTRY e {\n  x = u16[9,2]{1,0} parameter(0)\n  \
                ROOT r = f32[9]{0} bitcast-convert(x)\n}";
    assert!(clif(text).contains("uwiden_low"));
    assert_eq!(
        check_bits(text, &[&bytes_of("u16[9,2]{1,0}", 4)]),
        Checked::Same
    );
}
