//! An x86-64 encoder for the instructions the native kernels are made of:
//! EVEX-encoded 512-bit vector arithmetic with opmask registers and
//! embedded broadcasts, the VEX opmask instructions, VEX-encoded 256-bit
//! (AVX2) vector arithmetic for CPUs without AVX-512, and the few
//! general-purpose instructions of a loop frame.
//!
//! Each method appends one instruction to [`Asm::code`] (listings come
//! from disassembling the bytes: [`crate::disasm`]). Jumps go to
//! [`Label`]s, bound anywhere and patched by [`Asm::finish`]. The encodings
//! are checked against GNU `as` in this file's tests.

/// A vector register: `zmm0` to `zmm31` in EVEX instructions, `ymm0` to
/// `ymm15` in the 256-bit VEX ones.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Zmm(pub u8);

/// An opmask register, `k0` to `k7` (`k0` cannot mask).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Kreg(pub u8);

/// A 64-bit general-purpose register by its encoding (`rax` = 0 … `r15` = 15).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Gpr(pub u8);

/// The general-purpose registers the kernels name.
#[allow(missing_docs)]
pub mod gpr {
    use super::Gpr;
    pub const RAX: Gpr = Gpr(0);
    pub const RCX: Gpr = Gpr(1);
    pub const RDX: Gpr = Gpr(2);
    pub const RBX: Gpr = Gpr(3);
    pub const RBP: Gpr = Gpr(5);
    pub const RSP: Gpr = Gpr(4);
    pub const RSI: Gpr = Gpr(6);
    pub const RDI: Gpr = Gpr(7);
    pub const R8: Gpr = Gpr(8);
    pub const R9: Gpr = Gpr(9);
    pub const R10: Gpr = Gpr(10);
    pub const R11: Gpr = Gpr(11);
    pub const R12: Gpr = Gpr(12);
    pub const R13: Gpr = Gpr(13);
    pub const R14: Gpr = Gpr(14);
    pub const R15: Gpr = Gpr(15);
}

/// A memory operand `[base + index * scale + disp]`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Mem {
    /// The base register.
    pub base: Gpr,
    /// The index register and its scale (1, 2, 4 or 8); never `rsp`.
    pub index: Option<(Gpr, u8)>,
    /// The displacement in bytes.
    pub disp: i32,
}

impl Mem {
    /// `[base + disp]`.
    pub fn at(base: Gpr, disp: i32) -> Mem {
        Mem {
            base,
            index: None,
            disp,
        }
    }

    /// `[base + index * scale + disp]`.
    pub fn indexed(base: Gpr, index: Gpr, scale: u8, disp: i32) -> Mem {
        debug_assert!(matches!(scale, 1 | 2 | 4 | 8) && index.0 != 4);
        Mem {
            base,
            index: Some((index, scale)),
            disp,
        }
    }
}

/// The last source operand of a vector instruction: a register, one
/// 32-bit element of memory broadcast to every lane (`{1to16}`, EVEX
/// only), or a whole vector of memory (VEX only).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VSrc {
    /// A vector register.
    Reg(Zmm),
    /// A 32-bit element of memory in every lane.
    Bcst(Mem),
    /// A vector's bytes of memory.
    Mem(Mem),
}

/// A jump target; bound once with [`Asm::bind`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Label(usize);

/// A condition of a conditional jump, by its `jcc` encoding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cond {
    /// Zero / equal.
    Z = 0x4,
    /// Signed less.
    L = 0xC,
    /// Signed greater or equal.
    Ge = 0xD,
    /// Signed less or equal.
    Le = 0xE,
    /// Signed greater.
    G = 0xF,
}

/// The opcode of an EVEX instruction: its map (`0F`, `0F38`, `0F3A`), its
/// implied prefix, `W` and the opcode byte.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    map: u8,
    pp: u8,
    w: bool,
    code: u8,
}

const fn op(map: u8, pp: u8, code: u8) -> Op {
    Op {
        map,
        pp,
        w: false,
        code,
    }
}

/// The two-source vector instructions, `dst = src1 op src2` (EVEX, and
/// VEX with the same map, prefix and opcode).
#[allow(missing_docs)]
pub mod ops {
    use super::{op, Op};
    const M0F: u8 = 1;
    const M0F38: u8 = 2;
    const M0F3A: u8 = 3;
    const NP: u8 = 0;
    const P66: u8 = 1;
    const PF3: u8 = 2;
    pub const VADDPS: Op = op(M0F, NP, 0x58);
    pub const VMULPS: Op = op(M0F, NP, 0x59);
    pub const VSUBPS: Op = op(M0F, NP, 0x5C);
    pub const VMINPS: Op = op(M0F, NP, 0x5D);
    pub const VDIVPS: Op = op(M0F, NP, 0x5E);
    pub const VMAXPS: Op = op(M0F, NP, 0x5F);
    pub const VPADDD: Op = op(M0F, P66, 0xFE);
    pub const VPSUBD: Op = op(M0F, P66, 0xFA);
    pub const VPANDD: Op = op(M0F, P66, 0xDB);
    pub const VPORD: Op = op(M0F, P66, 0xEB);
    pub const VPXORD: Op = op(M0F, P66, 0xEF);
    pub const VFMADD132PS: Op = op(M0F38, P66, 0x98);
    pub const VFMADD213PS: Op = op(M0F38, P66, 0xA8);
    pub const VFMADD231PS: Op = op(M0F38, P66, 0xB8);
    pub const VBLENDMPS: Op = op(M0F38, P66, 0x65);
    /// `dst += a.bf16[2i]·b.bf16[2i] + a.bf16[2i+1]·b.bf16[2i+1]` per f32
    /// lane (AVX512_BF16; EVEX only).
    pub const VDPBF16PS: Op = op(M0F38, PF3, 0x52);
    pub(super) const VSQRTPS: Op = op(M0F, NP, 0x51);
    pub(super) const VMOVUPS_LOAD: Op = op(M0F, NP, 0x10);
    pub(super) const VMOVUPS_STORE: Op = op(M0F, NP, 0x11);
    pub(super) const VMOVAPS: Op = op(M0F, NP, 0x28);
    pub(super) const VBROADCASTSS: Op = op(M0F38, P66, 0x18);
    pub(super) const VCMPPS: Op = op(M0F, NP, 0xC2);
    pub(super) const VPTESTMD: Op = op(M0F38, P66, 0x27);
    pub(super) const VRNDSCALEPS: Op = op(M0F3A, P66, 0x08);
    pub(super) const VPSHIFTD_IMM: Op = op(M0F, P66, 0x72);
    pub(super) const VSHUFF32X4: Op = op(M0F3A, P66, 0x23);
    pub(super) const VPERMILPS_IMM: Op = op(M0F3A, P66, 0x04);
    pub(super) const VMASKMOVPS_LOAD: Op = op(M0F38, P66, 0x2C);
    pub(super) const VMASKMOVPS_STORE: Op = op(M0F38, P66, 0x2E);
    pub(super) const VBLENDVPS: Op = op(M0F3A, P66, 0x4A);
    pub(super) const VROUNDPS: Op = op(M0F3A, P66, 0x08);
    pub(super) const VPERM2F128: Op = op(M0F3A, P66, 0x06);
    pub(super) const VTESTPS: Op = op(M0F38, P66, 0x0E);
}

/// A binary opmask instruction (`kandw` …).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KOp {
    /// `kandw`
    And,
    /// `korw`
    Or,
    /// `kxorw`
    Xor,
}

/// Where an EVEX instruction's `ModRM.rm` field points.
enum Rm {
    Reg(u8),
    /// Memory, broadcast or not, with the scale of its compressed 8-bit
    /// displacement.
    Mem(Mem, bool, i32),
}

/// Machine code under construction.
#[derive(Default)]
pub struct Asm {
    /// The bytes emitted so far.
    pub code: Vec<u8>,
    labels: Vec<Option<usize>>,
    /// Positions of `rel32` fields and the labels they jump to.
    fixups: Vec<(usize, Label)>,
}

impl Asm {
    /// A new, unbound label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Binds `label` to the current position.
    pub fn bind(&mut self, label: Label) {
        debug_assert!(self.labels[label.0].is_none(), "label bound twice");
        self.labels[label.0] = Some(self.code.len());
    }

    /// Patches every jump and returns the code.
    ///
    /// # Panics
    ///
    /// If a jump's label was never bound (an emitter bug).
    pub fn finish(mut self) -> Vec<u8> {
        for &(at, label) in &self.fixups {
            let target = self.labels[label.0].expect("every jump's label is bound");
            let rel = target as i64 - (at as i64 + 4);
            let rel = i32::try_from(rel).expect("kernels are far smaller than 2 GiB");
            self.code[at..at + 4].copy_from_slice(&rel.to_le_bytes());
        }
        self.code
    }

    // === EVEX ===

    /// Emits an EVEX instruction. `reg` and `vvvv` are register numbers
    /// (0–31, 0 when unused), `aaa` the masking register, `z` zeroing.
    #[allow(clippy::too_many_arguments)]
    fn evex(&mut self, op: Op, reg: u8, vvvv: u8, rm: Rm, aaa: u8, z: bool, imm: Option<u8>) {
        let (x, b, bcst) = match rm {
            Rm::Reg(r) => ((r >> 4) & 1, (r >> 3) & 1, false),
            Rm::Mem(m, bcst, _) => (
                m.index.map_or(0, |(i, _)| (i.0 >> 3) & 1),
                (m.base.0 >> 3) & 1,
                bcst,
            ),
        };
        let p0 = ((!(reg >> 3) & 1) << 7)
            | ((!x & 1) << 6)
            | ((!b & 1) << 5)
            | ((!(reg >> 4) & 1) << 4)
            | op.map;
        let p1 = (u8::from(op.w) << 7) | ((!vvvv & 0xF) << 3) | 0x04 | op.pp;
        let p2 = (u8::from(z) << 7)
            | (0b10 << 5)
            | (u8::from(bcst) << 4)
            | ((!(vvvv >> 4) & 1) << 3)
            | (aaa & 7);
        self.code.extend_from_slice(&[0x62, p0, p1, p2, op.code]);
        match rm {
            Rm::Reg(r) => self.code.push(0xC0 | ((reg & 7) << 3) | (r & 7)),
            Rm::Mem(m, _, n) => self.modrm_mem(reg & 7, m, n),
        }
        if let Some(imm) = imm {
            self.code.push(imm);
        }
    }

    /// `ModRM` (with `SIB`) and the displacement of a memory operand;
    /// an 8-bit displacement is scaled by `n` (EVEX's compressed `disp8*N`;
    /// 1 for legacy and VEX encodings).
    fn modrm_mem(&mut self, reg: u8, m: Mem, n: i32) {
        let base = m.base.0 & 7;
        let needs_sib = m.index.is_some() || base == 4;
        let rm = if needs_sib { 4 } else { base };
        let (mode, disp) = if m.disp == 0 && base != 5 {
            (0u8, Vec::new())
        } else if m.disp % n == 0 && (-128..=127).contains(&(m.disp / n)) {
            (1, vec![(m.disp / n) as i8 as u8])
        } else {
            (2, m.disp.to_le_bytes().to_vec())
        };
        self.code.push((mode << 6) | (reg << 3) | rm);
        if needs_sib {
            let (index, scale) = match m.index {
                Some((i, s)) => (i.0 & 7, s.trailing_zeros() as u8),
                None => (4, 0),
            };
            self.code.push((scale << 6) | (index << 3) | base);
        }
        self.code.extend_from_slice(&disp);
    }

    fn vsrc_rm(src: VSrc) -> Rm {
        match src {
            VSrc::Reg(z) => Rm::Reg(z.0),
            VSrc::Bcst(m) => Rm::Mem(m, true, 4),
            VSrc::Mem(m) => Rm::Mem(m, false, 64),
        }
    }

    /// `dst = src1 op src2` (`ops::VADDPS` …; for the FMA forms `dst` is
    /// also a source).
    pub fn vop(&mut self, op: Op, dst: Zmm, src1: Zmm, src2: VSrc) {
        self.evex(op, dst.0, src1.0, Self::vsrc_rm(src2), 0, false, None);
    }

    /// `dst = mask ? src2 : src1` (`vblendmps dst{mask}, src1, src2`).
    pub fn vblendmps(&mut self, dst: Zmm, mask: Kreg, src1: Zmm, src2: VSrc) {
        self.evex(
            ops::VBLENDMPS,
            dst.0,
            src1.0,
            Self::vsrc_rm(src2),
            mask.0,
            false,
            None,
        );
    }

    /// `dst = sqrt(src)`.
    pub fn vsqrtps(&mut self, dst: Zmm, src: VSrc) {
        self.evex(ops::VSQRTPS, dst.0, 0, Self::vsrc_rm(src), 0, false, None);
    }

    /// `dst = round(src)` by the rounding `imm` selects.
    pub fn vrndscaleps(&mut self, dst: Zmm, src: VSrc, imm: u8) {
        self.evex(
            ops::VRNDSCALEPS,
            dst.0,
            0,
            Self::vsrc_rm(src),
            0,
            false,
            Some(imm),
        );
    }

    /// `dst = src` (register copy).
    pub fn vmovaps(&mut self, dst: Zmm, src: Zmm) {
        self.evex(ops::VMOVAPS, dst.0, 0, Rm::Reg(src.0), 0, false, None);
    }

    /// Loads 64 bytes; with a mask, only its lanes (the others zeroed and
    /// never read, so they may lie beyond the end of a buffer).
    pub fn vmovups_load(&mut self, dst: Zmm, src: Mem, mask: Option<Kreg>) {
        let aaa = mask.map_or(0, |k| k.0);
        self.evex(
            ops::VMOVUPS_LOAD,
            dst.0,
            0,
            Rm::Mem(src, false, 64),
            aaa,
            mask.is_some(),
            None,
        );
    }

    /// Stores 64 bytes; with a mask, only its lanes.
    pub fn vmovups_store(&mut self, dst: Mem, src: Zmm, mask: Option<Kreg>) {
        let aaa = mask.map_or(0, |k| k.0);
        self.evex(
            ops::VMOVUPS_STORE,
            src.0,
            0,
            Rm::Mem(dst, false, 64),
            aaa,
            false,
            None,
        );
    }

    /// A 32-bit element of memory in every lane.
    pub fn vbroadcastss(&mut self, dst: Zmm, src: Mem) {
        self.evex(
            ops::VBROADCASTSS,
            dst.0,
            0,
            Rm::Mem(src, false, 4),
            0,
            false,
            None,
        );
    }

    /// `dst = a pred b` per lane for a `vcmpps` predicate `pred`.
    pub fn vcmpps(&mut self, dst: Kreg, a: Zmm, b: VSrc, pred: u8) {
        self.evex(
            ops::VCMPPS,
            dst.0,
            a.0,
            Self::vsrc_rm(b),
            0,
            false,
            Some(pred),
        );
    }

    /// `dst = (a & b) != 0` per 32-bit lane.
    pub fn vptestmd(&mut self, dst: Kreg, a: Zmm, b: VSrc) {
        self.evex(ops::VPTESTMD, dst.0, a.0, Self::vsrc_rm(b), 0, false, None);
    }

    /// `dst = src << count` (`right`: `>>`, arithmetic) on 32-bit lanes
    /// (`vpslld`/`vpsrad`, whose `ModRM.reg` holds the opcode extension 6
    /// or 4 and `vvvv` the destination).
    pub fn vpshiftd(&mut self, right: bool, dst: Zmm, src: Zmm, count: u8) {
        let ext = if right { 4 } else { 6 };
        self.evex(
            ops::VPSHIFTD_IMM,
            ext,
            dst.0,
            Rm::Reg(src.0),
            0,
            false,
            Some(count),
        );
    }

    /// `dst` = the 128-bit blocks of `src` in the order `imm` gives (two
    /// bits per destination block; `vshuff32x4 dst, src, src, imm`).
    pub fn vshuff32x4(&mut self, dst: Zmm, src: Zmm, imm: u8) {
        self.evex(
            ops::VSHUFF32X4,
            dst.0,
            src.0,
            Rm::Reg(src.0),
            0,
            false,
            Some(imm),
        );
    }

    /// `dst` = the lanes of each 128-bit block of `src` in the order `imm`
    /// gives (two bits per destination lane).
    pub fn vpermilps(&mut self, dst: Zmm, src: Zmm, imm: u8) {
        self.evex(
            ops::VPERMILPS_IMM,
            dst.0,
            0,
            Rm::Reg(src.0),
            0,
            false,
            Some(imm),
        );
    }

    // === VEX: 256-bit vector instructions (AVX, AVX2, FMA) ===

    /// The extension bits of `reg` and of `rm`'s index and base (or
    /// register): VEX's (and REX's) R, X and B, not yet inverted.
    fn rxb(reg: u8, rm: &Rm) -> [u8; 3] {
        let (x, b) = match rm {
            Rm::Reg(r) => (0, (r >> 3) & 1),
            Rm::Mem(m, _, _) => (
                m.index.map_or(0, |(i, _)| (i.0 >> 3) & 1),
                (m.base.0 >> 3) & 1,
            ),
        };
        [(reg >> 3) & 1, x, b]
    }

    /// Emits a 256-bit VEX instruction (`VEX.L1`): the two-byte prefix
    /// where it can encode the instruction, else the three-byte one.
    /// `reg`, `vvvv` and a register `rm` are register numbers (0–15).
    fn vex256(&mut self, op: Op, reg: u8, vvvv: u8, rm: Rm, imm: Option<u8>) {
        let [r, x, b] = Self::rxb(reg, &rm);
        let tail = ((!vvvv & 0xF) << 3) | 0x04 | op.pp;
        if op.map == 1 && !op.w && x == 0 && b == 0 {
            self.code.extend_from_slice(&[0xC5, ((!r & 1) << 7) | tail]);
        } else {
            self.code.extend_from_slice(&[
                0xC4,
                ((!r & 1) << 7) | ((!x & 1) << 6) | ((!b & 1) << 5) | op.map,
                (u8::from(op.w) << 7) | tail,
            ]);
        }
        self.code.push(op.code);
        match rm {
            Rm::Reg(r) => self.code.push(0xC0 | ((reg & 7) << 3) | (r & 7)),
            Rm::Mem(m, _, _) => self.modrm_mem(reg & 7, m, 1),
        }
        if let Some(imm) = imm {
            self.code.push(imm);
        }
    }

    fn ysrc_rm(src: VSrc) -> Rm {
        match src {
            VSrc::Reg(z) => Rm::Reg(z.0),
            VSrc::Bcst(m) | VSrc::Mem(m) => Rm::Mem(m, false, 1),
        }
    }

    /// `dst = src1 op src2` on `ymm` registers (`src2` a register or a
    /// whole vector of memory; the FMA forms also read `dst`). The EVEX
    /// integer logic ops (`vpandd` …) encode as their VEX forms (`vpand` …).
    pub fn yop(&mut self, op: Op, dst: Zmm, src1: Zmm, src2: VSrc) {
        self.vex256(op, dst.0, src1.0, Self::ysrc_rm(src2), None);
    }

    /// Loads 32 bytes.
    pub fn ymovups_load(&mut self, dst: Zmm, src: Mem) {
        self.vex256(ops::VMOVUPS_LOAD, dst.0, 0, Rm::Mem(src, false, 1), None);
    }

    /// Stores 32 bytes.
    pub fn ymovups_store(&mut self, dst: Mem, src: Zmm) {
        self.vex256(ops::VMOVUPS_STORE, src.0, 0, Rm::Mem(dst, false, 1), None);
    }

    /// Loads the lanes whose sign bit is set in `mask`, zeroing the others
    /// (whose memory is never touched, so it may lie beyond a buffer).
    pub fn vmaskmovps_load(&mut self, dst: Zmm, mask: Zmm, src: Mem) {
        self.vex256(
            ops::VMASKMOVPS_LOAD,
            dst.0,
            mask.0,
            Rm::Mem(src, false, 1),
            None,
        );
    }

    /// Stores the lanes whose sign bit is set in `mask`.
    pub fn vmaskmovps_store(&mut self, dst: Mem, mask: Zmm, src: Zmm) {
        self.vex256(
            ops::VMASKMOVPS_STORE,
            src.0,
            mask.0,
            Rm::Mem(dst, false, 1),
            None,
        );
    }

    /// `dst = src` (register copy).
    pub fn ymovaps(&mut self, dst: Zmm, src: Zmm) {
        self.vex256(ops::VMOVAPS, dst.0, 0, Rm::Reg(src.0), None);
    }

    /// A 32-bit element of memory in every lane.
    pub fn ybroadcastss(&mut self, dst: Zmm, src: Mem) {
        self.vex256(ops::VBROADCASTSS, dst.0, 0, Rm::Mem(src, false, 1), None);
    }

    /// `dst = a pred b` per lane (all ones or all zeros) for a `vcmpps`
    /// predicate `pred`.
    pub fn ycmpps(&mut self, dst: Zmm, a: Zmm, b: VSrc, pred: u8) {
        self.vex256(ops::VCMPPS, dst.0, a.0, Self::ysrc_rm(b), Some(pred));
    }

    /// `dst = sign(mask) ? t : f` per lane.
    pub fn vblendvps(&mut self, dst: Zmm, f: Zmm, t: VSrc, mask: Zmm) {
        self.vex256(
            ops::VBLENDVPS,
            dst.0,
            f.0,
            Self::ysrc_rm(t),
            Some(mask.0 << 4),
        );
    }

    /// `dst = sqrt(src)`.
    pub fn ysqrtps(&mut self, dst: Zmm, src: Zmm) {
        self.vex256(ops::VSQRTPS, dst.0, 0, Rm::Reg(src.0), None);
    }

    /// `dst = round(src)` by the rounding `imm` selects (`vroundps`, whose
    /// immediate means what `vrndscaleps`'s low four bits mean).
    pub fn vroundps(&mut self, dst: Zmm, src: Zmm, imm: u8) {
        self.vex256(ops::VROUNDPS, dst.0, 0, Rm::Reg(src.0), Some(imm));
    }

    /// `dst = src << count` (`right`: `>>`, arithmetic) on 32-bit lanes.
    pub fn yshiftd(&mut self, right: bool, dst: Zmm, src: Zmm, count: u8) {
        let ext = if right { 4 } else { 6 };
        self.vex256(ops::VPSHIFTD_IMM, ext, dst.0, Rm::Reg(src.0), Some(count));
    }

    /// `dst` = the lanes of each 128-bit block of `src` in the order `imm`
    /// gives (two bits per destination lane).
    pub fn ypermilps(&mut self, dst: Zmm, src: Zmm, imm: u8) {
        self.vex256(ops::VPERMILPS_IMM, dst.0, 0, Rm::Reg(src.0), Some(imm));
    }

    /// `dst` = the two 128-bit blocks of `src` swapped
    /// (`vperm2f128 dst, src, src, 1`).
    pub fn yswap_blocks(&mut self, dst: Zmm, src: Zmm) {
        self.vex256(ops::VPERM2F128, dst.0, src.0, Rm::Reg(src.0), Some(1));
    }

    /// Sets ZF when no lane of `a & b` has its sign bit set.
    pub fn vtestps(&mut self, a: Zmm, b: Zmm) {
        self.vex256(ops::VTESTPS, a.0, 0, Rm::Reg(b.0), None);
    }

    // === VEX: AMX tile instructions ===

    /// A VEX.128 map-`0F38` `W0` instruction in the three-byte form with
    /// prefix `pp` (0: none, 2: `F3`, 3: `F2`): `reg` and `vvvv` register
    /// numbers, `rm` a register or memory.
    fn vex_0f38(&mut self, pp: u8, code: u8, reg: u8, vvvv: u8, rm: Rm) {
        let [r, x, b] = Self::rxb(reg, &rm);
        self.code.extend_from_slice(&[
            0xC4,
            ((!r & 1) << 7) | ((!x & 1) << 6) | ((!b & 1) << 5) | 0x02,
            ((!vvvv & 0xF) << 3) | pp,
            code,
        ]);
        match rm {
            Rm::Reg(r) => self.code.push(0xC0 | ((reg & 7) << 3) | (r & 7)),
            Rm::Mem(m, _, _) => self.modrm_mem(reg & 7, m, 1),
        }
    }

    /// Loads the tile configuration (64 bytes) at `at`.
    pub fn ldtilecfg(&mut self, at: Mem) {
        self.vex_0f38(0, 0x49, 0, 0, Rm::Mem(at, false, 1));
    }

    /// Returns the tile registers to their initial state.
    pub fn tilerelease(&mut self) {
        self.vex_0f38(0, 0x49, 0, 0, Rm::Reg(0));
    }

    /// Zeroes tile `t`.
    pub fn tilezero(&mut self, t: u8) {
        self.vex_0f38(3, 0x49, t, 0, Rm::Reg(0));
    }

    /// Loads tile `t`, its rows `stride` bytes apart from `base + disp`.
    pub fn tileloadd(&mut self, t: u8, base: Gpr, stride: Gpr, disp: i32) {
        let at = Mem::indexed(base, stride, 1, disp);
        self.vex_0f38(3, 0x4B, t, 0, Rm::Mem(at, false, 1));
    }

    /// Stores tile `t`, its rows `stride` bytes apart from `base + disp`.
    pub fn tilestored(&mut self, base: Gpr, stride: Gpr, disp: i32, t: u8) {
        let at = Mem::indexed(base, stride, 1, disp);
        self.vex_0f38(2, 0x4B, t, 0, Rm::Mem(at, false, 1));
    }

    /// `dst += a · b` on tiles: f32 `dst` rows, bf16 pairs in `a`'s rows
    /// and `b`'s (VNNI) rows (AMX-BF16).
    pub fn tdpbf16ps(&mut self, dst: u8, a: u8, b: u8) {
        self.vex_0f38(2, 0x5C, dst, b, Rm::Reg(a));
    }

    // === VEX: opmask instructions ===

    /// A VEX instruction of map `0F`, no prefix, `W0`: `reg`, `vvvv` and
    /// `rm` are register numbers (0–15).
    fn vex(&mut self, l: bool, code: u8, reg: u8, vvvv: u8, rm: u8) {
        let l = u8::from(l) << 2;
        if rm < 8 {
            // Two-byte form: R̄ vvvv̄ L pp.
            self.code.push(0xC5);
            self.code
                .push(((!(reg >> 3) & 1) << 7) | ((!vvvv & 0xF) << 3) | l);
        } else {
            // Three-byte form: R̄ X̄ B̄ m-mmmm (0F), then W vvvv̄ L pp.
            self.code.push(0xC4);
            self.code.push(((!(reg >> 3) & 1) << 7) | (1 << 6) | 0x01);
            self.code.push(((!vvvv & 0xF) << 3) | l);
        }
        self.code.push(code);
        self.code.push(0xC0 | ((reg & 7) << 3) | (rm & 7));
    }

    /// `dst = the low 16 bits of src`.
    pub fn kmovw_from_gpr(&mut self, dst: Kreg, src: Gpr) {
        self.vex(false, 0x92, dst.0, 0, src.0);
    }

    /// `dst = src` zero-extended (`kmovw r32, k`).
    pub fn kmovw_to_gpr(&mut self, dst: Gpr, src: Kreg) {
        self.vex(false, 0x93, dst.0, 0, src.0);
    }

    /// Sets ZF when `a | b` is all zeros.
    pub fn kortestw(&mut self, a: Kreg, b: Kreg) {
        self.vex(false, 0x98, a.0, 0, b.0);
    }

    /// `dst = a op b` on opmasks.
    pub fn kop(&mut self, op: KOp, dst: Kreg, a: Kreg, b: Kreg) {
        let code = match op {
            KOp::And => 0x41,
            KOp::Or => 0x45,
            KOp::Xor => 0x47,
        };
        self.vex(true, code, dst.0, a.0, b.0);
    }

    /// `dst = !src` on an opmask.
    pub fn knotw(&mut self, dst: Kreg, src: Kreg) {
        self.vex(false, 0x44, dst.0, 0, src.0);
    }

    /// Clears the upper halves of the vector registers (before returning
    /// to code that may use SSE).
    pub fn vzeroupper(&mut self) {
        self.code.extend_from_slice(&[0xC5, 0xF8, 0x77]);
    }

    // === general-purpose instructions ===

    fn rex(&mut self, w: bool, reg: u8, index: u8, base: u8) {
        let rex = 0x40 | (u8::from(w) << 3) | ((reg >> 3) << 2) | ((index >> 3) << 1) | (base >> 3);
        if rex != 0x40 {
            self.code.push(rex);
        }
    }

    /// A 64-bit instruction `code reg, rm` with a register `rm`.
    fn alu_rr(&mut self, code: &[u8], reg: Gpr, rm: Gpr) {
        self.rex(true, reg.0, 0, rm.0);
        self.code.extend_from_slice(code);
        self.code.push(0xC0 | ((reg.0 & 7) << 3) | (rm.0 & 7));
    }

    /// `dst = [src]` (64 bits).
    pub fn mov_load(&mut self, dst: Gpr, src: Mem) {
        let index = src.index.map_or(0, |(i, _)| i.0);
        self.rex(true, dst.0, index, src.base.0);
        self.code.push(0x8B);
        self.modrm_mem(dst.0 & 7, src, 1);
    }

    /// `[dst] = src` (64 bits).
    pub fn mov_store(&mut self, dst: Mem, src: Gpr) {
        let index = dst.index.map_or(0, |(i, _)| i.0);
        self.rex(true, src.0, index, dst.base.0);
        self.code.push(0x89);
        self.modrm_mem(src.0 & 7, dst, 1);
    }

    /// `dst = src` (64 bits).
    pub fn mov(&mut self, dst: Gpr, src: Gpr) {
        self.alu_rr(&[0x89], src, dst);
    }

    /// `dst = imm` (64 bits).
    pub fn mov_imm64(&mut self, dst: Gpr, imm: u64) {
        self.rex(true, 0, 0, dst.0);
        self.code.push(0xB8 + (dst.0 & 7));
        self.code.extend_from_slice(&imm.to_le_bytes());
    }

    /// `dst = imm` (32 bits, zero-extended).
    pub fn mov_imm32(&mut self, dst: Gpr, imm: u32) {
        self.rex(false, 0, 0, dst.0);
        self.code.push(0xB8 + (dst.0 & 7));
        self.code.extend_from_slice(&imm.to_le_bytes());
    }

    /// `dst += imm`.
    pub fn add_imm(&mut self, dst: Gpr, imm: i32) {
        self.rex(true, 0, 0, dst.0);
        self.code.push(0x81);
        self.code.push(0xC0 | (dst.0 & 7));
        self.code.extend_from_slice(&imm.to_le_bytes());
    }

    /// `dst += src`.
    pub fn add(&mut self, dst: Gpr, src: Gpr) {
        self.alu_rr(&[0x01], src, dst);
    }

    /// `dst -= src`.
    pub fn sub(&mut self, dst: Gpr, src: Gpr) {
        self.alu_rr(&[0x29], src, dst);
    }

    /// Sets the flags of `a - b`.
    pub fn cmp(&mut self, a: Gpr, b: Gpr) {
        self.alu_rr(&[0x39], b, a);
    }

    /// Sets the flags of `a - imm`.
    pub fn cmp_imm(&mut self, a: Gpr, imm: i32) {
        self.rex(true, 0, 0, a.0);
        self.code.push(0x81);
        self.code.push(0xF8 | (a.0 & 7));
        self.code.extend_from_slice(&imm.to_le_bytes());
    }

    /// `dst = src * imm`.
    pub fn imul_imm(&mut self, dst: Gpr, src: Gpr, imm: i32) {
        self.alu_rr(&[0x69], dst, src);
        self.code.extend_from_slice(&imm.to_le_bytes());
    }

    /// `dst = src` if the last comparison found greater (signed).
    pub fn cmovg(&mut self, dst: Gpr, src: Gpr) {
        self.alu_rr(&[0x0F, 0x4F], dst, src);
    }

    /// `dst = address` of a memory operand.
    pub fn lea(&mut self, dst: Gpr, src: Mem) {
        let index = src.index.map_or(0, |(i, _)| i.0);
        self.rex(true, dst.0, index, src.base.0);
        self.code.push(0x8D);
        self.modrm_mem(dst.0 & 7, src, 1);
    }

    /// `dst = address of label` (RIP-relative).
    pub fn lea_label(&mut self, dst: Gpr, label: Label) {
        self.rex(true, dst.0, 0, 0);
        self.code.push(0x8D);
        self.code.push(((dst.0 & 7) << 3) | 0b101);
        self.fixups.push((self.code.len(), label));
        self.code.extend_from_slice(&[0; 4]);
    }

    /// Appends `bytes` (data) at the next multiple of `align` bytes, the gap
    /// filled with `int3`.
    pub fn data(&mut self, align: usize, bytes: &[u8]) {
        while !self.code.len().is_multiple_of(align) {
            self.code.push(0xCC);
        }
        self.code.extend_from_slice(bytes);
    }

    /// `dst = (1 << cl) - 1` on 32 bits, through `dst = 1; dst <<= cl; dst -= 1`.
    pub fn low_bits_mask(&mut self, dst: Gpr) {
        self.mov_imm32(dst, 1);
        self.rex(false, 0, 0, dst.0);
        self.code.extend_from_slice(&[0xD3, 0xE0 | (dst.0 & 7)]);
        self.rex(false, 0, 0, dst.0);
        self.code.extend_from_slice(&[0xFF, 0xC8 | (dst.0 & 7)]);
    }

    /// Jumps to `target` if `cond` holds.
    pub fn jcc(&mut self, cond: Cond, target: Label) {
        self.code.extend_from_slice(&[0x0F, 0x80 | cond as u8]);
        self.fixups.push((self.code.len(), target));
        self.code.extend_from_slice(&[0; 4]);
    }

    /// Jumps to `target`.
    pub fn jmp(&mut self, target: Label) {
        self.code.push(0xE9);
        self.fixups.push((self.code.len(), target));
        self.code.extend_from_slice(&[0; 4]);
    }

    /// `dst &= imm` (sign-extended).
    pub fn and_imm8(&mut self, dst: Gpr, imm: i8) {
        self.rex(true, 0, 0, dst.0);
        self.code.push(0x83);
        self.code.push(0xE0 | (dst.0 & 7));
        self.code.push(imm as u8);
    }

    /// `call reg`.
    pub fn call_reg(&mut self, reg: Gpr) {
        self.rex(false, 0, 0, reg.0);
        self.code.push(0xFF);
        self.code.push(0xD0 | (reg.0 & 7));
    }

    /// `push reg`.
    pub fn push(&mut self, reg: Gpr) {
        self.rex(false, 0, 0, reg.0);
        self.code.push(0x50 + (reg.0 & 7));
    }

    /// `pop reg`.
    pub fn pop(&mut self, reg: Gpr) {
        self.rex(false, 0, 0, reg.0);
        self.code.push(0x58 + (reg.0 & 7));
    }

    /// `ret`.
    pub fn ret(&mut self) {
        self.code.push(0xC3);
    }
}

#[cfg(test)]
mod tests {
    use super::gpr::*;
    use super::ops::*;
    use super::*;
    use crate::disasm::listing;

    fn hex(bytes: &[u8]) -> String {
        bytes
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Asserts the bytes `emit` appends.
    fn check(emit: impl Fn(&mut Asm), expected: &str) {
        let mut a = Asm::default();
        emit(&mut a);
        let code = a.finish();
        assert_eq!(hex(&code), expected, "{}", listing(&code));
    }

    /// Each instruction's bytes, as GNU `as` 2.40 assembles the same
    /// instruction (`as` with `.intel_syntax noprefix`, then `objdump -d`).
    #[test]
    fn encodings_match_gnu_as() {
        check(
            |a| a.vop(VADDPS, Zmm(3), Zmm(17), VSrc::Reg(Zmm(30))),
            "62 91 74 40 58 de",
        );
        check(
            |a| a.vop(VADDPS, Zmm(3), Zmm(17), VSrc::Bcst(Mem::at(RAX, 0x10))),
            "62 f1 74 50 58 58 04",
        );
        check(
            |a| a.vmovups_load(Zmm(1), Mem::indexed(R13, RSI, 4, 0x40), None),
            "62 d1 7c 48 10 4c b5 01",
        );
        check(
            |a| a.vop(VDPBF16PS, Zmm(3), Zmm(17), VSrc::Reg(Zmm(30))),
            "62 92 76 40 52 de",
        );
        check(
            |a| a.vop(VDPBF16PS, Zmm(0), Zmm(29), VSrc::Bcst(Mem::at(RSI, 0x38))),
            "62 f2 16 50 52 46 0e",
        );
        check(
            |a| a.vmovups_store(Mem::indexed(R12, RSI, 4, 0), Zmm(20), Some(Kreg(7))),
            "62 c1 7c 4f 11 24 b4",
        );
        check(
            |a| a.vmovups_load(Zmm(9), Mem::indexed(RBP, RSI, 4, 0), Some(Kreg(7))),
            "62 71 7c cf 10 4c b5 00",
        );
        check(
            |a| a.vop(VFMADD213PS, Zmm(0), Zmm(1), VSrc::Bcst(Mem::at(RAX, 0x200))),
            "62 f2 75 58 a8 80 00 02 00 00",
        );
        check(
            |a| a.vcmpps(Kreg(3), Zmm(2), VSrc::Reg(Zmm(9)), 3),
            "62 d1 6c 48 c2 d9 03",
        );
        check(
            |a| a.vpshiftd(false, Zmm(5), Zmm(22), 23),
            "62 b1 55 48 72 f6 17",
        );
        check(
            |a| a.vpshiftd(false, Zmm(25), Zmm(2), 1),
            "62 f1 35 40 72 f2 01",
        );
        check(
            |a| a.vpshiftd(true, Zmm(25), Zmm(2), 23),
            "62 f1 35 40 72 e2 17",
        );
        check(
            |a| a.vop(VPSUBD, Zmm(1), Zmm(2), VSrc::Bcst(Mem::at(RAX, 8))),
            "62 f1 6d 58 fa 48 02",
        );
        check(
            |a| a.vbroadcastss(Zmm(8), Mem::at(RBP, 0)),
            "62 72 7d 48 18 45 00",
        );
        check(|a| a.kmovw_from_gpr(Kreg(7), R11), "c4 c1 78 92 fb");
        check(|a| a.kortestw(Kreg(2), Kreg(2)), "c5 f8 98 d2");
        check(
            |a| a.kop(KOp::And, Kreg(1), Kreg(2), Kreg(3)),
            "c5 ec 41 cb",
        );
        check(|a| a.kop(KOp::Or, Kreg(4), Kreg(5), Kreg(6)), "c5 d4 45 e6");
        check(
            |a| a.kop(KOp::Xor, Kreg(1), Kreg(7), Kreg(2)),
            "c5 c4 47 ca",
        );
        check(|a| a.knotw(Kreg(3), Kreg(6)), "c5 f8 44 de");
        check(
            |a| a.vblendmps(Zmm(1), Kreg(2), Zmm(3), VSrc::Bcst(Mem::at(RAX, 0))),
            "62 f2 65 5a 65 08",
        );
        check(
            |a| a.vptestmd(Kreg(1), Zmm(4), VSrc::Bcst(Mem::at(RAX, 4))),
            "62 f2 5d 58 27 48 01",
        );
        check(
            |a| a.vrndscaleps(Zmm(1), VSrc::Reg(Zmm(2)), 9),
            "62 f3 7d 48 08 ca 09",
        );
        check(
            |a| a.vsqrtps(Zmm(31), VSrc::Reg(Zmm(16))),
            "62 21 7c 48 51 f8",
        );
        check(|a| a.vmovaps(Zmm(17), Zmm(4)), "62 e1 7c 48 28 cc");
        check(
            |a| a.vop(VPXORD, Zmm(6), Zmm(6), VSrc::Bcst(Mem::at(RAX, 0x400))),
            "62 f1 4d 58 ef b0 00 04 00 00",
        );
        check(|a| a.mov_load(R8, Mem::at(RDI, 8)), "4c 8b 47 08");
        check(|a| a.mov_load(RBP, Mem::at(RDI, 0x10)), "48 8b 6f 10");
        check(|a| a.mov_load(R12, Mem::at(RDI, 0x58)), "4c 8b 67 58");
        check(|a| a.mov(RCX, RDX), "48 89 d1");
        check(
            |a| a.mov_imm64(RAX, 0x1122334455667788),
            "48 b8 88 77 66 55 44 33 22 11",
        );
        check(|a| a.mov_imm32(R11, 1), "41 bb 01 00 00 00");
        check(|a| a.add_imm(RSI, 32), "48 81 c6 20 00 00 00");
        check(|a| a.sub(RCX, RSI), "48 29 f1");
        check(|a| a.add(R14, RCX), "49 01 ce");
        check(|a| a.add(RBX, RCX), "48 01 cb");
        check(|a| a.cmp(RCX, RDX), "48 39 d1");
        check(|a| a.imul_imm(RSI, RSI, 16384), "48 69 f6 00 40 00 00");
        check(|a| a.cmovg(RDX, RCX), "48 0f 4f d1");
        check(|a| a.lea(RCX, Mem::at(RSI, 32)), "48 8d 4e 20");
        check(
            |a| a.low_bits_mask(R11),
            "41 bb 01 00 00 00 41 d3 e3 41 ff cb",
        );
        check(|a| a.push(R15), "41 57");
        check(
            |a| a.vshuff32x4(Zmm(1), Zmm(20), 0x4E),
            "62 b3 5d 40 23 cc 4e",
        );
        check(
            |a| a.vpermilps(Zmm(17), Zmm(3), 0xB1),
            "62 e3 7d 48 04 cb b1",
        );
        check(|a| a.mov_store(Mem::at(RSP, 0x18), R9), "4c 89 4c 24 18");
        check(|a| a.mov_store(Mem::at(RSP, 0), RBX), "48 89 1c 24");
        check(|a| a.cmp_imm(RSI, 0x400), "48 81 fe 00 04 00 00");
        check(
            |a| a.vmovups_store(Mem::at(RSP, 0x80), Zmm(5), None),
            "62 f1 7c 48 11 6c 24 02",
        );
        check(
            |a| a.vmovups_load(Zmm(2), Mem::indexed(RSP, RSI, 4, 0x40), None),
            "62 f1 7c 48 10 54 b4 01",
        );
        check(
            |a| a.vop(VADDPS, Zmm(1), Zmm(1), VSrc::Bcst(Mem::at(RSP, 0xC0))),
            "62 f1 74 58 58 4c 24 30",
        );
        check(|a| a.pop(RBX), "5b");
        check(|a| a.kmovw_to_gpr(RAX, Kreg(3)), "c5 f8 93 c3");
        check(|a| a.kmovw_to_gpr(R11, Kreg(1)), "c5 78 93 d9");
        check(|a| a.and_imm8(RSP, -64), "48 83 e4 c0");
        check(|a| a.call_reg(RAX), "ff d0");
        check(|a| a.call_reg(R11), "41 ff d3");
        check(|a| a.mov_load(RSP, Mem::at(RSP, 0)), "48 8b 24 24");
        check(
            |a| a.mov_load(RSP, Mem::at(RSP, 0x840)),
            "48 8b a4 24 40 08 00 00",
        );
        check(
            |a| a.lea(RDI, Mem::at(RSP, 0x800)),
            "48 8d bc 24 00 08 00 00",
        );
        check(|a| a.vzeroupper(), "c5 f8 77");
    }

    /// The AMX tile instructions, as GNU `as` 2.40 assembles them.
    #[test]
    fn amx_encodings_match_gnu_as() {
        check(|a| a.ldtilecfg(Mem::at(RAX, 0)), "c4 e2 78 49 00");
        check(|a| a.tilerelease(), "c4 e2 78 49 c0");
        check(|a| a.tilezero(0), "c4 e2 7b 49 c0");
        check(|a| a.tilezero(3), "c4 e2 7b 49 d8");
        check(|a| a.tileloadd(4, RSI, R10, 0), "c4 a2 7b 4b 24 16");
        check(|a| a.tileloadd(5, RSI, R10, 0x40), "c4 a2 7b 4b 6c 16 40");
        check(|a| a.tileloadd(6, R11, RDX, 0), "c4 c2 7b 4b 34 13");
        check(|a| a.tileloadd(0, RCX, R8, 0x40), "c4 a2 7b 4b 44 01 40");
        check(|a| a.tilestored(RCX, R8, 0, 0), "c4 a2 7a 4b 04 01");
        check(|a| a.tilestored(R9, R8, 0x40, 3), "c4 82 7a 4b 5c 01 40");
        check(|a| a.tdpbf16ps(0, 4, 6), "c4 e2 4a 5c c4");
        check(|a| a.tdpbf16ps(3, 5, 7), "c4 e2 42 5c dd");
        check(|a| a.tdpbf16ps(1, 4, 7), "c4 e2 42 5c cc");
    }

    /// The 256-bit VEX instructions, as GNU `as` 2.40 assembles them.
    #[test]
    fn vex_encodings_match_gnu_as() {
        let m = |d| VSrc::Mem(Mem::at(RAX, d));
        let r = |n| VSrc::Reg(Zmm(n));
        check(|a| a.yop(VADDPS, Zmm(3), Zmm(1), r(13)), "c4 c1 74 58 dd");
        check(|a| a.yop(VADDPS, Zmm(3), Zmm(1), m(0x10)), "c5 f4 58 58 10");
        check(
            |a| a.yop(VMULPS, Zmm(9), Zmm(12), m(0x200)),
            "c5 1c 59 88 00 02 00 00",
        );
        check(|a| a.yop(VPANDD, Zmm(2), Zmm(3), m(0x40)), "c5 e5 db 50 40");
        check(|a| a.yop(VPXORD, Zmm(2), Zmm(3), r(4)), "c5 e5 ef d4");
        check(|a| a.yop(VPADDD, Zmm(0), Zmm(1), r(8)), "c4 c1 75 fe c0");
        check(
            |a| a.yop(VFMADD213PS, Zmm(0), Zmm(1), m(0x200)),
            "c4 e2 75 a8 80 00 02 00 00",
        );
        check(
            |a| a.yop(VFMADD231PS, Zmm(10), Zmm(1), r(2)),
            "c4 62 75 b8 d2",
        );
        check(
            |a| a.yop(VFMADD132PS, Zmm(1), Zmm(9), m(0)),
            "c4 e2 35 98 08",
        );
        check(
            |a| a.ymovups_load(Zmm(1), Mem::indexed(R13, RSI, 4, 0x20)),
            "c4 c1 7c 10 4c b5 20",
        );
        check(
            |a| a.ymovups_store(Mem::indexed(R12, RSI, 4, 0), Zmm(10)),
            "c4 41 7c 11 14 b4",
        );
        check(
            |a| a.vmaskmovps_load(Zmm(9), Zmm(15), Mem::indexed(RBP, RSI, 4, 0)),
            "c4 62 05 2c 4c b5 00",
        );
        check(
            |a| a.vmaskmovps_store(Mem::indexed(R8, RSI, 4, 0x20), Zmm(15), Zmm(3)),
            "c4 c2 05 2e 5c b0 20",
        );
        check(|a| a.ymovaps(Zmm(11), Zmm(4)), "c5 7c 28 dc");
        check(
            |a| a.ybroadcastss(Zmm(14), Mem::at(R9, 0)),
            "c4 42 7d 18 31",
        );
        check(
            |a| a.ybroadcastss(Zmm(2), Mem::at(RAX, 0x44)),
            "c4 e2 7d 18 50 44",
        );
        check(|a| a.ycmpps(Zmm(3), Zmm(2), r(9), 3), "c4 c1 6c c2 d9 03");
        check(
            |a| a.ycmpps(Zmm(3), Zmm(2), m(0x20), 0x11),
            "c5 ec c2 58 20 11",
        );
        check(
            |a| a.vblendvps(Zmm(1), Zmm(3), m(0), Zmm(2)),
            "c4 e3 65 4a 08 20",
        );
        check(
            |a| a.vblendvps(Zmm(10), Zmm(3), r(12), Zmm(13)),
            "c4 43 65 4a d4 d0",
        );
        check(|a| a.ysqrtps(Zmm(12), Zmm(1)), "c5 7c 51 e1");
        check(|a| a.vroundps(Zmm(1), Zmm(2), 9), "c4 e3 7d 08 ca 09");
        check(
            |a| a.yshiftd(false, Zmm(5), Zmm(12), 23),
            "c4 c1 55 72 f4 17",
        );
        check(|a| a.yshiftd(true, Zmm(11), Zmm(2), 1), "c5 a5 72 e2 01");
        check(|a| a.ypermilps(Zmm(12), Zmm(3), 0xB1), "c4 63 7d 04 e3 b1");
        check(|a| a.yswap_blocks(Zmm(1), Zmm(10)), "c4 c3 2d 06 ca 01");
        check(|a| a.vtestps(Zmm(3), Zmm(3)), "c4 e2 7d 0e db");
        check(
            |a| a.ymovups_load(Zmm(15), Mem::indexed(RAX, R11, 1, 0x60)),
            "c4 21 7c 10 7c 18 60",
        );
    }

    #[test]
    fn jumps_are_patched_forward_and_backward() {
        let mut a = Asm::default();
        let (top, end) = (a.label(), a.label());
        a.bind(top);
        a.jcc(Cond::G, end);
        a.jmp(top);
        a.bind(end);
        a.ret();
        let code = a.finish();
        // jg +5 (over the jmp), jmp -11 (back to the start).
        assert_eq!(hex(&code), "0f 8f 05 00 00 00 e9 f5 ff ff ff c3");
    }

    #[test]
    fn rip_relative_lea_reaches_aligned_data() {
        let mut a = Asm::default();
        let table = a.label();
        a.lea_label(R11, table);
        a.ret();
        a.data(16, &[]);
        a.bind(table);
        a.data(16, &[1, 2]);
        let code = a.finish();
        // lea r11, [rip + 9]: the lea ends at 7, the table starts at 16.
        assert_eq!(hex(&code[..8]), "4c 8d 1d 09 00 00 00 c3");
        assert_eq!(code[16..], [1, 2]);
    }
}
