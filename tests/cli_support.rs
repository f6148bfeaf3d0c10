//! What the tests of the `xla` binary share: running it, its output as
//! text, and files to give it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use xla::io::write_npy;
use xla::Literal;

/// Runs the `xla` binary with `args` and waits for it.
pub fn xla<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xla"))
        .args(args)
        .output()
        .expect("the xla binary runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh, empty directory for one test of a group (the tests run in
/// parallel, so each writes its own files).
pub fn scratch(group: &str, test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `name` (a relative path) in `dir`.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// Writes `literal` as the `.npy` file `name` in `dir`.
pub fn array(dir: &Path, name: &str, literal: &Literal) -> PathBuf {
    let path = dir.join(name);
    write_npy(&path, literal).unwrap();
    path
}

/// Writes `text` to `name` in the group's directory of the target
/// directory, kept between tests.
pub fn group_file(group: &str, name: &str, text: &str) -> PathBuf {
    write(
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(group),
        name,
        text,
    )
}
