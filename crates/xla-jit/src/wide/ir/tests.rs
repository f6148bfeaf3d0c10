//! Register allocation and lowering on small bodies.

use super::super::asm::gpr::*;
use super::super::asm::{ops, Asm};
use super::*;
use crate::math::LaneOps;

fn frame() -> Frame<'static> {
    Frame {
        buffers: &[R8, R9],
        index: RSI,
        consts: RAX,
        masked: false,
        slots: 0,
        width: Width::Zmm,
    }
}

fn listing(f: &Func) -> String {
    let mut asm = Asm::default();
    f.lower(&mut asm, &frame(), &mut ConstPool::new(Width::Zmm))
        .unwrap();
    crate::disasm::listing(&asm.finish())
}

/// Registers are reused once their value dies, and an FMA whose first
/// factor dies computes in its register.
#[test]
fn registers_are_reused_and_fma_overwrites_a_dying_source() {
    let mut f = Func::default();
    let x = f.load(0, 0);
    let sq = f.mul(x, x);
    let p = Func::fma(&mut f, sq, x, Operand::Const(1.0f32.to_bits()));
    f.store(p, 1, 0);
    assert_eq!(
        listing(&f),
        "     0:  vmovups (%r8,%rsi,4),%zmm0\n     7:  vmulps  %zmm0,%zmm0,%zmm1\n     \
         d:  vfmadd213ps (%rax){1to16},%zmm0,%zmm1\n    13:  vmovups %zmm1,(%r9,%rsi,4)\n"
    );
}

/// An FMA whose sources all stay live computes into a copy.
#[test]
fn fma_of_live_sources_copies_first() {
    let mut f = Func::default();
    let x = f.load(0, 0);
    let y = f.load(0, 1);
    let p = Func::fma(&mut f, x, y, x);
    let s = f.op(ops::VADDPS, p, x);
    let s = f.op(ops::VADDPS, s, y);
    f.store(s, 1, 0);
    let text = listing(&f);
    assert!(
        text.contains("vmovaps %zmm0,%zmm2\n    15:  vfmadd213ps %zmm0,%zmm1,%zmm2"),
        "{text}"
    );
}

/// Too many live values are an error, not a miscompile.
#[test]
fn running_out_of_registers_is_reported() {
    let mut f = Func::default();
    let xs: Vec<Operand> = (0..33).map(|i| f.load(0, i)).collect();
    let mut acc = xs[0];
    for &x in &xs[1..] {
        acc = f.op(ops::VADDPS, acc, x);
    }
    f.store(acc, 1, 0);
    let mut asm = Asm::default();
    assert_eq!(
        f.lower(&mut asm, &frame(), &mut ConstPool::new(Width::Zmm)),
        Err(LowerError::OutOfRegisters)
    );
}

/// Values nothing reads are not computed, through any chain of them; a
/// fixed value (live past the body) is kept without a reader.
#[test]
fn dead_values_are_not_emitted() {
    let mut f = Func::default();
    let acc = f.fixed(Zmm(31));
    let x = f.load(0, 0);
    let dead = f.mul(x, x);
    let _ = f.op(ops::VSUBPS, dead, x);
    let sum = f.op(ops::VADDPS, acc, x);
    f.set(acc, sum);
    let y = f.op(ops::VADDPS, x, x);
    f.store(y, 1, 0);
    let text = listing(&f);
    assert!(
        !text.contains("vmulps") && !text.contains("vsubps"),
        "{text}"
    );
    assert_eq!(text.matches("vaddps").count(), 2, "{text}");
}
