//! A tour of the `xla!` language: tensor programs in Rust syntax, their
//! shapes checked when this file compiles, run on the default backend.
//!
//! ```sh
//! cargo run --release --example tour
//! ```

use xla::prelude::*;

xla! {
    /// `relu(x · w + b)`.
    pub fn dense(x: f32[B, I], w: f32[I, O], b: f32[O]) -> f32[B, O] {
        (x.dot(w) + b.broadcast_in_dim([B, O], [1])).max(0.0)
    }

    /// Row-wise softmax.
    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }

    /// Layer normalization; `N` used as a value is the row length.
    pub fn layernorm(x: f32[B, N], gamma: f32[N], beta: f32[N]) -> f32[B, N] {
        let mean = x.reduce_sum([1]) / N;
        let centered = x - mean.broadcast_in_dim([B, N], [0]);
        let var = (centered * centered).reduce_sum([1]) / N;
        centered * (var + 1e-5).rsqrt().broadcast_in_dim([B, N], [0]) * gamma.broadcast_in_dim([B, N], [1])
            + beta.broadcast_in_dim([B, N], [1])
    }

    /// A two-layer perceptron: functions call each other.
    pub fn mlp(x: f32[B, I], w1: f32[I, H], b1: f32[H], w2: f32[H, C], b2: f32[C]) -> f32[B, C] {
        softmax(dense(dense(x, w1, b1), w2, b2))
    }

    /// Each row's maximum and its first index: a variadic reduce whose
    /// closure becomes the reduction computation.
    pub fn argmax(x: f32[B, N]) -> (f32[B], s32[B]) {
        reduce([x, iota(s32[B, N], 1)], [f32::NEG_INFINITY, 0], |m, i, y, j| {
            let keep = (m > y) | ((m == y) & (i < j));
            (select(keep, m, y), select(keep, i, j))
        }, [1])
    }

    /// 2×2 max pooling; `2 * H` binds `H` to half the height.
    pub fn pool(x: f32[2 * H, 2 * W]) -> f32[H, W] {
        x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [2, 2], [2, 2], valid)
    }

    /// Newton's method for `√a`, a `while` loop over `let mut` state.
    pub fn newton_sqrt(a: f32[N]) -> (f32[N], s32) {
        let mut x = a.max(1.0);
        let mut steps = 0;
        while ((x * x - a).abs() / a).reduce_max([0]) > 1e-6 {
            x = (x + a / x) * 0.5;
            steps += 1;
        }
        (x, steps)
    }
}

fn matrix(rows: i64, cols: i64, f: impl Fn(i64, i64) -> f32) -> Result<Literal, xla::Error> {
    let values = (0..rows * cols).map(|k| f(k / cols, k % cols)).collect();
    Ok(Literal::from_vec(&[rows, cols], values)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = default_backend();

    println!("== softmax and layernorm ==");
    let x = matrix(2, 4, |r, c| (r * 4 + c) as f32 - 2.0)?;
    println!("x = {x}");
    println!("softmax(x) = {}", softmax::call(backend, &x)?);
    let gamma = Literal::vector(&[1.0f32; 4]);
    let beta = Literal::vector(&[0.0f32; 4]);
    println!(
        "layernorm(x) = {}",
        layernorm::call(backend, &x, &gamma, &beta)?
    );

    println!("\n== an MLP: calls between functions ==");
    let w1 = matrix(4, 3, |r, c| ((r + 2 * c) % 5) as f32 * 0.25 - 0.5)?;
    let b1 = Literal::vector(&[0.1f32, 0.0, -0.1]);
    let w2 = matrix(3, 2, |r, c| if r == c { 1.0 } else { -0.5 })?;
    let b2 = Literal::vector(&[0.0f32, 0.5]);
    println!("mlp(x) = {}", mlp::call(backend, &x, &w1, &b1, &w2, &b2)?);

    println!("\n== closures and loops ==");
    let scores = matrix(3, 5, |r, c| ((r * 7 + c * 3) % 5) as f32)?;
    let (best, index) = argmax::call(backend, &scores)?;
    println!("scores = {scores}");
    println!("argmax(scores) = ({best}, {index})");
    let image = matrix(4, 6, |r, c| (r * 6 + c) as f32)?;
    println!("pool({image}) = {}", pool::call(backend, &image)?);
    let a = Literal::vector(&[2.0f32, 9.0, 1e4]);
    let (root, steps) = newton_sqrt::call(backend, &a)?;
    let steps = steps.to_vec::<i32>()?[0];
    println!("newton_sqrt({a}) = {root} after {steps} steps");

    println!("\n== one computation per binding of the dimensions, plain HLO ==");
    let computation = softmax::computation(softmax::Dims { B: 2, N: 4 })?;
    print!("{}", computation.module());

    println!("\n== mistakes ==");
    let wrong = matrix(3, 3, |_, _| 0.0)?;
    let err = mlp::call(backend, &x, &wrong, &b1, &w2, &b2).unwrap_err();
    println!("at run time, arguments that disagree: {err}");
    println!(
        "at compile time, `x + x.transpose([1, 0])` on f32[B, N] would not build:\n  \
         add: shapes f32[B, N] and f32[N, B] are not compatible: dimension 0 is B in operand 0 but N in operand 1"
    );
    Ok(())
}
