//! The f32 GEMM micro-kernel in AVX-512 machine code (see
//! [`crate::wide`]): the same contract as the Cranelift kernel
//! ([`KernelFn`](super::kernel::KernelFn)), with 512-bit registers.
//!
//! A `14×32` tile holds 28 accumulators (`zmm0`–`zmm27`), each row's 32
//! columns in two registers; a `k` step loads `B`'s row into `zmm28`,
//! `zmm29` and multiplies-and-adds each into the row's accumulators with
//! `A`'s value broadcast from the packed panel as the FMA's memory operand
//! (`vfmadd231ps acc, b, [a]{1to16}`): 2 loads and 28 FMAs a step, no
//! broadcast instructions and no register for `A`. The two FMA pipes of
//! the cores this runs on take 28 FMAs in 14 cycles; the steps are
//! unrolled by [`KernelShape::unroll`] with constant offsets.

use super::kernel::KernelShape;
use crate::wide::asm::{gpr::*, ops, Asm, Cond, Mem, VSrc, Zmm};

/// f32 lanes of a vector.
const LANES: usize = 16;

/// `true` if an AVX-512 kernel of `shape` exists: `nr` whole vectors,
/// and the accumulators plus a row of `B` fit the 32 registers.
pub(super) fn fits(shape: &KernelShape) -> bool {
    let nv = shape.nr / LANES;
    shape.nr.is_multiple_of(LANES) && nv > 0 && shape.mr * nv + nv <= 32
}

/// The machine code of the f32 micro-kernel of `shape` (which [`fits`]),
/// and its listing if asked for.
pub(super) fn micro_kernel(shape: &KernelShape, listing: bool) -> (Vec<u8>, Option<String>) {
    let (mr, nr, unroll) = (shape.mr, shape.nr, shape.unroll);
    let nv = nr / LANES;
    let acc = |i: usize, v: usize| Zmm((i * nv + v) as u8);
    let b_row = |v: usize| Zmm((mr * nv + v) as u8);
    let mut asm = Asm::with_listing(listing);
    // rdi = kc, rsi = a, rdx = b, rcx = c, r8 = ldc (elements), r9 = accumulate.
    for i in 0..mr {
        for v in 0..nv {
            asm.vop(ops::VPXORD, acc(i, v), acc(i, v), VSrc::Reg(acc(i, v)));
        }
    }
    let steps = |asm: &mut Asm, count: usize| {
        for u in 0..count {
            for v in 0..nv {
                asm.vmovups_load(
                    b_row(v),
                    Mem::at(RDX, (4 * (u * nr + v * LANES)) as i32),
                    None,
                );
            }
            for i in 0..mr {
                let a = VSrc::Bcst(Mem::at(RSI, (4 * (u * mr + i)) as i32));
                for v in 0..nv {
                    asm.vop(ops::VFMADD231PS, acc(i, v), b_row(v), a);
                }
            }
        }
        asm.add_imm(RSI, (4 * mr * count) as i32);
        asm.add_imm(RDX, (4 * nr * count) as i32);
        asm.add_imm(RDI, -(count as i32));
    };
    let (main, single, store, plain, end) = (
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
    asm.jcc(Cond::Le, store);
    steps(&mut asm, 1);
    asm.jmp(single);
    // The tile: row i at c + i·ldc, added to what is there if r9 != 0.
    asm.bind(store);
    asm.imul_imm(R8, R8, 4);
    asm.cmp_imm(R9, 0);
    asm.jcc(Cond::Z, plain);
    for i in 0..mr {
        for v in 0..nv {
            let at = Mem::at(RCX, (4 * v * LANES) as i32);
            asm.vmovups_load(b_row(v), at, None);
            asm.vop(ops::VADDPS, acc(i, v), acc(i, v), VSrc::Reg(b_row(v)));
            asm.vmovups_store(at, acc(i, v), None);
        }
        asm.add(RCX, R8);
    }
    asm.jmp(end);
    asm.bind(plain);
    for i in 0..mr {
        for v in 0..nv {
            asm.vmovups_store(Mem::at(RCX, (4 * v * LANES) as i32), acc(i, v), None);
        }
        asm.add(RCX, R8);
    }
    asm.bind(end);
    asm.vzeroupper();
    asm.ret();
    asm.finish()
}
