//! Dot engine benchmark: our GEMM against the machine's FMA peak and
//! against the Rust `gemm` crate, in one run.
//!
//! `cargo run --release -p xla-jit --example gemm` prints:
//!
//! 1. **The f32 FMA peak** of this CPU, measured now: loops of independent
//!    fused multiply-adds at each vector width the CPU runs — 512-bit
//!    (AVX-512F, 24 zmm accumulator chains) and 256-bit (AVX2+FMA, 12 ymm
//!    chains), written with `std::arch` intrinsics and picked with
//!    `is_x86_feature_detected!` — and a 128-bit Cranelift `f32x4` loop (12
//!    chains, as `fma` and as `fmul` + `fadd`). Each runs on one thread and
//!    on every thread of a 2-thread pool together. The rate is timed by the
//!    thread's CPU time, so time slices the scheduler gives to other
//!    processes do not count. The widest width's figure per thread is *the
//!    peak*: "% of peak" is against it times the threads (half of it for
//!    f64; bf16 widened to f32 runs at f32's rate; bf16 on AMX tiles, where
//!    the engine uses them, is not bound by it).
//! 2. The thread pool's dispatch cost.
//! 3. **A table**, one line per shape and thread count (1 and 2): the time
//!    and GFLOP/s of [`DotEngine`], its % of peak (`%peak` by wall time,
//!    `%pk/CPU` per CPU-second of all the process's threads), the time and
//!    GFLOP/s of `gemm::gemm` (the `gemm` crate: pure Rust, kernels picked
//!    at run time, its AVX-512 ones with its `x86-v4` feature, which the
//!    engine depends on) with
//!    `Parallelism::None` / `Rayon(2)` on the same data, and their ratio
//!    (gemm crate time / ours: above 1 we are faster). Each figure is the
//!    median over repeated calls (see [`measure`](timing::measure)), and
//!    the two results are checked to agree. Batched shapes call the gemm
//!    crate once per matrix; it has no bf16, so the bf16 line compares with
//!    its f32 on the same (bf16-rounded) values.
//! 4. A 4096×4096 matrix-vector product in GB/s.
//!
//! Flags: `--shape B,M,N,K` prints the table line of that one f32 shape
//! instead of the table; `--sweep` also measures cache blocking and
//! micro-kernel alternatives on dot_1024; `--gemv-sweep` only measures the
//! matrix-vector blocking alternatives; `--disasm` prints the f32
//! micro-kernel's machine code; `--cranelift` uses the Cranelift f32
//! micro-kernel where the default is the native one (AVX-512, else AVX2);
//! `--blocking KC,MC,NC` sets the f32 cache blocking. "Ours" is the
//! engine's own kernels (the engine's default hands strided f32 and f64
//! GEMMs to the gemm crate itself: `--engine-default` measures that).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use xla_jit::dot::{Blocking, DotConfig, DotEngine, GemvBlock, KernelConfig};
use xla_jit::pool::ThreadPool;

mod gemms;
mod peak;
mod sweep;
mod table;
mod timing;

use gemms::engines;
use peak::fma_peak;
use sweep::{matvec, sweep};
use table::{print_header, report_row, row, Dtype, ROWS};
use timing::median;

// ---------------------------------------------------------------------------
// Thread pool
// ---------------------------------------------------------------------------

/// Prints the cost of an empty `parallel_for` over all of `pool`'s
/// threads, back to back and after the workers have gone to sleep.
fn pool_overhead(pool: &ThreadPool) {
    let hot = median(9, || {
        for _ in 0..10_000 {
            pool.parallel_for(pool.threads(), |t| {
                black_box(t);
            });
        }
    });
    let mut cold: Vec<Duration> = (0..51)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(2));
            let start = Instant::now();
            pool.parallel_for(pool.threads(), |t| {
                black_box(t);
            });
            start.elapsed()
        })
        .collect();
    cold.sort();
    let cold = cold[cold.len() / 2];
    println!(
        "pool dispatch ({} threads): {:.0} ns back to back, {:.1} µs after 2 ms idle (workers asleep)",
        pool.threads(),
        hot.as_nanos() as f64 / 10_000.0,
        cold.as_nanos() as f64 / 1000.0
    );
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

/// Whether `--name` is on the command line.
fn flag(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

/// The comma-separated numbers after `--name`, if it is on the command
/// line; `N` of them or a panic with `usage`.
fn numbers<const N: usize>(args: &[String], name: &str, usage: &str) -> Option<[usize; N]> {
    let value = args
        .iter()
        .position(|a| a == name)
        .map(|i| args.get(i + 1).expect(usage))?;
    let parts: Vec<usize> = value.split(',').map(|p| p.parse().expect(usage)).collect();
    Some(parts.try_into().expect(usage))
}

/// The engine configuration the flags ask for: the engine's own kernels
/// throughout (by default it hands strided f32 and f64 GEMMs to the gemm
/// crate, which the table then compares with itself; `--engine-default`
/// keeps that).
fn config_from(args: &[String]) -> DotConfig {
    let default = DotConfig::default();
    let f32 = if flag(args, "--cranelift") {
        DotConfig::CRANELIFT_F32
    } else {
        default.f32
    };
    let blocking = numbers(args, "--blocking", "--blocking KC,MC,NC")
        .map_or(f32.blocking, |[kc, mc, nc]| Blocking { kc, mc, nc });
    DotConfig {
        f32: KernelConfig { blocking, ..f32 },
        gemm_crate: flag(args, "--engine-default"),
        ..default
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pools = [1, 2].map(|threads| Arc::new(ThreadPool::new(threads)));
    let peak = fma_peak(&pools[1]);
    pool_overhead(&pools[1]);
    let config = config_from(&args);
    if flag(&args, "--gemv-sweep") {
        for rows in [1, 2, 4, 8] {
            for vectors in [1, 2, 4, 8] {
                let gemv = GemvBlock { rows, vectors };
                println!("{gemv:?}");
                matvec(&engines(DotConfig { gemv, ..config }, &pools));
            }
        }
        return;
    }
    println!(
        "f32 micro-kernel: {:?} {:?}",
        config.f32.shape, config.f32.blocking
    );
    if flag(&args, "--disasm") {
        let engine = DotEngine::new(DotConfig {
            keep_disasm: true,
            ..config
        })
        .unwrap();
        for (name, listing) in engine.disasm() {
            if name == "gemm_f32" {
                println!("{name}:\n{listing}");
            }
        }
    }
    let engines = engines(config, &pools);
    print_header();
    if let Some(dims) = numbers(&args, "--shape", "--shape B,M,N,K") {
        report_row(&row(dims, Dtype::F32, ""), &engines, peak);
        return;
    }
    for row in ROWS {
        report_row(row, &engines, peak);
    }
    println!();
    matvec(&engines);
    if flag(&args, "--sweep") {
        sweep(peak, &pools[0]);
    }
}
