//! The concrete adapter `infer_instruction`: attribute reading, operand and
//! called-computation counts, shapes that HLO carries in the instruction.

use xla_core::hlo::{
    Attrs, ComparisonDirection, DotDimensionNumbers, Opcode, ProgramShape, RngAlgorithm,
};
use xla_core::infer::infer_instruction;
use xla_core::{Literal, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

fn program(params: &[&str], result: &str) -> ProgramShape {
    ProgramShape {
        parameters: params.iter().map(|p| sh(p)).collect(),
        result: sh(result),
    }
}

/// Infers with operands, attributes, called computations and the declared
/// shape given as text.
fn infer(
    op: Opcode,
    operands: &[&str],
    attrs: &Attrs,
    called: &[ProgramShape],
    declared: &str,
) -> Result<String, String> {
    let shapes: Vec<Shape> = operands.iter().map(|o| sh(o)).collect();
    let refs: Vec<&Shape> = shapes.iter().collect();
    infer_instruction(op, &refs, attrs, called, &sh(declared))
        .map(|s| s.to_string())
        .map_err(|e| e.to_string())
}

fn dims(d: &[i64]) -> Attrs {
    Attrs {
        dimensions: Some(d.to_vec()),
        ..Attrs::default()
    }
}

#[test]
fn operand_and_attribute_errors() {
    let none = Attrs::default();
    assert_eq!(
        infer(Opcode::Add, &["f32[2]"], &none, &[], "f32[2]").unwrap_err(),
        "add: expected 2 operands, got 1"
    );
    let add = program(&["f32[]", "f32[]"], "f32[]");
    assert_eq!(
        infer(
            Opcode::Reduce,
            &["f32[2]", "f32[]"],
            &none,
            std::slice::from_ref(&add),
            "f32[]"
        )
        .unwrap_err(),
        "reduce: missing attribute dimensions"
    );
    assert_eq!(
        infer(
            Opcode::Compare,
            &["f32[2]", "f32[2]"],
            &none,
            &[],
            "pred[2]"
        )
        .unwrap_err(),
        "compare: missing attribute direction"
    );
    assert_eq!(
        infer(
            Opcode::Concatenate,
            &["f32[2]", "f32[2]"],
            &dims(&[0, 0]),
            &[],
            "f32[4]"
        )
        .unwrap_err(),
        "concatenate: dimensions = {0,0} is invalid: it must name exactly one dimension"
    );
    assert_eq!(
        infer(
            Opcode::Add,
            &["f32[2]", "f32[2]"],
            &none,
            std::slice::from_ref(&add),
            "f32[2]"
        )
        .unwrap_err(),
        "add: expected 0 called computations, got 1"
    );
    assert_eq!(
        infer(Opcode::While, &["s32[]"], &none, &[add], "s32[]").unwrap_err(),
        "while: expected 2 called computations, got 1"
    );
    assert_eq!(
        infer(Opcode::Negate, &["(f32[2])"], &none, &[], "f32[2]").unwrap_err(),
        "negate: operand 0 must be an array, but is (f32[2])"
    );
    assert_eq!(
        infer(Opcode::Parameter, &[], &none, &[], "f32[2]").unwrap_err(),
        "parameter: missing attribute parameter number"
    );
}

#[test]
fn elementwise_operands_must_match_in_hlo() {
    let none = Attrs::default();
    assert_eq!(
        infer(
            Opcode::Add,
            &["f32[2,3]{0,1}", "f32[2,3]"],
            &none,
            &[],
            "f32[2,3]"
        )
        .unwrap(),
        "f32[2,3]"
    );
    assert_eq!(
        infer(Opcode::Add, &["f32[2,1]", "f32[2,3]"], &none, &[], "f32[2,3]").unwrap_err(),
        "add: shapes f32[2,1] and f32[2,3] are not compatible: dimension 1 is 1 in operand 0 but 3 in operand 1"
    );
    assert_eq!(
        infer(Opcode::Multiply, &["f32[]", "f32[3]"], &none, &[], "f32[3]").unwrap_err(),
        "multiply: operand 1 f32[3] has rank 1, but operand 0 f32[] has rank 0"
    );
    let lt = Attrs {
        comparison_direction: Some(ComparisonDirection::Lt),
        ..Attrs::default()
    };
    assert_eq!(
        infer(Opcode::Compare, &["s32[4]", "s32[4]"], &lt, &[], "pred[4]").unwrap(),
        "pred[4]"
    );
}

#[test]
fn shapes_carried_by_the_instruction() {
    let none = Attrs::default();
    // As JAX prints softmax: a reshape to [4096,1], then broadcast(…), dimensions={0}.
    assert_eq!(
        infer(
            Opcode::Reshape,
            &["f32[4096]"],
            &none,
            &[],
            "f32[4096,1]{1,0}"
        )
        .unwrap(),
        "f32[4096,1]"
    );
    assert_eq!(
        infer(
            Opcode::Broadcast,
            &["f32[4096]"],
            &dims(&[0]),
            &[],
            "f32[4096,1024]{1,0}"
        )
        .unwrap(),
        "f32[4096,1024]"
    );
    assert_eq!(
        infer(
            Opcode::Broadcast,
            &["f32[]"],
            &dims(&[]),
            &[],
            "f32[4096,1]"
        )
        .unwrap(),
        "f32[4096,1]"
    );
    assert_eq!(
        infer(Opcode::Reshape, &["f32[6]"], &none, &[], "f32[4]").unwrap_err(),
        "reshape: operand 0 f32[6] has 6 elements, but f32[4] has 4"
    );
    assert_eq!(
        infer(Opcode::Convert, &["s32[3]"], &none, &[], "f32[3]").unwrap(),
        "f32[3]"
    );
    assert_eq!(
        infer(Opcode::BitcastConvert, &["f32[3]"], &none, &[], "u8[3,4]").unwrap(),
        "u8[3,4]"
    );
    assert_eq!(
        infer(Opcode::Convert, &["s32[3]"], &none, &[], "(f32[3])").unwrap_err(),
        "convert: the instruction's shape (f32[3]) must be an array"
    );
    let iota = Attrs {
        iota_dimension: Some(1),
        ..Attrs::default()
    };
    assert_eq!(
        infer(Opcode::Iota, &[], &iota, &[], "s32[4,8]").unwrap(),
        "s32[4,8]"
    );
    assert_eq!(
        infer(
            Opcode::Infeed,
            &["token[]"],
            &none,
            &[],
            "(f32[2]{0}, token[])"
        )
        .unwrap(),
        "(f32[2], token[])"
    );
    assert_eq!(
        infer(Opcode::Infeed, &["token[]"], &none, &[], "f32[2]").unwrap_err(),
        "infeed: the instruction's shape f32[2] must be a tuple (data, token[])"
    );
    assert_eq!(
        infer(
            Opcode::Recv,
            &["token[]"],
            &none,
            &[],
            "(f32[2], u32[], token[])"
        )
        .unwrap(),
        "(f32[2], u32[], token[])"
    );
    let state = infer(
        Opcode::RngBitGenerator,
        &["u64[3]"],
        &none,
        &[],
        "(u64[3], u32[8])",
    );
    assert_eq!(state.unwrap(), "(u64[3], u32[8])");
    let three_fry = Attrs {
        rng_algorithm: Some(RngAlgorithm::ThreeFry),
        ..Attrs::default()
    };
    assert_eq!(
        infer(Opcode::RngBitGenerator, &["u64[3]"], &three_fry, &[], "(u64[3], u32[8])").unwrap_err(),
        "rng-bit-generator: rng_three_fry needs an initial state of shape u64[2], but operand 0 is u64[3]"
    );
    let param = Attrs {
        parameter_number: Some(0),
        ..Attrs::default()
    };
    assert_eq!(
        infer(Opcode::Parameter, &[], &param, &[], "f32[2]{0}").unwrap(),
        "f32[2]"
    );
    assert_eq!(
        infer(Opcode::CustomCall, &["f32[2]"], &none, &[], "s8[9]").unwrap(),
        "s8[9]"
    );
    let constant = Attrs {
        literal: Some(Literal::vector(&[1.0f32, 2.0])),
        ..Attrs::default()
    };
    assert_eq!(
        infer(Opcode::Constant, &[], &constant, &[], "f32[7]").unwrap(),
        "f32[2]"
    );
    assert_eq!(
        infer(Opcode::Constant, &[], &none, &[], "f32[2]").unwrap_err(),
        "constant: missing attribute literal"
    );
}

#[test]
fn collectives_find_their_shard_count() {
    let gather = dims(&[0]);
    assert_eq!(
        infer(Opcode::AllGather, &["f32[2,3]"], &gather, &[], "f32[8,3]").unwrap(),
        "f32[8,3]"
    );
    let grouped = Attrs {
        replica_groups: Some(vec![vec![0, 1], vec![2, 3]]),
        ..dims(&[0])
    };
    assert_eq!(
        infer(Opcode::AllGather, &["f32[2,3]"], &grouped, &[], "f32[8,3]").unwrap(),
        "f32[4,3]"
    );
    let add = program(&["f32[]", "f32[]"], "f32[]");
    let scatter = infer(
        Opcode::ReduceScatter,
        &["f32[8]"],
        &dims(&[0]),
        std::slice::from_ref(&add),
        "f32[2]",
    );
    assert_eq!(scatter.unwrap(), "f32[2]");
    let four = Attrs {
        replica_groups: Some(vec![vec![0, 1, 2, 3]]),
        ..dims(&[0])
    };
    assert_eq!(
        infer(Opcode::ReduceScatter, &["f32[6]"], &four, &[add], "f32[2]").unwrap_err(),
        "reduce-scatter: dimension 0 of operand 0 f32[6] has size 6, which is not a multiple of shard_count 4"
    );
    let a2a = Attrs {
        replica_groups: Some(vec![vec![0, 1, 2]]),
        ..dims(&[1])
    };
    assert_eq!(
        infer(Opcode::AllToAll, &["f32[4,4]"], &a2a, &[], "f32[4,4]").unwrap_err(),
        "all-to-all: dimension 1 of operand 0 f32[4,4] has size 4, \
         which is not a multiple of the replica group size 3"
    );
    assert_eq!(
        infer(
            Opcode::AllToAll,
            &["f32[4]", "f32[4]"],
            &Attrs::default(),
            &[],
            "(f32[4], f32[4])"
        )
        .unwrap(),
        "(f32[4], f32[4])"
    );
}

#[test]
fn defaults_for_optional_attributes() {
    let none = Attrs::default();
    assert_eq!(
        infer(Opcode::Dot, &["f32[2]", "f32[3]"], &none, &[], "f32[2,3]").unwrap(),
        "f32[2,3]"
    );
    let matmul = Attrs {
        dot_dims: Some(DotDimensionNumbers {
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
            ..Default::default()
        }),
        ..Attrs::default()
    };
    assert_eq!(
        infer(
            Opcode::Dot,
            &["f32[2,3]", "f32[3,4]"],
            &matmul,
            &[],
            "f32[2,4]"
        )
        .unwrap(),
        "f32[2,4]"
    );
    let pred = program(&["f32[]"], "pred[]");
    let body = program(&["f32[]"], "f32[]");
    assert_eq!(
        infer(Opcode::While, &["f32[]"], &none, &[pred, body], "f32[]").unwrap(),
        "f32[]"
    );
    let negate = program(&["f32[]"], "f32[]");
    assert_eq!(
        infer(Opcode::Map, &["f32[2,3]"], &none, &[negate], "f32[2,3]").unwrap(),
        "f32[2,3]"
    );
    let calls = program(&["f32[2]"], "f32[2]");
    assert_eq!(
        infer(Opcode::CustomCall, &["f32[2]"], &none, &[calls], "f32[2]").unwrap(),
        "f32[2]"
    );
}

/// Every opcode, with operands of many shapes and counts, returns a result
/// or an error and never panics.
#[test]
fn no_opcode_panics_on_odd_input() {
    let operand_sets: &[&[&str]] = &[
        &[],
        &["f32[]"],
        &["f32[2]", "f32[2]"],
        &["s32[]", "s32[]", "s32[]"],
        &["(f32[], s32[])"],
        &["token[]", "token[]"],
        &["f32[2,3]", "f32[]", "f32[2,3]", "f32[]", "f32[2,3]"],
    ];
    let attrs = [
        Attrs::default(),
        Attrs {
            dimensions: Some(vec![0]),
            slice: Some(vec![]),
            padding: Some(vec![]),
            window: Some(Default::default()),
            feature_index: Some(0),
            tuple_index: Some(0),
            k: Some(1),
            ..Attrs::default()
        },
    ];
    let called = [
        vec![],
        vec![program(&["f32[]", "f32[]"], "f32[]")],
        vec![program(&["f32[]"], "pred[]"), program(&["f32[]"], "f32[]")],
    ];
    let declared = [sh("f32[2]"), sh("(f32[2], token[])"), sh("token[]")];
    for &op in Opcode::ALL {
        for operands in operand_sets {
            let shapes: Vec<Shape> = operands.iter().map(|o| sh(o)).collect();
            let refs: Vec<&Shape> = shapes.iter().collect();
            for a in &attrs {
                for c in &called {
                    for d in &declared {
                        let _ = infer_instruction(op, &refs, a, c, d);
                    }
                }
            }
        }
    }
}

/// A custom call's `operand_layout_constraints` give one shape per operand,
/// each the operand's (fuzzing found layout assignment trusting them and
/// copying an operand into a constraint of another shape).
#[test]
fn custom_call_layout_constraints_match_the_operands() {
    let constrained = |shapes: &[&str]| Attrs {
        custom_call_target: Some("lapack_strsm_ffi".into()),
        operand_layout_constraints: Some(shapes.iter().map(|s| sh(s)).collect()),
        ..Attrs::default()
    };
    let operands = ["f32[5,3]{1,0}", "f32[5,5]{1,0}"];
    assert_eq!(
        infer(
            Opcode::CustomCall,
            &operands,
            &constrained(&["f32[5,3]{0,1}", "f32[5,5]{0,1}"]),
            &[],
            "f32[5,3]{0,1}"
        ),
        Ok("f32[5,3]".to_string())
    );
    assert_eq!(
        infer(
            Opcode::CustomCall,
            &operands,
            &constrained(&["f32[5,5]{0,1}", "f32[5,3]{0,1}"]),
            &[],
            "f32[5,3]{0,1}"
        )
        .unwrap_err(),
        "custom-call: operand_layout_constraints[0] is f32[5,5], but operand 0 is f32[5,3]"
    );
    assert_eq!(
        infer(
            Opcode::CustomCall,
            &operands,
            &constrained(&["f32[5,3]{0,1}"]),
            &[],
            "f32[5,3]{0,1}"
        )
        .unwrap_err(),
        "custom-call: operand_layout_constraints has 1 entry, but the number of operands is 2"
    );
}
