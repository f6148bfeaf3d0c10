use xla::prelude::*;

xla! {
    fn counted(x: f32[N]) -> f32[N] {
        for i in 0..3 {
            x
        }
    }
}

fn main() {}
