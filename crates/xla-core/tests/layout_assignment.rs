//! Layout assignment and the layout cleanup: exact results on small
//! modules, the entry signature kept, copies only where required layouts
//! conflict, and every fixture and benchmark module through the whole
//! pipeline.

use crate::passes_support;

use std::fs;
use std::path::{Path, PathBuf};

use passes_support::{canonical, parse};
use xla_core::hlo::{HloInstruction, Opcode};
use xla_core::layout::Layout;
use xla_core::passes::layout_assignment::{
    Constraint, LayoutAssignment, LayoutConstraints, Unconstrained,
};
use xla_core::passes::{optimize, run_pass, Changed, LayoutCleanup, Pass, PipelineOptions};
use xla_core::verify::verify_module;
use xla_core::{ArrayShape, HloModule, Shape};

/// What the brief expects of the Cranelift backend: dots read dense
/// operands in any layout and write row-major results.
struct Gemm;

impl LayoutConstraints for Gemm {
    fn result_layout(&self, instr: &HloInstruction, _operands: &[&Shape]) -> Constraint {
        match (instr.opcode, instr.shape.as_array()) {
            (Opcode::Dot, Some(a)) => Constraint::Require(Layout::default_for_rank(a.rank())),
            _ => Constraint::Free,
        }
    }

    fn operand_layout(
        &self,
        instr: &HloInstruction,
        _k: usize,
        operand: &ArrayShape,
        _result: &Shape,
    ) -> Constraint {
        let dense = operand.layout().is_none_or(Layout::is_dense);
        if instr.opcode == Opcode::Dot && !dense {
            Constraint::Require(Layout::default_for_rank(operand.rank()))
        } else {
            Constraint::Free
        }
    }
}

/// A strict backend whose element-wise kernels need every operand in the
/// result's layout.
struct SameLayoutOnly;

impl LayoutConstraints for SameLayoutOnly {
    fn operand_layout(
        &self,
        instr: &HloInstruction,
        _k: usize,
        operand: &ArrayShape,
        result: &Shape,
    ) -> Constraint {
        match result.as_array() {
            Some(r)
                if instr.opcode.family() == xla_core::hlo::Family::Elementwise
                    && r.rank() == operand.rank() =>
            {
                Constraint::Require(r.layout_or_default())
            }
            _ => Constraint::Free,
        }
    }
}

/// Runs layout assignment and the cleanup (each verified) on `text`.
fn assign(constraints: &dyn LayoutConstraints, text: &str) -> HloModule {
    let mut module = parse(text);
    verify_module(&module).unwrap_or_else(|e| panic!("test module is invalid: {e}"));
    let _ = run_pass(&mut LayoutAssignment::new(constraints), &mut module, true).unwrap();
    let _ = run_pass(&mut LayoutCleanup, &mut module, true).unwrap();
    module
}

#[track_caller]
fn check(constraints: &dyn LayoutConstraints, before: &str, after: &str) {
    let actual = assign(constraints, before).to_string();
    let expected = canonical(after);
    assert_eq!(
        actual, expected,
        "\n--- actual ---\n{actual}\n--- expected ---\n{expected}"
    );
}

fn count(module: &HloModule, opcode: Opcode) -> usize {
    module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .filter(|i| i.opcode == opcode)
        .count()
}

#[test]
fn a_transpose_feeding_a_dot_becomes_a_bitcast() {
    check(
        &Gemm,
        "HloModule m

ENTRY e {
  a = f32[64,32] parameter(0)
  b = f32[64,16] parameter(1)
  t = f32[32,64] transpose(a), dimensions={1,0}
  ROOT d = f32[32,16] dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
        "HloModule m

ENTRY e {
  a = f32[64,32]{1,0} parameter(0)
  b = f32[64,16]{1,0} parameter(1)
  t = f32[32,64]{0,1} bitcast(a)
  ROOT d = f32[32,16]{1,0} dot(t, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
}

#[test]
fn a_column_major_entry_layout_is_kept_without_copies() {
    check(
        &Unconstrained,
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

ENTRY e {
  x = f32[2,3] parameter(0)
  n = f32[2,3] negate(x)
  c = f32[] constant(1)
  b = f32[2,3] broadcast(c), dimensions={}
  ROOT s = f32[2,3] add(n, b)
}",
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  n = f32[2,3]{0,1} negate(x)
  c = f32[] constant(1)
  b = f32[2,3]{0,1} broadcast(c), dimensions={}
  ROOT s = f32[2,3]{0,1} add(n, b)
}",
    );
}

#[test]
fn element_wise_ops_read_other_layouts_unless_the_backend_requires_theirs() {
    let text = "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}

ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(x)
}";
    check(
        &Unconstrained,
        text,
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(x)
}",
    );
    check(
        &SameLayoutOnly,
        text,
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  copy.1 = f32[2,3]{1,0} copy(x)
  ROOT n = f32[2,3]{1,0} negate(copy.1)
}",
    );
}

#[test]
fn conflicting_requirements_cost_exactly_one_copy() {
    // `s` is required column-major by both LAPACK calls and row-major by
    // the entry result: one copy serves both calls.
    let module = assign(
        &Unconstrained,
        "HloModule m, entry_computation_layout={(f32[4,4]{1,0}, f32[4,2]{0,1})->(f32[4,4]{1,0}, f32[4,2]{0,1}, f32[4,2]{0,1})}

ENTRY e {
  a = f32[4,4] parameter(0)
  b = f32[4,2] parameter(1)
  s = f32[4,4] negate(a)
  t1 = f32[4,2]{0,1} custom-call(s, b), custom_call_target=\"trsm\", operand_layout_constraints={f32[4,4]{0,1}, f32[4,2]{0,1}}
  t2 = f32[4,2]{0,1} custom-call(s, b), custom_call_target=\"trsm2\", operand_layout_constraints={f32[4,4]{0,1}, f32[4,2]{0,1}}
  ROOT r = (f32[4,4], f32[4,2], f32[4,2]) tuple(s, t1, t2)
}",
    );
    assert_eq!(count(&module, Opcode::Copy), 1, "{module}");
    assert_eq!(
        module.to_string(),
        canonical(
            "HloModule m, entry_computation_layout={(f32[4,4]{1,0}, f32[4,2]{0,1})->(f32[4,4]{1,0}, f32[4,2]{0,1}, f32[4,2]{0,1})}

ENTRY e {
  a = f32[4,4]{1,0} parameter(0)
  b = f32[4,2]{0,1} parameter(1)
  s = f32[4,4]{1,0} negate(a)
  copy.1 = f32[4,4]{0,1} copy(s)
  t1 = f32[4,2]{0,1} custom-call(copy.1, b), custom_call_target=\"trsm\", operand_layout_constraints={f32[4,4]{0,1}, f32[4,2]{0,1}}
  t2 = f32[4,2]{0,1} custom-call(copy.1, b), custom_call_target=\"trsm2\", operand_layout_constraints={f32[4,4]{0,1}, f32[4,2]{0,1}}
  ROOT r = (f32[4,4]{1,0}, f32[4,2]{0,1}, f32[4,2]{0,1}) tuple(s, t1, t2)
}"
        )
    );
}

#[test]
fn a_required_layout_is_produced_directly_when_nothing_conflicts() {
    // Nobody else constrains `s`, so it is computed column-major for the
    // custom call: no copy. Its constant operand is laid out to match.
    check(
        &Unconstrained,
        "HloModule m

ENTRY e {
  a = f32[2,2] parameter(0)
  k = f32[2,2] constant({{1, 2}, {3, 4}})
  s = f32[2,2] add(a, k)
  ROOT c = f32[2,2]{0,1} custom-call(s), custom_call_target=\"f\", operand_layout_constraints={f32[2,2]{0,1}}
}",
        "HloModule m

ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  k = f32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })
  s = f32[2,2]{0,1} add(a, k)
  ROOT c = f32[2,2]{0,1} custom-call(s), custom_call_target=\"f\", operand_layout_constraints={f32[2,2]{0,1}}
}",
    );
}

#[test]
fn transposes_and_reshapes_that_move_no_byte_become_bitcasts() {
    check(
        &Unconstrained,
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[6,4] parameter(0)
  t = f32[4,6] transpose(x), dimensions={1,0}
  r = f32[4,2,3] reshape(t)
  e = f32[4,2,3] exponential(r)
  z = f32[] constant(0)
  ROOT sum = f32[4] reduce(e, z), dimensions={1,2}, to_apply=add
}",
        "HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[6,4]{1,0} parameter(0)
  t = f32[4,6]{0,1} bitcast(x)
  r = f32[4,2,3]{0,2,1} bitcast(t)
  e = f32[4,2,3]{0,2,1} exponential(r)
  z = f32[] constant(0)
  ROOT sum = f32[4]{0} reduce(e, z), dimensions={1,2}, to_apply=add
}",
    );
}

#[test]
fn a_result_required_row_major_pulls_the_transpose_to_its_end() {
    // Working backwards from the row-major result keeps the reshapes free
    // and makes the transpose the one op that moves data.
    check(
        &Unconstrained,
        "HloModule m

ENTRY e {
  x = f32[6,4] parameter(0)
  t = f32[4,6] transpose(x), dimensions={1,0}
  r = f32[4,2,3] reshape(t)
  e = f32[4,2,3] exponential(r)
  ROOT s = f32[4,2,3,1] reshape(e)
}",
        "HloModule m

ENTRY e {
  x = f32[6,4]{1,0} parameter(0)
  t = f32[4,6]{1,0} transpose(x), dimensions={1,0}
  r = f32[4,2,3]{2,1,0} bitcast(t)
  e = f32[4,2,3]{2,1,0} exponential(r)
  ROOT s = f32[4,2,3,1]{3,2,1,0} bitcast(e)
}",
    );
}

#[test]
fn a_reshape_with_no_bitcast_layout_stays_a_reshape() {
    check(
        &Unconstrained,
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[6]{0}}

ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT r = f32[6] reshape(x)
}",
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[6]{0}}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT r = f32[6]{0} reshape(x)
}",
    );
}

#[test]
fn loop_boundaries_are_row_major() {
    check(
        &Unconstrained,
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

body {
  p = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(p)
}

cond {
  q = f32[2,3] parameter(0)
  ROOT f = pred[] constant(false)
}

ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT w = f32[2,3] while(x), condition=cond, body=body
}",
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

body {
  p = f32[2,3]{1,0} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(p)
}

cond {
  q = f32[2,3]{1,0} parameter(0)
  ROOT f = pred[] constant(false)
}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  copy.1 = f32[2,3]{1,0} copy(x)
  w = f32[2,3]{1,0} while(copy.1), condition=cond, body=body
  ROOT copy.2 = f32[2,3]{0,1} copy(w)
}",
    );
}

#[test]
fn tuples_are_copied_element_by_element() {
    check(
        &Unconstrained,
        "HloModule m, entry_computation_layout={((f32[2,2]{0,1}, s32[]))->(f32[2,2]{1,0}, s32[])}

ENTRY e {
  ROOT p = (f32[2,2], s32[]) parameter(0)
}",
        "HloModule m, entry_computation_layout={((f32[2,2]{0,1}, s32[]))->(f32[2,2]{1,0}, s32[])}

ENTRY e {
  p = (f32[2,2]{0,1}, s32[]) parameter(0)
  get-tuple-element.1 = f32[2,2]{0,1} get-tuple-element(p), index=0
  copy.1 = f32[2,2]{1,0} copy(get-tuple-element.1)
  get-tuple-element.2 = s32[] get-tuple-element(p), index=1
  ROOT tuple.1 = (f32[2,2]{1,0}, s32[]) tuple(copy.1, get-tuple-element.2)
}",
    );
}

#[test]
fn bitcasts_in_the_input_keep_their_layouts() {
    // The bitcast reads `x` row-major; the entry gives `x` column-major,
    // so `x` is copied for it, and the bitcast's own layout stays.
    check(
        &Unconstrained,
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{1,0}}

ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{1,0} bitcast(x)
}",
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{1,0}}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  copy.1 = f32[2,3]{1,0} copy(x)
  ROOT b = f32[3,2]{1,0} bitcast(copy.1)
}",
    );
}

#[test]
fn invalid_backend_layouts_are_reported() {
    struct Broken;
    impl LayoutConstraints for Broken {
        fn result_layout(&self, _: &HloInstruction, _: &[&Shape]) -> Constraint {
            Constraint::Require(Layout::new([0]))
        }
    }
    let mut module = parse(
        "HloModule m

ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(x)
}",
    );
    let err = LayoutAssignment::new(&Broken).run(&mut module).unwrap_err();
    assert_eq!(
        err.to_string(),
        "layout assignment: the backend's layout for the result of instruction n (f32[2,3]) \
         is invalid: layout {0} has 1 entries in minor_to_major but the array has rank 2"
    );
}

// === every module through the pipeline ===

/// The fixture and benchmark modules, and the conformance cases' modules.
fn modules() -> Vec<PathBuf> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = crate_dir.join("tests/fixtures");
    let cases = crate_dir.join("../../tests/conformance/cases");
    let mut files: Vec<PathBuf> = [fixtures.join("hlo"), fixtures.join("bench")]
        .iter()
        .flat_map(|dir| fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    files.extend(
        fs::read_dir(cases)
            .unwrap()
            .map(|entry| entry.unwrap().path().join("module.hlo")),
    );
    files.sort();
    files
}

/// Every array leaf of rank ≥ 1 in `shape` has an explicit layout.
fn all_laid_out(shape: &Shape) -> bool {
    shape
        .array_leaves()
        .iter()
        .all(|a| a.rank() == 0 || a.layout().is_some())
}

#[test]
fn every_fixture_and_benchmark_module_optimizes_and_verifies() {
    let files = modules();
    assert!(files.len() >= 900, "found only {} modules", files.len());
    for path in &files {
        let name = path.display();
        let mut module = parse(&fs::read_to_string(path).unwrap());
        let signature = module.entry_program_shape();
        for constraints in [&Unconstrained as &dyn LayoutConstraints, &Gemm] {
            let mut module = module.clone();
            let options = PipelineOptions {
                layout_constraints: Some(constraints),
                ..PipelineOptions::default()
            };
            let _ = optimize(&mut module, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
            verify_module(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
            let after = module.entry_program_shape();
            for (before, after) in signature.parameters.iter().zip(&after.parameters) {
                let before = before.clone().with_default_layouts();
                assert!(
                    before.eq_with_layout(after),
                    "{name}: parameter {before} became {after}"
                );
            }
            let result = signature.result.clone().with_default_layouts();
            assert!(
                result.eq_with_layout(&after.result),
                "{name}: result {result} became {}",
                after.result
            );
            let root = module.entry_computation().root_instr();
            assert!(
                root.shape.eq_with_layout(&after.result),
                "{name}: root {}",
                root.shape
            );
            for c in &module.computations {
                for instr in &c.instructions {
                    assert!(
                        all_laid_out(&instr.shape),
                        "{name}: {} is {}",
                        instr.name,
                        instr.shape
                    );
                }
            }
            // A second assignment finds nothing to change.
            let again = run_pass(&mut LayoutAssignment::new(constraints), &mut module, true);
            assert_eq!(again.unwrap(), Changed::No, "{name}");
        }
        let options = PipelineOptions {
            layout_constraints: None,
            ..PipelineOptions::default()
        };
        let _ = optimize(&mut module, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn benchmark_modules_need_no_copies() {
    for path in modules()
        .iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("bench")))
    {
        let mut module = parse(&fs::read_to_string(path).unwrap());
        let options = PipelineOptions {
            layout_constraints: Some(&Gemm),
            ..PipelineOptions::default()
        };
        let _ = optimize(&mut module, &options).unwrap();
        assert_eq!(
            count(&module, Opcode::Copy),
            0,
            "{}:\n{module}",
            path.display()
        );
    }
}
