//! The algebraic simplifier, rule by rule: each test gives a module, the
//! exact module after one run, and the cases a rule's precondition
//! excludes.

use crate::passes_support;

use passes_support::{check, unchanged};
use xla_core::passes::AlgebraicSimplifier as S;

/// A module with entry parameters `params` and body `body`.
fn module(params: &str, body: &str) -> String {
    format!("HloModule m\n\nENTRY e {{\n{params}\n{body}\n}}\n")
}

// === arithmetic identities ===

#[test]
fn add_zero_for_integers_either_side() {
    check(
        S,
        &module(
            "  x = s32[4] parameter(0)",
            "  z = s32[] constant(0)
  b = s32[4] broadcast(z), dimensions={}
  a = s32[4] add(x, b)
  ROOT c = s32[4] add(b, a)",
        ),
        &module("  ROOT x = s32[4] parameter(0)", ""),
    );
}

#[test]
fn add_zero_for_floats_only_with_negative_zero() {
    check(
        S,
        &module(
            "  x = f32[2] parameter(0)",
            "  nz = f32[2] constant({-0, -0})
  pz = f32[2] constant({0, 0})
  a = f32[2] add(nz, x)
  ROOT r = f32[2] add(a, pz)",
        ),
        &module(
            "  x = f32[2] parameter(0)",
            "  constant.2 = f32[] constant(0)
  broadcast.2 = f32[2] broadcast(constant.2), dimensions={}
  ROOT r = f32[2] add(x, broadcast.2)",
        ),
    );
}

#[test]
fn subtract_zero() {
    check(
        S,
        &module(
            "  x = f32[] parameter(0)\n  i = u8[] parameter(1)",
            "  pz = f32[] constant(0)
  nz = f32[] constant(-0)
  a = f32[] subtract(x, pz)
  b = f32[] subtract(a, nz)
  c = f32[] subtract(pz, b)
  zi = u8[] constant(0)
  d = u8[] subtract(i, zi)
  ROOT t = (f32[], u8[]) tuple(c, d)",
        ),
        &module(
            "  x = f32[] parameter(0)\n  i = u8[] parameter(1)",
            "  pz = f32[] constant(0)
  nz = f32[] constant(-0)
  b = f32[] subtract(x, nz)
  c = f32[] subtract(pz, b)
  ROOT t = (f32[], u8[]) tuple(c, i)",
        ),
    );
}

#[test]
fn multiply_by_one_and_integer_zero() {
    check(
        S,
        &module(
            "  x = f32[3] parameter(0)\n  i = s64[3] parameter(1)",
            "  one = f32[] constant(1)
  ones = f32[3] broadcast(one), dimensions={}
  a = f32[3] multiply(ones, x)
  z = s64[] constant(0)
  zeros = s64[3] broadcast(z), dimensions={}
  b = s64[3] multiply(i, zeros)
  ROOT t = (f32[3], s64[3]) tuple(a, b)",
        ),
        &module(
            "  x = f32[3] parameter(0)\n  i = s64[3] parameter(1)",
            "  z = s64[] constant(0)
  zeros = s64[3] broadcast(z), dimensions={}
  ROOT t = (f32[3], s64[3]) tuple(x, zeros)",
        ),
    );
}

#[test]
fn multiply_by_zero_stays_for_floats_and_by_one_for_complex() {
    unchanged(
        S,
        &module(
            "  x = f32[] parameter(0)\n  c = c64[] parameter(1)",
            "  z = f32[] constant(0)
  a = f32[] multiply(x, z)
  one = c64[] constant((1, 0))
  b = c64[] multiply(c, one)
  d = c64[] divide(c, one)
  ROOT t = (f32[], c64[], c64[]) tuple(a, b, d)",
        ),
    );
}

#[test]
fn divide_by_one() {
    check(
        S,
        &module(
            "  x = bf16[] parameter(0)\n  i = u32[] parameter(1)",
            "  one = bf16[] constant(1)
  a = bf16[] divide(x, one)
  b = bf16[] divide(one, x)
  onei = u32[] constant(1)
  c = u32[] divide(i, onei)
  ROOT t = (bf16[], bf16[], u32[]) tuple(a, b, c)",
        ),
        &module(
            "  x = bf16[] parameter(0)\n  i = u32[] parameter(1)",
            "  one = bf16[] constant(1)
  b = bf16[] divide(one, x)
  ROOT t = (bf16[], bf16[], u32[]) tuple(x, b, i)",
        ),
    );
}

#[test]
fn double_negation_and_double_not() {
    check(
        S,
        &module(
            "  x = s8[2] parameter(0)\n  p = pred[2] parameter(1)",
            "  a = s8[2] negate(x)
  b = s8[2] negate(a)
  c = pred[2] not(p)
  d = pred[2] not(c)
  e = s8[2] not(x)
  ROOT t = (s8[2], pred[2], s8[2], s8[2]) tuple(b, d, e, a)",
        ),
        &module(
            "  x = s8[2] parameter(0)\n  p = pred[2] parameter(1)",
            "  a = s8[2] negate(x)
  e = s8[2] not(x)
  ROOT t = (s8[2], pred[2], s8[2], s8[2]) tuple(x, p, e, a)",
        ),
    );
}

#[test]
fn select_with_constant_predicate_or_equal_branches() {
    check(
        S,
        &module(
            "  x = f32[2] parameter(0)\n  y = f32[2] parameter(1)\n  p = pred[2] parameter(2)",
            "  t = pred[] constant(true)
  ts = pred[2] broadcast(t), dimensions={}
  a = f32[2] select(ts, x, y)
  f = pred[2] constant({false, false})
  b = f32[2] select(f, x, y)
  c = f32[2] select(p, y, y)
  m = pred[2] constant({true, false})
  d = f32[2] select(m, x, y)
  ROOT r = (f32[2], f32[2], f32[2], f32[2]) tuple(a, b, c, d)",
        ),
        &module(
            "  x = f32[2] parameter(0)\n  y = f32[2] parameter(1)\n  p = pred[2] parameter(2)",
            "  m = pred[2] constant({true, false})
  d = f32[2] select(m, x, y)
  ROOT r = (f32[2], f32[2], f32[2], f32[2]) tuple(x, y, y, d)",
        ),
    );
}

#[test]
fn elementwise_ops_of_scalar_broadcasts_run_once() {
    check(
        S,
        &module(
            "  x = f32[] parameter(0)",
            "  c = f32[] constant(2)
  bx = f32[2,3] broadcast(x), dimensions={}
  bc = f32[2,3] broadcast(c), dimensions={}
  m = f32[2,3] maximum(bx, bc)
  ROOT e = f32[2,3] exponential(m)",
        ),
        &module(
            "  x = f32[] parameter(0)",
            "  c = f32[] constant(2)
  maximum.1 = f32[] maximum(x, c)
  exponential.1 = f32[] exponential(maximum.1)
  ROOT broadcast.2 = f32[2,3] broadcast(exponential.1), dimensions={}",
        ),
    );
}

#[test]
fn clamp_and_compare_of_scalar_broadcasts() {
    check(
        S,
        &module(
            "  x = f32[] parameter(0)",
            "  lo = f32[] constant(0)
  hi = f32[] constant(1)
  bx = f32[4] broadcast(x), dimensions={}
  c = f32[4] clamp(lo, bx, hi)
  bhi = f32[4] broadcast(hi), dimensions={}
  ROOT p = pred[4] compare(c, bhi), direction=LT",
        ),
        &module(
            "  x = f32[] parameter(0)",
            "  lo = f32[] constant(0)
  hi = f32[] constant(1)
  clamp.1 = f32[] clamp(lo, x, hi)
  compare.1 = pred[] compare(clamp.1, hi), direction=LT
  ROOT broadcast.2 = pred[4] broadcast(compare.1), dimensions={}",
        ),
    );
}

#[test]
fn elementwise_ops_with_an_array_operand_stay() {
    unchanged(
        S,
        &module(
            "  x = f32[4] parameter(0)\n  s = f32[] parameter(1)",
            "  b = f32[4] broadcast(s), dimensions={}
  ROOT m = f32[4] maximum(x, b)",
        ),
    );
}

// === data movement ===

#[test]
fn reshape_of_reshape_and_reshape_to_the_same_shape() {
    check(
        S,
        &module(
            "  x = f32[4096] parameter(0)",
            "  a = f32[4096,1] reshape(x)
  b = f32[4096] reshape(a)
  c = f32[64,64] reshape(b)
  ROOT d = f32[16,256] reshape(c)",
        ),
        &module(
            "  x = f32[4096] parameter(0)",
            "  ROOT reshape.2 = f32[16,256] reshape(x)",
        ),
    );
}

#[test]
fn reshape_of_a_scalar_broadcast_is_a_broadcast() {
    check(
        S,
        &module(
            "  s = f32[] parameter(0)",
            "  b = f32[6] broadcast(s), dimensions={}
  ROOT r = f32[2,3] reshape(b)",
        ),
        &module(
            "  s = f32[] parameter(0)",
            "  ROOT broadcast.1 = f32[2,3] broadcast(s), dimensions={}",
        ),
    );
}

#[test]
fn transposes_compose_and_identities_vanish() {
    check(
        S,
        &module(
            "  x = f32[2,3,4] parameter(0)",
            "  a = f32[3,4,2] transpose(x), dimensions={1,2,0}
  b = f32[4,2,3] transpose(a), dimensions={1,2,0}
  c = f32[2,3,4] transpose(x), dimensions={0,1,2}
  d = f32[3,2,4] transpose(x), dimensions={1,0,2}
  e = f32[2,3,4] transpose(d), dimensions={1,0,2}
  ROOT t = (f32[4,2,3], f32[2,3,4], f32[2,3,4]) tuple(b, c, e)",
        ),
        &module(
            "  x = f32[2,3,4] parameter(0)",
            "  transpose.1 = f32[4,2,3] transpose(x), dimensions={2,0,1}
  ROOT t = (f32[4,2,3], f32[2,3,4], f32[2,3,4]) tuple(transpose.1, x, x)",
        ),
    );
}

#[test]
fn broadcasts_compose_and_identities_vanish() {
    check(
        S,
        &module(
            "  x = f32[3] parameter(0)\n  y = f32[4096,1] parameter(1)",
            "  a = f32[3,5] broadcast(x), dimensions={0}
  b = f32[2,5,3] broadcast(a), dimensions={2,1}
  c = f32[4096,1] broadcast(y), dimensions={0,1}
  ROOT t = (f32[2,5,3], f32[4096,1]) tuple(b, c)",
        ),
        &module(
            "  x = f32[3] parameter(0)\n  y = f32[4096,1] parameter(1)",
            "  broadcast.1 = f32[2,5,3] broadcast(x), dimensions={2}
  ROOT t = (f32[2,5,3], f32[4096,1]) tuple(broadcast.1, y)",
        ),
    );
}

#[test]
fn constants_of_one_repeated_value_become_scalar_broadcasts() {
    check(
        S,
        &module(
            "",
            "  a = f32[2,2] constant({{1.5, 1.5}, {1.5, 1.5}})
  b = f32[2] constant({1, 2})
  c = f32[1] constant({7})
  n = f32[2] constant({nan, nan})
  ROOT t = (f32[2,2], f32[2], f32[1], f32[2]) tuple(a, b, c, n)",
        ),
        &module(
            "",
            "  constant.1 = f32[] constant(1.5)
  broadcast.1 = f32[2,2] broadcast(constant.1), dimensions={}
  b = f32[2] constant({1, 2})
  c = f32[1] constant({7})
  constant.2 = f32[] constant(nan)
  broadcast.2 = f32[2] broadcast(constant.2), dimensions={}
  ROOT t = (f32[2,2], f32[2], f32[1], f32[2]) tuple(broadcast.1, b, c, broadcast.2)",
        ),
    );
}

#[test]
fn full_slices_vanish_and_slices_of_slices_compose() {
    check(
        S,
        &module(
            "  x = f32[10,6] parameter(0)",
            "  full = f32[10,6] slice(x), slice={[0:10], [0:6]}
  a = f32[4,6] slice(full), slice={[1:9:2], [0:6]}
  b = f32[2,2] slice(a), slice={[1:4:2], [2:6:3]}
  e = f32[0,6] slice(a), slice={[4:4], [0:6]}
  ROOT t = (f32[2,2], f32[0,6]) tuple(b, e)",
        ),
        &module(
            "  x = f32[10,6] parameter(0)",
            "  slice.1 = f32[2,2] slice(x), slice={[3:8:4], [2:6:3]}
  slice.2 = f32[0,6] slice(x), slice={[1:1], [0:6]}
  ROOT t = (f32[2,2], f32[0,6]) tuple(slice.1, slice.2)",
        ),
    );
}

#[test]
fn zero_pads_and_single_concatenations_vanish() {
    check(
        S,
        &module(
            "  x = f32[3,4] parameter(0)",
            "  z = f32[] constant(0)
  p = f32[3,4] pad(x, z), padding=0_0x0_0
  q = f32[4,4] pad(x, z), padding=0_1x0_0
  c = f32[3,4] concatenate(p), dimensions={1}
  ROOT t = (f32[3,4], f32[4,4]) tuple(c, q)",
        ),
        &module(
            "  x = f32[3,4] parameter(0)",
            "  z = f32[] constant(0)
  q = f32[4,4] pad(x, z), padding=0_1x0_0
  ROOT t = (f32[3,4], f32[4,4]) tuple(x, q)",
        ),
    );
}

#[test]
fn copies_within_one_layout_vanish() {
    check(
        S,
        &module(
            "  x = f32[2,3]{1,0} parameter(0)",
            "  a = f32[2,3] copy(x)
  b = f32[2,3]{0,1} copy(x)
  ROOT t = (f32[2,3], f32[2,3]) tuple(a, b)",
        ),
        &module(
            "  x = f32[2,3]{1,0} parameter(0)",
            "  b = f32[2,3]{0,1} copy(x)
  ROOT t = (f32[2,3], f32[2,3]) tuple(x, b)",
        ),
    );
}

#[test]
fn tuple_elements_are_read_directly() {
    check(
        S,
        &module(
            "  x = f32[] parameter(0)\n  y = s32[] parameter(1)",
            "  t = (f32[], s32[]) tuple(x, y)
  ROOT g = s32[] get-tuple-element(t), index=1",
        ),
        &module("  x = f32[] parameter(0)", "  ROOT y = s32[] parameter(1)"),
    );
}

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

#[test]
fn convert_to_the_same_type_vanishes() {
    check(
        S,
        &module("  x = f32[2] parameter(0)", "  ROOT c = f32[2] convert(x)"),
        &module("  ROOT x = f32[2] parameter(0)", ""),
    );
}

#[test]
fn lossless_convert_chains_become_one_convert() {
    check(
        S,
        &module(
            "  h = f16[2] parameter(0)\n  b = s8[2] parameter(1)\n  p = pred[2] parameter(2)",
            "  h32 = f32[2] convert(h)
  h16 = f16[2] convert(h32)
  hs = s32[2] convert(h32)
  b32 = s32[2] convert(b)
  bu = u8[2] convert(b32)
  bf = f16[2] convert(b)
  bff = f32[2] convert(bf)
  pf = f32[2] convert(p)
  pu = u8[2] convert(pf)
  ROOT t = (f16[2], s32[2], u8[2], f32[2], u8[2]) tuple(h16, hs, bu, bff, pu)",
        ),
        &module(
            "  h = f16[2] parameter(0)\n  b = s8[2] parameter(1)\n  p = pred[2] parameter(2)",
            "  convert.1 = s32[2] convert(h)
  convert.2 = u8[2] convert(b)
  convert.3 = f32[2] convert(b)
  convert.4 = u8[2] convert(p)
  ROOT t = (f16[2], s32[2], u8[2], f32[2], u8[2]) tuple(h, convert.1, convert.2, convert.3, convert.4)",
        ),
    );
}

#[test]
fn lossy_convert_chains_stay() {
    unchanged(
        S,
        &module(
            "  u = u8[2] parameter(0)\n  f = f32[2] parameter(1)\n  b = bf16[2] parameter(2)\n  \
             i = s32[2] parameter(3)",
            "  uf = f32[2] convert(u)
  us = s8[2] convert(uf)
  fd = f64[2] convert(f)
  ff = f32[2] convert(fd)
  b32 = f32[2] convert(b)
  b64 = f64[2] convert(b32)
  i16 = s16[2] convert(i)
  i32 = s32[2] convert(i16)
  ih = f16[2] convert(i)
  if = f32[2] convert(ih)
  ROOT t = (s8[2], f32[2], f64[2], s32[2], f32[2]) tuple(us, ff, b64, i32, if)",
        ),
    );
}

// === chains and fixed points ===

#[test]
fn a_rewrite_feeds_the_next_within_one_run() {
    check(
        S,
        &module(
            "  x = f32[2,3] parameter(0)",
            "  a = f32[3,2] transpose(x), dimensions={1,0}
  b = f32[2,3] transpose(a), dimensions={1,0}
  c = f32[6] reshape(b)
  d = f32[2,3] reshape(c)
  ROOT n = f32[2,3] negate(d)",
        ),
        &module(
            "  x = f32[2,3] parameter(0)",
            "  ROOT n = f32[2,3] negate(x)",
        ),
    );
}

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
