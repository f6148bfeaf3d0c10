//! `chlo` ops read from StableHLO text, expanded by the lowering and run
//! by the interpreter, against XLA:CPU's results for the same modules
//! (`tests/data/chlo/gen.py` writes them from JAX: one module per op and
//! element type on edge values, `cases.json` holding the arguments and the
//! results as little-endian hex).
//!
//! Results are compared bit for bit (NaNs of any payload match) unless
//! [`TOLERANCES`] lists the case. The two conformance cases that use
//! `chlo.erfc` and `chlo.erf_inv` run from their `module.mlir` too.

use std::path::{Path, PathBuf};

use serde_json::Value;
use xla_core::interp::Interpreter;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_testkit::case::{Case, Form};
use xla_testkit::Rule;

/// Complex forms the lowering does not expand: reading them must fail
/// with an error naming the op.
const COMPLEX_UNSUPPORTED: &[&str] = &["asin", "acos", "atan", "asinh", "acosh", "atanh"];

/// Cases compared within `ulp` units in the last place (or `atol`)
/// instead of bit for bit, with the reason: the decompositions are ported
/// exactly, but XLA:CPU contracts a multiply feeding an add into one fused
/// multiply-add ([`FMA`]) and evaluates `exp`, `log`, `log1p`, `sin`,
/// `cos`, `atan2` and `erf` with its own approximations ([`MATH`]). The
/// bounds are the largest differences measured on the fixtures.
const TOLERANCES: &[(&str, f64, f64, &str)] = &[
    ("erf_float32", 3.0, 0.0, ERF),
    ("erf_float64", 1.0, 0.0, ERF),
    ("erfc_float32", 1.0, 0.0, FMA),
    ("erfc_float64", 8.0, 0.0, FMA),
    ("erf_inv_float64", 2.0, 0.0, FMA),
    ("lgamma_float16", 0.0, 5e-7, LGAMMA),
    ("lgamma_bfloat16", 0.0, 5e-7, LGAMMA),
    ("lgamma_float32", 8.0, 5e-7, LGAMMA),
    ("lgamma_float64", 8.0, 1e-15, LGAMMA),
    ("digamma_float32", 1.0, 0.0, FMA),
    ("bessel_i1e_float32", 3.0, 0.0, FMA),
    ("bessel_i1e_float64", 4.0, 0.0, FMA),
    ("sinh_float32", 3.0, 0.0, MATH),
    ("sinh_float64", 2.0, 0.0, MATH),
    ("sinh_complex64", 1.0, 0.0, MATH),
    ("sinh_complex128", 4.0, 0.0, MATH),
    ("cosh_float32", 1.0, 0.0, MATH),
    ("cosh_float64", 1.0, 0.0, MATH),
    ("cosh_complex64", 1.0, 0.0, MATH),
    ("cosh_complex128", 3.0, 0.0, MATH),
    ("asin_float64", 1.0, 0.0, MATH),
    ("acos_float32", 1.0, 0.0, MATH),
    ("acos_float64", 1.0, 0.0, MATH),
    ("atan_float32", 1.0, 0.0, MATH),
    ("atan_float64", 2.0, 0.0, MATH),
    ("asinh_float32", 1.0, 0.0, MATH),
    ("asinh_float64", 1.0, 0.0, MATH),
    ("acosh_float32", 1.0, 0.0, MATH),
    ("acosh_float64", 1.0, 0.0, MATH),
    ("atanh_float32", 1.0, 0.0, MATH),
    ("atanh_float64", 1.0, 0.0, MATH),
    ("polygamma_float32", 8.0, 0.0, POLYGAMMA),
    ("polygamma_float64", 22.0, 0.0, POLYGAMMA),
    ("zeta_float64", 1.0, 0.0, FMA),
];

/// Polynomials: XLA:CPU fuses `p·x + c` into one rounding, the interpreter
/// rounds twice.
const FMA: &str = "XLA:CPU contracts multiply-adds into fused multiply-adds";
/// Elementary functions: XLA:CPU's approximations and the interpreter's
/// differ by an ulp, and the decomposition carries it.
const MATH: &str = "XLA:CPU's exp/log/log1p/expm1/atan2/sin/cos differ by an ulp";
/// `erf` stays the HLO `erf` op (XLA's own HLO for `chlo.erf`), which
/// XLA:CPU evaluates with its own rational approximation.
const ERF: &str = "HLO erf: XLA:CPU's approximation, not a decomposition";
/// lgamma cancels to exactly 0 at 1 and 2 and near its other zeros, where
/// a one-ulp difference inside (FMA, log) is an absolute error of the
/// order of the `f32`/`f64` epsilon.
const LGAMMA: &str = "cancellation near lgamma's zeros: absolute error of an epsilon";
/// `exp(lgamma(n + 1))` turns lgamma's absolute error into a relative one
/// and zeta's power sums add FMA differences.
const POLYGAMMA: &str = "exp(lgamma(n + 1)) amplifies lgamma's absolute error";

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chlo")
}

/// The element type of a NumPy dtype name.
fn element_type(dtype: &str) -> PrimitiveType {
    match dtype {
        "bool" => PrimitiveType::Pred,
        "int8" => PrimitiveType::S8,
        "int32" => PrimitiveType::S32,
        "int64" => PrimitiveType::S64,
        "uint32" => PrimitiveType::U32,
        "uint64" => PrimitiveType::U64,
        "float16" => PrimitiveType::F16,
        "bfloat16" => PrimitiveType::Bf16,
        "float32" => PrimitiveType::F32,
        "float64" => PrimitiveType::F64,
        "complex64" => PrimitiveType::C64,
        "complex128" => PrimitiveType::C128,
        other => panic!("dtype {other} in cases.json"),
    }
}

/// An array of `cases.json`: dtype, shape and row-major bytes in hex.
fn literal(array: &Value) -> Literal {
    let ty = element_type(array["dtype"].as_str().unwrap());
    let dims: Vec<i64> = (array["shape"].as_array().unwrap().iter())
        .map(|d| d.as_i64().unwrap())
        .collect();
    let hex = array["hex"].as_str().unwrap().as_bytes();
    let mut l = Literal::zeros(&Shape::array(ty, dims)).unwrap();
    let out = l.bytes_mut().unwrap();
    assert_eq!(out.len() * 2, hex.len());
    for (o, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        *o = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
    }
    l
}

/// Runs one case; `Err` says how it differs from XLA:CPU.
fn run_case(case: &Value) -> Result<(), String> {
    let name = case["name"].as_str().unwrap();
    let op = case["op"].as_str().unwrap();
    let text = std::fs::read(data_dir().join(format!("{name}.mlir"))).unwrap();
    let loaded = xla_core::load_module(&text);
    if name.contains("complex") && COMPLEX_UNSUPPORTED.contains(&op) {
        return match loaded {
            Err(e) if e.to_string().contains(&format!("chlo.{op}")) => Ok(()),
            Err(e) => Err(format!("an error not naming chlo.{op}: {e}")),
            Ok(_) => Err("lowered a complex form expected to be unsupported".into()),
        };
    }
    let module = loaded.map_err(|e| e.to_string())?;
    let args: Vec<Literal> = case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(literal)
        .collect();
    let refs: Vec<&Literal> = args.iter().collect();
    let result = Interpreter::new()
        .run(&module, &refs)
        .map_err(|e| e.to_string())?;
    let outs: Vec<Literal> = case["outs"]
        .as_array()
        .unwrap()
        .iter()
        .map(literal)
        .collect();
    let got = xla_testkit::flatten(&result);
    if got.len() != outs.len() {
        return Err(format!("{} results, expected {}", got.len(), outs.len()));
    }
    let rule = match TOLERANCES.iter().find(|(c, _, _, _)| *c == name) {
        Some(&(_, ulp, atol, _)) => Rule {
            atol,
            ..Rule::ulps(ulp)
        },
        None => Rule::EXACT,
    };
    for (j, (g, want)) in got.into_iter().zip(&outs).enumerate() {
        rule.compare(g, want, &[])
            .map_err(|m| format!("result {j}: {m}"))?;
    }
    Ok(())
}

#[test]
fn chlo_ops_match_xla_cpu() {
    let text = std::fs::read_to_string(data_dir().join("cases.json")).unwrap();
    let cases: Value = serde_json::from_str(&text).unwrap();
    let cases = cases.as_array().unwrap();
    assert!(cases.len() > 90, "{} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            let name = c["name"].as_str().unwrap();
            run_case(c).err().map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Runs a conformance case from its StableHLO text and checks it with the
/// case's rule.
fn conformance_from_stablehlo(name: &str) {
    let dir = xla_testkit::case::cases_dir().join(name);
    let case = Case::read(&dir).unwrap();
    let module = case.module_in(Form::StableHloText).unwrap();
    let args = case.args("").unwrap();
    let refs: Vec<&Literal> = args.iter().collect();
    let result = Interpreter::new().run(&module, &refs).unwrap();
    case.check(&result, "").unwrap();
}

#[test]
fn mlp_gelu_grad_with_erfc_from_stablehlo() {
    conformance_from_stablehlo("program__mlp_gelu_grad");
}

#[test]
fn random_init_dropout_with_erf_inv_from_stablehlo() {
    conformance_from_stablehlo("program__random_init_dropout");
}
