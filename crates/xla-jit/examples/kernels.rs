//! Measures the fused kernels of the benchmark suite: per-kernel compile
//! time and run time on the suite's shapes, as GB/s of the bytes each case
//! must move (inputs read once, output written once), on 1 and 2 threads,
//! and against the machine's limit measured in the same run: a plain read
//! (a sum) of 64 MiB and a copy of 64 MiB, split over the same threads.
//! Each case's two-thread rate is also given as a share of the read rate
//! (no stream of bytes goes faster).
//!
//! ```text
//! cargo run --release -p xla-jit --example kernels [-- <dir of .hlo modules> [case…]]
//! ```
//!
//! Dot cases are skipped (the dot engine runs them); cases whose ops fall
//! back to the interpreter are reported and skipped.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use xla_core::hlo::InstrId;
use xla_core::{HloModule, Literal, Shape};
use xla_jit::codegen::{CodegenOptions, Jit};
use xla_jit::emit::{self, CompiledKernel, KernelEntry, KernelFn};
use xla_jit::ftz::FtzGuard;
use xla_jit::fusion::{self, FusionKind, StandaloneReason};

const CASES: &[&str] = &[
    "ew_axpby",
    "ew_chain",
    "ew_gelu",
    "reduce_row_sum",
    "reduce_col_sum",
    "reduce_all_max",
    "softmax",
    "layernorm",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .cloned()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/hlo").to_string());
    let cases: Vec<String> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        CASES.iter().map(|s| s.to_string()).collect()
    };
    let limit = stream_limits();
    println!(
        "{:<16} {:>8} {:>10} {:>10} {:>9} {:>9} {:>7}  kernels (compile µs)",
        "case", "MB", "1 thr ms", "2 thr ms", "1 GB/s", "2 GB/s", "% read"
    );
    let mut unreadable = 0;
    for case in cases {
        let path = format!("{dir}/{case}.hlo");
        match std::fs::read_to_string(&path) {
            Ok(text) => measure(&case, &text, limit),
            Err(e) => {
                eprintln!("error: {path}: {e}");
                unreadable += 1;
            }
        }
    }
    if unreadable > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The machine's streaming rates on 2 threads, GB/s: a read of 64 MiB
/// (an xor of 32-bit words into 32 lanes: one-cycle operations, so only
/// the memory bounds it) and a copy of 64 MiB; also prints both on 1 and
/// 2 threads. Returns the two-thread read rate.
fn stream_limits() -> f64 {
    let n = 16 << 20;
    let src: Vec<u32> = (0..n as u32).collect();
    let mut dst = vec![0u32; n];
    let read = |part: &[u32]| -> u32 {
        let mut acc = [0u32; 32];
        for c in part.chunks_exact(32) {
            for (a, x) in acc.iter_mut().zip(c) {
                *a ^= x;
            }
        }
        acc.iter().fold(0, |a, x| a ^ x)
    };
    let mut two_thread_read = 0.0;
    for threads in [1, 2] {
        let chunk = n / threads;
        let t_read = time(|| {
            std::thread::scope(|s| {
                for part in src.chunks(chunk) {
                    s.spawn(move || std::hint::black_box(read(part)));
                }
            })
        });
        let t_copy = time(|| {
            std::thread::scope(|s| {
                for (d, part) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                    s.spawn(move || d.copy_from_slice(part));
                }
            })
        });
        let bytes = (4 * n) as f64;
        let (r, c) = (
            bytes / t_read.as_secs_f64() / 1e9,
            2.0 * bytes / t_copy.as_secs_f64() / 1e9,
        );
        println!("stream limit, {threads} thr: read {r:.1} GB/s, copy {c:.1} GB/s (read + write)");
        two_thread_read = r;
    }
    two_thread_read
}

fn measure(case: &str, text: &str, read_limit: f64) {
    let module: HloModule = text.parse().expect("bench modules parse");
    let plan = fusion::plan(&module, module.entry, &emit::Kernels);
    let comp = module.entry_computation();
    let fallbacks: Vec<String> = plan
        .fallback_ops()
        .map(|s| comp.instr(s.instr).name.clone())
        .collect();
    if !fallbacks.is_empty() {
        println!("{case:<16} interpreted: {}", fallbacks.join(", "));
        return;
    }
    if plan
        .fusions
        .iter()
        .any(|f| f.kind == FusionKind::DotEpilogue)
    {
        println!("{case:<16} dot: runs on the dot engine");
        return;
    }
    // The kernels live in their Jit's memory, so both are returned.
    let compile = || {
        let mut jit = Jit::new(CodegenOptions::default()).expect("host ISA");
        let elements = emit::TARGET_ELEMENTS;
        let kernels =
            emit::compile(&mut jit, &module, module.entry, &plan, elements).expect("compiles");
        (jit, kernels)
    };
    // Compile twice and keep the second: the first pays one-time costs
    // of the process (lazy initialization in Cranelift).
    compile();
    let start = Instant::now();
    let (_jit, kernels) = compile();
    let total_compile = start.elapsed();
    let args: Vec<Literal> = comp
        .parameters()
        .iter()
        .map(|&p| random_literal(&comp.instr(p).shape))
        .collect();
    let bytes: usize = args
        .iter()
        .map(|a| a.bytes().map_or(0, |b| b.len()))
        .sum::<usize>()
        + Literal::zeros(&comp.root_instr().shape)
            .ok()
            .and_then(|l| l.bytes().ok().map(|b| b.len()))
            .unwrap_or(0);
    let mut state = State::new(&module, &plan, &args);
    let t1 = time(|| state.run(&plan, &kernels, 1));
    let t2 = time(|| state.run(&plan, &kernels, 2));
    let gbs = |t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    let compile: Vec<String> = kernels
        .iter()
        .map(|k| format!("{} {:.0}", k.name, k.compile_time.as_secs_f64() * 1e6))
        .collect();
    println!(
        "{case:<16} {:>8.1} {:>10.3} {:>10.3} {:>9.1} {:>9.1} {:>6.0}%  {} (total {:.0} µs)",
        bytes as f64 / 1e6,
        t1.as_secs_f64() * 1e3,
        t2.as_secs_f64() * 1e3,
        gbs(t1),
        gbs(t2),
        100.0 * gbs(t2) / read_limit,
        compile.join(", "),
        total_compile.as_secs_f64() * 1e6
    );
}

/// The best of several runs after a warm-up.
fn time(mut f: impl FnMut()) -> Duration {
    f();
    let mut best = Duration::MAX;
    for _ in 0..15 {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
    }
    best
}

fn random_literal(shape: &Shape) -> Literal {
    let a = shape.as_array().expect("array parameters");
    let n = a.element_count() as usize;
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let values: Vec<f32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
        })
        .collect();
    Literal::from_vec(a.dims(), values).expect("f32 parameters")
}

/// Buffers of every fusion, allocated once and reused across runs.
struct State {
    values: HashMap<InstrId, Literal>,
}

impl State {
    fn new(module: &HloModule, plan: &fusion::FusionPlan, args: &[Literal]) -> Self {
        let comp = module.entry_computation();
        let mut values = HashMap::new();
        for s in &plan.standalone {
            let instr = comp.instr(s.instr);
            let lit = match s.reason {
                StandaloneReason::Parameter => {
                    args[instr.attrs.parameter_number.unwrap_or(0) as usize].clone()
                }
                StandaloneReason::Constant => instr.attrs.literal.clone().expect("a literal"),
                _ => continue,
            };
            values.insert(s.instr, lit);
        }
        for f in &plan.fusions {
            for &o in &f.outputs {
                values.insert(o, Literal::zeros(&comp.instr(o).shape).expect("array"));
            }
        }
        State { values }
    }

    fn run(&mut self, plan: &fusion::FusionPlan, kernels: &[CompiledKernel], threads: usize) {
        for (i, f) in plan.fusions.iter().enumerate() {
            let mut ptrs: Vec<usize> = f
                .inputs
                .iter()
                .map(|id| self.values[id].bytes().expect("array").as_ptr() as usize)
                .collect();
            for o in &f.outputs {
                let out = self.values.get_mut(o).expect("allocated");
                ptrs.push(out.bytes_mut().expect("array").as_mut_ptr() as usize);
            }
            let scratch_bytes = kernels
                .iter()
                .filter(|k| k.fusion == i)
                .map(|k| k.scratch_bytes)
                .max()
                .unwrap_or(0);
            let mut scratch = vec![0u64; scratch_bytes.div_ceil(8)];
            if scratch_bytes > 0 {
                ptrs.push(scratch.as_mut_ptr() as usize);
            }
            for k in kernels.iter().filter(|k| k.fusion == i) {
                let KernelEntry::Range(func) = k.entry else {
                    continue;
                };
                split(func, &ptrs, k.iterations, threads);
            }
        }
    }
}

/// Runs `[0, n)` on `threads` threads, each with flush-to-zero on.
fn split(func: KernelFn, ptrs: &[usize], n: i64, threads: usize) {
    let threads = if n < 2 { 1 } else { threads };
    let per = (n + threads as i64 - 1) / threads as i64;
    std::thread::scope(|s| {
        for t in 0..threads as i64 {
            let (lo, hi) = (t * per, ((t + 1) * per).min(n));
            let run = move || {
                let _ftz = FtzGuard::new();
                // SAFETY: the pointers are the fusion's buffers in order;
                // threads cover disjoint iteration ranges.
                unsafe { func(ptrs.as_ptr() as *const *mut u8, lo, hi) };
            };
            if t == threads as i64 - 1 {
                run();
            } else {
                s.spawn(run);
            }
        }
    });
}
