// Dimension numbers are checked by the ops' inference rules.
use xla::prelude::*;

xla! {
    fn out_of_range(x: f32[B, N]) -> f32[B] {
        x.reduce_sum([2])
    }

    fn repeated(x: f32[B, N]) -> f32[] {
        x.reduce_sum([1, 1])
    }

    fn not_increasing(v: f32[N], x: f32[N, B]) -> f32[N, B] {
        v.reshape([N, 1]).broadcast_in_dim([N, B], [1, 0])
    }

    fn not_a_permutation(x: f32[A, B, C]) -> f32[C, B, A] {
        x.transpose([2, 1, 1])
    }

    fn wrong_length(x: f32[A, B]) -> f32[A, B] {
        x.rev([0, 1, 2])
    }
}

fn main() {}
