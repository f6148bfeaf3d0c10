//! Constant folding through the interpreter: what folds (with the
//! interpreter's exact semantics), and what never does.
//!
//! Cases that are one module before and after are files under
//! `tests/passes/constant_folding/`; these need code.

use crate::passes_support;

use passes_support::{check, unchanged};
use xla_core::passes::ConstantFolding;

fn fold() -> ConstantFolding {
    ConstantFolding::new(1 << 20)
}

#[test]
fn folding_follows_the_interpreter_exactly() {
    // Integer division by zero gives −1 (project rule), a subnormal f32
    // product flushes to +0, negation keeps a NaN's payload.
    check(
        fold(),
        "HloModule m

ENTRY e {
  seven = s32[] constant(7)
  zero = s32[] constant(0)
  q = s32[] divide(seven, zero)
  tiny = f32[] constant(1e-40)
  one = f32[] constant(1)
  p = f32[] multiply(tiny, one)
  n = f32[] constant(nan(0x123))
  m = f32[] negate(n)
  ROOT t = (s32[], f32[], f32[]) tuple(q, p, m)
}",
        "HloModule m

ENTRY e {
  q = s32[] constant(-1)
  p = f32[] constant(0)
  m = f32[] constant(-nan(0x123))
  ROOT t = (s32[], f32[], f32[]) tuple(q, p, m)
}",
    );
}

#[test]
fn results_and_operands_above_the_size_cap_stay() {
    let text = "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  v = f32[4] constant({1, 2, 3, 4})
  z = f32[] constant(0)
  sum = f32[] reduce(v, z), dimensions={0}, to_apply=add
  w = f32[2] constant({1, 2})
  n = f32[2] negate(w)
  ROOT t = (f32[], f32[2]) tuple(sum, n)
}";
    // The reduce reads 20 bytes, the negate reads and writes 8.
    unchanged(ConstantFolding::new(4), text);
    check(
        ConstantFolding::new(8),
        text,
        &text.replace(
            "  w = f32[2] constant({1, 2})\n  n = f32[2] negate(w)",
            "  n = f32[2] constant({-1, -2})",
        ),
    );
    check(
        ConstantFolding::new(20),
        text,
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  sum = f32[] constant(10)
  n = f32[2] constant({-1, -2})
  ROOT t = (f32[], f32[2]) tuple(sum, n)
}",
    );
}

/// A small table computed from an iota and broadcast constants (a rotary
/// embedding's inverse frequencies) folds level by level into one
/// constant; the same computation over more than 4096 bytes stays (a
/// large iota-made value is cheaper fused than stored).
#[test]
fn small_tables_made_from_iotas_fold() {
    let program = |n: usize| {
        format!(
            "HloModule m

ENTRY e {{
  i = f32[{n}] iota(), iota_dimension=0
  c = f32[] constant(0.5)
  cb = f32[{n}] broadcast(c), dimensions={{}}
  s = f32[{n}] multiply(i, cb)
  t = f32[] constant(2)
  tb = f32[{n}] broadcast(t), dimensions={{}}
  ROOT p = f32[{n}] power(tb, s)
}}"
        )
    };
    let mut module: xla_core::HloModule = program(4).parse().unwrap();
    let mut pass = fold();
    use xla_core::passes::Pass;
    while pass.run(&mut module).unwrap().is_yes() {
        let _ = xla_core::passes::Dce.run(&mut module).unwrap();
    }
    let root = module
        .entry_computation()
        .instr(module.entry_computation().root);
    assert_eq!(root.opcode, xla_core::Opcode::Constant, "{module}");
    let values = root
        .attrs
        .literal
        .as_ref()
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let want: Vec<f32> = (0..4).map(|k| 2f32.powf(0.5 * k as f32)).collect();
    assert_eq!(values, want);
    unchanged(fold(), &program(1025));
}
