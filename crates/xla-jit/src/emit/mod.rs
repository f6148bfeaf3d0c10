//! Kernel emission: the functions of each fusion of a [`FusionPlan`].
//!
//! On a CPU with AVX-512, flat elementwise fusions, row fusions (softmax,
//! layernorm, row reductions) and the partials of full reductions of f32
//! values are emitted as AVX-512 machine code (`avx512/`, on
//! [`crate::wide`]), whose 512-bit vectors Cranelift's x86-64 backend does
//! not have; on a CPU with AVX2 and FMA but not AVX-512, the flat and row
//! fusions as 256-bit AVX2 code. Every other kernel, and every kernel
//! elsewhere, is a Cranelift function.
//! [`crate::codegen::CodegenOptions::native`] set to `None` turns the
//! native kernels off.
//!
//! Every kernel follows one ABI:
//!
//! ```text
//! unsafe extern "C" fn(buffers: *const *mut u8, start: i64, end: i64)
//! ```
//!
//! `buffers` holds the base pointers of the fusion's inputs then its
//! outputs (then a scratch buffer when [`CompiledKernel::scratch_bytes`] is
//! not zero), each in the layout of its instruction's shape; the call
//! covers iterations `[start, end)` of `[0, iterations)`, which the runtime
//! may split across threads. Dot epilogues take the finished output block
//! instead (see [`EpilogueFn`]). Kernels never allocate and must run with
//! flush-to-zero on ([`FtzGuard`](crate::ftz::FtzGuard)).
//!
//! The emitters are elemental (XLA's `ElementalIrEmitter`): each op maps
//! the index its users ask for to its operands' indices and combines their
//! values (`elemental.rs`); kernels differ only in the loops around the
//! root (`loop_kernel.rs`, `reduce.rs`, `row.rs`, `epilogue.rs`).

mod access;
mod bitcast_convert;
mod check;
mod column;
mod combine;
mod complex;
mod convert;
mod convolution;
mod cost;
mod data_movement;
mod elemental;
mod elementwise;
mod epilogue;
mod float16;
mod gather;
mod host;
mod index;
mod iterate;
mod kernel;
mod loop_kernel;
mod native;
mod ops;
mod reduce;
mod reduce_window;
mod repr;
mod rng_bit_generator;
mod row;
mod scatter;
mod select_and_scatter;
mod sort;
mod transcendental;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{types, InstBuilder, SourceLoc};
use xla_core::hlo::{ComputationId, HloComputation};
use xla_core::{HloModule, Shape};

pub use crate::error::Unsupported;
pub use check::check;
pub use index::{Index, IndexDim};
pub use iterate::TARGET_ELEMENTS;
pub use kernel::KernelBuilder;

use crate::codegen::Jit;
use crate::fusion::{Fusion, FusionKind, FusionPlan};
use crate::wide::Width;
use crate::JitError;
use access::BufferSpec;
use elemental::InputBuffers;

/// The JIT's kernels, as the fusion planner asks about them.
pub struct Kernels;

impl crate::fusion::Backend for Kernels {
    fn check(
        &self,
        module: &HloModule,
        comp: &HloComputation,
        id: xla_core::hlo::InstrId,
    ) -> Result<(), Unsupported> {
        check(module, comp, id)
    }

    fn scans(
        &self,
        module: &HloModule,
        comp: &HloComputation,
        instr: &xla_core::HloInstruction,
    ) -> bool {
        reduce_window::scan_dim(module, comp, instr).is_some()
    }
}

/// A compiled kernel: `buffers` (inputs, outputs, then scratch), iterations
/// `[start, end)`.
pub type KernelFn = unsafe extern "C" fn(buffers: *const *mut u8, start: i64, end: i64);

/// A compiled dot epilogue: transforms one finished block of the dot's
/// output in place; `buffers` are the fusion's buffers (inputs then
/// output, the output being the dot's `C`).
pub type EpilogueFn = unsafe extern "C" fn(buffers: *const *mut u8, block: *const EpilogueBlock);

/// A block of a dot's output, in the dot engine's canonical
/// `[batch, m, n]` coordinates: element `(i, j)` of the block is output
/// element `(batch, row0 + i, col0 + j)` and lives at
/// `c + (i·row_stride + j·col_stride)·size` (strides in elements). The
/// output's dimensions are the dot's: batch dimensions, then the lhs's
/// free dimensions (flattened into `m`), then the rhs's (into `n`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EpilogueBlock {
    /// Address of the block's element `(0, 0)`.
    pub c: *mut u8,
    /// Elements between rows of the block.
    pub row_stride: i64,
    /// Elements between columns of the block.
    pub col_stride: i64,
    /// Rows in the block.
    pub rows: i64,
    /// Columns in the block.
    pub cols: i64,
    /// The block's matrix in the batch.
    pub batch: i64,
    /// The output row of the block's first row.
    pub row0: i64,
    /// The output column of the block's first column.
    pub col0: i64,
}

/// How the runtime calls a kernel.
#[derive(Clone, Copy, Debug)]
pub enum KernelEntry {
    /// Over a range of iterations.
    Range(KernelFn),
    /// On each finished block of a dot's output.
    Epilogue(EpilogueFn),
}

/// A compiled kernel of one fusion. A fusion may have several, run in order
/// on the same buffers (a full reduction: per-chunk partial results, then
/// their combination).
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// Index into [`FusionPlan::fusions`].
    pub fusion: usize,
    /// The function's name (for dumps).
    pub name: String,
    /// The code (valid while the `Jit` lives).
    pub entry: KernelEntry,
    /// Size of the iteration space split across threads (1 for epilogues).
    pub iterations: i64,
    /// Estimated cost of one iteration in nanoseconds, for the parallelism
    /// cost model (for an epilogue: per element of a block). Rough: bytes
    /// streamed at 20 GB/s plus a per-op cost per vector
    /// (see `emit/cost.rs`).
    pub cost_per_iteration: f64,
    /// Bytes of the scratch buffer passed after the outputs (0: none);
    /// shared by the fusion's kernels.
    pub scratch_bytes: usize,
    /// Time spent generating and compiling the function.
    pub compile_time: Duration,
}

/// What a kernel under construction needs from its fusion.
pub(crate) struct KernelInfo<'m> {
    pub module: &'m HloModule,
    pub comp: &'m HloComputation,
    pub fusion: &'m Fusion,
    /// Specs of the inputs then the outputs (tuple outputs flattened).
    pub buffers: Vec<BufferSpec>,
    /// Each input's spec and buffer index, shared by the generators of
    /// every kernel of the fusion (a concatenate's pieces number as many
    /// as its inputs).
    pub inputs: Arc<InputBuffers>,
    /// Elements one iteration of the runtime's iteration space aims to
    /// cover ([`TARGET_ELEMENTS`], or fewer to split small kernels).
    pub iteration_elements: i64,
    /// The width of the native kernels fusions may compile to
    /// ([`crate::codegen::CodegenOptions::native`]), if any.
    pub native: Option<Width>,
}

/// One function to compile for a fusion and its runtime metadata.
pub(crate) struct KernelPlan {
    pub part: &'static str,
    pub iterations: i64,
    pub cost_per_iteration: f64,
    pub scratch_bytes: usize,
    pub epilogue: bool,
    /// The function.
    pub emit: Emit,
}

/// The function of a [`KernelPlan`].
pub(crate) enum Emit {
    /// Emits the body in Cranelift IR (the builder is in the entry block).
    Clif(EmitBody),
    /// AVX-512 machine code, already built.
    Native(native::NativeKernel),
}

/// The body emitter of a [`KernelPlan`].
pub(crate) type EmitBody = Box<dyn Fn(&mut KernelBuilder, &KernelInfo) -> Result<(), Unsupported>>;

impl KernelPlan {
    /// A kernel over the iterations of `space`, each of its elements
    /// costing `per_element` nanoseconds, with no scratch buffer; `emit`
    /// receives the space.
    fn over(
        part: &'static str,
        space: iterate::IterSpace,
        per_element: f64,
        emit: impl Fn(&mut KernelBuilder, &KernelInfo, &iterate::IterSpace) -> Result<(), Unsupported>
            + 'static,
    ) -> Self {
        KernelPlan {
            part,
            iterations: space.iterations(),
            cost_per_iteration: space.elements_per_iteration() as f64 * per_element,
            scratch_bytes: 0,
            epilogue: false,
            emit: Emit::Clif(Box::new(move |kb, info| emit(kb, info, &space))),
        }
    }
}

static NEXT_KERNEL: AtomicUsize = AtomicUsize::new(0);

/// Compiles the kernels of every fusion of `plan` (a plan of
/// `computation`) into `jit` and finalizes it; each kernel iteration aims
/// at `iteration_elements` elements (see [`TARGET_ELEMENTS`]).
pub fn compile(
    jit: &mut Jit,
    module: &HloModule,
    computation: ComputationId,
    plan: &FusionPlan,
    iteration_elements: i64,
) -> Result<Vec<CompiledKernel>, JitError> {
    let built = build(jit, module, computation, plan, iteration_elements)?;
    jit.finalize()?;
    Ok(built.resolve(jit))
}

/// The kernels of fusions built into a [`Jit`] and not yet finalized:
/// [`Built::resolve`] gives them once [`Jit::finalize`] has compiled them
/// (the functions of many fusions compile together, on every core).
pub struct Built {
    kernels: Vec<(usize, String, Code, KernelPlan, Duration)>,
}

/// Builds the kernels of every fusion of `plan` into `jit` without
/// finalizing it (see [`compile`]).
pub fn build(
    jit: &mut Jit,
    module: &HloModule,
    computation: ComputationId,
    plan: &FusionPlan,
    iteration_elements: i64,
) -> Result<Built, JitError> {
    let comp = module.computation(computation);
    let mut compiled = Vec::new();
    for (f, fusion) in plan.fusions.iter().enumerate() {
        let start = Instant::now();
        let buffers = buffer_specs(jit, comp, fusion)?;
        let inputs = Arc::new(
            fusion
                .inputs
                .iter()
                .enumerate()
                .map(|(i, &id)| (id, (buffers[i].clone(), i)))
                .collect(),
        );
        let info = KernelInfo {
            module,
            comp,
            fusion,
            buffers,
            inputs,
            iteration_elements,
            native: jit.options().native,
        };
        let plans = kernel_plans(&info).map_err(JitError::Unsupported)?;
        let planned = start.elapsed();
        for kp in plans {
            let t = Instant::now();
            let name = format!(
                "{}_{}_{}",
                sanitize(&comp.instr(fusion.root).name),
                kp.part,
                NEXT_KERNEL.fetch_add(1, Ordering::Relaxed)
            );
            let code = match &kp.emit {
                Emit::Clif(body) => Code::Clif(compile_one(jit, &name, &info, &kp, body)?),
                Emit::Native(k) => Code::Native(jit.add_native(&name, &k.code)?),
            };
            compiled.push((f, name, code, kp, planned + t.elapsed()));
        }
    }
    Ok(Built { kernels: compiled })
}

impl Built {
    /// The kernels, after [`Jit::finalize`] compiled `jit`'s functions.
    pub fn resolve(self, jit: &Jit) -> Vec<CompiledKernel> {
        self.kernels
            .into_iter()
            .map(|(fusion, name, code, kp, built)| {
                let (ptr, compile_time) = match code {
                    Code::Clif(id) => (jit.function_ptr(id), built + jit.codegen_time(id)),
                    Code::Native(ptr) => (ptr, built),
                };
                // SAFETY: the function was compiled with this signature (see
                // `compile_one`; native kernels follow the range ABI, see
                // `avx512.rs`) and lives as long as `jit`.
                let entry = unsafe {
                    if kp.epilogue {
                        KernelEntry::Epilogue(std::mem::transmute::<*const u8, EpilogueFn>(ptr))
                    } else {
                        KernelEntry::Range(std::mem::transmute::<*const u8, KernelFn>(ptr))
                    }
                };
                CompiledKernel {
                    fusion,
                    name,
                    entry,
                    iterations: kp.iterations,
                    cost_per_iteration: kp.cost_per_iteration,
                    scratch_bytes: kp.scratch_bytes,
                    compile_time,
                }
            })
            .collect()
    }
}

/// Where a compiled kernel's code is.
enum Code {
    /// A Cranelift function (its address known after `finalize`).
    Clif(cranelift_module::FuncId),
    /// Native code at this address.
    Native(*const u8),
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn compile_one(
    jit: &mut Jit,
    name: &str,
    info: &KernelInfo,
    kp: &KernelPlan,
    body: &EmitBody,
) -> Result<cranelift_module::FuncId, JitError> {
    let ptr = jit.pointer_type();
    let call_conv = jit.isa().default_call_conv();
    let sig = if kp.epilogue {
        jit.signature(&[ptr, ptr], &[])
    } else {
        jit.signature(&[ptr, types::I64, types::I64], &[])
    };
    let buffers = info.buffers.len() + usize::from(kp.scratch_bytes > 0);
    let mut consts = None;
    let id = jit
        .try_compile(name, sig, |b| {
            let mut kb = KernelBuilder::new(b, ptr, call_conv, buffers);
            body(&mut kb, info).map_err(JitError::Unsupported)?;
            kb.b.set_srcloc(SourceLoc::default());
            kb.b.ins().return_(&[]);
            consts = Some(kb.consts);
            Ok(())
        })
        .map_err(|e| annotate(e, info.comp))?;
    jit.keep_constants(consts.expect("the kernel was built"));
    Ok(id)
}

/// Adds a legend of source locations (`@0005` in the CLIF is instruction
/// 4 of the computation) to a verifier report.
fn annotate(e: JitError, comp: &HloComputation) -> JitError {
    match e {
        JitError::Verifier { function, report } => {
            let mut legend = String::from("\nsource locations (HLO instructions):\n");
            for id in comp.ids() {
                let tag = format!("@{:04x}", id.0 + 1);
                if report.contains(&tag) {
                    legend.push_str(&format!("  {tag} = {}\n", comp.instr(id).name));
                }
            }
            JitError::Verifier {
                function,
                report: report + &legend,
            }
        }
        other => other,
    }
}

/// The buffer specs of a fusion: inputs, then outputs (tuple outputs
/// flattened).
fn buffer_specs(
    jit: &mut Jit,
    comp: &HloComputation,
    fusion: &Fusion,
) -> Result<Vec<BufferSpec>, JitError> {
    let mut specs = Vec::new();
    let mut register = |t: Vec<i64>| jit.keep_table(t);
    for &id in fusion.inputs.iter().chain(&fusion.outputs) {
        let shape = &comp.instr(id).shape;
        let leaves: Vec<&xla_core::ArrayShape> = match shape {
            Shape::Tuple(_) => shape.array_leaves(),
            Shape::Array(a) => vec![a],
            _ => Vec::new(),
        };
        for a in leaves {
            let spec = BufferSpec::new(a, &mut register).map_err(JitError::Unsupported)?;
            specs.push(spec);
        }
    }
    Ok(specs)
}

/// The functions to compile for one fusion.
fn kernel_plans(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    if let Some(width) = info.native {
        if let Some(plans) = native::plan(info, width) {
            return Ok(plans);
        }
    }
    match info.fusion.kind {
        FusionKind::Loop => loop_kernel::plan(info),
        FusionKind::Reduction => reduce::plan(info),
        FusionKind::Row => row::plan(info),
        FusionKind::DotEpilogue => epilogue::plan(info),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifier_reports_name_hlo_instructions() {
        let module: HloModule = "HloModule m\nENTRY e {\n  x = f32[4]{0} parameter(0)\n  \
                                 n = f32[4]{0} negate(x)\n  ROOT a = f32[4]{0} abs(n)\n}"
            .parse()
            .unwrap();
        let report = "function u0:0 {\n@0002 v3 = fneg v2\n; error: bad\n}".to_string();
        let e = annotate(
            JitError::Verifier {
                function: "k".into(),
                report,
            },
            module.entry_computation(),
        );
        let text = e.to_string();
        assert!(text.contains("@0002 = n"), "{text}");
        assert!(!text.contains("@0003 = a"), "{text}");
    }
}
