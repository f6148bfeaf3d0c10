//! The GEMM micro-kernel: an `MR×NR` tile of `C` kept in vector registers
//! while the kernel streams one packed `A` panel and one packed `B` panel.
//!
//! One step `p` of the `k` loop takes the `MR` values of `A`'s column `p`
//! (as broadcast vectors), loads the `NR` values of `B`'s row `p` as
//! `NR / lanes` vectors, and multiplies-and-adds every pair into the
//! `MR·NR/lanes` accumulators:
//!
//! ```text
//!   A panel (MR×kc)      B panel (kc×NR)                 C tile (MR×NR)
//!   a0 ─┐                [b0..b3][b4..b7]                acc00 acc01
//!   a1  │  for p in 0..kc:  acc_ij += splat(a_i)·b_j ──►  acc10 acc11
//!   …   │                                                 …
//!   a5 ─┘                                                 acc50 acc51
//! ```
//!
//! Choices, each measured on Zen 5 (`examples/gemm.rs` prints them):
//!
//! * **6×8 for f32, 6×4 for f64**: x86-64 Cranelift has 16 `xmm` registers;
//!   12 accumulators + 2 `B` vectors + 1 `A` vector + 1 product = 16, no
//!   spills. 12 independent chains hide the add latency on both add pipes.
//! * **Multiply then add** ([`Accumulate::MulAdd`]): Cranelift has no
//!   accumulator-tied `vfmadd231`; its `fma` ties the result to a
//!   multiplicand and costs a register copy per FMA (about 20% slower here).
//!   Zen 5 runs multiplies and adds on separate pipes, so `vmulps` + `vaddps`
//!   reach the same 16 flops/cycle as FMA at 128 bits.
//! * **`A` packed pre-broadcast** ([`KernelShape::a_broadcast`] =
//!   [`ABroadcast::Packed`]): each `A` value is stored as a whole vector, so
//!   the kernel issues plain vector loads (8 loads per 24 vector ops) instead
//!   of a broadcast per use; about 7% faster than broadcasting in the kernel.
//! * **Compiled without the mid-end** ([`OptLevel::None`](crate::codegen::OptLevel)):
//!   the e-graph elaborator would place every multiply and add at the end of
//!   the loop body, after all its loads, and spill the accumulators.
//! * Constant offsets live in the load immediates; the panel pointers advance
//!   once per unrolled iteration.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_module::FuncId;

use crate::clif::{for_range, vector_of};
use crate::codegen::Jit;
use crate::JitError;

/// How the kernel multiplies and adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accumulate {
    /// `acc = fma(a, b, acc)`: one instruction, but Cranelift ties the result
    /// to a multiplicand, which costs a register copy.
    Fma,
    /// `acc = acc + a·b` as a multiply and an add (no copies).
    MulAdd,
}

/// Where the values of `A` are broadcast to vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ABroadcast {
    /// Packing stores each value `lanes` times; the kernel loads vectors.
    Packed,
    /// Packing stores each value once; the kernel broadcasts it from memory
    /// (`vbroadcastss`) at each use.
    InKernel,
}

/// Which code generator builds a micro-kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codegen {
    /// Cranelift, with its 128-bit vectors (the layout of this module's
    /// docs).
    Cranelift,
    /// AVX-512 machine code (f32 only; `dot/native.rs`): 512-bit vectors,
    /// `A` broadcast by the FMAs' memory operands ([`ABroadcast::InKernel`],
    /// [`Accumulate::Fma`]).
    Avx512,
    /// AVX2 machine code (f32 only; `dot/native.rs`): 256-bit vectors,
    /// `A` broadcast into a register per row ([`ABroadcast::InKernel`],
    /// [`Accumulate::Fma`]).
    Avx2,
}

impl Codegen {
    /// The vector width of a native kernel; `None` for Cranelift's.
    pub fn native_width(self) -> Option<crate::wide::Width> {
        match self {
            Codegen::Cranelift => None,
            Codegen::Avx512 => Some(crate::wide::Width::Zmm),
            Codegen::Avx2 => Some(crate::wide::Width::Ymm),
        }
    }
}

/// The register blocking and instruction choices of a micro-kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelShape {
    /// Rows of `C` per tile.
    pub mr: usize,
    /// Columns of `C` per tile, in elements (a multiple of the vector lanes).
    pub nr: usize,
    /// `k` steps per loop iteration (a power of two).
    pub unroll: usize,
    /// Multiply-add form.
    pub accumulate: Accumulate,
    /// Where `A` is broadcast.
    pub a_broadcast: ABroadcast,
    /// The code generator.
    pub codegen: Codegen,
}

impl KernelShape {
    /// Copies of each `A` value in the packed panel, for `lanes`-wide vectors.
    pub fn a_copies(&self, lanes: usize) -> usize {
        match self.a_broadcast {
            ABroadcast::Packed => lanes,
            ABroadcast::InKernel => 1,
        }
    }
}

/// Cache blocking: the sizes of the blocks the GEMM loops pack and reuse.
///
/// Loop nest (BLIS order, outermost first): `n` by `nc`, `k` by `kc` (pack a
/// `kc×nc` block of `B`), `m` by `mc` (pack an `mc×kc` block of `A`), then
/// `MR`-row panels of `A`, then `NR`-column panels of `B`, each pair one
/// micro-kernel call. The `A` panel (`MR·kc` values, times the broadcast
/// copies) stays in L1 while the kernel sweeps the `B` block from L2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocking {
    /// Depth of a packed block (`k` steps per micro-kernel call).
    pub kc: usize,
    /// Rows of `A` packed at a time (a multiple of `MR`).
    pub mc: usize,
    /// Columns of `B` packed at a time (a multiple of `NR`).
    pub nc: usize,
}

/// The signature of a compiled micro-kernel:
/// `kernel(kc, a, b, c, ldc, accumulate)`.
///
/// * `a`: the packed `A` panel, `kc` groups of `MR·copies` elements
///   (`a[(p·MR + i)·copies + l]` is `A[i, p]`, see [`KernelShape::a_copies`]);
/// * `b`: the packed `B` panel, `kc` groups of `NR` elements (`b[p·NR + j]`
///   is `B[p, j]`);
/// * `c`: the tile's top-left element; row `i` starts `i·ldc` elements after
///   it and its `NR` elements are contiguous;
/// * `accumulate`: `0` stores `A·B` into the tile, anything else adds it.
///
/// `kc` may be 0 (the tile becomes zero, or is left as is).
pub type KernelFn<T> =
    unsafe extern "C" fn(kc: usize, a: *const T, b: *const T, c: *mut T, ldc: isize, acc: usize);

/// A micro-kernel with its blocking: the one interface the GEMM driver uses,
/// so another kernel (another shape, another code generator) swaps in here.
#[derive(Clone, Copy, Debug)]
pub struct MicroKernel<T> {
    /// Register blocking and instruction choices.
    pub shape: KernelShape,
    /// Cache blocking.
    pub blocking: Blocking,
    /// Vector lanes of `T` (4 for f32, 2 for f64).
    pub lanes: usize,
    func: KernelFn<T>,
}

impl<T> MicroKernel<T> {
    /// A micro-kernel from its parts.
    ///
    /// # Safety
    ///
    /// `func` must follow the [`KernelFn`] contract for `shape` and `lanes`,
    /// and stay callable while the `MicroKernel` is used.
    pub unsafe fn from_raw(
        shape: KernelShape,
        blocking: Blocking,
        lanes: usize,
        func: KernelFn<T>,
    ) -> Self {
        MicroKernel {
            shape,
            blocking,
            lanes,
            func,
        }
    }

    /// The compiled function.
    pub fn func(&self) -> KernelFn<T> {
        self.func
    }

    /// Elements of a packed `A` panel per `k` step.
    pub fn a_step(&self) -> usize {
        self.shape.mr * self.shape.a_copies(self.lanes)
    }
}

/// Compiles a micro-kernel for element type `lane` (`F32` or `F64`) into `jit`.
pub(crate) fn emit_micro_kernel(
    jit: &mut Jit,
    name: &str,
    lane: Type,
    shape: KernelShape,
) -> Result<FuncId, JitError> {
    let vector = vector_of(lane);
    let lanes = vector.lane_count() as usize;
    debug_assert!(shape.nr.is_multiple_of(lanes) && shape.unroll.is_power_of_two());
    let ptr = jit.pointer_type();
    let sig = jit.signature(&[ptr; 6], &[]);
    jit.compile(name, sig, |b| {
        let entry = b.current_block().expect("entry block");
        let [kc, a, bp, c, ldc, accumulate] = b.block_params(entry)[..] else {
            unreachable!("the signature has six parameters")
        };
        let k = KernelEmitter::new(b, lane, shape, a, bp);
        let blocks = b.ins().ushr_imm_u(kc, shape.unroll.trailing_zeros() as i64);
        let rest = b.ins().band_imm_u(kc, shape.unroll as i64 - 1);
        let zero = b.ins().iconst(ptr, 0);
        for_range(b, zero, blocks, 1, |b, _| k.steps(b, shape.unroll));
        for_range(b, zero, rest, 1, |b, _| k.steps(b, 1));
        k.store_tile(b, c, ldc, accumulate);
        b.ins().return_(&[]);
    })
}

/// Emits the pieces of one micro-kernel.
struct KernelEmitter {
    lane: Type,
    vector: Type,
    shape: KernelShape,
    /// `acc[i·nv + j]`: rows `i`, column vectors `j`.
    acc: Vec<Variable>,
    a: Variable,
    bp: Variable,
}

impl KernelEmitter {
    fn new(
        b: &mut FunctionBuilder<'_>,
        lane: Type,
        shape: KernelShape,
        a: Value,
        bp: Value,
    ) -> Self {
        let vector = vector_of(lane);
        let ptr = b.func.dfg.value_type(a);
        let nv = shape.nr / vector.lane_count() as usize;
        let zero = if lane == types::F32 {
            b.ins().f32const(0.0)
        } else {
            b.ins().f64const(0.0)
        };
        let zero = b.ins().splat(vector, zero);
        let acc = (0..shape.mr * nv)
            .map(|_| {
                let v = b.declare_var(vector);
                b.def_var(v, zero);
                v
            })
            .collect();
        let (a_var, b_var) = (b.declare_var(ptr), b.declare_var(ptr));
        b.def_var(a_var, a);
        b.def_var(b_var, bp);
        KernelEmitter {
            lane,
            vector,
            shape,
            acc,
            a: a_var,
            bp: b_var,
        }
    }

    fn nv(&self) -> usize {
        self.shape.nr / self.vector.lane_count() as usize
    }

    /// `count` consecutive `k` steps, then advances both panel pointers.
    fn steps(&self, b: &mut FunctionBuilder<'_>, count: usize) {
        let flags = MemFlagsData::trusted();
        let (mr, nr, nv) = (self.shape.mr, self.shape.nr, self.nv());
        let size = self.lane.bytes() as usize;
        let vsize = self.vector.bytes() as usize;
        let a = b.use_var(self.a);
        let bp = b.use_var(self.bp);
        for p in 0..count {
            let bv: Vec<Value> = (0..nv)
                .map(|j| {
                    let offset = (p * nr * size + j * vsize) as i32;
                    b.ins().load(self.vector, flags, bp, offset)
                })
                .collect();
            for i in 0..mr {
                // Packed: one vector load shared by the row's products.
                // In-kernel: a broadcast per use, so that each load has one
                // use and sinks into `vbroadcastss`.
                let packed = match self.shape.a_broadcast {
                    ABroadcast::Packed => {
                        let offset = ((p * mr + i) * vsize) as i32;
                        Some(b.ins().load(self.vector, flags, a, offset))
                    }
                    ABroadcast::InKernel => None,
                };
                for (j, &bj) in bv.iter().enumerate() {
                    let av = packed.unwrap_or_else(|| {
                        let offset = ((p * mr + i) * size) as i32;
                        let scalar = b.ins().load(self.lane, flags, a, offset);
                        b.ins().splat(self.vector, scalar)
                    });
                    let var = self.acc[i * nv + j];
                    let acc = b.use_var(var);
                    let sum = match self.shape.accumulate {
                        Accumulate::Fma => b.ins().fma(av, bj, acc),
                        Accumulate::MulAdd => {
                            let product = b.ins().fmul(av, bj);
                            b.ins().fadd(acc, product)
                        }
                    };
                    b.def_var(var, sum);
                }
            }
        }
        let a_step = match self.shape.a_broadcast {
            ABroadcast::Packed => vsize,
            ABroadcast::InKernel => size,
        };
        let a = b.ins().iadd_imm_s(a, (count * mr * a_step) as i64);
        let bp = b.ins().iadd_imm_s(bp, (count * nr * size) as i64);
        b.def_var(self.a, a);
        b.def_var(self.bp, bp);
    }

    /// Stores (`accumulate == 0`) or adds the accumulators into `C`.
    fn store_tile(&self, b: &mut FunctionBuilder<'_>, c: Value, ldc: Value, accumulate: Value) {
        let flags = MemFlagsData::new().with_notrap();
        let nv = self.nv();
        let vsize = self.vector.bytes() as i32;
        let row_bytes = b
            .ins()
            .ishl_imm_u(ldc, self.lane.bytes().trailing_zeros() as i64);
        let add_block = b.create_block();
        let store_block = b.create_block();
        let done = b.create_block();
        b.ins().brif(accumulate, add_block, &[], store_block, &[]);
        for (block, add) in [(add_block, true), (store_block, false)] {
            b.switch_to_block(block);
            b.seal_block(block);
            let mut row = c;
            for i in 0..self.shape.mr {
                if i > 0 {
                    row = b.ins().iadd(row, row_bytes);
                }
                for j in 0..nv {
                    let mut value = b.use_var(self.acc[i * nv + j]);
                    let offset = j as i32 * vsize;
                    if add {
                        let old = b.ins().load(self.vector, flags, row, offset);
                        value = b.ins().fadd(old, value);
                    }
                    b.ins().store(flags, value, row, offset);
                }
            }
            b.ins().jump(done, &[]);
        }
        b.switch_to_block(done);
        b.seal_block(done);
    }
}
