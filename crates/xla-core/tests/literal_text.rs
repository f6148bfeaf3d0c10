//! Literal text: XLA's syntax for constants and `Literal::ToString`, parsed
//! and printed with exact round trips.

use xla_core::half::{bf16, f16};
use xla_core::text::{parse_literal_payload, print_literal, Cursor, LiteralFormat};
use xla_core::{Literal, Shape, C64};

/// Parses `payload` as a constant of `shape`, checks it prints back
/// unchanged, and returns the literal.
fn constant(shape: &str, payload: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap_or_else(|e| panic!("{shape}: {e}"));
    let mut c = Cursor::new(payload);
    let literal =
        parse_literal_payload(&mut c, &shape).unwrap_or_else(|e| panic!("{payload}\n{e}"));
    assert!(c.at_end(), "{payload}: left {:?}", c.rest());
    assert_eq!(literal.shape(), &shape);
    assert_eq!(
        print_literal(&literal, LiteralFormat::CONSTANT),
        payload,
        "{shape}"
    );
    literal
}

fn payload_error(shape: &str, payload: &str) -> String {
    let shape: Shape = shape.parse().unwrap();
    parse_literal_payload(&mut Cursor::new(payload), &shape)
        .unwrap_err()
        .to_string()
}

#[test]
fn constant_payloads_round_trip() {
    // (shape, payload exactly as XLA prints it inside `constant(…)`)
    let cases = [
        ("f32[]", "1.5"),
        ("f32[]", "-0"),
        ("f32[]", "-inf"),
        ("f32[]", "nan"),
        ("f32[]", "-nan"),
        ("f32[]", "nan(0x1)"),
        ("f32[]", "-nan(0x400001)"),
        ("f32[]", "1e-05"),
        ("f32[]", "0.044715"),
        ("f32[]", "3.40282347e+38"),
        ("f64[]", "4.94065645841247e-324"),
        ("f64[]", "0.30000000000000004"),
        ("f16[3]{0}", "{0.099976, 65504, -0.0025005}"),
        ("bf16[3]{0}", "{1.102, -3.004e+38, 7}"),
        ("pred[]", "true"),
        ("pred[]", "false"),
        ("pred[3]{0}", "{1, 0, 1}"),
        ("pred[2,3]{1,0}", "{ { 1, 0, 1 }, { 0, 0, 1 } }"),
        ("s8[2]{0}", "{-128, 127}"),
        ("s16[2]{0}", "{-32768, 32767}"),
        ("s32[2]{0}", "{-2147483648, 2147483647}"),
        ("s64[2]{0}", "{-9223372036854775808, 9223372036854775807}"),
        ("u8[2]{0}", "{0, 255}"),
        ("u16[2]{0}", "{0, 65535}"),
        ("u32[2]{0}", "{0, 4294967295}"),
        ("u64[2]{0}", "{0, 18446744073709551615}"),
        ("c64[2]{0}", "{(1, 2), (-0, -0.5)}"),
        ("c128[2]{0}", "{(-inf, nan), (1e+300, 0.1)}"),
        ("c64[]", "(1, -2)"),
        ("f32[3]{0}", "{1.5, 2, 3}"),
        ("f32[2,3]{1,0}", "{ { 1.5, -0, nan }, { inf, -inf, 1e-05 } }"),
        ("f32[2,1]{1,0}", "{ {1}, {2} }"),
        ("s32[2,3,2]{2,1,0}", "{ { { 1, 2 }, { 3, 4 }, { 5, 6 } }, { { 7, 8 }, { 9, 10 }, { 11, 12 } } }"),
        (
            "f32[3,2,1,1]{3,2,1,0}",
            "{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, { /*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }",
        ),
        ("f32[0]{0}", "{}"),
        ("f32[0,3]{1,0}", "{  }"),
        ("f32[2,0]{1,0}", "{ {}, {} }"),
        ("f32[2,0,4,3]{3,2,1,0}", "{ { /*i0=0*/ }, { /*i0=1*/ } }"),
        ("(f32[2,1]{1,0}, f32[2]{0})", "( { {1}, {2} }, {2, 42} )"),
        ("(s32[], (pred[], f32[2]{0}))", "( 1, ( true, {2, 3} ) )"),
        ("()", "(  )"),
        ("(f32[], token[])", "( 1, token )"),
    ];
    for (shape, payload) in cases {
        constant(shape, payload);
    }
}

#[test]
fn values_are_exact() {
    let l = constant("f32[]", "-0");
    assert_eq!(l.data::<f32>().unwrap()[0].to_bits(), 0x8000_0000);
    let l = constant("f32[3]{0}", "{nan(0x1), -nan, nan(0x400001)}");
    let bits: Vec<u32> = l
        .data::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    assert_eq!(bits, [0x7f80_0001, 0xffc0_0000, 0x7fc0_0001]);
    let l = constant("f64[2]{0}", "{-nan(0x1), 1e+300}");
    assert_eq!(l.data::<f64>().unwrap()[0].to_bits(), 0xfff0_0000_0000_0001);
    let l = constant("u64[2]{0}", "{0, 18446744073709551615}");
    assert_eq!(l.data::<u64>().unwrap(), &[0, u64::MAX]);
    let l = constant("bf16[3]{0}", "{1.102, -3.004e+38, 7}");
    assert_eq!(l.data::<bf16>().unwrap()[0], bf16::from_f32(1.1));
    let l = constant("f16[]", "nan(0x1)");
    assert_eq!(l.data::<f16>().unwrap()[0].to_bits(), 0x7c01);
    let l = constant("c64[]", "(1, -2)");
    assert_eq!(l.data::<C64>().unwrap(), &[C64::new(1.0, -2.0)]);
    let l = constant("pred[2]{0}", "{1, 0}");
    assert_eq!(l.data::<bool>().unwrap(), &[true, false]);
}

#[test]
fn layouts_place_values_by_logical_index() {
    // Column-major: the buffer holds the columns one after another.
    let l = constant("s32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
    assert_eq!(l.data::<i32>().unwrap(), &[1, 4, 2, 5, 3, 6]);
    // 2×2 tiles over a 3×5 array: tile (0,0) holds 0 1 / 5 6; padding is 0.
    let values = "{ { 0, 1, 2, 3, 4 }, { 5, 6, 7, 8, 9 }, { 10, 11, 12, 13, 14 } }";
    let l = constant("s32[3,5]{1,0:T(2,2)}", values);
    let data = l.data::<i32>().unwrap();
    assert_eq!(data.len(), 24);
    assert_eq!(&data[..8], &[0, 1, 5, 6, 2, 3, 7, 8]);
    assert_eq!(&data[12..16], &[10, 11, 0, 0]);
}

#[test]
fn long_arrays_print_in_full() {
    let values: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin()).collect();
    let l = Literal::from_vec(&[1000], values.clone()).unwrap();
    let text = print_literal(&l, LiteralFormat::CONSTANT);
    assert_eq!(text.matches(',').count(), 999);
    let back = parse_literal_payload(&mut Cursor::new(&text), l.shape()).unwrap();
    assert_eq!(back, l);
    let l = Literal::from_vec(&[10, 100], (0..1000).collect::<Vec<i64>>()).unwrap();
    let text = print_literal(&l, LiteralFormat::CONSTANT);
    assert!(text.starts_with("{ { 0, 1, 2,") && text.ends_with("998, 999 } }"));
    assert_eq!(
        parse_literal_payload(&mut Cursor::new(&text), l.shape()).unwrap(),
        l
    );
}

#[test]
fn to_string_with_shapes() {
    let l = Literal::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    let text = print_literal(&l, LiteralFormat::TO_STRING);
    assert_eq!(text, "s32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5, 6 }\n}");
    let back: Literal = text.parse().unwrap();
    assert!(back.shape().eq_with_layout(l.shape()));
    assert_eq!(back.data::<i32>().unwrap(), l.data::<i32>().unwrap());
    let tuple = Literal::tuple(vec![Literal::vector(&[1.5f32, 2.0]), Literal::scalar(true)]);
    let text = print_literal(&tuple, LiteralFormat::TO_STRING);
    assert_eq!(text, "(\nf32[2] {1.5, 2},\npred[] true\n)");
    let text = print_literal(&tuple, LiteralFormat::WITH_LAYOUT_ONELINE);
    assert_eq!(text, "( f32[2]{0} {1.5, 2}, pred[] true )");
    assert_eq!(text.parse::<Literal>().unwrap(), tuple);
    let l: Literal = "f32[2,3] {{1, 2, 3}, {4, 5, 6}}".parse().unwrap();
    assert_eq!(l.shape().to_string(), "f32[2,3]");
    assert_eq!(l.data::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // A layout must touch the `]`; after a space the braces are values.
    let l: Literal = "s32[2,2]{0,1} {{1, 2}, {3, 4}}".parse().unwrap();
    assert_eq!(l.data::<i32>().unwrap(), &[1, 3, 2, 4]);
    let l: Literal = "s32[2] {1, 0}".parse().unwrap();
    assert_eq!(l.shape().to_string(), "s32[2]");
    let rank3 = Literal::from_vec(&[2, 1, 2], vec![1u8, 2, 3, 4]).unwrap();
    assert_eq!(
        print_literal(&rank3, LiteralFormat::TO_STRING),
        "u8[2,1,2] {\n{\n  { 1, 2 }\n},\n{\n  { 3, 4 }\n}\n}"
    );
}

#[test]
fn payload_errors() {
    assert_eq!(
        payload_error("f32[2,3]", "{ { 1, 2 }, { 3, 4, 5 } }"),
        "1:10: expected `,` and element 3 of 3 in dimension 1 of f32[2,3], found `}, { 3, 4, 5 } }`\n\
         { { 1, 2 }, { 3, 4, 5 } }\n         ^"
    );
    assert_eq!(
        payload_error("f32[2]", "{1, 2, 3}"),
        "1:6: expected `}` after the 2 elements of dimension 0 of f32[2], found `, 3}`\n{1, 2, 3}\n     ^"
    );
    assert_eq!(
        payload_error("s8[]", "128"),
        "1:1: expected an s8 value (-128…127), found `128`\n128\n^"
    );
    assert_eq!(
        payload_error("u64[]", "-1"),
        "1:1: expected an u64 value (0…18446744073709551615), found `-1`\n-1\n^"
    );
    assert_eq!(
        payload_error("f32[]", "nan(0x800000)"),
        "1:1: expected an f32 value (a number, `inf`, `nan` or `nan(0x…)`), found `nan(0x800000)`\nnan(0x800000)\n^"
    );
    assert_eq!(
        payload_error("pred[2]", "{1, 2}"),
        "1:5: expected a pred value (`true`, `false`, `1` or `0`), found `2}`\n{1, 2}\n    ^"
    );
    assert_eq!(
        payload_error("f32[2,2]", "{1, 2}"),
        "1:2: expected `{` starting dimension 1 of f32[2,2], found `1, 2}`\n{1, 2}\n ^"
    );
    assert_eq!(
        payload_error("f32[4000000000000]", "{1}"),
        "1:3: expected `,` and element 2 of 4000000000000 in dimension 0 of f32[4000000000000], found `}`\n{1}\n  ^"
    );
    assert_eq!(
        payload_error("c64[]", "(1 2)"),
        "1:4: expected `,`, found `2)`\n(1 2)\n   ^"
    );
    assert_eq!(
        payload_error("(f32[], s32[])", "( 1 )"),
        "1:5: expected `,`, found `)`\n( 1 )\n    ^"
    );
}
