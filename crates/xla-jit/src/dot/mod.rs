//! The dot engine: `C = A·B` for a batch of matrices read through any
//! strides, after a `dot_general` has been canonicalized to
//! `[batch, m, k] · [batch, k, n] → [batch, m, n]`.
//!
//! ```
//! use xla_jit::dot::{DotEngine, MatrixLayout, Operand, StridedMatrix, StridedMatrixMut};
//!
//! let engine = DotEngine::global()?;
//! let a = [1.0f32, 2.0, 3.0, 4.0]; // [[1,2],[3,4]]
//! let b = [5.0f32, 7.0, 6.0, 8.0]; // [[5,6],[7,8]] stored column-major
//! let mut c = [0.0f32; 4];
//! engine.gemm(
//!     StridedMatrix::new(Operand::Lhs, &a, MatrixLayout::row_major(2, 2))?,
//!     StridedMatrix::new(Operand::Rhs, &b, MatrixLayout::col_major(2, 2))?,
//!     StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2))?,
//!     None,
//! )?;
//! assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
//! # Ok::<(), xla_jit::JitError>(())
//! ```
//!
//! Paths, by element type and shape:
//!
//! * **f32, f64**: matrix × vector (`n == 1` or `m == 1`) runs the streaming
//!   GEMV kernels (`gemv.rs`); everything else runs on the `gemm` crate
//!   (`external.rs`, measured faster), or with [`DotConfig::gemm_crate`] off
//!   on the engine's BLIS-style GEMM (`gemm.rs`): operands packed into
//!   panels (`pack.rs`), a register-blocked micro-kernel (native AVX-512 or
//!   AVX2 code, or Cranelift's, [`kernel`]), cache blocking, and tasks over
//!   the output for the thread pool. An output whose columns are strided
//!   but whose rows are contiguous is computed as `Cᵀ = Bᵀ·Aᵀ`.
//! * **f16, bf16**: packing widens to f32, the f32 kernel accumulates in f32
//!   into a scratch matrix, and each finished block is rounded once to the
//!   16-bit type (the project rule of `docs/semantics.md`, *Accumulation in dot and convolution*).
//! * **integers, complex**: a plain loop; integers wrap in their own type.
//! * **window `A`** ([`DotEngine::gemm_window`]): a convolution's patches
//!   read in place (`window.rs`); f32 and f64 pack their panels straight
//!   from the window, the other types from a dense copy of it.
//!
//! An [`Epilogue`] runs on each finished output block while it is in cache.

mod amx;
mod element;
mod epilogue;
mod external;
mod gemm;
mod gemv;
pub mod kernel;
mod matrix;
mod native;
mod pack;
mod window;

use std::sync::{Arc, OnceLock};

use cranelift_codegen::ir::types;

pub use amx::available as amx_available;
pub use element::DotElement;
pub(crate) use epilogue::AddToOutput;
pub use epilogue::{Epilogue, OutputBlock};
pub use gemv::GemvBlock;
pub use kernel::{ABroadcast, Accumulate, Blocking, Codegen, KernelShape, MicroKernel};
pub use matrix::{MatrixLayout, Operand, StridedMatrix, StridedMatrixMut};
pub use window::{WindowDims, WindowLayout, WindowMatrix, MAX_WINDOW_DIMS};

use crate::codegen::{CodegenOptions, Jit, OptLevel};
use crate::pool::ThreadPool;
use crate::wide::Width;
use crate::JitError;
use gemv::GemvKernels;
use native::Product;

/// The micro-kernel and cache blocking of one element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelConfig {
    /// Register blocking and instruction choices.
    pub shape: KernelShape,
    /// Cache blocking.
    pub blocking: Blocking,
}

/// How the engine compiles its kernels and splits work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DotConfig {
    /// The f32 kernel (also used by f16 and bf16).
    pub f32: KernelConfig,
    /// The f64 kernel.
    pub f64: KernelConfig,
    /// GEMMs of fewer flops (`2·batch·m·n·k`) run on the calling thread.
    pub parallel_min_flops: usize,
    /// Matrix-vector products reading fewer matrix bytes run on the calling
    /// thread.
    pub parallel_min_bytes: usize,
    /// How matrix-vector products read a matrix whose rows are contiguous.
    pub gemv: GemvBlock,
    /// Sum bf16 products in pairs with `vdpbf16ps` (AVX512_BF16, with the
    /// AVX-512 f32 kernel's tiles) instead of widening bf16 to f32 for the
    /// f32 kernel, where the CPU has AVX512_BF16 and the f32 kernel is the
    /// AVX-512 one (elsewhere bf16 is widened whatever this says). On
    /// Emerald Rapids a 512×1024·1024×1024 bf16 dot ran at 83 GFLOP/s on
    /// one thread with it against 157 widened (2026-12-06): Intel issues
    /// it at half the FMA rate. AMD documents it at the FMA rate for Zen 4
    /// and later, two products each, so the default is on for AMD
    /// processors with AVX512_BF16 only (not yet measured on one).
    pub bf16_pairs: bool,
    /// Run bf16 dots into f32 on AMX tiles (`amx.rs`) where the CPU and
    /// the operating system allow it and the shape fits (multiples of 32);
    /// on by default.
    pub amx: bool,
    /// Run f32 and f64 GEMMs over strided matrices on the `gemm` crate,
    /// measured faster than the engine's kernels (`external.rs`); the
    /// engine's kernels keep windows and 16-bit operands. On by default;
    /// off runs every GEMM on the engine's kernels (to measure or test
    /// them).
    pub gemm_crate: bool,
    /// Keep the machine code listing of every kernel ([`DotEngine::disasm`]).
    pub keep_disasm: bool,
}

impl Default for DotConfig {
    /// The choices measured best on Zen 5 (48 KiB L1d, 1 MiB L2 per core,
    /// 32 MiB L3; `examples/gemm.rs -- --sweep` measures the alternatives).
    ///
    /// f32, `kc = 256`: the `A` panel with its 4 broadcast copies is
    /// `6·256·16 B = 24 KiB` and stays in L1 while the kernel streams `B`
    /// panels of `256·8·4 B = 8 KiB` past it. `nc = 512`: the `kc×nc` block
    /// of `B` (`512 KiB`) stays in L2 while every `A` panel sweeps it.
    /// `mc = 72` (12 panels, 288 KiB packed) only sets how much of `A` is
    /// packed at a time. On dot_1024/2048 (one thread), `kc` from 128 to 256
    /// and `nc` from 512 to 4096 are within 3% of each other; `kc ≥ 384`
    /// loses 3–8% (the `A` panel outgrows L1 next to the `B` stream).
    ///
    /// f64 keeps the same byte sizes: `6×4` tiles, `kc = 256` (`A` panel
    /// `6·256·16 B`), `nc = 256` (`B` block `512 KiB`).
    ///
    /// On a CPU with AVX-512 the f32 kernel is [`DotConfig::AVX512_F32`]
    /// instead, on one with AVX2 and FMA [`DotConfig::AVX2_F32`]. The
    /// matrix-vector blocking is the host's ([`GemvBlock::for_host`]).
    fn default() -> Self {
        DotConfig {
            f32: if crate::wide::cpu_has_avx512() {
                Self::AVX512_F32
            } else if crate::wide::cpu_has_avx2() {
                Self::AVX2_F32
            } else {
                Self::CRANELIFT_F32
            },
            f64: KernelConfig {
                shape: KernelShape {
                    mr: 6,
                    nr: 4,
                    unroll: 2,
                    accumulate: Accumulate::MulAdd,
                    a_broadcast: ABroadcast::Packed,
                    codegen: Codegen::Cranelift,
                },
                blocking: Blocking {
                    kc: 256,
                    mc: 72,
                    nc: 256,
                },
            },
            parallel_min_flops: 1 << 22,
            parallel_min_bytes: 1 << 20,
            gemv: GemvBlock::for_host(),
            bf16_pairs: crate::wide::cpu_has_avx512_bf16() && crate::wide::amd_family().is_some(),
            amx: true,
            gemm_crate: true,
            keep_disasm: false,
        }
    }
}

impl DotConfig {
    /// The f32 Cranelift kernel (the layout of `kernel.rs`'s docs), the
    /// default without AVX-512.
    pub const CRANELIFT_F32: KernelConfig = KernelConfig {
        shape: KernelShape {
            mr: 6,
            nr: 8,
            unroll: 2,
            accumulate: Accumulate::MulAdd,
            a_broadcast: ABroadcast::Packed,
            codegen: Codegen::Cranelift,
        },
        blocking: Blocking {
            kc: 256,
            mc: 72,
            nc: 512,
        },
    };

    /// The f32 kernel on CPUs with AVX-512: `14×32` tiles in 28 `zmm`
    /// accumulators (`dot/native.rs`). `kc = 256`: the `A` panel is
    /// `14·256·4 B = 14 KiB` in L1 while the kernel streams `B` panels of
    /// `256·32·4 B = 32 KiB` past it; `nc = 1024`: the `kc×nc` block of
    /// `B` (1 MiB) stays in the 2 MiB L2 of the Intel host, and `A` is
    /// packed once per 1024 columns; `mc = 112` (8 panels). On that host
    /// (`examples/gemm.rs -- --blocking`, two interleaved rounds over
    /// dot_1024, dot_2048 and mlp's two dots on one thread, a noisy host)
    /// this summed 521 GFLOP/s against 449 for `nc = 512, mc = 168` and 495
    /// for `kc = 512, nc = 4096`.
    pub const AVX512_F32: KernelConfig = KernelConfig {
        shape: KernelShape {
            mr: 14,
            nr: 32,
            unroll: 4,
            accumulate: Accumulate::Fma,
            a_broadcast: ABroadcast::InKernel,
            codegen: Codegen::Avx512,
        },
        blocking: Blocking {
            kc: 256,
            mc: 112,
            nc: 1024,
        },
    };

    /// The f32 kernel on CPUs with AVX2 and FMA but not AVX-512: `6×16`
    /// tiles in 12 `ymm` accumulators (`dot/native.rs`). `kc = 256`: the
    /// `A` panel is `6·256·4 B = 6 KiB` in L1 beside `B` panels of
    /// `256·16·4 B = 16 KiB`; `nc = 512`: the `kc×nc` block of `B`
    /// (512 KiB) fills Zen 3's L2.
    pub const AVX2_F32: KernelConfig = KernelConfig {
        shape: KernelShape {
            mr: 6,
            nr: 16,
            unroll: 4,
            accumulate: Accumulate::Fma,
            a_broadcast: ABroadcast::InKernel,
            codegen: Codegen::Avx2,
        },
        blocking: Blocking {
            kc: 256,
            mc: 72,
            nc: 512,
        },
    };
}

/// The compiled kernels of one float type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FloatKernels<T> {
    pub micro: MicroKernel<T>,
    pub gemv: GemvKernels<T>,
}

/// The thread pool an engine runs on.
enum PoolRef {
    Global,
    Shared(Arc<ThreadPool>),
}

/// Owns the machine code of the kernels (freed when the engine drops).
struct Code {
    _jit: Jit,
}

// SAFETY: after construction the module is never used again, only dropped
// (which frees the code); the function pointers into it are plain data.
unsafe impl Send for Code {}
// SAFETY: as above; no method of `Jit` is reachable through `&Code`.
unsafe impl Sync for Code {}

/// Compiled dot kernels plus the thread pool they run on.
pub struct DotEngine {
    pub(crate) f32: FloatKernels<f32>,
    pub(crate) f64: FloatKernels<f64>,
    /// The bf16-pair kernel (`vdpbf16ps`), with [`DotConfig::bf16_pairs`].
    pub(crate) bf16: Option<MicroKernel<f32>>,
    /// The AMX bf16 kernel, with [`DotConfig::amx`] where available.
    pub(crate) amx: Option<amx::AmxFn>,
    config: DotConfig,
    pool: PoolRef,
    disasm: Vec<(String, String)>,
    _code: Code,
}

impl DotEngine {
    /// Compiles the kernels of `config`; dots run on the global pool.
    pub fn new(config: DotConfig) -> Result<Self, JitError> {
        Self::build(config, PoolRef::Global)
    }

    /// Compiles the kernels of `config`; dots run on `pool`.
    pub fn with_pool(config: DotConfig, pool: Arc<ThreadPool>) -> Result<Self, JitError> {
        Self::build(config, PoolRef::Shared(pool))
    }

    /// The process-wide engine: the default configuration on the global
    /// pool, compiled on first use.
    pub fn global() -> Result<&'static DotEngine, JitError> {
        static GLOBAL: OnceLock<Result<DotEngine, String>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| DotEngine::new(DotConfig::default()).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| JitError::Host(e.clone()))
    }

    fn build(config: DotConfig, pool: PoolRef) -> Result<Self, JitError> {
        let f32_lanes = check_config("f32", &config.f32, 4)?;
        check_config("f64", &config.f64, 2)?;
        if config.f64.shape.codegen != Codegen::Cranelift {
            return Err(JitError::InvalidConfig(
                "f64: the native (AVX-512, AVX2) micro-kernels are f32 only".into(),
            ));
        }
        config.gemv.check()?;
        let mut jit = Jit::with_opt_level(CodegenOptions::default(), OptLevel::None)?;
        jit.keep_disasm(config.keep_disasm);
        let native_f32 = match config.f32.shape.codegen.native_width() {
            Some(width) => {
                let code = native::micro_kernel(&config.f32.shape, width, Product::F32);
                Some(jit.add_native("gemm_f32", &code)?)
            }
            None => None,
        };
        let amx = match config.amx && amx::available() {
            true => Some(jit.add_native("amx_bf16", &amx::kernel())?),
            false => None,
        };
        let pairs = config.bf16_pairs
            && config.f32.shape.codegen == Codegen::Avx512
            && crate::wide::cpu_has_avx512_bf16();
        let bf16_pairs = match pairs {
            true => {
                let code = native::micro_kernel(&config.f32.shape, Width::Zmm, Product::Bf16Pairs);
                Some(jit.add_native("gemm_bf16_pairs", &code)?)
            }
            false => None,
        };
        let f32_micro = match native_f32 {
            Some(_) => None,
            None => Some(kernel::emit_micro_kernel(
                &mut jit,
                "gemm_f32",
                types::F32,
                config.f32.shape,
            )?),
        };
        let ids = [
            kernel::emit_micro_kernel(&mut jit, "gemm_f64", types::F64, config.f64.shape)?,
            gemv::emit_dot_rows(&mut jit, "gemv_dot_f32", types::F32, config.gemv)?,
            gemv::emit_dot_rows(&mut jit, "gemv_dot_f64", types::F64, config.gemv)?,
            gemv::emit_axpy_rows(&mut jit, "gemv_axpy_f32", types::F32)?,
            gemv::emit_axpy_rows(&mut jit, "gemv_axpy_f64", types::F64)?,
        ];
        jit.finalize()?;
        let f32_ptr = match (native_f32, f32_micro) {
            (Some(ptr), _) => ptr,
            (None, Some(id)) => jit.function_ptr(id),
            (None, None) => unreachable!("one f32 micro-kernel is built"),
        };
        let [f64_ptr, dot32, dot64, axpy32, axpy64] = ids.map(|id| jit.function_ptr(id));
        let ptrs = [f32_ptr, f64_ptr, dot32, dot64, axpy32, axpy64];
        // SAFETY: each pointer is the function compiled above with the
        // matching signature; `Code` keeps it alive as long as the engine.
        let (f32, f64) = unsafe {
            use std::mem::transmute;
            let f32 = FloatKernels {
                micro: MicroKernel::from_raw(
                    config.f32.shape,
                    config.f32.blocking,
                    f32_lanes,
                    transmute::<*const u8, kernel::KernelFn<f32>>(ptrs[0]),
                ),
                gemv: GemvKernels {
                    dot: transmute::<*const u8, gemv::DotRowsFn<f32>>(ptrs[2]),
                    axpy: transmute::<*const u8, gemv::AxpyRowsFn<f32>>(ptrs[4]),
                },
            };
            let f64 = FloatKernels {
                micro: MicroKernel::from_raw(
                    config.f64.shape,
                    config.f64.blocking,
                    2,
                    transmute::<*const u8, kernel::KernelFn<f64>>(ptrs[1]),
                ),
                gemv: GemvKernels {
                    dot: transmute::<*const u8, gemv::DotRowsFn<f64>>(ptrs[3]),
                    axpy: transmute::<*const u8, gemv::AxpyRowsFn<f64>>(ptrs[5]),
                },
            };
            (f32, f64)
        };
        // SAFETY: the bf16 kernel follows the f32 kernel's contract on
        // pair panels (`kc` counts pairs); `Code` keeps it alive. Its `kc`
        // blocking counts elements, two per pair: the panels keep the f32
        // kernel's byte sizes.
        let bf16 = bf16_pairs.map(|ptr| unsafe {
            let blocking = Blocking {
                kc: 2 * config.f32.blocking.kc,
                ..config.f32.blocking
            };
            MicroKernel::from_raw(
                config.f32.shape,
                blocking,
                f32_lanes,
                std::mem::transmute::<*const u8, kernel::KernelFn<f32>>(ptr),
            )
        });
        // SAFETY: the AMX kernel's code follows `AmxFn`, lives as long as
        // `Code`, and runs on this CPU (`amx::available`).
        let amx = amx.map(|ptr| unsafe { std::mem::transmute::<*const u8, amx::AmxFn>(ptr) });
        Ok(DotEngine {
            f32,
            f64,
            bf16,
            amx,
            config,
            pool,
            disasm: jit.disasm(),
            _code: Code { _jit: jit },
        })
    }

    /// `C[b] = A[b]·B[b]` for every matrix `b` of the batch, then
    /// `epilogue` on each finished block of `C`.
    ///
    /// `a` is `[batch, m, k]`, `b` is `[batch, k, n]`, `c` is
    /// `[batch, m, n]` (see [`MatrixLayout`]); a batch stride of 0 reuses one
    /// input matrix for the whole batch. `k = 0` gives zeros. Errors name
    /// the dimension whose sizes disagree.
    pub fn gemm<T: DotElement>(
        &self,
        a: StridedMatrix<'_, T>,
        b: StridedMatrix<'_, T>,
        c: StridedMatrixMut<'_, T>,
        epilogue: Option<&dyn Epilogue<T>>,
    ) -> Result<(), JitError> {
        let la = a.layout();
        check_sizes([la.batch, la.rows, la.cols], &b, &c)?;
        // SAFETY: the views are valid (checked at construction) and their
        // sizes agree (checked above).
        unsafe { T::dot(self, a, b, c, epilogue) };
        Ok(())
    }

    /// `C[b] = A[b]·B[b]` for f16 or bf16 `A` and `B`, the products summed
    /// in f32 into an f32 `C` (XLA's `preferred_element_type=f32`), then
    /// `epilogue` on each finished block: bf16 in pairs with `vdpbf16ps`
    /// where [`DotConfig::bf16_pairs`] holds, else widened as packed. Sizes
    /// as [`gemm`](Self::gemm); other element types are an error.
    pub fn gemm_to_f32<T: DotElement>(
        &self,
        a: StridedMatrix<'_, T>,
        b: StridedMatrix<'_, T>,
        c: StridedMatrixMut<'_, f32>,
        epilogue: Option<&dyn Epilogue<f32>>,
    ) -> Result<(), JitError> {
        let la = a.layout();
        check_sizes([la.batch, la.rows, la.cols], &b, &c)?;
        // SAFETY: valid views (checked at construction) whose sizes agree.
        if unsafe { T::dot_to_f32(self, a, b, c, epilogue) } {
            Ok(())
        } else {
            Err(JitError::InvalidConfig(format!(
                "a dot of {} operands into f32: only f16 and bf16 operands widen",
                T::TYPE.name()
            )))
        }
    }

    /// `C = A·B` for a window view `A` (one matrix: `b` and `c` have a
    /// batch of 1), then `epilogue` on each finished block of `C`: a
    /// convolution's patches read straight from its input (see
    /// [`WindowLayout`]).
    pub fn gemm_window<T: DotElement>(
        &self,
        a: WindowMatrix<'_, T>,
        b: StridedMatrix<'_, T>,
        c: StridedMatrixMut<'_, T>,
        epilogue: Option<&dyn Epilogue<T>>,
    ) -> Result<(), JitError> {
        check_sizes([1, a.rows(), a.cols()], &b, &c)?;
        // SAFETY: the views are valid (checked at construction) and their
        // sizes agree (checked above).
        unsafe { T::dot_window(self, a, b, c, epilogue) };
        Ok(())
    }

    /// `true` if bf16 dots of the shapes AMX takes run on its tiles (the
    /// CPU and the operating system allow it and [`DotConfig::amx`] is on).
    pub fn runs_amx(&self) -> bool {
        self.amx.is_some()
    }

    /// The engine's configuration.
    pub fn config(&self) -> &DotConfig {
        &self.config
    }

    /// The pool dots run on.
    pub fn pool(&self) -> &ThreadPool {
        match &self.pool {
            PoolRef::Global => ThreadPool::global(),
            PoolRef::Shared(pool) => pool,
        }
    }

    /// The machine code listing of each kernel, by name, if the engine was
    /// configured with `keep_disasm`.
    pub fn disasm(&self) -> &[(String, String)] {
        &self.disasm
    }
}

/// Checks that `lhs` (`[batch, m, k]`), `b` and `c` agree; the error names
/// the dimension that does not.
fn check_sizes<S: Copy, T: Copy>(
    lhs: [usize; 3],
    b: &StridedMatrix<'_, S>,
    c: &StridedMatrixMut<'_, T>,
) -> Result<(), JitError> {
    let (lb, lc) = (b.layout(), c.layout());
    let rhs = [lb.batch, lb.rows, lb.cols];
    let out = [lc.batch, lc.rows, lc.cols];
    let checks = [
        ("batch", lhs[0] == lc.batch && lb.batch == lc.batch),
        ("m", lhs[1] == lc.rows),
        ("n", lb.cols == lc.cols),
        ("k", lhs[2] == lb.rows),
    ];
    match checks.into_iter().find(|(_, ok)| !ok) {
        Some((dimension, _)) => Err(JitError::DotSizeMismatch {
            dimension,
            lhs,
            rhs,
            out,
        }),
        None => Ok(()),
    }
}

/// Checks a kernel configuration for vectors of `lanes` lanes (16 for
/// f32 on AVX-512, 8 with AVX2); returns the kernel's lanes.
fn check_config(name: &str, config: &KernelConfig, lanes: usize) -> Result<usize, JitError> {
    let KernelConfig { shape, blocking } = config;
    let lanes = match shape.codegen.native_width() {
        None => lanes,
        Some(width) => {
            let (isa, needs, has, vector, registers) = match width {
                Width::Zmm => (
                    "AVX-512",
                    "AVX-512",
                    crate::wide::cpu_has_avx512(),
                    16,
                    "30 accumulators",
                ),
                Width::Ymm => (
                    "AVX2",
                    "AVX2 and FMA",
                    crate::wide::cpu_has_avx2(),
                    8,
                    "14 accumulators and B registers",
                ),
            };
            if !has {
                return Err(JitError::InvalidConfig(format!(
                    "{name}: the {isa} micro-kernel needs a CPU with {needs}"
                )));
            }
            if !native::fits(shape, width)
                || shape.accumulate != Accumulate::Fma
                || shape.a_broadcast != ABroadcast::InKernel
            {
                return Err(JitError::InvalidConfig(format!(
                    "{name}: an {isa} micro-kernel has nr a multiple of {vector}, at most \
                     {registers}, FMA and A broadcast in the kernel"
                )));
            }
            width.lanes() as usize
        }
    };
    let problems = [
        (shape.mr == 0 || shape.nr == 0, "mr and nr must be positive"),
        (
            shape.nr % lanes != 0,
            "nr must be a multiple of the vector lanes",
        ),
        (
            shape.mr * shape.nr > gemm::MAX_TILE,
            "mr·nr must be at most 512",
        ),
        (
            !shape.unroll.is_power_of_two(),
            "unroll must be a power of two",
        ),
        (blocking.kc == 0, "kc must be positive"),
        (
            blocking.mc == 0 || !blocking.mc.is_multiple_of(shape.mr),
            "mc must be a positive multiple of mr",
        ),
        (
            blocking.nc == 0 || !blocking.nc.is_multiple_of(shape.nr),
            "nc must be a positive multiple of nr",
        ),
    ];
    match problems.into_iter().find(|(bad, _)| *bad) {
        Some((_, why)) => Err(JitError::InvalidConfig(format!(
            "{name} dot kernel {shape:?} {blocking:?}: {why}"
        ))),
        None => Ok(lanes),
    }
}
