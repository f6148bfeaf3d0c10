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

const SIZES: [usize; 10] = [0, 1, 2, 3, 5, 7, 13, 64, 100, 257];

#[test]
fn f32_every_shape() {
    let forms = [Form::RowMajor; 3];
    for m in SIZES {
        for n in SIZES {
            for k in SIZES {
                check_float(
                    default_engine(),
                    [1, m, n, k],
                    forms,
                    |x| x as f32,
                    f32::EPSILON as f64,
                );
            }
        }
    }
}

#[test]
fn f32_transposed_and_strided_operands() {
    use Form::*;
    let sizes = [1, 3, 7, 13, 29];
    for engine in engines() {
        for forms in [
            [ColMajor, RowMajor, RowMajor],
            [RowMajor, ColMajor, RowMajor],
            [ColMajor, ColMajor, RowMajor],
            [RowMajor, RowMajor, ColMajor],
            [ColMajor, ColMajor, ColMajor],
            [Padded, Padded, Padded],
            [Padded, ColMajor, ColMajor],
        ] {
            for m in sizes {
                for n in sizes {
                    for k in [0, 1, 17, 40] {
                        check_float(
                            engine,
                            [1, m, n, k],
                            forms,
                            |x| x as f32,
                            f32::EPSILON as f64,
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn f32_stress_blocking() {
    // kc = 16, mc = 12, nc = 16 on 3 threads: many blocks, edges, splits.
    use Form::*;
    for m in [1, 2, 5, 13, 37] {
        for n in [1, 3, 8, 17, 50] {
            for k in [0, 1, 15, 16, 17, 33] {
                for forms in [[RowMajor; 3], [ColMajor, ColMajor, Padded]] {
                    check_float(
                        stress_engine(),
                        [1, m, n, k],
                        forms,
                        |x| x as f32,
                        f32::EPSILON as f64,
                    );
                }
            }
        }
    }
}

#[test]
fn f32_batches() {
    use Form::*;
    for engine in engines() {
        for [batch, m, n, k] in [
            [2, 3, 5, 7],
            [5, 13, 1, 9],
            [4, 1, 20, 3],
            [3, 40, 33, 20],
            [64, 8, 8, 4],
        ] {
            for forms in [[RowMajor; 3], [ColMajor, Padded, ColMajor]] {
                check_float(
                    engine,
                    [batch, m, n, k],
                    forms,
                    |x| x as f32,
                    f32::EPSILON as f64,
                );
            }
        }
    }
}

#[test]
fn a_zero_batch_stride_reuses_one_matrix() {
    let a = [1.0f32, 2.0, 3.0, 4.0]; // one [2,2] for both batches
    let b = [1.0f32, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 2.0]; // I, 2I
    let mut c = [0f32; 8];
    default_engine()
        .gemm(
            StridedMatrix::new(
                Operand::Lhs,
                &a,
                MatrixLayout::row_major(2, 2).batched(2, 0),
            )
            .unwrap(),
            StridedMatrix::new(
                Operand::Rhs,
                &b,
                MatrixLayout::row_major(2, 2).batched(2, 4),
            )
            .unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2).batched(2, 4)).unwrap(),
            None,
        )
        .unwrap();
    assert_eq!(c, [1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0]);
}

#[test]
fn f64_shapes_and_layouts() {
    use Form::*;
    for engine in engines() {
        for m in [0, 1, 5, 13, 64] {
            for n in [1, 3, 4, 9, 100] {
                for k in [0, 1, 7, 257] {
                    for forms in [
                        [RowMajor; 3],
                        [ColMajor, ColMajor, ColMajor],
                        [Padded, RowMajor, Padded],
                    ] {
                        check_float(engine, [2, m, n, k], forms, |x| x, f64::EPSILON);
                    }
                }
            }
        }
    }
}

#[test]
fn matrix_vector_products() {
    // n = 1 (matrix · vector) and m = 1 (vector · matrix): the GEMV path
    // for unit-stride matrices in either orientation, GEMM otherwise.
    use Form::*;
    for engine in engines() {
        for len in [1, 2, 3, 4, 5, 8, 9, 31, 100, 4100] {
            for k in [0, 1, 3, 8, 13, 64] {
                for forms in [
                    [RowMajor; 3],
                    [ColMajor; 3],
                    [Padded; 3],
                    [ColMajor, Padded, RowMajor],
                ] {
                    check_float(
                        engine,
                        [1, len, 1, k],
                        forms,
                        |x| x as f32,
                        f32::EPSILON as f64,
                    );
                    check_float(
                        engine,
                        [1, 1, len, k],
                        forms,
                        |x| x as f32,
                        f32::EPSILON as f64,
                    );
                }
                check_float(
                    engine,
                    [3, len, 1, k],
                    [Padded, ColMajor, RowMajor],
                    |x| x,
                    f64::EPSILON,
                );
                check_float(engine, [2, 1, len, k], [RowMajor; 3], |x| x, f64::EPSILON);
            }
        }
    }
}

/// A tiled dot of small integers: every sum is exact in f32, so the 16-bit
/// result must equal the exact sum rounded once.
fn check_half<H: DotElement>(from: impl Fn(f32) -> H + Copy, to: impl Fn(H) -> f32) {
    for engine in bf16_engines() {
        for [batch, m, n, k] in [
            [1, 7, 9, 5],
            [2, 13, 17, 40],
            [1, 1, 30, 8],
            [1, 30, 1, 8],
            [1, 3, 3, 0],
        ] {
            let mut rng = Rng(7);
            let mut ints = |len| {
                (0..len)
                    .map(|_| (rng.next() * 8.0).round())
                    .collect::<Vec<f64>>()
            };
            let (av, bv) = (ints(batch * m * k), ints(batch * k * n));
            let conv = |x: f64| from(x as f32);
            let a = store(&av, Form::ColMajor, [batch, m, k], conv);
            let b = store(&bv, Form::RowMajor, [batch, k, n], conv);
            let mut c = store(&vec![0.0; batch * m * n], Form::Padded, [batch, m, n], conv);
            engine
                .gemm(
                    StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
                    StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
                    StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
                    None,
                )
                .unwrap();
            let (expected, _) = reference(&av, &bv, [batch, m, n, k]);
            for bi in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let want = to(from(expected[(bi * m + i) * n + j] as f32));
                        assert_eq!(
                            to(c.buffer[c.layout.offset(bi, i, j)]),
                            want,
                            "({bi},{i},{j})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn f16_and_bf16_accumulate_in_f32() {
    check_half(f16::from_f32, f16::to_f32);
    check_half(bf16::from_f32, bf16::to_f32);
}

#[test]
fn bf16_rounds_once_at_the_end() {
    // `docs/semantics.md`, *Accumulation in dot and convolution*: [1, 2⁻⁹ ×8] · nine ones is 1 +
    // 8·2⁻⁹ = 1.015625; adding in bf16 would round every partial sum back to 1.
    let tiny = bf16::from_f32(2f32.powi(-9));
    let mut a = [tiny; 9];
    a[0] = bf16::ONE;
    for (m, n) in [(1, 1), (1, 3), (3, 1), (2, 2)] {
        let a_rows: Vec<bf16> = (0..m).flat_map(|_| a.iter().copied()).collect();
        let b_cols: Vec<bf16> = (0..9)
            .flat_map(|_| std::iter::repeat_n(bf16::ONE, n))
            .collect();
        let mut c = vec![bf16::ZERO; m * n];
        default_engine()
            .gemm(
                StridedMatrix::new(Operand::Lhs, &a_rows, MatrixLayout::row_major(m, 9)).unwrap(),
                StridedMatrix::new(Operand::Rhs, &b_cols, MatrixLayout::row_major(9, n)).unwrap(),
                StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n)).unwrap(),
                None,
            )
            .unwrap();
        assert!(c.iter().all(|&x| x.to_f32() == 1.015625), "{m}x{n}: {c:?}");
    }
}

/// Runs a dot of element type `T` on row-major data.
fn dot<T: DotElement>(a: &[T], b: &[T], dims: [usize; 4]) -> Vec<T> {
    let [batch, m, n, k] = dims;
    let mut c = vec![T::default(); batch * m * n];
    default_engine()
        .gemm(
            StridedMatrix::new(
                Operand::Lhs,
                a,
                MatrixLayout::row_major(m, k).batched(batch, m * k),
            )
            .unwrap(),
            StridedMatrix::new(
                Operand::Rhs,
                b,
                MatrixLayout::row_major(k, n).batched(batch, k * n),
            )
            .unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n).batched(batch, m * n))
                .unwrap(),
            None,
        )
        .unwrap();
    c
}

#[test]
fn integers_wrap_in_their_own_type() {
    assert_eq!(dot(&[100i8, 100], &[2, 2], [1, 1, 1, 2]), [-112]); // 400 - 256
    assert_eq!(dot(&[200u8, 100], &[2, 1], [1, 1, 1, 2]), [244]); // 500 - 256
    assert_eq!(dot(&[i32::MAX, 1], &[1, 1], [1, 1, 1, 2]), [i32::MIN]);
    assert_eq!(dot(&[u64::MAX, 3], &[2, 1], [1, 1, 1, 2]), [1]); // 2·(2⁶⁴−1) + 3
    assert_eq!(
        dot(&[-3i16, 7, 2, 5], &[4, -1, 6, 2], [1, 2, 2, 2]),
        [30, 17, 38, 8]
    );
    assert_eq!(dot(&[1u32, 2, 3], &[4, 5, 6], [1, 1, 1, 3]), [32]);
    assert_eq!(dot(&[-1i64, 2], &[3, 4], [1, 2, 2, 1]), [-3, -4, 6, 8]);
    assert_eq!(dot(&[1u16, 2], &[3, 4], [1, 1, 1, 2]), [11]);
    assert_eq!(dot::<i8>(&[], &[], [1, 2, 2, 0]), [0, 0, 0, 0]);
}

#[test]
fn complex_products() {
    let a = [C64::new(1.0, 2.0), C64::new(0.0, 1.0)];
    let b = [C64::new(3.0, -1.0), C64::new(2.0, 0.0)];
    // (1+2i)(3−i) + i·2 = 5 + 5i + 2i.
    assert_eq!(dot(&a, &b, [1, 1, 1, 2]), [C64::new(5.0, 7.0)]);
    let a = [C128::new(0.0, 1.0); 4];
    assert_eq!(dot(&a, &a, [1, 2, 2, 2]), [C128::new(-2.0, 0.0); 4]);
}

#[test]
fn ops_worked_examples() {
    // `docs/semantics.md`, *Dot*.
    assert_eq!(dot(&[1f32, 2., 3.], &[4., 5., 6.], [1, 1, 1, 3]), [32.0]);
    assert_eq!(
        dot(&[1f32, 2., 3., 4., 5., 6.], &[1., 0., -1.], [1, 2, 1, 3]),
        [-2.0, -2.0]
    );
    assert_eq!(
        dot(&[1f32, 2., 3., 4.], &[5., 6., 7., 8.], [1, 2, 2, 2]),
        [19.0, 22.0, 43.0, 50.0]
    );
    // `docs/semantics.md`, *Dot* example 1: lc = {1}, rc = {1}, i.e. lhs · rhsᵀ; rhs [2,3] read
    // as its transpose [3,2] with no copy.
    let (lhs, rhs) = ([1i32, 2, 3, 4, 5, 6], [1i32, 1, 1, 2, 2, 2]);
    for_int_and_float(&lhs, &rhs, |engine_dot| {
        let out = engine_dot(
            MatrixLayout::row_major(2, 3),
            MatrixLayout::row_major(2, 3).transposed(),
            [1, 2, 2],
        );
        assert_eq!(out, [6.0, 12.0, 15.0, 30.0]);
    });
    // Example 2: batch matmul with identities.
    let lhs = [1f32, 2., 3., 4., 5., 6., 7., 8.];
    let identities = [1f32, 0., 0., 1., 1., 0., 0., 1.];
    assert_eq!(dot(&lhs, &identities, [2, 2, 2, 2]), lhs);
    // Example 3: lhs s32[2,3,4], rhs s32[4,2,5], lb = {0}, rb = {1},
    // lc = {2}, rc = {0}. The rhs batch dimension is its dimension 1, so the
    // rhs view is [batch 2, k 4, n 5] with strides [5, 10, 1].
    let lhs: Vec<i32> = (0..24).collect(); // 12i + 4j + k
    let rhs: Vec<i32> = (0..40).collect(); // 10i + 5j + k
    let mut out = vec![0i32; 30];
    default_engine()
        .gemm(
            StridedMatrix::new(
                Operand::Lhs,
                &lhs,
                MatrixLayout::row_major(3, 4).batched(2, 12),
            )
            .unwrap(),
            StridedMatrix::new(
                Operand::Rhs,
                &rhs,
                MatrixLayout::new(4, 5, 10, 1).batched(2, 5),
            )
            .unwrap(),
            StridedMatrixMut::new(&mut out, MatrixLayout::row_major(3, 5).batched(2, 15)).unwrap(),
            None,
        )
        .unwrap();
    assert_eq!(out[15 + 2 * 5 + 3], 2028);
}

/// Runs `check` with a dot function for s32 and for f32 copies of the data.
fn for_int_and_float(
    lhs: &[i32],
    rhs: &[i32],
    check: impl Fn(&dyn Fn(MatrixLayout, MatrixLayout, [usize; 3]) -> Vec<f64>),
) {
    fn run<T: DotElement + Into<f64>>(
        a: &[T],
        b: &[T],
        la: MatrixLayout,
        lb: MatrixLayout,
        [batch, m, n]: [usize; 3],
    ) -> Vec<f64> {
        let mut c = vec![T::default(); batch * m * n];
        default_engine()
            .gemm(
                StridedMatrix::new(Operand::Lhs, a, la).unwrap(),
                StridedMatrix::new(Operand::Rhs, b, lb).unwrap(),
                StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n).batched(batch, m * n))
                    .unwrap(),
                None,
            )
            .unwrap();
        c.into_iter().map(Into::into).collect()
    }
    check(&|la, lb, dims| run(lhs, rhs, la, lb, dims));
    let (fl, fr): (Vec<f32>, Vec<f32>) = (
        lhs.iter().map(|&x| x as f32).collect(),
        rhs.iter().map(|&x| x as f32).collect(),
    );
    check(&|la, lb, dims| run(&fl, &fr, la, lb, dims));
}

/// `relu(C + bias[column])`, counting how often each element is visited.
struct BiasRelu<'a> {
    bias: &'a [f32],
    visits: Mutex<Vec<usize>>,
    cols: usize,
    rows: usize,
    blocks: AtomicUsize,
}

impl Epilogue<f32> for BiasRelu<'_> {
    fn apply(&self, mut block: OutputBlock<'_, f32>) {
        self.blocks.fetch_add(1, SeqCst);
        let layout = block.c.layout();
        let mut visits = self.visits.lock().unwrap();
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let (row, col) = (block.row0 + i, block.col0 + j);
                visits[(block.batch * self.rows + row) * self.cols + col] += 1;
                let value = block.c.get(0, i, j) + self.bias[col];
                block.c.set(0, i, j, value.max(0.0));
            }
        }
    }
}

#[test]
fn the_epilogue_sees_every_element_once() {
    use Form::*;
    for engine in engines() {
        for [batch, m, n, k] in [
            [1, 100, 600, 300],
            [2, 13, 17, 40],
            [1, 1, 50, 9],
            [1, 50, 1, 9],
            [1, 4, 4, 0],
        ] {
            for forms in [
                [RowMajor; 3],
                [ColMajor, RowMajor, ColMajor],
                [RowMajor, RowMajor, Padded],
            ] {
                let mut rng = Rng(11);
                let (av, bv) = (rng.vec(batch * m * k), rng.vec(batch * k * n));
                let bias: Vec<f32> = rng.vec(n).into_iter().map(|x| x as f32).collect();
                let a = store(&av, forms[0], [batch, m, k], |x| x as f32);
                let b = store(&bv, forms[1], [batch, k, n], |x| x as f32);
                let mut c = store(&vec![0.0; batch * m * n], forms[2], [batch, m, n], |x| {
                    x as f32
                });
                let epilogue = BiasRelu {
                    bias: &bias,
                    visits: Mutex::new(vec![0; batch * m * n]),
                    cols: n,
                    rows: m,
                    blocks: AtomicUsize::new(0),
                };
                engine
                    .gemm(
                        StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
                        StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
                        StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
                        Some(&epilogue),
                    )
                    .unwrap();
                assert!(epilogue
                    .visits
                    .into_inner()
                    .unwrap()
                    .iter()
                    .all(|&v| v == 1));
                assert!(epilogue.blocks.load(SeqCst) >= batch);
                let round = |v: &[f64]| v.iter().map(|&x| x as f32 as f64).collect::<Vec<_>>();
                let (expected, magnitude) = reference(&round(&av), &round(&bv), [batch, m, n, k]);
                for bi in 0..batch {
                    for i in 0..m {
                        for (j, &bias_j) in bias.iter().enumerate() {
                            let at = (bi * m + i) * n + j;
                            let want = (expected[at] + bias_j as f64).max(0.0);
                            let got = c.buffer[c.layout.offset(bi, i, j)] as f64;
                            let bound =
                                2.0 * (k + 1) as f64 * f32::EPSILON as f64 * (magnitude[at] + 1.0);
                            assert!(
                                (got - want).abs() <= bound,
                                "{forms:?} ({bi},{i},{j}): {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn closures_are_epilogues_for_every_type() {
    let double = |mut block: OutputBlock<'_, i32>| {
        let layout = block.c.layout();
        for i in 0..layout.rows {
            let row = block.c.row_mut(0, i).unwrap();
            row.iter_mut().for_each(|x| *x *= 2);
        }
    };
    let mut c = [0i32; 4];
    default_engine()
        .gemm(
            StridedMatrix::new(Operand::Lhs, &[1, 2, 3, 4], MatrixLayout::row_major(2, 2)).unwrap(),
            StridedMatrix::new(Operand::Rhs, &[5, 6, 7, 8], MatrixLayout::row_major(2, 2)).unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2)).unwrap(),
            Some(&double),
        )
        .unwrap();
    assert_eq!(c, [38, 44, 86, 100]);
    let plus_one = |mut block: OutputBlock<'_, bf16>| {
        let l = block.c.layout();
        for i in 0..l.rows {
            for j in 0..l.cols {
                let v = block.c.get(0, i, j);
                block.c.set(0, i, j, v + bf16::ONE);
            }
        }
    };
    let ones = [bf16::ONE; 6];
    let mut c = [bf16::ZERO; 4];
    default_engine()
        .gemm(
            StridedMatrix::new(Operand::Lhs, &ones, MatrixLayout::row_major(2, 3)).unwrap(),
            StridedMatrix::new(Operand::Rhs, &ones, MatrixLayout::row_major(3, 2)).unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::col_major(2, 2)).unwrap(),
            Some(&plus_one),
        )
        .unwrap();
    assert!(c.iter().all(|x| x.to_f32() == 4.0), "{c:?}");
}

#[test]
fn size_mismatches_name_the_dimension() {
    let a = [0f32; 6];
    let mut c = [0f32; 4];
    let err = default_engine()
        .gemm(
            StridedMatrix::new(Operand::Lhs, &a, MatrixLayout::row_major(2, 3)).unwrap(),
            StridedMatrix::new(Operand::Rhs, &a, MatrixLayout::row_major(2, 3)).unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2)).unwrap(),
            None,
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "dot: the n sizes disagree: operand 0 (lhs) [batch,m,k] = [1, 2, 3], \
         operand 1 (rhs) [batch,k,n] = [1, 2, 3], output [batch,m,n] = [1, 2, 2]"
    );
    let err = StridedMatrix::new(Operand::Rhs, &a, MatrixLayout::row_major(3, 3))
        .err()
        .unwrap();
    assert!(matches!(
        &err,
        JitError::DotOutOfBounds {
            operand,
            needed: 9,
            len: 6,
            ..
        } if operand == "operand 1 (rhs)"
    ));
}

#[test]
fn gemv_blockings_are_checked() {
    for (rows, vectors) in [(3, 2), (4, 0), (16, 1), (1, 12)] {
        let config = DotConfig {
            gemv: GemvBlock { rows, vectors },
            ..DotConfig::default()
        };
        let Err(JitError::InvalidConfig(why)) = DotEngine::new(config) else {
            panic!("rows {rows}, vectors {vectors} accepted");
        };
        assert!(
            why.contains("rows and vectors must be 1, 2, 4 or 8"),
            "{why}"
        );
    }
}

#[test]
fn the_cranelift_micro_kernels_keep_everything_in_registers() {
    let config = DotConfig {
        keep_disasm: true,
        f32: DotConfig::CRANELIFT_F32,
        ..DotConfig::default()
    };
    let engine = DotEngine::new(config).unwrap();
    for name in ["gemm_f32", "gemm_f64"] {
        let (_, listing) = engine.disasm().iter().find(|(n, _)| n == name).unwrap();
        // No stack traffic at all: no spills, no reloads.
        assert!(!listing.contains("rsp)"), "{name} spills:\n{listing}");
        assert!(listing.contains("vmulp"), "{name}:\n{listing}");
    }
}

/// The listing of the f32 micro-kernel of `f32` (a native kernel), after
/// checking it has no stack traffic.
fn native_kernel_listing(f32: KernelConfig) -> String {
    let config = DotConfig {
        keep_disasm: true,
        f32,
        ..DotConfig::default()
    };
    let engine = DotEngine::new(config).unwrap();
    let (_, listing) = engine
        .disasm()
        .iter()
        .find(|(n, _)| n == "gemm_f32")
        .unwrap();
    assert!(!listing.contains("rsp"), "{listing}");
    listing.clone()
}

/// The AVX-512 f32 kernel: no stack traffic, and a step of 14×32 is two
/// loads of `B` and 28 FMAs reading `A` as broadcast memory operands.
#[test]
fn the_avx512_micro_kernel_broadcasts_a_from_memory() {
    if !xla_jit::wide::cpu_has_avx512() {
        eprintln!("skipped: this CPU has no AVX-512");
        return;
    }
    let listing = native_kernel_listing(DotConfig::AVX512_F32);
    let fmas = listing
        .lines()
        .filter(|l| l.contains("vfmadd231ps") && l.contains("{1to16}"))
        .count();
    // The unrolled steps and the single step.
    let unroll = DotConfig::AVX512_F32.shape.unroll;
    assert_eq!(fmas, 28 * (unroll + 1), "{listing}");
}

/// The AVX2 f32 kernel: no stack traffic, and a step of 6×16 is two
/// loads of `B`, six broadcasts of `A` and 12 register FMAs.
#[test]
fn the_avx2_micro_kernel_broadcasts_a_into_registers() {
    if !xla_jit::wide::cpu_has_avx2() {
        eprintln!("skipped: this CPU has no AVX2");
        return;
    }
    let listing = native_kernel_listing(DotConfig::AVX2_F32);
    let count = |what: &str| {
        listing
            .lines()
            .filter(|l| l.contains(what) && l.contains(",%ymm"))
            .count()
    };
    // The unrolled steps and the single step.
    let steps = DotConfig::AVX2_F32.shape.unroll + 1;
    assert_eq!(count("vfmadd231ps"), 12 * steps, "{listing}");
    assert_eq!(count("vbroadcastss"), 6 * steps, "{listing}");
}

/// A native configuration that does not fit the registers (16 rows or
/// 24 columns at 512 bits, 7 rows or 12 columns at 256), or with choices
/// the kernel does not make, is an error naming the instruction set.
#[test]
fn native_kernel_shapes_are_checked() {
    let widths = [
        (
            xla_jit::wide::cpu_has_avx512(),
            DotConfig::AVX512_F32,
            [16, 24],
            "AVX-512",
        ),
        (
            xla_jit::wide::cpu_has_avx2(),
            DotConfig::AVX2_F32,
            [7, 12],
            "AVX2",
        ),
    ];
    for (has, native, [mr, nr], name) in widths {
        if !has {
            continue;
        }
        let shape = native.shape;
        for bad in [
            xla_jit::dot::KernelShape { mr, ..shape },
            xla_jit::dot::KernelShape { nr, ..shape },
            xla_jit::dot::KernelShape {
                accumulate: xla_jit::dot::Accumulate::MulAdd,
                ..shape
            },
        ] {
            let config = DotConfig {
                f32: KernelConfig {
                    shape: bad,
                    blocking: Blocking {
                        mc: bad.mr * 4,
                        nc: bad.nr * 4,
                        ..native.blocking
                    },
                },
                ..DotConfig::default()
            };
            let Err(JitError::InvalidConfig(why)) = DotEngine::new(config) else {
                panic!("{bad:?} accepted");
            };
            assert!(why.contains(name), "{why}");
        }
    }
}

/// The patches of a stride-2, dilation-2 convolution over a padded
/// `[2, 11, 13, 5]` NHWC image with a 3×2 kernel, as a window view, and the
/// same patches copied out: the engine gives the same products (up to the
/// summation order), for f32 and f64 on every engine (packing straight
/// from the window, with tails of every tile) and for the other element
/// types (through a dense copy).
#[test]
fn window_views_read_patches_in_place() {
    let (batch, height, width, channels) = (2usize, 11usize, 13usize, 5usize);
    let (kh, kw, stride, dilation) = (3usize, 2usize, 2usize, 2usize);
    let (oh, ow) = (
        (height - dilation * (kh - 1) - 1) / stride + 1,
        (width - dilation * (kw - 1) - 1) / stride + 1,
    );
    let (sb, sh, sw) = (height * width * channels, width * channels, channels);
    let offset = 3;
    let layout = WindowLayout {
        rows: WindowDims::new(&[(batch, sb), (oh, stride * sh), (ow, stride * sw)]).unwrap(),
        cols: WindowDims::new(&[(kh, dilation * sh), (kw, dilation * sw), (channels, 1)]).unwrap(),
        offset,
    };
    let (m, k, n) = (batch * oh * ow, kh * kw * channels, 7);
    let mut rng = Rng(17);
    let image = rng.vec(offset + batch * sb);
    let weights = rng.vec(k * n);
    // The patches, copied out by index arithmetic.
    let mut patches = Vec::with_capacity(m * k);
    for b in 0..batch {
        for y in 0..oh {
            for x in 0..ow {
                for i in 0..kh {
                    for j in 0..kw {
                        for c in 0..channels {
                            patches.push(
                                image[offset
                                    + b * sb
                                    + (y * stride + i * dilation) * sh
                                    + (x * stride + j * dilation) * sw
                                    + c],
                            );
                        }
                    }
                }
            }
        }
    }
    fn run<T: DotElement + Copy + Default>(
        engine: &DotEngine,
        image: &[T],
        patches: &[T],
        weights: &[T],
        layout: WindowLayout,
        [m, n, k]: [usize; 3],
    ) -> (Vec<T>, Vec<T>) {
        let b =
            || StridedMatrix::new(Operand::Rhs, weights, MatrixLayout::row_major(k, n)).unwrap();
        let (mut windowed, mut dense) = (vec![T::default(); m * n], vec![T::default(); m * n]);
        engine
            .gemm_window(
                WindowMatrix::new(image, layout).unwrap(),
                b(),
                StridedMatrixMut::new(&mut windowed, MatrixLayout::row_major(m, n)).unwrap(),
                None,
            )
            .unwrap();
        engine
            .gemm(
                StridedMatrix::new(Operand::Lhs, patches, MatrixLayout::row_major(m, k)).unwrap(),
                b(),
                StridedMatrixMut::new(&mut dense, MatrixLayout::row_major(m, n)).unwrap(),
                None,
            )
            .unwrap();
        (windowed, dense)
    }
    let dims = [m, n, k];
    let as_f32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    for engine in engines() {
        let (w, d) = run(
            engine,
            &as_f32(&image),
            &as_f32(&patches),
            &as_f32(&weights),
            layout,
            dims,
        );
        // The window is packed by the engine; the copy may go to the gemm
        // crate (a narrow n), which sums in another order.
        let close = |w: f64, d: f64, eps: f64| (w - d).abs() <= eps * k as f64;
        assert!(w
            .iter()
            .zip(&d)
            .all(|(&w, &d)| close(w.into(), d.into(), 1e-6)));
        let (w, d) = run(engine, &image, &patches, &weights, layout, dims);
        assert!(w.iter().zip(&d).all(|(&w, &d)| close(w, d, 1e-14)));
    }
    let as_i32 = |v: &[f64]| v.iter().map(|&x| (x * 100.0) as i32).collect::<Vec<_>>();
    let (w, d) = run(
        default_engine(),
        &as_i32(&image),
        &as_i32(&patches),
        &as_i32(&weights),
        layout,
        dims,
    );
    assert_eq!(w, d);
    let as_bf16 = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
    let (w, d) = run(
        default_engine(),
        &as_bf16(&image),
        &as_bf16(&patches),
        &as_bf16(&weights),
        layout,
        dims,
    );
    assert_eq!(w, d);
    // A window reaching past its buffer is refused.
    let short = as_f32(&image[..image.len() - 1]);
    assert!(matches!(
        WindowMatrix::new(&short, layout),
        Err(JitError::DotOutOfBounds { .. })
    ));
}

/// Only 16-bit floats widen into an f32 result.
#[test]
fn only_half_operands_widen() {
    let (a, b) = ([1.0f32; 4], [1.0f32; 4]);
    let mut c = [0.0f32; 4];
    let layout = MatrixLayout::row_major(2, 2);
    let result = default_engine().gemm_to_f32(
        StridedMatrix::new(Operand::Lhs, &a, layout).unwrap(),
        StridedMatrix::new(Operand::Rhs, &b, layout).unwrap(),
        StridedMatrixMut::new(&mut c, layout).unwrap(),
        None,
    );
    let error = result.unwrap_err().to_string();
    assert!(
        error.contains("only f16 and bf16 operands widen"),
        "{error}"
    );
}

/// Rounding to a 16-bit float and widening back.
type Conversions<H> = (fn(f64) -> H, fn(H) -> f64);

/// `gemm_to_f32` of 16-bit operands (`from` rounds to them, `to` widens
/// back) stored in `forms` (A, B, C), against the f64 reference on the
/// widened values, within f32 summation error; `epilogue` sees the blocks.
fn check_widening<H: DotElement>(
    engine: &DotEngine,
    [batch, m, n, k]: [usize; 4],
    [a_form, b_form, c_form]: [Form; 3],
    (from, to): Conversions<H>,
    epilogue: Option<&dyn Epilogue<f32>>,
) {
    let mut rng = Rng(3);
    let (av, bv) = (rng.vec(batch * m * k), rng.vec(batch * k * n));
    let wide = |v: &[f64]| v.iter().map(|&x| to(from(x))).collect::<Vec<_>>();
    let (want, magnitude) = reference(&wide(&av), &wide(&bv), [batch, m, n, k]);
    let a = store(&av, a_form, [batch, m, k], from);
    let b = store(&bv, b_form, [batch, k, n], from);
    let mut c = store(&vec![0.0; batch * m * n], c_form, [batch, m, n], |x| {
        x as f32
    });
    engine
        .gemm_to_f32(
            StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
            StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
            StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
            epilogue,
        )
        .unwrap();
    for bi in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let at = (bi * m + i) * n + j;
                let got = c.buffer[c.layout.offset(bi, i, j)] as f64;
                let bound = 1e-5 * magnitude[at].max(1.0);
                assert!(
                    (got - want[at]).abs() <= bound,
                    "{batch}×{m}×{n}×{k} {b_form:?} ({bi},{i},{j}): {got} vs {}",
                    want[at]
                );
            }
        }
    }
}

/// bf16 and f16 operands of an f32 result (XLA's preferred element type):
/// every engine, bf16 pairs included where the CPU has them: odd `k` (a
/// pair half-filled), tails of every tile, transposed operands and
/// batches.
#[test]
fn half_operands_into_f32_results() {
    for engine in bf16_engines() {
        for dims in [
            [1, 29, 70, 33],
            [3, 15, 33, 64],
            [1, 2, 40, 1],
            [2, 1, 1, 7],
        ] {
            let bf16s: Conversions<bf16> = (bf16::from_f64, bf16::to_f64);
            let f16s: Conversions<f16> = (f16::from_f64, f16::to_f64);
            check_widening(
                engine,
                dims,
                [Form::ColMajor, Form::RowMajor, Form::Padded],
                bf16s,
                None,
            );
            check_widening(
                engine,
                dims,
                [Form::RowMajor, Form::ColMajor, Form::RowMajor],
                f16s,
                None,
            );
        }
    }
}

/// bf16 dots on AMX tiles where the CPU has them (shapes of multiples of
/// 32, row-contiguous A and C, any B), against the f64 reference on the
/// widened values; the epilogue sees every element once. Elsewhere the
/// same products run on the f32 kernels and must agree just as well.
#[test]
fn bf16_dots_on_tiles() {
    assert_eq!(
        default_engine().runs_amx(),
        xla_jit::dot::amx_available(),
        "the default engine uses AMX where it is available"
    );
    let seen = AtomicUsize::new(0);
    let count = |block: OutputBlock<'_, f32>| {
        let l = block.c.layout();
        seen.fetch_add(l.rows * l.cols, SeqCst);
    };
    let bf16s: Conversions<bf16> = (bf16::from_f64, bf16::to_f64);
    for dims in [[1, 32, 32, 32], [2, 64, 96, 128], [1, 96, 320, 64]] {
        for b_form in [Form::RowMajor, Form::ColMajor] {
            seen.store(0, SeqCst);
            let forms = [Form::RowMajor, b_form, Form::RowMajor];
            check_widening(default_engine(), dims, forms, bf16s, Some(&count));
            assert_eq!(seen.load(SeqCst), dims[0] * dims[1] * dims[2]);
        }
    }
}
