use xla::prelude::*;

xla! {
    /// A dense layer with ReLU: shapes are symbols, checked when this compiles.
    pub fn dense(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        (x.dot(w) + b.broadcast_in_dim([B, N], [1])).max(0.0)
    }

    /// Row-wise softmax.
    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = default_backend(); // the JIT
    let x = Literal::from_vec(&[2, 3], vec![1.0f32, -2.0, 3.0, 0.5, 0.0, -1.0])?;
    let w = Literal::from_vec(&[3, 2], vec![1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0])?;
    let b = Literal::vector(&[0.0f32, -1.0]);
    let h = dense::call(backend, &x, &w, &b)?; // B = 2, K = 3, N = 2: compiled once, cached
    println!("dense   = {h}");
    println!("softmax = {}", softmax::call(backend, &h)?);
    Ok(())
}
