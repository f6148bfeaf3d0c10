// `#[grad(…)]` names floating-point parameters of a function returning a
// floating-point scalar.
use xla::prelude::*;

xla! {
    #[grad(w, nope)]
    pub fn loss(x: f32[B], w: f32[B]) -> f32[B] {
        x * w
    }

    #[grad(i)]
    pub fn counted(x: f32[B], i: s32) -> f32 {
        x.reduce_sum([0])
    }
}

fn main() {}
