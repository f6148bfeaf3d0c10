// Sizes are polynomials in the dimension names, compared exactly.
use xla::prelude::*;

xla! {
    fn reshape(x: f32[B, N]) -> f32[B * N] {
        x.reshape([B * N + 1])
    }

    fn concatenate(a: f32[A, N], b: f32[B, M]) -> f32[A + B, N] {
        concat([a, b], 0)
    }

    fn slice(x: f32[N]) -> f32[N] {
        x.slice([1], [N + 1])
    }

    fn pad(x: f32[2]) -> f32[0] {
        x.pad(0.0, [(-2, -1, 0)])
    }

    fn result(x: f32[N]) -> f32[N] {
        x.slice([1], [N - 1])
    }
}

fn main() {}
