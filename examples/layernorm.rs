//! Layer normalization over the last dimension, written with `xla!`.
//!
//! ```sh
//! cargo run --release --example layernorm
//! ```

use xla::prelude::*;

xla! {
    /// `(x - mean) / sqrt(var + eps) * gamma + beta`, per row. A dimension
    /// name used as a value is its size: `sum / N` is the mean.
    pub fn layernorm(x: f32[B, N], gamma: f32[N], beta: f32[N]) -> f32[B, N] {
        let mean = x.reduce_sum([1]) / N;
        let centered = x - mean.broadcast_in_dim([B, N], [0]);
        let var = (centered * centered).reduce_sum([1]) / N;
        let normalized = centered * (var + 1e-5).rsqrt().broadcast_in_dim([B, N], [0]);
        normalized * gamma.broadcast_in_dim([B, N], [1]) + beta.broadcast_in_dim([B, N], [1])
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Literal::from_vec(&[2, 4], vec![1.0f32, 2.0, 3.0, 4.0, -2.0, 0.0, 2.0, 40.0])?;
    let gamma = Literal::vector(&[1.0f32, 1.0, 2.0, 2.0]);
    let beta = Literal::vector(&[0.0f32, 0.0, 0.0, 1.0]);
    println!("x = {x}");
    println!(
        "layernorm(x) = {}",
        layernorm::call(default_backend(), &x, &gamma, &beta)?
    );
    Ok(())
}
