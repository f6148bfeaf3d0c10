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
use xla_core::io::{read_npy, NpyOptions};
use xla_core::layout::Layout;
use xla_core::passes::layout_assignment::{Constraint, LayoutConstraints, Unconstrained};
use xla_core::passes::{optimize, PipelineOptions};
use xla_core::{ArrayShape, HloModule, Literal, PrimitiveType, Shape};

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

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    dirs
}

/// The case's arguments, or `None` for a multi-device case.
fn arguments(dir: &Path) -> Option<Vec<Literal>> {
    let case: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    if case.get("devices").is_some() {
        return None;
    }
    let args = case["args"].as_array().unwrap();
    Some(
        args.iter()
            .enumerate()
            .map(|(i, arg)| {
                let ty: PrimitiveType = arg["dtype"].as_str().unwrap().parse().unwrap();
                let as_type = (ty == PrimitiveType::Bf16).then_some(ty);
                read_npy(dir.join(format!("arg{i}.npy")), &NpyOptions { as_type }).unwrap()
            })
            .collect(),
    )
}

/// Whether the element `bytes` of type `ty` is a NaN (for complex types:
/// either component).
fn is_nan(ty: PrimitiveType, bytes: &[u8]) -> bool {
    let Some((exponent, mantissa)) = ty.float_bits() else {
        return false;
    };
    let component = |chunk: &[u8]| {
        let mut wide = [0u8; 8];
        wide[..chunk.len()].copy_from_slice(chunk);
        let bits = u64::from_le_bytes(wide);
        let all_ones = (1u64 << exponent) - 1;
        (bits >> mantissa) & all_ones == all_ones && bits & ((1u64 << mantissa) - 1) != 0
    };
    let parts = if ty.is_complex() { 2 } else { 1 };
    bytes.chunks(bytes.len() / parts).any(component)
}

/// `before` and `after` hold the same values: same shape (layouts
/// included), and bit-equal elements except that NaNs match any NaN.
fn same_values(before: &Literal, after: &Literal) -> Result<(), String> {
    if !before.shape().eq_with_layout(after.shape()) {
        return Err(format!("shape {} became {}", before.shape(), after.shape()));
    }
    if let (Some(a), Some(b)) = (before.tuple_elements(), after.tuple_elements()) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            same_values(x, y).map_err(|e| format!("element {{{i}}}: {e}"))?;
        }
        return Ok(());
    }
    let Ok(shape) = before.array_shape() else {
        return Ok(());
    };
    let ty = shape.element_type();
    let (a, b) = (before.bytes().unwrap(), after.bytes().unwrap());
    let size = ty.byte_size();
    match a
        .chunks(size)
        .zip(b.chunks(size))
        .position(|(x, y)| x != y && !(is_nan(ty, x) && is_nan(ty, y)))
    {
        None => Ok(()),
        Some(i) => Err(format!("buffer element {i} of {shape} differs")),
    }
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
    for dir in cases() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some(args) = arguments(&dir) else {
            continue;
        };
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

/// Deterministic values for a parameter of `shape`: floats in [−2, 2),
/// integers in [−8, 8) (wrapped for unsigned types), random preds.
fn values(shape: &Shape, seed: &mut u64) -> Literal {
    match shape {
        Shape::Array(a) => {
            let count = a.element_count() as usize;
            let values: Vec<f64> = (0..count)
                .map(|_| {
                    *seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let unit = (*seed >> 11) as f64 / (1u64 << 53) as f64;
                    if a.element_type().is_floating() || a.element_type().is_complex() {
                        unit * 4.0 - 2.0
                    } else {
                        (unit * 16.0).floor() - 8.0
                    }
                })
                .collect();
            Literal::from_vec(a.dims(), values)
                .and_then(|l| l.convert(a.element_type()))
                .unwrap()
        }
        Shape::Tuple(elements) => {
            Literal::tuple(elements.iter().map(|e| values(e, seed)).collect())
        }
        Shape::Token => Literal::token(),
        Shape::Opaque => panic!("no values for an opaque parameter"),
    }
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
            .map(|p| values(p, &mut seed))
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
        .map(|p| values(&p.clone().with_default_layouts(), &mut seed))
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
