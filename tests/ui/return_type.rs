// The body must give exactly the declared result type.
use xla::prelude::*;

xla! {
    fn wrong_rank(x: f32[B, N]) -> f32[B, N] {
        x.reduce_sum([1])
    }

    fn wrong_type(x: f32[N]) -> s32[N] {
        x
    }

    fn wrong_tuple(x: f32[N]) -> (f32[N], f32[N]) {
        (x, x, x)
    }

    fn ascription(x: f32[N]) -> f32[N] {
        let y: f32[N, 1] = x.exp();
        x
    }
}

fn main() {}
