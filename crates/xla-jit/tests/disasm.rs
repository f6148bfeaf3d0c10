//! Machine code listings (`xla dump --asm`) against GNU `objdump`: the
//! same instructions, operands and registers, for kernels of both code
//! generators.

use std::process::Command;

use crate::emit_harness::{compile, compile_cranelift};

/// `objdump`'s listing of `code` as x86-64 instructions at address 0: one
/// `(offset, text)` per line, the text's whitespace collapsed.
fn objdump(name: &str, code: &[u8]) -> Vec<(u64, String)> {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("disasm");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.bin"));
    std::fs::write(&path, code).unwrap();
    let out = Command::new("objdump")
        .args([
            "-D",
            "-b",
            "binary",
            "-m",
            "i386:x86-64",
            "--no-show-raw-insn",
        ])
        .arg(&path)
        .output()
        .expect("GNU objdump (binutils) runs: install binutils to run this test");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let (offset, text) = line.split_once(":\t")?;
            let offset = u64::from_str_radix(offset.trim(), 16).ok()?;
            // objdump adds the target of rip-relative operands as a comment.
            let text = text.split(" #").next().unwrap_or(text);
            Some((offset, normalize(text).replace(",1)", ")")))
        })
        .collect()
}

fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Our listing's instructions, `(offset, text)`, up to the data after the
/// code.
fn ours(listing: &str) -> Vec<(u64, String)> {
    listing
        .lines()
        .map(|line| {
            let (offset, text) = line.split_once(":  ").expect("offset: text");
            (u64::from_str_radix(offset.trim(), 16).unwrap(), text)
        })
        .take_while(|(_, text)| !text.starts_with(".byte"))
        .map(|(offset, text)| (offset, long_imul(&normalize(text))))
        .collect()
}

/// `imul $imm,%reg` (GNU's short form, which our listing prints) as
/// objdump prints it, `imul $imm,%reg,%reg`. (objdump's other long form, an
/// index scaled by 1, is shortened on its side.)
fn long_imul(text: &str) -> String {
    match text
        .strip_prefix("imul $")
        .and_then(|rest| rest.split_once(','))
    {
        Some((imm, reg)) if !reg.contains(',') => format!("imul ${imm},{reg},{reg}"),
        _ => text.to_string(),
    }
}

/// Every instruction of every kernel of `jit` reads as objdump reads it,
/// and the data after the code starts where objdump's view of the bytes
/// would have to stop being code.
fn check(jit: &xla_jit::codegen::Jit) -> usize {
    let mut compared = 0;
    for ((name, code), (_, listing)) in jit.machine_code().iter().zip(jit.disasm()) {
        let ours = ours(&listing);
        assert!(!ours.is_empty(), "{name}: no instructions:\n{listing}");
        let theirs = objdump(name, code);
        for (i, (offset, text)) in ours.iter().enumerate() {
            let Some((their_offset, their_text)) = theirs.get(i) else {
                panic!("{name}: objdump stops before {offset:#x} {text}");
            };
            assert_eq!(
                (offset, text),
                (their_offset, their_text),
                "{name}: instruction {i}\n{listing}"
            );
        }
        compared += ours.len();
    }
    compared
}

/// A flat elementwise kernel (native where the CPU has AVX-512 or AVX2,
/// with its constant table after the code), a row kernel, and Cranelift's
/// kernels of the same programs (constant pools after the code).
#[test]
fn listings_read_as_objdump_reads_them() {
    let programs = [
        "HloModule m\nENTRY e {\n  x = f32[1000]{0} parameter(0)\n  \
         y = f32[1000]{0} parameter(1)\n  e = f32[1000]{0} exponential(x)\n  \
         t = f32[1000]{0} tanh(y)\n  ROOT r = f32[1000]{0} multiply(e, t)\n}",
        "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[64,100]{1,0} parameter(0)\n  \
         z = f32[] constant(0)\n  ROOT r = f32[64]{0} reduce(x, z), dimensions={1}, to_apply=add\n}",
        "HloModule m\nENTRY e {\n  x = s32[37,5]{1,0} parameter(0)\n  \
         ROOT t = s32[5,37]{1,0} transpose(x), dimensions={1,0}\n}",
    ];
    let mut compared = 0;
    for text in programs {
        compared += check(&compile(text).jit);
        compared += check(&compile_cranelift(text).jit);
    }
    assert!(compared > 100, "{compared} instructions");
}
