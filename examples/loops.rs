//! A reduce closure and a `while` loop: the dominant eigenvalue of a
//! matrix by power iteration.
//!
//! ```sh
//! cargo run --release --example loops
//! ```

use xla::prelude::*;

xla! {
    /// The Euclidean norm: a reduction whose closure squares each element.
    pub fn norm(v: f32[N]) -> f32 {
        v.reduce(0.0, |acc, x| acc + x * x, [0]).sqrt()
    }

    /// Power iteration, `v ← m·v / ‖m·v‖` repeated `iterations` times;
    /// returns the Rayleigh quotient `vᵀ·m·v` (the dominant eigenvalue) and
    /// `v`.
    pub fn dominant_eigen(m: f32[N, N], iterations: s32) -> (f32, f32[N]) {
        let mut v = iota(f32[N], 0) + 1.0;
        let mut i = 0;
        while i < iterations {
            let w = m.dot(v);
            v = w / norm(w);
            i += 1;
        }
        (v.dot(m.dot(v)), v)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let v = Literal::vector(&[3.0f32, 4.0]);
    println!("norm({v}) = {}", norm::call(default_backend(), &v)?);
    // A symmetric matrix with eigenvalues 3 + √3 ≈ 4.7320508, 3 and 3 − √3.
    let m = Literal::from_vec(
        &[3, 3],
        vec![4.0f32, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0],
    )?;
    for iterations in [1, 5, 50] {
        let (lambda, v) =
            dominant_eigen::call(default_backend(), &m, &Literal::scalar(iterations))?;
        println!("after {iterations:2} iterations: eigenvalue {lambda}, eigenvector {v}");
    }
    Ok(())
}
