//! `xla bench MODULE.hlo... [--backend jit|cranelift|interp] [--json]`:
//! compile and run modules on seeded random inputs; report compile time,
//! run time, peak memory and the ops that fell back to the interpreter.
//! A module for several devices (its `replica_count` × `num_partitions`)
//! runs every device on a thread of its own, each on its own inputs; a
//! run is all of them.
//!
//! Each module is measured in a fresh child process (this binary, re-run
//! with a hidden `--child` flag), so its peak RSS (`VmHWM` from
//! `/proc/self/status`) is its own: the binary, the compiled code, the
//! inputs, the outputs and whatever the run allocated, and nothing left over
//! from the module before it. For a fused elementwise chain that is the
//! process baseline (reported as `baseline_rss_bytes`) plus its inputs plus
//! its output.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use xla_core::interp::{DeviceAssignment, Interpreter, RunOptions};
use xla_core::literal::convert::convert_value;
use xla_core::{dispatch_native, HloModule, Literal, NativeType, PrimitiveType, Shape};
use xla_jit::{Client, CompileOptions, Executable, ExecuteOptions, Profile};

use super::processes::{launched_by_mpirun, DeviceArgs, Processes};
use super::{module_file, stdout, timeout, Failure, Outcome};

/// Benchmark modules on seeded random inputs.
///
/// Reports per module its load time (reading, parsing and, for StableHLO,
/// lowering the file: median of repeated loads), its compile time (median
/// of cold compiles), run time
/// (median, min, max after warm-up), peak memory and the ops that fall back
/// to the interpreter, each module measured in a process of its own.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Module files (HLO or StableHLO text, MLIR bytecode, `jax.export`
    /// artifacts); each is reported under its file stem.
    #[arg(required = true)]
    modules: Vec<PathBuf>,
    /// The backend that runs them.
    #[arg(long, value_enum, default_value_t = Backend::Jit)]
    backend: Backend,
    /// Print a JSON array, one object per module: `{"name", "compile_ms", "load_ms",
    /// "run_ms": {"median", "min", "max"}, "peak_rss_bytes",
    /// "fallback_ops", …}`.
    #[arg(long)]
    json: bool,
    /// Time each module's runs for at least this many seconds and at least
    /// 10 runs (3 runs for a module whose runs take so long that 10 × SECS
    /// pass before the tenth); the median comes from up to 4096 of the runs
    /// sampled uniformly, the min and max from all.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 1.0,
        allow_hyphen_values = true
    )]
    min_time: f64,
    /// After the timed runs, run each module again for about a second with
    /// each step timed, and print where the time goes (kernels, dots,
    /// copies, loops), the longest step first (JIT backends).
    #[arg(long)]
    profile: bool,
    /// Stop benchmarking a module (its compiles and runs) after this many
    /// seconds (status 124).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    #[command(flatten)]
    devices: DeviceArgs,
    /// Time exactly this many runs after 3 warm-up runs, instead of
    /// `--min-time` (under `mpirun` every process must make the same
    /// runs: 20 unless given).
    #[arg(long, value_name = "N")]
    runs: Option<u64>,
    /// Measure the single module in this process and print its JSON object
    /// (what the parent runs per module).
    #[arg(long, hide = true)]
    child: bool,
}

/// Which engine runs a module.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The JIT (compiled, fused kernels; native AVX-512 or AVX2 code for
    /// the fusions and dots it takes, where the CPU has it).
    Jit,
    /// The JIT with every fusion kernel compiled by Cranelift (128-bit
    /// vectors; the dot engine keeps its micro-kernel).
    Cranelift,
    /// The reference interpreter.
    Interp,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Jit => "jit",
            Backend::Cranelift => "cranelift",
            Backend::Interp => "interp",
        }
    }
}

/// Runs the subcommand: status 0 when every module ran; otherwise the
/// status of the first that failed (1 invalid, 2 unreadable, 124 stopped by
/// `--timeout`), after the modules before it were reported.
pub fn run(args: Args) -> Outcome {
    if !(args.min_time.is_finite() && args.min_time >= 0.0) {
        return Err(Failure::Usage(format!(
            "--min-time must be a finite number of seconds ≥ 0, not {}",
            args.min_time
        )));
    }
    if args.profile && args.backend == Backend::Interp {
        return Err(Failure::Usage(
            "--profile times the JIT's steps: use --backend jit or cranelift".into(),
        ));
    }
    let limit = args.timeout.map(timeout::duration).transpose()?;
    if launched_by_mpirun() {
        // One process of a run over MPI: measured here, where MPI runs,
        // and reported by process 0.
        let [module] = args.modules.as_slice() else {
            return Err(Failure::Usage(
                "under mpirun, xla bench takes one module".into(),
            ));
        };
        if args.backend == Backend::Interp || args.profile {
            return Err(Failure::Usage(
                "under mpirun, xla bench runs the JIT, without --profile".into(),
            ));
        }
        let (report, first) = measure(module, &args)?;
        if !first {
            return Ok(());
        }
        let line = if args.json {
            format!("[\n{}\n]", report.json())
        } else {
            format!("{}\n{}", Report::HEADER, report.row())
        };
        return stdout::write(&format!("{line}\n"));
    }
    if args.child {
        let [module] = args.modules.as_slice() else {
            return Err(Failure::Usage("--child takes exactly one module".into()));
        };
        let (report, _) = measure(module, &args)?;
        let line = if args.json {
            report.json()
        } else {
            report.row()
        };
        return stdout::write(&format!("{line}\n"));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Usage(format!("cannot find the xla binary: {e}")))?;
    let mut reports = Vec::new();
    let mut failure = None;
    for module in &args.modules {
        let mut child = Command::new(&exe);
        child
            .arg("bench")
            .arg("--child")
            .arg(module)
            .args(["--backend", args.backend.name()])
            .arg(format!("--min-time={}", args.min_time))
            .args(args.profile.then_some("--profile"))
            .args(args.devices.flags())
            .args(args.runs.map(|n| format!("--runs={n}")))
            .args(args.json.then_some("--json"));
        let out = match run_child(child, limit)? {
            Child::Done(out) => out,
            Child::TimedOut(after) => {
                failure = Some(Failure::Timeout(format!(
                    "{}: stopped after {:.3} s (--timeout)",
                    module.display(),
                    after.as_secs_f64()
                )));
                break;
            }
        };
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        match out.status.code() {
            Some(0) => reports.push(String::from_utf8_lossy(&out.stdout).trim_end().to_string()),
            // The child printed its error, naming the module.
            Some(status) => {
                failure = Some(Failure::Reported(status as u8));
                break;
            }
            // Killed by a signal (the out-of-memory killer, a crash): it
            // printed nothing.
            None => {
                failure = Some(Failure::Invalid(format!(
                    "{}: the measuring process died ({})",
                    module.display(),
                    out.status
                )));
                break;
            }
        }
    }
    if !reports.is_empty() {
        let table = if args.json {
            format!("[\n{}\n]\n", reports.join(",\n"))
        } else {
            format!("{}\n{}\n", Report::HEADER, reports.join("\n"))
        };
        stdout::write(&table)?;
    }
    failure.map_or(Ok(()), Err)
}

/// How a child measuring one module ended.
enum Child {
    Done(std::process::Output),
    TimedOut(Duration),
}

/// Runs `command`, collecting its output, and kills it once `limit` has
/// passed.
fn run_child(mut command: Command, limit: Option<Duration>) -> Result<Child, Failure> {
    let cannot_run = |e: std::io::Error| Failure::Usage(format!("cannot run the xla binary: {e}"));
    let Some(limit) = limit else {
        return command.output().map(Child::Done).map_err(cannot_run);
    };
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(cannot_run)?;
    fn drain(mut reader: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = reader.read_to_end(&mut bytes);
            bytes
        })
    }
    let stdout = drain(child.stdout.take().expect("piped"));
    let stderr = drain(child.stderr.take().expect("piped"));
    let waited = |e: std::io::Error| Failure::Usage(format!("cannot wait for the xla binary: {e}"));
    let status = loop {
        if let Some(status) = child.try_wait().map_err(waited)? {
            break status;
        }
        if started.elapsed() >= limit {
            let _ = child.kill();
            child.wait().map_err(waited)?;
            return Ok(Child::TimedOut(started.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let join = |h: std::thread::JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
    Ok(Child::Done(std::process::Output {
        status,
        stdout: join(stdout),
        stderr: join(stderr),
    }))
}

/// One module's measurements.
struct Report {
    name: String,
    backend: Backend,
    load: Vec<Duration>,
    compile: Vec<Duration>,
    runs: Samples,
    peak_rss: u64,
    baseline_rss: u64,
    input_bytes: u64,
    output_bytes: u64,
    fallback_ops: Vec<String>,
}

/// Measures the module; with it, whether this is the run's first process
/// (the one that reports, under `mpirun`).
fn measure(path: &Path, bench: &Args) -> Result<(Report, bool), Failure> {
    let (backend, min_time, profile) = (bench.backend, bench.min_time, bench.profile);
    let baseline_rss = rss_bytes("VmRSS");
    let (load, module) = load_repeatedly(path)?;
    let module = module_file::per_device(module)?;
    let assignment = bench.devices.assignment(&module);
    assignment
        .checked_device_count()
        .map_err(|e| Failure::Invalid(format!("{}: {e}", path.display())))?;
    let processes = bench.devices.start(assignment)?;
    let local = processes.local_devices();
    let name = path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let fail = |e: &dyn std::fmt::Display| Failure::Invalid(format!("{}: {e}", path.display()));
    let (compile, runner, fallback_ops) = match backend {
        Backend::Jit | Backend::Cranelift => {
            let client = Client::cpu().map_err(|e| fail(&e))?;
            let cranelift_only = backend == Backend::Cranelift;
            let (compile, executable) =
                compile_cold(&client, &module, cranelift_only).map_err(|e| fail(&e))?;
            let mut ops: Vec<String> = executable
                .fallback_ops()
                .iter()
                .map(|op| op.opcode.name().to_string())
                .collect();
            ops.sort();
            ops.dedup();
            (
                compile,
                Runner::Jit(executable, assignment, &processes),
                ops,
            )
        }
        Backend::Interp => (
            Vec::new(),
            Runner::Interp(Interpreter::new(), &module, assignment),
            Vec::new(),
        ),
    };
    let signature = module.entry_program_shape();
    // Device `d`'s inputs are seeded apart from every other device's.
    let inputs: Vec<Vec<Literal>> = (local.clone())
        .map(|d| {
            (signature.parameters.iter().enumerate())
                .map(|(i, shape)| random_literal(shape, 0x5eed + i as u64 + ((d as u64) << 32)))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()
        .map_err(|e| fail(&e))?;
    let args: Vec<Vec<&Literal>> = inputs.iter().map(|d| d.iter().collect()).collect();
    let input_bytes = inputs.iter().flatten().map(literal_bytes).sum();
    let first = runner.run(&args).map_err(|e| fail(&e))?;
    let output_bytes = first.iter().map(literal_bytes).sum();
    drop(first);
    let count = bench.runs.or(processes.distributed().then_some(20));
    let runs = time_runs(|| runner.run(&args).map(drop), min_time, count).map_err(|e| fail(&e))?;
    // `run` refused --profile for the interpreter.
    if let (true, Runner::Jit(executable, _, _)) = (profile, &runner) {
        let profile = Arc::new(Profile::new());
        let options = ExecuteOptions {
            profile: Some(Arc::clone(&profile)),
            ..ExecuteOptions::default()
        };
        let started = Instant::now();
        let mut count = 0;
        while count < 3 || started.elapsed() < Duration::from_secs(1) {
            (processes.execute(executable, &args, assignment, &options)).map_err(|e| fail(&e))?;
            count += 1;
        }
        eprintln!("profile of {name}, {count} runs:\n{}", profile.report());
    }
    let report = Report {
        name,
        backend,
        load,
        compile,
        runs,
        peak_rss: rss_bytes("VmHWM"),
        baseline_rss,
        input_bytes,
        output_bytes,
        fallback_ops,
    };
    Ok((report, local.start == 0))
}

enum Runner<'m> {
    Jit(Executable, DeviceAssignment, &'m Processes),
    Interp(Interpreter, &'m HloModule, DeviceAssignment),
}

impl Runner<'_> {
    /// One run on every device of this process (`args[i]`: its `i`-th
    /// device's arguments).
    fn run(&self, args: &[Vec<&Literal>]) -> Result<Vec<Literal>, String> {
        match self {
            Runner::Jit(e, a, processes) => {
                processes.execute(e, args, *a, &ExecuteOptions::default())
            }
            Runner::Interp(i, module, a) if a.device_count() == 1 => {
                i.run(module, &args[0]).map(|r| vec![r]).map_err(Into::into)
            }
            Runner::Interp(i, module, a) => {
                let owned: Vec<Vec<Literal>> = (args.iter())
                    .map(|d| d.iter().map(|&l| l.clone()).collect())
                    .collect();
                (i.execute(module, &owned, *a, &RunOptions::default(), &mut [])).map_err(Into::into)
            }
        }
        .map_err(|e: xla_jit::JitError| e.to_string())
    }
}

/// Loads of the module file (read, parse, lower a StableHLO module,
/// verify) until at least 3 and 0.2 s, at most 30: their times and the
/// module.
fn load_repeatedly(path: &Path) -> Result<(Vec<Duration>, HloModule), Failure> {
    let started = Instant::now();
    let mut times = Vec::new();
    loop {
        let t = Instant::now();
        let module = module_file::load(path, true)?;
        times.push(t.elapsed());
        let enough = times.len() >= 3 && started.elapsed() >= Duration::from_millis(200);
        if enough || times.len() >= 30 {
            return Ok((times, module));
        }
    }
}

/// Cold compiles (the cache bypassed) until at least 5 and 0.2 s, at most
/// 30: their times and the last executable.
fn compile_cold(
    client: &Client,
    module: &HloModule,
    cranelift_only: bool,
) -> Result<(Vec<Duration>, Executable), xla_jit::JitError> {
    let options = CompileOptions {
        bypass_cache: true,
        cranelift_only,
        ..CompileOptions::default()
    };
    let started = Instant::now();
    let mut times = Vec::new();
    loop {
        let t = Instant::now();
        let executable = client.compile_with(module, &options)?;
        times.push(t.elapsed());
        let enough = times.len() >= 5 && started.elapsed() >= Duration::from_millis(200);
        if enough || times.len() >= 30 {
            return Ok((times, executable));
        }
    }
}

/// Warm-up (3 runs or 0.3 s), then timed runs until at least 10 runs and
/// `min_time` seconds, or 3 runs once `10 × min_time` seconds have passed;
/// with `count`, 3 warm-up runs and exactly `count` timed ones.
fn time_runs(
    mut run: impl FnMut() -> Result<(), String>,
    min_time: f64,
    count: Option<u64>,
) -> Result<Samples, String> {
    let warm = Instant::now();
    for _ in 0..3 {
        run()?;
        if count.is_none() && warm.elapsed() > Duration::from_millis(300) {
            break;
        }
    }
    if let Some(count) = count {
        let mut samples = Samples::new();
        for _ in 0..count.max(1) {
            let t = Instant::now();
            run()?;
            samples.push(t.elapsed());
        }
        return Ok(samples);
    }
    let started = Instant::now();
    let mut samples = Samples::new();
    loop {
        let t = Instant::now();
        run()?;
        samples.push(t.elapsed());
        let elapsed = started.elapsed().as_secs_f64();
        let enough_runs = samples.count >= 10 || (samples.count >= 3 && elapsed > 10.0 * min_time);
        if enough_runs && elapsed >= min_time {
            return Ok(samples);
        }
    }
}

/// Run times in fixed memory (so that a long bench of a fast module does
/// not grow the peak RSS it reports): the count, the exact minimum and
/// maximum, and a uniform sample of at most [`Samples::KEPT`] times
/// (Vitter's algorithm R) for the median.
struct Samples {
    count: u64,
    min: Duration,
    max: Duration,
    kept: Vec<Duration>,
    rng: SplitMix64,
}

impl Samples {
    const KEPT: usize = 4096;

    fn new() -> Self {
        Samples {
            count: 0,
            min: Duration::MAX,
            max: Duration::ZERO,
            kept: Vec::with_capacity(Self::KEPT),
            rng: SplitMix64(0x7135),
        }
    }

    fn push(&mut self, time: Duration) {
        self.count += 1;
        self.min = self.min.min(time);
        self.max = self.max.max(time);
        if self.kept.len() < Self::KEPT {
            self.kept.push(time);
        } else {
            let slot = self.rng.next() % self.count;
            if let Some(kept) = self.kept.get_mut(slot as usize) {
                *kept = time;
            }
        }
    }
}

/// A value from a `/proc/self/status` line such as `VmHWM:   123456 kB`, in
/// bytes (0 where the file does not exist).
fn rss_bytes(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

fn literal_bytes(literal: &Literal) -> u64 {
    match literal.tuple_elements() {
        Some(elements) => elements.iter().map(literal_bytes).sum(),
        None => literal.bytes().map_or(0, |b| b.len() as u64),
    }
}

/// A literal of `shape` filled with seeded pseudo-random values: floats
/// standard normal, signed integers in `[-8, 8)`, unsigned in `[0, 16)`,
/// preds fair coins.
fn random_literal(shape: &Shape, seed: u64) -> Result<Literal, xla_core::Error> {
    if let Shape::Tuple(elements) = shape {
        let elements = elements
            .iter()
            .enumerate()
            .map(|(i, e)| random_literal(e, seed.wrapping_mul(31).wrapping_add(i as u64)));
        return Ok(Literal::tuple(elements.collect::<Result<_, _>>()?));
    }
    let mut literal = Literal::zeros(shape)?;
    let Some(ty) = literal.element_type() else {
        return Ok(literal);
    };
    let mut rng = SplitMix64(seed);
    dispatch_native!(ty, T => fill::<T>(literal.data_mut::<T>()?, ty, &mut rng));
    Ok(literal)
}

fn fill<T: NativeType>(data: &mut [T], ty: PrimitiveType, rng: &mut SplitMix64) {
    for x in data {
        let value = if ty.is_floating() || ty.is_complex() {
            rng.normal()
        } else if ty.is_signed_integral() {
            (rng.next() % 16) as f64 - 8.0
        } else {
            (rng.next() % if ty.is_pred() { 2 } else { 16 }) as f64
        };
        *x = convert_value::<f64, T>(value).expect("every type converts from f64");
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a fast, well-mixed 64-bit
/// generator; a fixed seed gives the same inputs on every run.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `(0, 1]`.
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The median of `times` in milliseconds (0 for none).
fn median(times: &[Duration]) -> f64 {
    if times.is_empty() {
        return 0.0;
    }
    let mut sorted = times.to_vec();
    sorted.sort();
    let n = sorted.len();
    if n % 2 == 1 {
        ms(sorted[n / 2])
    } else {
        (ms(sorted[n / 2 - 1]) + ms(sorted[n / 2])) / 2.0
    }
}

/// A time in milliseconds with the unit that fits: `842 ns`, `12.3 µs`,
/// `4.56 ms`, `1.23 s`, with three significant digits.
fn human(ms: f64) -> String {
    let (value, unit) = if ms >= 1e3 {
        (ms / 1e3, "s")
    } else if ms >= 1.0 {
        (ms, "ms")
    } else if ms >= 1e-3 {
        (ms * 1e3, "µs")
    } else {
        (ms * 1e6, "ns")
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

impl Report {
    const HEADER: &'static str =
        "module                load    compile     median        min        max  \
                                  peak MiB  base MiB  fallback";

    /// A row under [`Report::HEADER`].
    fn row(&self) -> String {
        let mib = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
        format!(
            "{:<16} {:>9} {:>10} {:>10} {:>10} {:>10} {:>9.1} {:>9.1}  {}",
            self.name,
            human(median(&self.load)),
            human(median(&self.compile)),
            human(median(&self.runs.kept)),
            human(ms(self.runs.min)),
            human(ms(self.runs.max)),
            mib(self.peak_rss),
            mib(self.baseline_rss),
            self.fallback_ops.join(",")
        )
    }

    fn json(&self) -> String {
        let ops: Vec<String> = self.fallback_ops.iter().map(|o| json_string(o)).collect();
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\"name\": {}, \"backend\": \"{}\", \"compile_ms\": {:.6}, \"load_ms\": {:.6}, \
             \"run_ms\": {{\"median\": {:.6}, \"min\": {:.6}, \"max\": {:.6}}}, \"runs\": {}, \
             \"peak_rss_bytes\": {}, \"baseline_rss_bytes\": {}, \"input_bytes\": {}, \
             \"output_bytes\": {}, \"fallback_ops\": [{}]}}",
            json_string(&self.name),
            self.backend.name(),
            median(&self.compile),
            median(&self.load),
            median(&self.runs.kept),
            ms(self.runs.min),
            ms(self.runs.max),
            self.runs.count,
            self.peak_rss,
            self.baseline_rss,
            self.input_bytes,
            self.output_bytes,
            ops.join(", ")
        );
        out
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::{human, Samples};
    use std::time::Duration;

    #[test]
    fn times_take_the_unit_that_fits() {
        assert_eq!(human(0.000_842), "842 ns");
        assert_eq!(human(0.0123), "12.3 µs");
        assert_eq!(human(0.5), "500 µs");
        assert_eq!(human(4.561), "4.56 ms");
        assert_eq!(human(1234.0), "1.23 s");
        assert_eq!(human(0.0), "0.00 ns");
    }

    /// The sample stays at 4096 times however many runs; min and max are
    /// exact.
    #[test]
    fn samples_keep_fixed_memory() {
        let mut samples = Samples::new();
        for i in 1..=100_000u64 {
            samples.push(Duration::from_nanos(i));
        }
        assert_eq!(samples.count, 100_000);
        assert_eq!(samples.kept.len(), Samples::KEPT);
        assert_eq!(samples.min, Duration::from_nanos(1));
        assert_eq!(samples.max, Duration::from_nanos(100_000));
        // A uniform sample: its median is near the runs' median.
        let median = super::median(&samples.kept) * 1e6;
        assert!((45_000.0..55_000.0).contains(&median), "{median}");
    }
}
