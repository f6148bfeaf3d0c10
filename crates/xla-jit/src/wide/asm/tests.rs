//! The encodings of [`Asm`]'s instructions, checked against GNU `as`.

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
