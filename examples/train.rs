//! Training a classifier with gradients of an `xla!` function: a two-layer
//! perceptron learns to label points as a random "teacher" network does,
//! with Adam, on data the example generates.
//!
//! ```sh
//! cargo run --release --example train
//! ```
//!
//! `#[grad(w1, b1, w2, b2)]` on `loss` generates `loss::value_and_grad`
//! (and `loss::grad`): the loss and its gradients with respect to those
//! parameters, from one module that `xla::autodiff` derives and the JIT
//! compiles once.

use indicatif::{ProgressBar, ProgressStyle};
use xla::prelude::*;

xla! {
    /// Mean cross-entropy of a perceptron's predictions against one-hot
    /// labels `y`.
    #[grad(w1, b1, w2, b2)]
    pub fn loss(x: f32[B, I], y: f32[B, C], w1: f32[I, H], b1: f32[H], w2: f32[H, C], b2: f32[C]) -> f32 {
        let logp = log_softmax(logits(x, w1, b1, w2, b2));
        -(logp * y).reduce_sum([0, 1]) / B
    }

    /// The perceptron: `relu(x·w1 + b1)·w2 + b2`.
    pub fn logits(x: f32[B, I], w1: f32[I, H], b1: f32[H], w2: f32[H, C], b2: f32[C]) -> f32[B, C] {
        let h = (x.dot(w1) + b1.broadcast_in_dim([B, H], [1])).max(0.0);
        h.dot(w2) + b2.broadcast_in_dim([B, C], [1])
    }

    /// Row-wise `log(softmax(z))`, shifted by the row maximum.
    pub fn log_softmax(z: f32[B, C]) -> f32[B, C] {
        let shifted = z - z.reduce_max([1]).broadcast_in_dim([B, C], [0]);
        shifted - shifted.exp().reduce_sum([1]).log().broadcast_in_dim([B, C], [0])
    }

    /// One Adam step of a matrix parameter: its new value and moments
    /// (`rate` is the bias-corrected learning rate).
    pub fn adam2(p: f32[R, K], g: f32[R, K], m: f32[R, K], v: f32[R, K], rate: f32) -> (f32[R, K], f32[R, K], f32[R, K]) {
        let m = m * 0.9 + g * 0.1;
        let v = v * 0.999 + g * g * 0.001;
        (p - rate * m / (v.sqrt() + 1e-8), m, v)
    }

    /// One Adam step of a vector parameter.
    pub fn adam1(p: f32[N], g: f32[N], m: f32[N], v: f32[N], rate: f32) -> (f32[N], f32[N], f32[N]) {
        let m = m * 0.9 + g * 0.1;
        let v = v * 0.999 + g * g * 0.001;
        (p - rate * m / (v.sqrt() + 1e-8), m, v)
    }
}

const FEATURES: usize = 32;
const HIDDEN: usize = 128;
const CLASSES: usize = 4;
const SAMPLES: usize = 8192;
const BATCH: usize = 256;
const STEPS: usize = 1000;
const LEARNING_RATE: f32 = 3e-3;

/// Normal random numbers from a fixed seed (Box–Muller over an LCG).
struct Normal(u64);

impl Normal {
    fn uniform(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32 + 0.5) / (1u64 << 24) as f32
    }

    fn sample(&mut self) -> f32 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    }

    fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.sample() * scale).collect()
    }
}

/// The class a fixed random teacher network gives each row of `x`.
fn teacher_labels(x: &[f32], rng: &mut Normal) -> Vec<usize> {
    let w = rng.vec(FEATURES * 16, 1.0);
    let u = rng.vec(16 * CLASSES, 1.0);
    x.chunks(FEATURES)
        .map(|row| {
            let h: Vec<f32> = (0..16)
                .map(|j| {
                    (0..FEATURES)
                        .map(|i| row[i] * w[i * 16 + j])
                        .sum::<f32>()
                        .tanh()
                })
                .collect();
            let score = |c: usize| (0..16).map(|j| h[j] * u[j * CLASSES + c]).sum::<f32>();
            (0..CLASSES)
                .max_by(|&a, &b| score(a).total_cmp(&score(b)))
                .unwrap_or(0)
        })
        .collect()
}

/// A parameter with its Adam moments.
struct Param {
    value: Literal,
    m: Literal,
    v: Literal,
}

impl Param {
    fn new(dims: &[i64], values: Vec<f32>) -> Result<Param, Box<dyn std::error::Error>> {
        let zeros = vec![0.0f32; values.len()];
        Ok(Param {
            value: Literal::from_vec(dims, values)?,
            m: Literal::from_vec(dims, zeros.clone())?,
            v: Literal::from_vec(dims, zeros)?,
        })
    }

    fn update(&mut self, g: &Literal, rate: &Literal) -> Result<(), DslError> {
        let (value, m, v) = match self.value.array_shape().map(|a| a.rank()) {
            Ok(2) => adam2::call(default_backend(), &self.value, g, &self.m, &self.v, rate)?,
            _ => adam1::call(default_backend(), &self.value, g, &self.m, &self.v, rate)?,
        };
        (self.value, self.m, self.v) = (value, m, v);
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = Normal(2026);
    let x = rng.vec(SAMPLES * FEATURES, 1.0);
    let labels = teacher_labels(&x, &mut rng);
    let mut one_hot = vec![0.0f32; SAMPLES * CLASSES];
    for (row, &c) in labels.iter().enumerate() {
        one_hot[row * CLASSES + c] = 1.0;
    }
    let mut params = [
        Param::new(
            &[FEATURES as i64, HIDDEN as i64],
            rng.vec(FEATURES * HIDDEN, (2.0 / FEATURES as f32).sqrt()),
        )?,
        Param::new(&[HIDDEN as i64], vec![0.0; HIDDEN])?,
        Param::new(
            &[HIDDEN as i64, CLASSES as i64],
            rng.vec(HIDDEN * CLASSES, (1.0 / HIDDEN as f32).sqrt()),
        )?,
        Param::new(&[CLASSES as i64], vec![0.0; CLASSES])?,
    ];
    println!(
        "{SAMPLES} points of {FEATURES} features in {CLASSES} classes; a {FEATURES}-{HIDDEN}-{CLASSES} perceptron, \
         Adam, batch {BATCH}, {STEPS} steps"
    );
    let bar = ProgressBar::new(STEPS as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} steps, {elapsed} | {msg}",
    )?);
    let batches = SAMPLES / BATCH;
    let started = std::time::Instant::now();
    for step in 0..STEPS {
        let k = step % batches;
        let xb = Literal::from_vec(
            &[BATCH as i64, FEATURES as i64],
            x[k * BATCH * FEATURES..][..BATCH * FEATURES].to_vec(),
        )?;
        let yb = Literal::from_vec(
            &[BATCH as i64, CLASSES as i64],
            one_hot[k * BATCH * CLASSES..][..BATCH * CLASSES].to_vec(),
        )?;
        let [w1, b1, w2, b2] = &params;
        let (value, (g1, gb1, g2, gb2)) = loss::value_and_grad(
            default_backend(),
            &xb,
            &yb,
            &w1.value,
            &b1.value,
            &w2.value,
            &b2.value,
        )?;
        let t = (step + 1) as i32;
        let rate = LEARNING_RATE * (1.0 - 0.999f32.powi(t)).sqrt() / (1.0 - 0.9f32.powi(t));
        let rate = Literal::scalar(rate);
        for (p, g) in params.iter_mut().zip([&g1, &gb1, &g2, &gb2]) {
            p.update(g, &rate)?;
        }
        let value = value.to_vec::<f32>()?[0];
        bar.set_message(format!("loss {value:.4}"));
        if step % 100 == 0 || step + 1 == STEPS {
            bar.suspend(|| println!("step {step:4}: loss {value:.4}"));
        }
        bar.inc(1);
    }
    bar.finish();
    let elapsed = started.elapsed();
    let [w1, b1, w2, b2] = &params;
    let all = Literal::from_vec(&[SAMPLES as i64, FEATURES as i64], x.clone())?;
    let scores = logits::call(
        default_backend(),
        &all,
        &w1.value,
        &b1.value,
        &w2.value,
        &b2.value,
    )?
    .to_vec::<f32>()?;
    let correct = scores
        .chunks(CLASSES)
        .zip(&labels)
        .filter(|(row, &c)| (0..CLASSES).max_by(|&a, &b| row[a].total_cmp(&row[b])) == Some(c))
        .count();
    println!(
        "accuracy {:.1}% on the {SAMPLES} points; {:.2} ms per step (gradient and update)",
        100.0 * correct as f64 / SAMPLES as f64,
        elapsed.as_secs_f64() * 1e3 / STEPS as f64
    );
    Ok(())
}
