//! `BatchNormExpander`: the expansion computes what the interpreter computes
//! for batch norm directly (`docs/semantics.md`, *Batch normalisation*), for every float type,
//! feature dimension and op, and leaves no batch-norm instruction behind.

use crate::passes_support;

use passes_support::{parse, unchanged};
use xla_core::hlo::Opcode;
use xla_core::interp::Interpreter;
use xla_core::passes::{run_pass, BatchNormExpander, Changed};
use xla_core::{HloModule, Literal, PrimitiveType};

/// Every result element as `f64` (tuple elements concatenated in order).
fn results(module: &HloModule, args: &[Literal]) -> Vec<Vec<f64>> {
    let args: Vec<&Literal> = args.iter().collect();
    let out = Interpreter::new()
        .run(module, &args)
        .unwrap_or_else(|e| panic!("{e}\n{module}"));
    let leaves = match out.tuple_elements() {
        Some(elements) => elements.to_vec(),
        None => vec![out],
    };
    leaves
        .iter()
        .map(|l| l.convert(PrimitiveType::F64).unwrap().to_vec().unwrap())
        .collect()
}

/// The module after the expander, which must report a change and remove
/// every batch norm.
fn expanded(text: &str) -> HloModule {
    let mut module = parse(text);
    let changed = run_pass(&mut BatchNormExpander, &mut module, true).unwrap();
    assert_eq!(changed, Changed::Yes);
    let printed = module.to_string();
    assert!(!printed.contains("batch-norm"), "{printed}");
    for computation in &module.computations {
        for instr in &computation.instructions {
            assert!(!matches!(
                instr.opcode,
                Opcode::BatchNormGrad | Opcode::BatchNormInference | Opcode::BatchNormTraining
            ));
        }
    }
    module
}

/// Runs `text` through the interpreter before and after expansion and
/// asserts every element agrees within `tolerance` (relative to the
/// element's magnitude, at least 1).
#[track_caller]
fn check(text: &str, args: &[Literal], tolerance: f64) {
    let direct = results(&parse(text), args);
    let expanded = results(&expanded(text), args);
    assert_eq!(direct.len(), expanded.len());
    for (k, (d, e)) in direct.iter().zip(&expanded).enumerate() {
        assert_eq!(d.len(), e.len(), "result {k}");
        for (i, (a, b)) in d.iter().zip(e).enumerate() {
            let bound = tolerance * a.abs().max(1.0);
            assert!(
                (a - b).abs() <= bound,
                "result {k} element {i}: interpreter {a}, expanded {b}\n{text}"
            );
        }
    }
}

/// `n` deterministic values in `[lo, hi)` (a linear congruential sequence).
fn values(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((state >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}

fn array(ty: PrimitiveType, dims: &[i64], seed: u64, lo: f32, hi: f32) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    Literal::from_vec(dims, values(n, seed, lo, hi))
        .unwrap()
        .convert(ty)
        .unwrap()
}

fn shape(ty: PrimitiveType, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{}[{}]", ty.name(), dims.join(","))
}

fn training(
    ty: PrimitiveType,
    dims: &[i64],
    feature: usize,
    epsilon: f32,
) -> (String, Vec<Literal>) {
    let (x, c) = (shape(ty, dims), shape(ty, &[dims[feature]]));
    let text = format!(
        "HloModule m\n\nENTRY e {{\n  x = {x} parameter(0)\n  g = {c} parameter(1)\n  \
         b = {c} parameter(2)\n  ROOT t = ({x}, {c}, {c}) batch-norm-training(x, g, b), \
         epsilon={epsilon}, feature_index={feature}\n}}\n"
    );
    let cs = [dims[feature]];
    let args = vec![
        array(ty, dims, 1, -2.0, 3.0),
        array(ty, &cs, 2, 0.5, 2.0),
        array(ty, &cs, 3, -1.0, 1.0),
    ];
    (text, args)
}

fn inference(
    ty: PrimitiveType,
    dims: &[i64],
    feature: usize,
    epsilon: f32,
) -> (String, Vec<Literal>) {
    let (x, c) = (shape(ty, dims), shape(ty, &[dims[feature]]));
    let text = format!(
        "HloModule m\n\nENTRY e {{\n  x = {x} parameter(0)\n  g = {c} parameter(1)\n  \
         b = {c} parameter(2)\n  m = {c} parameter(3)\n  v = {c} parameter(4)\n  \
         ROOT y = {x} batch-norm-inference(x, g, b, m, v), epsilon={epsilon}, \
         feature_index={feature}\n}}\n"
    );
    let cs = [dims[feature]];
    let args = vec![
        array(ty, dims, 4, -2.0, 3.0),
        array(ty, &cs, 5, 0.5, 2.0),
        array(ty, &cs, 6, -1.0, 1.0),
        array(ty, &cs, 7, -0.5, 0.5),
        array(ty, &cs, 8, 0.5, 3.0),
    ];
    (text, args)
}

fn grad(ty: PrimitiveType, dims: &[i64], feature: usize, epsilon: f32) -> (String, Vec<Literal>) {
    let (x, c) = (shape(ty, dims), shape(ty, &[dims[feature]]));
    let text = format!(
        "HloModule m\n\nENTRY e {{\n  x = {x} parameter(0)\n  g = {c} parameter(1)\n  \
         m = {c} parameter(2)\n  v = {c} parameter(3)\n  dy = {x} parameter(4)\n  \
         ROOT t = ({x}, {c}, {c}) batch-norm-grad(x, g, m, v, dy), epsilon={epsilon}, \
         feature_index={feature}\n}}\n"
    );
    let cs = [dims[feature]];
    let args = vec![
        array(ty, dims, 9, -2.0, 3.0),
        array(ty, &cs, 10, 0.5, 2.0),
        array(ty, &cs, 11, -0.5, 0.5),
        array(ty, &cs, 12, 0.5, 3.0),
        array(ty, dims, 13, -1.0, 1.0),
    ];
    (text, args)
}

type Case = fn(PrimitiveType, &[i64], usize, f32) -> (String, Vec<Literal>);

/// Each op over shapes and feature dimensions (first, middle, last, rank
/// 1), in the given type.
fn all_ops(ty: PrimitiveType, tolerance: f64) {
    let layouts: [(&[i64], usize); 4] =
        [(&[2, 3, 4, 5], 1), (&[6, 3], 0), (&[3, 5, 7], 2), (&[9], 0)];
    let ops: [Case; 3] = [training, inference, grad];
    for op in ops {
        for (dims, feature) in layouts {
            let (text, args) = op(ty, dims, feature, 0.001);
            check(&text, &args, tolerance);
        }
    }
}

#[test]
fn f32_matches_the_interpreter() {
    all_ops(PrimitiveType::F32, 1e-5);
}

#[test]
fn f64_matches_the_interpreter() {
    all_ops(PrimitiveType::F64, 1e-12);
}

#[test]
fn half_types_are_computed_in_f32_and_rounded_once() {
    all_ops(PrimitiveType::F16, 2e-3);
    all_ops(PrimitiveType::Bf16, 1.6e-2);
}

/// The worked example of `docs/semantics.md`, *Batch normalisation* (ε = 0), exact after
/// expansion too.
#[test]
fn spec_worked_example() {
    let x = Literal::matrix(&[[1.0f32, 2.0], [3.0, 6.0], [1.0, 2.0], [3.0, 6.0]]);
    let v = |values: &[f32]| Literal::vector(values);
    let (text, _) = training(PrimitiveType::F32, &[4, 2], 1, 0.0);
    let out = results(
        &expanded(&text),
        &[x.clone(), v(&[1.0, 2.0]), v(&[0.0, 1.0])],
    );
    assert_eq!(
        out,
        [
            vec![-1.0, -1.0, 1.0, 3.0, -1.0, -1.0, 1.0, 3.0],
            vec![2.0, 4.0],
            vec![1.0, 4.0]
        ]
    );
    let (text, _) = inference(PrimitiveType::F32, &[4, 2], 1, 0.0);
    let args = [
        x.clone(),
        v(&[1.0, 2.0]),
        v(&[0.0, 1.0]),
        v(&[1.0, 3.0]),
        v(&[4.0, 1.0]),
    ];
    let out = results(&expanded(&text), &args);
    assert_eq!(out, [vec![0.0, -1.0, 1.0, 7.0, 0.0, -1.0, 1.0, 7.0]]);
    let (text, _) = grad(PrimitiveType::F32, &[4, 2], 1, 0.0);
    let dy = Literal::matrix(&[[1.0f32, 1.0], [0.0, 2.0], [2.0, 0.0], [1.0, -1.0]]);
    let args = [x, v(&[1.0, 2.0]), v(&[2.0, 4.0]), v(&[1.0, 4.0]), dy];
    let out = results(&expanded(&text), &args);
    assert_eq!(
        out,
        [
            vec![-0.5, 0.5, -0.5, 1.5, 0.5, -0.5, 0.5, -1.5],
            vec![-2.0, 0.0],
            vec![4.0, 2.0]
        ]
    );
}

/// Batch norms inside a called computation are expanded too, and the
/// `add` computation is shared by every batch norm of one compute type.
#[test]
fn expands_in_every_computation() {
    let text = "HloModule m\n\n\
        bn {\n  x = f32[4,2] parameter(0)\n  g = f32[2] parameter(1)\n  \
        ROOT y = f32[4,2] batch-norm-inference(x, g, g, g, g), epsilon=1, feature_index=1\n}\n\n\
        ENTRY e {\n  x = f32[4,2] parameter(0)\n  g = f32[2] parameter(1)\n  \
        c = f32[4,2] call(x, g), to_apply=bn\n  \
        ROOT t = (f32[4,2], f32[2], f32[2]) batch-norm-training(c, g, g), epsilon=1, \
        feature_index=1\n}\n";
    let module = expanded(text);
    let adds = module
        .computations
        .iter()
        .filter(|c| c.name.starts_with("batch_norm_add"))
        .count();
    assert_eq!(adds, 1);
    let args = [
        array(PrimitiveType::F32, &[4, 2], 1, -1.0, 1.0),
        Literal::vector(&[1.0f32, 2.0]),
    ];
    check(text, &args, 1e-5);
}

#[test]
fn leaves_modules_without_batch_norm_alone() {
    unchanged(
        BatchNormExpander,
        "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\n",
    );
}
