//! The general-purpose instructions of [`Asm`]: moves, integer
//! arithmetic, jumps, calls and the stack, for a loop frame.

use super::{Asm, Cond, Gpr, Label, Mem};

impl Asm {
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
