//! Dot, dot-general and convolution rules (`docs/semantics.md`, *Convolution*, *Dot*).

use xla_core::hlo::{ConvDimensionNumbers, DotDimensionNumbers, Window, WindowDim};
use xla_core::infer::{self, InferError, PaddingKind};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

fn dot(lhs: &str, rhs: &str) -> Result<String, String> {
    show(infer::dot(&a(lhs), &a(rhs)))
}

fn dims(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> DotDimensionNumbers {
    DotDimensionNumbers {
        lhs_batch: lb.to_vec(),
        rhs_batch: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
    }
}

fn general(lhs: &str, rhs: &str, d: &DotDimensionNumbers) -> Result<String, String> {
    show(infer::dot_general(&a(lhs), &a(rhs), d))
}

#[test]
fn dot_table() {
    // `docs/semantics.md`, *Dot*.
    assert_eq!(dot("f32[3]", "f32[3]").unwrap(), "f32[]");
    assert_eq!(dot("f32[2,3]", "f32[3]").unwrap(), "f32[2]");
    assert_eq!(dot("f32[3]", "f32[3,4]").unwrap(), "f32[4]");
    assert_eq!(dot("f32[2,3]{0,1}", "f32[3,4]").unwrap(), "f32[2,4]");
    assert_eq!(
        dot("f32[2,3]", "f32[4,5]").unwrap_err(),
        "dot: dimension 1 of operand 0 f32[2,3] has size 3, but dimension 0 of operand 1 f32[4,5] has size 4"
    );
    assert_eq!(
        dot("f32[2,3,4]", "f32[4]").unwrap_err(),
        "dot: operand 0 f32[2,3,4] must have rank 1 or 2"
    );
    assert_eq!(
        dot("f32[2]", "f32[]").unwrap_err(),
        "dot: operand 1 f32[] must have rank 1 or 2"
    );
    assert_eq!(
        dot("f32[2]", "s32[2]").unwrap_err(),
        "dot: operand 1 s32[2] must have the element type of operand 0 f32[2]"
    );
}

#[test]
fn dot_general_examples() {
    // `docs/semantics.md`, *Dot*.
    assert_eq!(
        general("f32[2,3]", "f32[2,3]", &dims(&[], &[], &[1], &[1])).unwrap(),
        "f32[2,2]"
    );
    assert_eq!(
        general("f32[2,2,2]", "f32[2,2,2]", &dims(&[0], &[0], &[2], &[1])).unwrap(),
        "f32[2,2,2]"
    );
    assert_eq!(
        general("s32[2,3,4]", "s32[4,2,5]", &dims(&[0], &[1], &[2], &[0])).unwrap(),
        "s32[2,3,5]"
    );
    assert_eq!(
        general(
            "f32[7,8,2,3]",
            "f32[7,8,3,4]",
            &dims(&[0, 1], &[0, 1], &[3], &[2])
        )
        .unwrap(),
        "f32[7,8,2,4]"
    );
    // No contracting dimensions: an outer product.
    assert_eq!(
        general("f32[2]", "f32[3]", &dims(&[], &[], &[], &[])).unwrap(),
        "f32[2,3]"
    );
}

#[test]
fn dot_general_constraints() {
    let errors = [
        (
            general("f32[2,3]", "f32[3,4]", &dims(&[], &[], &[1], &[])),
            "dot: rhs_contracting_dims has 0 entries, but the length of lhs_contracting_dims is 1",
        ),
        (
            general("f32[5,2,3]", "f32[5,3,4]", &dims(&[0], &[], &[2], &[1])),
            "dot: rhs_batch_dims has 0 entries, but the length of lhs_batch_dims is 1",
        ),
        (
            general("f32[2,3]", "f32[3,4]", &dims(&[], &[], &[2], &[0])),
            "dot: lhs_contracting_dims[0] = 2 is out of range [0, 2)",
        ),
        (
            general("f32[2,3]", "f32[3,4]", &dims(&[], &[], &[1], &[-1])),
            "dot: rhs_contracting_dims[0] = -1 is out of range [0, 2)",
        ),
        (
            general("f32[3,3]", "f32[3,3]", &dims(&[], &[], &[1, 1], &[0, 1])),
            "dot: lhs_contracting_dims[1] = 1 repeats an earlier entry",
        ),
        (
            general("f32[3,3]", "f32[3,3]", &dims(&[1], &[0], &[1], &[1])),
            "dot: dimension 1 is in both lhs_contracting_dims and lhs_batch_dims",
        ),
        (
            general("f32[5,2,3]", "f32[6,3,4]", &dims(&[0], &[0], &[2], &[1])),
            "dot: dimension 0 of operand 0 f32[5,2,3] has size 5, \
             but dimension 0 of operand 1 f32[6,3,4] has size 6",
        ),
        (
            general("f32[2,3]", "f32[4,3]", &dims(&[], &[], &[1], &[0])),
            "dot: dimension 1 of operand 0 f32[2,3] has size 3, \
             but dimension 0 of operand 1 f32[4,3] has size 4",
        ),
    ];
    for (result, message) in errors {
        assert_eq!(result.unwrap_err(), message);
    }
}

#[test]
fn symbolic_dot() {
    let s = SymDim::symbol;
    let x = ArrayShape::new(PrimitiveType::F32, [s("B"), s("K")]);
    let w = ArrayShape::new(PrimitiveType::F32, [s("K"), s("N")]);
    assert_eq!(infer::dot(&x, &w).unwrap().to_string(), "f32[B, N]");
    // K against 3 cannot be decided: no error.
    let w3 = ArrayShape::new(PrimitiveType::F32, [SymDim::constant(3), s("N")]);
    assert_eq!(infer::dot(&x, &w3).unwrap().to_string(), "f32[B, N]");
    let wide = ArrayShape::new(
        PrimitiveType::F32,
        [s("K").add(&SymDim::constant(1)), s("N")],
    );
    assert_eq!(
        infer::dot(&x, &wide).unwrap_err().to_string(),
        "dot: dimension 1 of operand 0 f32[B, K] has size K, \
         but dimension 0 of operand 1 f32[K + 1, N] has size K + 1"
    );
}

fn canonical(spatial: usize) -> ConvDimensionNumbers {
    let s: Vec<i64> = (2..2 + spatial as i64).collect();
    ConvDimensionNumbers {
        input_batch: 0,
        input_feature: 1,
        input_spatial: s.clone(),
        kernel_output_feature: 0,
        kernel_input_feature: 1,
        kernel_spatial: s.clone(),
        output_batch: 0,
        output_feature: 1,
        output_spatial: s,
    }
}

fn window(sizes: &[i64], strides: &[i64], pads: &[(i64, i64)], lhs: i64, rhs: i64) -> Window {
    Window {
        dims: (0..sizes.len())
            .map(|i| WindowDim {
                size: sizes[i],
                stride: strides[i],
                padding_low: pads[i].0,
                padding_high: pads[i].1,
                base_dilation: lhs,
                window_dilation: rhs,
                window_reversal: false,
            })
            .collect(),
    }
}

fn conv(lhs: &str, rhs: &str, w: &Window, groups: (i64, i64)) -> Result<String, String> {
    let d = canonical(w.dims.len());
    show(infer::convolution(
        &a(lhs),
        &a(rhs),
        w,
        &d,
        groups.0,
        groups.1,
    ))
}

#[test]
fn convolution_examples() {
    // `docs/semantics.md`, *Convolution*.
    let (x, k) = ("f32[1,1,3,3]", "f32[1,1,2,2]");
    let valid = [(0, 0), (0, 0)];
    assert_eq!(
        conv(x, k, &window(&[2, 2], &[1, 1], &valid, 1, 1), (1, 1)).unwrap(),
        "f32[1,1,2,2]"
    );
    assert_eq!(
        conv(
            x,
            k,
            &window(&[2, 2], &[2, 2], &[(1, 1), (1, 1)], 1, 1),
            (1, 1)
        )
        .unwrap(),
        "f32[1,1,2,2]"
    );
    let same = infer::make_padding(&[3, 3], &[2, 2], &[1, 1], PaddingKind::Same);
    assert_eq!(same, [(0, 1), (0, 1)]);
    assert_eq!(
        conv(x, k, &window(&[2, 2], &[1, 1], &same, 1, 1), (1, 1)).unwrap(),
        "f32[1,1,3,3]"
    );
    assert_eq!(
        conv(
            x,
            k,
            &window(&[2, 2], &[1, 1], &[(-1, 0), (0, 0)], 1, 1),
            (1, 1)
        )
        .unwrap(),
        "f32[1,1,1,2]"
    );
    assert_eq!(
        conv(x, k, &window(&[2, 2], &[1, 1], &valid, 2, 1), (1, 1)).unwrap(),
        "f32[1,1,4,4]"
    );
    assert_eq!(
        conv(x, k, &window(&[2, 2], &[1, 1], &valid, 1, 2), (1, 1)).unwrap(),
        "f32[1,1,1,1]"
    );
    // 1-D plain, feature-grouped and batch-grouped.
    let w1 = window(&[2], &[1], &[(0, 0)], 1, 1);
    assert_eq!(
        conv("f32[1,2,4]", "f32[2,2,2]", &w1, (1, 1)).unwrap(),
        "f32[1,2,3]"
    );
    assert_eq!(
        conv("f32[1,2,4]", "f32[2,1,2]", &w1, (2, 1)).unwrap(),
        "f32[1,2,3]"
    );
    assert_eq!(
        conv("f32[2,1,3]", "f32[2,1,2]", &w1, (1, 2)).unwrap(),
        "f32[1,2,2]"
    );
}

#[test]
fn convolution_dimension_numbers() {
    // b01f_01io->b01f (NHWC input, HWIO kernel), as JAX prints 2-D convolutions.
    let d = ConvDimensionNumbers {
        input_batch: 0,
        input_feature: 3,
        input_spatial: vec![1, 2],
        kernel_output_feature: 3,
        kernel_input_feature: 2,
        kernel_spatial: vec![0, 1],
        output_batch: 0,
        output_feature: 3,
        output_spatial: vec![1, 2],
    };
    let w = window(&[3, 3], &[1, 1], &[(0, 0), (0, 0)], 1, 1);
    let out = infer::convolution(&a("f32[8,32,32,3]"), &a("f32[3,3,3,16]"), &w, &d, 1, 1);
    assert_eq!(show(out).unwrap(), "f32[8,30,30,16]");
}

#[test]
fn convolution_constraints() {
    let w1 = window(&[2], &[1], &[(0, 0)], 1, 1);
    let errors = [
        (
            conv("f32[1,3,4]", "f32[2,1,2]", &w1, (2, 1)),
            "convolution: input feature dimension 1 of operand 0 f32[1,3,4] has size 3, \
             but it must be feature_group_count 2 × the size 1 of kernel input feature \
             dimension 1 of operand 1 f32[2,1,2]",
        ),
        (
            conv("f32[1,4,4]", "f32[3,2,2]", &w1, (2, 1)),
            "convolution: dimension 0 of operand 1 f32[3,2,2] has size 3, \
             which is not a multiple of feature_group_count 2",
        ),
        (
            conv("f32[2,1,3]", "f32[3,1,2]", &w1, (1, 2)),
            "convolution: dimension 0 of operand 1 f32[3,1,2] has size 3, \
             which is not a multiple of batch_group_count 2",
        ),
        (
            conv("f32[3,1,3]", "f32[2,1,2]", &w1, (1, 2)),
            "convolution: dimension 0 of operand 0 f32[3,1,3] has size 3, \
             which is not a multiple of batch_group_count 2",
        ),
        (
            conv("f32[2,2,3]", "f32[2,1,2]", &w1, (2, 2)),
            "convolution: batch_group_count = 2 is invalid: \
             feature_group_count and batch_group_count cannot both exceed 1",
        ),
        (
            conv("f32[2,2,3]", "f32[2,1,2]", &w1, (0, 1)),
            "convolution: feature_group_count = 0 is invalid: group counts must be at least 1",
        ),
        (
            conv(
                "f32[1,1,3]",
                "f32[1,1,2,2]",
                &window(&[2, 2], &[1, 1], &[(0, 0), (0, 0)], 1, 1),
                (1, 1),
            ),
            "convolution: operand 0 f32[1,1,3] must have rank 4",
        ),
        (
            conv(
                "f32[1,1,3]",
                "f32[1,1,2]",
                &window(&[3], &[1], &[(0, 0)], 1, 1),
                (1, 1),
            ),
            "convolution: window size 3 of spatial dimension 0 does not match \
             the size 2 of dimension 2 of operand 1 f32[1,1,2]",
        ),
        (
            conv(
                "f32[1,1,3]",
                "f32[1,1,2]",
                &window(&[2], &[0], &[(0, 0)], 1, 1),
                (1, 1),
            ),
            "convolution: window stride = {0} is invalid: window strides must be at least 1",
        ),
        (
            conv("f32[1,1,3]", "s32[1,1,2]", &w1, (1, 1)),
            "convolution: operand 1 s32[1,1,2] must have the element type of operand 0 f32[1,1,3]",
        ),
    ];
    for (result, message) in errors {
        assert_eq!(result.unwrap_err(), message);
    }
    let mut d = canonical(1);
    d.input_spatial = vec![1];
    let out = infer::convolution(&a("f32[1,1,3]"), &a("f32[1,1,2]"), &w1, &d, 1, 1);
    assert_eq!(
        show(out).unwrap_err(),
        "convolution: input dimension numbers={0,1,1} is not a permutation of 0..3"
    );
    let out = infer::convolution(
        &a("f32[1,1,3,3]"),
        &a("f32[1,1,2,2]"),
        &w1,
        &canonical(2),
        1,
        1,
    );
    assert_eq!(
        show(out).unwrap_err(),
        "convolution: window has 1 entry, but the number of input spatial dimensions is 2"
    );
}

#[test]
fn symbolic_convolution() {
    let s = SymDim::symbol;
    let c = SymDim::constant;
    let x = ArrayShape::new(PrimitiveType::F32, [s("B"), c(3), s("H"), s("W")]);
    let k = ArrayShape::new(PrimitiveType::F32, [c(8), c(3), c(3), c(3)]);
    let w = window(&[3, 3], &[1, 1], &[(1, 1), (1, 1)], 1, 1);
    let out = infer::convolution(&x, &k, &w, &canonical(2), 1, 1).unwrap();
    assert_eq!(out.to_string(), "f32[B, 8, H, W]");
    let w = window(&[3, 3], &[1, 1], &[(0, 0), (0, 0)], 1, 1);
    let out = infer::convolution(&x, &k, &w, &canonical(2), 1, 1).unwrap();
    assert_eq!(out.to_string(), "f32[B, 8, H - 2, W - 2]");
}

#[test]
fn mixed_precision_operands_and_preferred_element_type() {
    use xla_core::hlo::Opcode;
    let contract = dims(&[], &[], &[1], &[0]);
    // Floats of different precision mix; the result takes the wider one.
    assert_eq!(
        general("bf16[4,3]", "f32[3,2]", &contract),
        Ok("f32[4,2]".into())
    );
    assert_eq!(
        general("f16[4,3]", "bf16[3,2]", &contract),
        Ok("f16[4,2]".into())
    );
    assert_eq!(
        general("s8[4,3]", "s32[3,2]", &contract),
        Err("dot: operand 1 s32[3,2] must have the element type of operand 0 s8[4,3]".into())
    );
    let upcast = |shape: &str, to| {
        show(infer::with_preferred_element_type(
            Opcode::Dot,
            a(shape),
            Some(to),
        ))
    };
    assert_eq!(
        upcast("bf16[4,2]", PrimitiveType::F32),
        Ok("f32[4,2]".into())
    );
    assert_eq!(upcast("s8[4,2]", PrimitiveType::S32), Ok("s32[4,2]".into()));
    assert_eq!(
        upcast("f32[4,2]", PrimitiveType::Bf16),
        Ok("bf16[4,2]".into())
    );
    assert_eq!(
        upcast("s32[4,2]", PrimitiveType::S8),
        Err("dot: preferred element type s8 must not be narrower than the operands' s32".into())
    );
    assert_eq!(
        show(infer::with_preferred_element_type(
            Opcode::Dot,
            a("s8[4]"),
            None
        )),
        Ok("s8[4]".into())
    );
}
