//! Element-wise rules: unary and binary type rules, compare, select, clamp,
//! convert, bitcast-convert, reduce-precision, map.

use xla_core::hlo::{ComparisonDirection as Dir, ComparisonType, Opcode, ProgramShape};
use xla_core::infer::{self, InferError, Signature};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType, Shape};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

fn unary(op: Opcode, operand: &str) -> Result<String, String> {
    show(infer::unary(op, &a(operand)))
}

fn binary(op: Opcode, lhs: &str, rhs: &str) -> Result<String, String> {
    show(infer::binary(op, &a(lhs), &a(rhs), None))
}

fn program(text: &str) -> ProgramShape {
    let (params, result) = text.split_once(" -> ").unwrap();
    let params = params.trim_start_matches('(').trim_end_matches(')');
    let parameters = if params.is_empty() {
        Vec::new()
    } else {
        params.split(", ").map(sh).collect()
    };
    ProgramShape {
        parameters,
        result: sh(result),
    }
}

#[test]
fn unary_type_rules() {
    assert_eq!(unary(Opcode::Exp, "f32[2,3]{0,1}").unwrap(), "f32[2,3]");
    assert_eq!(unary(Opcode::Exp, "c64[2]").unwrap(), "c64[2]");
    assert_eq!(unary(Opcode::Abs, "s8[]").unwrap(), "s8[]");
    assert_eq!(unary(Opcode::Abs, "c128[4]").unwrap(), "f64[4]");
    assert_eq!(unary(Opcode::Real, "c64[4]").unwrap(), "f32[4]");
    assert_eq!(unary(Opcode::Imag, "f32[4]").unwrap(), "f32[4]");
    assert_eq!(unary(Opcode::IsFinite, "bf16[3]").unwrap(), "pred[3]");
    assert_eq!(unary(Opcode::Not, "pred[3]").unwrap(), "pred[3]");
    assert_eq!(unary(Opcode::Not, "u16[3]").unwrap(), "u16[3]");
    assert_eq!(unary(Opcode::PopulationCount, "s64[]").unwrap(), "s64[]");
    assert_eq!(unary(Opcode::Negate, "u32[2]").unwrap(), "u32[2]");
    assert_eq!(unary(Opcode::Sign, "f16[2]").unwrap(), "f16[2]");
    let errors = [
        (Opcode::Abs, "u32[2]", "abs: operand 0 u32[2] must have a signed integral, floating-point or complex element type"),
        (Opcode::Sign, "u8[]", "sign: operand 0 u8[] must have a signed integral, floating-point or complex element type"),
        (Opcode::Ceil, "s32[2]", "ceil: operand 0 s32[2] must have a floating-point element type"),
        (Opcode::RoundNearestEven, "c64[2]", "round-nearest-even: operand 0 c64[2] must have a floating-point element type"),
        (Opcode::Cbrt, "c64[2]", "cbrt: operand 0 c64[2] must have a floating-point element type"),
        (Opcode::Exp, "s32[2]", "exponential: operand 0 s32[2] must have a floating-point or complex element type"),
        (Opcode::IsFinite, "s32[]", "is-finite: operand 0 s32[] must have a floating-point element type"),
        (Opcode::Not, "f32[]", "not: operand 0 f32[] must have a pred or integral element type"),
        (Opcode::PopulationCount, "f32[]", "popcnt: operand 0 f32[] must have an integral element type"),
        (Opcode::Clz, "pred[]", "count-leading-zeros: operand 0 pred[] must have an integral element type"),
        (Opcode::Negate, "pred[2]", "negate: operand 0 pred[2] must have a numeric (not pred) element type"),
        (Opcode::Real, "s32[2]", "real: operand 0 s32[2] must have a floating-point or complex element type"),
    ];
    for (op, operand, message) in errors {
        assert_eq!(unary(op, operand).unwrap_err(), message, "{op}");
    }
}

#[test]
#[should_panic(expected = "add is not an element-wise unary op")]
fn unary_rejects_other_ops() {
    let _ = infer::unary(Opcode::Add, &a("f32[]"));
}

#[test]
fn binary_type_rules() {
    assert_eq!(
        binary(Opcode::Add, "f32[2,3]", "f32[2,3]").unwrap(),
        "f32[2,3]"
    );
    assert_eq!(
        binary(Opcode::Multiply, "s32[]", "s32[4]").unwrap(),
        "s32[4]"
    );
    assert_eq!(
        binary(Opcode::Maximum, "pred[2]", "pred[2]").unwrap(),
        "pred[2]"
    );
    assert_eq!(
        binary(Opcode::Complex, "f32[2]", "f32[2]").unwrap(),
        "c64[2]"
    );
    assert_eq!(binary(Opcode::Complex, "f64[]", "f64[]").unwrap(), "c128[]");
    assert_eq!(
        binary(Opcode::Xor, "pred[2]", "pred[2]").unwrap(),
        "pred[2]"
    );
    assert_eq!(
        binary(Opcode::ShiftLeft, "u8[2]", "u8[2]").unwrap(),
        "u8[2]"
    );
    assert_eq!(binary(Opcode::Power, "s32[2]", "s32[2]").unwrap(), "s32[2]");
    let errors = [
        (Opcode::Add, "f32[2]", "s32[2]", "add: operand 1 s32[2] must have the element type of operand 0 f32[2]"),
        (Opcode::Subtract, "pred[2]", "pred[2]", "subtract: operand 0 pred[2] must have a numeric (not pred) element type"),
        (Opcode::Remainder, "c64[2]", "c64[2]", "remainder: operand 0 c64[2] must have a real numeric (not pred, not complex) element type"),
        (Opcode::Maximum, "c64[2]", "c64[2]", "maximum: operand 0 c64[2] must have a real (not complex) element type"),
        (Opcode::And, "f32[2]", "f32[2]", "and: operand 0 f32[2] must have a pred or integral element type"),
        (Opcode::ShiftRightLogical, "f32[2]", "f32[2]", "shift-right-logical: operand 0 f32[2] must have an integral element type"),
        (Opcode::Atan2, "s32[2]", "s32[2]", "atan2: operand 0 s32[2] must have a floating-point or complex element type"),
        (Opcode::Complex, "f16[2]", "f16[2]", "complex: operand 0 f16[2] must have an f32 or f64 element type"),
        (Opcode::Divide, "f32[2,3]", "f32[3,2]", "divide: shapes f32[2,3] and f32[3,2] are not compatible: dimension 0 is 2 in operand 0 but 3 in operand 1"),
    ];
    for (op, lhs, rhs, message) in errors {
        assert_eq!(binary(op, lhs, rhs).unwrap_err(), message, "{op}");
    }
    let row = infer::binary(Opcode::Add, &a("f32[2,3]"), &a("f32[3]"), Some(&[1])).unwrap();
    assert_eq!(row.to_string(), "f32[2,3]");
}

#[test]
fn compare_rules() {
    let cmp = |lhs: &str, rhs: &str, dir, ty| show(infer::compare(&a(lhs), &a(rhs), None, dir, ty));
    assert_eq!(cmp("f32[2]", "f32[2]", Dir::Lt, None).unwrap(), "pred[2]");
    assert_eq!(
        cmp(
            "f32[2]",
            "f32[2]",
            Dir::Lt,
            Some(ComparisonType::TotalOrder)
        )
        .unwrap(),
        "pred[2]"
    );
    assert_eq!(
        cmp("pred[]", "pred[]", Dir::Eq, Some(ComparisonType::Unsigned)).unwrap(),
        "pred[]"
    );
    assert_eq!(
        cmp("c64[2]", "c64[2]", Dir::Ne, Some(ComparisonType::Float)).unwrap(),
        "pred[2]"
    );
    assert_eq!(
        cmp(
            "s32[2]",
            "s32[2]",
            Dir::Lt,
            Some(ComparisonType::TotalOrder)
        )
        .unwrap_err(),
        "compare: comparison type TOTALORDER cannot compare s32 values"
    );
    assert_eq!(
        cmp("u8[2]", "u8[2]", Dir::Lt, Some(ComparisonType::Signed)).unwrap_err(),
        "compare: comparison type SIGNED cannot compare u8 values"
    );
    assert_eq!(
        cmp("c64[2]", "c64[2]", Dir::Lt, None).unwrap_err(),
        "compare: direction LT is not defined for c64; complex values only compare with EQ and NE"
    );
    assert_eq!(
        cmp("f32[2]", "f64[2]", Dir::Eq, None).unwrap_err(),
        "compare: operand 1 f64[2] must have the element type of operand 0 f32[2]"
    );
    assert_eq!(
        infer::default_comparison_type(PrimitiveType::U8),
        ComparisonType::Unsigned
    );
    assert_eq!(
        infer::default_comparison_type(PrimitiveType::S8),
        ComparisonType::Signed
    );
    assert_eq!(
        infer::default_comparison_type(PrimitiveType::Bf16),
        ComparisonType::Float
    );
}

#[test]
fn select_rules() {
    let sel = |p: &str, t: &str, f: &str| show(infer::select(&sh(p), &sh(t), &sh(f)));
    assert_eq!(sel("pred[4]", "s32[4]", "s32[4]").unwrap(), "s32[4]");
    assert_eq!(sel("pred[]", "s32[4]", "s32[4]").unwrap(), "s32[4]");
    assert_eq!(
        sel("pred[]", "(f32[2], s32[])", "(f32[2], s32[])").unwrap(),
        "(f32[2], s32[])"
    );
    assert_eq!(
        sel("pred[2]", "(f32[2], s32[])", "(f32[2], s32[])").unwrap_err(),
        "select: operand 0 must be a scalar, but is pred[2]"
    );
    assert_eq!(
        sel("s32[4]", "s32[4]", "s32[4]").unwrap_err(),
        "select: operand 0 s32[4] must have a pred element type"
    );
    assert_eq!(
        sel("pred[4]", "s32[4]", "s32[3]").unwrap_err(),
        "select: operand 2 s32[3] must have the same shape as operand 1 s32[4]"
    );
    assert_eq!(
        sel("pred[4]", "s32[4]", "f32[4]").unwrap_err(),
        "select: operand 2 f32[4] must have the same shape as operand 1 s32[4]"
    );
    assert_eq!(
        sel("pred[3]", "s32[4]", "s32[4]").unwrap_err(),
        "select: operand 0 pred[3] must be a scalar or have the dimensions of operand 1 s32[4]"
    );
    assert_eq!(
        sel("pred[]", "token[]", "token[]").unwrap_err(),
        "select: operand 1 must be an array or a tuple, but is token[]"
    );
    assert_eq!(
        sel("(pred[])", "s32[]", "s32[]").unwrap_err(),
        "select: operand 0 must be an array, but is (pred[])"
    );
}

#[test]
fn clamp_rules() {
    let clamp = |lo: &str, x: &str, hi: &str| show(infer::clamp(&a(lo), &a(x), &a(hi)));
    assert_eq!(clamp("s32[]", "s32[3]", "s32[]").unwrap(), "s32[3]");
    assert_eq!(clamp("s32[3]", "s32[3]", "s32[3]").unwrap(), "s32[3]");
    assert_eq!(
        clamp("f32[2]", "f32[3]", "f32[]").unwrap_err(),
        "clamp: operand 0 f32[2] must be a scalar or have the dimensions of operand 1 f32[3]"
    );
    assert_eq!(
        clamp("f32[]", "f32[3]", "f64[]").unwrap_err(),
        "clamp: operand 2 f64[] must have the element type of operand 1 f32[3]"
    );
}

#[test]
fn convert_rules() {
    assert_eq!(
        show(infer::convert(&a("s32[3]{0}"), PrimitiveType::F32)).unwrap(),
        "f32[3]"
    );
    assert_eq!(
        show(infer::convert(&a("c64[3]"), PrimitiveType::F32)).unwrap(),
        "f32[3]"
    );
    assert_eq!(
        show(infer::convert(&a("c64[3]"), PrimitiveType::Pred)).unwrap_err(),
        "convert: cannot convert c64 to pred: a complex value has no truth value"
    );
}

#[test]
fn bitcast_convert_rules() {
    let bc = |x: &str, to| show(infer::bitcast_convert(&a(x), to));
    assert_eq!(bc("f32[10]", PrimitiveType::S32).unwrap(), "s32[10]");
    assert_eq!(bc("f32[10]", PrimitiveType::F16).unwrap(), "f16[10,2]");
    assert_eq!(bc("f32[]", PrimitiveType::F16).unwrap(), "f16[2]");
    assert_eq!(bc("s32[]", PrimitiveType::S8).unwrap(), "s8[4]");
    assert_eq!(bc("f16[10,2]", PrimitiveType::F32).unwrap(), "f32[10]");
    assert_eq!(bc("c128[3]", PrimitiveType::C64).unwrap(), "c64[3,2]");
    assert_eq!(
        bc("f16[10,3]", PrimitiveType::F32).unwrap_err(),
        "bitcast-convert: converting operand 0 f16[10,3] to f32 needs a last dimension of size 2"
    );
    assert_eq!(
        bc("f16[]", PrimitiveType::F32).unwrap_err(),
        "bitcast-convert: converting operand 0 f16[] to f32 needs a last dimension of size 2"
    );
    assert_eq!(
        bc("c64[2]", PrimitiveType::F64).unwrap_err(),
        "bitcast-convert: cannot convert c64 to f64: \
         complex and real types cannot be reinterpreted as each other"
    );
    // Fuzzing found the JIT reading any nonzero byte as true and the
    // interpreter refusing the literal at run time.
    assert_eq!(
        bc("s32[6]", PrimitiveType::Pred).unwrap_err(),
        "bitcast-convert: cannot convert s32 to pred: \
         a pred holds only the bytes 0 and 1; compare with zero instead"
    );
    assert_eq!(bc("pred[6]", PrimitiveType::Pred).unwrap(), "pred[6]");
    assert_eq!(bc("pred[4]", PrimitiveType::S32).unwrap(), "s32[]");
}

#[test]
fn reduce_precision_rules() {
    let rp = |x: &str, e, m| show(infer::reduce_precision(&a(x), e, m));
    assert_eq!(rp("f32[3]", 5, 10).unwrap(), "f32[3]");
    assert_eq!(rp("f32[3]", 8, 0).unwrap(), "f32[3]");
    assert_eq!(
        rp("s32[3]", 5, 10).unwrap_err(),
        "reduce-precision: operand 0 s32[3] must have a floating-point element type"
    );
    assert_eq!(
        rp("f32[3]", 0, 10).unwrap_err(),
        "reduce-precision: exponent_bits = 0 is invalid: \
         at least one exponent bit is needed to tell 0 from infinity"
    );
    assert_eq!(
        rp("f32[3]", 5, -1).unwrap_err(),
        "reduce-precision: mantissa_bits = -1 is invalid: the mantissa width cannot be negative"
    );
}

#[test]
fn map_rules() {
    let map = |operands: &[&str], f: &str, dims: &[i64]| {
        let arrays: Vec<ArrayShape> = operands.iter().map(|o| a(o)).collect();
        let refs: Vec<&ArrayShape> = arrays.iter().collect();
        let program = program(f);
        show(infer::map(&refs, Signature::from(&program), dims))
    };
    assert_eq!(
        map(
            &["f32[2,3]", "s32[2,3]"],
            "(f32[], s32[]) -> pred[]",
            &[0, 1]
        )
        .unwrap(),
        "pred[2,3]"
    );
    assert_eq!(
        map(
            &["f32[2,3]", "f32[3,2]"],
            "(f32[], f32[]) -> f32[]",
            &[0, 1]
        )
        .unwrap_err(),
        "map: operand 1 f32[3,2] must have the same dimensions as operand 0 f32[2,3]"
    );
    assert_eq!(
        map(&["f32[2,3]"], "(f32[]) -> f32[]", &[1, 0]).unwrap_err(),
        "map: dimensions = {1,0} is invalid: \
         map applies to every element, so it must list every dimension in order"
    );
    assert_eq!(
        map(&["f32[2]"], "(f32[], f32[]) -> f32[]", &[0]).unwrap_err(),
        "map: to_apply must take 1 parameter, but takes 2"
    );
    assert_eq!(
        map(&["f32[2]"], "(s32[]) -> f32[]", &[0]).unwrap_err(),
        "map: parameter 0 of to_apply must be f32[], but is s32[]"
    );
    assert_eq!(
        map(&["f32[2]"], "(f32[]) -> f32[2]", &[0]).unwrap_err(),
        "map: to_apply must return a scalar, but returns f32[2]"
    );
    assert_eq!(
        map(&[], "() -> f32[]", &[]).unwrap_err(),
        "map: expected at least 1 operand, got 0"
    );
}

#[test]
fn symbolic_generic_path() {
    let x = ArrayShape::new(
        PrimitiveType::F32,
        [SymDim::symbol("B"), SymDim::symbol("N")],
    );
    let y = infer::unary(Opcode::Tanh, &x).unwrap();
    assert_eq!(y.to_string(), "f32[B, N]");
    let bits = infer::bitcast_convert(&x, PrimitiveType::Bf16).unwrap();
    assert_eq!(bits.to_string(), "bf16[B, N, 2]");
    let lt = infer::compare(&x, &x, None, Dir::Lt, None).unwrap();
    assert_eq!(lt.to_string(), "pred[B, N]");
    let one = ArrayShape::new(
        PrimitiveType::F32,
        [SymDim::constant(1), SymDim::symbol("N")],
    );
    let sum = infer::binary(Opcode::Add, &one, &x, None).unwrap();
    assert_eq!(sum.to_string(), "f32[B, N]");
}
