//! Dead-code elimination, common-subexpression elimination and call
//! inlining: each test runs one pass and compares the whole module text.
//!
//! Cases that are one module before and after are files under
//! `tests/passes/{dce,cse,inline_calls,inline_fusions}/`; these need code.

use crate::passes_support;

use passes_support::{check, unchanged};
use xla_core::hlo::Opcode;
use xla_core::passes::{Changed, InlineCalls, InlineFusions, Pass};
use xla_core::verify::verify_module;
use xla_core::HloModule;

// === dead-code elimination ===

// === common-subexpression elimination ===

// === call inlining ===

#[test]
fn fusions_inline_like_calls_and_stay_for_inline_calls() {
    let with_entry = |root: &str| {
        format!(
            "HloModule m

fc {{
  p0 = f32[4]{{0}} parameter(0)
  p1 = f32[4]{{0}} parameter(1)
  ROOT m = f32[4]{{0}} multiply(p0, p1)
}}

ENTRY e {{
  x = f32[4]{{0}} parameter(0)
  n = f32[4]{{0}} negate(x)
  {root}
}}"
        )
    };
    let fused = with_entry("ROOT f = f32[4]{0} fusion(n, x), kind=kLoop, calls=fc");
    check(
        InlineFusions,
        &fused,
        &with_entry("ROOT m.1 = f32[4]{0} multiply(n, x)"),
    );
    unchanged(InlineCalls, &fused);
}

/// Computations that call a shared one twice per level double what
/// inlining copies at every level: past its budget (about 260000 copied
/// instructions) the inliner leaves the remaining calls as calls instead
/// of growing the module to 2^levels copies.
#[test]
fn inlining_stops_at_its_budget() {
    let levels = 24;
    let mut text = String::from(
        "HloModule m\n\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n",
    );
    for i in 1..levels {
        let before = i - 1;
        text.push_str(&format!(
            "c{i} {{\n  p = f32[] parameter(0)\n  a = f32[] call(p), to_apply=c{before}\n  \
             b = f32[] call(p), to_apply=c{before}\n  ROOT r = f32[] multiply(a, b)\n}}\n"
        ));
    }
    text.push_str(&format!(
        "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{}\n}}\n",
        levels - 1
    ));
    let mut module: HloModule = text.parse().unwrap();
    assert_eq!(InlineCalls.run(&mut module).unwrap(), Changed::Yes);
    let all = || module.computations.iter().flat_map(|c| &c.instructions);
    // Fully inlined, the entry alone would hold 2^25 instructions.
    let total = all().count();
    assert!((1 << 17..=(1 << 18) + 100).contains(&total), "{total}");
    assert!(all().any(|i| i.opcode == Opcode::Call));
    verify_module(&module).unwrap();
}
