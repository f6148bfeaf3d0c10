//! `xla run` under `mpirun` (the `mpi` feature): every collective
//! conformance case on 4 processes of one device and on 2 processes of 2
//! devices, each device's results the same bits as the reference
//! interpreter's (and within the case's tolerance of XLA's); the
//! data-parallel training step on 2 and 4 processes, the same bits as in
//! one process; and runs that cannot agree (processes of different
//! programs, a process that dies) end with an error, not a hang.
//!
//! `mpirun` runs as root here (CI), hence `--allow-run-as-root`; 4
//! processes on 2 cores need `--oversubscribe`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use xla::interp::{DeviceAssignment, Interpreter};
use xla::io::{read_npy, NpyOptions};
use xla::Literal;
use xla_testkit::case::{self, name, Form};
use xla_testkit::Case;

use crate::cli_support::{scratch, stderr};

/// `mpirun -np <np> xla run <args>`.
fn mpirun(np: usize, args: &[&Path]) -> Output {
    Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-np"])
        .arg(np.to_string())
        .args([env!("CARGO_BIN_EXE_xla"), "run"])
        .args(args)
        .output()
        .expect("mpirun runs (OpenMPI installed)")
}

/// Reads device `d`'s result leaves `DIR/r<d>/<j>.npy`.
fn results(out: &Path, d: usize, leaves: usize) -> Vec<Literal> {
    (0..leaves)
        .map(|j| {
            read_npy(out.join(format!("r{d}/{j}.npy")), &NpyOptions::default())
                .unwrap_or_else(|e| panic!("device {d} leaf {j}: {e}"))
        })
        .collect()
}

/// The array leaves of a result, in order.
fn leaves(result: &Literal) -> Vec<&Literal> {
    match result.tuple_elements() {
        Some(elements) => elements.iter().flat_map(leaves).collect(),
        None => vec![result],
    }
}

/// Runs `xla run <argv>` on `np` processes and checks that every device's
/// result leaves in `out` are the bits of `expected`'s (`what` names the
/// run in failures).
fn run_and_compare(np: usize, argv: &[PathBuf], out: &Path, expected: &[Literal], what: &str) {
    let paths: Vec<&Path> = argv.iter().map(PathBuf::as_path).collect();
    let run = mpirun(np, &paths);
    assert!(run.status.success(), "{what}: {}", stderr(&run));
    for (d, want) in expected.iter().enumerate() {
        let want = leaves(want);
        let got = results(out, d, want.len());
        for (j, (got, want)) in got.iter().zip(&want).enumerate() {
            assert!(
                same_bits(got, want),
                "{what}: device {d} leaf {j}: {got} against {want}"
            );
        }
    }
}

/// Equal dimensions and element type, and equal row-major bits.
fn same_bits(a: &Literal, b: &Literal) -> bool {
    a.shape().eq_ignoring_layout(b.shape()) && a.bytes().ok() == b.bytes().ok()
}

/// Runs every multi-device conformance case with `np` processes of `k`
/// devices (cases of another device count are skipped).
fn conformance_cases(np: usize, k: usize) {
    let dir = scratch("mpi", &format!("cases_{np}x{k}"));
    let mut ran = 0;
    for case_dir in case::all() {
        let case = Case::read(&case_dir).unwrap();
        let Some((replicas, partitions)) = case.devices else {
            continue;
        };
        if replicas * partitions != np * k {
            continue;
        }
        let name = name(&case_dir);
        let module = xla_core::spmd::per_device(case.module_in(Form::HloText).unwrap())
            .unwrap()
            .module;
        let suffixes = case.device_suffixes();
        let args: Vec<Vec<Literal>> = suffixes.iter().map(|s| case.args(s).unwrap()).collect();
        let expected = Interpreter::new()
            .run_partitioned(
                &module,
                args.clone(),
                DeviceAssignment::new(replicas, partitions),
            )
            .unwrap();
        let out = dir.join(&name);
        let replicas = replicas.to_string();
        let partitions = partitions.to_string();
        let k = k.to_string();
        let mut argv: Vec<PathBuf> = vec![
            case_dir.join("module.hlo"),
            "--num-replicas".into(),
            replicas.into(),
            "--num-partitions".into(),
            partitions.into(),
            "--devices-per-process".into(),
            k.into(),
            "--out".into(),
            out.clone(),
        ];
        for (d, suffix) in suffixes.iter().enumerate() {
            for i in 0..args[d].len() {
                argv.push(case_dir.join(format!("arg{i}{suffix}.npy")));
            }
        }
        run_and_compare(np, &argv, &out, &expected, &name);
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} cases for {np} processes of {k}");
}

#[test]
fn collective_cases_on_4_processes() {
    conformance_cases(4, 1);
}

#[test]
fn collective_cases_on_2_processes_of_2_devices() {
    conformance_cases(2, 2);
}

/// The data-parallel training step over MPI gives the bits it gives in one
/// process (`execute_devices`), which match XLA:CPU's within tolerance
/// (`crates/xla-jit/tests/runtime_collectives.rs`).
#[test]
fn data_parallel_training_step_over_mpi() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/collectives");
    let read =
        |n: &str| read_npy(root.join(format!("small_{n}.npy")), &NpyOptions::default()).unwrap();
    let x = read("x").to_vec::<f32>().unwrap();
    let y = read("y").to_vec::<i32>().unwrap();
    let (batch, features) = (y.len(), x.len() / y.len());
    for (np, k) in [(2, 1), (4, 1), (2, 2)] {
        let n = np * k;
        let dir = scratch("mpi", &format!("dp_{np}x{k}"));
        let rows = batch / n;
        let mut argv: Vec<PathBuf> = vec![
            root.join(format!("dp_mlp_small_{n}.hlo")),
            "--num-partitions".into(),
            n.to_string().into(),
            "--devices-per-process".into(),
            k.to_string().into(),
            "--out".into(),
            dir.join("out"),
        ];
        let mut args: Vec<Vec<Literal>> = Vec::new();
        for d in 0..n {
            let mut device = Vec::new();
            for p in ["w1", "b1", "w2", "b2"] {
                argv.push(root.join(format!("small_{p}.npy")));
                device.push(read(p));
            }
            let xs = x[d * rows * features..(d + 1) * rows * features].to_vec();
            let ys = y[d * rows..(d + 1) * rows].to_vec();
            let xl = Literal::from_vec(&[rows as i64, features as i64], xs).unwrap();
            let yl = Literal::from_vec(&[rows as i64], ys).unwrap();
            for (name, l) in [("x", &xl), ("y", &yl)] {
                let path = dir.join(format!("{name}{d}.npy"));
                std::fs::write(&path, xla::io::encode_npy(l, None).unwrap()).unwrap();
                argv.push(path);
            }
            device.extend([xl, yl]);
            args.push(device);
        }
        let text = std::fs::read_to_string(&argv[0]).unwrap();
        let module = xla_core::spmd::per_device(text.parse().unwrap())
            .unwrap()
            .module;
        let executable = xla::Client::cpu().unwrap().compile(&module).unwrap();
        let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
        let in_process = executable
            .execute_devices(&refs, DeviceAssignment::new(1, n), &Default::default())
            .unwrap();
        let what = format!("{np}×{k}");
        run_and_compare(np, &argv, &dir.join("out"), &in_process, &what);
    }
}

/// Processes that run different programs stop with an error naming the
/// mismatch; a process that dies ends the run. Neither hangs.
#[test]
fn runs_that_cannot_agree_end_with_an_error() {
    let dir = scratch("mpi", "mismatch");
    let add =
        "add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }";
    let write = |name: &str, op: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                "HloModule m, replica_count=2\n\n{add}\n\nENTRY e {{\n  x = f32[4] parameter(0)\n  \
                 y = f32[4] {op}(x)\n  ROOT r = f32[4] all-reduce(y), to_apply=add\n}}\n"
            ),
        )
        .unwrap();
        path
    };
    let (a, b) = (write("a.hlo", "negate"), write("b.hlo", "abs"));
    let x = dir.join("x.npy");
    std::fs::write(
        &x,
        xla::io::encode_npy(&Literal::vector(&[1f32, -2.0, 3.0, -4.0]), None).unwrap(),
    )
    .unwrap();
    let xla = env!("CARGO_BIN_EXE_xla");
    // `mpirun -np 1 xla run a.hlo x x : -np 1 <second…>`: its output, and
    // how long it took.
    let mpmd = |second: &[&std::ffi::OsStr]| {
        let started = Instant::now();
        let out = Command::new("mpirun")
            .args([
                "--oversubscribe",
                "--allow-run-as-root",
                "-np",
                "1",
                xla,
                "run",
            ])
            .args([&a, &x, &x])
            .args([":", "-np", "1"])
            .args(second)
            .output()
            .unwrap();
        (out, started.elapsed())
    };
    let (out, took) = mpmd(&[
        xla.as_ref(),
        "run".as_ref(),
        b.as_os_str(),
        x.as_os_str(),
        x.as_os_str(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("runs another program"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(60));
    let (out, took) = mpmd(&["false".as_ref()]);
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(90));
}

/// All-reduces past the size exchanged whole (their shares combined by
/// the process that owns each, sizes that do not split evenly, 3
/// processes) and large gathers and scatters, against the interpreter's
/// bits.
#[test]
fn large_collectives_over_mpi() {
    let add =
        "add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }";
    for (np, k) in [(2, 1), (3, 1), (2, 2)] {
        let n = np * k;
        let dir = scratch("mpi", &format!("large_{np}x{k}"));
        let text = format!(
            "HloModule m, replica_count={n}\n\n{add}\n\nENTRY e {{\n  x = f32[{e}] parameter(0)\n  \
             r = f32[{e}] all-reduce(x), to_apply=add\n  y = f32[{s}] parameter(1)\n  \
             g = f32[{g}] all-gather(y), dimensions={{0}}\n  \
             c = f32[{p}] reduce-scatter(y), dimensions={{0}}, to_apply=add\n  \
             ROOT t = (f32[{e}], f32[{g}], f32[{p}]) tuple(r, g, c)\n}}\n",
            e = 70_001,
            s = 6_000 * n,
            g = 6_000 * n * n,
            p = 6_000,
        );
        let module_path = dir.join("m.hlo");
        std::fs::write(&module_path, &text).unwrap();
        let module: xla::HloModule = text.parse().unwrap();
        let mut seed = 11;
        let params = module.entry_program_shape().parameters;
        let mut argv: Vec<PathBuf> = vec![
            module_path.clone(),
            "--devices-per-process".into(),
            k.to_string().into(),
            "--out".into(),
            dir.join("out"),
        ];
        let mut args = Vec::new();
        for d in 0..n {
            let device: Vec<Literal> = params
                .iter()
                .map(|p| xla_testkit::random::random_literal(p, &mut seed))
                .collect();
            for (i, l) in device.iter().enumerate() {
                let path = dir.join(format!("a{d}_{i}.npy"));
                std::fs::write(&path, xla::io::encode_npy(l, None).unwrap()).unwrap();
                argv.push(path);
            }
            args.push(device);
        }
        let expected = Interpreter::new()
            .run_partitioned(&module, args, DeviceAssignment::new(n, 1))
            .unwrap();
        let what = format!("{np}×{k}");
        run_and_compare(np, &argv, &dir.join("out"), &expected, &what);
    }
}

/// `xla bench` under `mpirun`: every process makes the same runs, process
/// 0 reports them once.
#[test]
fn bench_over_mpi() {
    let dir = scratch("mpi", "bench");
    let module = dir.join("m.hlo");
    std::fs::write(
        &module,
        "HloModule m, replica_count=2\n\n\
         add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }\n\n\
         ENTRY e {\n  x = f32[4096] parameter(0)\n  ROOT y = f32[4096] all-reduce(x), to_apply=add\n}\n",
    )
    .unwrap();
    let out = Command::new("mpirun")
        .args(["--oversubscribe", "--allow-run-as-root", "-np", "2"])
        .args([env!("CARGO_BIN_EXE_xla"), "bench", "--runs", "7", "--json"])
        .arg(&module)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", crate::cli_support::stdout(&out)));
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0]["runs"], 7);
    assert_eq!(reports[0]["fallback_ops"].as_array().unwrap().len(), 0);
}
