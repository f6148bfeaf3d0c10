//! The conformance cases (`tests/conformance/cases`: HLO modules as JAX
//! prints them, with the inputs and the outputs XLA:CPU computed, see
//! `tests/conformance/README.md`) run through the reference interpreter.
//!
//! Each case's outputs are compared with its tolerance (integers and pred
//! exactly, a NaN equals any NaN, elements listed as `unchecked` skipped).
//! Collective cases are Shardy SPMD modules: their manual computation body
//! runs once per partition on `arg<i>.d<k>.npy` and is compared with
//! `out<j>.d<k>.npy`. The test prints a summary by family and fails on any
//! mismatch or unsupported case that is not in [`KNOWN_GAPS`], and on a
//! known gap that passes (remove it from the list).
//!
//! `XLA_CONFORMANCE=<text>` runs only the cases whose name contains `<text>`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use xla::interp::{DeviceAssignment, InterpError, Interpreter};
use xla_testkit::case::{self, name, Form};
use xla_testkit::Case;

/// Cases that fail today, each a defect to fix later, with the reason.
const KNOWN_GAPS: &[(&str, &str)] = &[
    // XLA:CPU reduces max/min all-reduces with std::max/std::min, which drop
    // a NaN; the interpreter applies `to_apply` (maximum propagates NaN,
    // `docs/semantics.md`, *Element-wise arithmetic*). The spec and XLA:CPU disagree: decide which
    // wins.
    (
        "collectives__pmax_pmin",
        "XLA:CPU's all-reduce max/min drops NaN",
    ),
    // XLA:CPU reduces only the operand's elements into one copy of the
    // init value; `docs/semantics.md`, *Reduce-window* (and XLA's own operation semantics) fill
    // padding and base-dilation holes with the init value, which differs
    // when the init value is not the reducer's identity. The spec and
    // XLA:CPU disagree: decide which wins.
    (
        "reduce_window__init_not_identity_with_padding",
        "XLA:CPU skips padding and holes instead of reducing the init value there",
    ),
    ("binary__pow_s8", INT_POW),
    ("binary__pow_s16", INT_POW),
    ("binary__pow_s32", INT_POW),
    ("binary__pow_s64", INT_POW),
    ("binary__pow_u8", INT_POW),
    ("binary__pow_u16", INT_POW),
    ("binary__pow_u32", INT_POW),
    ("binary__pow_u64", INT_POW),
    ("binary__pow_bf16_subnormal", POW_EXPONENT),
    ("binary__pow_f32_subnormal", POW_EXPONENT),
    ("binary__pow_f64_subnormal", POW_EXPONENT),
    ("binary__rem_bf16", REM_DIVIDEND),
    ("binary__rem_f32", REM_DIVIDEND),
    ("binary__rem_f64", REM_DIVIDEND),
    (
        "convert__from_bf16",
        "bf16 subnormal → pred is true on XLA:CPU (not flushed)",
    ),
    ("convert__from_c128", VIA_F32),
    ("convert__from_f64", VIA_F32),
    ("convert__from_s32", VIA_F32),
    ("convert__from_s64", VIA_F32),
    ("convert__from_u32", VIA_F32),
    ("convert__from_u64", VIA_F32),
    (
        "sort__f32_specials_lax_unstable",
        "unstable sort: XLA:CPU's order of equivalent elements (±0, subnormals) is not modelled",
    ),
];

const INT_POW: &str = "integer power: XLA:CPU uses the exponent's low 6 bits, read as signed";
const POW_EXPONENT: &str = "pow: XLA:CPU does not flush a subnormal exponent";
const REM_DIVIDEND: &str = "rem: XLA:CPU flushes the divisor but not a subnormal dividend";
const VIA_F32: &str = "conversion to f16/bf16: XLA:CPU rounds through f32 (double rounding)";

/// How a case went.
enum Outcome {
    Passed,
    Failed(String),
    Unsupported(String),
}

#[test]
fn conformance() {
    run_form(Form::HloText);
}

#[test]
fn conformance_stablehlo_text() {
    run_form(Form::StableHloText);
}

#[test]
fn conformance_jax_export() {
    run_form(Form::JaxExport);
}

/// The HLO text printed as StableHLO (`xla print --stablehlo`) and read
/// back runs as the HLO text does.
#[test]
fn conformance_hlo_via_stablehlo() {
    run_form(Form::HloTextViaStableHlo);
}

/// Runs every case from `form`.
fn run_form(form: Form) {
    let filter = std::env::var("XLA_CONFORMANCE").unwrap_or_default();
    let cases = case::all();
    assert!(!cases.is_empty(), "no conformance case matches `{filter}`");

    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(dir) = cases.get(i) else { break };
                let outcome = run_case(dir, form).unwrap_or_else(Outcome::Failed);
                outcomes.lock().unwrap().insert(name(dir), outcome);
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();
    report(&outcomes, filter.is_empty());
}

/// Prints the summary and fails on unexpected outcomes.
fn report(outcomes: &BTreeMap<String, Outcome>, all_cases: bool) {
    let mut families: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    let mut problems = Vec::new();
    for (case, outcome) in outcomes {
        let family = case.split("__").next().unwrap_or(case);
        let counts = families.entry(family).or_default();
        let gap = KNOWN_GAPS.iter().find(|(c, _)| c == case);
        match (outcome, gap) {
            (Outcome::Passed, None) => counts[0] += 1,
            (Outcome::Passed, Some(_)) => {
                counts[0] += 1;
                problems.push(format!("{case}: passes now; remove it from KNOWN_GAPS"));
            }
            (Outcome::Failed(m), gap) => {
                counts[1] += 1;
                if gap.is_none() {
                    problems.push(format!("{case}: {m}"));
                }
            }
            (Outcome::Unsupported(m), gap) => {
                counts[2] += 1;
                if gap.is_none() {
                    problems.push(format!("{case}: unsupported: {m}"));
                }
            }
        }
    }
    println!(
        "{:<24} {:>6} {:>6} {:>11}",
        "family", "passed", "failed", "unsupported"
    );
    let mut total = [0; 3];
    for (family, counts) in &families {
        println!(
            "{family:<24} {:>6} {:>6} {:>11}",
            counts[0], counts[1], counts[2]
        );
        for (t, c) in total.iter_mut().zip(counts) {
            *t += c;
        }
    }
    println!(
        "{:<24} {:>6} {:>6} {:>11}",
        "total", total[0], total[1], total[2]
    );
    if all_cases {
        for (case, _) in KNOWN_GAPS {
            if !outcomes.contains_key(*case) {
                problems.push(format!(
                    "{case}: listed in KNOWN_GAPS but there is no such case"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} conformance problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn run_case(dir: &Path, form: Form) -> Result<Outcome, String> {
    let case = Case::read(dir)?;
    // An SPMD module's body runs once per partition on its block.
    let module = xla_core::spmd::per_device(case.module_in(form)?)
        .map_err(|e| e.to_string())?
        .module;
    let suffixes = case.device_suffixes();
    let args = suffixes
        .iter()
        .map(|s| case.args(s))
        .collect::<Result<Vec<_>, _>>()?;
    let (replicas, partitions) = case.devices.unwrap_or((1, 1));
    let results = match Interpreter::new().run_partitioned(
        &module,
        args,
        DeviceAssignment::new(replicas, partitions),
    ) {
        Ok(results) => results,
        Err(e @ (InterpError::Unsupported { .. } | InterpError::UnknownCustomCall { .. })) => {
            return Ok(Outcome::Unsupported(e.to_string()))
        }
        Err(e) => return Ok(Outcome::Failed(e.to_string())),
    };
    for (result, suffix) in results.iter().zip(&suffixes) {
        if let Err(m) = case.check(result, suffix) {
            return Ok(Outcome::Failed(m));
        }
    }
    Ok(Outcome::Passed)
}

/// The instructions of `module` with names replaced by positions:
/// computations in post-order from the entry, each computation's
/// instructions in post-order from its root (operands in order, so that
/// the order they were written in does not matter), each as its opcode,
/// shape, operand positions, called computations and attributes.
fn canonical(module: &xla::HloModule) -> Vec<String> {
    let order = xla_core::text::computation_post_order(module);
    let position = |id| order.iter().position(|&c| c == id).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    for &id in &order {
        let c = module.computation(id);
        let mut number = vec![usize::MAX; c.instructions.len()];
        let mut next = 0;
        let mut stack = vec![(c.root, false)];
        while let Some((at, expanded)) = stack.pop() {
            if number[at.index()] != usize::MAX {
                continue;
            }
            let instr = c.instr(at);
            if expanded {
                let operands: Vec<usize> =
                    instr.operands.iter().map(|o| number[o.index()]).collect();
                let called: Vec<usize> = instr.called.iter().map(|&k| position(k)).collect();
                out.push(format!(
                    "{} {} {operands:?} {called:?} {:?}",
                    instr.opcode.name(),
                    instr.shape.clone().without_layouts(),
                    instr.attrs
                ));
                number[at.index()] = next;
                next += 1;
            } else {
                stack.push((at, true));
                stack.extend(instr.operands.iter().rev().map(|&o| (o, false)));
            }
        }
        out.push(format!("computation {} of {next}", position(id)));
    }
    out
}

/// Families whose StableHLO text lowers to the very module of their HLO
/// text (modulo names and instruction order): the ops map one to one.
/// Elsewhere XLA's translation canonicalizes as it goes (identical
/// constants merged, a `broadcast_in_dim` that only adds dimensions of size
/// 1 made a `reshape`, iotas made rank 1 and broadcast, ops on empty
/// tensors folded, complex `exp`/`log` expanded), so the two modules differ
/// in form and are checked by their outputs alone (`conformance_stablehlo_text`).
const SAME_MODULE_FAMILIES: &[&str] = &[
    "batch_norm",
    "binary",
    "bitcast",
    "call",
    "clamp",
    "compare",
    "conv",
    "reduce_precision",
    "top_k",
];

#[test]
fn stablehlo_text_lowers_to_the_hlo_text_module() {
    let (mut same, mut total) = (0, 0);
    let mut problems = Vec::new();
    for dir in case::all() {
        let name = name(&dir);
        let case = Case::read(&dir).unwrap();
        let hlo = case.module_in(Form::HloText).unwrap();
        let lowered = case.module_in(Form::StableHloText).unwrap();
        total += 1;
        if canonical(&hlo) == canonical(&lowered) {
            same += 1;
        } else if SAME_MODULE_FAMILIES.contains(&name.split("__").next().unwrap_or("")) {
            problems.push(name);
        }
    }
    println!("{same} of {total} cases lower to the module of their HLO text");
    assert!(
        problems.is_empty(),
        "lowered to a module that differs from the HLO text's: {}",
        problems.join(", ")
    );
}
