//! A two-layer perceptron's forward pass: functions of one `xla!`
//! invocation call each other, and compose with hand-written builder code.
//!
//! ```sh
//! cargo run --release --example mlp
//! ```

use xla::builder::create_scalar_computation;
use xla::prelude::*;

xla! {
    /// `relu(x · w + b)`.
    pub fn dense(x: f32[B, I], w: f32[I, O], b: f32[O]) -> f32[B, O] {
        (x.dot(w) + b.broadcast_in_dim([B, O], [1])).max(0.0)
    }

    /// Row-wise softmax.
    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let e = (x - x.reduce_max([1]).broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }

    /// Class probabilities: a hidden ReLU layer, a linear layer, softmax.
    pub fn mlp(x: f32[B, I], w1: f32[I, H], b1: f32[H], w2: f32[H, C], b2: f32[C]) -> f32[B, C] {
        let h = dense(x, w1, b1);
        softmax(h.dot(w2) + b2.broadcast_in_dim([B, C], [1]))
    }
}

/// Deterministic pseudo-random values in `[-1, 1)`.
fn weights(dims: &[i64], seed: u32) -> Result<Literal, Box<dyn std::error::Error>> {
    let n = dims.iter().product::<i64>() as usize;
    let mut state = seed;
    let values = (0..n)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 23) as f32 - 1.0
        })
        .collect();
    Ok(Literal::from_vec(dims, values)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (batch, inputs, hidden, classes) = (3, 4, 8, 3);
    let x = weights(&[batch, inputs], 1)?;
    let w1 = weights(&[inputs, hidden], 2)?;
    let b1 = weights(&[hidden], 3)?;
    let w2 = weights(&[hidden, classes], 4)?;
    let b2 = weights(&[classes], 5)?;
    println!("x = {x}");
    println!(
        "mlp(x) = {}",
        mlp::call(default_backend(), &x, &w1, &b1, &w2, &b2)?
    );

    // The same model inside hand-written builder code: `build` adds a
    // function to any computation; here the most likely class's probability.
    let b = XlaBuilder::new("confidence");
    let mut params = Vec::new();
    for (i, l) in [&x, &w1, &b1, &w2, &b2].into_iter().enumerate() {
        params.push(b.parameter(i as i64, l.shape(), &format!("p{i}"))?);
    }
    let p = mlp::build(&b, params[0], params[1], params[2], params[3], params[4])?;
    let max = create_scalar_computation("max", PrimitiveType::F32, |b, x, y| b.max(x, y, &[]))?;
    let best = b.reduce(&[p], &[b.constant_r0(f32::NEG_INFINITY)?], &max, &[1])?;
    let computation = b.build(best)?;
    let confidence = Interpreter::new().run(computation.module(), &[&x, &w1, &b1, &w2, &b2])?;
    println!("confidence = {confidence}");
    Ok(())
}
