//! Reduction rules: reduce, reduce-window, select-and-scatter, sort, top-k
//! (`docs/semantics.md`, *Reduce*, *Reduce-window*, *Select-and-scatter*, *Sort and top-k*).

use xla_core::hlo::{ProgramShape, Window, WindowDim};
use xla_core::infer::{self, InferError, PaddingKind, Signature};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

fn program(params: &[&str], result: &str) -> ProgramShape {
    ProgramShape {
        parameters: params.iter().map(|p| p.parse().unwrap()).collect(),
        result: result.parse().unwrap(),
    }
}

fn reduce(
    inputs: &[&str],
    inits: &[&str],
    f: &ProgramShape,
    dims: &[i64],
) -> Result<String, String> {
    let inputs: Vec<ArrayShape> = inputs.iter().map(|x| a(x)).collect();
    let inits: Vec<ArrayShape> = inits.iter().map(|x| a(x)).collect();
    let (i, v): (Vec<&ArrayShape>, Vec<&ArrayShape>) =
        (inputs.iter().collect(), inits.iter().collect());
    show(infer::reduce(&i, &v, Signature::from(f), dims))
}

#[test]
fn reduce_rules() {
    let add = program(&["s32[]", "s32[]"], "s32[]");
    // `docs/semantics.md`, *Reduce*.
    assert_eq!(
        reduce(&["s32[2,3]"], &["s32[]"], &add, &[0]).unwrap(),
        "s32[3]"
    );
    assert_eq!(
        reduce(&["s32[2,3]"], &["s32[]"], &add, &[1]).unwrap(),
        "s32[2]"
    );
    assert_eq!(
        reduce(&["s32[4,2,3]"], &["s32[]"], &add, &[0]).unwrap(),
        "s32[2,3]"
    );
    assert_eq!(
        reduce(&["s32[4,2,3]"], &["s32[]"], &add, &[2]).unwrap(),
        "s32[4,2]"
    );
    assert_eq!(
        reduce(&["s32[4,2,3]"], &["s32[]"], &add, &[1, 0]).unwrap(),
        "s32[3]"
    );
    assert_eq!(
        reduce(&["s32[4,2,3]"], &["s32[]"], &add, &[0, 1, 2]).unwrap(),
        "s32[]"
    );
    // `docs/semantics.md`, *Reduce*: variadic max/argmax.
    let argmax = program(&["f32[]", "s32[]", "f32[]", "s32[]"], "(f32[], s32[])");
    assert_eq!(
        reduce(
            &["f32[2,3]", "s32[2,3]"],
            &["f32[]", "s32[]"],
            &argmax,
            &[1]
        )
        .unwrap(),
        "(f32[2], s32[2])"
    );
    let errors = [
        (
            reduce(&["s32[2,3]"], &["s32[]"], &add, &[2]),
            "reduce: dimensions[0] = 2 is out of range [0, 2)",
        ),
        (
            reduce(&["s32[2,3]"], &["s32[]"], &add, &[1, 1]),
            "reduce: dimensions[1] = 1 repeats an earlier entry",
        ),
        (
            reduce(&["s32[2,3]"], &["s32[1]"], &add, &[1]),
            "reduce: operand 1 must be a scalar, but is s32[1]",
        ),
        (
            reduce(&["s32[2,3]"], &["f32[]"], &add, &[1]),
            "reduce: operand 1 f32[] must have the element type of operand 0 s32[2,3]",
        ),
        (
            reduce(&["s32[2,3]"], &[], &add, &[1]),
            "reduce: expected 2·N operands (N inputs, then N init values), got 1",
        ),
        (
            reduce(
                &["f32[2,3]", "s32[3,2]"],
                &["f32[]", "s32[]"],
                &argmax,
                &[1],
            ),
            "reduce: operand 1 s32[3,2] must have the same dimensions as operand 0 f32[2,3]",
        ),
        (
            reduce(
                &["s32[2,3]"],
                &["s32[]"],
                &program(&["s32[]"], "s32[]"),
                &[1],
            ),
            "reduce: to_apply must take 2 parameters, but takes 1",
        ),
        (
            reduce(
                &["s32[2,3]"],
                &["s32[]"],
                &program(&["s32[]", "f32[]"], "s32[]"),
                &[1],
            ),
            "reduce: parameter 1 of to_apply must be s32[], but is f32[]",
        ),
        (
            reduce(
                &["s32[2,3]"],
                &["s32[]"],
                &program(&["s32[]", "s32[]"], "(s32[])"),
                &[1],
            ),
            "reduce: to_apply must return s32[], but returns (s32[])",
        ),
        (
            reduce(
                &["f32[2,3]", "s32[2,3]"],
                &["f32[]", "s32[]"],
                &program(&["f32[]", "s32[]", "f32[]", "s32[]"], "f32[]"),
                &[1],
            ),
            "reduce: to_apply must return (f32[], s32[]), but returns f32[]",
        ),
    ];
    for (result, message) in errors {
        assert_eq!(result.unwrap_err(), message);
    }
}

fn window(
    sizes: &[i64],
    strides: &[i64],
    pads: &[(i64, i64)],
    base: &[i64],
    win: &[i64],
) -> Window {
    Window {
        dims: (0..sizes.len())
            .map(|i| WindowDim {
                size: sizes[i],
                stride: strides[i],
                padding_low: pads[i].0,
                padding_high: pads[i].1,
                base_dilation: base[i],
                window_dilation: win[i],
                window_reversal: false,
            })
            .collect(),
    }
}

fn reduce_window(input: &str, w: &Window) -> Result<String, String> {
    let max = program(&["f32[]", "f32[]"], "f32[]");
    show(infer::reduce_window(
        &[&a(input)],
        &[&a("f32[]")],
        Signature::from(&max),
        w,
    ))
}

#[test]
fn reduce_window_rules() {
    // `docs/semantics.md`, *Reduce-window*.
    let w = window(&[2, 3], &[2, 3], &[(0, 0), (0, 0)], &[1, 1], &[1, 1]);
    assert_eq!(reduce_window("f32[4,6]", &w).unwrap(), "f32[2,2]");
    let w = window(&[2, 3], &[1, 1], &[(0, 0), (0, 0)], &[1, 1], &[1, 1]);
    assert_eq!(reduce_window("f32[4,6]", &w).unwrap(), "f32[3,4]");
    let w = window(&[3], &[2], &[(0, 0)], &[1], &[1]);
    assert_eq!(reduce_window("f32[5]", &w).unwrap(), "f32[2]");
    let same = infer::make_padding(&[5], &[3], &[2], PaddingKind::Same);
    assert_eq!(same, [(1, 1)]);
    let w = window(&[3], &[2], &same, &[1], &[1]);
    assert_eq!(reduce_window("f32[5]", &w).unwrap(), "f32[3]");
    let w = window(&[2], &[1], &[(0, 0)], &[2], &[1]);
    assert_eq!(reduce_window("f32[5]", &w).unwrap(), "f32[8]");
    let w = window(&[2], &[1], &[(0, 0)], &[1], &[2]);
    assert_eq!(reduce_window("f32[5]", &w).unwrap(), "f32[3]");
    let w = window(&[2], &[1], &[(1, 1)], &[1], &[1]);
    assert_eq!(reduce_window("f32[5]", &w).unwrap(), "f32[6]");
    let w = window(&[3], &[1], &[(0, 0)], &[1], &[1]);
    assert_eq!(reduce_window("f32[2]", &w).unwrap(), "f32[0]");
    let w = window(&[3], &[1], &[(0, 0)], &[1], &[1]);
    assert_eq!(
        reduce_window("f32[2,2]", &w).unwrap_err(),
        "reduce-window: window has 1 entry, but operand 0 f32[2,2] has rank 2"
    );
    let w = window(&[3], &[0], &[(0, 0)], &[1], &[1]);
    assert_eq!(
        reduce_window("f32[5]", &w).unwrap_err(),
        "reduce-window: window stride = {0} is invalid: window strides must be at least 1"
    );
    let w = window(&[0], &[1], &[(0, 0)], &[1], &[1]);
    assert_eq!(
        reduce_window("f32[5]", &w).unwrap_err(),
        "reduce-window: window size = {0} is invalid: window sizes must be at least 1"
    );
    let w = window(&[2], &[1], &[(0, 0)], &[0], &[1]);
    assert_eq!(
        reduce_window("f32[5]", &w).unwrap_err(),
        "reduce-window: window lhs_dilate = {0} is invalid: dilations must be at least 1"
    );
}

#[test]
fn padding_kinds() {
    assert_eq!(
        infer::make_padding(&[3, 3], &[2, 2], &[1, 1], PaddingKind::Same),
        [(0, 1), (0, 1)]
    );
    assert_eq!(
        infer::make_padding(&[4], &[1], &[2], PaddingKind::Same),
        [(0, 0)]
    );
    assert_eq!(
        infer::make_padding(&[4], &[3], &[2], PaddingKind::Valid),
        [(0, 0)]
    );
}

#[test]
fn select_and_scatter_rules() {
    let ge = program(&["f32[]", "f32[]"], "pred[]");
    let add = program(&["f32[]", "f32[]"], "f32[]");
    let w = window(&[2, 3], &[2, 3], &[(0, 0), (0, 0)], &[1, 1], &[1, 1]);
    let sas = |operand: &str, source: &str, select: &ProgramShape, scatter: &ProgramShape| {
        show(infer::select_and_scatter(
            &a(operand),
            Signature::from(select),
            &w,
            &a(source),
            &a("f32[]"),
            Signature::from(scatter),
        ))
    };
    assert_eq!(sas("f32[4,6]", "f32[2,2]", &ge, &add).unwrap(), "f32[4,6]");
    assert_eq!(
        sas("f32[4,6]", "f32[3,2]", &ge, &add).unwrap_err(),
        "select-and-scatter: operand 1 f32[3,2] must have the dimensions of the window positions, f32[2,2]"
    );
    assert_eq!(
        sas("f32[4,6]", "f32[2,2]", &add, &add).unwrap_err(),
        "select-and-scatter: select must return pred[], but returns f32[]"
    );
    assert_eq!(
        sas("f32[4,6]", "f32[2,2]", &program(&["f32[]"], "pred[]"), &add).unwrap_err(),
        "select-and-scatter: select must take 2 parameters, but takes 1"
    );
    assert_eq!(
        sas("f32[4,6]", "f32[2,2]", &ge, &ge).unwrap_err(),
        "select-and-scatter: scatter must return f32[], but returns pred[]"
    );
    assert_eq!(
        sas("f32[4,6]", "s32[2,2]", &ge, &add).unwrap_err(),
        "select-and-scatter: operand 1 s32[2,2] must have the element type of operand 0 f32[4,6]"
    );
}

#[test]
fn sort_rules() {
    let sort = |xs: &[&str], d: i64, cmp: &ProgramShape| {
        let arrays: Vec<ArrayShape> = xs.iter().map(|x| a(x)).collect();
        let refs: Vec<&ArrayShape> = arrays.iter().collect();
        show(infer::sort(&refs, d, Signature::from(cmp)))
    };
    let lt = program(&["s32[]", "s32[]"], "pred[]");
    let three = program(
        &["s32[]", "s32[]", "s32[]", "s32[]", "f32[]", "f32[]"],
        "pred[]",
    );
    assert_eq!(sort(&["s32[2,3]"], 1, &lt).unwrap(), "s32[2,3]");
    assert_eq!(
        sort(&["s32[2]", "s32[2]", "f32[2]"], 0, &three).unwrap(),
        "(s32[2], s32[2], f32[2])"
    );
    assert_eq!(
        sort(&["s32[2,3]"], 2, &lt).unwrap_err(),
        "sort: dimensions[0] = 2 is out of range [0, 2)"
    );
    assert_eq!(
        sort(&["s32[2]", "s32[3]", "f32[2]"], 0, &three).unwrap_err(),
        "sort: operand 1 s32[3] must have the same dimensions as operand 0 s32[2]"
    );
    assert_eq!(
        sort(&["s32[2]", "s32[2]"], 0, &lt).unwrap_err(),
        "sort: to_apply must take 4 parameters, but takes 2"
    );
    assert_eq!(
        sort(&["f32[2]"], 0, &lt).unwrap_err(),
        "sort: parameter 0 of to_apply must be f32[], but is s32[]"
    );
    assert_eq!(
        sort(&["s32[2]"], 0, &program(&["s32[]", "s32[]"], "s32[]")).unwrap_err(),
        "sort: to_apply must return pred[], but returns s32[]"
    );
    assert_eq!(
        sort(&[], 0, &lt).unwrap_err(),
        "sort: expected at least 1 operand, got 0"
    );
}

#[test]
fn topk_rules() {
    assert_eq!(
        show(infer::topk(&a("f32[4,10]"), &3)).unwrap(),
        "(f32[4,3], s32[4,3])"
    );
    assert_eq!(
        show(infer::topk(&a("f32[4]"), &5)).unwrap_err(),
        "topk: k = 5 exceeds the size 4 of dimension 0 of operand 0 f32[4]"
    );
    assert_eq!(
        show(infer::topk(&a("f32[4]"), &-1)).unwrap_err(),
        "topk: k = -1 is negative"
    );
    assert_eq!(
        show(infer::topk(&a("f32[]"), &1)).unwrap_err(),
        "topk: operand 0 f32[] must have rank at least 1"
    );
    // Complex values have no order (fuzzing found the JIT sorting them).
    assert_eq!(
        show(infer::topk(&a("c128[3,10]"), &3)).unwrap_err(),
        "topk: operand 0 c128[3,10] must have a real (not complex) element type"
    );
}

#[test]
fn symbolic_reductions() {
    let s = SymDim::symbol;
    let x = ArrayShape::new(PrimitiveType::F32, [s("B"), s("N")]);
    let init = ArrayShape::new(PrimitiveType::F32, Vec::<SymDim>::new());
    let params = [
        xla_core::Shape::scalar(PrimitiveType::F32),
        xla_core::Shape::scalar(PrimitiveType::F32),
    ];
    let result = xla_core::Shape::scalar(PrimitiveType::F32);
    let add = Signature {
        parameters: &params,
        result: &result,
    };
    let out = infer::reduce(&[&x], &[&init], add, &[1]).unwrap();
    assert_eq!(out.to_string(), "f32[B]");
    let w = window(&[3], &[1], &[(0, 0)], &[1], &[1]);
    let v = ArrayShape::new(PrimitiveType::F32, [s("N")]);
    let out = infer::reduce_window(&[&v], &[&init], add, &w).unwrap();
    assert_eq!(out.to_string(), "f32[N - 2]");
    let w = window(&[2], &[2], &[(0, 0)], &[1], &[1]);
    assert_eq!(
        infer::reduce_window(&[&v], &[&init], add, &w).unwrap_err().to_string(),
        "reduce-window: the size of dimension 0 of the result, ⌊(N - 2) / 2⌋ + 1, cannot be expressed"
    );
    let top = infer::topk(&x, &SymDim::constant(2)).unwrap();
    assert_eq!(top.to_string(), "(f32[B, 2], s32[B, 2])");
}
