//! Gradients against JAX: each case of `tests/gradients/cases` (a forward
//! module as JAX prints it, its arguments, and `jax.grad`'s outputs, made by
//! `tests/gradients/gen.py`) is differentiated with `autodiff::grad` and
//! run on the reference interpreter and on the JIT; both must match JAX
//! within the case's tolerance.

use std::path::{Path, PathBuf};

use xla::autodiff::grad;
use xla::interp::Interpreter;
use xla::{Client, Literal};
use xla_testkit::Case;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gradients/cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").exists())
        .collect();
    dirs.sort();
    dirs
}

/// The parameters a case differentiates with respect to.
fn wrt(dir: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(dir.join("case.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    (json["wrt"].as_array().expect("case.json has wrt").iter())
        .map(|v| v.as_u64().unwrap() as usize)
        .collect()
}

/// Differentiates one case and checks both engines; the error says which
/// step failed.
fn check(dir: &Path, client: &Client) -> Result<(), String> {
    let case = Case::read(dir)?;
    let module = case.module()?;
    let derived = grad(&module, Some(&wrt(dir))).map_err(|e| format!("grad: {e}"))?;
    let args = case.args("")?;
    let refs: Vec<&Literal> = args.iter().collect();
    let interpreted = Interpreter::new()
        .run(&derived, &refs)
        .map_err(|e| format!("interpreter: {e}"))?;
    case.check(&interpreted, "")
        .map_err(|e| format!("interpreter: {e}"))?;
    let compiled = client
        .compile(&derived)
        .and_then(|exe| exe.execute(&refs))
        .map_err(|e| format!("jit: {e}"))?;
    case.check(&compiled, "").map_err(|e| format!("jit: {e}"))
}

#[test]
fn gradients_match_jax() {
    let client = Client::cpu().unwrap();
    let dirs = cases();
    assert!(dirs.len() >= 30, "the gradient cases are missing");
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            check(dir, &client).err().map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} gradient cases fail:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}
