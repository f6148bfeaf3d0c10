//! The conformance cases (tests/conformance/cases: modules as JAX prints
//! them, with XLA:CPU's outputs) run on the JIT and compared by the
//! README's rule: exact cases bit for bit (any NaN matches any NaN),
//! toleranced cases within `atol + rtol·|want|` or `ulp`, elements listed
//! as `unchecked` skipped. Multi-device cases (collectives) run each
//! device's program on a thread of its own ([`Executable::execute_devices`]),
//! with every collective a step of the JIT, never the interpreter.
//!
//! The JIT must pass every case the reference interpreter passes (the
//! interpreter's own failures are its harness's business and are only
//! counted here), and compile every elementwise, reduction, dot and
//! data-movement op of the cases: only the ops of [`INTERPRETED`] may run
//! through the interpreter fallback.
//!
//! `XLA_CONFORMANCE=<text>` runs only the cases whose name contains
//! `<text>` (as the interpreter's conformance test does).

use xla_core::interp::{DeviceAssignment, Interpreter};
use xla_core::{HloModule, Literal};
use xla_jit::{Client, CompileOptions, Executable, ExecuteOptions, JitError};
use xla_testkit::case::{self, name, Form};
use xla_testkit::Case;

enum Outcome {
    Passed,
    /// The interpreter (the JIT's fallback) cannot run it.
    Unsupported(String),
    Failed(String),
}

/// The ops that still run through the interpreter fallback in some case:
/// none since the linear algebra and LAPACK custom calls became library
/// routines. An op missing from this list fails the test.
const INTERPRETED: &[&str] = &[];

/// Which engine runs a case.
#[derive(Clone, Copy, PartialEq)]
enum Engine {
    /// The JIT; `split` forces every kernel into pool tasks
    /// ([`CompileOptions::split_kernels`]), so that the small inputs of the
    /// cases take the multi-threaded paths too.
    Jit {
        split: bool,
    },
    Interpreter,
}

/// A single-device case, read once for every engine that runs it.
struct Loaded {
    case: Case,
    module: HloModule,
    args: Vec<Literal>,
}

fn run_case(
    loaded: &Loaded,
    client: &Client,
    engine: Engine,
    fallbacks: &mut Vec<String>,
) -> Outcome {
    let Loaded { case, module, args } = loaded;
    let refs: Vec<_> = args.iter().collect();
    let result = match engine {
        Engine::Jit { split } => {
            let options = CompileOptions {
                split_kernels: split,
                ..CompileOptions::default()
            };
            client.compile_with(module, &options).and_then(|exe| {
                for op in exe.fallback_ops() {
                    fallbacks.push(op.opcode.name().to_string());
                }
                exe.execute(&refs)
            })
        }
        Engine::Interpreter => Interpreter::new()
            .run(module, &refs)
            .map_err(JitError::from),
    };
    match result {
        Ok(r) => match case.check(&r, "") {
            Ok(()) => Outcome::Passed,
            Err(why) => Outcome::Failed(why),
        },
        Err(e @ JitError::Interp(_)) => Outcome::Unsupported(e.to_string()),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// Runs one case; the JIT's fallback ops are added to `fallbacks`.
fn outcome(
    loaded: &Loaded,
    client: &Client,
    engine: Engine,
    fallbacks: &mut Vec<String>,
) -> Outcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_case(loaded, client, engine, fallbacks)
    }))
    .unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Outcome::Failed(format!("panicked: {message}"))
    })
}

#[test]
fn conformance_cases_pass_on_the_jit() {
    run_form(Form::HloText, true);
}

/// The cases read from their StableHLO text: the lowering's modules must
/// pass on the JIT as the HLO text's do (the kernel-splitting pass is the
/// HLO form's alone: it tests the JIT, not the reader).
#[test]
fn conformance_cases_from_stablehlo_pass_on_the_jit() {
    run_form(Form::StableHloText, false);
}

/// The cases read from their `jax.export` artifacts (VHLO bytecode).
#[test]
fn conformance_cases_from_jax_export_pass_on_the_jit() {
    run_form(Form::JaxExport, false);
}

/// Runs every single-device case from `form`; with `split`, each case
/// that passes runs again with its kernels split into pool tasks.
fn run_form(form: Form, split: bool) {
    let client = Client::cpu().unwrap();
    let filter = std::env::var("XLA_CONFORMANCE").unwrap_or_default();
    let dirs = case::all();
    assert!(!dirs.is_empty(), "no conformance case matches `{filter}`");
    let mut passed = 0;
    let (mut unsupported, mut interpreter_fails, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    let mut fallbacks: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for dir in &dirs {
        let name = name(dir);
        let loaded = match Case::read(dir) {
            Ok(case) if case.devices.is_some() => continue,
            Ok(case) => case.module_in(form).and_then(|module| {
                let args = case.args("")?;
                Ok(Loaded { case, module, args })
            }),
            Err(e) => Err(e),
        };
        let loaded = match loaded {
            Ok(loaded) => loaded,
            Err(why) => {
                failed.push(format!("{name}: {why}"));
                continue;
            }
        };
        let mut ops = Vec::new();
        let mut result = outcome(&loaded, &client, Engine::Jit { split: false }, &mut ops);
        if split && matches!(result, Outcome::Passed) {
            result = match outcome(
                &loaded,
                &client,
                Engine::Jit { split: true },
                &mut Vec::new(),
            ) {
                Outcome::Failed(why) => Outcome::Failed(format!("with kernels split: {why}")),
                split => split,
            };
        }
        for op in ops {
            fallbacks.entry(op).or_default().push(name.clone());
        }
        let why = match result {
            Outcome::Passed => {
                passed += 1;
                continue;
            }
            Outcome::Unsupported(why) => {
                unsupported.push(format!("{name}: {why}"));
                continue;
            }
            Outcome::Failed(why) => why,
        };
        if !matches!(
            outcome(&loaded, &client, Engine::Interpreter, &mut Vec::new()),
            Outcome::Passed
        ) {
            interpreter_fails.push(name);
        } else {
            failed.push(format!("{name}: {why}"));
        }
    }
    eprintln!(
        "conformance on the JIT: {passed} passed; {} unsupported by the interpreter fallback; \
         {} failed by the interpreter too ({})",
        unsupported.len(),
        interpreter_fails.len(),
        interpreter_fails.join(", "),
    );
    for (op, cases) in &fallbacks {
        eprintln!(
            "interpreted: {op} in {} cases ({})",
            cases.len(),
            cases.join(", ")
        );
    }
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
    let unexpected: Vec<&String> = fallbacks
        .keys()
        .filter(|op| !INTERPRETED.contains(&op.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "ops left to the interpreter: {unexpected:?}"
    );
}

/// Multi-device cases whose XLA outputs the interpreter does not match
/// either (the conformance test's known gaps): the JIT is held to the
/// interpreter there.
const DEVICE_GAPS: &[&str] = &["collectives__pmax_pmin"];

/// The multi-device cases (Shardy SPMD modules: the manual computation's
/// body runs once per device on its block) on the JIT: every collective
/// compiled as a step, every device's result bit for bit the reference
/// interpreter's and within the case's tolerance of XLA's.
#[test]
fn collective_cases_pass_on_the_jit_devices() {
    let client = Client::cpu().unwrap();
    let (mut passed, mut failed) = (0, Vec::new());
    for dir in case::all() {
        let case = Case::read(&dir).unwrap();
        let Some((replicas, partitions)) = case.devices else {
            continue;
        };
        let name = name(&dir);
        let run = || -> Result<(), String> {
            let module = xla_core::spmd::per_device(case.module_in(Form::HloText)?)
                .map_err(|e| e.to_string())?
                .module;
            let executable: Executable = client.compile(&module).map_err(|e| e.to_string())?;
            let interpreted: Vec<String> = executable
                .fallback_ops()
                .iter()
                .map(|op| op.instruction.clone())
                .collect();
            if !interpreted.is_empty() {
                return Err(format!("interpreted: {interpreted:?}"));
            }
            let suffixes = case.device_suffixes();
            let args = suffixes
                .iter()
                .map(|s| case.args(s))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
            let assignment = DeviceAssignment::new(replicas, partitions);
            let expected = Interpreter::new()
                .run_partitioned(&module, args.clone(), assignment)
                .map_err(|e| e.to_string())?;
            // Twice: the second run reuses the first's buffers.
            for _ in 0..2 {
                let results = executable
                    .execute_devices(&refs, assignment, &ExecuteOptions::default())
                    .map_err(|e| e.to_string())?;
                for ((result, suffix), expected) in results.iter().zip(&suffixes).zip(&expected) {
                    if !same_bits(result, expected) {
                        return Err(format!(
                            "device {suffix}: {result} differs from the interpreter's {expected}"
                        ));
                    }
                    if !DEVICE_GAPS.contains(&name.as_str()) {
                        case.check(result, suffix)
                            .map_err(|why| format!("device {suffix}: {why}"))?;
                    }
                }
            }
            Ok(())
        };
        match run() {
            Ok(()) => passed += 1,
            Err(why) => failed.push(format!("{name}: {why}")),
        }
    }
    eprintln!("collective cases on the JIT: {passed} passed");
    assert!(passed >= 10, "only {passed} collective cases ran");
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
}

/// Equal shapes (ignoring layouts, both row-major here) and equal bits.
fn same_bits(a: &Literal, b: &Literal) -> bool {
    match (a.tuple_elements(), b.tuple_elements()) {
        (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_bits(a, b)),
        (None, None) => {
            a.shape().eq_ignoring_layout(b.shape())
                && matches!((a.bytes(), b.bytes()), (Ok(a), Ok(b)) if a == b)
        }
        _ => false,
    }
}
