//! Dynamic-dimension rules (`docs/semantics.md`, *Dynamic dimension sizes*).

use xla_core::infer::{self, InferError};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, PrimitiveType};

fn a(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

#[test]
fn get_and_set_dimension_size() {
    assert_eq!(
        show(infer::get_dimension_size(&a("f32[10]"), 0)).unwrap(),
        "s32[]"
    );
    assert_eq!(
        show(infer::get_dimension_size(&a("f32[10]"), 1)).unwrap_err(),
        "get-dimension-size: dimensions[0] = 1 is out of range [0, 1)"
    );
    assert_eq!(
        show(infer::set_dimension_size(&a("f32[10]"), &a("s32[]"), 0)).unwrap(),
        "f32[<=10]"
    );
    assert_eq!(
        show(infer::set_dimension_size(&a("f32[2,10]"), &a("s32[]"), 1)).unwrap(),
        "f32[2,<=10]"
    );
    assert_eq!(
        show(infer::set_dimension_size(&a("f32[10]"), &a("s64[]"), 0)).unwrap_err(),
        "set-dimension-size: operand 1 s64[] must have an s32 element type"
    );
    assert_eq!(
        show(infer::set_dimension_size(&a("f32[10]"), &a("s32[1]"), 0)).unwrap_err(),
        "set-dimension-size: operand 1 must be a scalar, but is s32[1]"
    );
    assert_eq!(
        show(infer::set_dimension_size(&a("f32[10]"), &a("s32[]"), -1)).unwrap_err(),
        "set-dimension-size: dimensions[0] = -1 is out of range [0, 1)"
    );
}

#[test]
fn symbolic_bound() {
    let x = ArrayShape::new(PrimitiveType::F32, [SymDim::symbol("N")]);
    let size = ArrayShape::new(PrimitiveType::S32, Vec::<SymDim>::new());
    assert_eq!(
        infer::set_dimension_size(&x, &size, 0).unwrap().to_string(),
        "f32[<=N]"
    );
    assert_eq!(
        infer::get_dimension_size(&x, 0).unwrap().to_string(),
        "s32[]"
    );
}
