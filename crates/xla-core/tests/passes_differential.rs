//! The pipeline keeps every value: each conformance case's module gives the
//! interpreter the same results before and after `optimize` (simplification,
//! layout assignment under two backends' constraints, bitcasts), element
//! for element, bit for bit (NaNs of any payload match).

use crate::passes_support;

use std::fs;
use std::path::{Path, PathBuf};

use passes_support::parse;
use xla_core::hlo::{HloInstruction, Opcode};
use xla_core::interp::{InterpError, Interpreter};
use xla_core::layout::Layout;
use xla_core::passes::layout_assignment::{Constraint, LayoutConstraints, Unconstrained};
use xla_core::passes::{optimize, PipelineOptions};
use xla_core::{ArrayShape, HloModule, Literal, Shape};
use xla_testkit::case;
use xla_testkit::{random_literal, Case, Rule};

/// Dots read dense operands and write row-major results.
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
        _: &HloInstruction,
        _: usize,
        _: &ArrayShape,
        _: &Shape,
    ) -> Constraint {
        Constraint::Free
    }
}

/// `before` and `after` hold the same values: same shape (layouts
/// included), and bit-equal elements except that NaNs match any NaN.
fn same_values(before: &Literal, after: &Literal) -> Result<(), String> {
    if !before.shape().eq_with_layout(after.shape()) {
        return Err(format!("shape {} became {}", before.shape(), after.shape()));
    }
    Rule::EXACT.compare_values(after, before)
}

/// Runs `module` on `args` before and after `optimize` under both
/// backends' constraints and compares the results. `Err` if the original
/// module does not run (an op or custom call the interpreter lacks).
fn check_same_values(name: &str, module: &HloModule, args: &[&Literal]) -> Result<(), InterpError> {
    let interpreter = Interpreter::new();
    let before = interpreter.run(module, args)?;
    for constraints in [&Unconstrained as &dyn LayoutConstraints, &Gemm] {
        let mut optimized = module.clone();
        let options = PipelineOptions {
            layout_constraints: Some(constraints),
            ..PipelineOptions::default()
        };
        let _ = optimize(&mut optimized, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = interpreter
            .run(&optimized, args)
            .unwrap_or_else(|e| panic!("{name}: the optimized module fails: {e}\n{optimized}"));
        same_values(&before, &after).unwrap_or_else(|e| panic!("{name}: {e}\n{optimized}"));
    }
    Ok(())
}

#[test]
fn conformance_modules_compute_the_same_values_after_optimizing() {
    let (mut compared, mut skipped) = (0, Vec::new());
    for dir in case::all() {
        let name = case::name(&dir);
        let case = Case::read(&dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        if case.devices.is_some() {
            continue;
        }
        let args = case.args("").unwrap_or_else(|e| panic!("{name}: {e}"));
        let args: Vec<&Literal> = args.iter().collect();
        let module = parse(&fs::read_to_string(dir.join("module.hlo")).unwrap());
        match check_same_values(&name, &module, &args) {
            Ok(()) => compared += 1,
            Err(InterpError::Unsupported { .. } | InterpError::UnknownCustomCall { .. }) => {
                skipped.push(name)
            }
            Err(e) => panic!("{name}: the interpreter fails on the original module: {e}"),
        }
    }
    assert!(
        compared >= 700,
        "only {compared} cases compared; skipped: {skipped:?}"
    );
}

#[test]
fn fixture_programs_compute_the_same_values_after_optimizing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hlo");
    let mut paths: Vec<PathBuf> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let (mut compared, mut skipped) = (0, Vec::new());
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let module = parse(&fs::read_to_string(&path).unwrap());
        if module.replica_count * module.num_partitions > 1 {
            continue;
        }
        let mut seed = 1;
        let args: Vec<Literal> = module
            .entry_program_shape()
            .parameters
            .iter()
            .map(|p| random_literal(p, &mut seed))
            .collect();
        let args: Vec<&Literal> = args.iter().collect();
        match check_same_values(&name, &module, &args) {
            Ok(()) => compared += 1,
            Err(e) => skipped.push(format!("{name}: {e}")),
        }
    }
    assert!(
        compared >= 40,
        "only {compared} programs compared; skipped: {skipped:#?}"
    );
}

#[test]
fn column_major_entry_layouts_keep_their_values() {
    let module = parse(
        "HloModule m, entry_computation_layout={(f32[3,4]{0,1}, f32[4,5]{0,1})->(f32[3,5]{0,1}, f32[4,3]{1,0}, f32[2,6]{0,1})}

ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[4,5] parameter(1)
  d = f32[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,3] transpose(a), dimensions={1,0}
  x = f32[4,3] exponential(t)
  r = f32[12] reshape(x)
  back = f32[4,3] reshape(r)
  six = f32[2,6] reshape(a)
  ROOT out = (f32[3,5], f32[4,3], f32[2,6]) tuple(d, back, six)
}",
    );
    let mut seed = 7;
    let args: Vec<Literal> = module
        .entry_program_shape()
        .parameters
        .iter()
        .map(|p| random_literal(&p.clone().with_default_layouts(), &mut seed))
        .collect();
    let args: Vec<&Literal> = args.iter().collect();
    check_same_values("column-major", &module, &args).unwrap();
    let mut optimized = module.clone();
    let _ = optimize(&mut optimized, &PipelineOptions::default()).unwrap();
    assert_eq!(
        optimized.entry_layout.as_ref().map(ToString::to_string),
        module.entry_layout.as_ref().map(ToString::to_string)
    );
}
