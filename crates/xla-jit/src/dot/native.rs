//! The f32 GEMM micro-kernels in native machine code (see
//! [`crate::wide`]): the same contract as the Cranelift kernel
//! ([`KernelFn`](super::kernel::KernelFn)), with 512-bit or 256-bit
//! registers.
//!
//! At 512 bits (AVX-512) a `14×32` tile holds 28 accumulators
//! (`zmm0`–`zmm27`), each row's 32 columns in two registers; a `k` step
//! loads `B`'s row into `zmm28`, `zmm29` and multiplies-and-adds each into
//! the row's accumulators with `A`'s value broadcast from the packed panel
//! as the FMA's memory operand (`vfmadd231ps acc, b, [a]{1to16}`): 2 loads
//! and 28 FMAs a step, no broadcast instructions and no register for `A`.
//! The two FMA pipes of the cores this runs on take 28 FMAs in 14 cycles.
//!
//! At 256 bits (AVX2 and FMA, no embedded broadcasts) a `6×16` tile holds
//! 12 accumulators (`ymm0`–`ymm11`), `B`'s row goes to `ymm12`, `ymm13`,
//! and each of `A`'s values is broadcast (`vbroadcastss`, a plain load on
//! these cores) into `ymm14` or `ymm15` in turn: 8 loads and 12 FMAs a
//! step, the layout of BLIS's Haswell and Zen kernels.
//!
//! The steps are unrolled by [`KernelShape::unroll`] with constant offsets.
//!
//! The bf16 kernel (AVX512_BF16) is the 512-bit kernel with
//! `vdpbf16ps acc, b, [a]{1to16}` in place of the FMA: each 32-bit entry of
//! the packed panels holds a pair of bf16 values of consecutive `k`
//! (`pack.rs`'s pair panels), and one instruction adds both products of a
//! pair to each f32 lane, so a step covers two `k` and the kernel's `kc`
//! counts pairs.

use super::kernel::KernelShape;
use crate::wide::asm::{gpr::*, ops, Asm, Cond, Mem, VSrc, Zmm};
use crate::wide::Width;

/// `true` if a native kernel of `shape` exists at `width`: `nr` whole
/// vectors, and the accumulators plus a row of `B` (and at 256 bits two
/// registers for `A`) fit the registers.
pub(super) fn fits(shape: &KernelShape, width: Width) -> bool {
    let lanes = width.lanes() as usize;
    let nv = shape.nr / lanes;
    let (registers, for_a) = match width {
        Width::Zmm => (32, 0),
        Width::Ymm => (16, 2),
    };
    shape.nr.is_multiple_of(lanes) && nv > 0 && shape.mr * nv + nv + for_a <= registers
}

/// What a kernel step multiplies and adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Product {
    /// f32 values, one `k` a step (`vfmadd231ps`).
    F32,
    /// Pairs of bf16 values, two `k` a step (`vdpbf16ps`; 512 bits only).
    Bf16Pairs,
}

/// The machine code of the micro-kernel of `shape` at `width` (which
/// [`fits`]) for `product`.
pub(super) fn micro_kernel(shape: &KernelShape, width: Width, product: Product) -> Vec<u8> {
    let multiply_add = match product {
        Product::F32 => ops::VFMADD231PS,
        Product::Bf16Pairs => {
            debug_assert_eq!(width, Width::Zmm, "vdpbf16ps is an EVEX instruction");
            ops::VDPBF16PS
        }
    };
    let (mr, nr, unroll) = (shape.mr, shape.nr, shape.unroll);
    let lanes = width.lanes() as usize;
    let nv = nr / lanes;
    let acc = |i: usize, v: usize| Zmm((i * nv + v) as u8);
    let b_row = |v: usize| Zmm((mr * nv + v) as u8);
    let a_reg = |i: usize| Zmm((mr * nv + nv + i % 2) as u8);
    let ymm = width == Width::Ymm;
    let mut asm = Asm::default();
    let vop = |asm: &mut Asm, op, d, a, b| {
        if ymm {
            asm.yop(op, d, a, b)
        } else {
            asm.vop(op, d, a, b)
        }
    };
    let load = |asm: &mut Asm, d, at| {
        if ymm {
            asm.ymovups_load(d, at)
        } else {
            asm.vmovups_load(d, at, None)
        }
    };
    let store = |asm: &mut Asm, at, s| {
        if ymm {
            asm.ymovups_store(at, s)
        } else {
            asm.vmovups_store(at, s, None)
        }
    };
    // rdi = kc, rsi = a, rdx = b, rcx = c, r8 = ldc (elements), r9 = accumulate.
    for i in 0..mr {
        for v in 0..nv {
            vop(
                &mut asm,
                ops::VPXORD,
                acc(i, v),
                acc(i, v),
                VSrc::Reg(acc(i, v)),
            );
        }
    }
    let steps = |asm: &mut Asm, count: usize| {
        for u in 0..count {
            for v in 0..nv {
                load(
                    asm,
                    b_row(v),
                    Mem::at(RDX, (4 * (u * nr + v * lanes)) as i32),
                );
            }
            for i in 0..mr {
                let at = Mem::at(RSI, (4 * (u * mr + i)) as i32);
                let a = if ymm {
                    asm.ybroadcastss(a_reg(i), at);
                    VSrc::Reg(a_reg(i))
                } else {
                    VSrc::Bcst(at)
                };
                for v in 0..nv {
                    vop(asm, multiply_add, acc(i, v), b_row(v), a);
                }
            }
        }
        asm.add_imm(RSI, (4 * mr * count) as i32);
        asm.add_imm(RDX, (4 * nr * count) as i32);
        asm.add_imm(RDI, -(count as i32));
    };
    let (main, single, stores, plain, end) = (
        asm.label(),
        asm.label(),
        asm.label(),
        asm.label(),
        asm.label(),
    );
    asm.bind(main);
    asm.cmp_imm(RDI, unroll as i32);
    asm.jcc(Cond::L, single);
    steps(&mut asm, unroll);
    asm.jmp(main);
    asm.bind(single);
    asm.cmp_imm(RDI, 0);
    asm.jcc(Cond::Le, stores);
    steps(&mut asm, 1);
    asm.jmp(single);
    // The tile: row i at c + i·ldc, added to what is there if r9 != 0.
    asm.bind(stores);
    asm.imul_imm(R8, R8, 4);
    asm.cmp_imm(R9, 0);
    asm.jcc(Cond::Z, plain);
    for i in 0..mr {
        for v in 0..nv {
            let at = Mem::at(RCX, (4 * v * lanes) as i32);
            load(&mut asm, b_row(v), at);
            vop(
                &mut asm,
                ops::VADDPS,
                acc(i, v),
                acc(i, v),
                VSrc::Reg(b_row(v)),
            );
            store(&mut asm, at, acc(i, v));
        }
        asm.add(RCX, R8);
    }
    asm.jmp(end);
    asm.bind(plain);
    for i in 0..mr {
        for v in 0..nv {
            store(&mut asm, Mem::at(RCX, (4 * v * lanes) as i32), acc(i, v));
        }
        asm.add(RCX, R8);
    }
    asm.bind(end);
    asm.vzeroupper();
    asm.ret();
    asm.finish()
}
