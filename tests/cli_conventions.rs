//! The conventions every subcommand of `xla` keeps: one exit status per
//! kind of failure, `--out` that never mixes new and stale results,
//! `--timeout` that stops a runaway program, Ctrl-C, times in the unit
//! that fits, `--min-time`, and error messages that quote a window of a
//! long line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use xla::Literal;

use crate::cli_support::{self, array, stderr, stdout, write, xla};

/// A fresh, empty directory for one test.
fn scratch(test: &str) -> PathBuf {
    cli_support::scratch("cli_conventions", test)
}

const NEGATE: &str =
    "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT n = f32[3] negate(x)\n}\n";

/// A module that fails verification (an add of nothing).
const INVALID: &str = "HloModule m\nENTRY e {\n  ROOT x = f32[2] add()\n}\n";

/// A loop whose condition never turns false.
const FOREVER: &str = "HloModule m\n\n\
    cond {\n  s = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n\n\
    body {\n  s = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(s, one)\n}\n\n\
    ENTRY e {\n  z = s32[] constant(0)\n  ROOT w = s32[] while(z), condition=cond, body=body\n}\n";

/// Every subcommand: 0 on success, 1 for an invalid input, 2 for an
/// unreadable file or a usage error; `--help` says so.
#[test]
fn every_subcommand_exits_with_the_documented_status() {
    let dir = scratch("status");
    let valid = write(&dir, "valid.hlo", NEGATE);
    let invalid = write(&dir, "invalid.hlo", INVALID);
    let missing = dir.join("missing.hlo");
    let x = array(&dir, "x.npy", &Literal::vector(&[1.0f32, 2.0, 3.0]));
    let out = dir.join("out");
    let (valid, invalid, missing, x, out) = (
        valid.to_str().unwrap(),
        invalid.to_str().unwrap(),
        missing.to_str().unwrap(),
        x.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let min_time = ["--min-time", "0"];
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        ("check", vec![], vec![]),
        ("print", vec![], vec![]),
        ("dump", vec![], vec![]),
        ("run", vec![x], vec!["--out", out]),
        ("bench", vec![], min_time.to_vec()),
    ];
    for (command, arrays, flags) in cases {
        let with = |module: &str| {
            let mut args = vec![command, module];
            args.extend(&arrays);
            args.extend(&flags);
            xla(&args)
        };
        let ok = with(valid);
        assert_eq!(ok.status.code(), Some(0), "{command}: {}", stderr(&ok));
        let bad = with(invalid);
        assert_eq!(bad.status.code(), Some(1), "{command}: {}", stderr(&bad));
        assert!(
            stderr(&bad).starts_with(&format!("error: {invalid}")),
            "{command}"
        );
        let unreadable = with(missing);
        assert_eq!(unreadable.status.code(), Some(2), "{command}");
        assert!(
            stderr(&unreadable).starts_with(&format!("error: cannot read {missing}")),
            "{command}: {}",
            stderr(&unreadable)
        );
        let usage = xla(&[command, valid, "--no-such-flag"]);
        assert_eq!(usage.status.code(), Some(2), "{command}");
    }
    assert_eq!(xla(&["layout", "f32[2,3]{0,1}"]).status.code(), Some(0));
    assert_eq!(xla(&["layout", "f32[2,3]{0,7}"]).status.code(), Some(1));
    assert_eq!(xla(&["layout", "f32[1000000]"]).status.code(), Some(2));
    assert_eq!(xla(&["layout"]).status.code(), Some(2));
    let help = stdout(&xla(&["--help"]));
    for line in [
        "0    success",
        "1    the input is invalid",
        "2    usage or I/O",
        "124  a run",
    ] {
        assert!(help.contains(line), "{help}");
    }
}

/// `--out` into a directory an earlier run wrote: its results are
/// replaced, none left over; a directory holding anything else is refused
/// before the run and left as it was.
#[test]
fn out_never_mixes_new_and_stale_results() {
    let dir = scratch("out");
    let three = write(
        &dir,
        "three.hlo",
        "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  n = f32[3] negate(x)\n  \
         ROOT t = (f32[3], f32[3], f32[3]) tuple(x, n, x)\n}\n",
    );
    let one = write(&dir, "one.hlo", NEGATE);
    let devices = write(
        &dir,
        "devices.hlo",
        "HloModule m, replica_count=2\n\nENTRY e {\n  ROOT r = u32[] replica-id()\n}\n",
    );
    let x = array(&dir, "x.npy", &Literal::vector(&[1.0f32, 2.0, 3.0]));
    let out = dir.join("out");
    let listing = |dir: &Path| {
        let mut names: Vec<String> = walk(dir)
            .iter()
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect();
        names.sort();
        names
    };
    let run = |args: &[&Path]| {
        let mut all: Vec<&std::ffi::OsStr> = vec!["run".as_ref()];
        all.extend(args.iter().map(|p| p.as_os_str()));
        all.extend(["--out".as_ref(), out.as_os_str()]);
        xla(&all)
    };
    assert!(run(&[&three, &x]).status.success());
    assert_eq!(listing(&out), ["0.npy", "1.npy", "2.npy"]);
    assert!(run(&[&one, &x]).status.success());
    assert_eq!(listing(&out), ["0.npy"]);
    assert!(run(&[&devices]).status.success());
    assert_eq!(listing(&out), ["r0", "r0/0.npy", "r1", "r1/0.npy"]);
    assert!(run(&[&one, &x]).status.success());
    assert_eq!(listing(&out), ["0.npy"]);
    // A file that is not a result: refused, nothing touched.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let refused = run(&[&three, &x]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        format!(
            "error: --out {}: it holds {}, which is not a result of xla run; give a new or \
             empty directory, or one holding only an earlier run's results\n",
            out.display(),
            out.join("notes.txt").display()
        )
    );
    assert_eq!(listing(&out), ["0.npy", "notes.txt"]);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    // A failing run leaves the earlier results as they were.
    std::fs::remove_file(out.join("notes.txt")).unwrap();
    let before = std::fs::read(out.join("0.npy")).unwrap();
    let invalid = write(&dir, "invalid.hlo", INVALID);
    assert_eq!(run(&[&invalid]).status.code(), Some(1));
    assert_eq!(std::fs::read(out.join("0.npy")).unwrap(), before);
}

/// Every file and directory under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            all.extend(walk(&path));
        }
        all.push(path);
    }
    all
}

/// A `while` that never ends is stopped by `--timeout` on every backend,
/// with status 124, in `run` and in `bench`.
#[test]
fn timeout_stops_a_runaway_loop() {
    let dir = scratch("timeout");
    let forever = write(&dir, "forever.hlo", FOREVER);
    let out = dir.join("out");
    for backend in ["jit", "cranelift", "interp"] {
        let started = Instant::now();
        let stopped = xla(&[
            "run".as_ref(),
            forever.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--timeout".as_ref(),
            "0.2".as_ref(),
            "--backend".as_ref(),
            backend.as_ref(),
        ]);
        assert_eq!(
            stopped.status.code(),
            Some(124),
            "{backend}: {}",
            stderr(&stopped)
        );
        assert_eq!(
            stderr(&stopped),
            "error: the run passed its deadline (0.200 s)\n",
            "{backend}"
        );
        assert!(started.elapsed() < Duration::from_secs(30), "{backend}");
        assert!(!out.exists(), "{backend}");
    }
    let stopped = xla(&[
        "bench".as_ref(),
        forever.as_os_str(),
        "--timeout".as_ref(),
        "0.5".as_ref(),
    ]);
    assert_eq!(stopped.status.code(), Some(124), "{}", stderr(&stopped));
    assert!(
        stderr(&stopped).starts_with(&format!("error: {}: stopped after ", forever.display())),
        "{}",
        stderr(&stopped)
    );
    for bad in ["0", "-1", "nan"] {
        let refused = xla(&[
            "run".as_ref(),
            forever.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            format!("--timeout={bad}").as_ref(),
        ]);
        assert_eq!(refused.status.code(), Some(2), "{bad}");
    }
}

/// Ctrl-C (SIGINT) ends a run that would never end: nothing in a run (the
/// JIT's thread pool, the interpreter's loops) blocks or handles SIGINT, so
/// its default action ends the process.
#[test]
fn interrupt_ends_a_runaway_run() {
    let dir = scratch("interrupt");
    let forever = write(&dir, "forever.hlo", FOREVER);
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla"))
        .arg("run")
        .arg(&forever)
        .arg("--out")
        .arg(dir.join("out"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(2), "{status:?}");
            break;
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("xla run kept running after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `bench` prints each time in the unit that fits, and `--min-time` is
/// what it says: the runs of a fast module take at least that long.
#[test]
fn bench_times_have_units_and_min_time_holds() {
    let dir = scratch("bench");
    let module = write(&dir, "negate.hlo", NEGATE);
    let started = Instant::now();
    let out = xla(&[
        "bench".as_ref(),
        module.as_os_str(),
        "--min-time=0.5".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(started.elapsed() >= Duration::from_millis(500));
    let text = stdout(&out);
    let row = text.lines().nth(1).expect("a row");
    // Compile and run times of a 3-element negate: microseconds.
    assert!(row.contains(" µs"), "{text}");
    // The module's name, then four times (compile, median, min, max), each
    // a value from 1 to 999 in its unit (any size above 0 in ns).
    let fields: Vec<&str> = row.split_whitespace().collect();
    for time in fields[1..9].chunks(2) {
        let value: f64 = time[0].parse().expect("a number");
        assert!(["ns", "µs", "ms", "s"].contains(&time[1]), "{text}");
        assert!(value > 0.0 && value < 1000.0, "{text}");
        assert!(value >= 1.0 || time[1] == "ns", "{text}");
    }
}

/// A 1 MB line in a module: the error quotes a window of it, with the
/// column marked, not the whole line.
#[test]
fn errors_quote_a_window_of_a_long_line() {
    let dir = scratch("long_line");
    let values = vec!["1"; 500_000].join(",");
    let module = write(
        &dir,
        "long.hlo",
        &format!(
            "HloModule m\n\nENTRY e {{\n  ROOT c = f32[500000] constant({{{values}, x}})\n}}\n"
        ),
    );
    for command in ["check", "print", "dump"] {
        let out = xla(&[command.as_ref(), module.as_os_str()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let text = stderr(&out);
        assert!(text.len() < 1000, "{command}: {} bytes", text.len());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[1].starts_with('…') && lines[1].ends_with("1,1, x})"),
            "{text}"
        );
        let caret = lines[2].chars().count() - 1;
        assert_eq!(lines[1].chars().nth(caret), Some(','), "{text}");
    }
}

/// `bench --profile` prints where each module's time goes (JIT backends).
#[test]
fn bench_profiles_on_request() {
    let dir = scratch("profile");
    let module = write(&dir, "negate.hlo", NEGATE);
    let out = xla(&[
        "bench".as_ref(),
        module.as_os_str(),
        "--min-time=0".as_ref(),
        "--profile".as_ref(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains("profile of negate, "), "{text}");
    assert!(
        text.contains("  total ms   share      runs  step\n"),
        "{text}"
    );
    assert!(text.contains("kernel "), "{text}");
    let interp = xla(&[
        "bench".as_ref(),
        module.as_os_str(),
        "--min-time=0".as_ref(),
        "--profile".as_ref(),
        "--backend=interp".as_ref(),
    ]);
    assert_eq!(interp.status.code(), Some(2), "{}", stderr(&interp));
}
