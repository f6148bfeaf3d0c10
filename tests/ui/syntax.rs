// Syntax errors stop at the first, as Rust's parser does.
use xla::prelude::*;

xla! {
    fn chained(x: f32[N]) -> pred[N] {
        x < 1.0 < 2.0
    }
}

fn main() {}
