//! The `xla` binary's JIT tools: `dump` and `bench`, run as a user runs
//! them.

use crate::cli_support::{group_file, stdout, xla};

/// Writes `text` to `name` (a relative path) in the target directory; the
/// tests run in parallel, so each writes its own files.
fn module_file(name: &str, text: &str) -> String {
    group_file("cli_jit", name, text).display().to_string()
}

const AXPY: &str =
    "HloModule axpy, entry_computation_layout={(f32[], f32[1000]{0}, f32[1000]{0})->f32[1000]{0}}

ENTRY e {
  a = f32[] parameter(0)
  x = f32[1000]{0} parameter(1)
  y = f32[1000]{0} parameter(2)
  ax = f32[1000]{0} broadcast(a), dimensions={}
  m = f32[1000]{0} multiply(ax, x)
  ROOT s = f32[1000]{0} add(m, y)
}
";

#[test]
fn dump_prints_the_plan_the_program_and_compile_times() {
    let path = module_file("dump/axpy.hlo", AXPY);
    let out = xla(&["dump", &path]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    for section in [
        "== optimized module",
        "== fusion plan",
        "fusion 0 (loop) root s",
        "fuse m into s: elementwise producer",
        "== program",
        "== buffers",
        "== fallback ops",
        "== compile time",
    ] {
        assert!(text.contains(section), "no `{section}` in:\n{text}");
    }
    // The flat fusion runs as native code where the CPU has AVX-512 or
    // AVX2.
    let native = xla_jit::wide::native_width();
    let kernel = match native {
        Some(xla_jit::wide::Width::Zmm) => "s_avx512_",
        Some(xla_jit::wide::Width::Ymm) => "s_avx2_",
        None => "s_loop_",
    };
    assert!(text.contains(&format!("  kernel {kernel}")), "{text}");
    assert!(!text.contains("== CLIF"), "{text}");
    assert!(!text.contains("== machine code"), "{text}");
    let out = xla(&["dump", &path, "--asm"]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("== machine code of {kernel}")),
        "{text}"
    );
    // One syntax for both code generators (GNU's, as objdump prints it):
    // the native kernel returns after clearing the upper halves.
    let lines: Vec<&str> = text.lines().collect();
    let returns = |before: &str| {
        lines
            .windows(2)
            .any(|w| w[0].ends_with(before) && w[1].ends_with(":  ret"))
    };
    if native.is_some() {
        assert!(returns(":  vzeroupper"), "{text}");
        assert!(text.contains("%zmm") || text.contains("%ymm"), "{text}");
    } else {
        assert!(text.contains(":  ret\n"), "{text}");
    }
    // Cranelift's kernel, its CLIF and machine code.
    let out = xla(&["dump", &path, "--cranelift-only"]);
    assert!(
        stdout(&out).contains("  kernel s_loop_"),
        "{}",
        stdout(&out)
    );
    let out = xla(&["dump", &path, "--clif", "--cranelift-only"]);
    let text = stdout(&out);
    assert!(text.contains("== CLIF of s_loop_"), "{text}");
    assert!(text.contains("function "), "{text}");
    assert!(!text.contains("== machine code"), "{text}");
    let out = xla(&["dump", &path, "--asm", "--cranelift-only"]);
    let text = stdout(&out);
    assert!(text.contains("== machine code of s_loop_"), "{text}");
    assert!(text.contains(":  ret\n"), "{text}");
    assert!(text.contains("%xmm"), "{text}");
    assert!(!text.contains("== CLIF"), "{text}");
}

#[test]
fn dump_reports_invalid_modules_with_status_1() {
    let path = module_file(
        "bad.hlo",
        "HloModule m\nENTRY e {\n  ROOT x = f32[2] add()\n}\n",
    );
    let out = xla(&["dump", &path]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn bench_prints_one_json_object_per_module() {
    let path = module_file("bench_json/axpy.hlo", AXPY);
    let out = xla(&["bench", &path, &path, "--json", "--min-time", "0.01"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(
        text.starts_with("[\n{\"name\": \"axpy\", \"backend\": \"jit\", \"compile_ms\": "),
        "{text}"
    );
    assert_eq!(text.matches("\"name\": \"axpy\"").count(), 2, "{text}");
    for key in [
        "\"run_ms\": {\"median\": ",
        "\"min\": ",
        "\"max\": ",
        "\"peak_rss_bytes\": ",
        "\"input_bytes\": 8004",
        "\"output_bytes\": 4000",
        "\"fallback_ops\": []",
    ] {
        assert!(text.contains(key), "no `{key}` in:\n{text}");
    }
    assert!(text.trim_end().ends_with("}\n]"), "{text}");
    let out = xla(&[
        "bench",
        &path,
        "--json",
        "--min-time",
        "0.01",
        "--backend",
        "cranelift",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(
        text.starts_with("[\n{\"name\": \"axpy\", \"backend\": \"cranelift\", \"compile_ms\": "),
        "{text}"
    );
}

#[test]
fn bench_runs_the_interpreter_and_prints_a_table() {
    let path = module_file("bench_interp/axpy.hlo", AXPY);
    let out = xla(&["bench", &path, "--backend", "interp", "--min-time", "0.01"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("module"), "{text}");
    assert!(lines[1].starts_with("axpy "), "{text}");
}

#[test]
fn bench_reports_a_failing_module() {
    let path = module_file(
        "missing_param.hlo",
        "HloModule m\nENTRY e {\n  ROOT x = f32[2] parameter(3)\n}\n",
    );
    let out = xla(&["bench", &path, "--min-time", "0.01"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with(&format!("error: {path}: ")), "{stderr}");
    assert_eq!(stdout(&out), "");
}

/// `--min-time` must be a finite, non-negative number of seconds (a
/// negative one reached the per-module child as a stray argument).
#[test]
fn bench_rejects_a_bad_min_time() {
    let path = module_file("axpy_min_time.hlo", AXPY);
    for (value, shown) in [("-1", "-1"), ("nan", "NaN"), ("inf", "inf")] {
        let out = xla(&["bench", &path, "--min-time", value]);
        assert_eq!(out.status.code(), Some(2), "{value}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("error: --min-time must be a finite number of seconds ≥ 0, not {shown}\n")
        );
    }
}

/// A result larger than memory, or a module file that is not text: each
/// an error naming the module, not an abort.
#[test]
fn dump_and_bench_report_unusable_modules() {
    let huge = module_file(
        "huge.hlo",
        "HloModule m\nENTRY e {\n  c = f32[] constant(1)\n  \
         ROOT b = f32[1099511627776] broadcast(c), dimensions={}\n}\n",
    );
    let out = xla(&["bench", &huge, "--min-time", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {huge}: cannot allocate 4398046511104 bytes for a result of shape \
             f32[1099511627776]{{0}}\n"
        )
    );
    let binary = module_file("binary.hlo", "");
    std::fs::write(&binary, [0xff, 0xfe, 0]).unwrap();
    let out = xla(&["dump", &binary]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {binary} is not a module (HLO or StableHLO text, MLIR bytecode, jax.export): byte 0 is not UTF-8\n")
    );
}
