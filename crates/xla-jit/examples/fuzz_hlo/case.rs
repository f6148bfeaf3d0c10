//! One fuzz case: a mutated module through every stage, each stage under
//! `catch_unwind`, with the stage announced first (so a supervisor can
//! name the stage of an abort or a hang).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use xla_core::interp::{InterpError, Interpreter};
use xla_core::literal::{LiteralError, Tolerance};
use xla_core::passes::layout_assignment::{LayoutConstraints, Unconstrained};
use xla_core::passes::{optimize, PipelineOptions};
use xla_core::verify::verify_module;
use xla_core::{HloModule, Literal, PrimitiveType};
use xla_jit::runtime::CpuLayoutConstraints;
use xla_jit::{Client, JitError};

use crate::corpus::{module_bytes, shape_bytes};
use crate::runtime_support::{try_random_literal, Rng};

/// Arguments above this many bytes are not built (the module is still
/// verified, optimized and compiled).
const MAX_ARG_BYTES: i64 = 64 << 20;

/// Modules whose buffers together exceed this are expected to fail for
/// lack of memory; they are compiled but not run.
const MAX_RUN_BYTES: i64 = 256 << 20;

/// JIT against interpreter: transcendental approximations and reassociated
/// reductions (their order is unspecified) differ by a few ulp, which
/// chains of ops amplify.
const TOLERANCE: Tolerance = Tolerance::new(1e-3, 1e-3);

/// The same for results with f16 or bf16 elements, whose ulp is 2⁻¹⁰ or
/// 2⁻⁷ of the value: a reassociated sum of a few values moves by several.
const HALF_TOLERANCE: Tolerance = Tolerance::new(5e-2, 5e-2);

/// Differences that are known and decided elsewhere: `(an op of the
/// module, a part of the mismatch, why)`. Matching mismatches are counted
/// as `known`, not reported.
const KNOWN: &[(&str, &str, &str)] = &[(
    " batch-norm-grad(",
    "expected 0, got NaN",
    "an empty batch with variance + ε ≤ 0: the spec's per-element sum \
     Σ ∇y·(x−μ)/√(σ²+ε) is 0, the expander's √(σ²+ε)⁻¹·Σ ∇y·(x−μ) is NaN",
)];

/// How a case ended.
pub enum Verdict {
    /// The text does not parse (the parser's message).
    ParseError(String),
    /// The verifier rejects the module (its message).
    Invalid(String),
    /// Both backends failed with an error (e.g. an unsupported op).
    BothFailed,
    /// Verified but too large to run.
    TooLarge,
    /// Ran and compared (or not comparable: `rng`).
    Ran,
    /// A mismatch listed in [`KNOWN`] (its reason).
    Known(&'static str),
    /// Something is wrong.
    Finding(Finding),
}

/// A defect: a panic, a disagreement or a wrong result.
pub struct Finding {
    /// `panic`, `mismatch`, `disagree`, `accepted`.
    pub kind: &'static str,
    pub stage: &'static str,
    /// What identifies this defect among others (a panic's location).
    pub signature: String,
    pub detail: String,
}

static PANIC: Mutex<Option<(String, String)>> = Mutex::new(None);

/// Records panics (message and location) instead of printing them; a
/// stage reads the record after `catch_unwind`.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(non-string payload)".to_string()
        };
        let location = info
            .location()
            .map_or("?".to_string(), |l| format!("{}:{}", l.file(), l.line()));
        let mut slot = PANIC.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert((message, location));
    }));
}

/// Runs `f` as stage `stage`: a panic (also one caught inside, e.g. on a
/// worker thread) becomes a finding.
fn guard<T>(
    stage: &'static str,
    announce: &mut dyn FnMut(&str),
    f: impl FnOnce() -> T,
) -> Result<T, Finding> {
    announce(stage);
    *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = None;
    let result = catch_unwind(AssertUnwindSafe(f));
    let panic = PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
    match (result, panic) {
        (Ok(value), None) => Ok(value),
        (_, Some((message, location))) => Err(Finding {
            kind: "panic",
            stage,
            signature: format!("panic in {stage} at {location}"),
            detail: message,
        }),
        (Err(_), None) => Err(Finding {
            kind: "panic",
            stage,
            signature: format!("panic in {stage}"),
            detail: "(no message)".into(),
        }),
    }
}

/// Runs one mutated module; `announce` is told each stage as it starts.
pub fn run(text: &str, seed: u64, client: &Client, announce: &mut dyn FnMut(&str)) -> Verdict {
    match stages(text, seed, client, announce) {
        Ok(verdict) => verdict,
        Err(finding) => Verdict::Finding(finding),
    }
}

fn stages(
    text: &str,
    seed: u64,
    client: &Client,
    announce: &mut dyn FnMut(&str),
) -> Result<Verdict, Finding> {
    let module = match guard("parse", announce, || text.parse::<HloModule>())? {
        Ok(module) => module,
        Err(error) => return Ok(Verdict::ParseError(error.to_string())),
    };
    let verified = guard("verify", announce, || verify_module(&module))?;
    let interpreter = Interpreter::new();
    if let Err(error) = verified {
        // Later stages must refuse the module too, without panicking.
        let args = guard("args", announce, || arguments(&module, seed))?;
        if let Some(args) = args {
            let refs: Vec<&Literal> = args.iter().collect();
            guard("interpret invalid", announce, || {
                interpreter.run(&module, &refs)
            })?
            .ok();
        }
        let compiled = guard("compile invalid", announce, || client.compile(&module))?;
        if compiled.is_ok() {
            return Err(Finding {
                kind: "accepted",
                stage: "compile invalid",
                signature: "the JIT compiled a module the verifier rejects".into(),
                detail: error.to_string(),
            });
        }
        return Ok(Verdict::Invalid(error.to_string()));
    }

    // The pass pipeline with the verifier after every pass, for a backend
    // that reads every layout and for the JIT's constraints; the second
    // result is the JIT's module before code generation, interpreted when
    // the JIT's result is wrong to tell the passes from the code.
    let mut optimized = module.clone();
    for constraints in [
        &Unconstrained as &dyn LayoutConstraints,
        &CpuLayoutConstraints,
    ] {
        optimized = module.clone();
        let options = PipelineOptions {
            verify: true,
            layout_constraints: Some(constraints),
            ..PipelineOptions::default()
        };
        let passes = guard("optimize", announce, || optimize(&mut optimized, &options))?;
        if let Err(error) = &passes {
            return Err(Finding {
                kind: "pass error",
                stage: "optimize",
                signature: format!("optimize: {}", strip_numbers(&error.to_string())),
                detail: error.to_string(),
            });
        }
    }
    let compiled = guard("compile", announce, || client.compile(&module))?;
    let bytes = module_bytes(&module);
    let Some(args) = guard("args", announce, || arguments(&module, seed))? else {
        return Ok(Verdict::TooLarge);
    };
    if bytes > MAX_RUN_BYTES {
        return Ok(Verdict::TooLarge);
    }
    let refs: Vec<&Literal> = args.iter().collect();
    let mut want = guard("interpret", announce, || interpreter.run(&module, &refs))?;
    if want.is_err() && compiled.is_ok() {
        // The interpreter runs dead instructions too (and fails on a dead
        // collective naming devices the run lacks); the JIT runs the
        // optimized module, without them. Compare on that module.
        want = guard("interpret optimized", announce, || {
            interpreter.run(&optimized, &refs)
        })?;
    }
    if let Err(
        InterpError::OutOfMemory { .. } | InterpError::Literal(LiteralError::OutOfMemory { .. }),
    ) = want
    {
        // The interpreter keeps every instruction's layout (the JIT may
        // assign a smaller one), and the worker's memory limit is below
        // the machine's.
        return Ok(Verdict::TooLarge);
    }
    let got = match &compiled {
        Ok(executable) => Some(guard("execute", announce, || executable.execute(&refs))?),
        Err(_) => None,
    };
    if let Some(Err(JitError::OutOfMemory { .. })) = got {
        // The worker's memory limit is below the machine's.
        return Ok(Verdict::TooLarge);
    }
    // Values are compared unless the module draws `rng` values (not
    // XLA's, nor the JIT's) or sums f16/bf16 values (reduce, dot,
    // convolution, reduce-window): each rounded step moves with the
    // (unspecified) order, and later ops such as a normalisation amplify
    // it until neither backend is near the f32 result (seed 632049:
    // -1.87 and -0.29 for -0.97). Shapes are always compared.
    let half_sums = text.contains("f16[")
        && [" reduce(", " dot(", " convolution(", " reduce-window("]
            .iter()
            .any(|op| text.contains(op));
    let comparable = !text.contains(" rng(") && !half_sums;
    match (want, compiled, got) {
        (Err(_), Err(_), _) => Ok(Verdict::BothFailed),
        (Err(_), Ok(_), Some(Err(_))) => Ok(Verdict::BothFailed),
        (Ok(want), Ok(_), Some(Ok(got))) => {
            let mismatch = guard("compare", announce, || compare(&want, &got, comparable))?;
            match mismatch {
                None => Ok(Verdict::Ran),
                Some(m)
                    if let Some((_, _, why)) = KNOWN
                        .iter()
                        .find(|(op, part, _)| text.contains(op) && m.contains(part)) =>
                {
                    Ok(Verdict::Known(why))
                }
                Some(m) => {
                    let passes_agree = guard("interpret optimized", announce, || {
                        interpreter.run(&optimized, &refs)
                    })?
                    .map(|w| compare(&want, &w, comparable).is_none());
                    let culprit = match passes_agree {
                        Ok(true) => "the JIT's code",
                        Ok(false) => "the passes",
                        Err(_) => "the passes (the optimized module fails)",
                    };
                    Err(Finding {
                        kind: "mismatch",
                        stage: "compare",
                        signature: format!("mismatch ({culprit})"),
                        detail: m,
                    })
                }
            }
        }
        (want, compiled, got) => {
            let describe = |r: Result<String, String>| match r {
                Ok(s) => s,
                Err(e) => format!("error: {e}"),
            };
            let interp = describe(
                want.map(|w| w.shape().to_string())
                    .map_err(|e| e.to_string()),
            );
            let jit = match (compiled, got) {
                (Err(e), _) => format!("compile error: {e}"),
                (Ok(_), Some(Err(e))) => format!("execute error: {e}"),
                (Ok(_), Some(Ok(g))) => g.shape().to_string(),
                (Ok(_), None) => "not run".into(),
            };
            let who = if interp.starts_with("error") {
                "interpreter fails, JIT succeeds"
            } else {
                "JIT fails, interpreter succeeds"
            };
            Err(Finding {
                kind: "disagree",
                stage: "compare",
                signature: format!(
                    "{who}: {}",
                    strip_numbers(if interp.starts_with("error") {
                        &interp
                    } else {
                        &jit
                    })
                ),
                detail: format!("interpreter: {interp}\njit: {jit}"),
            })
        }
    }
}

/// `None` if `got` matches `want` (shape with layout, and with `values`
/// the values within [`TOLERANCE`], or [`HALF_TOLERANCE`] for f16 or bf16
/// elements, NaN matching NaN), else what differs.
fn compare(want: &Literal, got: &Literal, values: bool) -> Option<String> {
    if want.shape() != got.shape() {
        return Some(format!("result shape {} vs {}", want.shape(), got.shape()));
    }
    if !values {
        return None;
    }
    let half = want.shape().array_leaves().iter().any(|leaf| {
        matches!(
            leaf.element_type(),
            PrimitiveType::F16 | PrimitiveType::Bf16
        )
    });
    let tolerance = if half { HALF_TOLERANCE } else { TOLERANCE };
    want.check_close(got, tolerance)
        .err()
        .map(|m| m.to_string())
}

/// A message without its numbers and names' suffixes, to group findings.
fn strip_numbers(message: &str) -> String {
    let first_line = message.lines().next().unwrap_or_default();
    let mut out = String::new();
    let mut last_digit = false;
    for c in first_line.chars().take(160) {
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('#');
            }
            last_digit = true;
        } else {
            out.push(c);
            last_digit = false;
        }
    }
    out
}

/// Random arguments for the entry parameters, or `None` if they would be
/// larger than [`MAX_ARG_BYTES`]: floats in `[-2, 2)`, signed integers in
/// `[-8, 8)`, unsigned in `[0, 16)`, fair preds.
pub fn arguments(module: &HloModule, seed: u64) -> Option<Vec<Literal>> {
    let params = module.entry_program_shape().parameters;
    let total = params
        .iter()
        .fold(0i64, |acc, p| acc.saturating_add(shape_bytes(p)));
    if total > MAX_ARG_BYTES {
        return None;
    }
    let mut rng = Rng(seed ^ 0x5eed);
    params
        .iter()
        .map(|p| try_random_literal(p, &mut rng))
        .collect()
}
