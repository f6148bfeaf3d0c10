use xla::prelude::*;

xla! {
    /// Dense layer with ReLU.
    pub fn dense(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        let y = x.dot(w) + b.broadcast_in_dim([B, N], [1]);
        y.max(0.0)
    }

    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }
}

fn main() {
    let _ = softmax::computation(softmax::Dims { B: 2, N: 3 });
}
