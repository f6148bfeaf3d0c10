// One mistake gives one error: values depending on a failed expression
// are not checked again, and code using the function compiles against its
// stub.
use xla::prelude::*;

xla! {
    fn cascade(x: f32[B, N], y: f32[N, B]) -> f32[B, N] {
        let z = x + y;
        let w = z.exp() * 2.0;
        let s = w.reduce_sum([1]);
        w / s.broadcast_in_dim([B, N], [0])
    }

    fn independent(x: f32[N], i: s32[N]) -> f32[N] {
        let a = x + i;
        let b = x.reduce_summ([0]);
        a
    }
}

fn main() {
    let _ = cascade::computation(cascade::Dims { B: 1, N: 2 });
}

// The stub has the signature the function would have.
#[allow(dead_code)]
fn composed(b: &XlaBuilder, x: XlaOp, i: XlaOp) -> Result<XlaOp, DslError> {
    let y = independent::build(b, x, i)?;
    Ok(b.exp(y)?)
}
