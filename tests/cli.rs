//! The `xla` binary's `layout`, `print` and `check` subcommands, run as a
//! user runs them.

use std::path::PathBuf;
use std::process::Command;

use crate::cli_support::{group_file, stderr, stdout, xla};

/// Writes `text` to a file in the target directory.
fn module_file(name: &str, text: &str) -> PathBuf {
    group_file("cli", name, text)
}

#[test]
fn layout_prints_memory_order() {
    let out = xla(&["layout", "f32[2,3]{0,1}"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "0,0 1,0 0,1 1,1 0,2 1,2\n");
    let out = xla(&["layout", "f32[3,5]{1,0:T(2,2)}"]);
    assert_eq!(
        stdout(&out),
        "0,0 0,1 1,0 1,1 0,2 0,3 1,2 1,3 0,4 _ 1,4 _ 2,0 2,1 _ _ 2,2 2,3 _ _ 2,4 _ _ _\n"
    );
    let out = xla(&[
        "layout",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "--index",
        "1,3,5,7,9",
    ]);
    assert_eq!(stdout(&out), "9484\n");
    let out = xla(&[
        "layout",
        "bf16[16,256]{1,0:T(8,128)(2,1)}",
        "--index",
        "9,130",
    ]);
    assert_eq!(stdout(&out), "3077\n");
    let out = xla(&["layout", "f32[2,3]{0,1:P(3,5)}"]);
    assert_eq!(stdout(&out), "0,0 1,0 _ 0,1 1,1 _ 0,2 1,2 _ _ _ _ _ _ _\n");
}

/// An invalid shape or index is an invalid input (status 1); an image
/// beyond 65536 slots without `--all` a usage error (status 2).
#[test]
fn layout_rejects_bad_input() {
    let out = xla(&["layout", "f32[3,5"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: in shape: 1:8: expected `,` or `]`, found end of input\nf32[3,5\n       ^\n"
    );
    let out = xla(&["layout", "f32[3,5]", "--index", "3,1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: index 3 is out of range for dimension 0 of size 3 in f32[3,5]\n"
    );
    let out = xla(&["layout", "f32[3,5]", "--index", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: index 1 has 1 components but f32[3,5] has rank 2\n"
    );
    let out = xla(&["layout", "f32[3,5]{1,1}"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("1:9: expected a valid layout for f32[3,5]"),
        "{}",
        stderr(&out)
    );
    let out = xla(&["layout", "f32[100000000000]"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: f32[100000000000] has 100000000000 slots; the image is refused beyond 65536 \
         (--all prints every slot, --index i,j,... one element's offset)\n"
    );
    assert_eq!(stdout(&out), "");
    // The largest image printed without `--all`.
    let out = xla(&["layout", "u8[256,256]"]);
    assert!(out.status.success());
    assert!(stdout(&out).ends_with(" 255,254 255,255\n"));
}

const VALID: &str = "HloModule m, entry_computation_layout={(f32[4,8]{1,0})->f32[4]{0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[4]{0} reduce(x, zero), dimensions={1}, to_apply=add
}
";

#[test]
fn check_prints_the_entry_signature() {
    let path = module_file("valid.hlo", VALID);
    let out = xla(&["check", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "(f32[4,8]{1,0}) -> f32[4]{0}\n");
}

#[test]
fn check_reports_shape_and_syntax_errors_with_status_1() {
    let bad_shape = VALID
        .replace("ROOT r = f32[4]{0}", "ROOT r = f32[8]{0}")
        .replace("->f32[4]{0}", "->f32[8]{0}");
    let path = module_file("bad_shape.hlo", &bad_shape);
    let out = xla(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("r (reduce)"), "{err}");
    assert!(err.contains("f32[4]") && err.contains("f32[8]"), "{err}");

    let bad_syntax = VALID.replace("add(a, b)", "add(a, b");
    let path = module_file("bad_syntax.hlo", &bad_syntax);
    let out = xla(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.ends_with("bad_syntax.hlo:7:1: expected `)`, found `}`\n}\n^\n"),
        "{err}"
    );

    let out = xla(&["check", "/nonexistent/m.hlo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("error: cannot read /nonexistent/m.hlo"));
}

#[test]
fn print_is_canonical_and_stable() {
    let path = module_file("print.hlo", &VALID.replace("ENTRY main {", "ENTRY %main {"));
    let out = xla(&["print", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out);
    assert!(printed.contains("ENTRY main {"), "{printed}");
    let again = module_file("print2.hlo", &printed);
    assert_eq!(stdout(&xla(&["print", again.to_str().unwrap()])), printed);
}

/// As XLA's parser does, `print` and `check` give an array shape without a
/// layout the default one, and `print` always writes the
/// `entry_computation_layout` (jaxlib 0.10.2 prints this module so).
#[test]
fn omitted_layouts_print_as_the_default() {
    let bare = "HloModule m

ENTRY main {
  x = f32[4,8] parameter(0)
  y = f32[<=4] parameter(1)
  t = f32[8,4] transpose(x), dimensions={1,0}
  one = f32[] constant(1)
  ROOT r = (f32[8,4], f32[<=4], f32[]) tuple(t, y, one)
}
";
    let path = module_file("bare.hlo", bare);
    let out = xla(&["check", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "(f32[4,8]{1,0}, f32[<=4]{0}) -> (f32[8,4]{1,0}, f32[<=4]{0}, f32[])\n"
    );
    let printed = stdout(&xla(&["print", path.to_str().unwrap()]));
    assert!(
        printed.starts_with(
            "HloModule m, entry_computation_layout={(f32[4,8]{1,0}, f32[<=4]{0})->(f32[8,4]{1,0}, f32[<=4]{0}, f32[])}\n"
        ),
        "{printed}"
    );
    assert!(
        printed.contains("x = f32[4,8]{1,0} parameter(0)"),
        "{printed}"
    );
    assert!(
        printed.contains("t = f32[8,4]{1,0} transpose(x), dimensions={1,0}"),
        "{printed}"
    );
}

/// A buffer too large to hold in memory streams (with `--all`), and a
/// reader that stops early (`| head`) ends the output quietly: no panic,
/// status 0 (fuzzing found `xla layout f32[100000000000]` aborting on its
/// allocation and a closed pipe panicking).
#[test]
fn layout_streams_and_stops_when_the_reader_does() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_xla"))
        .args(["layout", "f32[100000000000]", "--all"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the xla binary runs");
    let mut head = [0u8; 20];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    assert_eq!(&head, b"0 1 2 3 4 5 6 7 8 9 ");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// Files that are not HLO text: empty, binary, a directory.
#[test]
fn unusable_module_files_are_errors_not_panics() {
    let empty = module_file("empty.hlo", "");
    let binary = module_file("binary.hlo", "");
    std::fs::write(&binary, [0x93, b'N', 0xff, 0xfe, 0, 1, 2]).unwrap();
    let dir = std::env::temp_dir();
    for command in ["check", "print"] {
        let out = xla(&[command, empty.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: {}:1:1: expected `HloModule`, found end of input\n\n^\n",
                empty.display()
            ),
            "{command}"
        );
        let out = xla(&[command, binary.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: {} is not a module (HLO or StableHLO text, MLIR bytecode, jax.export): byte 0 is not UTF-8\n",
                binary.display()
            ),
            "{command}"
        );
        let out = xla(&[command, dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            stderr(&out).starts_with(&format!("error: cannot read {}: ", dir.display())),
            "{command}: {}",
            stderr(&out)
        );
    }
}

/// A conformance case's folder.
fn case_dir(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/cases")
        .join(case)
}

#[test]
fn every_module_form_runs_alike() {
    let dir = case_dir("program__mlp_forward");
    let args: Vec<String> = (0..)
        .map(|i| dir.join(format!("arg{i}.npy")))
        .take_while(|path| path.exists())
        .map(|path| path.display().to_string())
        .collect();
    let run = |module: &std::path::Path| {
        let mut command = vec!["run".to_string(), module.display().to_string()];
        command.extend(args.iter().cloned());
        let out = xla(&command);
        assert!(
            out.status.success(),
            "{}: {}",
            module.display(),
            stderr(&out)
        );
        stdout(&out)
    };
    let from_hlo = run(&dir.join("module.hlo"));
    assert!(from_hlo.starts_with("0: f32["), "{from_hlo}");
    assert_eq!(run(&dir.join("module.mlir")), from_hlo);
    assert_eq!(run(&dir.join("module.jax_export")), from_hlo);
    // HLO printed as StableHLO runs alike and prints back as HLO.
    let printed = xla(&[
        "print",
        "--stablehlo",
        dir.join("module.hlo").to_str().unwrap(),
    ]);
    assert!(printed.status.success(), "{}", stderr(&printed));
    let text = stdout(&printed);
    assert!(text.starts_with("module @jit_"), "{text}");
    let file = module_file("mlp_forward.stablehlo", &text);
    assert_eq!(run(&file), from_hlo);
    let back = xla(&["check", file.to_str().unwrap()]);
    assert!(back.status.success(), "{}", stderr(&back));
}

#[test]
fn a_stablehlo_op_that_does_not_lower_is_named() {
    let file = module_file(
        "unknown_op.mlir",
        "module @m {\n  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n    \
         %0 = stablehlo.frobnicate %arg0 : tensor<2xf32> loc(\"model.py\":7:9)\n    \
         return %0 : tensor<2xf32>\n  }\n}\n",
    );
    for command in ["check", "print", "run"] {
        let out = xla(&[command, file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert_eq!(
            stderr(&out),
            format!(
                "error: {}: `stablehlo.frobnicate` at model.py:7:9: unknown op `stablehlo.frobnicate`\n",
                file.display()
            ),
            "{command}"
        );
    }
}
