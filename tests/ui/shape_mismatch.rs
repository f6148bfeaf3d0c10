// Shape rules are xla-core's inference, run on symbolic sizes.
use xla::prelude::*;

xla! {
    fn add_transposed(x: f32[B, N], y: f32[N, B]) -> f32[B, N] {
        x + y
    }

    fn matmul(a: f32[M, K], b: f32[N, K]) -> f32[M, N] {
        a.dot(b)
    }

    fn rank_mismatch(x: f32[B, N], v: f32[N]) -> f32[B, N] {
        x * v
    }

    fn broadcast_dims(x: f32[B, N], v: f32[B]) -> f32[B, N] {
        x.add(v, [1])
    }

    fn broadcast_in_dim(m: f32[B], x: f32[B, N]) -> f32[B, N] {
        x + m.broadcast_in_dim([B, N], [1])
    }
}

fn main() {}
