// Closures are computations of their own: scalar parameters, no captures.
use xla::prelude::*;

xla! {
    fn captures(x: f32[N], scale: f32) -> f32[N] {
        x.map(|v| v * scale)
    }

    fn wrong_result(x: f32[N]) -> f32[] {
        x.reduce(0.0, |a, b| a < b, [0])
    }

    fn wrong_arity(x: f32[N]) -> f32[] {
        x.reduce(0.0, |a| a, [0])
    }

    fn comparator(x: f32[N]) -> f32[N] {
        x.sort(0, |a, b| a - b)
    }

    fn not_a_closure(x: f32[N]) -> f32[N] {
        x.map(x)
    }
}

fn main() {}
