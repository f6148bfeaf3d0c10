//! The dot engine against a naive reference: shapes with tails, transposed
//! and strided operands, batches, every element type, the epilogue hook,
//! and the worked examples of `docs/semantics.md`, *Dot*.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, OnceLock};

use half::{bf16, f16};
use xla_core::{C128, C64};
use xla_jit::dot::{
    Blocking, DotConfig, DotElement, DotEngine, Epilogue, GemvBlock, KernelConfig, MatrixLayout,
    Operand, OutputBlock, StridedMatrix, StridedMatrixMut, WindowDims, WindowLayout, WindowMatrix,
};
use xla_jit::pool::ThreadPool;
use xla_jit::JitError;

mod element_types;
mod epilogue;
mod float;
mod kernels;
mod widening;
mod window;

/// The default engine (global pool, default blocking).
fn default_engine() -> &'static DotEngine {
    DotEngine::global().expect("the host compiles dot kernels")
}

/// An engine that parallelizes everything on 3 threads with tiny cache
/// blocks, so small shapes exercise every loop, edge and split, and reads
/// row-contiguous matrix-vector products with the other vendor's blocking
/// than the host's.
fn stress_engine() -> &'static DotEngine {
    static ENGINE: OnceLock<DotEngine> = OnceLock::new();
    ENGINE.get_or_init(|| stressed(DotConfig::default()))
}

/// [`stress_engine`] with the Cranelift f32 micro-kernel (the default's
/// on CPUs with neither AVX-512 nor AVX2, where this is the same engine).
fn stress_cranelift_engine() -> &'static DotEngine {
    static ENGINE: OnceLock<DotEngine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        stressed(DotConfig {
            f32: DotConfig::CRANELIFT_F32,
            ..DotConfig::default()
        })
    })
}

/// `d` with tiny cache blocks, everything parallel on 3 threads, and the
/// other matrix-vector blocking.
fn stressed(d: DotConfig) -> DotEngine {
    {
        let small = |k: KernelConfig, nr: usize| KernelConfig {
            blocking: Blocking {
                kc: 16,
                mc: 2 * k.shape.mr,
                nc: 2 * nr,
            },
            ..k
        };
        let config = DotConfig {
            f32: small(d.f32, d.f32.shape.nr),
            f64: small(d.f64, d.f64.shape.nr),
            parallel_min_flops: 0,
            parallel_min_bytes: 0,
            // The engine's own kernels (the default engine runs strided
            // f32 and f64 GEMMs on the gemm crate).
            gemm_crate: false,
            gemv: if d.gemv == GemvBlock::ONE_ROW {
                GemvBlock::FOUR_ROWS
            } else {
                GemvBlock::ONE_ROW
            },
            ..d
        };
        DotEngine::with_pool(config, Arc::new(ThreadPool::new(3))).unwrap()
    }
}

fn engines() -> [&'static DotEngine; 3] {
    [default_engine(), stress_engine(), stress_cranelift_engine()]
}

/// [`engines`], and on a CPU with AVX512_BF16 and AVX-512 the stress
/// engine summing bf16 products in pairs (`vdpbf16ps`), whatever the
/// host's default.
fn bf16_engines() -> Vec<&'static DotEngine> {
    static PAIRS: OnceLock<Option<DotEngine>> = OnceLock::new();
    let pairs = PAIRS.get_or_init(|| {
        (xla_jit::wide::cpu_has_avx512_bf16()).then(|| {
            stressed(DotConfig {
                f32: DotConfig::AVX512_F32,
                bf16_pairs: true,
                ..DotConfig::default()
            })
        })
    });
    engines().into_iter().chain(pairs.as_ref()).collect()
}

/// Deterministic values in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    fn vec(&mut self, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.next()).collect()
    }
}

/// A stored operand: `rows×cols` values at `layout` inside `buffer`.
struct Stored<T> {
    buffer: Vec<T>,
    layout: MatrixLayout,
}

/// How an operand sits in memory.
#[derive(Clone, Copy, Debug)]
enum Form {
    RowMajor,
    ColMajor,
    /// Row-major with 3 extra elements per row and a leading offset-free pad.
    Padded,
}

fn layout(form: Form, batch: usize, rows: usize, cols: usize) -> MatrixLayout {
    let single = match form {
        Form::RowMajor => MatrixLayout::row_major(rows, cols),
        Form::ColMajor => MatrixLayout::col_major(rows, cols),
        Form::Padded => MatrixLayout::new(rows, cols, cols + 3, 1),
    };
    let size = match form {
        Form::Padded => rows * (cols + 3),
        _ => rows * cols,
    };
    single.batched(batch, size + 1)
}

/// Stores `values[b][i][j]` (row-major per matrix) in `form`.
fn store<T: Copy + Default>(
    values: &[f64],
    form: Form,
    dims: [usize; 3],
    conv: impl Fn(f64) -> T,
) -> Stored<T> {
    let [batch, rows, cols] = dims;
    let layout = layout(form, batch, rows, cols);
    let mut buffer = vec![T::default(); layout.required_len().unwrap()];
    for b in 0..batch {
        for i in 0..rows {
            for j in 0..cols {
                buffer[layout.offset(b, i, j)] = conv(values[(b * rows + i) * cols + j]);
            }
        }
    }
    Stored { buffer, layout }
}

/// `Σ_p a[b,i,p]·b[b,p,j]` and `Σ_p |a|·|b|` (for the error bound), in f64.
fn reference(a: &[f64], b: &[f64], [batch, m, n, k]: [usize; 4]) -> (Vec<f64>, Vec<f64>) {
    let mut out = vec![0.0; batch * m * n];
    let mut magnitude = vec![0.0; batch * m * n];
    for bi in 0..batch {
        for i in 0..m {
            for p in 0..k {
                let x = a[(bi * m + i) * k + p];
                for j in 0..n {
                    let y = b[(bi * k + p) * n + j];
                    out[(bi * m + i) * n + j] += x * y;
                    magnitude[(bi * m + i) * n + j] += (x * y).abs();
                }
            }
        }
    }
    (out, magnitude)
}

/// Runs an f32 or f64 dot in the given forms and checks every element
/// against the f64 reference within `2·k·ε·Σ|a·b|`.
fn check_float<T: DotElement + Into<f64>>(
    engine: &DotEngine,
    dims: [usize; 4],
    forms: [Form; 3],
    conv: impl Fn(f64) -> T + Copy,
    epsilon: f64,
) {
    let [batch, m, n, k] = dims;
    let mut rng = Rng((batch * 1_000_003 + m * 10007 + n * 101 + k) as u64);
    let (av, bv) = (rng.vec(batch * m * k), rng.vec(batch * k * n));
    let a = store(&av, forms[0], [batch, m, k], conv);
    let b = store(&bv, forms[1], [batch, k, n], conv);
    let mut c = store(
        &vec![f64::NAN; batch * m * n],
        forms[2],
        [batch, m, n],
        conv,
    );
    // Inputs rounded to T, so the reference sees the same values.
    let round = |v: &[f64]| v.iter().map(|&x| conv(x).into()).collect::<Vec<f64>>();
    let (expected, magnitude) = reference(&round(&av), &round(&bv), dims);
    engine
        .gemm(
            StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
            StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
            StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
            None,
        )
        .unwrap();
    for bi in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let at = (bi * m + i) * n + j;
                let got: f64 = c.buffer[c.layout.offset(bi, i, j)].into();
                let bound = 2.0 * k as f64 * epsilon * magnitude[at];
                assert!(
                    (got - expected[at]).abs() <= bound,
                    "{dims:?} {forms:?} at ({bi},{i},{j}): got {got}, expected {}",
                    expected[at]
                );
            }
        }
    }
}
