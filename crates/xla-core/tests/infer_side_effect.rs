//! Token and side-effect rules (`docs/semantics.md`, *Tokens and side effects*), with XLA's HLO
//! shapes.

use xla_core::infer::{self, InferError};
use xla_core::shape::sym::SymDim;
use xla_core::{ArrayShape, PrimitiveType, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

fn show<T: std::fmt::Display>(r: Result<T, InferError>) -> Result<String, String> {
    r.map(|s| s.to_string()).map_err(|e| e.to_string())
}

#[test]
fn tokens() {
    let t = sh("token[]");
    assert_eq!(show(infer::after_all(&[])).unwrap(), "token[]");
    assert_eq!(show(infer::after_all(&[&t, &t])).unwrap(), "token[]");
    assert_eq!(
        show(infer::after_all(&[&t, &sh("f32[]")])).unwrap_err(),
        "after-all: operand 1 must be a token, but is f32[]"
    );
}

#[test]
fn infeed_and_outfeed() {
    let (t, x) = (sh("token[]"), sh("f32[2,3]{0,1}"));
    assert_eq!(show(infer::infeed(&t, &x)).unwrap(), "(f32[2,3], token[])");
    assert_eq!(show(infer::infeed(&t, &sh("()"))).unwrap(), "((), token[])");
    assert_eq!(
        show(infer::infeed(&t, &sh("(f32[2], (s32[]))"))).unwrap_err(),
        "infeed: the instruction's shape (f32[2], (s32[])) must be an array or a tuple of arrays"
    );
    assert_eq!(
        show(infer::infeed(&x, &x)).unwrap_err(),
        "infeed: operand 0 must be a token, but is f32[2,3]"
    );
    assert_eq!(show(infer::outfeed(&x, &t, Some(&x))).unwrap(), "token[]");
    assert_eq!(show(infer::outfeed(&x, &t, None)).unwrap(), "token[]");
    assert_eq!(
        show(infer::outfeed(&x, &t, Some(&sh("f32[3,2]")))).unwrap_err(),
        "outfeed: outfeed_shape = f32[3,2] is invalid: it must be the shape of operand 0"
    );
    assert_eq!(
        show(infer::outfeed(&x, &x, None)).unwrap_err(),
        "outfeed: operand 1 must be a token, but is f32[2,3]"
    );
    assert_eq!(
        show(infer::outfeed(&t, &t, None)).unwrap_err(),
        "outfeed: operand 0 must be an array or a tuple, but is token[]"
    );
}

#[test]
fn send_and_recv() {
    let (t, x) = (sh("token[]"), sh("f32[4]"));
    let context = infer::send(&x, &t).unwrap();
    assert_eq!(context.to_string(), "(f32[4], u32[], token[])");
    assert_eq!(show(infer::send_done(&context)).unwrap(), "token[]");
    let context = infer::recv(&t, &x).unwrap();
    assert_eq!(context.to_string(), "(f32[4], u32[], token[])");
    assert_eq!(
        show(infer::recv_done(&context)).unwrap(),
        "(f32[4], token[])"
    );
    assert_eq!(
        show(infer::recv_done(&sh("(f32[4], token[])"))).unwrap_err(),
        "recv-done: operand 0 must be a send or recv context (data, u32[], token[]), \
         but is (f32[4], token[])"
    );
    assert_eq!(
        show(infer::send(&x, &x)).unwrap_err(),
        "send: operand 1 must be a token, but is f32[4]"
    );
    assert_eq!(
        show(infer::recv(&x, &x)).unwrap_err(),
        "recv: operand 0 must be a token, but is f32[4]"
    );
    assert_eq!(
        show(infer::send_done(&x)).unwrap_err(),
        "send-done: operand 0 must be a send or recv context (data, u32[], token[]), but is f32[4]"
    );
}

#[test]
fn symbolic_data() {
    let data: Shape<SymDim> = ArrayShape::new(PrimitiveType::F32, [SymDim::symbol("B")]).into();
    let token = Shape::Token;
    assert_eq!(
        infer::infeed(&token, &data).unwrap().to_string(),
        "(f32[B], token[])"
    );
    let context = infer::send(&data, &token).unwrap();
    assert_eq!(context.to_string(), "(f32[B], u32[], token[])");
}
