//! The module verifier: a valid module passes, and each broken invariant
//! gives its error.

use xla_core::hlo::{
    ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode, ProgramShape,
};
use xla_core::layout::Layout;
use xla_core::verify::{verify_module, VerifyError};
use xla_core::{ArrayShape, Literal, PrimitiveType, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

/// `f32[4,8]` with a `minor_to_major` the text parser would reject.
fn bad_layout(minor_to_major: &[i64]) -> Shape {
    ArrayShape::new(PrimitiveType::F32, [4, 8])
        .with_layout(Layout::new(minor_to_major))
        .into()
}

fn instr(name: &str, opcode: Opcode, shape: &str, operands: &[u32]) -> HloInstruction {
    HloInstruction::new(
        name,
        opcode,
        sh(shape),
        operands.iter().map(|&i| InstrId(i)).collect(),
    )
}

fn param(name: &str, number: i64, shape: &str) -> HloInstruction {
    let mut p = instr(name, Opcode::Parameter, shape, &[]);
    p.attrs.parameter_number = Some(number);
    p
}

fn computation(name: &str, instructions: Vec<HloInstruction>) -> HloComputation {
    let root = InstrId(instructions.len() as u32 - 1);
    HloComputation {
        name: name.to_string(),
        instructions,
        root,
    }
}

fn module(computations: Vec<HloComputation>) -> HloModule {
    let entry = ComputationId(computations.len() as u32 - 1);
    HloModule::new("m", computations, entry)
}

/// `add(a, b)` over two `f32[]` parameters.
fn adder(name: &str, prefix: &str) -> HloComputation {
    computation(
        name,
        vec![
            param(&format!("{prefix}.0"), 0, "f32[]"),
            param(&format!("{prefix}.1"), 1, "f32[]"),
            instr(&format!("{prefix}.2"), Opcode::Add, "f32[]", &[0, 1]),
        ],
    )
}

/// A row sum: `reduce(x, 0), dimensions={1}, to_apply=region`.
fn row_sum() -> HloModule {
    let mut zero = instr("zero.2", Opcode::Constant, "f32[]", &[]);
    zero.attrs.literal = Some(Literal::scalar(0f32));
    let mut sum = instr("sum.3", Opcode::Reduce, "f32[4]{0}", &[0, 1]);
    sum.attrs.dimensions = Some(vec![1]);
    sum.called = vec![ComputationId(0)];
    let main = computation("main", vec![param("x.1", 0, "f32[4,8]{1,0}"), zero, sum]);
    module(vec![adder("region", "r"), main])
}

fn err(m: &HloModule) -> String {
    verify_module(m).unwrap_err().to_string()
}

#[test]
fn valid_module_passes() {
    let mut m = row_sum();
    verify_module(&m).unwrap();
    m.entry_layout = Some(ProgramShape {
        parameters: vec![sh("f32[4,8]{0,1}")],
        result: sh("f32[4]{0}"),
    });
    verify_module(&m).unwrap();
}

#[test]
fn shape_mismatch() {
    let main = computation(
        "main",
        vec![
            param("x.1", 0, "f32[2,3]"),
            param("y.2", 1, "f32[2,3]"),
            instr("mul.3", Opcode::Multiply, "f32[3,2]{1,0}", &[0, 1]),
        ],
    );
    assert_eq!(
        err(&module(vec![main])),
        "instruction mul.3 (multiply): inferred f32[2,3] but the instruction says f32[3,2]"
    );
}

#[test]
fn broken_rule() {
    let main = computation(
        "main",
        vec![
            param("x.1", 0, "f32[2]"),
            param("y.2", 1, "s32[2]"),
            instr("add.3", Opcode::Add, "f32[2]", &[0, 1]),
        ],
    );
    let m = module(vec![main]);
    assert_eq!(
        err(&m),
        "instruction add.3: add: operand 1 s32[2] must have the element type of operand 0 f32[2]"
    );
    assert!(matches!(verify_module(&m), Err(VerifyError::Infer { .. })));
}

#[test]
fn called_signature_is_checked() {
    let mut m = row_sum();
    m.computations[0] = computation(
        "region",
        vec![
            param("r.0", 0, "s32[]"),
            param("r.1", 1, "s32[]"),
            instr("r.2", Opcode::Add, "s32[]", &[0, 1]),
        ],
    );
    assert_eq!(
        err(&m),
        "instruction sum.3: reduce: parameter 0 of to_apply must be f32[], but is s32[]"
    );
}

#[test]
fn names_are_unique() {
    let mut m = row_sum();
    m.computations[1].instructions[0].name = "r.1".to_string();
    verify_module(&m).expect("a name may be reused in another computation");
    m.computations[1].instructions[1].name = "r.1".to_string();
    assert_eq!(
        err(&m),
        "instruction name r.1 is used twice in computation main"
    );
    let mut m = row_sum();
    m.computations[1].name = "region".to_string();
    assert_eq!(err(&m), "two computations are named region");
}

#[test]
fn operands_come_before_users() {
    let mut m = row_sum();
    m.computations[1].instructions[2].operands = vec![InstrId(0), InstrId(2)];
    assert_eq!(
        err(&m),
        "instruction sum.3: operand 1 refers to #2, which is not an earlier instruction \
         of computation main"
    );
}

#[test]
fn parameter_numbers() {
    let gap = computation(
        "main",
        vec![
            param("x.1", 0, "f32[]"),
            param("y.2", 2, "f32[]"),
            instr("add.3", Opcode::Add, "f32[]", &[0, 1]),
        ],
    );
    assert_eq!(
        err(&module(vec![gap])),
        "parameter y.2 of computation main has number 2, \
         but the computation has 2 parameters (numbered from 0)"
    );
    let twice = computation(
        "main",
        vec![
            param("x.1", 0, "f32[]"),
            param("y.2", 0, "f32[]"),
            instr("add.3", Opcode::Add, "f32[]", &[0, 1]),
        ],
    );
    assert_eq!(
        err(&module(vec![twice])),
        "parameters x.1 and y.2 of computation main both have number 0"
    );
    let unnumbered = computation("main", vec![instr("x.1", Opcode::Parameter, "f32[]", &[])]);
    assert_eq!(
        err(&module(vec![unnumbered])),
        "instruction x.1: parameter: missing attribute parameter number"
    );
}

#[test]
fn entry_layout() {
    let mut m = row_sum();
    m.entry_layout = Some(ProgramShape {
        parameters: vec![],
        result: sh("f32[4]"),
    });
    assert_eq!(
        err(&m),
        "entry_computation_layout has 0 parameters, but the entry computation has 1"
    );
    m.entry_layout = Some(ProgramShape {
        parameters: vec![sh("f32[8,4]{1,0}")],
        result: sh("f32[4]"),
    });
    assert_eq!(
        err(&m),
        "entry_computation_layout gives parameter 0 the shape f32[8,4]{1,0}, \
         but the entry computation has f32[4,8]{1,0}"
    );
    m.entry_layout = Some(ProgramShape {
        parameters: vec![sh("f32[4,8]{1,0}")],
        result: sh("f32[5]{0}"),
    });
    assert_eq!(
        err(&m),
        "entry_computation_layout gives the result the shape f32[5]{0}, \
         but the entry computation has f32[4]{0}"
    );
    m.entry_layout = Some(ProgramShape {
        parameters: vec![bad_layout(&[1, 1])],
        result: sh("f32[4]{0}"),
    });
    assert_eq!(
        err(&m),
        "entry_computation_layout: the layout of f32[4,8]{1,1} is invalid: \
         layout {1,1}: minor_to_major is not a permutation of 0..2"
    );
}

#[test]
fn instruction_layouts_must_fit() {
    let mut m = row_sum();
    m.computations[1].instructions[0].shape = bad_layout(&[0]);
    assert_eq!(
        err(&m),
        "instruction x.1: the layout of f32[4,8]{0} is invalid: \
         layout {0} has 1 entries in minor_to_major but the array has rank 2"
    );
}

#[test]
fn called_computations_exist_and_do_not_recurse() {
    let mut m = row_sum();
    m.computations[1].instructions[2].called = vec![ComputationId(7)];
    assert_eq!(
        err(&m),
        "instruction sum.3 calls computation #7, which does not exist"
    );

    // region calls itself through `call`.
    let mut m = row_sum();
    let mut call = instr("r.3", Opcode::Call, "f32[]", &[0, 1]);
    call.called = vec![ComputationId(0)];
    m.computations[0].instructions.push(call);
    assert_eq!(
        err(&m),
        "computations call each other in a cycle: region -> region"
    );

    // a -> b -> a.
    let mut a_calls_b = instr("a.1", Opcode::Call, "f32[]", &[0]);
    a_calls_b.called = vec![ComputationId(1)];
    let mut b_calls_a = instr("b.1", Opcode::Call, "f32[]", &[0]);
    b_calls_a.called = vec![ComputationId(0)];
    let a = computation("a", vec![param("a.0", 0, "f32[]"), a_calls_b]);
    let b = computation("b", vec![param("b.0", 0, "f32[]"), b_calls_a]);
    let mut main_call = instr("main.1", Opcode::Call, "f32[]", &[0]);
    main_call.called = vec![ComputationId(0)];
    let main = computation("main", vec![param("main.0", 0, "f32[]"), main_call]);
    assert_eq!(
        err(&module(vec![a, b, main])),
        "computations call each other in a cycle: a -> b -> a"
    );
}

#[test]
fn roots_and_entry_exist() {
    let mut m = row_sum();
    m.computations[1].root = InstrId(9);
    assert_eq!(
        err(&m),
        "the root #9 of computation main does not exist (it has 3 instructions)"
    );
    let mut m = row_sum();
    m.computations[0].instructions.clear();
    assert_eq!(err(&m), "computation region has no instructions");
    let mut m = row_sum();
    m.entry = ComputationId(2);
    assert_eq!(
        err(&m),
        "the entry computation #2 does not exist (the module has 2)"
    );
}

#[test]
fn dot_and_convolution_results_may_take_a_preferred_element_type() {
    let module: HloModule = "HloModule m\n\nENTRY e {\n  a = bf16[4,3]{1,0} parameter(0)\n  \
        b = bf16[3,2]{1,0} parameter(1)\n  \
        d = f32[4,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
        i = s8[1,2,5]{2,1,0} parameter(2)\n  k = s8[3,2,2]{2,1,0} parameter(3)\n  \
        c = s32[1,3,4]{2,1,0} convolution(i, k), window={size=2}, dim_labels=bf0_oi0->bf0\n  \
        ROOT t = (f32[4,2]{1,0}, s32[1,3,4]{2,1,0}) tuple(d, c)\n}\n"
        .parse()
        .unwrap();
    verify_module(&module).unwrap();
    let narrow: HloModule = module
        .to_string()
        .replace("s8[1,2,5]", "s32[1,2,5]")
        .replace("s8[3,2,2]", "s32[3,2,2]")
        .replace("s32[1,3,4]", "s8[1,3,4]")
        .parse()
        .unwrap();
    assert_eq!(
        verify_module(&narrow).unwrap_err().to_string(),
        "instruction c: convolution: preferred element type s8 must not be narrower than the operands' s32"
    );
}

/// XLA's `TopK` custom call is checked as the `topk` it computes: a `k`
/// beyond the operand's last dimension is an error that names it (it was
/// found only once the simplifier had renamed it into a `topk`).
#[test]
fn topk_custom_call_is_checked_as_topk() {
    let topk = |k: i64| {
        let mut t = instr(
            "t",
            Opcode::CustomCall,
            &format!("(f32[{k}], s32[{k}])"),
            &[0],
        );
        t.attrs.custom_call_target = Some("TopK".into());
        module(vec![computation("main", vec![param("a", 0, "f32[3]"), t])])
    };
    verify_module(&topk(3)).unwrap();
    assert_eq!(
        err(&topk(5)),
        "instruction t: topk: k = 5 exceeds the size 3 of dimension 0 of operand 0 f32[3]"
    );
}
