//! The EVEX-encoded (AVX-512) vector instructions of [`Asm`]: 512-bit
//! arithmetic with opmasks and embedded broadcasts, loads and stores,
//! compares, shifts and shuffles.

use super::{ops, Asm, Kreg, Mem, Op, Rm, VSrc, Zmm};

impl Asm {
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
}
