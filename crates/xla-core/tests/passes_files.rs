//! Pass tests written as files: `tests/passes/<pass>/<case>.hlo` holds a
//! module, then, after a line `// after`, the module one run of the pass
//! must print (no `// after`: the pass must leave the module as it is).
//! Leading `//` lines describe the case. A new case is a new file.

use std::path::{Path, PathBuf};

use crate::passes_support::compare;
use xla_core::passes::{
    AlgebraicSimplifier, ConstantFolding, Cse, Dce, InlineCalls, InlineFusions,
};

/// The module text after the case's comment lines.
fn module_text(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (before, after) = match text.split_once("\n// after\n") {
        Some((before, after)) => (module_text(before), module_text(after)),
        None => (module_text(&text), module_text(&text)),
    };
    let pass = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match pass.as_str() {
        "simplify" => compare(AlgebraicSimplifier, &before, &after),
        "cse" => compare(Cse, &before, &after),
        "dce" => compare(Dce, &before, &after),
        "inline_calls" => compare(InlineCalls, &before, &after),
        "inline_fusions" => compare(InlineFusions, &before, &after),
        "constant_folding" => compare(ConstantFolding::new(1 << 20), &before, &after),
        other => Err(format!("no pass named `{other}`")),
    }
}

#[test]
fn pass_cases_in_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    files.sort();
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let r = std::panic::catch_unwind(|| check_file(f))
                .unwrap_or_else(|_| Err("panicked".to_string()));
            r.err().map(|e| format!("{}: {e}", f.display()))
        })
        .collect();
    assert!(files.len() >= 42, "only {} pass cases", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
