//! Fusion plans of the benchmark modules and of the planner's edge cases:
//! kernel counts, kinds, and the reasons recorded for each decision.

use crate::emit_harness::suite_module;
use xla_core::hlo::InstrId;
use xla_core::HloModule;
use xla_jit::emit::Kernels;
use xla_jit::fusion::{
    plan, FusionDecision, FusionKind, FusionPlan, OperandView, Placement, Reason, StandaloneReason,
};

fn bench(name: &str) -> HloModule {
    suite_module(name).parse().unwrap()
}

fn parse(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn id(m: &HloModule, name: &str) -> InstrId {
    let comp = m.entry_computation();
    comp.ids()
        .find(|&i| comp.instr(i).name == name)
        .unwrap_or_else(|| panic!("no instruction {name}"))
}

fn kinds(p: &FusionPlan) -> Vec<FusionKind> {
    p.fusions.iter().map(|f| f.kind).collect()
}

fn reason_for(p: &FusionPlan, producer: InstrId) -> Vec<&FusionDecision> {
    p.fusions
        .iter()
        .flat_map(|f| &f.decisions)
        .filter(|d| d.producer() == producer)
        .collect()
}

/// Every instruction is an output of one fusion, a standalone op, or only
/// fused (never in memory); fusions never list an input they compute.
fn assert_consistent(m: &HloModule, p: &FusionPlan) {
    let comp = m.entry_computation();
    for id in comp.ids() {
        let outputs = p.fusions.iter().filter(|f| f.outputs.contains(&id)).count();
        let standalone = p.standalone.iter().filter(|s| s.instr == id).count();
        assert!(
            outputs + standalone <= 1,
            "{} placed twice",
            comp.instr(id).name
        );
    }
    for f in &p.fusions {
        for i in &f.inputs {
            assert!(
                !f.contains(*i),
                "{} is input and member",
                comp.instr(*i).name
            );
            assert!(
                !matches!(p.placement(*i), Placement::Fused),
                "input {} is never materialized",
                comp.instr(*i).name
            );
        }
    }
}

#[test]
fn elementwise_benchmarks_are_one_loop_kernel() {
    for name in ["ew_axpby", "ew_chain", "ew_gelu"] {
        let m = bench(name);
        let p = plan(&m, m.entry, &Kernels);
        assert_consistent(&m, &p);
        assert_eq!(kinds(&p), [FusionKind::Loop], "{name}");
        let comp = m.entry_computation();
        // Every non-parameter instruction is computed by the one kernel.
        let computed = comp
            .ids()
            .filter(|&i| comp.instr(i).opcode != xla_core::Opcode::Parameter);
        for i in computed {
            assert!(p.fusions[0].contains(i), "{name}: {}", comp.instr(i).name);
        }
        assert!(p.fusions[0]
            .inputs
            .iter()
            .all(|&i| comp.instr(i).opcode == xla_core::Opcode::Parameter));
    }
    let m = bench("ew_axpby");
    let p = plan(&m, m.entry, &Kernels);
    let mul4 = id(&m, "mul.4");
    assert!(matches!(
        reason_for(&p, mul4)[0],
        FusionDecision::Fuse {
            reason: Reason::CheapDuplicated,
            ..
        }
    ));
    let mul5 = id(&m, "mul.5");
    assert!(matches!(
        reason_for(&p, mul5)[0],
        FusionDecision::Fuse {
            reason: Reason::Elementwise,
            ..
        }
    ));
    let x = id(&m, "x.1");
    assert!(matches!(
        reason_for(&p, x)[0],
        FusionDecision::Forbid {
            reason: Reason::Buffer,
            ..
        }
    ));
}

#[test]
fn reductions_are_one_kernel() {
    for name in ["reduce_row_sum", "reduce_col_sum", "reduce_all_max"] {
        let m = bench(name);
        let p = plan(&m, m.entry, &Kernels);
        assert_consistent(&m, &p);
        assert_eq!(kinds(&p), [FusionKind::Reduction], "{name}");
        assert_eq!(p.fusions[0].inputs, [id(&m, "x.1")], "{name}");
    }
}

#[test]
fn softmax_and_layernorm_are_one_row_kernel() {
    for name in ["softmax", "layernorm"] {
        let m = bench(name);
        let p = plan(&m, m.entry, &Kernels);
        assert_consistent(&m, &p);
        assert_eq!(
            kinds(&p),
            [FusionKind::Row],
            "{name}\n{}",
            p.display(m.entry_computation())
        );
        // x is read from memory by the one kernel, and nothing else is.
        let inputs: Vec<&str> = p.fusions[0]
            .inputs
            .iter()
            .map(|&i| m.entry_computation().instr(i).name.as_str())
            .collect();
        let expected: &[&str] = if name == "softmax" {
            &["x.1"]
        } else {
            &["x.1", "scale.1", "bias.1"]
        };
        assert_eq!(inputs, expected, "{name}");
    }
    let m = bench("softmax");
    let p = plan(&m, m.entry, &Kernels);
    for r in ["reduce_max.7", "reduce_sum.7"] {
        assert!(matches!(
            reason_for(&p, id(&m, r))[0],
            FusionDecision::Fuse {
                reason: Reason::RowPass,
                ..
            }
        ));
    }
}

#[test]
fn mlp_is_two_dots_with_fused_epilogues() {
    let m = bench("mlp");
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    assert_eq!(
        kinds(&p),
        [FusionKind::DotEpilogue, FusionKind::DotEpilogue]
    );
    let first = &p.fusions[0];
    assert_eq!(first.root, id(&m, "max.3"));
    let dot = first.dot.as_ref().unwrap();
    assert_eq!(dot.dot, id(&m, "dot_general.2"));
    assert_eq!(first.inputs[dot.lhs.input], id(&m, "x.1"));
    assert_eq!(first.inputs[dot.rhs.input], id(&m, "W1.1"));
    assert!(first.contains(id(&m, "add.11")) && first.contains(id(&m, "add.10")));
    let second = &p.fusions[1];
    assert_eq!(second.root, id(&m, "add.15"));
    assert_eq!(second.dot.as_ref().unwrap().dot, id(&m, "dot_general.3"));
    assert_eq!(
        second.inputs[second.dot.as_ref().unwrap().lhs.input],
        id(&m, "max.3")
    );
}

#[test]
fn plain_dots_are_one_dot_fusion() {
    for name in ["dot_256", "dot_1024", "dot_2048", "matvec", "bmm"] {
        let m = bench(name);
        let p = plan(&m, m.entry, &Kernels);
        assert_eq!(kinds(&p), [FusionKind::DotEpilogue], "{name}");
        assert_eq!(p.fusions[0].instructions, [m.entry_computation().root]);
    }
}

#[test]
fn shared_producers_are_materialized() {
    let m = parse(
        "HloModule m
ENTRY e {
  x = f32[8]{0} parameter(0)
  e = f32[8]{0} exponential(x)
  a = f32[8]{0} negate(e)
  b = f32[8]{0} abs(e)
  ROOT t = (f32[8]{0}, f32[8]{0}) tuple(a, b)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    // a and b feed a tuple (a thunk), e feeds both: three kernels.
    assert_eq!(p.fusions.len(), 3, "{}", p.display(m.entry_computation()));
    let e = id(&m, "e");
    assert_eq!(p.placement(e), Placement::Output(0));
    let kept = reason_for(&p, e);
    assert!(kept.iter().all(|d| matches!(
        d,
        FusionDecision::Forbid {
            reason: Reason::UsersOutside { .. },
            ..
        }
    )));
    let t = id(&m, "t");
    assert!(p
        .standalone
        .iter()
        .any(|s| s.instr == t && s.reason == StandaloneReason::Thunk(xla_core::Opcode::Tuple)));
}

#[test]
fn expensive_producers_are_not_recomputed_along_broadcasts() {
    let m = parse(
        "HloModule m
ENTRY e {
  b = f32[64]{0} parameter(0)
  x = f32[32,64]{1,0} parameter(1)
  e = f32[64]{0} exponential(b)
  eb = f32[32,64]{1,0} broadcast(e), dimensions={1}
  ROOT y = f32[32,64]{1,0} add(x, eb)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    let e = id(&m, "e");
    assert!(
        matches!(
            reason_for(&p, e)[0],
            FusionDecision::Forbid {
                reason: Reason::ExpensiveReused,
                ..
            }
        ),
        "{}",
        p.display(m.entry_computation())
    );
    // Broadcast along the minor dimension instead: the value is invariant
    // in the inner loop, so it is fused.
    let m = parse(
        "HloModule m
ENTRY e {
  b = f32[32]{0} parameter(0)
  x = f32[32,64]{1,0} parameter(1)
  e = f32[32]{0} exponential(b)
  eb = f32[32,64]{1,0} broadcast(e), dimensions={0}
  ROOT y = f32[32,64]{1,0} add(x, eb)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_eq!(p.fusions.len(), 1);
}

#[test]
fn transposed_reads_record_their_stride() {
    let stride = |text: &str| {
        let m = parse(text);
        let p = plan(&m, m.entry, &Kernels);
        assert_eq!(kinds(&p), [FusionKind::Loop]);
        p.fusions[0].transposed_read_stride
    };
    // A copy into the other layout reads `p` down its columns: 1024
    // elements of 4 bytes apart.
    assert_eq!(
        stride(
            "HloModule m
ENTRY e {
  p = f32[512,1024]{1,0} parameter(0)
  ROOT c = f32[512,1024]{0,1} copy(p)
}"
        ),
        Some(4096)
    );
    // A transpose of the middle dimensions added to a row-major operand:
    // the transposed input's rows (along `s`) are 12·64 f64 apart; `q`
    // is read along its rows and does not count.
    assert_eq!(
        stride(
            "HloModule m
ENTRY e {
  p = f64[2,128,12,64]{3,2,1,0} parameter(0)
  q = f64[2,12,64,128]{3,2,1,0} parameter(1)
  t = f64[2,12,64,128]{3,2,1,0} transpose(p), dimensions={0,2,3,1}
  ROOT a = f64[2,12,64,128]{3,2,1,0} add(t, q)
}"
        ),
        Some(12 * 64 * 8)
    );
    // Heads swapped with positions keep each row's minor dimension: no
    // transposed read.
    assert_eq!(
        stride(
            "HloModule m
ENTRY e {
  p = f32[2,128,12,64]{3,2,1,0} parameter(0)
  ROOT t = f32[2,12,128,64]{3,2,1,0} transpose(p), dimensions={0,2,1,3}
}"
        ),
        None
    );
}

#[test]
fn dynamic_update_slice_is_in_place() {
    let m = parse(
        "HloModule m
ENTRY e {
  x = f32[16]{0} parameter(0)
  u = f32[4]{0} parameter(1)
  i = s32[] parameter(2)
  n = f32[4]{0} negate(u)
  ROOT d = f32[16]{0} dynamic-update-slice(x, n, i)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    let f = &p.fusions[0];
    assert_eq!(f.kind, FusionKind::Loop);
    let ip = f.in_place.unwrap();
    assert_eq!(f.inputs[ip.input], id(&m, "x"));
    assert!(f.contains(id(&m, "n")));
    assert!(matches!(
        reason_for(&p, id(&m, "x"))[0],
        FusionDecision::Forbid {
            reason: Reason::InPlaceOperand,
            ..
        }
    ));
}

#[test]
fn row_fusion_needs_the_reduced_dimensions_minor() {
    // The reduce runs over dimension 0, which is major: not a row pass.
    let m = parse(
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[32,64]{1,0} parameter(0)
  z = f32[] constant(0)
  r = f32[64]{0} reduce(x, z), dimensions={0}, to_apply=add
  rb = f32[32,64]{1,0} broadcast(r), dimensions={1}
  ROOT y = f32[32,64]{1,0} subtract(x, rb)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    assert_eq!(kinds(&p), [FusionKind::Reduction, FusionKind::Loop]);
    assert!(matches!(
        reason_for(&p, id(&m, "r"))[0],
        FusionDecision::Forbid {
            reason: Reason::NotRowPass(_),
            ..
        }
    ));
}

/// A mean down the columns (`x.mean(0)` of a row-major `x`) is a column
/// reduction and its divide a loop over the result: fused as a row pass,
/// the reduce walked each column with a stride of one row (12 ms against
/// 0.35 for f32[4096,1024]). Over the minor dimension of a column-major
/// operand the same reduce is a row pass.
#[test]
fn column_reductions_are_not_row_passes_of_their_users() {
    let module = |layout: &str| {
        parse(&format!(
            "HloModule m
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[32,64]{{{layout}}} parameter(0)
  z = f32[] constant(0)
  r = f32[64]{{0}} reduce(x, z), dimensions={{0}}, to_apply=add
  n = f32[] constant(32)
  nb = f32[64]{{0}} broadcast(n), dimensions={{}}
  ROOT mean = f32[64]{{0}} divide(r, nb)
}}"
        ))
    };
    let m = module("1,0");
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    assert_eq!(kinds(&p), [FusionKind::Reduction, FusionKind::Loop]);
    assert!(matches!(
        &reason_for(&p, id(&m, "r"))[0],
        FusionDecision::Forbid {
            reason: Reason::NotRowPass(why),
            ..
        } if why.contains("column reduction")
    ));
    let m = module("0,1");
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    assert_eq!(kinds(&p), [FusionKind::Row]);
}

#[test]
fn transposed_dot_operands_are_absorbed() {
    let m = parse(
        "HloModule m
ENTRY e {
  a = f32[8,4]{1,0} parameter(0)
  b = f32[8,6]{1,0} parameter(1)
  at = f32[4,8]{1,0} transpose(a), dimensions={1,0}
  ROOT d = f32[4,6]{1,0} dot(at, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_eq!(p.fusions.len(), 1);
    let f = &p.fusions[0];
    let dot = f.dot.as_ref().unwrap();
    assert_eq!(f.inputs[dot.lhs.input], id(&m, "a"));
    assert_eq!(dot.lhs.view, OperandView::Transpose(vec![1, 0]));
    assert_eq!(dot.rhs.view, OperandView::Buffer);
    assert!(matches!(
        reason_for(&p, id(&m, "at"))[0],
        FusionDecision::Fuse {
            reason: Reason::TransposeAbsorbed,
            ..
        }
    ));
}

/// An RNN step, `tanh(x·Wx + h·Wh + b)`: the epilogue of one dot may read
/// another dot's result, but a region holds one dot (the engine runs one per
/// fusion), so the other dot is its own fusion and an input.
const TWO_DOTS_ADDED: &str = "HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  wx = f32[3,4]{1,0} parameter(1)
  h = f32[2,4]{1,0} parameter(2)
  wh = f32[4,4]{1,0} parameter(3)
  b = f32[4]{0} parameter(4)
  dx = f32[2,4]{1,0} dot(x, wx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dh = f32[2,4]{1,0} dot(h, wh), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  sum = f32[2,4]{1,0} add(dx, dh)
  bb = f32[2,4]{1,0} broadcast(b), dimensions={1}
  pre = f32[2,4]{1,0} add(sum, bb)
  ROOT t = f32[2,4]{1,0} tanh(pre)
}";

#[test]
fn a_dot_epilogue_holds_one_dot() {
    let m = parse(TWO_DOTS_ADDED);
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    assert_eq!(
        kinds(&p),
        [FusionKind::DotEpilogue, FusionKind::DotEpilogue],
        "{}",
        p.display(m.entry_computation())
    );
    let (dx, dh) = (id(&m, "dx"), id(&m, "dh"));
    let epilogue = p.fusions.iter().find(|f| f.root == id(&m, "t")).unwrap();
    let fused_dot = epilogue.dot.as_ref().unwrap().dot;
    let other = if fused_dot == dx { dh } else { dx };
    assert!(fused_dot == dx || fused_dot == dh);
    assert!(epilogue.contains(fused_dot) && !epilogue.contains(other));
    assert!(epilogue.inputs.contains(&other));
    assert!(reason_for(&p, other).iter().any(|d| matches!(
        d,
        FusionDecision::Forbid {
            reason: Reason::NotEpilogue(why),
            ..
        } if why.contains("already holds")
    )));
    let alone = p.fusions.iter().find(|f| f.root == other).unwrap();
    assert_eq!(alone.instructions, [other]);
}

/// A transpose into the other layout is a bitcast after layout assignment;
/// with square dimensions its sizes pair one for one, but it reads the dot
/// at `(j, i)`: not an epilogue. A bitcast that keeps the layout is.
#[test]
fn a_layout_swapping_bitcast_is_not_a_dot_epilogue() {
    let product_as = |layout: &str| {
        parse(&format!(
            "HloModule m
ENTRY e {{
  a = f32[4,6]{{1,0}} parameter(0)
  x = f32[4,6]{{1,0}} parameter(1)
  d = f32[6,6]{{1,0}} dot(a, x), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  ROOT t = f32[6,6]{layout} bitcast(d)
}}"
        ))
    };
    let m = product_as("{0,1}");
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    let d = id(&m, "d");
    let dot_fusion = p.fusions.iter().find(|f| f.root == d).unwrap();
    assert_eq!(dot_fusion.instructions, [d]);
    assert!(matches!(
        reason_for(&p, d)[0],
        FusionDecision::Forbid {
            reason: Reason::NotEpilogue(_),
            ..
        }
    ));
    let m = product_as("{1,0}");
    let p = plan(&m, m.entry, &Kernels);
    assert_eq!(kinds(&p), [FusionKind::DotEpilogue]);
    assert!(p.fusions[0].contains(id(&m, "d")));
}

#[test]
fn unsupported_ops_are_left_to_the_interpreter() {
    let m = parse(
        "HloModule m
ENTRY e {
  x = f32[<=8]{0} parameter(0)
  ROOT r = f32[<=8]{0} negate(x)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert!(p.fusions.is_empty());
    let fallback: Vec<_> = p.fallback_ops().collect();
    assert_eq!(fallback.len(), 1);
    assert_eq!(fallback[0].instr, id(&m, "r"));
}

/// An unused instruction is left out, unless it has a side effect (a
/// collective with a channel): fuzzing found the JIT skipping a dead
/// all-to-all that the interpreter runs (and fails on).
#[test]
fn dead_side_effects_still_run() {
    let m = parse(
        "HloModule m
ENTRY e {
  x = s32[1,16]{1,0} parameter(0)
  a = s32[1,16]{1,0} all-to-all(x), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={1}
  b = s32[1,16]{1,0} all-to-all(x), replica_groups={{0}}, dimensions={1}
  ROOT n = s32[1,16]{1,0} negate(x)
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    let reason = |name: &str| {
        p.standalone
            .iter()
            .find(|s| s.instr == id(&m, name))
            .map(|s| s.reason.clone())
    };
    assert!(
        matches!(
            reason("a"),
            Some(StandaloneReason::Thunk(_) | StandaloneReason::Unsupported(_))
        ),
        "{:?}",
        reason("a")
    );
    assert_eq!(reason("b"), Some(StandaloneReason::Unused));
    let err = xla_jit::Client::cpu()
        .unwrap()
        .compile(&m)
        .unwrap()
        .execute(&[&xla_core::Literal::zeros(&"s32[1,16]".parse().unwrap()).unwrap()])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a (all-to-all): replica_groups name partition 1, but the run has 1 partitions"
    );
}

#[test]
fn loop_bodies_plan_like_any_computation() {
    let m = parse(
        "HloModule m
cond {
  s = (s32[], f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[8]{0} broadcast(h), dimensions={}
  w = f32[8]{0} multiply(v, hb)
  ROOT t = (s32[], f32[8]{0}) tuple(j, w)
}
ENTRY e {
  x = f32[8]{0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[8]{0}) tuple(z, x)
  ROOT w = (s32[], f32[8]{0}) while(t), condition=cond, body=body
}",
    );
    let entry = plan(&m, m.entry, &Kernels);
    assert!(entry.fusions.is_empty());
    let reasons: Vec<_> = entry.standalone.iter().map(|s| s.reason.clone()).collect();
    assert_eq!(
        reasons,
        [
            StandaloneReason::Parameter,
            StandaloneReason::Constant,
            StandaloneReason::Thunk(xla_core::Opcode::Tuple),
            StandaloneReason::Thunk(xla_core::Opcode::While),
        ]
    );
    let body = m.find_computation("body").unwrap();
    let p = plan(&m, body, &Kernels);
    // j and w are separate kernels (different shapes, both feed the tuple).
    assert_eq!(kinds(&p), [FusionKind::Loop, FusionKind::Loop]);
    let cond = m.find_computation("cond").unwrap();
    let p = plan(&m, cond, &Kernels);
    assert_eq!(kinds(&p), [FusionKind::Loop]);
    assert_eq!(
        p.fusions[0].instructions.len(),
        2,
        "the compare and its constant"
    );
}

#[test]
fn dynamic_dimensions_are_left_to_the_interpreter() {
    let m = parse(
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[10]{0} parameter(0)
  n = s32[] parameter(1)
  d = f32[<=10]{0} set-dimension-size(x, n), dimensions={0}
  z = f32[] constant(0)
  ROOT r = f32[] reduce(d, z), dimensions={0}, to_apply=add
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert!(p.fusions.is_empty(), "{}", p.display(m.entry_computation()));
    assert_eq!(p.fallback_ops().next().unwrap().instr, id(&m, "r"));
}

/// `steps` steps of `y = max(y, -0.5)·0.9 + roll(y, 1)·0.1` on f32[5,7]
/// (`roll` as JAX lowers it: a concatenate of two slices). Each step reads
/// `y` at three indices per element.
fn roll_chain(steps: usize) -> HloModule {
    let mut body = String::from(
        "  y0 = f32[5,7]{1,0} parameter(0)
  lo = f32[] constant(-0.5)
  los = f32[5,7]{1,0} broadcast(lo), dimensions={}
  a = f32[] constant(0.9)
  as = f32[5,7]{1,0} broadcast(a), dimensions={}
  b = f32[] constant(0.1)
  bs = f32[5,7]{1,0} broadcast(b), dimensions={}
",
    );
    for s in 0..steps {
        let (y, next) = (format!("y{s}"), format!("y{}", s + 1));
        let root = if s + 1 == steps { "ROOT " } else { "" };
        body += &format!(
            "  m{s} = f32[5,7]{{1,0}} maximum({y}, los)
  p{s} = f32[5,7]{{1,0}} multiply(m{s}, as)
  last{s} = f32[5,1]{{1,0}} slice({y}), slice={{[0:5], [6:7]}}
  rest{s} = f32[5,6]{{1,0}} slice({y}), slice={{[0:5], [0:6]}}
  r{s} = f32[5,7]{{1,0}} concatenate(last{s}, rest{s}), dimensions={{1}}
  q{s} = f32[5,7]{{1,0}} multiply(r{s}, bs)
  {root}{next} = f32[5,7]{{1,0}} add(p{s}, q{s})
"
        );
    }
    parse(&format!("HloModule roll_chain\nENTRY e {{\n{body}}}"))
}

#[test]
fn producers_read_at_many_indices_per_element_are_materialized() {
    // Fused whole, the first step would be computed 3^11 times per element.
    let m = roll_chain(12);
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    let cuts: Vec<u64> = p
        .fusions
        .iter()
        .flat_map(|f| &f.decisions)
        .filter_map(|d| match d {
            FusionDecision::Forbid {
                reason: Reason::CodeDuplication { emissions },
                ..
            } => Some(*emissions),
            _ => None,
        })
        .collect();
    // A kernel computes its root's step once, the step before 3 times and
    // the one before that 9 times; a fourth would be 27: every third
    // step's result is materialized, four kernels for twelve steps.
    assert!(!cuts.is_empty(), "{}", p.display(m.entry_computation()));
    assert!(cuts.iter().all(|&e| e == 27), "{cuts:?}");
    assert_eq!(p.fusions.len(), 4, "{}", p.display(m.entry_computation()));
    // Two steps fuse whole (the parameter is read 9 times per element).
    let m = roll_chain(2);
    let p = plan(&m, m.entry, &Kernels);
    assert_eq!(p.fusions.len(), 1);
}

/// Code copies multiply through the operand slots of concatenates, where
/// each slot is a branch of its own, and not through users that share a
/// value at one index: a chain of `y = y * y + y` steps stays one kernel,
/// while a value filling 81 slots of nested concatenates is materialized.
#[test]
fn code_copies_multiply_through_concatenate_slots_only() {
    let mut chain = String::from(
        "HloModule m\nENTRY e {\n  x = f32[64]{0} parameter(0)\n  y0 = f32[64]{0} exponential(x)\n",
    );
    for k in 0..8 {
        chain += &format!(
            "  m{k} = f32[64]{{0}} multiply(y{k}, y{k})\n  y{} = f32[64]{{0}} add(m{k}, y{k})\n",
            k + 1
        );
    }
    chain += "  ROOT r = f32[64]{0} negate(y8)\n}";
    let m = parse(&chain);
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    assert_eq!(p.fusions.len(), 1, "{}", p.display(m.entry_computation()));

    let m = parse(
        "HloModule m
ENTRY e {
  x = u8[3]{0} parameter(0)
  c3 = u8[27]{0} concatenate(x, x, x, x, x, x, x, x, x), dimensions={0}
  c4 = u8[243]{0} concatenate(c3, c3, c3, c3, c3, c3, c3, c3, c3), dimensions={0}
  ROOT c5 = u8[2187]{0} concatenate(c4, c4, c4, c4, c4, c4, c4, c4, c4), dimensions={0}
}",
    );
    let p = plan(&m, m.entry, &Kernels);
    assert_consistent(&m, &p);
    let kept = reason_for(&p, id(&m, "c3"));
    assert!(
        kept.iter().any(|d| matches!(
            d,
            FusionDecision::Forbid {
                reason: Reason::CodeCopies { copies: 81 },
                ..
            }
        )),
        "{}",
        p.display(m.entry_computation())
    );
}
