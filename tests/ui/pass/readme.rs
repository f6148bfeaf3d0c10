// The example of README.md and crates/xla-macros/README.md.
use xla::prelude::*;

xla! {
    /// Dense layer with ReLU.
    pub fn dense(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        let y = x.dot(w) + b.broadcast_in_dim([B, N], [1]);
        y.max(0.0)
    }

    /// Row-wise softmax.
    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 0.0, 0.0, 0.0])?;
    let y = softmax::call(default_backend(), &x)?;
    println!("{y}");
    Ok(())
}
