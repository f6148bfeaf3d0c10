//! The algebraic simplifier, rule by rule: each test gives a module, the
//! exact module after one run, and the cases a rule's precondition
//! excludes.
//!
//! Cases that are one module before and after are files under
//! `tests/passes/simplify/` (see `passes_files.rs`); these need code.

use crate::passes_support;

use passes_support::{check, unchanged};
use xla_core::passes::AlgebraicSimplifier as S;

/// A module with entry parameters `params` and body `body`.
fn module(params: &str, body: &str) -> String {
    format!("HloModule m\n\nENTRY e {{\n{params}\n{body}\n}}\n")
}

// === arithmetic identities ===

// === data movement ===

#[test]
fn reductions_over_no_dimensions_vanish() {
    check(
        S,
        &module(
            "  x = f32[3] parameter(0)\n  i = s32[3] parameter(1)",
            "  z = f32[] constant(0)
  r = f32[3] reduce(x, z), dimensions={}, to_apply=add
  iz = s32[] constant(0)
  v = (f32[3], s32[3]) reduce(x, i, z, iz), dimensions={}, to_apply=argmax
  ROOT t = (f32[3], (f32[3], s32[3])) tuple(r, v)",
        )
        .replace(
            "ENTRY",
            "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n\
             argmax {\n  a0 = f32[] parameter(0)\n  a1 = s32[] parameter(1)\n  b0 = f32[] parameter(2)\n  \
             b1 = s32[] parameter(3)\n  ROOT r0 = (f32[], s32[]) tuple(a0, a1)\n}\n\nENTRY",
        ),
        &module(
            "  x = f32[3] parameter(0)\n  i = s32[3] parameter(1)",
            "  tuple.1 = (f32[3], s32[3]) tuple(x, i)
  ROOT t = (f32[3], (f32[3], s32[3])) tuple(x, tuple.1)",
        )
        .replace(
            "ENTRY",
            "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n\
             argmax {\n  a0 = f32[] parameter(0)\n  a1 = s32[] parameter(1)\n  b0 = f32[] parameter(2)\n  \
             b1 = s32[] parameter(3)\n  ROOT r0 = (f32[], s32[]) tuple(a0, a1)\n}\n\nENTRY",
        ),
    );
}

// === conversions ===

// === chains and fixed points ===

// === dots ===

#[test]
fn outer_product_dot_is_a_multiply_of_broadcasts() {
    check(
        S,
        &module(
            "  a = bf16[3] parameter(0)\n  b = f32[2] parameter(1)",
            "  ROOT d = f32[3,2] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}",
        ),
        &module(
            "  a = bf16[3] parameter(0)\n  b = f32[2] parameter(1)",
            "  convert.1 = f32[3] convert(a)
  broadcast.1 = f32[3,2] broadcast(convert.1), dimensions={0}
  broadcast.2 = f32[3,2] broadcast(b), dimensions={1}
  ROOT multiply.1 = f32[3,2] multiply(broadcast.1, broadcast.2)",
        ),
    );
    // Batched: batch dimensions first, then each operand's free ones.
    check(
        S,
        &module(
            "  a = s32[4,3] parameter(0)\n  b = s32[4,2] parameter(1)",
            "  ROOT d = s32[4,3,2] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, \
             lhs_contracting_dims={}, rhs_contracting_dims={}",
        ),
        &module(
            "  a = s32[4,3] parameter(0)\n  b = s32[4,2] parameter(1)",
            "  broadcast.1 = s32[4,3,2] broadcast(a), dimensions={0,1}
  broadcast.2 = s32[4,3,2] broadcast(b), dimensions={0,2}
  ROOT multiply.1 = s32[4,3,2] multiply(broadcast.1, broadcast.2)",
        ),
    );
    // A contraction, or operands that would need a transposition, stay.
    unchanged(
        S,
        &module(
            "  a = f32[3,4] parameter(0)\n  b = f32[4,2] parameter(1)",
            "  ROOT d = f32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
    );
    unchanged(
        S,
        &module(
            "  a = f32[3,4] parameter(0)\n  b = f32[4,2] parameter(1)",
            "  ROOT d = f32[4,3,2] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={0}, \
             lhs_contracting_dims={}, rhs_contracting_dims={}",
        ),
    );
}

// === XLA's optimized modules ===

#[test]
fn bitcast_in_place_is_the_operand_or_a_bitcast_convert() {
    check(
        S,
        &module(
            "  x = f32[2,3]{1,0} parameter(0)",
            "  same = f32[2,3]{1,0} bitcast(x)
  ROOT b = s32[2,3]{1,0} bitcast(same)",
        ),
        &module(
            "  x = f32[2,3]{1,0} parameter(0)",
            "  ROOT bitcast-convert.1 = s32[2,3]{1,0} bitcast-convert(x)",
        ),
    );
    // Another layout, other dimensions or another size: a layout-level
    // bitcast that stays.
    for (param, result) in [
        ("f32[2,3]{1,0}", "s32[2,3]{0,1}"),
        ("f32[2,3]{1,0}", "s32[3,2]{1,0}"),
        ("f32[2,3]{1,0}", "s16[2,3,2]{2,1,0}"),
    ] {
        unchanged(
            S,
            &module(
                &format!("  x = {param} parameter(0)"),
                &format!("  ROOT b = {result} bitcast(x)"),
            ),
        );
    }
}

#[test]
fn xla_top_k_custom_call_is_topk() {
    // The comparator XLA passes (unused once the call is a topk).
    let with_entry = |root: &str| {
        format!(
            "HloModule m

cmp {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}}

ENTRY e {{
  x = f32[3,9] parameter(0)
  {root}
}}
"
        )
    };
    check(
        S,
        &with_entry(
            "ROOT t = (f32[3,4], s32[3,4]) custom-call(x), custom_call_target=\"TopK\", \
             called_computations={cmp}",
        ),
        &with_entry("ROOT topk.1 = (f32[3,4], s32[3,4]) topk(x), k=4, largest=true"),
    );
}
