//! An x86-64 encoder for the instructions the native kernels are made of:
//! EVEX-encoded 512-bit vector arithmetic with opmask registers and
//! embedded broadcasts, the VEX opmask instructions, VEX-encoded 256-bit
//! (AVX2) vector arithmetic for CPUs without AVX-512, and the few
//! general-purpose instructions of a loop frame.
//!
//! Each method appends one instruction to [`Asm::code`] (listings come
//! from disassembling the bytes: [`crate::disasm`]). Jumps go to
//! [`Label`]s, bound anywhere and patched by [`Asm::finish`]. The encodings
//! are checked against GNU `as` in this module's tests (`asm/tests.rs`).

mod evex;
mod gp;
mod vex;

#[cfg(test)]
mod tests;

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
    /// Not zero / not equal.
    Nz = 0x5,
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
}
