//! The seed modules: the conformance cases and the benchmark suite, in
//! canonical text, each small (every buffer of the module together at most
//! [`MAX_MODULE_BYTES`]).

use std::path::{Path, PathBuf};

use xla_core::verify::verify_module;
use xla_core::{HloModule, Shape};

/// The largest seed module, in bytes of all its instructions' buffers.
const MAX_MODULE_BYTES: i64 = 1 << 20;

/// Benchmark sizes above this are divided down by [`shrink`].
const LARGE_DIM: i64 = 16;

pub struct Seed {
    /// `<family>__<case>` or `bench__<name>`.
    pub name: String,
    /// The module's canonical text.
    pub text: String,
}

/// The corpus, grouped by family (the part of the name before `__`) so a
/// draw can pick a family first: 180 binary cases do not drown 3 scans.
pub struct Corpus {
    pub seeds: Vec<Seed>,
    pub families: Vec<Vec<usize>>,
    pub skipped: Vec<String>,
}

impl Corpus {
    /// Loads `<root>/tests/conformance/cases/*/module.hlo` and
    /// `<bench>/*.hlo`, in name order; names containing `filter` only.
    pub fn load(root: &Path, bench: &Path, filter: &str) -> Corpus {
        let mut seeds = Vec::new();
        let mut skipped = Vec::new();
        let mut files: Vec<(String, PathBuf, bool)> = Vec::new();
        if let Ok(dir) = std::fs::read_dir(root.join("tests/conformance/cases")) {
            for entry in dir.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                files.push((name, entry.path().join("module.hlo"), false));
            }
        }
        if let Ok(dir) = std::fs::read_dir(bench) {
            for entry in dir.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "hlo") {
                    let stem = path.file_stem().unwrap().to_string_lossy();
                    files.push((format!("bench__{stem}"), path, true));
                }
            }
        }
        files.sort();
        for (name, path, is_bench) in files {
            if !name.contains(filter) {
                continue;
            }
            match seed_text(&path, is_bench) {
                Ok(text) => seeds.push(Seed { name, text }),
                Err(why) => skipped.push(format!("{name}: {why}")),
            }
        }
        let mut families: Vec<(String, Vec<usize>)> = Vec::new();
        for (i, seed) in seeds.iter().enumerate() {
            let family = seed.name.split("__").next().unwrap_or_default();
            match families.iter_mut().find(|(f, _)| f == family) {
                Some((_, members)) => members.push(i),
                None => families.push((family.to_string(), vec![i])),
            }
        }
        Corpus {
            seeds,
            families: families.into_iter().map(|(_, m)| m).collect(),
            skipped,
        }
    }
}

fn seed_text(path: &Path, is_bench: bool) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut module: HloModule = text.parse().map_err(|e| format!("parse: {e}"))?;
    let body = module.computation_ids().find(|&id| {
        module
            .computation(id)
            .name
            .starts_with("xla.sdy.manual_computation_body")
    });
    if let Some(body) = body {
        // A Shardy SPMD case: its per-partition body runs on one device.
        module.entry = body;
        module.entry_layout = None;
    }
    let mut text = module.to_string();
    if is_bench {
        text = shrink(&text);
    }
    let module: HloModule = text.parse().map_err(|e| format!("shrunk: {e}"))?;
    verify_module(&module).map_err(|e| format!("shrunk: {e}"))?;
    let bytes = module_bytes(&module);
    if bytes > MAX_MODULE_BYTES {
        return Err(format!("{bytes} bytes of buffers"));
    }
    Ok(text)
}

/// Sum of the buffer sizes of every instruction of `module` (saturating;
/// a shape whose size cannot be computed counts as huge).
pub fn module_bytes(module: &HloModule) -> i64 {
    let mut total = 0i64;
    for id in module.computation_ids() {
        for instr in &module.computation(id).instructions {
            total = total.saturating_add(shape_bytes(&instr.shape));
        }
    }
    total
}

/// The bytes of `shape`'s array leaves (saturating).
pub fn shape_bytes(shape: &Shape) -> i64 {
    shape.array_leaves().iter().fold(0i64, |acc, leaf| {
        let elements = leaf
            .dims()
            .iter()
            .try_fold(1i64, |n, &d| n.checked_mul(d.max(0)))
            .unwrap_or(i64::MAX);
        let bytes = elements.saturating_mul(leaf.element_type().byte_size() as i64);
        acc.saturating_add(bytes)
    })
}

/// The benchmark modules at small sizes: every size above [`LARGE_DIM`]
/// inside a shape's `[…]` is divided by 128 (at least 2, at most 64).
/// Reshapes that
/// merge dimensions no longer agree; such seeds fail to verify and
/// are skipped.
fn shrink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        out.push_str(&rest[..=open]);
        let dims: Vec<String> = rest[open + 1..open + close]
            .split(',')
            .map(|d| match d.parse::<i64>() {
                Ok(n) if n > LARGE_DIM => (n / 128).clamp(2, 64).to_string(),
                _ => d.to_string(),
            })
            .collect();
        out.push_str(&dims.join(","));
        rest = &rest[open + close..];
    }
    out.push_str(rest);
    out
}
