//! Dead-code elimination, common-subexpression elimination and call
//! inlining: each test runs one pass and compares the whole module text.

use crate::passes_support;

use passes_support::{check, unchanged};
use xla_core::hlo::Opcode;
use xla_core::passes::{Changed, Cse, Dce, InlineCalls, InlineFusions, Pass};
use xla_core::verify::verify_module;
use xla_core::HloModule;

// === dead-code elimination ===

#[test]
fn dce_removes_unused_instructions_and_their_operands() {
    check(
        Dce,
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(2)
  b = f32[4] broadcast(c), dimensions={}
  dead = f32[4] multiply(x, b)
  ROOT n = f32[4] negate(x)
}",
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}",
    );
}

#[test]
fn dce_keeps_parameters_and_side_effects() {
    unchanged(
        Dce,
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  unused = f32[4] parameter(1)
  t = token[] after-all()
  o = token[] outfeed(x, t), outfeed_shape=f32[4]{0}
  c = f32[] constant(0)
  r = f32[] constant(1)
  draw = f32[4] rng(c, r), distribution=rng_uniform
  cc = f32[4] custom-call(x), custom_call_target=\"log\", custom_call_has_side_effect=true
  ROOT n = f32[4] negate(x)
}",
    );
}

#[test]
fn dce_removes_pure_custom_calls_and_channel_free_collectives() {
    check(
        Dce,
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  cc = f32[4] custom-call(x), custom_call_target=\"pure\"
  ar = f32[4] all-reduce(x), replica_groups={}, to_apply=add
  ROOT n = f32[4] negate(x)
}",
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}",
    );
}

#[test]
fn dce_keeps_instructions_calling_side_effecting_computations() {
    unchanged(
        Dce,
        "HloModule m

body {
  p = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  t = token[] get-tuple-element(p), index=1
  o = token[] outfeed(i, t), outfeed_shape=s32[]
  ROOT r = (s32[], token[]) tuple(i, o)
}

cond {
  q = (s32[], token[]) parameter(0)
  ROOT f = pred[] constant(false)
}

ENTRY e {
  x = s32[] parameter(0)
  t0 = token[] after-all()
  init = (s32[], token[]) tuple(x, t0)
  loop = (s32[], token[]) while(init), condition=cond, body=body
  ROOT n = s32[] negate(x)
}",
    );
}

#[test]
fn dce_removes_unreachable_computations_and_renumbers_callees() {
    check(
        Dce,
        "HloModule m

unused {
  u = f32[] parameter(0)
  ROOT nu = f32[] negate(u)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

called_by_dead_code {
  a2 = f32[] parameter(0)
  b2 = f32[] parameter(1)
  ROOT m2 = f32[] minimum(a2, b2)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  dead = f32[] reduce(x, c), dimensions={0}, to_apply=called_by_dead_code
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=max
}",
        "HloModule m

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=max
}",
    );
}

#[test]
fn dce_cleans_called_computations_too() {
    check(
        Dce,
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  dead = f32[] multiply(a, b)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=add
}",
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=add
}",
    );
}

// === common-subexpression elimination ===

#[test]
fn cse_merges_equal_instructions_and_their_users() {
    check(
        Cse,
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  b = f32[4] exponential(x)
  na = f32[4] negate(a)
  nb = f32[4] negate(b)
  ROOT s = f32[4] add(na, nb)
}",
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] exponential(x)
  na = f32[4] negate(a)
  ROOT s = f32[4] add(na, na)
}",
    );
}

#[test]
fn cse_swaps_operands_of_commutative_ops_only() {
    check(
        Cse,
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, y)
  b = f32[4] add(y, x)
  s1 = f32[4] subtract(x, y)
  s2 = f32[4] subtract(y, x)
  e1 = pred[4] compare(x, y), direction=EQ
  e2 = pred[4] compare(y, x), direction=EQ
  l1 = pred[4] compare(x, y), direction=LT
  l2 = pred[4] compare(y, x), direction=LT
  ROOT t = (f32[4], f32[4], f32[4], f32[4], pred[4], pred[4], pred[4], pred[4]) tuple(a, b, s1, s2, e1, e2, l1, l2)
}",
        "HloModule m

ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, y)
  s1 = f32[4] subtract(x, y)
  s2 = f32[4] subtract(y, x)
  e1 = pred[4] compare(x, y), direction=EQ
  l1 = pred[4] compare(x, y), direction=LT
  l2 = pred[4] compare(y, x), direction=LT
  ROOT t = (f32[4], f32[4], f32[4], f32[4], pred[4], pred[4], pred[4], pred[4]) tuple(a, a, s1, s2, e1, e1, l1, l2)
}",
    );
}

#[test]
fn cse_compares_constants_bit_for_bit() {
    check(
        Cse,
        "HloModule m

ENTRY e {
  a = f32[2] constant({nan, -0})
  b = f32[2] constant({nan, -0})
  c = f32[2] constant({nan, 0})
  d = f32[2] constant({-nan, -0})
  e = f32[2] constant({nan(0x1), -0})
  f = s32[2] constant({0, 0})
  ROOT t = (f32[2], f32[2], f32[2], f32[2], f32[2], s32[2]) tuple(a, b, c, d, e, f)
}",
        "HloModule m

ENTRY e {
  a = f32[2] constant({nan, -0})
  c = f32[2] constant({nan, 0})
  d = f32[2] constant({-nan, -0})
  e = f32[2] constant({nan(0x1), -0})
  f = s32[2] constant({0, 0})
  ROOT t = (f32[2], f32[2], f32[2], f32[2], f32[2], s32[2]) tuple(a, a, c, d, e, f)
}",
    );
}

#[test]
fn cse_respects_attributes_shapes_layouts_and_callees() {
    unchanged(
        Cse,
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

add2 {
  a2 = f32[] parameter(0)
  b2 = f32[] parameter(1)
  ROOT s2 = f32[] add(a2, b2)
}

ENTRY e {
  x = f32[2,3] parameter(0)
  c = f32[] constant(0)
  r0 = f32[3] reduce(x, c), dimensions={0}, to_apply=add
  r1 = f32[2] reduce(x, c), dimensions={1}, to_apply=add
  r2 = f32[3] reduce(x, c), dimensions={0}, to_apply=add2
  c0 = f32[2,3]{1,0} copy(x)
  c1 = f32[2,3]{0,1} copy(x)
  s0 = s32[2,3] convert(x)
  s1 = u32[2,3] convert(x)
  ROOT t = (f32[3], f32[2], f32[3], f32[2,3], f32[2,3], s32[2,3], u32[2,3]) tuple(r0, r1, r2, c0, c1, s0, s1)
}",
    );
}

#[test]
fn cse_never_merges_side_effects_or_random_draws() {
    unchanged(
        Cse,
        "HloModule m

ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  a = f32[4] rng(lo, hi), distribution=rng_uniform
  b = f32[4] rng(lo, hi), distribution=rng_uniform
  t = token[] after-all()
  i1 = (f32[4], token[]) infeed(t)
  i2 = (f32[4], token[]) infeed(t)
  ROOT r = (f32[4], f32[4], (f32[4], token[]), (f32[4], token[])) tuple(a, b, i1, i2)
}",
    );
}

#[test]
fn cse_merges_in_called_computations() {
    check(
        Cse,
        "HloModule m

f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ab = f32[] multiply(a, b)
  ba = f32[] multiply(b, a)
  ROOT s = f32[] add(ab, ba)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=f
}",
        "HloModule m

f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ab = f32[] multiply(a, b)
  ROOT s = f32[] add(ab, ab)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x, c), dimensions={0}, to_apply=f
}",
    );
}

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

#[test]
fn inlining_splices_the_callee_with_fresh_names() {
    check(
        InlineCalls,
        "HloModule m

relu {
  a = f32[4] parameter(0)
  zero = f32[] constant(0)
  b = f32[4] broadcast(zero), dimensions={}
  ROOT m = f32[4] maximum(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  r = f32[4] call(n), to_apply=relu
  ROOT s = f32[4] add(r, x)
}",
        "HloModule m

relu {
  a = f32[4] parameter(0)
  zero = f32[] constant(0)
  b = f32[4] broadcast(zero), dimensions={}
  ROOT m = f32[4] maximum(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  zero.1 = f32[] constant(0)
  b.1 = f32[4] broadcast(zero.1), dimensions={}
  m.1 = f32[4] maximum(n, b.1)
  ROOT s = f32[4] add(m.1, x)
}",
    );
}

#[test]
fn inlining_handles_nested_calls_parameter_roots_and_tuples() {
    check(
        InlineCalls,
        "HloModule m

id {
  p0 = f32[] parameter(0)
  ROOT p1 = f32[] parameter(1)
}

inner {
  c = f32[] parameter(0)
  ROOT n = f32[] negate(c)
}

outer {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = f32[] call(b), to_apply=inner
  ROOT t = (f32[], f32[]) tuple(i, a)
}

ENTRY e {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  k = f32[] call(x, y), to_apply=id
  o = (f32[], f32[]) call(x, k), to_apply=outer
  ROOT g = f32[] get-tuple-element(o), index=0
}",
        "HloModule m

id {
  p0 = f32[] parameter(0)
  ROOT p1 = f32[] parameter(1)
}

inner {
  c = f32[] parameter(0)
  ROOT n = f32[] negate(c)
}

outer {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  n.1 = f32[] negate(b)
  ROOT t = (f32[], f32[]) tuple(n.1, a)
}

ENTRY e {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  n.2 = f32[] negate(y)
  t.1 = (f32[], f32[]) tuple(n.2, x)
  ROOT g = f32[] get-tuple-element(t.1), index=0
}",
    );
}

#[test]
fn inlining_reaches_calls_inside_loops_and_leaves_fusions() {
    check(
        InlineCalls,
        "HloModule m

double {
  a = s32[] parameter(0)
  ROOT d = s32[] add(a, a)
}

fused {
  f0 = s32[] parameter(0)
  ROOT n = s32[] negate(f0)
}

body {
  p = s32[] parameter(0)
  ROOT c = s32[] call(p), to_apply=double
}

cond {
  q = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(q, ten), direction=LT
}

ENTRY e {
  x = s32[] parameter(0)
  w = s32[] while(x), condition=cond, body=body
  ROOT f = s32[] fusion(w), kind=kLoop, calls=fused
}",
        "HloModule m

double {
  a = s32[] parameter(0)
  ROOT d = s32[] add(a, a)
}

fused {
  f0 = s32[] parameter(0)
  ROOT n = s32[] negate(f0)
}

body {
  p = s32[] parameter(0)
  ROOT d.1 = s32[] add(p, p)
}

cond {
  q = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(q, ten), direction=LT
}

ENTRY e {
  x = s32[] parameter(0)
  w = s32[] while(x), condition=cond, body=body
  ROOT f = s32[] fusion(w), kind=kLoop, calls=fused
}",
    );
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
