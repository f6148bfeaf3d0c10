//! Indexing rules: dynamic-slice, dynamic-update-slice, gather, scatter
//! (`docs/semantics.md`, *Gather*, *Scatter*, *Dynamic slices*).

use xla_core::hlo::{GatherDimensionNumbers, ProgramShape, ScatterDimensionNumbers};
use xla_core::infer::{self, InferError, Signature};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

fn ds(operand: &str, indices: &[&str], sizes: &[i64]) -> Result<String, String> {
    let idx: Vec<ArrayShape> = indices.iter().map(|i| a(i)).collect();
    let refs: Vec<&ArrayShape> = idx.iter().collect();
    show(infer::dynamic_slice(&a(operand), &refs, sizes))
}

fn dus(operand: &str, update: &str, indices: &[&str]) -> Result<String, String> {
    let idx: Vec<ArrayShape> = indices.iter().map(|i| a(i)).collect();
    let refs: Vec<&ArrayShape> = idx.iter().collect();
    show(infer::dynamic_update_slice(&a(operand), &a(update), &refs))
}

#[test]
fn dynamic_slice_rules() {
    // `docs/semantics.md`, *Dynamic slices*.
    assert_eq!(ds("f32[5]", &["s32[]"], &[2]).unwrap(), "f32[2]");
    assert_eq!(
        ds("f32[4,3]", &["s32[]", "s32[]"], &[2, 2]).unwrap(),
        "f32[2,2]"
    );
    assert_eq!(
        ds("f32[4,3]", &["u8[]", "u8[]"], &[0, 3]).unwrap(),
        "f32[0,3]"
    );
    assert_eq!(
        ds("f32[4,3]", &["s32[]"], &[2, 2]).unwrap_err(),
        "dynamic-slice: expected 3 operands, got 2"
    );
    assert_eq!(
        ds("f32[4]", &["s32[1]"], &[2]).unwrap_err(),
        "dynamic-slice: operand 1 must be a scalar, but is s32[1]"
    );
    assert_eq!(
        ds("f32[4]", &["f32[]"], &[2]).unwrap_err(),
        "dynamic-slice: operand 1 f32[] must have an integral element type"
    );
    assert_eq!(
        ds("f32[4,3]", &["s32[]", "s64[]"], &[2, 2]).unwrap_err(),
        "dynamic-slice: operand 2 s64[] must have the element type of operand 1 s32[]"
    );
    assert_eq!(
        ds("f32[5]", &["s32[]"], &[6]).unwrap_err(),
        "dynamic-slice: dynamic_slice_sizes[0] = 6 exceeds the size 5 of dimension 0 of operand 0 f32[5]"
    );
    assert_eq!(
        ds("f32[5]", &["s32[]"], &[-1]).unwrap_err(),
        "dynamic-slice: dynamic_slice_sizes[0] = -1 is negative"
    );
    assert_eq!(
        ds("f32[5]", &["s32[]"], &[1, 1]).unwrap_err(),
        "dynamic-slice: dynamic_slice_sizes has 2 entries, but operand 0 f32[5] has rank 1"
    );
}

#[test]
fn dynamic_update_slice_rules() {
    assert_eq!(dus("f32[5]", "f32[2]", &["s32[]"]).unwrap(), "f32[5]");
    assert_eq!(
        dus("f32[4,3]", "f32[3,2]", &["s32[]", "s32[]"]).unwrap(),
        "f32[4,3]"
    );
    assert_eq!(
        dus("f32[4,3]", "f32[0,0]", &["s32[]", "s32[]"]).unwrap(),
        "f32[4,3]"
    );
    assert_eq!(
        dus("f32[4,3]", "f32[5,2]", &["s32[]", "s32[]"]).unwrap_err(),
        "dynamic-update-slice: dimension 0 of operand 1 f32[5,2] has size 5, \
         which exceeds the size 4 of dimension 0 of operand 0 f32[4,3]"
    );
    assert_eq!(
        dus("f32[4,3]", "f32[2]", &["s32[]", "s32[]"]).unwrap_err(),
        "dynamic-update-slice: operand 1 f32[2] has rank 1, but operand 0 f32[4,3] has rank 2"
    );
    assert_eq!(
        dus("f32[4]", "s32[2]", &["s32[]"]).unwrap_err(),
        "dynamic-update-slice: operand 1 s32[2] must have the element type of operand 0 f32[4]"
    );
    assert_eq!(
        dus("f32[4]", "f32[2]", &[]).unwrap_err(),
        "dynamic-update-slice: expected 3 operands, got 2"
    );
}

fn gdims(offset: &[i64], collapsed: &[i64], map: &[i64], ivd: i64) -> GatherDimensionNumbers {
    GatherDimensionNumbers {
        offset_dims: offset.to_vec(),
        collapsed_slice_dims: collapsed.to_vec(),
        start_index_map: map.to_vec(),
        index_vector_dim: ivd,
        ..Default::default()
    }
}

fn gather(
    operand: &str,
    indices: &str,
    dims: &GatherDimensionNumbers,
    sizes: &[i64],
) -> Result<String, String> {
    show(infer::gather(&a(operand), &a(indices), dims, sizes))
}

#[test]
fn gather_reference_configurations() {
    // `docs/semantics.md`, *Gather*.
    let d = gdims(&[1, 2], &[], &[0, 1], 1);
    assert_eq!(
        gather("f32[16,11]", "s64[5,2]", &d, &[8, 6]).unwrap(),
        "f32[5,8,6]"
    );
    let d = gdims(&[2, 3], &[], &[0, 1], 2);
    assert_eq!(
        gather("f32[16,11]", "s64[4,5,2]", &d, &[8, 6]).unwrap(),
        "f32[4,5,8,6]"
    );
    let d = gdims(&[2], &[0], &[0], 2);
    assert_eq!(
        gather("f32[16,11]", "s32[2,3,1]", &d, &[1, 11]).unwrap(),
        "f32[2,3,11]"
    );
    // `docs/semantics.md`, *Gather* worked examples.
    let d = gdims(&[1], &[0], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, 3]).unwrap(),
        "s32[2,3]"
    );
    let d = gdims(&[1, 2], &[], &[0, 1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[2, 2]).unwrap(),
        "s32[3,2,2]"
    );
    let d = gdims(&[0], &[1], &[1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2]", &d, &[3, 1]).unwrap(),
        "s32[3,2]"
    );
    let d = gdims(&[], &[0, 1], &[0, 1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[1, 1]).unwrap(),
        "s32[3]"
    );
    let d = gdims(&[2], &[0], &[0], 2);
    assert_eq!(
        gather("s32[4,3]", "s32[2,2,1]", &d, &[1, 3]).unwrap(),
        "s32[2,2,3]"
    );
}

#[test]
fn gather_batching_dims() {
    // As JAX prints `take_along_axis`: operand and indices share dimension 0.
    let mut d = gdims(&[1], &[], &[1], 1);
    d.operand_batching_dims = vec![0];
    d.start_indices_batching_dims = vec![0];
    assert_eq!(
        gather("f64[128,256]", "s32[128,1]", &d, &[1, 128]).unwrap(),
        "f64[128,128]"
    );
    assert_eq!(
        gather("f64[128,256]", "s32[64,1]", &d, &[1, 128]).unwrap_err(),
        "gather: dimension 0 of operand 0 f64[128,256] has size 128, \
         but dimension 0 of operand 1 s32[64,1] has size 64"
    );
    let mut overlap = d.clone();
    overlap.start_index_map = vec![0];
    assert_eq!(
        gather("f64[128,256]", "s32[128,1]", &overlap, &[1, 128]).unwrap_err(),
        "gather: dimension 0 is in both start_index_map and operand_batching_dims"
    );
    let mut on_ivd = d.clone();
    on_ivd.start_indices_batching_dims = vec![1];
    assert_eq!(
        gather("f64[128,256]", "s32[128,1]", &on_ivd, &[1, 128]).unwrap_err(),
        "gather: dimension 1 is in both start_indices_batching_dims and index_vector_dim"
    );
    let mut unpaired = d.clone();
    unpaired.start_indices_batching_dims = vec![];
    assert_eq!(
        gather("f64[128,256]", "s32[128,1]", &unpaired, &[1, 128]).unwrap_err(),
        "gather: start_indices_batching_dims has 0 entries, but operand_batching_dims is 1"
    );
    assert_eq!(
        gather("f64[128,256]", "s32[128,1]", &d, &[2, 128]).unwrap_err(),
        "gather: slice_sizes = {2,128} is invalid: dimensions in collapsed_slice_dims \
         or operand_batching_dims must have slice size 0 or 1"
    );
}

#[test]
fn gather_constraints() {
    // Rule 1: index_vector_dim ≤ rank(start_indices).
    let d = gdims(&[1], &[0], &[0], 3);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, 3]).unwrap_err(),
        "gather: index_vector_dim = 3 is out of range [0, 3)"
    );
    // Rule 2: one slice size per operand dimension, within the operand.
    let d = gdims(&[1], &[0], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1]).unwrap_err(),
        "gather: slice_sizes has 1 entry, but operand 0 s32[3,3] has rank 2"
    );
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, 4]).unwrap_err(),
        "gather: slice_sizes[1] = 4 exceeds the size 3 of dimension 1 of operand 0 s32[3,3]"
    );
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, -1]).unwrap_err(),
        "gather: slice_sizes[1] = -1 is negative"
    );
    // Rule 3: rank(operand) = len(offset_dims) + len(collapsed_slice_dims).
    let d = gdims(&[1], &[], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, 3]).unwrap_err(),
        "gather: offset_dims + collapsed_slice_dims + operand_batching_dims has 1 entry, \
         but operand 0 s32[3,3] has rank 2"
    );
    // Rule 4: offset_dims ascending, in range.
    let d = gdims(&[2, 1], &[], &[0, 1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[2, 2]).unwrap_err(),
        "gather: offset_dims must be increasing, but offset_dims[1] = 1 follows 2"
    );
    let d = gdims(&[1, 1], &[], &[0, 1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[2, 2]).unwrap_err(),
        "gather: offset_dims must be increasing, but offset_dims[1] = 1 follows 1"
    );
    let d = gdims(&[1, 3], &[], &[0, 1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[2, 2]).unwrap_err(),
        "gather: offset_dims[1] = 3 is out of range [0, 3)"
    );
    // Rule 5: collapsed_slice_dims ascending, in range, slice size ≤ 1.
    let d = gdims(&[], &[1, 0], &[0, 1], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[1, 1]).unwrap_err(),
        "gather: collapsed_slice_dims must be increasing, but collapsed_slice_dims[1] = 0 follows 1"
    );
    let d = gdims(&[1], &[2], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, 3]).unwrap_err(),
        "gather: collapsed_slice_dims[0] = 2 is out of range [0, 2)"
    );
    let d = gdims(&[1], &[0], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[2, 3]).unwrap_err(),
        "gather: slice_sizes = {2,3} is invalid: dimensions in collapsed_slice_dims \
         or operand_batching_dims must have slice size 0 or 1"
    );
    // Rule 6: start_index_map matches the index vector, distinct, in range.
    let d = gdims(&[1], &[0], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,2]", &d, &[1, 3]).unwrap_err(),
        "gather: start_index_map has 1 entry, but the size of dimension index_vector_dim \
         of the indices is 2"
    );
    let d = gdims(&[1, 2], &[], &[0, 0], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[3,2]", &d, &[2, 2]).unwrap_err(),
        "gather: start_index_map[1] = 0 repeats an earlier entry"
    );
    let d = gdims(&[1], &[0], &[2], 1);
    assert_eq!(
        gather("s32[3,3]", "s32[2,1]", &d, &[1, 3]).unwrap_err(),
        "gather: start_index_map[0] = 2 is out of range [0, 2)"
    );
    // Integral indices.
    let d = gdims(&[1], &[0], &[0], 1);
    assert_eq!(
        gather("s32[3,3]", "f32[2,1]", &d, &[1, 3]).unwrap_err(),
        "gather: operand 1 f32[2,1] must have an integral element type"
    );
}

#[test]
fn symbolic_gather_row_take() {
    let s = SymDim::symbol;
    let operand = ArrayShape::new(PrimitiveType::F32, [s("V"), s("D")]);
    let indices = ArrayShape::new(PrimitiveType::S32, [s("B"), SymDim::constant(1)]);
    let d = gdims(&[1], &[0], &[0], 1);
    let out = infer::gather(&operand, &indices, &d, &[SymDim::constant(1), s("D")]).unwrap();
    assert_eq!(out.to_string(), "f32[B, D]");
}

fn program(params: &[&str], result: &str) -> ProgramShape {
    ProgramShape {
        parameters: params.iter().map(|p| p.parse().unwrap()).collect(),
        result: result.parse().unwrap(),
    }
}

fn sdims(window: &[i64], inserted: &[i64], map: &[i64], ivd: i64) -> ScatterDimensionNumbers {
    ScatterDimensionNumbers {
        update_window_dims: window.to_vec(),
        inserted_window_dims: inserted.to_vec(),
        scatter_dims_to_operand_dims: map.to_vec(),
        index_vector_dim: ivd,
        ..Default::default()
    }
}

fn scatter(
    operand: &str,
    indices: &str,
    updates: &str,
    dims: &ScatterDimensionNumbers,
) -> Result<String, String> {
    let add = program(&["s32[]", "s32[]"], "s32[]");
    let (o, u) = (a(operand), a(updates));
    show(infer::scatter(
        &[&o],
        &a(indices),
        &[&u],
        Signature::from(&add),
        dims,
    ))
}

#[test]
fn scatter_worked_examples() {
    // `docs/semantics.md`, *Scatter*.
    let d = sdims(&[1], &[0], &[0], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "s32[2,3]", &d).unwrap(),
        "s32[3,3]"
    );
    let d = sdims(&[], &[0, 1], &[0, 1], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[3,2]", "s32[3]", &d).unwrap(),
        "s32[3,3]"
    );
    let d = sdims(&[1, 2], &[], &[0, 1], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[2,2]", "s32[2,2,2]", &d).unwrap(),
        "s32[3,3]"
    );
    // Example 5: variadic sum and count.
    let sum_count = program(&["s32[]", "s32[]", "s32[]", "s32[]"], "(s32[], s32[])");
    let (o, u) = (a("s32[3]"), a("s32[3]"));
    let d = sdims(&[], &[0], &[0], 1);
    let out = infer::scatter(
        &[&o, &o],
        &a("s32[3,1]"),
        &[&u, &u],
        Signature::from(&sum_count),
        &d,
    );
    assert_eq!(out.unwrap().to_string(), "(s32[3], s32[3])");
}

#[test]
fn scatter_constraints() {
    let row = sdims(&[1], &[0], &[0], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "s32[2]", &row).unwrap_err(),
        "scatter: update_window_dims[0] = 1 is out of range [0, 1)"
    );
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "s32[2,3,1]", &row).unwrap_err(),
        "scatter: operand 2 s32[2,3,1] must have rank 2"
    );
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "s32[2,4]", &row).unwrap_err(),
        "scatter: dimension 1 of operand 2 s32[2,4] has size 4, \
         which exceeds the size 3 of dimension 1 of operand 0 s32[3,3]"
    );
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "s32[3,3]", &row).unwrap_err(),
        "scatter: dimension 0 of operand 2 s32[3,3] has size 3, \
         but dimension 0 of operand 1 s32[2,1] has size 2"
    );
    let d = sdims(&[1, 0], &[], &[0, 1], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[2,2]", "s32[2,2,2]", &d).unwrap_err(),
        "scatter: update_window_dims must be increasing, but update_window_dims[1] = 0 follows 1"
    );
    let d = sdims(&[], &[1, 0], &[0, 1], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[3,2]", "s32[3]", &d).unwrap_err(),
        "scatter: inserted_window_dims must be increasing, \
         but inserted_window_dims[1] = 0 follows 1"
    );
    let d = sdims(&[1], &[], &[0], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "s32[2,3]", &d).unwrap_err(),
        "scatter: update_window_dims + inserted_window_dims + input_batching_dims has 1 entry, \
         but operand 0 s32[3,3] has rank 2"
    );
    let d = sdims(&[], &[0, 1], &[0], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[3,2]", "s32[3]", &d).unwrap_err(),
        "scatter: scatter_dims_to_operand_dims has 1 entry, but the size of dimension \
         index_vector_dim of the indices is 2"
    );
    let d = sdims(&[], &[0, 1], &[1, 1], 1);
    assert_eq!(
        scatter("s32[3,3]", "s32[3,2]", "s32[3]", &d).unwrap_err(),
        "scatter: scatter_dims_to_operand_dims[1] = 1 repeats an earlier entry"
    );
    assert_eq!(
        scatter("s32[3,3]", "s32[2,1]", "f32[2,3]", &row).unwrap_err(),
        "scatter: operand 2 f32[2,3] must have the element type of operand 0 s32[3,3]"
    );
    let mul_f32 = program(&["f32[]", "f32[]"], "f32[]");
    let (o, u) = (a("s32[3,3]"), a("s32[2,3]"));
    let err = infer::scatter(
        &[&o],
        &a("s32[2,1]"),
        &[&u],
        Signature::from(&mul_f32),
        &row,
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "scatter: parameter 0 of to_apply must be s32[], but is f32[]"
    );
    let err = infer::scatter(
        &[&o, &o],
        &a("s32[2,1]"),
        &[&u],
        Signature::from(&mul_f32),
        &row,
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "scatter: expected 2·N + 1 operands (N operands, the indices, then N updates), got 4"
    );
}

#[test]
fn scatter_batching_dims() {
    // jax.lax.scatter_add with operand_batching_dims=(0,), scatter_indices_batching_dims=(0,).
    let mut d = sdims(&[], &[1], &[1], 1);
    d.input_batching_dims = vec![0];
    d.scatter_indices_batching_dims = vec![0];
    assert_eq!(
        scatter("s32[2,3]", "s32[2,1]", "s32[2]", &d).unwrap(),
        "s32[2,3]"
    );
    assert_eq!(
        scatter("s32[2,3]", "s32[4,1]", "s32[4]", &d).unwrap_err(),
        "scatter: dimension 0 of operand 0 s32[2,3] has size 2, \
         but dimension 0 of operand 1 s32[4,1] has size 4"
    );
}
