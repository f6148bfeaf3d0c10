//! Collective rules (`docs/semantics.md`, *Collectives*).

use xla_core::hlo::ProgramShape;
use xla_core::infer::{self, InferError, Signature};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, Dim, PrimitiveType, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

fn add(ty: &str) -> ProgramShape {
    ProgramShape {
        parameters: vec![sh(ty), sh(ty)],
        result: sh(ty),
    }
}

#[test]
fn all_reduce() {
    let f = add("f32[]");
    let (x, y) = (sh("f32[2]"), sh("f32[3,4]"));
    assert_eq!(
        show(infer::all_reduce(&[&x], Signature::from(&f))).unwrap(),
        "f32[2]"
    );
    assert_eq!(
        show(infer::all_reduce(&[&x, &y], Signature::from(&f))).unwrap(),
        "(f32[2], f32[3,4])"
    );
    assert_eq!(
        show(infer::all_reduce(&[&sh("s32[2]")], Signature::from(&f))).unwrap_err(),
        "all-reduce: parameter 0 of to_apply must be s32[], but is f32[]"
    );
    assert_eq!(
        show(infer::all_reduce(&[&x, &sh("s32[2]")], Signature::from(&f))).unwrap_err(),
        "all-reduce: operand 1 s32[2] must have the element type of operand 0 f32[2]"
    );
    assert_eq!(
        show(infer::all_reduce(&[&sh("(f32[2])")], Signature::from(&f))).unwrap_err(),
        "all-reduce: operand 0 must be an array, but is (f32[2])"
    );
    assert_eq!(
        show(infer::all_reduce(&[], Signature::from(&f))).unwrap_err(),
        "all-reduce: expected at least 1 operand, got 0"
    );
}

#[test]
fn all_gather_and_reduce_scatter() {
    let f = add("f32[]");
    let x = sh("f32[2,3]");
    assert_eq!(show(infer::all_gather(&[&x], 0, 2)).unwrap(), "f32[4,3]");
    assert_eq!(
        show(infer::all_gather(&[&x, &x], 1, 4)).unwrap(),
        "(f32[2,12], f32[2,12])"
    );
    assert_eq!(
        show(infer::all_gather(&[&x], 2, 2)).unwrap_err(),
        "all-gather: dimensions[0] = 2 is out of range [0, 2)"
    );
    assert_eq!(
        show(infer::all_gather(&[&x], 0, 0)).unwrap_err(),
        "all-gather: shard_count = 0 is invalid: it must be at least 1"
    );
    assert_eq!(
        show(infer::reduce_scatter(&[&x], Signature::from(&f), 1, 3)).unwrap(),
        "f32[2,1]"
    );
    assert_eq!(
        show(infer::reduce_scatter(&[&x], Signature::from(&f), 0, 4)).unwrap_err(),
        "reduce-scatter: dimension 0 of operand 0 f32[2,3] has size 2, \
         which is not a multiple of shard_count 4"
    );
}

#[test]
fn all_to_all() {
    let a = |t: &str| t.parse::<ArrayShape>().unwrap();
    // `docs/semantics.md`, *All-to-all*.
    assert_eq!(
        show(infer::all_to_all(&a("f32[4,16]"), 1, 0, 4)).unwrap(),
        "f32[16,4]"
    );
    assert_eq!(
        show(infer::all_to_all(&a("f32[2,2]"), 1, 0, 2)).unwrap(),
        "f32[4,1]"
    );
    assert_eq!(
        show(infer::all_to_all(&a("f32[2,2]"), 0, 1, 2)).unwrap(),
        "f32[1,4]"
    );
    assert_eq!(
        show(infer::all_to_all(&a("f32[4,6]"), 1, 0, 4)).unwrap_err(),
        "all-to-all: dimension 1 of operand 0 f32[4,6] has size 6, \
         which is not a multiple of split_count 4"
    );
    assert_eq!(
        show(infer::all_to_all(&a("f32[4,6]"), 2, 0, 2)).unwrap_err(),
        "all-to-all: split_dimension = 2 is out of range [0, 2)"
    );
    assert_eq!(
        show(infer::all_to_all(&a("f32[4,6]"), 0, -1, 2)).unwrap_err(),
        "all-to-all: concat_dimension = -1 is out of range [0, 2)"
    );
    // The HLO instruction: array form keeps the shape; tuple form returns a tuple.
    let x = sh("f32[4,6]");
    assert_eq!(
        show(infer::all_to_all_instruction(&[&x], Some(1), Some(2))).unwrap(),
        "f32[4,6]"
    );
    assert_eq!(
        show(infer::all_to_all_instruction(&[&x], Some(1), Some(4))).unwrap_err(),
        "all-to-all: dimension 1 of operand 0 f32[4,6] has size 6, \
         which is not a multiple of the replica group size 4"
    );
    assert_eq!(
        show(infer::all_to_all_instruction(&[&x, &x], None, None)).unwrap(),
        "(f32[4,6], f32[4,6])"
    );
    assert_eq!(
        show(infer::all_to_all_instruction(
            &[&x, &sh("f32[4]")],
            None,
            None
        ))
        .unwrap_err(),
        "all-to-all: operand 1 f32[4] must have the same shape as operand 0 f32[4,6]"
    );
    assert_eq!(
        show(infer::all_to_all_instruction(&[&x, &x], Some(0), None)).unwrap_err(),
        "all-to-all: expected 1 operand, got 2"
    );
}

#[test]
fn collective_permute_and_ids() {
    let x = sh("f32[2]");
    let ok = infer::collective_permute(&x, &[(0, 1), (1, 2)]);
    assert_eq!(show(ok).unwrap(), "f32[2]");
    assert_eq!(
        show(infer::collective_permute(&x, &[(0, 1), (0, 2)])).unwrap_err(),
        "collective-permute: source 0 appears in more than one pair of source_target_pairs"
    );
    assert_eq!(
        show(infer::collective_permute(&x, &[(0, 2), (1, 2)])).unwrap_err(),
        "collective-permute: target 2 appears in more than one pair of source_target_pairs"
    );
    assert_eq!(infer::replica_id::<i64>().to_string(), "u32[]");
    assert_eq!(infer::partition_id::<i64>().to_string(), "u32[]");
    let groups = vec![vec![0, 2], vec![1, 3]];
    assert_eq!(
        infer::replica_group_size::<i64>("all-gather", &groups).unwrap(),
        Some(2)
    );
    let ragged = vec![vec![0, 2, 4], vec![1, 3]];
    assert_eq!(
        infer::replica_group_size::<i64>("all-gather", &ragged)
            .unwrap_err()
            .to_string(),
        "all-gather: replica_groups[1] has 2 replicas, but 3 are needed"
    );
}

#[test]
fn symbolic_collectives() {
    let n = SymDim::symbol("N");
    let x: Shape<SymDim> =
        ArrayShape::new(PrimitiveType::F32, [n.clone(), SymDim::constant(8)]).into();
    assert_eq!(
        infer::all_gather(&[&x], 0, 4).unwrap().to_string(),
        "f32[4 * N, 8]"
    );
    let four_n = ArrayShape::new(PrimitiveType::F32, [n.mul(&SymDim::constant(4))]);
    assert_eq!(
        infer::all_to_all(&four_n, 0, 0, 4).unwrap().to_string(),
        "f32[4 * N]"
    );
    let plain = ArrayShape::new(PrimitiveType::F32, [n]);
    assert_eq!(
        infer::all_to_all(&plain, 0, 0, 4).unwrap_err().to_string(),
        "all-to-all: the size of dimension 0 of the result, N / 4, cannot be expressed"
    );
}
