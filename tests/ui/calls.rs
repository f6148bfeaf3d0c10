// A call binds the callee's dimension names from the arguments.
use xla::prelude::*;

xla! {
    fn dense(x: f32[B, K], w: f32[K, N]) -> f32[B, N] {
        x.dot(w)
    }

    fn wrong_inner(x: f32[B, I], w: f32[H, O]) -> f32[B, O] {
        dense(x, w)
    }

    fn wrong_type(x: s32[B, K], w: f32[K, N]) -> f32[B, N] {
        dense(x, w)
    }

    fn recursive(x: f32[N]) -> f32[N] {
        recursive(x)
    }
}

fn main() {}
