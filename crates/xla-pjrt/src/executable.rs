//! Compiled programs: compile, run, serialize.

use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use xla_core::arith::{fnv1a, FNV_OFFSET};
use xla_core::interp::{CustomCallRegistry, DeviceAssignment, Interpreter, RunOptions};
use xla_core::mlir::ir::primitive_name;
use xla_core::spmd::{self, SpmdError};
use xla_core::{HloModule, Literal, PrimitiveType, Shape};
use xla_jit::JitError;

use crate::buffer::{buffer_type, Buffer};
use crate::client::{Client, MEMORY_KIND};
use crate::error::{Error, Result};
use crate::ffi::*;
use crate::handles::{Handle, Kind};
use crate::proto::CompileOptions;

/// The first bytes of a serialized executable (then the program as the
/// framework handed it over, which deserializing compiles again: the JIT
/// is fast enough that this beats storing machine code, and it never goes
/// stale).
const SERIALIZED_MAGIC: &[u8] = b"xla_rs executable v1\n";

/// A compiled module and what the framework asks about it.
pub struct Compiled {
    pub(crate) name: String,
    program: Program,
    /// The entry's parameters (one device's) and result.
    parameters: Vec<Shape>,
    /// Each output's element type (PJRT), dimensions and their count.
    pub(crate) output_types: Vec<PJRT_Buffer_Type>,
    pub(crate) output_dims: Vec<i64>,
    pub(crate) output_ranks: Vec<usize>,
    pub(crate) output_kinds: StaticStrs,
    pub(crate) output_kind_sizes: Vec<usize>,
    /// The parameters whose buffers the module may take (donation).
    donatable: Vec<bool>,
    /// How many replicas and partitions run it.
    pub(crate) assignment: DeviceAssignment,
    pub(crate) fingerprint: String,
    pub(crate) serialized: Vec<u8>,
    /// The optimized program the framework asks for (a module carrying
    /// the parameters' and results' shardings), for multi-device programs
    /// that give their shardings.
    pub(crate) optimized: Option<String>,
}

/// How a compiled module runs.
enum Program {
    /// On one device: the JIT's machine code.
    Jit(xla_jit::Executable),
    /// On several devices connected by collectives, each device on a
    /// thread of its own: the JIT's machine code, or, when an instruction
    /// that reaches the other devices runs on the JIT's interpreter
    /// fallback, the per-device module on the reference interpreter.
    Devices {
        executable: xla_jit::Executable,
        module: HloModule,
    },
}

/// Pointers to `'static` strings, for the C API's string arrays.
pub(crate) struct StaticStrs(Vec<*const c_char>);

impl StaticStrs {
    fn new(s: &'static str, count: usize) -> Self {
        StaticStrs(vec![s.as_ptr().cast(); count])
    }

    /// The array's first pointer.
    pub(crate) fn as_ptr(&self) -> *const *const c_char {
        self.0.as_ptr()
    }
}

// SAFETY: the pointers are to `'static`, immutable strings.
unsafe impl Send for StaticStrs {}
// SAFETY: as above.
unsafe impl Sync for StaticStrs {}

impl Compiled {
    /// Reads `code` (`format` `mlir`: StableHLO or VHLO bytecode, or
    /// MLIR text; `hlo_text`: HLO text) and compiles it.
    pub fn compile(
        client: &Client,
        code: &[u8],
        format: &str,
        options: &CompileOptions,
    ) -> Result<Compiled> {
        let module = match format {
            "mlir" | "hlo_text" => {
                xla_core::load_module(code).map_err(|e| Error::invalid(e.to_string()))?
            }
            "hlo" | "hlo_with_config" => {
                return Err(Error::unimplemented(format!(
                    "program format `{format}` (a serialized HloModuleProto) is not supported \
                     by xla_rs; pass StableHLO (`mlir`) or HLO text (`hlo_text`)"
                )))
            }
            other => return Err(Error::invalid(format!("unknown program format `{other}`"))),
        };
        Compiled::from_module(client, module, code, options)
    }

    /// Compiles `module`, read from `source`.
    fn from_module(
        client: &Client,
        mut module: HloModule,
        source: &[u8],
        options: &CompileOptions,
    ) -> Result<Compiled> {
        if options.num_replicas > 0 {
            module.replica_count = options.num_replicas;
        }
        if options.num_partitions > 0 {
            module.num_partitions = options.num_partitions;
        }
        let (num_replicas, num_partitions) = (module.replica_count, module.num_partitions);
        let assignment = DeviceAssignment::new(
            usize::try_from(num_replicas).unwrap_or(0),
            usize::try_from(num_partitions).unwrap_or(0),
        );
        let devices =
            (assignment.checked_device_count()).map_err(|e| Error::invalid(e.to_string()))?;
        let name = module.name.clone();
        let aliases = module.input_output_alias.clone();
        // Each device's program (a shard_map's body on its shards, even
        // over a one-device mesh).
        let per_device = spmd::per_device(module).map_err(|e| match e {
            SpmdError::Verify { .. } => Error::invalid(e.to_string()),
            _ => Error::unimplemented(e.to_string()),
        })?;
        let (module, shardings) = (per_device.module, per_device.shardings);
        check_custom_calls(&module)?;
        let executable = (client.jit.compile(&module))
            .map_err(|e| Error::invalid(format!("compiling `{name}`: {e}")))?;
        let signature = executable.signature().clone();
        let program = match devices {
            1 => Program::Jit(executable),
            _ => Program::Devices { executable, module },
        };
        let leaves: Vec<&Shape> = match &signature.result {
            Shape::Tuple(elements) => elements.iter().collect(),
            other => vec![other],
        };
        let mut output_types = Vec::new();
        let mut output_dims = Vec::new();
        let mut output_ranks = Vec::new();
        for (i, leaf) in leaves.iter().enumerate() {
            let Shape::Array(array) = leaf else {
                return Err(Error::unimplemented(format!(
                    "output {i} of `{name}` is {leaf}; xla_rs returns arrays only"
                )));
            };
            output_types.push(buffer_type(array.element_type()));
            output_dims.extend_from_slice(array.dims());
            output_ranks.push(array.rank());
        }
        let mut donatable = vec![false; signature.parameters.len()];
        for alias in &aliases {
            if let Some(d) = donatable.get_mut(alias.parameter as usize) {
                *d = true;
            }
        }
        let optimized =
            (shardings.as_ref()).map(|s| optimized_program(&name, assignment, &signature, s));
        let mut serialized = SERIALIZED_MAGIC.to_vec();
        serialized.extend_from_slice(source);
        let fingerprint = [
            &num_replicas.to_le_bytes()[..],
            &num_partitions.to_le_bytes(),
            source,
        ]
        .iter()
        .fold(FNV_OFFSET, |h, bytes| fnv1a(h, bytes));
        Ok(Compiled {
            name,
            output_kinds: StaticStrs::new(MEMORY_KIND, leaves.len()),
            output_kind_sizes: vec![MEMORY_KIND.len(); leaves.len()],
            output_types,
            output_dims,
            output_ranks,
            donatable,
            parameters: signature.parameters,
            assignment,
            fingerprint: format!("{fingerprint:016x}"),
            program,
            serialized,
            optimized,
        })
    }

    /// Compiles a serialized executable again, with `options` (replica and
    /// partition counts override the module's when set).
    pub fn deserialize(
        client: &Client,
        bytes: &[u8],
        options: &CompileOptions,
    ) -> Result<Compiled> {
        let source = (bytes.strip_prefix(SERIALIZED_MAGIC)).ok_or_else(|| {
            Error::invalid("not an executable serialized by this version of xla_rs")
        })?;
        let module = xla_core::load_module(source).map_err(|e| Error::invalid(e.to_string()))?;
        Compiled::from_module(client, module, source, options)
    }

    /// The number of outputs.
    pub(crate) fn num_outputs(&self) -> usize {
        self.output_types.len()
    }

    /// Runs on `args[d]` (one buffer per parameter) on every device `d`,
    /// taking the buffers of donatable parameters not listed in `keep`;
    /// returns each device's outputs.
    pub(crate) fn run(&self, args: &[Vec<&Buffer>], keep: &[i64]) -> Result<Vec<Vec<Literal>>> {
        for device in args {
            self.check_arguments(device)?;
        }
        let donate: Vec<bool> = (0..self.parameters.len())
            .map(|p| self.donatable[p] && !keep.contains(&(p as i64)))
            .collect();
        let failed = |e: String| {
            Error::new(
                PJRT_Error_Code_INTERNAL,
                format!("running `{}`: {e}", self.name),
            )
        };
        let results = match &self.program {
            Program::Jit(executable) => {
                let mut results = Vec::with_capacity(args.len());
                for device in args {
                    results.push(
                        if donate.contains(&true) {
                            executable.execute_donated(owned(device, &donate)?)
                        } else {
                            let contents = device
                                .iter()
                                .map(|a| a.contents())
                                .collect::<Result<Vec<_>>>()?;
                            let refs: Vec<&Literal> = contents.iter().map(|c| &**c).collect();
                            executable.execute(&refs)
                        }
                        .map_err(|e| failed(e.to_string()))?,
                    );
                }
                results
            }
            Program::Devices { executable, module } => {
                let owned = (args.iter())
                    .map(|device| owned(device, &donate))
                    .collect::<Result<Vec<_>>>()?;
                let refs: Vec<Vec<&Literal>> = owned.iter().map(|a| a.iter().collect()).collect();
                match executable.execute_devices(&refs, self.assignment, &Default::default()) {
                    Err(JitError::NotOnDevices { .. }) => {}
                    run => return per_device_outputs(run.map_err(|e| failed(e.to_string()))?),
                }
                Interpreter::new()
                    .execute(
                        module,
                        &owned,
                        self.assignment,
                        &RunOptions::default(),
                        &mut [],
                    )
                    .map_err(|e| failed(e.to_string()))?
            }
        };
        per_device_outputs(results)
    }

    fn check_arguments(&self, args: &[&Buffer]) -> Result<()> {
        let parameters = &self.parameters;
        if args.len() != parameters.len() {
            return Err(Error::invalid(format!(
                "`{}` takes {} arguments, not {}",
                self.name,
                parameters.len(),
                args.len()
            )));
        }
        for (i, (arg, param)) in args.iter().zip(parameters).enumerate() {
            let expected = param.as_array().map(|a| (a.element_type(), a.dims()));
            if expected != Some((arg.element_type, &arg.dims[..])) {
                return Err(Error::invalid(format!(
                    "argument {i} of `{}` is {}, the program takes {}",
                    self.name,
                    Shape::array(arg.element_type, arg.dims.clone()),
                    param.clone().without_layouts()
                )));
            }
        }
        Ok(())
    }
}

/// Each device's outputs: the elements of a tuple result, or the one
/// array.
fn per_device_outputs(results: Vec<Literal>) -> Result<Vec<Vec<Literal>>> {
    Ok(results
        .into_iter()
        .map(|result| match result.shape() {
            Shape::Tuple(_) => result.into_tuple_elements().unwrap_or_default(),
            _ => vec![result],
        })
        .collect())
}

/// The arguments as owned literals: donated ones taken out of their
/// buffers, the others copied.
fn owned(args: &[&Buffer], donate: &[bool]) -> Result<Vec<Literal>> {
    (args.iter().zip(donate))
        .map(|(arg, donated)| match donated {
            true => arg.take(),
            false => Ok((*arg.contents()?).clone()),
        })
        .collect()
}

/// An executable as the framework holds it: unloaded
/// (`PJRT_Executable`, metadata) or loaded on devices
/// (`PJRT_LoadedExecutable`).
pub struct Executable {
    pub(crate) compiled: Arc<Compiled>,
}

/// A compiled program loaded on devices.
pub struct LoadedExecutable {
    pub(crate) compiled: Arc<Compiled>,
    /// The devices it runs on (the device assignment's).
    pub(crate) devices: Vec<*mut PJRT_Device>,
    pub(crate) deleted: AtomicBool,
}

impl LoadedExecutable {
    /// `compiled` loaded on the devices `options` assigns (devices 0, 1, …
    /// when it assigns none), ordered as the program's devices are:
    /// replica-major, `replica · partitions + partition`.
    pub(crate) fn new(
        client: &Client,
        compiled: Compiled,
        options: &CompileOptions,
    ) -> Result<LoadedExecutable> {
        let (replicas, partitions) = (
            compiled.assignment.num_replicas,
            compiled.assignment.num_partitions,
        );
        // The proto lists, per computation (partition), its replicas' devices.
        let assigned = &options.device_assignment;
        let ids: Vec<i64> = if assigned.is_empty() {
            (0..(replicas * partitions) as i64).collect()
        } else if assigned.len() == partitions && assigned.iter().all(|c| c.len() == replicas) {
            (0..replicas)
                .flat_map(|r| (0..partitions).map(move |p| assigned[p][r]))
                .collect()
        } else {
            return Err(Error::invalid(format!(
                "the device assignment has {} computations of {:?} replicas; `{}` runs \
                 {partitions} partitions × {replicas} replicas",
                assigned.len(),
                assigned.iter().map(Vec::len).collect::<Vec<_>>(),
                compiled.name
            )));
        };
        let mut devices = Vec::new();
        for id in ids {
            let device = client.device(id)?;
            devices.push(client.device_handles()[device.id]);
        }
        Ok(LoadedExecutable {
            compiled: Arc::new(compiled),
            devices,
            deleted: AtomicBool::new(false),
        })
    }

    /// Whether [`delete`](Self::delete) was called.
    pub(crate) fn is_deleted(&self) -> bool {
        self.deleted.load(Ordering::Acquire)
    }

    /// Marks the executable deleted; running it afterwards is an error.
    pub(crate) fn delete(&self) {
        self.deleted.store(true, Ordering::Release);
    }
}

impl Handle for Executable {
    const KIND: Kind = Kind::Executable;
}

impl Handle for LoadedExecutable {
    const KIND: Kind = Kind::LoadedExecutable;
}

/// The MLIR module `PJRT_Executable_OptimizedProgram` returns for a
/// multi-device program: the per-device signature, a body of zeros, and
/// the shardings as XLA's partitioner leaves them on a module
/// (`mhlo.spmd_parameters_shardings`, `mhlo.spmd_output_sharding`), which
/// is what a framework reads from it.
fn optimized_program(
    name: &str,
    assignment: DeviceAssignment,
    signature: &xla_core::hlo::ProgramShape,
    shardings: &spmd::Shardings,
) -> String {
    let ty = |shape: &Shape| match shape.as_array() {
        Some(a) => {
            let dims: String = a.dims().iter().map(|d| format!("{d}x")).collect();
            format!("tensor<{dims}{}>", primitive_name(a.element_type()))
        }
        None => "tuple<>".into(),
    };
    let results: Vec<&Shape> = match &signature.result {
        Shape::Tuple(elements) => elements.iter().collect(),
        other => vec![other],
    };
    let quote = |s: &str| format!("{s:?}");
    let output = match shardings.outputs.as_slice() {
        [one] => one.clone(),
        many => format!("{{{}}}", many.join(", ")),
    };
    let params: Vec<String> = (signature.parameters.iter().enumerate())
        .map(|(i, p)| format!("%arg{i}: {}", ty(p)))
        .collect();
    let mut body = String::new();
    for (i, r) in results.iter().enumerate() {
        let zero = match r.element_type() {
            Some(PrimitiveType::Pred) => "false",
            Some(t) if t.is_floating() => "0.000000e+00",
            Some(t) if t.is_complex() => "(0.000000e+00,0.000000e+00)",
            _ => "0",
        };
        body += &format!("    %{i} = stablehlo.constant dense<{zero}> : {}\n", ty(r));
    }
    let values: Vec<String> = (0..results.len()).map(|i| format!("%{i}")).collect();
    let types: Vec<String> = results.iter().map(|r| ty(r)).collect();
    format!(
        "module @{name} attributes {{mhlo.num_partitions = {} : i32, \
         mhlo.num_replicas = {} : i32, mhlo.spmd_output_sharding = {}, \
         mhlo.spmd_parameters_shardings = [{}]}} {{\n  func.func public @main({}) -> ({}) {{\n\
         {body}    return {} : {}\n  }}\n}}\n",
        assignment.num_partitions,
        assignment.num_replicas,
        quote(&output),
        shardings
            .parameters
            .iter()
            .map(|s| quote(s))
            .collect::<Vec<_>>()
            .join(", "),
        params.join(", "),
        types.join(", "),
        values.join(", "),
        types.join(", "),
    )
}

/// Refuses, before compiling, a custom call nothing here runs: JAX's
/// host callbacks, and targets (e.g. LAPACK routines) without an
/// implementation.
fn check_custom_calls(module: &HloModule) -> Result<()> {
    static REGISTRY: OnceLock<CustomCallRegistry> = OnceLock::new();
    let registry = REGISTRY.get_or_init(CustomCallRegistry::default);
    for instruction in module.computations.iter().flat_map(|c| &c.instructions) {
        let Some(target) = instruction.attrs.custom_call_target.as_deref() else {
            continue;
        };
        if target.contains("python") && target.contains("callback") {
            return Err(Error::unimplemented(format!(
                "`{}` calls back into Python (custom call `{target}`: `jax.pure_callback`, \
                 `jax.debug.print`, `io_callback`); host callbacks are not supported by xla_rs",
                module.name
            )));
        }
        if registry.get(target).is_none() && instruction.xla_topk_as_topk().is_none() {
            return Err(Error::unimplemented(format!(
                "`{}`: custom call `{target}` ({}) is not supported by xla_rs",
                module.name, instruction.name
            )));
        }
    }
    Ok(())
}
