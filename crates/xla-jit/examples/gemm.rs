//! Dot engine benchmark: the Cranelift f32x4 FMA ceiling, the thread pool's
//! dispatch cost, and the suite's dot shapes (dot_256/1024/2048, matvec,
//! bmm, the two mlp dots, f64 1024) on 1 and 2 threads.
//!
//! `cargo run --release -p xla-jit --example gemm` prints the figures;
//! `-- --sweep` also measures blocking and kernel alternatives on dot_1024;
//! `-- --disasm` prints the f32 micro-kernel's machine code.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{types, InstBuilder};
use xla_jit::codegen::{for_range, CodegenOptions, Jit, OptLevel};
use xla_jit::dot::{
    ABroadcast, Accumulate, Blocking, DotConfig, DotEngine, KernelConfig, KernelShape,
    MatrixLayout, Operand, StridedMatrix, StridedMatrixMut,
};
use xla_jit::runtime::pool::ThreadPool;

/// Median wall time of `runs` calls of `f` (after one warm-up call).
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

/// A Cranelift loop of 12 independent f32x4 multiply-adds per iteration
/// (as `fma`, or as `fmul` + `fadd`); returns GFLOP/s on this thread.
fn fma_loop(jit_fn: extern "C" fn(u64) -> f32) -> f64 {
    let iterations = 2_000_000u64;
    let time = median(5, || {
        black_box(jit_fn(black_box(iterations)));
    });
    (iterations * 12 * 8) as f64 / time.as_secs_f64() / 1e9
}

fn compile_fma_loop(fused: bool) -> (Jit, extern "C" fn(u64) -> f32) {
    // No mid-end: it would hoist the loop-invariant multiply of the
    // mul+add form out of the loop.
    let mut jit = Jit::with_opt_level(CodegenOptions::default(), OptLevel::None).unwrap();
    let sig = jit.signature(&[types::I64], &[types::F32]);
    let id = jit
        .compile("fma_loop", sig, |b| {
            let entry = b.current_block().unwrap();
            let n = b.block_params(entry)[0];
            let x = b.ins().f32const(1.000_001);
            let x = b.ins().splat(types::F32X4, x);
            let y = b.ins().f32const(0.999_999);
            let y = b.ins().splat(types::F32X4, y);
            let acc: Vec<_> = (0..12)
                .map(|_| {
                    let v = b.declare_var(types::F32X4);
                    b.def_var(v, x);
                    v
                })
                .collect();
            let zero = b.ins().iconst(types::I64, 0);
            for_range(b, zero, n, 1, |b, _| {
                for &v in &acc {
                    let a = b.use_var(v);
                    let r = if fused {
                        b.ins().fma(x, y, a)
                    } else {
                        let p = b.ins().fmul(x, y);
                        b.ins().fadd(a, p)
                    };
                    b.def_var(v, r);
                }
            });
            let mut sum = b.use_var(acc[0]);
            for &v in &acc[1..] {
                let w = b.use_var(v);
                sum = b.ins().fadd(sum, w);
            }
            let lane = b.ins().extractlane(sum, 0);
            b.ins().return_(&[lane]);
        })
        .unwrap();
    jit.finalize().unwrap();
    // SAFETY: compiled above with this signature.
    let f = unsafe {
        std::mem::transmute::<*const u8, extern "C" fn(u64) -> f32>(jit.function_ptr(id))
    };
    (jit, f)
}

/// The per-core ceiling (best of the two forms) and the 2-thread total.
fn ceiling(pool: &ThreadPool) -> (f64, f64) {
    let (_fused_jit, fused) = compile_fma_loop(true);
    let (_split_jit, split) = compile_fma_loop(false);
    let (f1, s1) = (fma_loop(fused), fma_loop(split));
    println!("FMA ceiling, 1 thread: fma {f1:.1} GFLOP/s, mul+add {s1:.1} GFLOP/s");
    let best = if s1 >= f1 { split } else { fused };
    let per_thread = std::sync::Mutex::new(vec![0.0; pool.threads()]);
    pool.parallel_for(pool.threads(), |t| {
        let g = fma_loop(best);
        per_thread.lock().unwrap()[t] = g;
    });
    let total: f64 = per_thread.into_inner().unwrap().iter().sum();
    println!(
        "FMA ceiling, {} threads: {total:.1} GFLOP/s",
        pool.threads()
    );
    (f1.max(s1), total)
}

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

/// Deterministic data in [-1, 1).
fn data<T: From<f32>>(len: usize, seed: u32) -> Vec<T> {
    let mut state = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            T::from((state >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
        })
        .collect()
}

/// Times `C[batch] = A[batch]·B[batch]` (all row-major); returns seconds.
fn time_dot<T>(engine: &DotEngine, [batch, m, n, k]: [usize; 4], runs: usize) -> f64
where
    T: xla_jit::dot::DotElement + From<f32>,
{
    let a = data::<T>(batch * m * k, 1);
    let b = data::<T>(batch * k * n, 2);
    let mut c = vec![T::default(); batch * m * n];
    let la = MatrixLayout::row_major(m, k).batched(batch, m * k);
    let lb = MatrixLayout::row_major(k, n).batched(batch, k * n);
    let lc = MatrixLayout::row_major(m, n).batched(batch, m * n);
    median(runs, || {
        engine
            .gemm(
                StridedMatrix::new(Operand::Lhs, &a, la).unwrap(),
                StridedMatrix::new(Operand::Rhs, &b, lb).unwrap(),
                StridedMatrixMut::new(&mut c, lc).unwrap(),
                None,
            )
            .unwrap();
    })
    .as_secs_f64()
}

fn engines(config: DotConfig) -> [(usize, DotEngine); 2] {
    [1, 2].map(|threads| {
        let pool = Arc::new(ThreadPool::new(threads));
        (threads, DotEngine::with_pool(config, pool).unwrap())
    })
}

fn report_flops<T: xla_jit::dot::DotElement + From<f32>>(
    name: &str,
    dims: [usize; 4],
    engines: &[(usize, DotEngine)],
    ceiling: f64,
    runs: usize,
) {
    let [batch, m, n, k] = dims;
    let flops = 2.0 * (batch * m * n * k) as f64;
    for (threads, engine) in engines {
        let seconds = time_dot::<T>(engine, dims, runs);
        let gflops = flops / seconds / 1e9;
        println!(
            "{name:<28} {threads} thread(s): {:8.3} ms {gflops:6.1} GFLOP/s = {:4.0}% of {threads}×ceiling",
            seconds * 1e3,
            100.0 * gflops / (ceiling * *threads as f64)
        );
    }
}

fn matvec(engines: &[(usize, DotEngine)]) {
    let (m, k) = (4096, 4096);
    for (threads, engine) in engines {
        let seconds = time_dot::<f32>(engine, [1, m, 1, k], 41);
        let bytes = ((m * k + k + m) * 4) as f64;
        println!(
            "matvec 4096×4096·4096 f32    {threads} thread(s): {:8.3} ms {:6.1} GB/s",
            seconds * 1e3,
            bytes / seconds / 1e9
        );
    }
}

fn sweep(ceiling: f64) {
    let base = DotConfig::default();
    println!("\nblocking sweep, dot_1024 f32, 1 thread (kc, mc, nc):");
    for kc in [128, 256, 384, 512] {
        for mc in [48, 96, 192] {
            for nc in [256, 512, 1024, 4096] {
                let config = DotConfig {
                    f32: KernelConfig {
                        blocking: Blocking { kc, mc, nc },
                        ..base.f32
                    },
                    ..base
                };
                let engine = DotEngine::with_pool(config, Arc::new(ThreadPool::new(1))).unwrap();
                let seconds = time_dot::<f32>(&engine, [1, 1024, 1024, 1024], 5);
                let gflops = 2.0 * 1024f64.powi(3) / seconds / 1e9;
                println!(
                    "  kc {kc:3} mc {mc:3} nc {nc:4}: {gflops:5.1} GFLOP/s ({:.0}%)",
                    100.0 * gflops / ceiling
                );
            }
        }
    }
    println!("\nkernel sweep, dot_1024 f32, 1 thread:");
    let shapes = [
        (6, 8, 2, Accumulate::MulAdd, ABroadcast::Packed),
        (6, 8, 4, Accumulate::MulAdd, ABroadcast::Packed),
        (5, 8, 4, Accumulate::MulAdd, ABroadcast::Packed),
        (4, 8, 4, Accumulate::MulAdd, ABroadcast::Packed),
        (6, 8, 2, Accumulate::MulAdd, ABroadcast::InKernel),
        (6, 8, 2, Accumulate::Fma, ABroadcast::Packed),
    ];
    for (mr, nr, unroll, accumulate, a_broadcast) in shapes {
        let shape = KernelShape {
            mr,
            nr,
            unroll,
            accumulate,
            a_broadcast,
        };
        let blocking = Blocking {
            mc: base.f32.blocking.mc / 6 * mr,
            ..base.f32.blocking
        };
        let config = DotConfig {
            f32: KernelConfig { shape, blocking },
            ..base
        };
        let engine = DotEngine::with_pool(config, Arc::new(ThreadPool::new(1))).unwrap();
        let seconds = time_dot::<f32>(&engine, [1, 1024, 1024, 1024], 5);
        let gflops = 2.0 * 1024f64.powi(3) / seconds / 1e9;
        println!(
            "  {mr}×{nr} unroll {unroll} {accumulate:?} A {a_broadcast:?}: {gflops:5.1} GFLOP/s"
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pool2 = ThreadPool::new(2);
    let (ceiling, ceiling2) = ceiling(&pool2);
    pool_overhead(&pool2);
    let config = DotConfig::default();
    if args.iter().any(|a| a == "--disasm") {
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
    println!(
        "\nceiling used for %: {ceiling:.1} GFLOP/s per thread (2 threads measured {ceiling2:.1})"
    );
    let engines = engines(config);
    for size in [256, 1024, 2048] {
        let runs = if size == 2048 { 5 } else { 11 };
        report_flops::<f32>(
            &format!("dot_{size} f32"),
            [1, size, size, size],
            &engines,
            ceiling,
            runs,
        );
    }
    matvec(&engines);
    report_flops::<f32>(
        "bmm 64×[128×64]·[64×128]",
        [64, 128, 128, 64],
        &engines,
        ceiling,
        21,
    );
    report_flops::<f32>(
        "mlp 256×1024·1024×4096",
        [1, 256, 4096, 1024],
        &engines,
        ceiling,
        7,
    );
    report_flops::<f32>(
        "mlp 256×4096·4096×1024",
        [1, 256, 1024, 4096],
        &engines,
        ceiling,
        7,
    );
    // f64 runs at half the f32 rate: 2 lanes per vector.
    report_flops::<f64>(
        "dot_1024 f64 (ceiling/2)",
        [1, 1024, 1024, 1024],
        &engines,
        ceiling / 2.0,
        5,
    );
    if args.iter().any(|a| a == "--sweep") {
        sweep(ceiling);
    }
}
