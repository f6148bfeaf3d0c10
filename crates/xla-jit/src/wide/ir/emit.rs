//! The machine code of each instruction, at 512 bits (AVX-512) and at
//! 256 bits (AVX2), and the out-of-line sequences some of them need: an
//! FMA's operand order, a call with every register saved.

use super::regalloc::Allocation;
use super::{
    ConstPool, Frame, Func, Inst, LowerError, MReg, Operand, Place, SIGN, TAIL_MASK, YMM_SCRATCH,
    YMM_TAIL,
};
use crate::math::LanesFn;
use crate::wide::asm::{gpr, gpr::RSP, ops, Asm, Cond, Gpr, KOp, Kreg, Label, Mem, VSrc, Zmm};
use crate::wide::Width;

impl Func {
    /// The machine code of `inst` at [`Width::Zmm`].
    pub(super) fn emit(
        &self,
        asm: &mut Asm,
        frame: &Frame,
        consts: &mut ConstPool,
        ra: &Allocation,
        inst: &Inst,
        skips: &mut Vec<Label>,
    ) {
        let mut src = |o: &Operand| -> VSrc {
            match *o {
                Operand::Reg(r) => VSrc::Reg(ra.z(r)),
                Operand::Const(bits) => VSrc::Bcst(Mem::at(frame.consts, consts.offset(bits))),
                Operand::Scalar(b) => VSrc::Bcst(Mem::at(frame.buffers[b], 0)),
                Operand::Slot(k) => VSrc::Bcst(Mem::at(RSP, frame.slots + 64 * k as i32)),
            }
        };
        let at = |place: Place, vector: i32| frame.at(place, vector);
        let mask = frame.masked.then_some(TAIL_MASK);
        match inst {
            Inst::Load { dst, place, vector } => {
                asm.vmovups_load(ra.z(*dst), at(*place, *vector), mask)
            }
            Inst::Store {
                src: s,
                place,
                vector,
            } => asm.vmovups_store(at(*place, *vector), ra.z(*s), mask),
            Inst::StoreSlot { src: s, slot } => asm.vmovups_store(
                Mem::at(RSP, frame.slots + 64 * *slot as i32),
                ra.z(*s),
                None,
            ),
            Inst::Blocks { dst, a, imm } => asm.vshuff32x4(ra.z(*dst), ra.z(*a), *imm),
            Inst::Lanes { dst, a, imm } => asm.vpermilps(ra.z(*dst), ra.z(*a), *imm),
            Inst::Splat { dst, src: s } => match src(s) {
                VSrc::Bcst(m) | VSrc::Mem(m) => asm.vbroadcastss(ra.z(*dst), m),
                VSrc::Reg(r) => asm.vmovaps(ra.z(*dst), r),
            },
            Inst::Copy { dst, src: s } => {
                if ra.z(*dst) != ra.z(*s) {
                    asm.vmovaps(ra.z(*dst), ra.z(*s));
                }
            }
            Inst::Op { op, dst, a, b } => {
                let b = src(b);
                asm.vop(*op, ra.z(*dst), ra.z(*a), b);
            }
            Inst::Fma { dst, a, b, c } => {
                let (d, a) = (ra.z(*dst), ra.z(*a));
                let (b, c) = (src(b), src(c));
                emit_fma(asm, Width::Zmm, d, a, b, c);
            }
            Inst::Sqrt { dst, a } => asm.vsqrtps(ra.z(*dst), VSrc::Reg(ra.z(*a))),
            Inst::Round { dst, a, imm } => asm.vrndscaleps(ra.z(*dst), VSrc::Reg(ra.z(*a)), *imm),
            Inst::Shift {
                right,
                dst,
                a,
                count,
            } => asm.vpshiftd(*right, ra.z(*dst), ra.z(*a), *count),
            Inst::Cmp { dst, a, b, pred } => {
                let b = src(b);
                asm.vcmpps(ra.kr(*dst), ra.z(*a), b, *pred);
            }
            Inst::Negative { dst, a } => {
                let b = src(&Operand::Const(SIGN));
                asm.vptestmd(ra.kr(*dst), ra.z(*a), b);
            }
            Inst::Blend { dst, mask: m, f, t } => {
                let t = src(t);
                asm.vblendmps(ra.z(*dst), ra.kr(*m), ra.z(*f), t);
            }
            Inst::KOp { op, dst, a, b } => asm.kop(*op, ra.kr(*dst), ra.kr(*a), ra.kr(*b)),
            Inst::KNot { dst, a } => asm.knotw(ra.kr(*dst), ra.kr(*a)),
            Inst::CallLanes { dst, x, plain, f } => {
                lanes_call(asm, Width::Zmm, [ra.z(*dst), ra.z(*x), ra.z(*plain)], *f)
            }
            Inst::SkipUnless { mask: m } => {
                let end = asm.label();
                asm.kortestw(ra.kr(*m), ra.kr(*m));
                asm.jcc(Cond::Z, end);
                skips.push(end);
            }
            Inst::SkipEnd => {
                let end = skips.pop().expect("a skip is open");
                asm.bind(end);
            }
        }
    }

    /// The machine code of `inst` at [`Width::Ymm`]: masks are vectors
    /// (their lanes' sign bits), constants whole vectors of the table, and
    /// a scalar or slot operand is broadcast into [`YMM_SCRATCH`] first.
    pub(super) fn emit_ymm(
        &self,
        asm: &mut Asm,
        frame: &Frame,
        consts: &mut ConstPool,
        ra: &Allocation,
        inst: &Inst,
        skips: &mut Vec<Label>,
    ) -> Result<(), LowerError> {
        let mut src = |asm: &mut Asm, o: &Operand| -> VSrc {
            match *o {
                Operand::Reg(r) => VSrc::Reg(ra.z(r)),
                Operand::Const(bits) => VSrc::Mem(Mem::at(frame.consts, consts.offset(bits))),
                Operand::Scalar(b) => {
                    asm.ybroadcastss(YMM_SCRATCH, Mem::at(frame.buffers[b], 0));
                    VSrc::Reg(YMM_SCRATCH)
                }
                Operand::Slot(k) => {
                    asm.ybroadcastss(YMM_SCRATCH, Mem::at(RSP, frame.slots + 64 * k as i32));
                    VSrc::Reg(YMM_SCRATCH)
                }
            }
        };
        let mask = |m: MReg| Zmm(ra.kr(m).0);
        match inst {
            Inst::Load { dst, place, vector } => {
                let at = frame.at(*place, *vector);
                if frame.masked {
                    asm.vmaskmovps_load(ra.z(*dst), YMM_TAIL, at);
                } else {
                    asm.ymovups_load(ra.z(*dst), at);
                }
            }
            Inst::Store {
                src: s,
                place,
                vector,
            } => {
                let at = frame.at(*place, *vector);
                if frame.masked {
                    asm.vmaskmovps_store(at, YMM_TAIL, ra.z(*s));
                } else {
                    asm.ymovups_store(at, ra.z(*s));
                }
            }
            Inst::StoreSlot { src: s, slot } => {
                asm.ymovups_store(Mem::at(RSP, frame.slots + 64 * *slot as i32), ra.z(*s))
            }
            // Of the 512-bit block orders, the swap of neighbouring blocks.
            Inst::Blocks { dst, a, imm: 0xB1 } => asm.yswap_blocks(ra.z(*dst), ra.z(*a)),
            Inst::Blocks { .. } => return Err(LowerError::NotAtThisWidth),
            Inst::Lanes { dst, a, imm } => asm.ypermilps(ra.z(*dst), ra.z(*a), *imm),
            Inst::Splat { dst, src: s } => match *s {
                Operand::Reg(r) => asm.ymovaps(ra.z(*dst), ra.z(r)),
                Operand::Const(bits) => {
                    asm.ybroadcastss(ra.z(*dst), Mem::at(frame.consts, consts.offset(bits)))
                }
                Operand::Scalar(b) => asm.ybroadcastss(ra.z(*dst), Mem::at(frame.buffers[b], 0)),
                Operand::Slot(k) => {
                    asm.ybroadcastss(ra.z(*dst), Mem::at(RSP, frame.slots + 64 * k as i32))
                }
            },
            Inst::Copy { dst, src: s } => {
                if ra.z(*dst) != ra.z(*s) {
                    asm.ymovaps(ra.z(*dst), ra.z(*s));
                }
            }
            Inst::Op { op, dst, a, b } => {
                let b = src(asm, b);
                asm.yop(*op, ra.z(*dst), ra.z(*a), b);
            }
            Inst::Fma { dst, a, b, c } => {
                let (d, a) = (ra.z(*dst), ra.z(*a));
                let b = src(asm, b);
                let c = src(asm, c);
                emit_fma(asm, Width::Ymm, d, a, b, c);
            }
            Inst::Sqrt { dst, a } => asm.ysqrtps(ra.z(*dst), ra.z(*a)),
            Inst::Round { dst, a, imm } => asm.vroundps(ra.z(*dst), ra.z(*a), *imm),
            Inst::Shift {
                right,
                dst,
                a,
                count,
            } => asm.yshiftd(*right, ra.z(*dst), ra.z(*a), *count),
            Inst::Cmp { dst, a, b, pred } => {
                let b = src(asm, b);
                asm.ycmpps(mask(*dst), ra.z(*a), b, *pred);
            }
            // A mask is its lanes' sign bits: `a` itself.
            Inst::Negative { dst, a } => {
                if mask(*dst) != ra.z(*a) {
                    asm.ymovaps(mask(*dst), ra.z(*a));
                }
            }
            Inst::Blend { dst, mask: m, f, t } => {
                let t = src(asm, t);
                asm.vblendvps(ra.z(*dst), ra.z(*f), t, mask(*m));
            }
            Inst::KOp { op, dst, a, b } => {
                let op = match op {
                    KOp::And => ops::VPANDD,
                    KOp::Or => ops::VPORD,
                    KOp::Xor => ops::VPXORD,
                };
                asm.yop(op, mask(*dst), mask(*a), VSrc::Reg(mask(*b)));
            }
            Inst::KNot { dst, a } => {
                let ones = VSrc::Mem(Mem::at(frame.consts, consts.offset(u32::MAX)));
                asm.yop(ops::VPXORD, mask(*dst), mask(*a), ones);
            }
            Inst::CallLanes { dst, x, plain, f } => {
                lanes_call(asm, Width::Ymm, [ra.z(*dst), ra.z(*x), ra.z(*plain)], *f)
            }
            Inst::SkipUnless { mask: m } => {
                let end = asm.label();
                asm.vtestps(mask(*m), mask(*m));
                asm.jcc(Cond::Z, end);
                skips.push(end);
            }
            Inst::SkipEnd => {
                let end = skips.pop().expect("a skip is open");
                asm.bind(end);
            }
        }
        Ok(())
    }
}

impl Frame<'_> {
    /// The memory of vector `vector` of the loop step in `place`.
    fn at(&self, place: Place, vector: i32) -> Mem {
        let step = self.width.bytes() * vector;
        match place {
            Place::Buffer(b) => Mem::indexed(self.buffers[b], self.index, 4, step),
            Place::Window(b, offset) => Mem::indexed(self.buffers[b], self.index, 4, offset + step),
            Place::Stack(offset) => Mem::indexed(RSP, self.index, 4, self.slots + offset + step),
        }
    }
}

/// `d = a * b + c` where `d` is a fresh register or the register of one of
/// the register sources that dies here (the allocator's preference).
/// The general-purpose registers a call may change that kernels use.
const CALLER_SAVED: [Gpr; 9] = [
    gpr::RAX,
    gpr::RCX,
    gpr::RDX,
    gpr::RSI,
    gpr::RDI,
    gpr::R8,
    gpr::R9,
    gpr::R10,
    gpr::R11,
];

/// [`Inst::CallLanes`]: saves the caller-saved general registers, every
/// vector register and (at 512 bits) the opmasks on a 64-byte aligned
/// block of the stack, passes copies of `x` and `plain` to `f`, restores
/// everything and loads `dst` from `f`'s output. A rare path's cost: the
/// block is 2.3 KiB at 512 bits.
fn lanes_call(asm: &mut Asm, width: Width, [dst, x, plain]: [Zmm; 3], f: LanesFn) {
    let (vectors, lanes): (u8, u32) = match width {
        Width::Zmm => (32, 16),
        Width::Ymm => (16, 8),
    };
    let save = |asm: &mut Asm, at: i32, z: Zmm| match width {
        Width::Zmm => asm.vmovups_store(Mem::at(RSP, at), z, None),
        Width::Ymm => asm.ymovups_store(Mem::at(RSP, at), z),
    };
    let load = |asm: &mut Asm, z: Zmm, at: i32| match width {
        Width::Zmm => asm.vmovups_load(z, Mem::at(RSP, at), None),
        Width::Ymm => asm.ymovups_load(z, Mem::at(RSP, at)),
    };
    // The block: the vector registers, then the copies of x and plain,
    // then k1–k7 and the stack pointer to return to.
    let base = 64 * i32::from(vectors);
    let (xs, out, masks) = (base, base + 64, base + 128);
    let old_rsp = masks + 64;
    let block = old_rsp + 64;
    for r in CALLER_SAVED {
        asm.push(r);
    }
    asm.mov(gpr::R11, RSP);
    asm.and_imm8(RSP, -64);
    asm.add_imm(RSP, -block);
    asm.mov_store(Mem::at(RSP, old_rsp), gpr::R11);
    for z in 0..vectors {
        save(asm, 64 * i32::from(z), Zmm(z));
    }
    if width == Width::Zmm {
        for k in 1..8 {
            asm.kmovw_to_gpr(gpr::RAX, Kreg(k));
            asm.mov_store(Mem::at(RSP, masks + 8 * i32::from(k)), gpr::RAX);
        }
    }
    load(asm, Zmm(0), 64 * i32::from(x.0));
    save(asm, xs, Zmm(0));
    load(asm, Zmm(0), 64 * i32::from(plain.0));
    save(asm, out, Zmm(0));
    asm.vzeroupper();
    asm.lea(gpr::RDI, Mem::at(RSP, xs));
    asm.lea(gpr::RSI, Mem::at(RSP, out));
    asm.mov_imm32(gpr::RDX, lanes);
    asm.mov_imm64(gpr::RAX, f as usize as u64);
    asm.call_reg(gpr::RAX);
    if width == Width::Zmm {
        for k in 1..8 {
            asm.mov_load(gpr::RAX, Mem::at(RSP, masks + 8 * i32::from(k)));
            asm.kmovw_from_gpr(Kreg(k), gpr::RAX);
        }
    }
    for z in 0..vectors {
        load(asm, Zmm(z), 64 * i32::from(z));
    }
    load(asm, dst, out);
    asm.mov_load(RSP, Mem::at(RSP, old_rsp));
    for r in CALLER_SAVED.iter().rev() {
        asm.pop(*r);
    }
}

fn emit_fma(asm: &mut Asm, width: Width, d: Zmm, a: Zmm, b: VSrc, c: VSrc) {
    let vop = |asm: &mut Asm, op, d, a, b| match width {
        Width::Zmm => asm.vop(op, d, a, b),
        Width::Ymm => asm.yop(op, d, a, b),
    };
    let copy = |asm: &mut Asm, d, a| match width {
        Width::Zmm => asm.vmovaps(d, a),
        Width::Ymm => asm.ymovaps(d, a),
    };
    let memory = |v: &VSrc| !matches!(v, VSrc::Reg(_));
    match (b, c) {
        // Memory addend: d = d * b + [c] with d holding a or b.
        (VSrc::Reg(b), c) if memory(&c) => {
            if d == b {
                vop(asm, ops::VFMADD213PS, d, a, c);
            } else {
                if d != a {
                    copy(asm, d, a);
                }
                vop(asm, ops::VFMADD213PS, d, b, c);
            }
        }
        // Memory multiplicand: d = d * [b] + c with d holding a, or
        // d = a * [b] + d with d holding c.
        (b, VSrc::Reg(c)) if memory(&b) => {
            if d == c {
                vop(asm, ops::VFMADD231PS, d, a, b);
            } else {
                if d != a {
                    copy(asm, d, a);
                }
                vop(asm, ops::VFMADD132PS, d, c, b);
            }
        }
        (VSrc::Reg(b), VSrc::Reg(c)) => {
            if d == c {
                vop(asm, ops::VFMADD231PS, d, a, VSrc::Reg(b));
            } else if d == b {
                vop(asm, ops::VFMADD213PS, d, a, VSrc::Reg(c));
            } else {
                if d != a {
                    copy(asm, d, a);
                }
                vop(asm, ops::VFMADD213PS, d, b, VSrc::Reg(c));
            }
        }
        _ => unreachable!("an FMA has at most one memory operand"),
    }
}
