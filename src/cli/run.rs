//! `xla run MODULE.hlo ARG.npy… --out DIR`: execute a module's entry
//! computation on arrays and write its results.

use std::ops::Range;
use std::path::{Path, PathBuf};

use xla_core::interp::{InterpError, Interpreter, RunOptions};
use xla_core::io::{encode_npy, read_npy, IoErrorKind, NpyOptions};
use xla_core::{CancelToken, HloModule, Literal, PrimitiveType, Shape};
use xla_jit::{Client, CompileOptions, ExecuteOptions, JitError};

use super::processes::DeviceArgs;
use super::{module_file, out_dir, stdout, timeout, Failure, Outcome};

/// Run an HLO module on `.npy` arrays; print or write its results.
///
/// Prints every result leaf (tuples flattened in order), or writes them as
/// `DIR/0.npy`, `DIR/1.npy`, … with `--out DIR`. With several devices the
/// arguments are given device by device (all of device 0's, then device
/// 1's, …; device `d` is replica `d / P`, partition `d % P`) and device
/// `d`'s results go to `DIR/r<d>/<j>.npy`. A bf16 parameter reads `<V2`, `|V2` or `<u2` files;
/// bf16 results are written as `<V2`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file (as JAX's `.as_text(dialect="hlo")` prints it).
    module: PathBuf,
    /// One `.npy` file per entry parameter (per device).
    arrays: Vec<PathBuf>,
    /// Write the results as `.npy` files into this directory instead of
    /// printing them: created if needed; one that holds an earlier run's
    /// results has them replaced; one that holds anything else is refused.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Stop the run after this many seconds (status 124).
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Which engine runs the module.
    #[arg(long, value_enum, default_value_t = Backend::Jit)]
    backend: Backend,
    #[command(flatten)]
    devices: DeviceArgs,
}

/// The engines `xla run` can use.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    /// The JIT (several devices run on threads of this process; a module
    /// whose collectives or channels the JIT cannot run on several devices
    /// runs on the interpreter, which says so).
    Jit,
    /// The JIT with every fusion kernel compiled by Cranelift (128-bit
    /// vectors; no native AVX-512 or AVX2 fusion kernels).
    Cranelift,
    /// The reference interpreter.
    Interp,
}

/// Runs the subcommand. Every failure (unreadable or invalid module,
/// wrong number of arrays, an array of the wrong shape or element type, a
/// run that fails or passes `--timeout`, an output directory holding other
/// files) happens before anything is written to the output directory.
pub fn run(args: Args) -> Outcome {
    let timeout = args.timeout.map(timeout::duration).transpose()?;
    let module = match module_file::load(&args.module, true) {
        // Symbolic dimensions are bound from the arrays given.
        Err(Failure::Invalid(m)) if m.contains("symbolic dimensions") => {
            let shapes = array_shapes(&args.arrays)?;
            module_file::load_for(&args.module, true, Some(&shapes))?
        }
        loaded => loaded?,
    };
    let module = module_file::per_device(module)?;
    let assignment = args.devices.assignment(&module);
    // Before the arrays are counted per device (a count near `usize::MAX`
    // would overflow that).
    let devices = assignment
        .checked_device_count()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let processes = args.devices.start(assignment)?;
    let local = processes.local_devices();
    let arguments = read_arguments(&module, &args.arrays, devices, local.clone())?;
    // Before the run: what the directory holds now (of this process's
    // devices, when other processes write the others').
    let stale = match &args.out {
        Some(out) => {
            let mine = |p: &PathBuf| {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                local
                    .clone()
                    .any(|d| name.as_deref() == Some(&format!("r{d}")))
            };
            let earlier = out_dir::earlier_results(out)?;
            match processes.distributed() {
                true => earlier.into_iter().filter(mine).collect(),
                false => earlier,
            }
        }
        None => Vec::new(),
    };
    let cancel = timeout.map_or_else(CancelToken::new, CancelToken::with_timeout);
    let stopped = |stopped: xla_core::Stopped| Failure::Timeout(stopped.to_string());
    let jit = match args.backend {
        Backend::Jit | Backend::Cranelift => {
            let options = CompileOptions {
                cranelift_only: args.backend == Backend::Cranelift,
                ..CompileOptions::default()
            };
            let executable = Client::cpu()
                .and_then(|client| client.compile_with(&module, &options))
                .map_err(|e| Failure::Invalid(e.to_string()))?;
            let options = ExecuteOptions {
                cancel: cancel.clone(),
                ..ExecuteOptions::default()
            };
            let refs: Vec<Vec<&Literal>> = arguments.iter().map(|a| a.iter().collect()).collect();
            match processes.execute(&executable, &refs, assignment, &options) {
                Err(e @ JitError::NotOnDevices { .. }) if processes.distributed() => {
                    return Err(Failure::Invalid(format!("{e}; with MPI, nothing else can")))
                }
                Err(e @ JitError::NotOnDevices { .. }) => {
                    eprintln!("note: {e}; using the interpreter");
                    None
                }
                run => Some(run.map_err(|e| match e {
                    JitError::Stopped(s) => stopped(s),
                    e => Failure::Invalid(e.to_string()),
                })?),
            }
        }
        Backend::Interp if processes.distributed() => {
            return Err(Failure::Usage(
                "the interpreter runs every device in one process: --backend interp is not \
                 for mpirun"
                    .into(),
            ))
        }
        Backend::Interp => None,
    };
    let results = match jit {
        Some(results) => results,
        None => {
            let options = RunOptions {
                cancel,
                ..RunOptions::default()
            };
            Interpreter::new()
                .execute(&module, &arguments, assignment, &options, &mut [])
                .map_err(|e| match e {
                    InterpError::Stopped(s) => stopped(s),
                    e => Failure::Invalid(e.to_string()),
                })?
        }
    };
    // Every result leaf, named `j` (device `d`'s `r<d>/<j>` with several).
    let several = devices > 1;
    let mut leaves = Vec::new();
    for (device, result) in local.clone().zip(&results) {
        let mut flat = Vec::new();
        flatten(result, &mut flat);
        leaves.extend(flat.into_iter().enumerate().map(|(j, leaf)| {
            let name = if several {
                format!("r{device}/{j}")
            } else {
                j.to_string()
            };
            (name, leaf)
        }));
    }
    let Some(out) = args.out else {
        let text: String = leaves
            .iter()
            .map(|(name, leaf)| format!("{name}: {leaf}\n"))
            .collect();
        return stdout::write(&text);
    };
    let mut files = Vec::new();
    for (name, leaf) in leaves {
        let bytes = encode_npy(leaf, None).map_err(|e| Failure::Invalid(e.to_string()))?;
        files.push((
            PathBuf::from(format!("{name}.npy")),
            bytes,
            leaf.shape().clone(),
        ));
    }
    out_dir::remove(&out, stale)?;
    for (path, bytes, shape) in files {
        let path = out.join(path);
        let dir = path
            .parent()
            .expect("files are inside the output directory");
        let io = |what: &str, at: &Path, e: std::io::Error| {
            Failure::Usage(format!("cannot {what} {}: {e}", at.display()))
        };
        std::fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
        std::fs::write(&path, bytes).map_err(|e| io("write", &path, e))?;
        stdout::write(&format!(
            "{}: {}\n",
            path.display(),
            shape.without_layouts()
        ))?;
    }
    Ok(())
}

/// Reads the arrays for each of `devices` devices' parameters, checking
/// each against its parameter (element type and dimensions; any layout is
/// accepted).
/// The shapes of the arrays in `files`.
fn array_shapes(files: &[PathBuf]) -> Result<Vec<Shape>, Failure> {
    files
        .iter()
        .map(|file| {
            read_npy(file, &NpyOptions::default())
                .map(|literal| literal.shape().clone())
                .map_err(|e| Failure::Invalid(format!("{}: {e}", file.display())))
        })
        .collect()
}

fn read_arguments(
    module: &HloModule,
    files: &[PathBuf],
    devices: usize,
    local: Range<usize>,
) -> Result<Vec<Vec<Literal>>, Failure> {
    let entry = module.entry_computation();
    let parameters: Vec<(&str, Shape)> = entry
        .parameters()
        .into_iter()
        .map(|id| {
            let p = entry.instr(id);
            (p.name.as_str(), p.shape.clone().without_layouts())
        })
        .collect();
    let expected = parameters.len() * devices;
    if files.len() != expected {
        let per_device = if devices > 1 {
            format!(" for each of {devices} devices")
        } else {
            String::new()
        };
        return Err(Failure::Usage(format!(
            "the entry computation takes {} arrays{per_device} ({expected} in all), but {} were given",
            parameters.len(),
            files.len()
        )));
    }
    let mut arguments = Vec::with_capacity(local.len());
    let per_device = parameters.len().max(1);
    for device in files.chunks(per_device).take(local.end).skip(local.start) {
        let mut literals = Vec::with_capacity(parameters.len());
        for (number, (file, (name, shape))) in device.iter().zip(&parameters).enumerate() {
            let Some(array) = shape.as_array() else {
                return Err(Failure::Invalid(format!(
                    "parameter {number} ({name}) is {shape}; xla run passes arrays only"
                )));
            };
            let ty = array.element_type();
            let options = NpyOptions {
                as_type: (ty == PrimitiveType::Bf16).then_some(ty),
            };
            let literal = read_npy(file, &options).map_err(|e| match e.kind {
                IoErrorKind::Os { .. } => Failure::Usage(e.to_string()),
                _ => Failure::Invalid(e.to_string()),
            })?;
            if !literal.shape().eq_ignoring_layout(shape) {
                return Err(Failure::Invalid(format!(
                    "{} holds {}, but parameter {number} ({name}) is {shape}",
                    file.display(),
                    literal.shape().clone().without_layouts()
                )));
            }
            literals.push(literal);
        }
        arguments.push(literals);
    }
    if parameters.is_empty() {
        arguments.resize(local.len(), Vec::new());
    }
    Ok(arguments)
}

/// The array leaves of a result, tuples flattened in order (tokens have no
/// data and are skipped).
fn flatten<'a>(value: &'a Literal, leaves: &mut Vec<&'a Literal>) {
    match value.tuple_elements() {
        Some(elements) => elements.iter().for_each(|e| flatten(e, leaves)),
        None if value.shape().is_array() => leaves.push(value),
        None => {}
    }
}
