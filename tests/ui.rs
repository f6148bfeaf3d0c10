//! Compile-time errors of the `xla!` macro: every error class has a case in
//! `tests/ui/` with the compiler's output in a `.stderr` file (generated with
//! `XLA_UI=overwrite cargo test --test all ui::`, reviewed, never edited by hand);
//! the programs in `tests/ui/pass/` (including the documentation's examples)
//! must compile and run.
//!
//! Each case is compiled by `rustc` against the `xla` library this test was
//! linked with, found beside the test binary, so the cases cost a compile of
//! their own source only (a harness building its own copy of the dependency
//! tree costs minutes on a clean checkout).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The lines of rustc's summary that say nothing about the case.
const SUMMARY_PREFIXES: [&str; 3] = [
    "error: aborting due to",
    "For more information about",
    "Some errors have detailed explanations",
];

#[test]
fn compile_errors_match_their_stderr_files() {
    let compiler = Compiler::locate();
    let overwrite = std::env::var_os("XLA_UI").is_some_and(|v| v == "overwrite");
    let mut failures = Vec::new();
    for case in cases("tests/ui") {
        let output = compiler.run(&case, "--emit=metadata");
        let expected_path = case.with_extension("stderr");
        let actual = normalize(&String::from_utf8_lossy(&output.stderr));
        if output.status.success() {
            failures.push(format!("{}: compiled, but must fail", case.display()));
        } else if overwrite {
            fs::write(&expected_path, &actual).expect("write a .stderr file");
        } else {
            let expected = fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != actual {
                failures.push(format!(
                    "{}: stderr differs from {}\n--- expected\n{expected}--- actual\n{actual}",
                    case.display(),
                    expected_path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn pass_programs_compile_and_run() {
    let compiler = Compiler::locate();
    for case in cases("tests/ui/pass") {
        let binary = compiler
            .out_dir
            .join(case.file_stem().expect("a file name"));
        let output = compiler.run(&case, "--emit=link");
        assert!(
            output.status.success(),
            "{} does not compile:\n{}",
            case.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let run = Command::new(&binary).output().expect("run a pass program");
        assert!(
            run.status.success(),
            "{} failed:\n{}",
            case.display(),
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

/// `rustc` with the `xla` library and its dependencies.
struct Compiler {
    deps: PathBuf,
    xla: PathBuf,
    out_dir: PathBuf,
}

impl Compiler {
    /// The test binary lives in the profile's `deps` directory, beside the
    /// `xla` rlib it links; the newest rlib is the one just built for it.
    fn locate() -> Self {
        let exe = std::env::current_exe().expect("the test binary's path");
        let deps = exe.parent().expect("the deps directory").to_path_buf();
        let xla = fs::read_dir(&deps)
            .expect("read the deps directory")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                let name = path.file_name().and_then(OsStr::to_str).unwrap_or("");
                name.starts_with("libxla-") && name.ends_with(".rlib")
            })
            .max_by_key(|path| fs::metadata(path).and_then(|m| m.modified()).ok())
            .expect("the xla rlib beside the test binary");
        let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui");
        fs::create_dir_all(&out_dir).expect("create the output directory");
        Compiler { deps, xla, out_dir }
    }

    /// Compiles `case` (a binary crate) with `emit`, from the package root
    /// so that diagnostics name `tests/ui/…`.
    fn run(&self, case: &Path, emit: &str) -> Output {
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let stem = case.file_stem().expect("a file name");
        Command::new(rustc)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "--edition",
                "2021",
                "--crate-type",
                "bin",
                "--color",
                "never",
            ])
            .arg(emit)
            .arg("-o")
            .arg(self.out_dir.join(stem))
            .arg("-L")
            .arg(format!("dependency={}", self.deps.display()))
            .arg("--extern")
            .arg(format!("xla={}", self.xla.display()))
            .arg(case)
            .output()
            .expect("run rustc")
    }
}

/// The `.rs` files of `dir` (relative to the package root), sorted.
fn cases(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<PathBuf> = fs::read_dir(root.join(dir))
        .expect("read the cases' directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension() == Some(OsStr::new("rs")))
        .map(|path| Path::new(dir).join(path.file_name().expect("a file name")))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {dir}");
    cases
}

/// rustc's stderr without its closing summary, ending in one newline.
fn normalize(stderr: &str) -> String {
    let kept: Vec<&str> = stderr
        .lines()
        .filter(|line| !SUMMARY_PREFIXES.iter().any(|p| line.starts_with(p)))
        .collect();
    let mut text = kept.join("\n").trim_end().to_string();
    text.push('\n');
    text
}
