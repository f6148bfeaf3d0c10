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
//!    median over repeated calls (see [`measure`]), and the two results
//!    are checked to agree. Batched shapes call the gemm crate once per
//!    matrix; it has no bf16, so the bf16 line compares with its f32 on
//!    the same (bf16-rounded) values.
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
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{types, InstBuilder};
use gemm::Parallelism;
use half::bf16;
use xla_jit::clif::for_range;
use xla_jit::codegen::{CodegenOptions, Jit, OptLevel};
use xla_jit::dot::{
    ABroadcast, Accumulate, Blocking, Codegen, DotConfig, DotElement, DotEngine, GemvBlock,
    KernelConfig, KernelShape, MatrixLayout, Operand, StridedMatrix, StridedMatrixMut,
};
use xla_jit::pool::ThreadPool;

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------

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

/// CPU time of the calling thread so far, in seconds (Linux).
fn thread_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(stat.split_whitespace().next()?.parse::<u64>().ok()? as f64 * 1e-9)
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

// ---------------------------------------------------------------------------
// FMA peak
// ---------------------------------------------------------------------------

/// A loop of independent f32 FMA chains.
struct FmaLoop {
    /// What it runs, e.g. "512-bit AVX-512F, 24 zmm chains".
    name: &'static str,
    /// Floating-point operations per iteration: 2 per lane per FMA.
    flops_per_iteration: u64,
    /// Runs the given number of iterations; returns a value computed from
    /// every chain, so that none is dead code.
    run: Box<dyn Fn(u64) -> f32 + Sync>,
}

/// A rate in GFLOP/s, by wall time and by CPU time.
#[derive(Clone, Copy, Debug, Default)]
struct Rate {
    wall: f64,
    cpu: f64,
}

impl std::ops::Add for Rate {
    type Output = Rate;
    fn add(self, other: Rate) -> Rate {
        Rate {
            wall: self.wall + other.wall,
            cpu: self.cpu + other.cpu,
        }
    }
}

/// The rate of `fma` on the calling thread, by wall time and by this
/// thread's CPU time (median of calls of about 0.2 GFLOP each).
fn loop_rate(fma: &FmaLoop) -> Rate {
    let iterations = 200_000_000 / fma.flops_per_iteration;
    let flops = (iterations * fma.flops_per_iteration) as f64;
    let timing = measure_with(thread_cpu, 5, || {
        black_box((fma.run)(black_box(iterations)));
    });
    Rate {
        wall: flops / timing.wall / 1e9,
        cpu: flops / timing.cpu.unwrap_or(timing.wall) / 1e9,
    }
}

/// The summed rate of `fma` running on every thread of `pool` at once.
fn rate_together(pool: &ThreadPool, fma: &FmaLoop) -> Rate {
    let rates = Mutex::new(vec![Rate::default(); pool.threads()]);
    pool.parallel_for(pool.threads(), |t| {
        let rate = loop_rate(fma);
        rates.lock().unwrap()[t] = rate;
    });
    rates
        .into_inner()
        .unwrap()
        .into_iter()
        .fold(Rate::default(), |a, b| a + b)
}

/// FMA loops written with `std::arch` intrinsics, one function per width,
/// compiled for that width's features whatever the build's target CPU.
#[cfg(target_arch = "x86_64")]
mod native {
    use std::arch::x86_64::*;
    use std::hint::black_box;

    /// `iterations` rounds of 24 independent 16-lane FMAs (enough chains
    /// to cover 2 FMA ports × 4+ cycles of latency); returns the sum of
    /// the chains' lanes.
    #[target_feature(enable = "avx512f")]
    pub fn fma_avx512(iterations: u64) -> f32 {
        let x = _mm512_set1_ps(black_box(1.000_001));
        let y = _mm512_set1_ps(black_box(0.999_999));
        let mut acc = [x; 24];
        for _ in 0..iterations {
            for a in &mut acc {
                *a = _mm512_fmadd_ps(x, y, *a);
            }
        }
        let mut sum = _mm512_setzero_ps();
        for a in acc {
            sum = _mm512_add_ps(sum, a);
        }
        _mm512_reduce_add_ps(sum)
    }

    /// `iterations` rounds of 12 independent 8-lane FMAs (12 of the 16 ymm
    /// registers); returns the sum of the chains' first lanes.
    #[target_feature(enable = "avx2,fma")]
    pub fn fma_avx2(iterations: u64) -> f32 {
        let x = _mm256_set1_ps(black_box(1.000_001));
        let y = _mm256_set1_ps(black_box(0.999_999));
        let mut acc = [x; 12];
        for _ in 0..iterations {
            for a in &mut acc {
                *a = _mm256_fmadd_ps(x, y, *a);
            }
        }
        let mut sum = _mm256_setzero_ps();
        for a in acc {
            sum = _mm256_add_ps(sum, a);
        }
        _mm256_cvtss_f32(sum)
    }
}

/// The native FMA loops this CPU runs, widest first.
#[cfg(target_arch = "x86_64")]
fn native_fma_loops() -> Vec<FmaLoop> {
    let mut loops = Vec::new();
    if is_x86_feature_detected!("avx512f") {
        loops.push(FmaLoop {
            name: "512-bit AVX-512F, 24 zmm chains",
            flops_per_iteration: 24 * 16 * 2,
            // SAFETY: the CPU has AVX-512F (checked above).
            run: Box::new(|n| unsafe { native::fma_avx512(n) }),
        });
    }
    if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        loops.push(FmaLoop {
            name: "256-bit AVX2+FMA, 12 ymm chains",
            flops_per_iteration: 12 * 8 * 2,
            // SAFETY: the CPU has AVX2 and FMA (checked above).
            run: Box::new(|n| unsafe { native::fma_avx2(n) }),
        });
    }
    loops
}

/// No native loops off x86-64: the peak is the Cranelift one.
#[cfg(not(target_arch = "x86_64"))]
fn native_fma_loops() -> Vec<FmaLoop> {
    Vec::new()
}

/// Compiles a Cranelift loop of 12 independent f32x4 multiply-adds per
/// iteration, as `fma` (`fused`) or as `fmul` + `fadd`. The [`Jit`] owns
/// the code: keep it alive while the loop runs.
fn compile_fma_loop(fused: bool) -> (Jit, FmaLoop) {
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
    // SAFETY: compiled above with this signature; the code lives as long
    // as `jit`, which the caller keeps next to the loop.
    let f = unsafe {
        std::mem::transmute::<*const u8, extern "C" fn(u64) -> f32>(jit.function_ptr(id))
    };
    let fma = FmaLoop {
        name: if fused { "fma" } else { "mul+add" },
        flops_per_iteration: 12 * 4 * 2,
        run: Box::new(move |n| f(n)),
    };
    (jit, fma)
}

/// Measures and prints the f32 FMA peak of each width on one thread and
/// on all of `pool`'s threads together; returns the peak used for
/// percentages: the widest width's rate per thread, by CPU time.
fn fma_peak(pool: &ThreadPool) -> f64 {
    let threads = pool.threads();
    println!("f32 FMA peak, GFLOP/s by thread CPU time (by wall time):");
    let line = |name: &str, one: Rate, together: Rate| {
        println!(
            "  {name:<40} 1 thread {:6.1} ({:6.1})   {threads} threads together {:6.1} ({:6.1})",
            one.cpu, one.wall, together.cpu, together.wall
        );
    };
    let mut widest = None;
    for fma in native_fma_loops() {
        let one = loop_rate(&fma);
        line(fma.name, one, rate_together(pool, &fma));
        widest.get_or_insert((fma.name, one.cpu));
    }
    let (_fused_jit, fused) = compile_fma_loop(true);
    let (_split_jit, split) = compile_fma_loop(false);
    let (fused_rate, split_rate) = (loop_rate(&fused), loop_rate(&split));
    let (best, best_rate) = if split_rate.cpu >= fused_rate.cpu {
        (&split, split_rate)
    } else {
        (&fused, fused_rate)
    };
    line(
        &format!("128-bit Cranelift f32x4, 12 chains, {}", best.name),
        best_rate,
        rate_together(pool, best),
    );
    let (name, peak) = widest.unwrap_or(("128-bit Cranelift f32x4", best_rate.cpu));
    println!("peak for %: {peak:.1} GFLOP/s per thread ({name}), half that for f64");
    peak
}

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
// The two GEMMs
// ---------------------------------------------------------------------------

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

/// Row-major views of `A`, `B` and `C` for `[batch, m, n, k]`.
fn views<'a, T: Copy, C: Copy>(
    [batch, m, n, k]: [usize; 4],
    a: &'a [T],
    b: &'a [T],
    c: &'a mut [C],
) -> (
    StridedMatrix<'a, T>,
    StridedMatrix<'a, T>,
    StridedMatrixMut<'a, C>,
) {
    let la = MatrixLayout::row_major(m, k).batched(batch, m * k);
    let lb = MatrixLayout::row_major(k, n).batched(batch, k * n);
    let lc = MatrixLayout::row_major(m, n).batched(batch, m * n);
    (
        StridedMatrix::new(Operand::Lhs, a, la).unwrap(),
        StridedMatrix::new(Operand::Rhs, b, lb).unwrap(),
        StridedMatrixMut::new(c, lc).unwrap(),
    )
}

/// `C[i] = A[i]·B[i]` by our engine (all row-major, `[batch, m, n, k]`).
fn dot_ours<T: DotElement>(engine: &DotEngine, dims: [usize; 4], a: &[T], b: &[T], c: &mut [T]) {
    let (a, b, c) = views(dims, a, b, c);
    engine.gemm(a, b, c, None).unwrap();
}

/// `C[i] = A[i]·B[i]` by our engine for bf16 `A` and `B`, summed in f32
/// into an f32 `C`.
fn dot_ours_bf16(engine: &DotEngine, dims: [usize; 4], a: &[bf16], b: &[bf16], c: &mut [f32]) {
    let (a, b, c) = views(dims, a, b, c);
    engine.gemm_to_f32(a, b, c, None).unwrap();
}

/// `C[i] = A[i]·B[i]` by the gemm crate (all row-major, `[batch, m, n,
/// k]`): one `gemm::gemm` call per matrix of the batch.
fn dot_gemm_crate<T: Copy + From<f32> + 'static>(
    [batch, m, n, k]: [usize; 4],
    a: &[T],
    b: &[T],
    c: &mut [T],
    parallelism: Parallelism,
) {
    let matrices = a
        .chunks_exact(m * k)
        .zip(b.chunks_exact(k * n))
        .zip(c.chunks_exact_mut(m * n));
    assert_eq!(matrices.len(), batch);
    for ((a, b), c) in matrices {
        // SAFETY: `a`, `b` and `c` hold row-major m×k, k×n and m×n
        // matrices (column stride 1, row stride the column count); `c` is
        // only written (`read_dst` false). T is f32 or f64.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.as_ptr(),
                1,
                k as isize,
                b.as_ptr(),
                1,
                n as isize,
                T::from(0.0),
                T::from(1.0),
                false,
                false,
                false,
                parallelism,
            );
        }
    }
}

/// The gemm crate's parallelism for a thread count.
fn parallelism(threads: usize) -> Parallelism {
    match threads {
        1 => Parallelism::None,
        n => Parallelism::Rayon(n),
    }
}

/// Our engine on 1 and 2 threads, each with its own pool from `pools`.
fn engines(config: DotConfig, pools: &[Arc<ThreadPool>]) -> Vec<(usize, DotEngine)> {
    pools
        .iter()
        .map(|pool| {
            let engine = DotEngine::with_pool(config, Arc::clone(pool)).unwrap();
            (pool.threads(), engine)
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

/// Minimum number of timed calls per table figure.
const RUNS: usize = 7;

/// Element types of the table.
#[derive(Clone, Copy, Debug)]
enum Dtype {
    F32,
    F64,
    /// bf16 operands summed into f32 ([`DotEngine::gemm_to_f32`]).
    Bf16,
}

/// One shape of the table.
struct Row {
    /// `[batch, m, n, k]`: `batch` products of `m×k · k×n`.
    dims: [usize; 4],
    dtype: Dtype,
    /// What the shape stands for, if anything.
    what: &'static str,
}

/// A table row.
const fn row(dims: [usize; 4], dtype: Dtype, what: &'static str) -> Row {
    Row { dims, dtype, what }
}

/// The table's shapes, `[batch, m, n, k]`.
const ROWS: &[Row] = &[
    row([1, 256, 256, 256], Dtype::F32, "dot_256"),
    row([1, 512, 512, 512], Dtype::F32, "dot_512"),
    row([1, 1024, 1024, 1024], Dtype::F32, "dot_1024"),
    row([1, 2048, 2048, 2048], Dtype::F32, "dot_2048"),
    row([1, 128, 2304, 768], Dtype::F32, ""),
    row([1, 128, 3072, 768], Dtype::F32, ""),
    row([1, 128, 768, 3072], Dtype::F32, ""),
    row([1, 25088, 64, 576], Dtype::F32, "ResNet conv as GEMM"),
    row([1, 4096, 128, 1152], Dtype::F32, ""),
    row([1, 576, 64, 8192], Dtype::F32, "conv weight gradient"),
    row([1, 392, 2304, 768], Dtype::F32, ""),
    row([1, 128, 512, 784], Dtype::F32, ""),
    row([1, 128, 10, 512], Dtype::F32, ""),
    row([1, 10, 512, 128], Dtype::F32, ""),
    row([1, 1, 3072, 768], Dtype::F32, "decode matvec"),
    row([24, 196, 196, 64], Dtype::F32, "bmm"),
    row([64, 128, 128, 64], Dtype::F32, "bmm"),
    row([1, 256, 4096, 1024], Dtype::F32, "mlp"),
    row([1, 1024, 1024, 1024], Dtype::F64, "dot_1024"),
    row([1, 512, 1024, 1024], Dtype::Bf16, ""),
];

/// `B×M×K·K×N`, without `B×` for a single matrix.
fn shape_name([batch, m, n, k]: [usize; 4]) -> String {
    let product = format!("{m}×{k}·{k}×{n}");
    if batch == 1 {
        product
    } else {
        format!("{batch}×{product}")
    }
}

/// The note at the end of a row's lines: what the shape is and how the
/// comparison differs from the plain one.
fn row_note(row: &Row) -> String {
    let mut notes: Vec<&str> = Vec::new();
    if !row.what.is_empty() {
        notes.push(row.what);
    }
    if row.dims[0] > 1 {
        notes.push("gemm crate: loop over the batch");
    }
    match row.dtype {
        Dtype::F32 => {}
        Dtype::F64 => notes.push("% of f64 peak (½ f32)"),
        Dtype::Bf16 => notes.push("gemm crate has no bf16: its f32 on the same values"),
    }
    notes.join("; ")
}

/// Prints the table's column headings.
fn print_header() {
    println!(
        "\n{:<19} {:<5} {:>3} | {:>9} {:>7} {:>6} {:>7} | {:>9} {:>7} | {:>9} | note",
        "shape",
        "dtype",
        "thr",
        "ours ms",
        "GFLOP/s",
        "%peak",
        "%pk/CPU",
        "gemm ms",
        "GFLOP/s",
        "gemm/ours"
    );
}

/// Times and prints `row` on each of `engines` against the gemm crate on
/// as many threads; `peak` is the f32 per-thread peak.
fn report_row(row: &Row, engines: &[(usize, DotEngine)], peak: f64) {
    let [batch, m, n, k] = row.dims;
    match row.dtype {
        Dtype::F32 => compare_same::<f32>(row, engines, peak),
        Dtype::F64 => compare_same::<f64>(row, engines, peak / 2.0),
        Dtype::Bf16 => {
            let a: Vec<bf16> = data::<f32>(batch * m * k, 1)
                .into_iter()
                .map(bf16::from_f32)
                .collect();
            let b: Vec<bf16> = data::<f32>(batch * k * n, 2)
                .into_iter()
                .map(bf16::from_f32)
                .collect();
            let a32: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
            let b32: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
            compare(
                row,
                engines,
                peak,
                |engine, c| dot_ours_bf16(engine, row.dims, &a, &b, c),
                |parallelism, c| dot_gemm_crate(row.dims, &a32, &b32, c, parallelism),
            );
        }
    }
}

/// [`compare`] for operands and result of one type `T`.
fn compare_same<T: DotElement + From<f32> + Into<f64>>(
    row: &Row,
    engines: &[(usize, DotEngine)],
    peak: f64,
) {
    let [batch, m, n, k] = row.dims;
    let a = data::<T>(batch * m * k, 1);
    let b = data::<T>(batch * k * n, 2);
    compare(
        row,
        engines,
        peak,
        |engine, c| dot_ours(engine, row.dims, &a, &b, c),
        |parallelism, c| dot_gemm_crate(row.dims, &a, &b, c, parallelism),
    );
}

/// For each of `engines`: times `ours` on it and `theirs` (the gemm crate)
/// on as many threads, checks that they computed the same `C`, and prints
/// a table line. `peak` is the per-thread peak for this element type.
fn compare<C: Copy + Default + Into<f64>>(
    row: &Row,
    engines: &[(usize, DotEngine)],
    peak: f64,
    mut ours: impl FnMut(&DotEngine, &mut [C]),
    mut theirs: impl FnMut(Parallelism, &mut [C]),
) {
    let [batch, m, n, k] = row.dims;
    let flops = 2.0 * (batch * m * n * k) as f64;
    let mut c_ours = vec![C::default(); batch * m * n];
    let mut c_theirs = c_ours.clone();
    for (threads, engine) in engines {
        let t_ours = measure(RUNS, || ours(engine, &mut c_ours));
        let t_theirs = measure(RUNS, || theirs(parallelism(*threads), &mut c_theirs));
        let max_diff = c_ours
            .iter()
            .zip(&c_theirs)
            .map(|(&x, &y)| (x.into() - y.into()).abs())
            .fold(0.0, f64::max);
        assert!(
            max_diff <= 1e-5 * k as f64,
            "{}: ours and the gemm crate differ by {max_diff}",
            shape_name(row.dims)
        );
        let gflops = |seconds: f64| flops / seconds / 1e9;
        let per_cpu = t_ours.cpu.map_or("-".to_string(), |cpu| {
            format!("{:.0}", 100.0 * gflops(cpu) / peak)
        });
        println!(
            "{:<19} {:<5} {threads:>3} | {:9.3} {:7.1} {:6.0} {per_cpu:>7} | {:9.3} {:7.1} | {:8.2}× | {}",
            shape_name(row.dims),
            format!("{:?}", row.dtype).to_lowercase(),
            t_ours.wall * 1e3,
            gflops(t_ours.wall),
            100.0 * gflops(t_ours.wall) / (peak * *threads as f64),
            t_theirs.wall * 1e3,
            gflops(t_theirs.wall),
            t_theirs.wall / t_ours.wall,
            row_note(row)
        );
    }
}

// ---------------------------------------------------------------------------
// Matrix-vector product and sweeps
// ---------------------------------------------------------------------------

/// Times our `C[i] = A[i]·B[i]` on fresh data (all row-major, `[batch, m,
/// n, k]`).
fn time_dot(engine: &DotEngine, dims: [usize; 4], runs: usize) -> Timing {
    let [batch, m, n, k] = dims;
    let a = data::<f32>(batch * m * k, 1);
    let b = data::<f32>(batch * k * n, 2);
    let mut c = vec![0f32; batch * m * n];
    measure(runs, || dot_ours(engine, dims, &a, &b, &mut c))
}

/// Prints the bandwidth of a 4096×4096 f32 matrix times a vector (the
/// bytes of the matrix and both vectors per second).
fn matvec(engines: &[(usize, DotEngine)]) {
    let (m, k) = (4096, 4096);
    let bytes = ((m * k + k + m) * 4) as f64;
    for (threads, engine) in engines {
        let timing = time_dot(engine, [1, m, 1, k], 41);
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

/// dot_1024 f32 on one thread, GFLOP/s by CPU time when available.
fn sweep_gflops(engine: &DotEngine) -> f64 {
    let timing = time_dot(engine, [1, 1024, 1024, 1024], 5);
    2.0 * 1024f64.powi(3) / timing.cpu.unwrap_or(timing.wall) / 1e9
}

/// Prints dot_1024 on one thread for cache blockings around the default
/// and for micro-kernel alternatives.
fn sweep(peak: f64, pool: &Arc<ThreadPool>) {
    let engine = |config| DotEngine::with_pool(config, Arc::clone(pool)).unwrap();
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
                let gflops = sweep_gflops(&engine(config));
                println!(
                    "  kc {kc:3} mc {mc:3} nc {nc:4}: {gflops:5.1} GFLOP/s ({:.0}%)",
                    100.0 * gflops / peak
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
        let gflops = sweep_gflops(&engine(config));
        println!(
            "  {codegen:?} {mr}×{nr} unroll {unroll} {accumulate:?} A {a_broadcast:?}: \
             {gflops:5.1} GFLOP/s ({:.0}%)",
            100.0 * gflops / peak
        );
    }
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
