//! The matrix-vector product's bandwidth, and the sweeps of cache
//! blockings and micro-kernel alternatives.

use std::sync::Arc;

use xla_jit::dot::{
    ABroadcast, Accumulate, Blocking, Codegen, DotConfig, DotEngine, KernelConfig, KernelShape,
};
use xla_jit::pool::ThreadPool;

use crate::gemms::{data, dot_ours};
use crate::timing::{measure, Timing};

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
pub(super) fn matvec(engines: &[(usize, DotEngine)]) {
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
pub(super) fn sweep(peak: f64, pool: &Arc<ThreadPool>) {
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
