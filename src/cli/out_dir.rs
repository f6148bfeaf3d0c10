//! `xla run --out DIR`: a directory that ends up holding this run's
//! results and nothing else.
//!
//! Results are `DIR/<j>.npy`, or `DIR/r<d>/<j>.npy` per device. A directory
//! that holds only such files (an earlier run's results) has them removed
//! before the new ones are written, so fewer results than last time leave
//! no stale files behind; a directory that holds anything else is refused
//! before the run, so no user file is ever overwritten or deleted.

use std::path::{Path, PathBuf};

use super::Failure;

/// The earlier results in `out`, to remove before writing new ones: empty
/// when `out` does not exist or is empty. A failure when `out` is a file,
/// cannot be read, or holds anything that is not a result.
pub fn earlier_results(out: &Path) -> Result<Vec<PathBuf>, Failure> {
    if !out.exists() {
        return Ok(Vec::new());
    }
    if !out.is_dir() {
        return Err(Failure::Usage(format!(
            "--out {}: a file of that name exists; --out names a directory to create or reuse",
            out.display()
        )));
    }
    let mut results = Vec::new();
    for path in entries(out)? {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.as_deref().unwrap_or_default();
        let is_result = if path.is_dir() {
            is_device_dir(name) && entries(&path)?.iter().all(|p| is_result_file(p))
        } else {
            is_result_file(&path)
        };
        if !is_result {
            return Err(Failure::Usage(format!(
                "--out {}: it holds {}, which is not a result of xla run; \
                 give a new or empty directory, or one holding only an earlier run's results",
                out.display(),
                path.display()
            )));
        }
        results.push(path);
    }
    Ok(results)
}

/// Removes the earlier results [`earlier_results`] found.
pub fn remove(out: &Path, results: Vec<PathBuf>) -> Result<(), Failure> {
    for path in results {
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| {
            Failure::Usage(format!(
                "--out {}: cannot remove the earlier result {}: {e}",
                out.display(),
                path.display()
            ))
        })?;
    }
    Ok(())
}

fn entries(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let read = |e: std::io::Error| Failure::Usage(format!("cannot read {}: {e}", dir.display()));
    std::fs::read_dir(dir)
        .map_err(read)?
        .map(|entry| entry.map(|e| e.path()).map_err(read))
        .collect()
}

/// `<j>.npy`, a regular file.
fn is_result_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    path.is_file() && name.strip_suffix(".npy").is_some_and(is_number)
}

/// `r<d>`.
fn is_device_dir(name: &str) -> bool {
    name.strip_prefix('r').is_some_and(is_number)
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}
