//! The f32 FMA peak: loops of independent multiply-adds at each vector
//! width (`std::arch` intrinsics, and a Cranelift `f32x4` loop), on one
//! thread and on every thread of a pool.

use std::hint::black_box;
use std::sync::Mutex;

use cranelift_codegen::ir::{types, InstBuilder};
use xla_jit::clif::for_range;
use xla_jit::codegen::{CodegenOptions, Jit, OptLevel};
use xla_jit::pool::ThreadPool;

use crate::timing::{measure_with, thread_cpu};

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
pub(super) fn fma_peak(pool: &ThreadPool) -> f64 {
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
