//! The VEX-encoded instructions of [`Asm`]: 256-bit (AVX2, FMA) vector
//! arithmetic for CPUs without AVX-512, the AMX tile instructions and the
//! opmask instructions.

use super::{ops, Asm, Gpr, KOp, Kreg, Mem, Op, Rm, VSrc, Zmm};

impl Asm {
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
}
