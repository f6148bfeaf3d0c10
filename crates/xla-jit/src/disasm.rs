//! Machine code listings: one disassembler for the code of both code
//! generators (Cranelift's and the native one), in GNU (AT&T) syntax as
//! `objdump -d` prints it (but for two short forms GNU `as` reads the
//! same: `imul $imm,%reg` for `imul $imm,%reg,%reg`, and no scale for an
//! index scaled by 1: `(%rsi,%rsi)` for `(%rsi,%rsi,1)`).
//!
//! Data after the instructions (Cranelift's constant pool, the native
//! kernels' constant table) is found by the instructions that address it
//! relative to `rip`: decoding stops at the lowest such address past the
//! current instruction, and the rest (with the `int3`s that align it) is
//! listed as bytes.

use std::fmt::Write as _;

use iced_x86::{Decoder, DecoderOptions, Formatter, GasFormatter, Instruction, Mnemonic};

/// Bytes per line of the data after the code.
const DATA_ROW: usize = 16;

/// The listing of x86-64 machine code `code` placed at address 0: one line
/// per instruction, `offset: mnemonic operands` (branch targets as offsets),
/// then the data after the code (and its alignment), 16 bytes a line.
pub fn listing(code: &[u8]) -> String {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut formatter = GasFormatter::new();
    let options = formatter.options_mut();
    options.set_first_operand_char_index(8);
    options.set_branch_leading_zeros(false);
    options.set_uppercase_hex(false);
    options.set_rip_relative_addresses(true);
    options.set_small_hex_numbers_in_decimal(false);
    // An encoded zero displacement (as `%rbp` and `%r13` bases need) is
    // shown, as objdump shows it: `0x0(%r13,%rdi)`.
    options.set_show_zero_displacements(true);
    let mut lines: Vec<(u64, String, bool)> = Vec::new();
    let mut data_at = code.len() as u64;
    let mut instruction = Instruction::default();
    while decoder.can_decode() && decoder.ip() < data_at {
        decoder.decode_out(&mut instruction);
        if instruction.is_invalid() {
            data_at = instruction.ip();
            break;
        }
        if instruction.is_ip_rel_memory_operand() {
            let target = instruction.ip_rel_memory_address();
            if target >= instruction.next_ip() {
                data_at = data_at.min(target);
            }
        }
        let mut text = String::new();
        formatter.format(&instruction, &mut text);
        let padding = instruction.mnemonic() == Mnemonic::Int3;
        lines.push((instruction.ip(), text, padding));
    }
    // `int3`s between the last instruction and the data align the data.
    while let Some((ip, _, true)) = lines.last() {
        data_at = *ip;
        lines.pop();
    }
    let mut out = String::new();
    for (ip, text, _) in &lines {
        let _ = writeln!(out, "{ip:6x}:  {text}");
    }
    let data_at = (data_at as usize).min(code.len());
    for (row, bytes) in code[data_at..].chunks(DATA_ROW).enumerate() {
        let _ = write!(out, "{:6x}:  .byte   ", data_at + row * DATA_ROW);
        let hex: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
        let _ = writeln!(out, "{}", hex.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::listing;

    #[test]
    fn instructions_then_the_data_they_address() {
        // lea rax, [rip+0x7]; vmovups zmm0, [rax]; ret; then 5 bytes of data.
        let mut code = vec![0x48, 0x8d, 0x05, 0x07, 0x00, 0x00, 0x00];
        code.extend([0x62, 0xf1, 0x7c, 0x48, 0x10, 0x00, 0xc3]);
        code.extend([0x01, 0x02, 0x03, 0x04, 0x05]);
        assert_eq!(
            listing(&code),
            "     0:  lea     0x7(%rip),%rax\n     7:  vmovups (%rax),%zmm0\n     d:  ret\n     \
             e:  .byte   0x01,0x02,0x03,0x04,0x05\n"
        );
    }
}
