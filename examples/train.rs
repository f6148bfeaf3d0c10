//! Training with gradients of `xla!` functions, with Adam, on data the
//! example generates: a two-layer perceptron learns to label points as a
//! random "teacher" network does, then a one-layer transformer (token and
//! position embeddings, self-attention, mean pooling) learns to name the
//! largest token of a sequence.
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

    /// A one-layer, one-head transformer's mean cross-entropy: tokens
    /// (one-hot `x`) embedded with positions, self-attention with a
    /// residual, mean pooling over the sequence, a linear readout.
    #[grad(emb, pos, wq, wk, wv, wo)]
    pub fn transformer_loss(x: f32[B, T, V], y: f32[B, C], emb: f32[V, D], pos: f32[T, D], wq: f32[D, D], wk: f32[D, D], wv: f32[D, D], wo: f32[D, C]) -> f32 {
        let logp = log_softmax(transformer(x, emb, pos, wq, wk, wv, wo));
        -(logp * y).reduce_sum([0, 1]) / B
    }

    /// The transformer's logits.
    pub fn transformer(x: f32[B, T, V], emb: f32[V, D], pos: f32[T, D], wq: f32[D, D], wk: f32[D, D], wv: f32[D, D], wo: f32[D, C]) -> f32[B, C] {
        let h = x.dot_general(emb, ([2], [0])) + pos.broadcast_in_dim([B, T, D], [1, 2]);
        let q = h.dot_general(wq, ([2], [0]));
        let k = h.dot_general(wk, ([2], [0]));
        let v = h.dot_general(wv, ([2], [0]));
        let scores = q.dot_general(k, ([2], [2]), ([0], [0])) / D.sqrt();
        let e = (scores - scores.reduce_max([2]).broadcast_in_dim([B, T, T], [0, 1])).exp();
        let attention = e / e.reduce_sum([2]).broadcast_in_dim([B, T, T], [0, 1]);
        let mixed = h + attention.dot_general(v, ([2], [1]), ([0], [0]));
        (mixed.reduce_sum([1]) / T).dot(wo)
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

/// Adam over a model's parameters, with the progress shown.
struct Training {
    params: Vec<Param>,
    bar: ProgressBar,
    steps: usize,
    step: usize,
    started: std::time::Instant,
}

impl Training {
    fn new(params: Vec<Param>, steps: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let bar = ProgressBar::new(steps as u64);
        bar.set_style(ProgressStyle::with_template(
            "{bar:40} {pos}/{len} steps, {elapsed} | {msg}",
        )?);
        Ok(Training {
            params,
            bar,
            steps,
            step: 0,
            started: std::time::Instant::now(),
        })
    }

    /// The current value of parameter `k`.
    fn value(&self, k: usize) -> &Literal {
        &self.params[k].value
    }

    /// One Adam step of every parameter with its gradient; shows the loss.
    fn update(
        &mut self,
        loss: &Literal,
        grads: &[&Literal],
    ) -> Result<(), Box<dyn std::error::Error>> {
        self.step += 1;
        let t = self.step as i32;
        let rate = LEARNING_RATE * (1.0 - 0.999f32.powi(t)).sqrt() / (1.0 - 0.9f32.powi(t));
        let rate = Literal::scalar(rate);
        for (p, g) in self.params.iter_mut().zip(grads) {
            p.update(g, &rate)?;
        }
        let value = loss.to_vec::<f32>()?[0];
        self.bar.set_message(format!("loss {value:.4}"));
        let shown = self.step - 1;
        if shown.is_multiple_of(100) || self.step == self.steps {
            self.bar
                .suspend(|| println!("step {shown:4}: loss {value:.4}"));
        }
        self.bar.inc(1);
        Ok(())
    }

    /// Ends the progress bar: milliseconds per step.
    fn finish(&self) -> f64 {
        self.bar.finish();
        self.started.elapsed().as_secs_f64() * 1e3 / self.steps as f64
    }
}

/// The share of rows of `scores` (`classes` each) whose largest entry is
/// at its label.
fn accuracy(scores: &[f32], labels: &[usize], classes: usize) -> f64 {
    let best = |row: &[f32]| (0..classes).max_by(|&a, &b| row[a].total_cmp(&row[b]));
    let correct = (scores.chunks(classes).zip(labels))
        .filter(|(row, &c)| best(row) == Some(c))
        .count();
    correct as f64 / labels.len() as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = Normal(2026);
    let x = rng.vec(SAMPLES * FEATURES, 1.0);
    let labels = teacher_labels(&x, &mut rng);
    let mut one_hot = vec![0.0f32; SAMPLES * CLASSES];
    for (row, &c) in labels.iter().enumerate() {
        one_hot[row * CLASSES + c] = 1.0;
    }
    let params = vec![
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
    let mut training = Training::new(params, STEPS)?;
    let batches = SAMPLES / BATCH;
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
        let p = |k| training.value(k);
        let (value, (g1, gb1, g2, gb2)) =
            loss::value_and_grad(default_backend(), &xb, &yb, p(0), p(1), p(2), p(3))?;
        training.update(&value, &[&g1, &gb1, &g2, &gb2])?;
    }
    let ms = training.finish();
    let all = Literal::from_vec(&[SAMPLES as i64, FEATURES as i64], x.clone())?;
    let p = |k| training.value(k);
    let scores = logits::call(default_backend(), &all, p(0), p(1), p(2), p(3))?.to_vec::<f32>()?;
    println!(
        "accuracy {:.1}% on the {SAMPLES} points; {ms:.2} ms per step (gradient and update)",
        100.0 * accuracy(&scores, &labels, CLASSES)
    );
    train_transformer(&mut rng)
}

const VOCAB: usize = 8;
const LENGTH: usize = 6;
const WIDTH: usize = 32;
const TRANSFORMER_STEPS: usize = 600;

/// `batch` sequences of random tokens (one-hot) and the one-hot of each
/// one's largest token.
fn sequences(
    rng: &mut Normal,
    batch: usize,
) -> Result<(Literal, Literal, Vec<usize>), Box<dyn std::error::Error>> {
    let mut x = vec![0.0f32; batch * LENGTH * VOCAB];
    let mut y = vec![0.0f32; batch * VOCAB];
    let mut labels = Vec::with_capacity(batch);
    for b in 0..batch {
        let tokens: Vec<usize> = (0..LENGTH)
            .map(|_| (rng.uniform() * VOCAB as f32) as usize % VOCAB)
            .collect();
        for (t, &token) in tokens.iter().enumerate() {
            x[(b * LENGTH + t) * VOCAB + token] = 1.0;
        }
        let largest = tokens.iter().copied().max().unwrap_or(0);
        y[b * VOCAB + largest] = 1.0;
        labels.push(largest);
    }
    let x = Literal::from_vec(&[batch as i64, LENGTH as i64, VOCAB as i64], x)?;
    Ok((
        x,
        Literal::from_vec(&[batch as i64, VOCAB as i64], y)?,
        labels,
    ))
}

fn train_transformer(rng: &mut Normal) -> Result<(), Box<dyn std::error::Error>> {
    let (v, t, d) = (VOCAB as i64, LENGTH as i64, WIDTH as i64);
    let scale = (1.0 / WIDTH as f32).sqrt();
    let params = vec![
        Param::new(&[v, d], rng.vec(VOCAB * WIDTH, 1.0))?,
        Param::new(&[t, d], rng.vec(LENGTH * WIDTH, 0.1))?,
        Param::new(&[d, d], rng.vec(WIDTH * WIDTH, scale))?,
        Param::new(&[d, d], rng.vec(WIDTH * WIDTH, scale))?,
        Param::new(&[d, d], rng.vec(WIDTH * WIDTH, scale))?,
        Param::new(&[d, v], rng.vec(WIDTH * VOCAB, scale))?,
    ];
    println!(
        "\nsequences of {LENGTH} tokens out of {VOCAB}, labelled by their largest token; a one-layer \
         transformer of width {WIDTH}, Adam, batch {BATCH}, {TRANSFORMER_STEPS} steps"
    );
    let mut training = Training::new(params, TRANSFORMER_STEPS)?;
    for _ in 0..TRANSFORMER_STEPS {
        let (x, y, _) = sequences(rng, BATCH)?;
        let p = |k| training.value(k);
        let (value, (g0, g1, g2, g3, g4, g5)) = transformer_loss::value_and_grad(
            default_backend(),
            &x,
            &y,
            p(0),
            p(1),
            p(2),
            p(3),
            p(4),
            p(5),
        )?;
        training.update(&value, &[&g0, &g1, &g2, &g3, &g4, &g5])?;
    }
    let ms = training.finish();
    let (x, _, labels) = sequences(rng, 1024)?;
    let p = |k| training.value(k);
    let logits = transformer::call(default_backend(), &x, p(0), p(1), p(2), p(3), p(4), p(5))?;
    println!(
        "accuracy {:.1}% on 1024 new sequences; {ms:.2} ms per step (gradient and update)",
        100.0 * accuracy(&logits.to_vec::<f32>()?, &labels, VOCAB)
    );
    Ok(())
}
