// Methods, free functions and the invocation's own functions check their
// argument counts.
use xla::prelude::*;

xla! {
    fn methods(x: f32[B, N]) -> f32[B] {
        let a = x.exp(1);
        x.reduce_sum([1], [0])
    }

    fn free_function(x: f32[N]) -> f32[N] {
        select(x > 0.0, x)
    }

    fn callee(x: f32[N], y: f32[N]) -> f32[N] {
        x + y
    }

    fn caller(x: f32[N]) -> f32[N] {
        callee(x)
    }
}

fn main() {}
