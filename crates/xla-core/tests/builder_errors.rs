//! Builder errors: foreign ops, shape errors (whole messages), parameter
//! numbering, sub-computation signatures.

use xla_core::builder::{create_scalar_computation, BuilderError, XlaBuilder};
use xla_core::{Error, PrimitiveType::*, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

#[test]
fn foreign_ops_are_errors() {
    let b = XlaBuilder::new("f");
    let other = XlaBuilder::new("g");
    let x = b.parameter(0, &sh("f32[2]"), "x").unwrap();
    let y = other.parameter(0, &sh("f32[2]"), "y").unwrap();
    let err = b.add(x, y, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "add: operand 1 was built by another XlaBuilder, not by `f`"
    );
    assert!(matches!(
        err,
        Error::Builder(BuilderError::ForeignOp { index: 1, .. })
    ));
    assert_eq!(
        b.build(y).unwrap_err().to_string(),
        "build: operand 0 was built by another XlaBuilder, not by `f`"
    );
    assert_eq!(
        other.get_shape(x).unwrap_err().to_string(),
        "get_shape: operand 0 was built by another XlaBuilder, not by `g`"
    );
}

#[test]
fn shape_errors_name_op_operand_dimension_and_shapes() {
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[2,3]"), "x").unwrap();
    let y = b.parameter(1, &sh("f32[3,2]"), "y").unwrap();
    let v = b.parameter(2, &sh("f32[4,5]"), "v").unwrap();
    assert_eq!(
        b.add(x, y, &[]).unwrap_err().to_string(),
        "add: shapes f32[2,3] and f32[3,2] are not compatible: \
         dimension 0 is 2 in operand 0 but 3 in operand 1"
    );
    let err = b.dot(x, v).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dot: dimension 1 of operand 0 f32[2,3] has size 3, but dimension 0 of operand 1 f32[4,5] has size 4"
    );
    assert!(matches!(err, Error::Infer(_)));
    assert_eq!(
        b.reshape(x, &[4]).unwrap_err().to_string(),
        "reshape: operand 0 f32[2,3] has 6 elements, but f32[4] has 4"
    );
    assert_eq!(
        b.broadcast_in_dim(x, &[2, 4], &[0, 1])
            .unwrap_err()
            .to_string(),
        "broadcast_in_dim: dimension 1 of operand 0 f32[2,3] has size 3, \
         but it maps to dimension 1 of the result f32[2,4], which has size 4"
    );
    assert_eq!(
        b.slice_in_dim(x, 0, 1, 1, 2).unwrap_err().to_string(),
        "slice_in_dim: dimno = 2 is out of range [0, 2)"
    );
    let t = b.tuple(&[x, y]).unwrap();
    assert_eq!(
        b.neg(t).unwrap_err().to_string(),
        "negate: operand 0 must be an array, but is (f32[2,3], f32[3,2])"
    );
    assert_eq!(
        b.all_gather(x, 0, 4, &[vec![0, 1]], None)
            .unwrap_err()
            .to_string(),
        "all-gather: replica_groups[0] has 2 replicas, but 4 are needed"
    );
}

#[test]
fn sub_computation_signatures_are_checked() {
    let add_s32 = create_scalar_computation("add", S32, |b, x, y| b.add(x, y, &[])).unwrap();
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[2,3]"), "x").unwrap();
    let zero = b.constant_r0(0f32).unwrap();
    assert_eq!(
        b.reduce(&[x], &[zero], &add_s32, &[1])
            .unwrap_err()
            .to_string(),
        "reduce: parameter 0 of to_apply must be f32[], but is s32[]"
    );
    let cond = create_scalar_computation("cond", F32, |b, x, y| b.lt(x, y, &[])).unwrap();
    assert_eq!(
        b.while_loop(&cond, &cond, zero).unwrap_err().to_string(),
        "while: condition must take 1 parameter, but takes 2"
    );
}

#[test]
fn parameter_numbering() {
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[]"), "x").unwrap();
    assert_eq!(
        b.parameter(0, &sh("f32[]"), "again")
            .unwrap_err()
            .to_string(),
        "parameter: number 0 is already taken by x.1 in `f`"
    );
    assert_eq!(
        b.parameter(-1, &sh("f32[]"), "neg")
            .unwrap_err()
            .to_string(),
        "parameter: number -1 is negative"
    );
    let z = b.parameter(2, &sh("f32[]"), "z").unwrap();
    let sum = b.add(x, z, &[]).unwrap();
    let err = b.build(sum).unwrap_err();
    assert_eq!(
        err.to_string(),
        "parameter z.2 of computation f has number 2, but the computation has 2 parameters (numbered from 0)"
    );
    assert!(matches!(err, Error::Verify(_)));
    let named = XlaBuilder::new("my model");
    let p = named.parameter(0, &sh("f32[]"), "in put").unwrap();
    let c = named.build(p).unwrap();
    assert_eq!(c.name(), "my_model");
    assert_eq!(
        c.module().entry_computation().instructions[0].name,
        "in_put.1"
    );
}
