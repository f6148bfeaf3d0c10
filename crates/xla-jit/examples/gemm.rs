//! Dot engine benchmark: the Cranelift f32x4 FMA ceiling, the thread pool's
//! dispatch cost, and the suite's dot shapes (dot_256/1024/2048, matvec,
//! bmm, the two mlp dots, f64 1024) on 1 and 2 threads.
//!
//! `cargo run --release -p xla-jit --example gemm` prints the figures;
//! `-- --sweep` also measures blocking and kernel alternatives on dot_1024;
//! `-- --disasm` prints the f32 micro-kernel's machine code;
//! `-- --cranelift` uses the Cranelift f32 micro-kernel where the default
//! is the native one (AVX-512, else AVX2); `-- --blocking KC,MC,NC` sets the f32 cache blocking.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{types, InstBuilder};
use xla_jit::codegen::{for_range, CodegenOptions, Jit, OptLevel};
use xla_jit::dot::{
    ABroadcast, Accumulate, Blocking, Codegen, DotConfig, DotEngine, GemvBlock, KernelConfig,
    KernelShape, MatrixLayout, Operand, StridedMatrix, StridedMatrixMut,
};
use xla_jit::runtime::pool::ThreadPool;

/// The cost of one call: the median wall time, and the CPU time of all
/// the process's threads per call (on a machine shared with other work the
/// wall time includes time slices given to others; the CPU time does not).
#[derive(Clone, Copy, Debug)]
struct Timing {
    wall: f64,
    cpu: Option<f64>,
}

/// CPU time of every thread of this process so far, in seconds (Linux).
fn process_cpu() -> Option<f64> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total as f64 * 1e-9)
}

/// Times at least `runs` calls of `f` (after one warm-up call), and enough
/// calls for `clock` to advance 0.3 s: the kernel updates thread CPU times
/// only at scheduler ticks (1–4 ms), so short measurements would be noise.
fn measure_with(clock: fn() -> Option<f64>, runs: usize, mut f: impl FnMut()) -> Timing {
    f();
    let cpu_start = clock();
    let mut times: Vec<f64> = Vec::new();
    let mut next_check = runs;
    let cpu = loop {
        let start = Instant::now();
        f();
        times.push(start.elapsed().as_secs_f64());
        if times.len() == next_check {
            let spent = clock().zip(cpu_start).map(|(end, start)| end - start);
            let wall: f64 = times.iter().sum();
            if spent.unwrap_or(wall) >= 0.3 {
                break spent.map(|s| s / times.len() as f64);
            }
            next_check *= 2;
        }
    };
    times.sort_by(f64::total_cmp);
    Timing {
        wall: times[times.len() / 2],
        cpu,
    }
}

/// [`measure_with`] the CPU time of the whole process.
fn measure(runs: usize, f: impl FnMut()) -> Timing {
    measure_with(process_cpu, runs, f)
}

/// Median wall time of `runs` calls of `f`.
fn median(runs: usize, f: impl FnMut()) -> Duration {
    Duration::from_secs_f64(measure(runs, f).wall)
}

/// A Cranelift loop of 12 independent f32x4 multiply-adds per iteration
/// (as `fma`, or as `fmul` + `fadd`); returns GFLOP/s on this thread.
/// Returns (GFLOP/s by wall time, GFLOP/s by this thread's CPU time).
fn fma_loop(jit_fn: extern "C" fn(u64) -> f32) -> (f64, f64) {
    let iterations = 2_000_000u64;
    let flops = (iterations * 12 * 8) as f64;
    let timing = measure_with(thread_cpu, 5, || {
        black_box(jit_fn(black_box(iterations)));
    });
    (
        flops / timing.wall / 1e9,
        flops / timing.cpu.unwrap_or(timing.wall) / 1e9,
    )
}

/// CPU time of the calling thread so far, in seconds (Linux).
fn thread_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(stat.split_whitespace().next()?.parse::<u64>().ok()? as f64 * 1e-9)
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
/// The per-thread f32x4 ceiling (best form, by CPU time).
fn ceiling(pool: &ThreadPool) -> f64 {
    let (_fused_jit, fused) = compile_fma_loop(true);
    let (_split_jit, split) = compile_fma_loop(false);
    let (f1, s1) = (fma_loop(fused), fma_loop(split));
    println!(
        "f32x4 ceiling, 1 thread: fma {:.1} GFLOP/s, mul+add {:.1} GFLOP/s \
         (by CPU time; by wall time {:.1} and {:.1})",
        f1.1, s1.1, f1.0, s1.0
    );
    let best = if s1.1 >= f1.1 { split } else { fused };
    let per_thread = std::sync::Mutex::new(vec![(0.0, 0.0); pool.threads()]);
    pool.parallel_for(pool.threads(), |t| {
        let g = fma_loop(best);
        per_thread.lock().unwrap()[t] = g;
    });
    let per_thread = per_thread.into_inner().unwrap();
    let wall: f64 = per_thread.iter().map(|g| g.0).sum();
    let cpu: f64 = per_thread.iter().map(|g| g.1).sum();
    println!(
        "f32x4 ceiling, {} threads together: {cpu:.1} GFLOP/s by CPU time, {wall:.1} by wall time",
        pool.threads()
    );
    f1.1.max(s1.1)
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
fn time_dot<T>(engine: &DotEngine, [batch, m, n, k]: [usize; 4], runs: usize) -> Timing
where
    T: xla_jit::dot::DotElement + From<f32>,
{
    let a = data::<T>(batch * m * k, 1);
    let b = data::<T>(batch * k * n, 2);
    let mut c = vec![T::default(); batch * m * n];
    let la = MatrixLayout::row_major(m, k).batched(batch, m * k);
    let lb = MatrixLayout::row_major(k, n).batched(batch, k * n);
    let lc = MatrixLayout::row_major(m, n).batched(batch, m * n);
    measure(runs, || {
        engine
            .gemm(
                StridedMatrix::new(Operand::Lhs, &a, la).unwrap(),
                StridedMatrix::new(Operand::Rhs, &b, lb).unwrap(),
                StridedMatrixMut::new(&mut c, lc).unwrap(),
                None,
            )
            .unwrap();
    })
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
        let timing = time_dot::<T>(engine, dims, runs);
        let gflops = flops / timing.wall / 1e9;
        let per_cpu = timing.cpu.map_or(String::new(), |cpu| {
            let g = flops / cpu / 1e9;
            format!(
                " | {g:5.1} GFLOP/s per CPU-second = {:3.0}%",
                100.0 * g / ceiling
            )
        });
        println!(
            "{name:<26} {threads} thr: {:8.3} ms {gflops:6.1} GFLOP/s = {:3.0}% of {threads}×ceiling{per_cpu}",
            timing.wall * 1e3,
            100.0 * gflops / (ceiling * *threads as f64)
        );
    }
}

fn matvec(engines: &[(usize, DotEngine)]) {
    let (m, k) = (4096, 4096);
    let bytes = ((m * k + k + m) * 4) as f64;
    for (threads, engine) in engines {
        let timing = time_dot::<f32>(engine, [1, m, 1, k], 41);
        let per_cpu = timing.cpu.map_or(String::new(), |cpu| {
            format!(" | {:5.1} GB/s per CPU-second", bytes / cpu / 1e9)
        });
        println!(
            "{:<26} {threads} thr: {:8.3} ms {:6.1} GB/s{per_cpu}",
            "matvec 4096×4096·4096 f32",
            timing.wall * 1e3,
            bytes / timing.wall / 1e9
        );
    }
}

/// dot_1024 f32 on one thread, by CPU time when available.
fn sweep_gflops(engine: &DotEngine) -> f64 {
    let timing = time_dot::<f32>(engine, [1, 1024, 1024, 1024], 5);
    2.0 * 1024f64.powi(3) / timing.cpu.unwrap_or(timing.wall) / 1e9
}

fn sweep(ceiling: f64) {
    let base = DotConfig::default();
    println!("\nblocking sweep, dot_1024 f32, 1 thread, GFLOP/s per CPU-second (kc, mc, nc):");
    let mr = base.f32.shape.mr;
    for kc in [128, 256, 384, 512] {
        for mc in [4 * mr, 8 * mr, 12 * mr, 16 * mr] {
            for nc in [256, 512, 1024, 4096] {
                let config = DotConfig {
                    f32: KernelConfig {
                        blocking: Blocking { kc, mc, nc },
                        ..base.f32
                    },
                    ..base
                };
                let engine = DotEngine::with_pool(config, Arc::new(ThreadPool::new(1))).unwrap();
                let gflops = sweep_gflops(&engine);
                println!(
                    "  kc {kc:3} mc {mc:3} nc {nc:4}: {gflops:5.1} GFLOP/s ({:.0}%)",
                    100.0 * gflops / ceiling
                );
            }
        }
    }
    println!("\nkernel sweep, dot_1024 f32, 1 thread, GFLOP/s per CPU-second:");
    let cranelift = |mr, nr, unroll, accumulate, a_broadcast| KernelShape {
        mr,
        nr,
        unroll,
        accumulate,
        a_broadcast,
        codegen: Codegen::Cranelift,
    };
    let avx512 = |mr, nr, unroll| KernelShape {
        mr,
        nr,
        unroll,
        accumulate: Accumulate::Fma,
        a_broadcast: ABroadcast::InKernel,
        codegen: Codegen::Avx512,
    };
    let mut shapes = vec![
        cranelift(6, 8, 2, Accumulate::MulAdd, ABroadcast::Packed),
        cranelift(6, 8, 4, Accumulate::MulAdd, ABroadcast::Packed),
        cranelift(5, 8, 4, Accumulate::MulAdd, ABroadcast::Packed),
        cranelift(4, 8, 4, Accumulate::MulAdd, ABroadcast::Packed),
        cranelift(6, 8, 2, Accumulate::MulAdd, ABroadcast::InKernel),
        cranelift(6, 8, 2, Accumulate::Fma, ABroadcast::Packed),
    ];
    if xla_jit::wide::cpu_has_avx512() {
        shapes.extend([
            avx512(14, 32, 4),
            avx512(14, 32, 2),
            avx512(12, 32, 4),
            avx512(8, 32, 4),
            avx512(6, 64, 4),
            avx512(28, 16, 4),
        ]);
    }
    for shape in shapes {
        let KernelShape {
            mr,
            nr,
            unroll,
            accumulate,
            a_broadcast,
            codegen,
        } = shape;
        let blocking = Blocking {
            mc: (base.f32.blocking.mc / base.f32.shape.mr).max(1) * mr,
            nc: base.f32.blocking.nc.div_ceil(nr) * nr,
            ..base.f32.blocking
        };
        let config = DotConfig {
            f32: KernelConfig { shape, blocking },
            ..base
        };
        let engine = DotEngine::with_pool(config, Arc::new(ThreadPool::new(1))).unwrap();
        let gflops = sweep_gflops(&engine);
        println!(
            "  {codegen:?} {mr}×{nr} unroll {unroll} {accumulate:?} A {a_broadcast:?}: \
             {gflops:5.1} GFLOP/s"
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pool2 = ThreadPool::new(2);
    let ceiling = ceiling(&pool2);
    pool_overhead(&pool2);
    let default = DotConfig::default();
    let config = if args.iter().any(|a| a == "--cranelift") {
        DotConfig {
            f32: DotConfig::CRANELIFT_F32,
            ..default
        }
    } else {
        default
    };
    let blocking = args
        .iter()
        .position(|a| a == "--blocking")
        .and_then(|i| args.get(i + 1))
        .map(|v| {
            let parts: Vec<usize> = v
                .split(',')
                .map(|p| p.parse().expect("--blocking KC,MC,NC"))
                .collect();
            Blocking {
                kc: parts[0],
                mc: parts[1],
                nc: parts[2],
            }
        });
    let config = DotConfig {
        f32: KernelConfig {
            blocking: blocking.unwrap_or(config.f32.blocking),
            ..config.f32
        },
        ..config
    };
    if args.iter().any(|a| a == "--gemv-sweep") {
        for rows in [1, 2, 4, 8] {
            for vectors in [1, 2, 4, 8] {
                let gemv = GemvBlock { rows, vectors };
                println!("{gemv:?}");
                matvec(&engines(DotConfig { gemv, ..config }));
            }
        }
        return;
    }
    println!(
        "f32 micro-kernel: {:?} {:?}",
        config.f32.shape, config.f32.blocking
    );
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
    println!("\nceiling used for %: {ceiling:.1} GFLOP/s per thread");
    let engines = engines(config);
    if args.iter().any(|a| a == "--bf16") {
        let [m, n, k] = [512usize, 1024, 1024];
        let a: Vec<half::bf16> = data::<f32>(m * k, 1)
            .into_iter()
            .map(half::bf16::from_f32)
            .collect();
        let b: Vec<half::bf16> = data::<f32>(k * n, 2)
            .into_iter()
            .map(half::bf16::from_f32)
            .collect();
        let mut c = vec![0f32; m * n];
        for (threads, engine) in &engines {
            let t = measure(5, || {
                engine
                    .gemm_to_f32(
                        StridedMatrix::new(Operand::Lhs, &a, MatrixLayout::row_major(m, k))
                            .unwrap(),
                        StridedMatrix::new(Operand::Rhs, &b, MatrixLayout::row_major(k, n))
                            .unwrap(),
                        StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n)).unwrap(),
                        None,
                    )
                    .unwrap();
            });
            println!(
                "bf16 {threads} thr: {:.3} ms {:.1} GFLOP/s",
                t.wall * 1e3,
                2.0 * (m * n * k) as f64 / t.wall / 1e9
            );
        }
        report_flops::<f32>("f32 same shape", [1, m, n, k], &engines, ceiling, 5);
        return;
    }
    if let Some(shape) = args
        .iter()
        .position(|a| a == "--shape")
        .and_then(|i| args.get(i + 1))
    {
        let d: Vec<usize> = shape
            .split(',')
            .map(|p| p.parse().expect("--shape B,M,N,K"))
            .collect();
        report_flops::<f32>(shape, [d[0], d[1], d[2], d[3]], &engines, ceiling, 5);
        return;
    }
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
