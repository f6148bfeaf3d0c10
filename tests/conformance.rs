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
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::Value;
use xla::interp::{DeviceAssignment, InterpError, Interpreter};
use xla::io::{read_npy, NpyOptions};
use xla::{HloModule, Layout, Literal, PrimitiveType};

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
    let filter = std::env::var("XLA_CONFORMANCE").unwrap_or_default();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/conformance/cases exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.json").exists())
        .filter(|p| name(p).contains(&filter))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no conformance case matches `{filter}`");

    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(dir) = cases.get(i) else { break };
                let outcome = run_case(dir).unwrap_or_else(Outcome::Failed);
                outcomes.lock().unwrap().insert(name(dir), outcome);
            });
        }
    });
    let outcomes = outcomes.into_inner().unwrap();
    report(&outcomes, filter.is_empty());
}

fn name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
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

/// A case's description (`case.json`).
struct Case {
    exact: bool,
    atol: f64,
    rtol: f64,
    ulp: Option<f64>,
    args: Vec<PrimitiveType>,
    outs: Vec<PrimitiveType>,
    /// `(output, flat index)` pairs not to compare.
    unchecked: Vec<(usize, usize)>,
    /// `(replicas, partitions)` of a collective case.
    devices: Option<(usize, usize)>,
}

impl Case {
    fn read(dir: &Path) -> Result<Case, String> {
        let text = std::fs::read_to_string(dir.join("case.json")).map_err(|e| e.to_string())?;
        let json: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let types = |key: &str| -> Result<Vec<PrimitiveType>, String> {
            json[key]
                .as_array()
                .ok_or(format!("case.json has no {key}"))?
                .iter()
                .map(|a| {
                    let t = a["dtype"].as_str().unwrap_or_default();
                    t.parse().map_err(|_| format!("unknown dtype {t}"))
                })
                .collect()
        };
        let tolerance = &json["tolerance"];
        let count = |key: &str| json[key].as_u64().map(|n| n as usize);
        Ok(Case {
            exact: json["exact"].as_bool().unwrap_or(true),
            atol: tolerance["atol"].as_f64().unwrap_or(0.0),
            rtol: tolerance["rtol"].as_f64().unwrap_or(0.0),
            ulp: tolerance["ulp"].as_f64(),
            args: types("args")?,
            outs: types("outs")?,
            unchecked: json["unchecked"]
                .as_array()
                .map(|pairs| {
                    pairs
                        .iter()
                        .map(|p| {
                            (
                                p[0].as_u64().unwrap_or(0) as usize,
                                p[1].as_u64().unwrap_or(0) as usize,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
            devices: count("num_partitions").map(|p| (count("num_replicas").unwrap_or(1), p)),
        })
    }
}

fn read_array(path: &Path, ty: PrimitiveType) -> Result<Literal, String> {
    let options = NpyOptions {
        as_type: (ty == PrimitiveType::Bf16).then_some(ty),
    };
    read_npy(path, &options).map_err(|e| e.to_string())
}

fn run_case(dir: &Path) -> Result<Outcome, String> {
    let case = Case::read(dir)?;
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let mut module: HloModule = text.parse().map_err(|e| format!("parse: {e}"))?;
    let suffixes: Vec<String> = match case.devices {
        None => vec![String::new()],
        Some((replicas, partitions)) => {
            // The SPMD body runs once per partition on its block.
            let body = module
                .computation_ids()
                .find(|&id| {
                    module
                        .computation(id)
                        .name
                        .starts_with("xla.sdy.manual_computation_body")
                })
                .ok_or("a collective case without a manual computation body")?;
            module.entry = body;
            module.entry_layout = None;
            (0..replicas * partitions)
                .map(|d| format!(".d{d}"))
                .collect()
        }
    };
    let args = suffixes
        .iter()
        .map(|s| {
            (0..case.args.len())
                .map(|i| read_array(&dir.join(format!("arg{i}{s}.npy")), case.args[i]))
                .collect::<Result<Vec<_>, _>>()
        })
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
        let mut leaves = Vec::new();
        flatten(result, &mut leaves);
        if leaves.len() != case.outs.len() {
            return Ok(Outcome::Failed(format!(
                "{} results, expected {}",
                leaves.len(),
                case.outs.len()
            )));
        }
        for (j, (got, &ty)) in leaves.into_iter().zip(&case.outs).enumerate() {
            let want = read_array(&dir.join(format!("out{j}{suffix}.npy")), ty)?;
            let skip: Vec<usize> = case
                .unchecked
                .iter()
                .filter(|(o, _)| *o == j)
                .map(|&(_, e)| e)
                .collect();
            if let Err(m) = compare(&case, got, &want, &skip) {
                return Ok(Outcome::Failed(format!("out{j}{suffix}: {m}")));
            }
        }
    }
    Ok(Outcome::Passed)
}

fn flatten<'a>(value: &'a Literal, leaves: &mut Vec<&'a Literal>) {
    match value.tuple_elements() {
        Some(elements) => elements.iter().for_each(|e| flatten(e, leaves)),
        None => leaves.push(value),
    }
}

/// One element of an output, for comparison.
#[derive(Clone, Copy, Debug)]
enum Element {
    /// Integers and pred: the bytes, as a number.
    Exact(u64),
    /// A float: its value, its bit pattern, and its position in the
    /// ordered sequence of its type's values (±0 at 0).
    Float { value: f64, bits: u64, order: i64 },
    /// A complex number's parts.
    Complex([(f64, u64, i64); 2]),
}

/// A float's `(value, bits, order)` from its bits of width `width`.
fn float(bits: u64, width: u32, value: f64) -> (f64, u64, i64) {
    let sign = 1u64 << (width - 1);
    let magnitude = (bits & (sign - 1)) as i64;
    let order = if bits & sign != 0 {
        -magnitude
    } else {
        magnitude
    };
    (value, bits, order)
}

/// The elements of an array in row-major order.
fn elements(l: &Literal) -> Result<Vec<Element>, String> {
    let shape = l.array_shape().map_err(|e| e.to_string())?;
    let l = l
        .relayout(&Layout::default_for_rank(shape.rank()))
        .map_err(|e| e.to_string())?;
    let ty = shape.element_type();
    let size = ty.byte_size();
    let bytes = l.bytes().map_err(|e| e.to_string())?;
    let word = |b: &[u8]| b.iter().rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
    Ok(bytes
        .chunks_exact(size)
        .map(|b| match ty {
            PrimitiveType::F16 => {
                let (v, bits, order) = float(
                    word(b),
                    16,
                    f64::from(xla::half::f16::from_bits(word(b) as u16)),
                );
                Element::Float {
                    value: v,
                    bits,
                    order,
                }
            }
            PrimitiveType::Bf16 => {
                let (v, bits, order) = float(
                    word(b),
                    16,
                    f64::from(xla::half::bf16::from_bits(word(b) as u16)),
                );
                Element::Float {
                    value: v,
                    bits,
                    order,
                }
            }
            PrimitiveType::F32 => {
                let (v, bits, order) =
                    float(word(b), 32, f64::from(f32::from_bits(word(b) as u32)));
                Element::Float {
                    value: v,
                    bits,
                    order,
                }
            }
            PrimitiveType::F64 => {
                let (v, bits, order) = float(word(b), 64, f64::from_bits(word(b)));
                Element::Float {
                    value: v,
                    bits,
                    order,
                }
            }
            PrimitiveType::C64 => Element::Complex([0, 4].map(|o| {
                let w = word(&b[o..o + 4]);
                float(w, 32, f64::from(f32::from_bits(w as u32)))
            })),
            PrimitiveType::C128 => Element::Complex([0, 8].map(|o| {
                let w = word(&b[o..o + 8]);
                float(w, 64, f64::from_bits(w))
            })),
            _ => Element::Exact(word(b)),
        })
        .collect())
}

/// The rule of `tests/conformance/README.md` ("Comparing") for one float.
fn float_matches(case: &Case, got: (f64, u64, i64), want: (f64, u64, i64)) -> bool {
    let ((g, g_bits, g_order), (w, w_bits, w_order)) = (got, want);
    if g.is_nan() && w.is_nan() {
        return true;
    }
    if case.exact {
        return g_bits == w_bits;
    }
    if g == w {
        return true;
    }
    if g.is_finite() && w.is_finite() && (g - w).abs() <= case.atol + case.rtol * w.abs() {
        return true;
    }
    let nan = g.is_nan() || w.is_nan();
    case.ulp
        .is_some_and(|ulp| !nan && (g_order - w_order).unsigned_abs() as f64 <= ulp)
}

fn compare(case: &Case, got: &Literal, want: &Literal, skip: &[usize]) -> Result<(), String> {
    let (got_shape, want_shape) = (got.array_shape(), want.array_shape());
    let (Ok(g), Ok(w)) = (got_shape, want_shape) else {
        return Err(format!("got {}, expected {}", got.shape(), want.shape()));
    };
    if g.element_type() != w.element_type() || g.dims() != w.dims() {
        return Err(format!(
            "got {}, expected {}",
            got.shape().clone().without_layouts(),
            want.shape().clone().without_layouts()
        ));
    }
    let (g, w) = (elements(got)?, elements(want)?);
    let mut mismatches = Vec::new();
    for (e, (g, w)) in g.iter().zip(&w).enumerate() {
        if skip.contains(&e) {
            continue;
        }
        let ok = match (g, w) {
            (Element::Exact(a), Element::Exact(b)) => a == b,
            (
                Element::Float { value, bits, order },
                Element::Float {
                    value: wv,
                    bits: wb,
                    order: wo,
                },
            ) => float_matches(case, (*value, *bits, *order), (*wv, *wb, *wo)),
            (Element::Complex(a), Element::Complex(b)) => {
                let parts = float_matches(case, a[0], b[0]) && float_matches(case, a[1], b[1]);
                let (gr, gi, wr, wi) = (a[0].0, a[1].0, b[0].0, b[1].0);
                let finite = [gr, gi, wr, wi].iter().all(|v| v.is_finite());
                let distance = (gr - wr).hypot(gi - wi);
                parts || (!case.exact && finite && distance <= case.atol + case.rtol * wr.hypot(wi))
            }
            _ => false,
        };
        if !ok {
            mismatches.push(format!("[{e}] got {g:?}, expected {w:?}"));
        }
    }
    match mismatches.len() {
        0 => Ok(()),
        n => Err(format!(
            "{n} of {} elements differ: {}",
            w.len(),
            mismatches[..n.min(3)].join("; ")
        )),
    }
}
