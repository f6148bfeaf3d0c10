//! Batch normalisation (`docs/semantics.md`, *Batch normalisation*): its worked example,
//! exactly, and a feature dimension that is not the last.

use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal};

fn run(text: &str, args: &[&Literal]) -> Vec<Vec<f32>> {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let out = Interpreter::new()
        .run(&module, args)
        .unwrap_or_else(|e| panic!("{e}"));
    match out.tuple_elements() {
        Some(elements) => elements.iter().map(|e| e.to_vec().unwrap()).collect(),
        None => vec![out.to_vec().unwrap()],
    }
}

fn x() -> Literal {
    Literal::matrix(&[[1.0f32, 2.0], [3.0, 6.0], [1.0, 2.0], [3.0, 6.0]])
}

fn v(values: &[f32]) -> Literal {
    Literal::vector(values)
}

#[test]
fn training() {
    let out = run(
        "HloModule m\n\nENTRY e {\n  x = f32[4,2] parameter(0)\n  g = f32[2] parameter(1)\n  \
         b = f32[2] parameter(2)\n  ROOT t = (f32[4,2], f32[2], f32[2]) \
         batch-norm-training(x, g, b), epsilon=0, feature_index=1\n}\n",
        &[&x(), &v(&[1.0, 2.0]), &v(&[0.0, 1.0])],
    );
    assert_eq!(
        out,
        [
            vec![-1.0, -1.0, 1.0, 3.0, -1.0, -1.0, 1.0, 3.0],
            vec![2.0, 4.0],
            vec![1.0, 4.0]
        ]
    );
}

#[test]
fn inference() {
    let out = run(
        "HloModule m\n\nENTRY e {\n  x = f32[4,2] parameter(0)\n  g = f32[2] parameter(1)\n  \
         b = f32[2] parameter(2)\n  m = f32[2] parameter(3)\n  v = f32[2] parameter(4)\n  \
         ROOT y = f32[4,2] batch-norm-inference(x, g, b, m, v), epsilon=0, feature_index=1\n}\n",
        &[
            &x(),
            &v(&[1.0, 2.0]),
            &v(&[0.0, 1.0]),
            &v(&[1.0, 3.0]),
            &v(&[4.0, 1.0]),
        ],
    );
    assert_eq!(out, [vec![0.0, -1.0, 1.0, 7.0, 0.0, -1.0, 1.0, 7.0]]);
}

#[test]
fn grad() {
    let dy = Literal::matrix(&[[1.0f32, 1.0], [0.0, 2.0], [2.0, 0.0], [1.0, -1.0]]);
    let out = run(
        "HloModule m\n\nENTRY e {\n  x = f32[4,2] parameter(0)\n  g = f32[2] parameter(1)\n  \
         m = f32[2] parameter(2)\n  v = f32[2] parameter(3)\n  dy = f32[4,2] parameter(4)\n  \
         ROOT t = (f32[4,2], f32[2], f32[2]) batch-norm-grad(x, g, m, v, dy), epsilon=0, \
         feature_index=1\n}\n",
        &[&x(), &v(&[1.0, 2.0]), &v(&[2.0, 4.0]), &v(&[1.0, 4.0]), &dy],
    );
    assert_eq!(
        out,
        [
            vec![-0.5, 0.5, -0.5, 1.5, 0.5, -0.5, 0.5, -1.5],
            vec![-2.0, 0.0],
            vec![4.0, 2.0]
        ]
    );
}

/// Feature dimension 0 of a rank-3 operand, with epsilon: each feature's
/// slice is a `[2,2]` block; `y = (x − μ)/√(σ² + ε)`.
#[test]
fn feature_dimension_and_epsilon() {
    let x = Literal::from_vec(&[2, 2, 2], vec![1.0f32, 3.0, 1.0, 3.0, 0.0, 0.0, 4.0, 4.0]).unwrap();
    let out = run(
        "HloModule m\n\nENTRY e {\n  x = f32[2,2,2] parameter(0)\n  g = f32[2] parameter(1)\n  \
         b = f32[2] parameter(2)\n  ROOT t = (f32[2,2,2], f32[2], f32[2]) \
         batch-norm-training(x, g, b), epsilon=3, feature_index=0\n}\n",
        &[&x, &v(&[1.0, 1.0]), &v(&[0.0, 0.0])],
    );
    // Feature 0: mean 2, variance 1 → ±1/2; feature 1: mean 2, variance 4
    // → ±2/√7.
    let s = 2.0 / 7.0f64.sqrt();
    let s = s as f32;
    assert_eq!(
        out,
        [
            vec![-0.5, 0.5, -0.5, 0.5, -s, -s, s, s],
            vec![2.0, 2.0],
            vec![1.0, 4.0]
        ]
    );
}
