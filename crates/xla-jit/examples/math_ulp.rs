//! Accuracy (maximum error in ulp) and throughput of the JIT's vector math
//! library.
//!
//! ```text
//! cargo run --release -p xla-jit --example math_ulp            # everything (several minutes)
//! cargo run --release -p xla-jit --example math_ulp -- exp tanh  # some functions
//! cargo run --release -p xla-jit --example math_ulp -- --quick   # f32 by sampling, not exhaustive
//! cargo run --release -p xla-jit --example math_ulp -- --bench   # throughput only
//! cargo run --release -p xla-jit --example math_ulp -- --xla exp tanh logistic  # f32 at Accuracy::Xla
//! cargo run --release -p xla-jit --example math_ulp -- --dump DIR # f64 samples for accuracy.py
//! ```
//!
//! Each function runs as a compiled loop kernel (`f32x4`/`f64x2` main loop,
//! scalar tail). f32 unary functions are checked on all 2^32 inputs against
//! Rust's f64 functions (`libm` for erf): the error is measured against the
//! f64 value, in ulp of the f32 result. f64 functions are checked on random
//! bit patterns (the whole domain), random values in the interesting range
//! and special values, against `std`/`libm` in f64, themselves within 1 ulp:
//! the f64 figures are relative to them. Binary functions use dense grids,
//! random pairs and a table of special pairs. A mismatch in NaN-ness, in
//! infinity or in the sign of a zero is counted as a failure.
//!
//! `--xla` compiles the f32 unary kernels at `Accuracy::Xla` (the kernels'
//! setting) instead of `Accuracy::Full`, and measures them as XLA's own
//! figures were measured: subnormal inputs and results, which the kernels
//! flush, are left out.
//!
//! `--dump DIR` also writes, per function, the f64 samples where the result
//! differs from `std` plus a random subset, as `(x, y, result, std)` f64
//! quadruples in `DIR/<name>.f64`; `scripts/accuracy.py DIR` measures them
//! against exact values computed with Python's `decimal`.

use std::sync::OnceLock;
use std::time::Instant;

use xla_jit::codegen::CodegenOptions;
use xla_jit::codegen::{BinaryKernel, MathFloat, UnaryKernel};
use xla_jit::math::{Accuracy, BinaryFn, UnaryFn};

#[path = "../tests/math/reference.rs"]
mod reference;

use reference::{binary_reference, unary_reference, Rng, Worst};

const THREADS: u64 = 2;

/// The accuracy the f32 unary kernels are compiled at (`--xla`).
static ACCURACY: OnceLock<Accuracy> = OnceLock::new();

fn accuracy() -> Accuracy {
    *ACCURACY.get().unwrap_or(&Accuracy::Full)
}

/// `true` if the pair is measured: at `Accuracy::Xla`, subnormal inputs
/// and results (flushed by the kernels, as by XLA) are not.
fn measured(x: f32, want: f64) -> bool {
    let normal = |v: f64| v == 0.0 || !v.is_finite() || v.abs() >= f64::from(f32::MIN_POSITIVE);
    accuracy() == Accuracy::Full || (normal(f64::from(x)) && normal(want))
}

fn options() -> CodegenOptions {
    CodegenOptions {
        verify: false,
        keep_clif: false,
        ..CodegenOptions::default()
    }
}

/// Every f32 bit pattern, split across threads in chunks.
fn exhaustive_f32(f: UnaryFn) -> Worst {
    const CHUNK: u64 = 1 << 22;
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || {
                    let kernel = UnaryKernel::<f32>::compile_with(&options(), f, accuracy())
                        .expect("compiles");
                    let want = unary_reference(f);
                    let mut x = vec![0f32; CHUNK as usize];
                    let mut y = vec![0f32; CHUNK as usize];
                    let mut worst = Worst::default();
                    let mut start = t * CHUNK;
                    while start < 1 << 32 {
                        for (i, v) in x.iter_mut().enumerate() {
                            *v = f32::from_bits((start + i as u64) as u32);
                        }
                        kernel.map_into(&x, &mut y);
                        for (&xi, &yi) in x.iter().zip(&y) {
                            let w = want(f64::from(xi));
                            if measured(xi, w) {
                                worst.add_f32(yi, w, f64::from(xi), 0.0);
                            }
                        }
                        start += THREADS * CHUNK;
                    }
                    worst
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("worker"))
            .fold(Worst::default(), Worst::merge)
    })
}

/// Samples kept for `--dump`: `(x, y, result, std)`.
#[derive(Default)]
struct Dump(Vec<[f64; 4]>);

impl Dump {
    /// Keeps the disagreements with `std` (up to 20000) and every 1024th sample.
    fn add(&mut self, i: usize, x: f64, y: f64, got: f64, want: f64) {
        let differs = got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan());
        if (differs && self.0.len() < 20_000) || i.is_multiple_of(1024) {
            self.0.push([x, y, got, want]);
        }
    }

    fn write(&self, dir: &Option<String>, name: &str) {
        let Some(dir) = dir else { return };
        let bytes: Vec<u8> = self
            .0
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        std::fs::write(format!("{dir}/{name}.f64"), bytes).expect("writes the dump");
    }
}

/// Checks `f` on `inputs` with the kernel for `T`.
fn check_unary<T: MathFloat + Into<f64>>(
    f: UnaryFn,
    inputs: &[T],
    worst: &mut Worst,
    dump: &mut Dump,
) {
    let kernel = UnaryKernel::<T>::compile(&options(), f).expect("compiles");
    let want = unary_reference(f);
    for (i, (&x, y)) in inputs.iter().zip(kernel.map(inputs)).enumerate() {
        let (x, y): (f64, f64) = (x.into(), y.into());
        worst.add(y, want(x), x, 0.0, T::TYPE.bits() == 32);
        dump.add(i, x, 0.0, y, want(x));
    }
}

fn check_binary<T: MathFloat + Into<f64>>(
    f: BinaryFn,
    xs: &[T],
    ys: &[T],
    worst: &mut Worst,
    dump: &mut Dump,
) {
    let kernel = BinaryKernel::<T>::compile(&options(), f).expect("compiles");
    let want = binary_reference(f);
    for (i, ((&x, &y), z)) in xs.iter().zip(ys).zip(kernel.map(xs, ys)).enumerate() {
        let (x, y, z): (f64, f64, f64) = (x.into(), y.into(), z.into());
        worst.add(z, want(x, y), x, y, T::TYPE.bits() == 32);
        dump.add(i, x, y, z, want(x, y));
    }
}

/// Random bit patterns, random values in `range` and the special values.
fn unary_samples(rng: &mut Rng, range: (f64, f64), n: usize) -> Vec<f64> {
    let mut v = reference::special_values();
    for _ in 0..n {
        v.push(f64::from_bits(rng.next()));
        v.push(rng.uniform(range.0, range.1));
    }
    v
}

fn f32_samples(rng: &mut Rng, range: (f64, f64), n: usize) -> Vec<f32> {
    let mut v: Vec<f32> = reference::special_values()
        .iter()
        .map(|&x| x as f32)
        .collect();
    for _ in 0..n {
        v.push(f32::from_bits(rng.next() as u32));
        v.push(rng.uniform(range.0, range.1) as f32);
    }
    v
}

/// Pairs for binary functions: a dense grid over the core domain, random
/// bit patterns, random pairs in the core domain and all special pairs.
fn binary_samples(rng: &mut Rng, f: BinaryFn, n: usize, grid: usize) -> (Vec<f64>, Vec<f64>) {
    let ((x0, x1), (y0, y1)) = reference::binary_range(f);
    let (mut xs, mut ys) = reference::special_pairs(f);
    for i in 0..grid {
        for j in 0..grid {
            xs.push(x0 + (x1 - x0) * i as f64 / (grid - 1) as f64);
            ys.push(y0 + (y1 - y0) * j as f64 / (grid - 1) as f64);
        }
    }
    for _ in 0..n {
        xs.push(f64::from_bits(rng.next()));
        ys.push(f64::from_bits(rng.next()));
        xs.push(rng.uniform(x0, x1));
        ys.push(rng.uniform(y0, y1));
    }
    reference::binary_extra_pairs(f, rng, &mut xs, &mut ys);
    (xs, ys)
}

/// Elements per nanosecond of the f32 kernel on an L2-resident buffer
/// (best of 5 runs of 200 passes over 16384 elements), and the kernel's
/// compile time in milliseconds (best of 3).
fn throughput_f32(f: Option<UnaryFn>, g: Option<BinaryFn>) -> (f64, f64) {
    const N: usize = 16 * 1024;
    let mut rng = Rng::new(7);
    let (lo, hi) = match (f, g) {
        (Some(f), _) => reference::unary_range(f),
        (_, Some(g)) => reference::binary_range(g).0,
        _ => unreachable!("one function is given"),
    };
    let x: Vec<f32> = (0..N).map(|_| rng.uniform(lo, hi) as f32).collect();
    let y: Vec<f32> = (0..N).map(|_| rng.uniform(-4.0, 4.0) as f32).collect();
    let mut out = vec![0f32; N];
    // Compile three times and keep the fastest (the machine may be shared).
    let mut compile = f64::INFINITY;
    let seconds = match (f, g) {
        (Some(f), _) => {
            let mut kernel = None;
            for _ in 0..3 {
                let t = Instant::now();
                kernel = Some(
                    UnaryKernel::<f32>::compile_with(&options(), f, accuracy()).expect("compiles"),
                );
                compile = compile.min(t.elapsed().as_secs_f64());
            }
            let k = kernel.expect("compiled");
            best_time(|| k.map_into(&x, &mut out))
        }
        (_, Some(g)) => {
            let mut kernel = None;
            for _ in 0..3 {
                let t = Instant::now();
                kernel = Some(BinaryKernel::<f32>::compile(&options(), g).expect("compiles"));
                compile = compile.min(t.elapsed().as_secs_f64());
            }
            let k = kernel.expect("compiled");
            best_time(|| k.map_into(&x, &y, &mut out))
        }
        _ => unreachable!("one function is given"),
    };
    (N as f64 / (seconds * 1e9), compile * 1e3)
}

/// The best time of one call of `run` over 5 batches of 200 calls.
fn best_time(mut run: impl FnMut()) -> f64 {
    run();
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let reps = 200;
        let t = Instant::now();
        for _ in 0..reps {
            run();
        }
        best = best.min(t.elapsed().as_secs_f64() / f64::from(reps));
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let bench_only = args.iter().any(|a| a == "--bench");
    if args.iter().any(|a| a == "--xla") {
        ACCURACY.set(Accuracy::Xla).expect("set once");
    }
    let dump_dir = args
        .iter()
        .position(|a| a == "--dump")
        .and_then(|i| args.get(i + 1).cloned());
    let names: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--") && Some(*a) != dump_dir.as_ref())
        .map(String::as_str)
        .collect();
    let wanted = |name: &str| names.is_empty() || names.contains(&name);
    println!(
        "{:<9} {:<4} {:>8}  {:<40} {:>9}  {:>10}",
        "function", "type", "max ulp", "at", "failures", "elem/ns (compile ms)"
    );
    let mut rng = Rng::new(1);
    for f in UnaryFn::ALL.into_iter().filter(|f| wanted(f.name())) {
        let (speed, compile) = throughput_f32(Some(f), None);
        if bench_only {
            println!("{:<9} f32x4 {:>58.3}  ({compile:.2} ms)", f.name(), speed);
            continue;
        }
        let t = Instant::now();
        let w32 = if quick {
            let mut w = Worst::default();
            let xs = f32_samples(&mut rng, reference::unary_range(f), 1 << 22);
            check_unary::<f32>(f, &xs, &mut w, &mut Dump::default());
            w
        } else {
            exhaustive_f32(f)
        };
        println!(
            "{:<9} f32  {} {:>10.3} ({compile:.2} ms)",
            f.name(),
            w32.report(),
            speed
        );
        let mut w64 = Worst::default();
        let xs = unary_samples(&mut rng, reference::unary_range(f), 1 << 22);
        let mut dump = Dump::default();
        check_unary::<f64>(f, &xs, &mut w64, &mut dump);
        dump.write(&dump_dir, f.name());
        println!(
            "{:<9} f64  {}   ({:.1} s)",
            f.name(),
            w64.report(),
            t.elapsed().as_secs_f64()
        );
    }
    for g in BinaryFn::ALL.into_iter().filter(|g| wanted(g.name())) {
        let (speed, compile) = throughput_f32(None, Some(g));
        if bench_only {
            println!("{:<9} f32x4 {:>58.3}  ({compile:.2} ms)", g.name(), speed);
            continue;
        }
        let (xs, ys) = binary_samples(&mut rng, g, 1 << 22, 2048);
        let (x32, y32): (Vec<f32>, Vec<f32>) = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| (x as f32, y as f32))
            .unzip();
        let mut w32 = Worst::default();
        check_binary::<f32>(g, &x32, &y32, &mut w32, &mut Dump::default());
        println!(
            "{:<9} f32  {} {:>10.3} ({compile:.2} ms)",
            g.name(),
            w32.report(),
            speed
        );
        let mut w64 = Worst::default();
        let mut dump = Dump::default();
        check_binary::<f64>(g, &xs, &ys, &mut w64, &mut dump);
        dump.write(&dump_dir, g.name());
        println!("{:<9} f64  {}", g.name(), w64.report());
    }
}
