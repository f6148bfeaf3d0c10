//! Broadcasting rules: every example of `docs/semantics.md`, *Broadcasting*.

use xla_core::hlo::Opcode;
use xla_core::infer::{self, InferError};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn bin(lhs: &str, rhs: &str, dims: Option<&[i64]>) -> Result<String, String> {
    infer::broadcast_binary("add", &a(lhs), &a(rhs), dims)
        .map(|s| s.to_string())
        .map_err(|e| e.to_string())
}

fn sym(dims: &[&str]) -> ArrayShape<SymDim> {
    let dims: Vec<SymDim> = dims
        .iter()
        .map(|d| match d.parse::<i64>() {
            Ok(v) => SymDim::constant(v),
            Err(_) => SymDim::symbol(*d),
        })
        .collect();
    ArrayShape::new(PrimitiveType::F32, dims)
}

#[test]
fn in_dim_validity_table() {
    // `docs/semantics.md`, *InDim broadcasting*, valid rows (small operand first and second).
    assert_eq!(bin("f32[]", "f32[2,3]", None).unwrap(), "f32[2,3]");
    assert_eq!(bin("f32[3]", "f32[4,3]", Some(&[1])).unwrap(), "f32[4,3]");
    assert_eq!(
        bin("f32[2,3]", "f32[2,3,4]", Some(&[0, 1])).unwrap(),
        "f32[2,3,4]"
    );
    assert_eq!(
        bin("f32[2,1]", "f32[2,3,4]", Some(&[0, 2])).unwrap(),
        "f32[2,3,4]"
    );
    assert_eq!(
        bin("f32[2,3]", "f32[2,1,4]", Some(&[0, 1])).unwrap(),
        "f32[2,3,4]"
    );
    assert_eq!(
        bin("f32[2,3,4]", "f32[2,1]", Some(&[0, 2])).unwrap(),
        "f32[2,3,4]"
    );
    // Invalid rows.
    assert_eq!(
        bin("f32[3]", "f32[4,3]", Some(&[0])).unwrap_err(),
        "add: shapes f32[3] and f32[4,3] are not compatible with broadcast_dimensions={0}: \
         dimension 0 of operand 0 has size 3, but it maps to dimension 0 of operand 1, \
         which has size 4"
    );
    assert_eq!(
        bin("f32[2,1]", "f32[2,3,4]", Some(&[1, 0])).unwrap_err(),
        "add: broadcast_dimensions must be increasing, \
         but broadcast_dimensions[1] = 0 follows 1"
    );
    assert_eq!(
        bin("f32[3]", "f32[2,3]", Some(&[0, 1])).unwrap_err(),
        "add: broadcast_dimensions has 2 entries, but operand 0 f32[3] has rank 1"
    );
    assert_eq!(
        bin("f32[3]", "f32[2,3]", None).unwrap_err(),
        "add: operands f32[3] and f32[2,3] have different ranks, so broadcast_dimensions \
         must say which dimensions of the higher-rank operand the other's map to"
    );
}

#[test]
fn in_dim_range_and_scalars() {
    assert_eq!(
        bin("f32[3]", "f32[2,3]", Some(&[2])).unwrap_err(),
        "add: broadcast_dimensions[0] = 2 is out of range [0, 2)"
    );
    assert_eq!(
        bin("f32[2,3]", "f32[]", Some(&[0])).unwrap_err(),
        "add: broadcast_dimensions has 1 entry, but operand 1 f32[] has rank 0"
    );
    assert_eq!(bin("f32[2,3]", "f32[]", Some(&[])).unwrap(), "f32[2,3]");
}

#[test]
fn degenerate_table() {
    // `docs/semantics.md`, *Degenerate-dimension broadcasting*.
    assert_eq!(bin("f32[2,1]", "f32[2,3]", None).unwrap(), "f32[2,3]");
    assert_eq!(bin("f32[1,2,5]", "f32[7,2,5]", None).unwrap(), "f32[7,2,5]");
    assert_eq!(bin("f32[7,2,5]", "f32[7,1,5]", None).unwrap(), "f32[7,2,5]");
    assert_eq!(bin("f32[2,1]", "f32[1,3]", None).unwrap(), "f32[2,3]");
    assert_eq!(
        bin("f32[7,2,5]", "f32[7,2,6]", None).unwrap_err(),
        "add: shapes f32[7,2,5] and f32[7,2,6] are not compatible: \
         dimension 2 is 5 in operand 0 but 6 in operand 1"
    );
    // Size 0 is compatible with 0 and 1 and gives 0.
    assert_eq!(bin("f32[0,3]", "f32[1,3]", None).unwrap(), "f32[0,3]");
    assert_eq!(bin("f32[1]", "f32[0]", None).unwrap(), "f32[0]");
    assert_eq!(
        bin("f32[0]", "f32[2]", None).unwrap_err(),
        "add: shapes f32[0] and f32[2] are not compatible: \
         dimension 0 is 0 in operand 0 but 2 in operand 1"
    );
}

#[test]
fn equal_ranks_accept_only_identity_dimensions() {
    assert_eq!(
        bin("f32[2,3]", "f32[2,3]", Some(&[0, 1])).unwrap(),
        "f32[2,3]"
    );
    assert_eq!(
        bin("f32[2,3]", "f32[2,3]", Some(&[1, 0])).unwrap_err(),
        "add: broadcast_dimensions={1,0} must be empty or the identity \
         for operands f32[2,3] and f32[2,3] of equal rank"
    );
    assert_eq!(
        bin("f32[2,3]", "f32[3,2]", None).unwrap_err(),
        "add: shapes f32[2,3] and f32[3,2] are not compatible: \
         dimension 0 is 2 in operand 0 but 3 in operand 1"
    );
}

#[test]
fn composition_examples() {
    // `docs/semantics.md`, *Combined broadcasting* example A: [4] + [1,2] with {0} → [4,2].
    assert_eq!(bin("f32[4]", "f32[1,2]", Some(&[0])).unwrap(), "f32[4,2]");
    // Example B: [1,2] + [4,3,1] with {1,2} → [4,3,2].
    assert_eq!(
        bin("f32[1,2]", "f32[4,3,1]", Some(&[1, 2])).unwrap(),
        "f32[4,3,2]"
    );
}

#[test]
fn layouts_are_ignored() {
    assert_eq!(
        bin("f32[2,3]{0,1}", "f32[2,3]{1,0}", None).unwrap(),
        "f32[2,3]"
    );
    assert_eq!(
        bin("f32[2,3]{0,1}", "f32[3]{0}", None).unwrap_err(),
        "add: operands f32[2,3] and f32[3] have different ranks, so broadcast_dimensions \
         must say which dimensions of the higher-rank operand the other's map to"
    );
}

#[test]
fn symbolic_sizes() {
    let ok = infer::binary(Opcode::Add, &sym(&["B", "1"]), &sym(&["1", "N"]), None).unwrap();
    assert_eq!(ok.to_string(), "f32[B, N]");
    let err = infer::binary(Opcode::Add, &sym(&["B", "N"]), &sym(&["N", "B"]), None);
    assert_eq!(
        err.unwrap_err().to_string(),
        "add: shapes f32[B, N] and f32[N, B] are not compatible: \
         dimension 0 is B in operand 0 but N in operand 1"
    );
    let row = infer::binary(Opcode::Add, &sym(&["B", "N"]), &sym(&["N"]), Some(&[1])).unwrap();
    assert_eq!(row.to_string(), "f32[B, N]");
}

#[test]
fn broadcast_prepends() {
    let out = infer::broadcast(&a("f32[]"), &[2, 3]).unwrap();
    assert_eq!(out.to_string(), "f32[2,3]");
    let out = infer::broadcast(&a("f32[3]{0}"), &[2]).unwrap();
    assert_eq!(out.to_string(), "f32[2,3]");
    assert_eq!(
        infer::broadcast(&a("f32[3]"), &[2, -1])
            .unwrap_err()
            .to_string(),
        "broadcast: broadcast_sizes[1] = -1 is negative"
    );
}

#[test]
fn broadcast_in_dim_examples() {
    let ok = |operand: &str, out: &[i64], dims: &[i64]| {
        infer::broadcast_in_dim(&a(operand), out, dims)
            .map(|s| s.to_string())
            .map_err(|e| e.to_string())
    };
    // `docs/semantics.md`, *Broadcast and broadcast-in-dim*.
    assert_eq!(ok("f32[3]", &[2, 3], &[1]).unwrap(), "f32[2,3]");
    assert_eq!(ok("f32[3]", &[3, 2], &[0]).unwrap(), "f32[3,2]");
    assert_eq!(ok("f32[2,1]", &[2, 3], &[0, 1]).unwrap(), "f32[2,3]");
    assert_eq!(
        ok("f32[3]", &[3, 2], &[1]).unwrap_err(),
        "broadcast_in_dim: dimension 0 of operand 0 f32[3] has size 3, \
         but it maps to dimension 1 of the result f32[3,2], which has size 2"
    );
    assert_eq!(
        ok("f32[2,3]", &[2, 3, 4], &[1, 0]).unwrap_err(),
        "broadcast_in_dim: broadcast_dimensions must be increasing, \
         but broadcast_dimensions[1] = 0 follows 1"
    );
    assert_eq!(
        ok("f32[2,3]", &[2, 3], &[0]).unwrap_err(),
        "broadcast_in_dim: broadcast_dimensions has 1 entry, but operand 0 f32[2,3] has rank 2"
    );
    assert_eq!(
        ok("f32[3]", &[3], &[1]).unwrap_err(),
        "broadcast_in_dim: broadcast_dimensions[0] = 1 is out of range [0, 1)"
    );
    assert_eq!(
        ok("f32[3]", &[-3, 3], &[1]).unwrap_err(),
        "broadcast_in_dim: out_dim_size[0] = -3 is negative"
    );
}

#[test]
fn hlo_broadcast_is_exact_but_may_transpose() {
    let ok = |operand: &str, out: &[i64], dims: &[i64]| {
        infer::in_dim_broadcast(&a(operand), out, dims)
            .map(|s| s.to_string())
            .map_err(|e| e.to_string())
    };
    assert_eq!(ok("f32[3]", &[2, 3], &[1]).unwrap(), "f32[2,3]");
    assert_eq!(ok("f32[2,3]", &[3, 2], &[1, 0]).unwrap(), "f32[3,2]");
    assert_eq!(
        ok("f32[1]", &[4], &[0]).unwrap_err(),
        "broadcast: dimension 0 of operand 0 f32[1] has size 1, \
         but it maps to dimension 0 of the result f32[4], which has size 4"
    );
    assert_eq!(
        ok("f32[3]", &[3, 3], &[0, 0]).unwrap_err(),
        "broadcast: dimensions has 2 entries, but operand 0 f32[3] has rank 1"
    );
    assert_eq!(
        ok("f32[3,3]", &[3, 3], &[0, 0]).unwrap_err(),
        "broadcast: dimensions[1] = 0 repeats an earlier entry"
    );
}

#[test]
fn errors_are_typed() {
    let err = infer::broadcast_binary("add", &a("f32[2]"), &a("f32[3]"), None).unwrap_err();
    assert!(matches!(err, InferError::Incompatible { dim: 0, .. }));
}
