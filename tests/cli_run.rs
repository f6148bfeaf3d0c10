//! `xla run`, as a user runs it: results written as `.npy`, bf16 files,
//! several partitions, and errors that exit with status 2 without writing.

use std::path::{Path, PathBuf};
use std::process::Output;

use xla::interp::Interpreter;
use xla::io::{read_npy, NpyOptions};
use xla::{Literal, PrimitiveType};

use crate::cli_support::{self, array, stderr, stdout, write};

/// `xla run ARGS`.
fn xla(args: &[&Path]) -> Output {
    cli_support::xla(&[&[Path::new("run")], args].concat())
}

/// A fresh, empty directory for one test.
fn scratch(test: &str) -> PathBuf {
    cli_support::scratch("cli_run", test)
}

const CHOLESKY_AND_PASS: &str = "HloModule m\n\nENTRY e {\n  x = f32[2,2] parameter(0)\n  \
    y = bf16[3] parameter(1)\n  c = f32[2,2] cholesky(x), lower=true\n  \
    ROOT t = (f32[2,2], bf16[3]) tuple(c, y)\n}\n";

/// `CHOLESKY_AND_PASS` and its two arguments (`y` as bf16), written in
/// `dir`.
fn cholesky_files(dir: &Path, y: &[f32]) -> (PathBuf, PathBuf, PathBuf) {
    let module = write(dir, "m.hlo", CHOLESKY_AND_PASS);
    let x = array(dir, "x.npy", &Literal::matrix(&[[4.0f32, 2.0], [2.0, 3.0]]));
    let y = array(dir, "y.npy", &bf16s(y));
    (module, x, y)
}

fn bf16s(values: &[f32]) -> Literal {
    Literal::vector(
        &values
            .iter()
            .map(|&v| xla::half::bf16::from_f32(v))
            .collect::<Vec<_>>(),
    )
}

#[test]
fn writes_every_result_leaf() {
    let dir = scratch("leaves");
    let (module, x, y) = cholesky_files(&dir, &[1.5, -2.0, 0.25]);
    let out_dir = dir.join("out");
    let out = xla(&[&module, &x, &y, Path::new("--out"), &out_dir]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "{0}/0.npy: f32[2,2]\n{0}/1.npy: bf16[3]\n",
            out_dir.display()
        )
    );
    let c = read_npy(out_dir.join("0.npy"), &NpyOptions::default()).unwrap();
    assert_eq!(
        c.to_vec::<f32>().unwrap(),
        [2.0, 0.0, 1.0, std::f32::consts::SQRT_2]
    );
    // bf16 is written as `<V2`, and read back as bf16 only when asked.
    let bytes = std::fs::read(out_dir.join("1.npy")).unwrap();
    assert!(String::from_utf8_lossy(&bytes[..64]).contains("'descr': '<V2'"));
    let bf16 = NpyOptions {
        as_type: Some(PrimitiveType::Bf16),
    };
    assert_eq!(
        read_npy(out_dir.join("1.npy"), &bf16).unwrap(),
        bf16s(&[1.5, -2.0, 0.25])
    );
}

/// A bf16 parameter also takes `<u2` (the raw bits as uint16).
#[test]
fn bf16_from_uint16_bits() {
    let dir = scratch("bf16_u2");
    let module = write(&dir, "m.hlo", CHOLESKY_AND_PASS);
    let x = array(
        &dir,
        "x.npy",
        &Literal::matrix(&[[1.0f32, 0.0], [0.0, 1.0]]),
    );
    let bits: Vec<u16> = [1.5f32, -2.0, 0.25]
        .iter()
        .map(|&v| xla::half::bf16::from_f32(v).to_bits())
        .collect();
    let y = array(&dir, "y.npy", &Literal::vector(&bits));
    let out_dir = dir.join("out");
    let out = xla(&[&module, &x, &y, Path::new("--out"), &out_dir]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bf16 = NpyOptions {
        as_type: Some(PrimitiveType::Bf16),
    };
    assert_eq!(
        read_npy(out_dir.join("1.npy"), &bf16).unwrap(),
        bf16s(&[1.5, -2.0, 0.25])
    );
}

#[test]
fn several_partitions() {
    let dir = scratch("partitions");
    let module = write(
        &dir,
        "m.hlo",
        "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  p = u32[] partition-id()\n  \
         g = f32[4] all-gather(x), channel_id=1, dimensions={0}, replica_groups={{1,0}}, \
         use_global_device_ids=true\n  ROOT t = (u32[], f32[4]) tuple(p, g)\n}\n",
    );
    let a = array(&dir, "a.npy", &Literal::vector(&[1.0f32, 2.0]));
    let b = array(&dir, "b.npy", &Literal::vector(&[3.0f32, 4.0]));
    let out_dir = dir.join("out");
    let out = xla(&[
        Path::new("--num-partitions"),
        Path::new("2"),
        &module,
        &a,
        &b,
        Path::new("--out"),
        &out_dir,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The JIT ran it (the interpreter would have said so).
    assert_eq!(stderr(&out), "");
    for device in 0..2u32 {
        let d = out_dir.join(format!("r{device}"));
        let id = read_npy(d.join("0.npy"), &NpyOptions::default()).unwrap();
        assert_eq!(id, Literal::scalar(device));
        let g = read_npy(d.join("1.npy"), &NpyOptions::default()).unwrap();
        assert_eq!(g.to_vec::<f32>().unwrap(), [3.0, 4.0, 1.0, 2.0]);
    }
}

/// A `shard_map` module as JAX prints it (global shapes in its entry)
/// runs its per-device program on each device's shard, on the JIT: the
/// conformance case's per-device inputs give XLA's per-device outputs.
#[test]
fn shard_map_modules_run_per_device() {
    let dir = scratch("shard_map");
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/cases/collectives__psum_scatter");
    let out_dir = dir.join("out");
    let mut args = vec![
        case.join("module.hlo"),
        PathBuf::from("--num-partitions"),
        PathBuf::from("4"),
        PathBuf::from("--out"),
        out_dir.clone(),
    ];
    args.extend((0..4).map(|d| case.join(format!("arg0.d{d}.npy"))));
    let refs: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
    let out = xla(&refs);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    for d in 0..4 {
        let got = read_npy(out_dir.join(format!("r{d}/0.npy")), &NpyOptions::default()).unwrap();
        let want = read_npy(case.join(format!("out0.d{d}.npy")), &NpyOptions::default()).unwrap();
        assert_eq!(got, want, "device {d}");
    }
}

/// The run fails with `status` and the message; the output directory is
/// not created.
fn fails(test: &str, status: i32, args: &[&Path], out_dir: &Path) -> String {
    let out = xla(&[args, &[Path::new("--out"), out_dir]].concat());
    assert_eq!(out.status.code(), Some(status), "{test}: {}", stdout(&out));
    assert!(!out_dir.exists(), "{test} wrote {}", out_dir.display());
    stderr(&out)
}

#[test]
fn errors_exit_with_their_status_and_write_nothing() {
    let dir = scratch("errors");
    let (module, x, y) = cholesky_files(&dir, &[1.0, 2.0, 3.0]);
    let out_dir = dir.join("out");
    assert_eq!(
        fails("count", 2, &[&module, &x], &out_dir),
        "error: the entry computation takes 2 arrays (2 in all), but 1 were given\n"
    );
    let wrong_dims = array(&dir, "w.npy", &Literal::vector(&[1.0f32, 2.0]));
    assert_eq!(
        fails("dims", 1, &[&module, &wrong_dims, &y], &out_dir),
        format!(
            "error: {} holds f32[2], but parameter 0 (x) is f32[2,2]\n",
            wrong_dims.display()
        )
    );
    let wrong_type = array(&dir, "i.npy", &Literal::matrix(&[[4i32, 2], [2, 3]]));
    assert_eq!(
        fails("type", 1, &[&module, &wrong_type, &y], &out_dir),
        format!(
            "error: {} holds s32[2,2], but parameter 0 (x) is f32[2,2]\n",
            wrong_type.display()
        )
    );
    let missing = dir.join("missing.npy");
    assert!(fails("missing", 2, &[&module, &missing, &y], &out_dir)
        .starts_with(&format!("error: {}: cannot open", missing.display())));
    let devices = [Path::new("--num-replicas"), Path::new("2"), &module, &x, &y];
    assert_eq!(
        fails("devices", 2, &devices, &out_dir),
        "error: the entry computation takes 2 arrays for each of 2 devices (4 in all), but 2 were \
         given\n"
    );
    let unknown = write(
        &dir,
        "c.hlo",
        "HloModule m\n\nENTRY e {\n  x = f32[2,2] parameter(0)\n  \
         ROOT r = f32[2,2] custom-call(x), custom_call_target=\"mystery\"\n}\n",
    );
    assert_eq!(
        fails("unsupported", 1, &[&unknown, &x], &out_dir),
        "error: r: no custom-call target named `mystery` is registered\n"
    );
    let bad = write(
        &dir,
        "bad.hlo",
        "HloModule m\n\nENTRY e {\n  ROOT x = f32[ parameter(0)\n}\n",
    );
    assert!(
        fails("parse", 1, &[&bad], &out_dir).starts_with(&format!("error: {}:4:", bad.display()))
    );
    // A file where the output directory should be is refused before the
    // run and kept as it was.
    let file = write(&dir, "taken", "keep");
    let out = xla(&[&module, &x, &y, Path::new("--out"), &file]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "error: --out {}: a file of that name exists; --out names a directory to create or \
             reuse\n",
            file.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
}

/// The binary computes what the library computes.
#[test]
fn matches_the_library() {
    let dir = scratch("library");
    let module = write(&dir, "m.hlo", CHOLESKY_AND_PASS);
    let x = Literal::matrix(&[[9.0f32, 3.0], [3.0, 5.0]]);
    let y = bf16s(&[0.5, 0.75, 1.0]);
    let paths = [array(&dir, "x.npy", &x), array(&dir, "y.npy", &y)];
    let out_dir = dir.join("out");
    let out = xla(&[&module, &paths[0], &paths[1], Path::new("--out"), &out_dir]);
    assert!(out.status.success(), "{}", stderr(&out));
    let parsed = std::fs::read_to_string(&module).unwrap().parse().unwrap();
    let want = Interpreter::new().run(&parsed, &[&x, &y]).unwrap();
    let got = read_npy(out_dir.join("0.npy"), &NpyOptions::default()).unwrap();
    assert_eq!(got, want.tuple_elements().unwrap()[0]);
}

/// Every backend gives the same results for a fusion the JIT compiles as
/// AVX-512 code where the CPU has it (`jit`), as Cranelift's kernel
/// (`cranelift`) and in the interpreter (`interp`).
#[test]
fn every_backend_runs_the_module() {
    let dir = scratch("backends");
    let module = write(
        &dir,
        "m.hlo",
        "HloModule m\nENTRY e {\n  x = f32[37]{0} parameter(0)\n  \
         m = f32[37]{0} multiply(x, x)\n  ROOT s = f32[37]{0} subtract(m, x)\n}\n",
    );
    let values: Vec<f32> = (0..37).map(|i| i as f32 * 0.5 - 9.0).collect();
    let x = array(&dir, "x.npy", &Literal::vector(&values));
    let want: Vec<f32> = values.iter().map(|v| v * v - v).collect();
    for backend in ["jit", "cranelift", "interp"] {
        let out_dir = dir.join(backend);
        let out = xla(&[
            &module,
            &x,
            Path::new("--backend"),
            Path::new(backend),
            Path::new("--out"),
            &out_dir,
        ]);
        assert!(out.status.success(), "{backend}: {}", stderr(&out));
        let got = read_npy(out_dir.join("0.npy"), &NpyOptions::default()).unwrap();
        assert_eq!(got.to_vec::<f32>().unwrap(), want, "{backend}");
    }
}

/// Array files that are not `.npy` arrays (status 1), and device counts
/// the run cannot have (status 2): each an error that writes nothing (fuzzing
/// found `--num-replicas 100000` aborting while starting threads).
#[test]
fn bad_arrays_and_device_counts_are_errors() {
    let dir = scratch("bad_arrays");
    let module = write(
        &dir,
        "m.hlo",
        "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  ROOT n = f32[3] negate(x)\n}\n",
    );
    let good = array(&dir, "x.npy", &Literal::vector(&[1.0f32, 2.0, 3.0]));
    let bytes = std::fs::read(&good).unwrap();
    let out_dir = dir.join("out");
    let cases: [(&str, Vec<u8>, String); 4] = [
        (
            "empty",
            Vec::new(),
            "truncated file: the magic string and version needs 8 bytes, but only 0 remain".into(),
        ),
        (
            "header",
            bytes[..40].to_vec(),
            format!(
                "truncated file: the header needs {} bytes, but only 30 remain",
                bytes.len() - 12 - 10
            ),
        ),
        (
            "data",
            bytes[..bytes.len() - 1].to_vec(),
            "the shape needs 12 bytes of data, but the file holds 11".into(),
        ),
        (
            "garbage",
            b"PK\x03\x04 not an array".to_vec(),
            "not a .npy file: it starts with PK\\x03\\x04 not, not the magic string \\x93NUMPY"
                .into(),
        ),
    ];
    for (name, contents, message) in cases {
        let path = dir.join(format!("{name}.npy"));
        std::fs::write(&path, contents).unwrap();
        assert_eq!(
            fails(name, 1, &[&module, &path], &out_dir),
            format!("error: {}: {message}\n", path.display())
        );
    }
    let no_params = write(
        &dir,
        "r.hlo",
        "HloModule m\n\nENTRY e {\n  ROOT r = u32[] replica-id()\n}\n",
    );
    assert_eq!(
        fails(
            "zero replicas",
            2,
            &[&no_params, Path::new("--num-replicas"), Path::new("0")],
            &out_dir
        ),
        "error: a run needs at least one replica and one partition, not 0 × 1\n"
    );
    assert_eq!(
        fails(
            "many replicas",
            2,
            &[&no_params, Path::new("--num-replicas"), Path::new("100000")],
            &out_dir
        ),
        "error: a run on 100000 × 1 devices is beyond the 1024 one run can have (one thread per \
         device)\n"
    );
    // Device counts whose product overflows, and so would the count of
    // arrays per device (2 parameters × (2^63 + 1) wraps to 2).
    let two_params = write(
        &dir,
        "a.hlo",
        "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  y = f32[3] parameter(1)\n  ROOT s = f32[3] add(x, y)\n}\n",
    );
    for (replicas, partitions) in [
        ("18446744073709551615", "1"),
        ("9223372036854775809", "1"),
        ("4294967296", "4294967296"),
    ] {
        assert_eq!(
            fails(
                "overflowing replicas",
                2,
                &[
                    &two_params,
                    Path::new("--num-replicas"),
                    Path::new(replicas),
                    Path::new("--num-partitions"),
                    Path::new(partitions),
                    &good,
                    &good,
                ],
                &out_dir
            ),
            format!(
                "error: a run on {replicas} × {partitions} devices is beyond the \
                 1024 one run can have (one thread per device)\n"
            )
        );
    }
}

/// Without `--out` the results are printed, one leaf per line group,
/// device by device for several devices.
#[test]
fn prints_the_results_without_out() {
    let dir = scratch("print");
    let (module, x, y) = cholesky_files(&dir, &[1.0, 2.0, 3.0]);
    let out = xla(&[&module, &x, &y]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "0: f32[2,2] {\n  { 2, 0 },\n  { 1, 1.41421354 }\n}\n1: bf16[3] {1, 2, 3}\n"
    );
    let devices = write(
        &dir,
        "d.hlo",
        "HloModule m, replica_count=2\n\nENTRY e {\n  ROOT r = u32[] replica-id()\n}\n",
    );
    let out = xla(&[&devices]);
    assert_eq!(stdout(&out), "r0/0: u32[] 0\nr1/0: u32[] 1\n");
}
