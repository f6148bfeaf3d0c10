//! A compiled module: run it on literals.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use xla_core::interp::{DeviceAssignment, Interpreter};
use xla_core::literal::{AlignedBytes, Storage};
use xla_core::{CancelToken, HloModule, Literal, Shape};

use super::collective::{needs_device, DeviceContext};
use super::device_threads::run_devices;
use super::interpret::FallbackOp;
use super::listing::write_thunks;
use super::profile::Profile;
use super::program::Program;
use super::run::{run_program, RunState};
use crate::codegen::Jit;
use crate::collectives::{Communicator, InProcess};
use crate::JitError;

/// How long compiling took, by phase and by kernel.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// The whole compilation.
    pub total: Duration,
    /// Each phase of the pipeline, in order (`verify`, `optimize`, `layout
    /// assignment`, `fusion`, `emit`, `buffer assignment`).
    pub phases: Vec<(&'static str, Duration)>,
    /// Each kernel's compile time (Cranelift), in compile order.
    pub kernels: Vec<KernelStats>,
}

/// One kernel's compile time.
#[derive(Clone, Debug)]
pub struct KernelStats {
    /// The kernel (its fusion's root instruction).
    pub name: String,
    /// Cranelift's time for it.
    pub compile_time: Duration,
}

/// Owns the machine code of an executable's kernels.
struct Code(#[allow(dead_code)] Jit);

// SAFETY: after compilation the module is never used again, only dropped
// (which frees the code); the function pointers into it are plain data.
unsafe impl Send for Code {}
// SAFETY: as above; no method of `Jit` is reachable through `&Code`.
unsafe impl Sync for Code {}

struct Inner {
    program: Program,
    /// Arenas and pointer tables of finished runs, reused by the next.
    states: Mutex<Vec<RunState>>,
    /// Runs the instructions that fall back to it; made on first use
    /// (building its custom-call table is a cost most programs never need).
    interpreter: OnceLock<Interpreter>,
    /// [`Executable::fingerprint`], made on first use.
    fingerprint: OnceLock<u64>,
    /// The optimized module, for dumps.
    module: HloModule,
    /// Each computation's fusion plan with reasons, and how its fusions run.
    fusion_plans: String,
    stats: CompileStats,
    clif: Vec<(String, String)>,
    asm: Vec<(String, String)>,
    _code: Code,
}

/// How one run of an [`Executable`] behaves.
#[derive(Clone, Debug, Default)]
pub struct ExecuteOptions {
    /// Stops the run when cancelled or past its deadline, checked at every
    /// iteration of a `while` loop (a module's only op of unbounded time);
    /// the run then fails with [`JitError::Stopped`]. The default never
    /// stops.
    ///
    /// ```
    /// use std::time::Duration;
    /// use xla_core::{CancelToken, HloModule};
    /// use xla_jit::{Client, ExecuteOptions, JitError};
    ///
    /// let module: HloModule = "HloModule m\n\n\
    ///     cond { s = s32[] parameter(0)\n  ROOT t = pred[] constant(true) }\n\
    ///     body { s = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(s, one) }\n\
    ///     ENTRY e { z = s32[] constant(0)\n  ROOT w = s32[] while(z), condition=cond, body=body }"
    ///     .parse()?;
    /// let executable = Client::cpu()?.compile(&module)?;
    /// let options = ExecuteOptions {
    ///     cancel: CancelToken::with_timeout(Duration::from_millis(20)),
    ///     ..ExecuteOptions::default()
    /// };
    /// let error = executable.execute_with(&[], &options).unwrap_err();
    /// assert!(matches!(error, JitError::Stopped(_)), "{error}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub cancel: CancelToken,
    /// Adds the time of each step of the run (kernel, dot, copy, loop, …)
    /// to this profile ([`Profile::report`] prints it). Timing each step
    /// costs two clock reads; the default takes none.
    pub profile: Option<Arc<Profile>>,
    /// How long a device of a multi-device run waits at a collective for
    /// another that is still running (a device that failed or finished,
    /// and a deadlock, end the wait at once); 60 seconds when `None`.
    pub collective_timeout: Option<Duration>,
}

/// [`ExecuteOptions::collective_timeout`]'s default.
const COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// A module compiled for the CPU. Cheap to clone (shared); runs from any
/// number of threads at once.
#[derive(Clone)]
pub struct Executable {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Executable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executable")
            .field("signature", &self.inner.program.signature.to_string())
            .finish()
    }
}

impl Executable {
    pub(crate) fn new(
        program: Program,
        jit: Jit,
        module: HloModule,
        fusion_plans: String,
        stats: CompileStats,
    ) -> Self {
        let clif = jit.clif().to_vec();
        let asm = jit.disasm();
        Executable {
            inner: Arc::new(Inner {
                program,
                states: Mutex::new(Vec::new()),
                interpreter: OnceLock::new(),
                fingerprint: OnceLock::new(),
                module,
                fusion_plans,
                stats,
                clif,
                asm,
                _code: Code(jit),
            }),
        }
    }

    /// The entry signature, with the layouts results have and arguments
    /// are expected in.
    pub fn signature(&self) -> &xla_core::hlo::ProgramShape {
        &self.inner.program.signature
    }

    /// Runs the module on `args` (one per entry parameter; an argument in
    /// another layout than its parameter's is relaid first). A tuple result
    /// comes back as a tuple literal.
    pub fn execute(&self, args: &[&Literal]) -> Result<Literal, JitError> {
        self.execute_with(args, &ExecuteOptions::default())
    }

    /// Runs the module on `args` like [`execute`](Self::execute), with
    /// `options` (cancellation, a profile of its steps).
    pub fn execute_with(
        &self,
        args: &[&Literal],
        options: &ExecuteOptions,
    ) -> Result<Literal, JitError> {
        self.execute_as(args, None, options)
    }

    /// Runs the module on every device of `assignment`, each on a thread
    /// of its own, connected by an in-process
    /// [`Communicator`](crate::collectives::Communicator): `args[d]` are
    /// device `d`'s arguments (devices numbered `replica · partitions +
    /// partition`); returns each device's result. A device that fails
    /// stops the others at their next collective; the error of the device
    /// that failed first is returned.
    ///
    /// ```
    /// use xla_core::{interp::DeviceAssignment, HloModule, Literal};
    /// use xla_jit::{Client, ExecuteOptions};
    ///
    /// let module: HloModule = "HloModule m, replica_count=2\n\n\
    ///     add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b) }\n\
    ///     ENTRY e { x = f32[2] parameter(0)\n  ROOT r = f32[2] all-reduce(x), to_apply=add }"
    ///     .parse()?;
    /// let executable = Client::cpu()?.compile(&module)?;
    /// let (a, b) = (Literal::vector(&[1.0f32, 2.0]), Literal::vector(&[10.0f32, 20.0]));
    /// let results = executable.execute_devices(
    ///     &[vec![&a], vec![&b]],
    ///     DeviceAssignment::new(2, 1),
    ///     &ExecuteOptions::default(),
    /// )?;
    /// assert_eq!(results[0].to_vec::<f32>()?, [11.0, 22.0]);
    /// assert_eq!(results[1].to_vec::<f32>()?, [11.0, 22.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn execute_devices(
        &self,
        args: &[Vec<&Literal>],
        assignment: DeviceAssignment,
        options: &ExecuteOptions,
    ) -> Result<Vec<Literal>, JitError> {
        let count = assignment.checked_device_count()?;
        if args.len() != count {
            return Err(JitError::DeviceCount {
                expected: count,
                actual: args.len(),
            });
        }
        let timeout = options.collective_timeout.unwrap_or(COLLECTIVE_TIMEOUT);
        let communicator = InProcess::new(assignment, timeout);
        let devices: Vec<usize> = (0..count).collect();
        self.execute_local(args, &devices, &*communicator, options)
    }

    /// Runs the module as the `devices` (flattened ids, `args[i]` the
    /// arguments of `devices[i]`) of a run whose devices `communicator`
    /// connects: the others run in other processes, each calling this
    /// with its own devices (over MPI: `collectives::mpi`). Each device
    /// runs on a thread of its own; returns their results in order, or the
    /// error of the device that failed first.
    pub fn execute_local(
        &self,
        args: &[Vec<&Literal>],
        devices: &[usize],
        communicator: &dyn Communicator,
        options: &ExecuteOptions,
    ) -> Result<Vec<Literal>, JitError> {
        if args.len() != devices.len() {
            return Err(JitError::DeviceCount {
                expected: devices.len(),
                actual: args.len(),
            });
        }
        let comm = communicator;
        let count = comm.assignment().device_count();
        for (i, &d) in devices.iter().enumerate() {
            if d >= count || devices[..i].contains(&d) {
                return Err(JitError::InvalidConfig(format!(
                    "device {d} is not one of the run's {count} devices, or is given twice"
                )));
            }
        }
        comm.begin(&|| self.fingerprint())?;
        // A device that panics is marked failed, so that the others stop
        // waiting for it; the panic resumes once every device is done.
        let tasks: Vec<Box<dyn FnOnce() -> Result<Literal, JitError> + Send + '_>> = (args.iter())
            .zip(devices)
            .map(|(args, &d)| {
                Box::new(move || {
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.execute_as(args, Some((d, comm)), options)
                    }));
                    comm.finish(d, matches!(result, Ok(Ok(_))));
                    result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                }) as Box<dyn FnOnce() -> _ + Send>
            })
            .collect();
        let mut results = run_devices(tasks, |i, e| {
            comm.finish(devices[i], false);
            Err(JitError::Host(format!(
                "cannot start the thread of device {}: {e}",
                devices[i]
            )))
        });
        let first = comm.first_failed();
        if let Some(i) = (devices.iter()).position(|&d| Some(d) == first) {
            if results[i].is_err() {
                return Err(results.swap_remove(i).expect_err("checked above"));
            }
        }
        results.into_iter().collect()
    }

    /// A hash of the optimized module, which the processes of a run
    /// compare before they start (they must run the same program).
    fn fingerprint(&self) -> u64 {
        *self.inner.fingerprint.get_or_init(|| {
            let text = self.inner.module.to_string();
            xla_core::arith::fnv1a(xla_core::arith::FNV_OFFSET, text.as_bytes())
        })
    }

    /// Runs the module on `args` as `device` (a single device when none).
    fn execute_as(
        &self,
        args: &[&Literal],
        device: Option<(usize, &dyn Communicator)>,
        options: &ExecuteOptions,
    ) -> Result<Literal, JitError> {
        let program = &self.inner.program;
        let mut storage: Vec<AlignedBytes> = (program.output_leaves.iter())
            .map(output_storage)
            .collect::<Result<_, _>>()?;
        let outputs: Vec<*mut u8> = storage
            .iter_mut()
            .map(|s| s.as_mut_slice().as_mut_ptr())
            .collect();
        self.run(args, &outputs, device, options)?;
        let mut leaves = storage.into_iter();
        build_result(&program.signature.result, &mut leaves)
    }

    /// Runs the module on `args`, writing the result's leaves (depth-first
    /// over tuples) into `outputs`, whose shapes must be the leaves' shapes
    /// with their layouts.
    pub fn execute_into(&self, args: &[&Literal], outputs: &mut [Literal]) -> Result<(), JitError> {
        let leaves = &self.inner.program.output_leaves;
        if outputs.len() != leaves.len() {
            return Err(JitError::OutputCount {
                expected: leaves.len(),
                actual: outputs.len(),
            });
        }
        let mut pointers = Vec::with_capacity(outputs.len());
        for (index, (output, leaf)) in outputs.iter_mut().zip(leaves).enumerate() {
            if !output.shape().eq_with_layout(leaf) {
                return Err(JitError::OutputShape {
                    index,
                    expected: Box::new(leaf.clone()),
                    actual: Box::new(output.shape().clone()),
                });
            }
            pointers.push(match leaf {
                Shape::Array(_) => output.bytes_mut()?.as_mut_ptr(),
                Shape::Tuple(_) | Shape::Token | Shape::Opaque => std::ptr::null_mut(),
            });
        }
        self.run(args, &pointers, None, &ExecuteOptions::default())
    }

    /// Runs the module on `args`, which it takes: a result leaf that the
    /// module's `input_output_alias` gives a parameter's buffer (JAX's
    /// donated arguments) is written into that argument's memory and
    /// returned in it, where no step reads the argument after the leaf is
    /// first written (compilation checks; the other leaves get fresh
    /// storage, as [`execute`](Self::execute) gives them). A training step
    /// that updates its parameters so allocates nothing for them.
    pub fn execute_donated(&self, mut args: Vec<Literal>) -> Result<Literal, JitError> {
        let program = &self.inner.program;
        {
            let refs: Vec<&Literal> = args.iter().collect();
            self.check_args(&refs)?;
        }
        for (arg, param) in args.iter_mut().zip(&program.signature.parameters) {
            if !arg.shape().eq_with_layout(param) {
                *arg = relaid(arg, param)?;
            }
        }
        let mut donor = vec![None; program.output_leaves.len()];
        for d in &program.donations {
            if d.leaf == 0 && args[d.parameter].shape().is_array() {
                donor[d.output] = Some(d.parameter);
            }
        }
        let mut storage = Vec::with_capacity(donor.len());
        for (leaf, d) in program.output_leaves.iter().zip(&donor) {
            storage.push(match d {
                Some(_) => None,
                None => Some(output_storage(leaf)?),
            });
        }
        let mut arg_leaves = Vec::with_capacity(args.len());
        for (p, arg) in args.iter_mut().enumerate() {
            let mut leaves = Vec::new();
            match donor.contains(&Some(p)) {
                true => leaves.push(arg.bytes_mut()?.as_mut_ptr().cast_const()),
                false => leaf_pointers(arg, &mut leaves)?,
            }
            arg_leaves.push(leaves);
        }
        let outputs: Vec<*mut u8> = (storage.iter_mut().zip(&donor))
            .map(|(s, d)| match (s, d) {
                (Some(s), _) => s.as_mut_slice().as_mut_ptr(),
                (None, Some(p)) => arg_leaves[*p][0].cast_mut(),
                (None, None) => std::ptr::null_mut(),
            })
            .collect();
        self.run_leaves(&arg_leaves, &outputs, None, &ExecuteOptions::default())?;
        let mut leaves = (storage.into_iter().zip(&donor).zip(&program.output_leaves))
            .map(|((s, d), shape)| match (s, d) {
                (Some(s), _) => leaf_literal(shape, s),
                (None, Some(p)) => Ok(std::mem::replace(&mut args[*p], Literal::token())),
                (None, None) => Ok(Literal::token()),
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter();
        Ok(assemble(&program.signature.result, &mut leaves))
    }

    /// Checks the argument count and shapes against the entry signature.
    fn check_args(&self, args: &[&Literal]) -> Result<(), JitError> {
        let program = &self.inner.program;
        let params = &program.signature.parameters;
        if args.len() != params.len() {
            return Err(JitError::ArgumentCount {
                expected: params.len(),
                actual: args.len(),
            });
        }
        for (index, (&arg, param)) in args.iter().zip(params).enumerate() {
            if !arg.shape().eq_ignoring_layout(param) {
                return Err(JitError::ArgumentShape {
                    index,
                    name: program.parameter_names[index].clone(),
                    expected: Box::new(param.clone()),
                    actual: Box::new(arg.shape().clone()),
                });
            }
        }
        Ok(())
    }

    fn run(
        &self,
        args: &[&Literal],
        outputs: &[*mut u8],
        device: Option<(usize, &dyn Communicator)>,
        options: &ExecuteOptions,
    ) -> Result<(), JitError> {
        self.check_args(args)?;
        let params = &self.inner.program.signature.parameters;
        let relaid: Vec<Cow<'_, Literal>> = (args.iter().zip(params))
            .map(|(&arg, param)| with_layouts(arg, param))
            .collect::<Result<_, _>>()?;
        let mut arg_leaves = Vec::with_capacity(relaid.len());
        for arg in &relaid {
            let mut leaves = Vec::new();
            leaf_pointers(arg, &mut leaves)?;
            arg_leaves.push(leaves);
        }
        self.run_leaves(&arg_leaves, outputs, device, options)
    }

    /// Runs the program on the arguments' leaves (in the entry layouts)
    /// as `device` (a single device when none), writing the result leaves
    /// to `outputs`.
    fn run_leaves(
        &self,
        arg_leaves: &[Vec<*const u8>],
        outputs: &[*mut u8],
        device: Option<(usize, &dyn Communicator)>,
        options: &ExecuteOptions,
    ) -> Result<(), JitError> {
        let program = &self.inner.program;
        let single;
        let (device, communicator) = match device {
            Some((d, communicator)) => {
                let devices = communicator.assignment().device_count();
                if let Some(op) = (devices > 1)
                    .then(|| program.fallbacks.iter().find(|f| needs_device(f.opcode)))
                    .flatten()
                {
                    return Err(JitError::NotOnDevices {
                        instruction: op.instruction.clone(),
                        opcode: op.opcode,
                        devices,
                    });
                }
                (d, communicator)
            }
            None => {
                let timeout = options.collective_timeout.unwrap_or(COLLECTIVE_TIMEOUT);
                single = InProcess::new(DeviceAssignment::single(), timeout);
                (0, &*single as &dyn Communicator)
            }
        };
        let device = DeviceContext {
            device,
            communicator,
            occurrences: (0..program.collective_steps)
                .map(|_| AtomicU64::new(0))
                .collect(),
        };
        let state = self
            .inner
            .states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        let mut state = match state {
            Some(state) => state,
            None => RunState::new(program)?,
        };
        let result = run_program(
            program,
            &mut state,
            &self.inner.interpreter,
            &device,
            arg_leaves,
            outputs,
            options,
        );
        self.inner
            .states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(state);
        result
    }

    /// The instructions that run through the reference interpreter because
    /// the JIT does not compile them.
    pub fn fallback_ops(&self) -> &[FallbackOp] {
        &self.inner.program.fallbacks
    }

    /// Compile times by phase and by kernel.
    pub fn compile_stats(&self) -> &CompileStats {
        &self.inner.stats
    }

    /// A report for debugging: the optimized module with layouts, the
    /// fusion plan with reasons, the program's thunks and buffers, compile
    /// times, and each kernel's CLIF and machine code when compiled with
    /// [`crate::CompileOptions::keep_clif`] and
    /// [`crate::CompileOptions::keep_asm`].
    pub fn dump(&self) -> String {
        let inner = &*self.inner;
        let mut out = String::new();
        let _ = writeln!(out, "== optimized module\n{}", inner.module);
        let _ = writeln!(out, "== fusion plan\n{}", inner.fusion_plans);
        let _ = writeln!(out, "== program");
        write_thunks(&mut out, &inner.program, 1);
        let _ = writeln!(
            out,
            "== buffers (arena {} bytes; {} copies removed by coalescing)\n{}",
            inner.program.buffers.arena_size(),
            inner.program.copies_removed,
            inner.program.buffers
        );
        let _ = writeln!(out, "== fallback ops");
        for op in &inner.program.fallbacks {
            let _ = writeln!(
                out,
                "  {} ({}) in {}",
                op.instruction,
                op.opcode.name(),
                op.computation
            );
        }
        let stats = &inner.stats;
        let _ = writeln!(out, "== compile time {:.3} ms", ms(stats.total));
        for (phase, time) in &stats.phases {
            let _ = writeln!(out, "  {phase}: {:.3} ms", ms(*time));
        }
        for kernel in &stats.kernels {
            let _ = writeln!(
                out,
                "  kernel {}: {:.3} ms",
                kernel.name,
                ms(kernel.compile_time)
            );
        }
        for (name, text) in &inner.clif {
            let _ = writeln!(out, "== CLIF of {name}\n{text}");
        }
        for (name, text) in &inner.asm {
            let _ = writeln!(out, "== machine code of {name}\n{text}");
        }
        out
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `arg` with the layouts of `shape` (borrowed when it has them).
fn with_layouts<'a>(arg: &'a Literal, shape: &Shape) -> Result<Cow<'a, Literal>, JitError> {
    if arg.shape().eq_with_layout(shape) {
        return Ok(Cow::Borrowed(arg));
    }
    Ok(Cow::Owned(relaid(arg, shape)?))
}

fn relaid(arg: &Literal, shape: &Shape) -> Result<Literal, JitError> {
    match (shape, arg.tuple_elements()) {
        (Shape::Array(a), _) => Ok(arg.relayout(&a.layout_or_default())?),
        (Shape::Tuple(shapes), Some(elements)) => Ok(Literal::tuple(
            elements
                .iter()
                .zip(shapes)
                .map(|(e, s)| relaid(e, s))
                .collect::<Result<_, _>>()?,
        )),
        _ => Ok(arg.clone()),
    }
}

/// The addresses of `arg`'s leaves, depth-first.
fn leaf_pointers(arg: &Literal, out: &mut Vec<*const u8>) -> Result<(), JitError> {
    if let Some(elements) = arg.tuple_elements() {
        return elements.iter().try_for_each(|e| leaf_pointers(e, out));
    }
    out.push(if arg.shape().is_array() {
        arg.bytes()?.as_ptr()
    } else {
        std::ptr::null()
    });
    Ok(())
}

/// Uninitialized storage for a result leaf of `shape`.
fn output_storage(shape: &Shape) -> Result<AlignedBytes, JitError> {
    AlignedBytes::try_for_overwrite(super::lower::byte_size(shape)).map_err(|e| {
        JitError::OutOfMemory {
            what: format!("a result of shape {shape}"),
            bytes: e.bytes,
        }
    })
}

/// The result literal of `shape` over the leaves' storage.
fn build_result(
    shape: &Shape,
    leaves: &mut impl Iterator<Item = AlignedBytes>,
) -> Result<Literal, JitError> {
    let leaf_shapes = super::lower::leaf_shapes(shape);
    let literals = (leaves.zip(&leaf_shapes))
        .map(|(storage, leaf)| leaf_literal(leaf, storage))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble(shape, &mut literals.into_iter()))
}

/// One result leaf of `shape` over its storage.
fn leaf_literal(shape: &Shape, storage: AlignedBytes) -> Result<Literal, JitError> {
    match shape {
        Shape::Array(a) => Ok(Literal::from_storage(a.clone(), Storage::Owned(storage))?),
        Shape::Token => Ok(Literal::token()),
        Shape::Tuple(_) | Shape::Opaque => Ok(Literal::zeros(&Shape::Opaque)?),
    }
}

/// The literal of `shape` whose leaves (depth-first) are `leaves`.
fn assemble(shape: &Shape, leaves: &mut impl Iterator<Item = Literal>) -> Literal {
    match shape {
        Shape::Tuple(elements) => {
            Literal::tuple(elements.iter().map(|e| assemble(e, leaves)).collect())
        }
        _ => leaves.next().expect("one literal per leaf"),
    }
}
