//! Row-wise softmax, written with `xla!` and run on the default backend.
//!
//! ```sh
//! cargo run --release --example softmax
//! ```

use xla::prelude::*;

xla! {
    /// Row-wise softmax: subtracting the row maximum keeps `exp` finite.
    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = default_backend();
    let logits = Literal::from_vec(
        &[2, 4],
        vec![1.0f32, 2.0, 3.0, 4.0, 1000.0, 1000.0, 0.0, -1000.0],
    )?;
    println!("logits = {logits}");
    println!("softmax(logits) = {}", softmax::call(backend, &logits)?);
    // Another size: compiled once more, then cached like the first.
    let uniform = Literal::from_vec(&[1, 6], vec![0.5f32; 6])?;
    println!("softmax(uniform) = {}", softmax::call(backend, &uniform)?);
    Ok(())
}
