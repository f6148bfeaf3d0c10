//! The compile pipeline: verify → expand batch norms → optimize (simplification passes, then
//! layout assignment under [`CpuLayoutConstraints`]) → plan fusions → emit
//! kernels (all in one [`Jit`]) → lower to thunks and assign buffers.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use xla_core::hlo::{ComputationId, HloComputation, HloInstruction, InstrId, Opcode};
use xla_core::passes::effects::SideEffects;
use xla_core::passes::{
    optimize_verified, pin_entry_layout, run_pass, BatchNormExpander, PipelineOptions,
};
use xla_core::verify::verify_module;
use xla_core::{HloModule, Shape};

use super::conv_prepare::prepare_convolutions;
use super::deep::{on_own_stack, INLINE_NESTING};
use super::dot_prepare::prepare_dots;
use super::executable::{CompileStats, Executable, KernelStats};
use super::layout::CpuLayoutConstraints;
use super::lower::control::counted;
use super::lower::{byte_size, Lowering, Parallelism};
use super::plan::{
    accumulated_input, ComputationPlan, FusionRun, PlannedEpilogue, PlannedFusion, PlannedKernel,
    ScalarAdd,
};
use super::program::Program;
use super::window_copy::WindowCopy;
use crate::codegen::{CodegenOptions, Jit};
use crate::emit::{self, KernelEntry, TARGET_ELEMENTS};
use crate::fusion::{self, Fusion, FusionKind, FusionPlan, StandaloneReason};
use crate::library::Routine;
use crate::pool::ThreadPool;
use crate::JitError;

/// Options of one compilation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// Skip the client's compile cache (neither read nor fill it), e.g. to
    /// measure cold compiles.
    pub bypass_cache: bool,
    /// Keep each kernel's CLIF for [`Executable::dump`].
    pub keep_clif: bool,
    /// Keep each kernel's machine code (x86-64 mnemonics after register
    /// allocation) for [`Executable::dump`].
    pub keep_asm: bool,
    /// Make kernel iterations as small as they can be and split every
    /// kernel of two or more iterations into pool tasks, whatever the cost
    /// model says. For tests: small inputs then take the multi-threaded
    /// paths (task ranges that start mid-array, several threads writing
    /// one output); small kernels run slower.
    pub split_kernels: bool,
    /// Compile every fusion kernel with Cranelift (128-bit vectors), also
    /// those that would otherwise run as native AVX-512 or AVX2 code
    /// ([`crate::codegen::CodegenOptions::native`]): for comparing the two.
    /// The dot engine keeps its micro-kernel.
    pub cranelift_only: bool,
}

/// Kernels whose work is below this many nanoseconds run inline on the
/// caller: handing a job to the pool costs 0.2–0.5 µs while its workers
/// still spin from the previous job and 5–20 µs when one must be woken
/// (the pool's own measurements), so splitting only pays for work well
/// above that.
const PARALLEL_MIN_NS: f64 = 30_000.0;

/// Elements per kernel iteration under [`CompileOptions::split_kernels`]:
/// below every iteration space's minimum, so iterations are as small as
/// they can be (one short row, or a chunk of 64 elements of a long one).
const SPLIT_ITERATION_ELEMENTS: i64 = 16;

/// Pool tasks per thread at least: a few, so that uneven tasks balance.
const TASKS_PER_THREAD: usize = 4;

/// Estimated work per pool task in nanoseconds, at most: long kernels are
/// split finer than [`TASKS_PER_THREAD`] per thread, so that when the
/// host holds one thread back (a shared machine does, for milliseconds)
/// the others take over its tasks and the kernel ends at most one short
/// task late. On this 2-core host (interleaved runs, medians of 5
/// medians) ew_chain went from 12.8 to 11.1 ms and softmax from 2.12 to
/// 1.84 with tasks of this size instead of 8 per call; in a second,
/// quieter run of 8 rounds every change was within the noise. The
/// estimates run high (up to 7× for layernorm), so tasks are shorter
/// than this.
const TASK_NS: f64 = 50_000.0;

/// The CPU cost model: work above [`PARALLEL_MIN_NS`] is split into at
/// least [`TASKS_PER_THREAD`] tasks per pool thread, and into tasks of at
/// most [`TASK_NS`] of work where the iterations allow.
struct CpuParallelism {
    threads: usize,
    /// [`CompileOptions::split_kernels`]: split whatever the cost.
    split_all: bool,
}

impl Parallelism for CpuParallelism {
    fn tasks(&self, iterations: i64, cost_per_iteration: f64) -> usize {
        if iterations < 2 {
            return 1;
        }
        if self.split_all {
            return (self.threads.max(2) * TASKS_PER_THREAD).min(iterations as usize);
        }
        let work = iterations as f64 * cost_per_iteration;
        if self.threads <= 1 || work < PARALLEL_MIN_NS {
            return 1;
        }
        let by_work = (work / TASK_NS).ceil() as usize;
        by_work
            .max(self.threads * TASKS_PER_THREAD)
            .min(iterations as usize)
    }
}

/// Modules with more instructions than this compile on a thread of their
/// own with a stack of [`DEEP_STACK_BYTES`]: the emitters recurse along
/// chains of fused ops, a level per op, and a chain of 10000 element-wise
/// ops overflowed the main thread's 8 MiB.
const DEEP_MODULE_INSTRUCTIONS: usize = 512;

/// The stack of a large module's compile thread (address space, touched
/// only as deep as the recursion goes).
const DEEP_STACK_BYTES: usize = 1 << 30;

/// Compiles `module` for the host CPU.
pub(crate) fn compile(
    module: &HloModule,
    options: &CompileOptions,
) -> Result<Executable, JitError> {
    let instructions: usize = module
        .computations
        .iter()
        .map(|c| c.instructions.len())
        .sum();
    // Lowering recurses a level per nested computation too.
    let depth = module.call_depth().unwrap_or(1);
    if instructions <= DEEP_MODULE_INSTRUCTIONS && depth <= INLINE_NESTING {
        return compile_here(module, options);
    }
    on_own_stack("xla-compile", DEEP_STACK_BYTES, || {
        compile_here(module, options)
    })
}

/// [`compile`] on the calling thread.
fn compile_here(module: &HloModule, options: &CompileOptions) -> Result<Executable, JitError> {
    let started = Instant::now();
    let mut phases = Phases {
        times: Vec::new(),
        since: started,
    };
    verify_module(module)?;
    phases.end("verify");
    let mut module = module.clone();
    let pipeline = PipelineOptions {
        verify: cfg!(debug_assertions),
        layout_constraints: Some(&CpuLayoutConstraints),
        inline_fusions: true,
        ..PipelineOptions::default()
    };
    // The signature callers see is the one written, whatever the expander
    // makes of a batch norm at the root.
    let _pinned = pin_entry_layout(&mut module);
    // Before the simplifier, so the expanded reductions and element-wise
    // ops are simplified and fused like any others.
    // Verified above; the expander's output is verified in debug builds.
    let _expanded = run_pass(&mut BatchNormExpander, &mut module, pipeline.verify)?;
    let _changed = optimize_verified(&mut module, &pipeline)?;
    phases.end("optimize and assign layouts");
    // Large convolutions become im2col plus a dot, before the dots are
    // prepared.
    if prepare_convolutions(&mut module) && cfg!(debug_assertions) {
        verify_module(&module)?;
    }
    phases.end("prepare convolutions");
    // After layout assignment: which dots the engine reads through strides
    // depends on the layouts.
    if prepare_dots(&mut module) && cfg!(debug_assertions) {
        verify_module(&module)?;
    }
    phases.end("prepare dots");
    check_buffer_sizes(&module)?;
    // Split kernels iterate in small steps, so that small inputs make
    // several iterations to split.
    let iteration_elements = if options.split_kernels {
        SPLIT_ITERATION_ELEMENTS
    } else {
        TARGET_ELEMENTS
    };
    let mut jit = Jit::new(CodegenOptions {
        keep_clif: options.keep_clif,
        native: crate::wide::native_width().filter(|_| !options.cranelift_only),
        ..CodegenOptions::default()
    })?;
    jit.keep_disasm(options.keep_asm);
    let mut plans = HashMap::new();
    let mut report = String::new();
    let mut kernels = Vec::new();
    let effects = SideEffects::of(&module);
    for id in thunk_computations(&module) {
        let plan = fusion::plan_with(&module, id, &effects, &LibraryFirst);
        let _ = write!(
            report,
            "computation {}\n{}",
            module.computation(id).name,
            plan.display(module.computation(id))
        );
        let planned = compile_plan(
            &mut jit,
            &module,
            id,
            &plan,
            iteration_elements,
            &mut report,
        )?;
        for fusion in &planned.fusions {
            match &fusion.run {
                FusionRun::Kernels { kernels: ks, .. } => {
                    kernels.extend(ks.iter().map(|k| KernelStats {
                        name: k.name.clone(),
                        compile_time: k.compile_time,
                    }));
                }
                FusionRun::Dot {
                    epilogue: Some(e), ..
                } => kernels.push(KernelStats {
                    name: e.name.clone(),
                    compile_time: e.compile_time,
                }),
                _ => {}
            }
        }
        plans.insert(id, planned);
    }
    phases.end("fusion and kernels");
    let parallelism = CpuParallelism {
        threads: ThreadPool::global().threads(),
        split_all: options.split_kernels,
    };
    let program = Program::lower(Lowering::new(&module, &plans, &parallelism), &module)?;
    phases.end("buffer assignment");
    let stats = CompileStats {
        total: started.elapsed(),
        phases: phases.times,
        kernels,
    };
    Ok(Executable::new(program, jit, module, report, stats))
}

/// Every buffer the program may hold has a byte size that fits `isize`,
/// and so do the instructions' buffers together (a bound on the arena):
/// buffer assignment and the runtime then compute offsets and sizes
/// without overflow. Larger modules are refused here; a module within the
/// bound may still fail to allocate at run time ([`JitError::OutOfMemory`]).
fn check_buffer_sizes(module: &HloModule) -> Result<(), JitError> {
    let fits = |bytes: usize, what: &dyn Fn() -> String| {
        if bytes <= isize::MAX as usize {
            Ok(bytes)
        } else {
            Err(JitError::BeyondAddressSpace { what: what() })
        }
    };
    let mut total = 0usize;
    for computation in &module.computations {
        for instr in &computation.instructions {
            let size = fits(byte_size(&instr.shape), &|| {
                format!("instruction {} ({})", instr.name, instr.shape)
            })?;
            total = fits(total.saturating_add(size), &|| {
                "the instructions' buffers together".into()
            })?;
        }
    }
    let signature = module.entry_program_shape();
    let entry = module.entry_layout.as_ref().unwrap_or(&signature);
    for (i, parameter) in entry.parameters.iter().enumerate() {
        fits(byte_size(parameter), &|| {
            format!("parameter {i} ({parameter})")
        })?;
    }
    fits(byte_size(&entry.result), &|| {
        format!("the result ({})", entry.result)
    })?;
    Ok(())
}

struct Phases {
    times: Vec<(&'static str, Duration)>,
    since: Instant,
}

impl Phases {
    fn end(&mut self, name: &'static str) {
        let now = Instant::now();
        self.times.push((name, now - self.since));
        self.since = now;
    }
}

/// The computations that run as thunk sequences: the entry and, from it,
/// the bodies of loops, conditionals and calls (not the computations
/// applied inside ops, such as a reduce's `to_apply`, nor the conditions
/// of counted loops).
fn thunk_computations(module: &HloModule) -> Vec<ComputationId> {
    let mut order = vec![module.entry];
    let mut next = 0;
    while next < order.len() {
        let computation = module.computation(order[next]);
        next += 1;
        for instr in &computation.instructions {
            let runs_called = matches!(
                instr.opcode,
                Opcode::While | Opcode::Conditional | Opcode::Call
            );
            // A counted loop's condition is compared in place, never run.
            let skip =
                usize::from(instr.opcode == Opcode::While && counted(module, instr).is_some());
            for &called in instr.called.iter().filter(|_| runs_called).skip(skip) {
                if !order.contains(&called) {
                    order.push(called);
                }
            }
        }
    }
    order
}

/// The JIT's kernels, but for what a library routine runs better than a
/// kernel (a sort by one key), which runs as its own thunk: the lowering
/// gives it to the library.
struct LibraryFirst;

impl fusion::Backend for LibraryFirst {
    fn check(
        &self,
        module: &HloModule,
        comp: &HloComputation,
        id: InstrId,
    ) -> Result<(), emit::Unsupported> {
        emit::Kernels.check(module, comp, id)
    }

    fn scans(&self, module: &HloModule, comp: &HloComputation, instr: &HloInstruction) -> bool {
        emit::Kernels.scans(module, comp, instr)
    }

    fn runs_alone(
        &self,
        module: &HloModule,
        comp: &HloComputation,
        instr: &HloInstruction,
    ) -> bool {
        if instr.opcode != Opcode::Sort {
            return false;
        }
        let shapes: Vec<&Shape> = instr
            .operands
            .iter()
            .map(|&o| &comp.instr(o).shape)
            .collect();
        Routine::new(module, instr, &shapes).is_some()
    }
}

/// Compiles the kernels of each fusion of `plan`; a fusion the emitters
/// cannot compile runs through the interpreter (recorded in `report`).
fn compile_plan(
    jit: &mut Jit,
    module: &HloModule,
    computation: ComputationId,
    plan: &FusionPlan,
    iteration_elements: i64,
    report: &mut String,
) -> Result<ComputationPlan, JitError> {
    // Every fusion's kernels are built first and compiled together: none
    // for a scalar add, which the runtime does itself, nor for a dot that
    // adds its product to its output.
    let comp = module.computation(computation);
    let mut built = Vec::new();
    for fusion in &plan.fusions {
        if let Some(add) = ScalarAdd::of(comp, fusion) {
            built.push(Err(FusionRun::ScalarAdd(add)));
            continue;
        }
        if let Some(window) = WindowCopy::of(comp, fusion) {
            built.push(Err(FusionRun::Window(window)));
            continue;
        }
        if let (Some(dot), Some(k)) = (
            &fusion.dot,
            accumulated_input(comp, fusion, computation == module.entry),
        ) {
            built.push(Err(FusionRun::Dot {
                dot: dot.dot,
                lhs: (dot.lhs.input, dot.lhs.view.clone()),
                rhs: (dot.rhs.input, dot.rhs.view.clone()),
                epilogue: None,
                accumulate: Some(k),
            }));
            continue;
        }
        let single = FusionPlan {
            computation,
            fusions: vec![fusion.clone()],
            standalone: Vec::new(),
        };
        built.push(Ok(
            match emit::build(jit, module, computation, &single, iteration_elements) {
                Ok(kernels) => Ok(kernels),
                Err(JitError::Unsupported(u)) => Err(u.to_string()),
                Err(other) => return Err(other),
            },
        ));
    }
    jit.finalize()?;
    let mut fusions = Vec::new();
    // `built` holds, per fusion, its kernels (or why there are none), or
    // how it runs without any.
    for (fusion, built) in plan.fusions.iter().zip(built) {
        let run = match built {
            Ok(kernels) => fusion_run(fusion, kernels.map(|b| b.resolve(jit))),
            Err(run) => run,
        };
        let root = &comp.instr(fusion.root).name;
        let _ = match &run {
            FusionRun::Kernels { kernels, .. } => {
                let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
                writeln!(report, "  fusion {root} runs kernels {}", names.join(", "))
            }
            FusionRun::Dot {
                epilogue,
                accumulate,
                ..
            } => writeln!(
                report,
                "  fusion {root} runs on the dot engine{}",
                if accumulate.is_some() {
                    ", adding to its output"
                } else if epilogue.is_some() {
                    " with its epilogue kernel"
                } else {
                    ""
                }
            ),
            FusionRun::Interpret { reason } => {
                writeln!(
                    report,
                    "  fusion {root} falls back to the interpreter: {reason}"
                )
            }
            FusionRun::Window(_) => writeln!(
                report,
                "  fusion {root} is a pad, slice or dynamic update the runtime copies"
            ),
            FusionRun::ScalarAdd(add) => writeln!(
                report,
                "  fusion {root} is a scalar add of {} the runtime does",
                add.by
            ),
        };
        fusions.push(PlannedFusion {
            root: fusion.root,
            instructions: fusion.instructions.clone(),
            inputs: fusion.inputs.clone(),
            outputs: fusion.outputs.clone(),
            in_place: fusion.in_place.map(|p| (p.input, p.output)),
            aliasable: fusion.aliasable.clone(),
            run,
        });
    }
    let standalone = plan
        .standalone
        .iter()
        .filter(|s| s.reason != StandaloneReason::Unused)
        .map(|s| s.instr)
        .collect();
    Ok(ComputationPlan {
        fusions,
        standalone,
    })
}

/// How a fusion runs given what the emitters produced for it.
fn fusion_run(fusion: &Fusion, compiled: Result<Vec<emit::CompiledKernel>, String>) -> FusionRun {
    if let (FusionKind::DotEpilogue, Some(dot)) = (fusion.kind, &fusion.dot) {
        let epilogue = compiled.ok().and_then(|ks| {
            ks.into_iter().find_map(|k| match k.entry {
                KernelEntry::Epilogue(func) => Some(PlannedEpilogue {
                    name: k.name,
                    func,
                    compile_time: k.compile_time,
                }),
                KernelEntry::Range(_) => None,
            })
        });
        return FusionRun::Dot {
            dot: dot.dot,
            lhs: (dot.lhs.input, dot.lhs.view.clone()),
            rhs: (dot.rhs.input, dot.rhs.view.clone()),
            epilogue,
            accumulate: None,
        };
    }
    match compiled {
        Ok(kernels) => {
            let scratch_bytes = kernels.iter().map(|k| k.scratch_bytes).max().unwrap_or(0);
            let kernels = kernels
                .into_iter()
                .filter_map(|k| match k.entry {
                    KernelEntry::Range(func) => Some(PlannedKernel {
                        name: k.name,
                        func,
                        iterations: k.iterations,
                        cost_per_iteration: k.cost_per_iteration,
                        compile_time: k.compile_time,
                    }),
                    KernelEntry::Epilogue(_) => None,
                })
                .collect();
            FusionRun::Kernels {
                kernels,
                scratch_bytes,
            }
        }
        Err(reason) => FusionRun::Interpret { reason },
    }
}
