//! The conformance cases (tests/conformance/cases: modules as JAX prints
//! them, with XLA:CPU's outputs) run on the JIT and compared by the
//! README's rule: exact cases bit for bit (any NaN matches any NaN),
//! toleranced cases within `atol + rtol·|want|` or `ulp`, elements listed
//! as `unchecked` skipped. Multi-device cases (collectives) are the
//! interpreter's alone.
//!
//! The JIT must pass every case the reference interpreter passes (the
//! interpreter's own failures are its harness's business and are only
//! counted here), and compile every elementwise, reduction, dot and
//! data-movement op of the cases: only the ops of [`INTERPRETED`] may run
//! through the interpreter fallback.
//!
//! `XLA_CONFORMANCE=<text>` runs only the cases whose name contains
//! `<text>` (as the interpreter's conformance test does).

use std::path::{Path, PathBuf};

use serde_json::Value;
use xla_core::half::{bf16, f16};
use xla_core::interp::Interpreter;
use xla_core::io::{read_npy, NpyOptions};
use xla_core::{HloModule, Literal, PrimitiveType, C128, C64};
use xla_jit::{Client, CompileOptions, JitError};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases")
}

/// One element, for comparison: integers exactly, floats with their bit
/// pattern's position in the type's ordered sequence (for ulp distances).
#[derive(Clone, Copy, Debug)]
enum Elem {
    Int(i128),
    Float { value: f64, ordinal: i64 },
    Complex([(f64, i64); 2]),
}

/// Position of a float in its type's ordered values, `-0` and `+0` both
/// at 0: `bits` of `width` bits, sign bit on top.
fn ordinal(bits: u64, width: u32) -> i64 {
    let sign = 1u64 << (width - 1);
    let magnitude = (bits & (sign - 1)) as i64;
    if bits & sign != 0 {
        -magnitude
    } else {
        magnitude
    }
}

fn elements(literal: &Literal) -> Vec<Elem> {
    let ty = literal.element_type().expect("an array result");
    let float = |value: f64, bits: u64, width| Elem::Float {
        value,
        ordinal: ordinal(bits, width),
    };
    match ty {
        PrimitiveType::Pred => literal
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(|x| Elem::Int(x as i128))
            .collect(),
        PrimitiveType::S8 => ints(literal.to_vec::<i8>().unwrap()),
        PrimitiveType::S16 => ints(literal.to_vec::<i16>().unwrap()),
        PrimitiveType::S32 => ints(literal.to_vec::<i32>().unwrap()),
        PrimitiveType::S64 => ints(literal.to_vec::<i64>().unwrap()),
        PrimitiveType::U8 => ints(literal.to_vec::<u8>().unwrap()),
        PrimitiveType::U16 => ints(literal.to_vec::<u16>().unwrap()),
        PrimitiveType::U32 => ints(literal.to_vec::<u32>().unwrap()),
        PrimitiveType::U64 => ints(literal.to_vec::<u64>().unwrap()),
        PrimitiveType::F16 => (literal.to_vec::<f16>().unwrap().into_iter())
            .map(|x| float(x.to_f64(), x.to_bits() as u64, 16))
            .collect(),
        PrimitiveType::Bf16 => (literal.to_vec::<bf16>().unwrap().into_iter())
            .map(|x| float(x.to_f64(), x.to_bits() as u64, 16))
            .collect(),
        PrimitiveType::F32 => (literal.to_vec::<f32>().unwrap().into_iter())
            .map(|x| float(x as f64, x.to_bits() as u64, 32))
            .collect(),
        PrimitiveType::F64 => (literal.to_vec::<f64>().unwrap().into_iter())
            .map(|x| float(x, x.to_bits(), 64))
            .collect(),
        PrimitiveType::C64 => (literal.to_vec::<C64>().unwrap().into_iter())
            .map(|c| {
                Elem::Complex([
                    (c.re as f64, ordinal(c.re.to_bits() as u64, 32)),
                    (c.im as f64, ordinal(c.im.to_bits() as u64, 32)),
                ])
            })
            .collect(),
        PrimitiveType::C128 => (literal.to_vec::<C128>().unwrap().into_iter())
            .map(|c| {
                Elem::Complex([
                    (c.re, ordinal(c.re.to_bits(), 64)),
                    (c.im, ordinal(c.im.to_bits(), 64)),
                ])
            })
            .collect(),
    }
}

fn ints<T: Into<i128>>(values: Vec<T>) -> Vec<Elem> {
    values.into_iter().map(|x| Elem::Int(x.into())).collect()
}

/// The comparison rule of tests/conformance/README.md.
struct Rule {
    exact: bool,
    atol: f64,
    rtol: f64,
    ulp: Option<f64>,
}

impl Rule {
    fn float_matches(&self, (want, wo): (f64, i64), (got, go): (f64, i64)) -> bool {
        if want.is_nan() || got.is_nan() {
            return want.is_nan() && got.is_nan();
        }
        if self.exact {
            return wo == go && want.is_sign_negative() == got.is_sign_negative();
        }
        if want == got {
            return true;
        }
        let close = want.is_finite()
            && got.is_finite()
            && (got - want).abs() <= self.atol + self.rtol * want.abs();
        close || self.ulp.is_some_and(|ulp| ((wo - go).abs() as f64) <= ulp)
    }

    fn matches(&self, want: Elem, got: Elem) -> bool {
        match (want, got) {
            (Elem::Int(w), Elem::Int(g)) => w == g,
            (
                Elem::Float {
                    value: w,
                    ordinal: wo,
                },
                Elem::Float {
                    value: g,
                    ordinal: go,
                },
            ) => self.float_matches((w, wo), (g, go)),
            (Elem::Complex(w), Elem::Complex(g)) => {
                (0..2).all(|k| self.float_matches(w[k], g[k]))
                    || (!self.exact && {
                        let (dr, di) = (g[0].0 - w[0].0, g[1].0 - w[1].0);
                        let magnitude = w[0].0.hypot(w[1].0);
                        dr.hypot(di) <= self.atol + self.rtol * magnitude
                    })
            }
            _ => false,
        }
    }
}

fn flatten(value: Literal, out: &mut Vec<Literal>) {
    if value.tuple_elements().is_some() {
        for element in value.into_tuple_elements().unwrap() {
            flatten(element, out);
        }
    } else if value.shape().is_array() {
        out.push(value);
    }
}

fn npy(path: &Path, dtype: &str) -> Literal {
    let as_type = (dtype == "bf16").then_some(PrimitiveType::Bf16);
    read_npy(path, &NpyOptions { as_type }).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

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

fn run_case(dir: &Path, client: &Client, engine: Engine, fallbacks: &mut Vec<String>) -> Outcome {
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
    let module: HloModule = match text.parse() {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("parse: {e}")),
    };
    let dtype = |v: &Value| v["dtype"].as_str().unwrap().to_string();
    let args: Vec<Literal> = case["args"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, a)| npy(&dir.join(format!("arg{i}.npy")), &dtype(a)))
        .collect();
    let refs: Vec<&Literal> = args.iter().collect();
    let result = match engine {
        Engine::Jit { split } => {
            let options = CompileOptions {
                split_kernels: split,
                ..CompileOptions::default()
            };
            client.compile_with(&module, &options).and_then(|exe| {
                for op in exe.fallback_ops() {
                    fallbacks.push(op.opcode.name().to_string());
                }
                exe.execute(&refs)
            })
        }
        Engine::Interpreter => Interpreter::new()
            .run(&module, &refs)
            .map_err(JitError::from),
    };
    let result = match result {
        Ok(r) => r,
        Err(e @ JitError::Interp(_)) => return Outcome::Unsupported(e.to_string()),
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let mut got = Vec::new();
    flatten(result, &mut got);
    let outs = case["outs"].as_array().unwrap();
    if got.len() != outs.len() {
        return Outcome::Failed(format!("{} results, expected {}", got.len(), outs.len()));
    }
    let tolerance = &case["tolerance"];
    let rule = Rule {
        exact: case["exact"].as_bool().unwrap_or(false),
        atol: tolerance["atol"].as_f64().unwrap_or(0.0),
        rtol: tolerance["rtol"].as_f64().unwrap_or(0.0),
        ulp: tolerance["ulp"].as_f64(),
    };
    let unchecked: Vec<(u64, u64)> = case["unchecked"]
        .as_array()
        .map(|u| {
            u.iter()
                .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    for (j, (out, spec)) in got.iter().zip(outs).enumerate() {
        let want = npy(&dir.join(format!("out{j}.npy")), &dtype(spec));
        let (w, g) = (elements(&want), elements(out));
        if w.len() != g.len() {
            return Outcome::Failed(format!(
                "output {j}: {} elements, expected {}",
                g.len(),
                w.len()
            ));
        }
        let bad: Vec<usize> = (0..w.len())
            .filter(|&i| !unchecked.contains(&(j as u64, i as u64)) && !rule.matches(w[i], g[i]))
            .collect();
        if let Some(&first) = bad.first() {
            return Outcome::Failed(format!(
                "output {j}: {} of {} elements differ; first at flat index {first}: want {:?}, got {:?}",
                bad.len(),
                w.len(),
                w[first],
                g[first]
            ));
        }
    }
    Outcome::Passed
}

/// Runs one case; the JIT's fallback ops are added to `fallbacks`.
fn outcome(dir: &Path, client: &Client, engine: Engine, fallbacks: &mut Vec<String>) -> Outcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_case(dir, client, engine, fallbacks)
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
    let client = Client::cpu().unwrap();
    let filter = std::env::var("XLA_CONFORMANCE").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(&filter))
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no conformance case matches `{filter}`");
    let mut passed = 0;
    let (mut unsupported, mut interpreter_fails, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    let mut fallbacks: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for dir in &dirs {
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        if case.get("devices").is_some() || case.get("num_partitions").is_some() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut ops = Vec::new();
        let mut result = outcome(dir, &client, Engine::Jit { split: false }, &mut ops);
        if matches!(result, Outcome::Passed) {
            result = match outcome(dir, &client, Engine::Jit { split: true }, &mut Vec::new()) {
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
            outcome(dir, &client, Engine::Interpreter, &mut Vec::new()),
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
