//! Golden code: the exact CLIF the emitters generate for a few small
//! kernels, and the machine code of a native (AVX-512 or AVX2) kernel, so that codegen
//! changes show up in review. Regenerate with
//! `XLA_UPDATE_GOLDEN=1 cargo test -p xla-jit --test all emit_golden::` and
//! read the diff.

use crate::emit_harness;

use emit_harness::*;
use xla_jit::wide::Width;

/// `line` with every heap address (the constant table's cell, which moves
/// from run to run) replaced by `<address>`.
fn without_address(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let len = tail
            .find(|c: char| !(c.is_ascii_hexdigit() || c == '_'))
            .unwrap_or(tail.len());
        let value = u64::from_str_radix(&tail[..len].replace('_', ""), 16).unwrap_or(0);
        if value > u64::from(u32::MAX) {
            out.push_str("<address>");
        } else {
            out.push_str(&rest[at..at + 2 + len]);
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// Compares the CLIF of `text`'s kernels (all compiled by Cranelift) with
/// `emit_golden/<name>.clif`.
fn golden(name: &str, text: &str) {
    let c = compile_cranelift(text);
    let clif: String = c
        .jit
        .clif()
        .iter()
        .flat_map(|(_, clif)| clif.lines().map(without_address).collect::<Vec<_>>())
        .collect::<Vec<_>>()
        .join("\n");
    check(name, "clif", &clif);
}

/// Compares the machine code of `text`'s kernels (native where the
/// emitter takes them) with `emit_golden/<name>.s` at 512 bits and
/// `emit_golden/<name>_avx2.s` at 256 bits, for every width this CPU runs;
/// `false` when it runs neither, whose kernels are then Cranelift's.
fn golden_native(name: &str, text: &str) -> bool {
    let widths = native_widths();
    for &width in &widths {
        let name = match width {
            Width::Zmm => name.to_string(),
            Width::Ymm => format!("{name}_avx2"),
        };
        let c = compile_with(text, Some(width));
        let asm: String = c.jit.disasm().iter().map(|(_, s)| s.as_str()).collect();
        check(&name, "s", &asm);
    }
    !widths.is_empty()
}

fn check(name: &str, ext: &str, text: &str) {
    let path = format!(
        "{}/tests/emit_golden/{name}.{ext}",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("XLA_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if text != want {
        let first = text
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(text.lines().count().min(want.lines().count()));
        panic!(
            "{name}: generated code differs from {path} at line {}:\n  now:    {:?}\n  golden: {:?}\n\
             (set XLA_UPDATE_GOLDEN=1 to accept)",
            first + 1,
            text.lines().nth(first),
            want.lines().nth(first)
        );
    }
}

const AXPY: &str = "HloModule m
ENTRY e {
  a = f32[] parameter(0)
  x = f32[10]{0} parameter(1)
  y = f32[10]{0} parameter(2)
  ab = f32[10]{0} broadcast(a), dimensions={}
  m = f32[10]{0} multiply(ab, x)
  ROOT r = f32[10]{0} add(m, y)
}";

#[test]
fn scaled_sum_loop() {
    golden("axpy", AXPY);
}

/// The native kernel of the same fusion: at 512 bits the scalar `a` read
/// as a broadcast memory operand, at 256 bits broadcast into a register;
/// two vectors per step, then one, then the masked tail.
#[test]
fn scaled_sum_loop_native() {
    if !golden_native("axpy", AXPY) {
        eprintln!("skipped: this CPU has neither AVX-512 nor AVX2");
    }
}

#[test]
fn row_sum() {
    golden(
        "row_sum",
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,8]{1,0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3]{0} reduce(x, z), dimensions={1}, to_apply=add
}",
    );
}

#[test]
fn half_precision_negate_of_transpose() {
    golden(
        "f16_transpose",
        "HloModule m
ENTRY e {
  x = f16[4,2]{1,0} parameter(0)
  t = f16[2,4]{1,0} transpose(x), dimensions={1,0}
  ROOT n = f16[2,4]{1,0} multiply(t, t)
}",
    );
}
