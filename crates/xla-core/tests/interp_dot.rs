//! The interpreter's dot and convolution (`docs/semantics.md`, *Convolution*, *Dot*): the worked
//! examples, dimension numbers, accumulation rules and group counts.

use crate::interp_common;

use half::{bf16, f16};
use interp_common::*;
use xla_core::layout::Layout;
use xla_core::{Literal, C64};

fn f32s(l: &Literal) -> Vec<f32> {
    l.to_vec::<f32>().unwrap()
}

fn i32s(l: &Literal) -> Vec<i32> {
    l.to_vec::<i32>().unwrap()
}

/// `dot(lhs, rhs)` with the given dimension numbers and result shape.
fn dot(lhs: &Literal, rhs: &Literal, numbers: &str, out: &str) -> Literal {
    let body = format!(
        "a = {} parameter(0)\nb = {} parameter(1)\nr = {out} dot(a, b), {numbers}",
        lhs.shape(),
        rhs.shape()
    );
    run(&body, &[lhs, rhs])
}

const MATMUL: &str = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";

#[test]
fn dot_examples() {
    // `docs/semantics.md`, *Dot*.
    let r = dot(
        &Literal::vector(&[1i32, 2, 3]),
        &Literal::vector(&[4i32, 5, 6]),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "s32[]",
    );
    assert_eq!(i32s(&r), [32]);
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    assert_eq!(
        i32s(&dot(&m, &Literal::vector(&[1i32, 0, -1]), MATMUL, "s32[2]")),
        [-2, -2]
    );
    let a = Literal::matrix(&[[1i32, 2], [3, 4]]);
    let b = Literal::matrix(&[[5i32, 6], [7, 8]]);
    assert_eq!(i32s(&dot(&a, &b, MATMUL, "s32[2,2]")), [19, 22, 43, 50]);
    // `docs/semantics.md`, *Dot*.
    let rhs = Literal::matrix(&[[1i32, 1, 1], [2, 2, 2]]);
    let r = dot(
        &m,
        &rhs,
        "lhs_contracting_dims={1}, rhs_contracting_dims={1}",
        "s32[2,2]",
    );
    assert_eq!(i32s(&r), [6, 12, 15, 30]);
    let lhs = Literal::from_vec(&[2, 2, 2], (1..=8).collect::<Vec<i32>>()).unwrap();
    let eye = Literal::from_vec(&[2, 2, 2], vec![1i32, 0, 0, 1, 1, 0, 0, 1]).unwrap();
    let numbers = "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}";
    assert_eq!(
        i32s(&dot(&lhs, &eye, numbers, "s32[2,2,2]")),
        (1..=8).collect::<Vec<_>>()
    );
    let lhs: Vec<i32> = (0..24)
        .map(|x| (x / 12) * 12 + ((x / 4) % 3) * 4 + x % 4)
        .collect();
    let rhs: Vec<i32> = (0..40)
        .map(|x| (x / 10) * 10 + ((x / 5) % 2) * 5 + x % 5)
        .collect();
    let numbers = "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={0}";
    let r = dot(
        &Literal::from_vec(&[2, 3, 4], lhs).unwrap(),
        &Literal::from_vec(&[4, 2, 5], rhs).unwrap(),
        numbers,
        "s32[2,3,5]",
    );
    assert_eq!(r.get::<i32>(&[1, 2, 3]).unwrap(), 2028);
}

#[test]
fn dot_accumulation_rules() {
    // Integers wrap.
    let r = dot(
        &Literal::vector(&[100i8, 100]),
        &Literal::vector(&[2i8, 1]),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "s8[]",
    );
    assert_eq!(r.to_vec::<i8>().unwrap(), [44]);
    // BF16 accumulates in f32 and rounds once: [1, 2⁻⁹ ×8] · ones = 1.015625.
    let mut x = vec![bf16::ONE];
    x.extend([bf16::from_f32(2f32.powi(-9)); 8]);
    let ones = vec![bf16::ONE; 9];
    let r = dot(
        &Literal::vector(&x),
        &Literal::vector(&ones),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "bf16[]",
    );
    assert_eq!(r.to_vec::<bf16>().unwrap(), [bf16::from_f32(1.015625)]);
    let h = f16::from_f32;
    let r = dot(
        &Literal::vector(&[h(2048.0), h(1.0), h(1.0)]),
        &Literal::vector(&[h(1.0); 3]),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "f16[]",
    );
    assert_eq!(r.to_vec::<f16>().unwrap(), [h(2050.0)]);
    // Sums start from +0; a dot without contracting dimensions is one product.
    let zero = Literal::vector(&[-0.0f32, -0.0]);
    let r = dot(
        &zero,
        &Literal::vector(&[1.0f32, 1.0]),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "f32[]",
    );
    assert_eq!(bits32(&f32s(&r)), [0]);
    let r = dot(
        &Literal::vector(&[0.0f32, 2.0]),
        &Literal::vector(&[-3.0f32]),
        "lhs_contracting_dims={}, rhs_contracting_dims={}",
        "f32[2,1]",
    );
    assert_eq!(bits32(&f32s(&r)), bits32(&[-0.0, -6.0]));
    // Subnormal products flush.
    let r = dot(
        &Literal::vector(&[1e-30f32]),
        &Literal::vector(&[1e-10f32]),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "f32[]",
    );
    assert_eq!(f32s(&r), [0.0]);
    // pred: or of ands; complex.
    let p = dot(
        &Literal::matrix(&[[true, false], [false, false]]),
        &Literal::vector(&[true, true]),
        MATMUL,
        "pred[2]",
    );
    assert_eq!(p.to_vec::<bool>().unwrap(), [true, false]);
    let c = dot(
        &Literal::vector(&[C64::new(1.0, 2.0), C64::new(0.0, 1.0)]),
        &Literal::vector(&[C64::new(3.0, -4.0), C64::new(0.0, 1.0)]),
        "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        "c64[]",
    );
    assert_eq!(c.to_vec::<C64>().unwrap(), [C64::new(10.0, 2.0)]);
}

#[test]
fn dot_with_another_result_type_and_layouts() {
    // XLA's preferred element type: s8 operands, s32 result.
    let a = Literal::matrix(&[[100i8, 100]]);
    let b = Literal::matrix(&[[2i8], [1]]);
    assert_eq!(i32s(&dot(&a, &b, MATMUL, "s32[1,1]")), [300]);
    let col = Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]])
        .relayout(&Layout::new([0, 1]))
        .unwrap();
    let b = Literal::matrix(&[[5.0f32, 6.0], [7.0, 8.0]]);
    assert_eq!(
        f32s(&dot(&col, &b, MATMUL, "f32[2,2]")),
        [19.0, 22.0, 43.0, 50.0]
    );
    let empty = Literal::from_vec::<f32>(&[2, 0], vec![]).unwrap();
    let r = dot(
        &empty,
        &Literal::from_vec::<f32>(&[0, 3], vec![]).unwrap(),
        MATMUL,
        "f32[2,3]",
    );
    assert_eq!(f32s(&r), [0.0; 6]);
}

/// A convolution of `lhs` and `rhs`.
fn conv(lhs: &Literal, rhs: &Literal, attrs: &str, out: &str) -> Literal {
    let ty = lhs.element_type().unwrap().name();
    let body = format!(
        "x = {} parameter(0)\nw = {} parameter(1)\nr = {ty}[{out}] convolution(x, w), {attrs}",
        lhs.shape(),
        rhs.shape()
    );
    run(&body, &[lhs, rhs])
}

#[test]
fn convolution_examples_2d() {
    // `docs/semantics.md`, *Convolution*: out(y,x) = in(y,x) − in(y+1,x+1).
    let input = Literal::from_vec(&[1, 1, 3, 3], (1..=9).map(|x| x as f32).collect()).unwrap();
    let kernel = Literal::from_vec(&[1, 1, 2, 2], vec![1.0f32, 0.0, 0.0, -1.0]).unwrap();
    let c = |window: &str, out: &str| {
        f32s(&conv(
            &input,
            &kernel,
            &format!("window={{{window}}}, dim_labels=bf01_oi01->bf01"),
            out,
        ))
    };
    assert_eq!(c("size=2x2", "1,1,2,2"), [-4.0; 4]);
    assert_eq!(
        c("size=2x2 stride=2x2 pad=1_1x1_1", "1,1,2,2"),
        [-1.0, -3.0, -7.0, -4.0]
    );
    assert_eq!(
        c("size=2x2 pad=0_1x0_1", "1,1,3,3"),
        [-4.0, -4.0, 3.0, -4.0, -4.0, 6.0, 7.0, 8.0, 9.0]
    );
    assert_eq!(c("size=2x2 pad=-1_0x0_0", "1,1,1,2"), [-4.0, -4.0]);
    assert_eq!(
        c("size=2x2 lhs_dilate=2x2", "1,1,4,4"),
        [1.0, 0.0, 2.0, 0.0, 0.0, -5.0, 0.0, -6.0, 4.0, 0.0, 5.0, 0.0, 0.0, -8.0, 0.0, -9.0]
    );
    assert_eq!(c("size=2x2 rhs_dilate=2x2", "1,1,1,1"), [-8.0]);
    // Window reversal flips the kernel: out(y,x) = −in(y,x) + in(y+1,x+1).
    assert_eq!(c("size=2x2 rhs_reversal=1x1", "1,1,2,2"), [4.0; 4]);
}

#[test]
fn convolution_examples_1d_and_groups() {
    let input = Literal::from_vec(
        &[1, 2, 4],
        vec![1.0f32, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0],
    )
    .unwrap();
    let plain =
        Literal::from_vec(&[2, 2, 2], vec![1.0f32, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0]).unwrap();
    let r = conv(
        &input,
        &plain,
        "window={size=2}, dim_labels=bf0_oi0->bf0",
        "1,2,3",
    );
    assert_eq!(f32s(&r), [3.0, 5.0, 7.0, -10.0, -10.0, -10.0]);
    let grouped = Literal::from_vec(&[2, 1, 2], vec![1.0f32, 1.0, 1.0, -1.0]).unwrap();
    let r = conv(
        &input,
        &grouped,
        "window={size=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2",
        "1,2,3",
    );
    assert_eq!(f32s(&r), [3.0, 5.0, 7.0, -10.0, -10.0, -10.0]);
    let batches = Literal::from_vec(&[2, 1, 3], vec![1.0f32, 2.0, 3.0, 10.0, 20.0, 30.0]).unwrap();
    let r = conv(
        &batches,
        &grouped,
        "window={size=2}, dim_labels=bf0_oi0->bf0, batch_group_count=2",
        "1,2,2",
    );
    assert_eq!(f32s(&r), [3.0, 5.0, -10.0, -10.0]);
}

#[test]
fn convolution_dimension_numbers() {
    // NHWC input, HWIO kernel, NHWC output: the worked example of `docs/semantics.md`,
    // *Convolution*, relabelled.
    let input = Literal::from_vec(&[1, 3, 3, 1], (1..=9).map(|x| x as f32).collect()).unwrap();
    let kernel = Literal::from_vec(&[2, 2, 1, 1], vec![1.0f32, 0.0, 0.0, -1.0]).unwrap();
    let r = conv(
        &input,
        &kernel,
        "window={size=2x2}, dim_labels=b01f_01io->b01f",
        "1,2,2,1",
    );
    assert_eq!(f32s(&r), [-4.0; 4]);
    // Output features first: f0b1 with two output features (the second negated).
    let kernel = Literal::from_vec(
        &[2, 2, 1, 2],
        vec![1.0f32, -1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 1.0],
    )
    .unwrap();
    let r = conv(
        &input,
        &kernel,
        "window={size=2x2}, dim_labels=b01f_01io->f01b",
        "2,2,2,1",
    );
    assert_eq!(f32s(&r), [-4.0, -4.0, -4.0, -4.0, 4.0, 4.0, 4.0, 4.0]);
    // Integer convolution with a column-major kernel.
    let input = Literal::from_vec(&[1, 1, 3], vec![1i32, 2, 3]).unwrap();
    let kernel = Literal::from_vec(&[1, 1, 2], vec![10i32, 1])
        .unwrap()
        .relayout(&Layout::new([0, 1, 2]))
        .unwrap();
    let r = conv(
        &input,
        &kernel,
        "window={size=2 pad=1_1}, dim_labels=bf0_oi0->bf0",
        "1,1,4",
    );
    assert_eq!(i32s(&r), [1, 12, 23, 30]);
}
