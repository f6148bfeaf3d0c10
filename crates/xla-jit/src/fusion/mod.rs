//! Fusion planning: which instructions of a computation share one kernel.
//!
//! [`plan`] walks a computation from its root towards its parameters and
//! grows a *region* from every value that must exist in memory: a producer
//! joins the region of its consumers when the emitters can compute it per
//! element inside their loop nest (elementwise ops and data movement cost
//! index arithmetic, not memory) and every user of the producer is in the
//! region. Each decision is recorded with its [`Reason`], printed by
//! `xla dump` and asserted in tests.
//!
//! ```
//! use xla_core::HloModule;
//! use xla_jit::emit::Kernels;
//! use xla_jit::fusion::{plan, FusionKind};
//!
//! let module: HloModule = "HloModule m
//! ENTRY e {
//!   a = f32[] parameter(0)
//!   x = f32[8]{0} parameter(1)
//!   ax = f32[8]{0} broadcast(a), dimensions={}
//!   m = f32[8]{0} multiply(ax, x)
//!   ROOT n = f32[8]{0} negate(m)
//! }".parse()?;
//! let plan = plan(&module, module.entry, &Kernels);
//! assert_eq!(plan.fusions.len(), 1);
//! assert_eq!(plan.fusions[0].kind, FusionKind::Loop);
//! assert_eq!(plan.fusions[0].instructions.len(), 3); // ax, m, n
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Kinds (see `JIT.md`):
//!
//! * [`FusionKind::Loop`]: the root is elementwise or data movement; one
//!   loop nest over the root's elements.
//! * [`FusionKind::Reduction`]: the root is a `reduce`; its operand's
//!   producers are computed inside the reduction loop (input fusion).
//! * [`FusionKind::Row`]: reduce results broadcast back along the reduced
//!   dimensions feed elementwise consumers (softmax, layernorm): one kernel
//!   iterating over rows, one pass per reduction over the row, then the
//!   output pass.
//! * [`FusionKind::DotEpilogue`]: a `dot` and the elementwise consumers of
//!   its result, which the dot engine runs on each finished output block;
//!   transposes and copies of the dot's operands become operand strides.
//!
//! Cheap producers (scalar constants, `iota`, and `broadcast`/`reshape`/
//! `transpose`/`convert` chains over parameters and constants) are
//! duplicated into every consumer region instead of being materialized.

mod classify;
mod dims;
mod display;
mod dot_view;
mod region;
mod window;

use std::collections::BTreeSet;

use xla_core::hlo::{ComputationId, HloComputation, HloInstruction, InstrId};
use xla_core::passes::effects::SideEffects;
use xla_core::{HloModule, Opcode};

pub use classify::{classify, Role};
pub use display::PlanDisplay;
pub(crate) use dot_view::{
    canonicalize, free_dims, lhs_view, out_view, rhs_view, DotGeometry, DotInput, LhsView,
};

use crate::error::Unsupported;

/// What kind of kernel a fusion becomes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FusionKind {
    /// One loop nest over the root's elements.
    Loop,
    /// A `reduce` root with its operand's producers fused (input fusion).
    Reduction,
    /// Reduce–broadcast–consume over rows (softmax, layernorm).
    Row,
    /// A `dot` with its elementwise epilogue (possibly empty).
    DotEpilogue,
}

impl FusionKind {
    /// Lower-case name for dumps: `loop`, `reduction`, `row`, `dot`.
    pub fn name(self) -> &'static str {
        match self {
            FusionKind::Loop => "loop",
            FusionKind::Reduction => "reduction",
            FusionKind::Row => "row",
            FusionKind::DotEpilogue => "dot",
        }
    }
}

/// The most operands a concatenate fused into a consumer has: its
/// generator chooses the operand of each element by bisection, and its code
/// (and compile time) grows with the operand count times the unrolled
/// vectors and lanes. More make it a kernel root, which copies each
/// operand in a kernel of its own.
pub const FUSED_CONCAT_OPERANDS: usize = 64;

/// Why a producer was or was not fused into a consumer's region.
#[derive(Clone, PartialEq, Debug)]
pub enum Reason {
    // === fused ===
    /// An elementwise producer whose users are all in the region.
    Elementwise,
    /// A data-movement producer (index arithmetic only).
    DataMovement,
    /// A cheap producer (scalar constant, iota, broadcast/reshape of a
    /// parameter or constant), duplicated into each consumer.
    CheapDuplicated,
    /// A producer of a reduction's operand, computed inside the reduction
    /// loop.
    ReductionInput,
    /// A reduce whose result is only used at the current row: one pass of a
    /// row kernel.
    RowPass,
    /// The dot whose output block the region's epilogue transforms.
    DotEpilogue,
    /// A transpose of a dot operand, read through permuted strides.
    TransposeAbsorbed,
    /// A layout-changing copy of a dot operand, read through the source's
    /// strides.
    CopyAbsorbed,
    /// A convolution's patches (the im2col reshape of a concatenate of
    /// slices), read as a window of the sliced buffer: the patches are
    /// never written.
    WindowAbsorbed,

    // === not fused ===
    /// The producer has a user outside the region, so its value must be in
    /// memory anyway.
    UsersOutside {
        /// A user outside the region.
        user: InstrId,
    },
    /// The producer is a parameter or a non-scalar constant: a buffer.
    Buffer,
    /// A transpose or copy of a dot operand whose source the dot engine
    /// cannot read through strides: it writes the operand in its own
    /// layout first.
    NotStrided,
    /// The producer runs as its own thunk (control flow, tuples, dot, sort,
    /// scatter, …).
    NotFusible(Opcode),
    /// The producer is a reduce-window that computes a prefix scan: a
    /// kernel of its own, which no user joins.
    PrefixScan,
    /// The emitters cannot compile the producer.
    Unsupported(Unsupported),
    /// An expensive producer whose value the region would recompute for
    /// every index of a broadcast dimension.
    ExpensiveReused,
    /// An expensive producer a member of the region would recompute many
    /// times per output element: for every window tap of a reduce-window
    /// or select-and-scatter, for every comparison of a sort or topk.
    WindowReused,
    /// A producer the region would compute this many times per output
    /// element, reached through several index-changing users (slices of a
    /// `roll`, …) at each of several steps: materialized, so that the code
    /// does not grow exponentially with the steps.
    CodeDuplication {
        /// How many times per output element.
        emissions: u64,
    },
    /// A producer a convolution of the region would recompute for every
    /// output feature and kernel tap: materialized.
    ConvolutionOperand,
    /// A producer whose code the kernel would hold this many times (more
    /// than 16): it fills that many operand slots of fused concatenates
    /// (nested concatenates of one value multiply them). Materialized, it
    /// is read from a buffer in each slot.
    CodeCopies {
        /// How many copies.
        copies: u64,
    },
    /// A concatenate of more operands than a fused one chooses from per
    /// element ([`FUSED_CONCAT_OPERANDS`]): materialized, so that its kernels
    /// copy each operand in a loop of its own.
    ManyOperands {
        /// Its operand count.
        operands: usize,
    },
    /// The operand of an in-place dynamic-update-slice or scatter: its
    /// buffer becomes the output.
    InPlaceOperand,
    /// A reduce that cannot be a row pass (the text says why).
    NotRowPass(String),
    /// A dot that cannot take this epilogue (the text says why).
    NotEpilogue(String),
}

/// One planning decision: a producer fused into (or kept out of) the region
/// of a consumer.
#[derive(Clone, PartialEq, Debug)]
pub enum FusionDecision {
    /// `producer` is computed inside the region of `consumer`.
    Fuse {
        /// The fused instruction.
        producer: InstrId,
        /// The member of the region that uses it.
        consumer: InstrId,
        /// Why.
        reason: Reason,
    },
    /// `producer` is read from a buffer by the region of `consumer`.
    Forbid {
        /// The instruction kept out.
        producer: InstrId,
        /// The member of the region that uses it.
        consumer: InstrId,
        /// Why.
        reason: Reason,
    },
}

impl FusionDecision {
    /// The producer the decision is about.
    pub fn producer(&self) -> InstrId {
        match self {
            FusionDecision::Fuse { producer, .. } | FusionDecision::Forbid { producer, .. } => {
                *producer
            }
        }
    }

    /// The reason.
    pub fn reason(&self) -> &Reason {
        match self {
            FusionDecision::Fuse { reason, .. } | FusionDecision::Forbid { reason, .. } => reason,
        }
    }
}

/// An in-place fusion: the output buffer must be the input buffer's memory
/// (the runtime aliases it when the input dies at this fusion, and copies
/// the input into the output first otherwise). The kernel writes only part
/// of the output (a dynamic-update-slice writes only the update window).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct InPlace {
    /// Index into [`Fusion::inputs`].
    pub input: usize,
    /// Index into [`Fusion::outputs`].
    pub output: usize,
}

/// How the dot engine reads one operand of a [`FusionKind::DotEpilogue`]
/// fusion.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DotOperand {
    /// Index into [`Fusion::inputs`] of the buffer holding the data.
    pub input: usize,
    /// How the operand's elements lie in that buffer.
    pub view: OperandView,
}

/// How a dot operand's elements lie in the buffer it is read from: each of
/// its dimensions steps through the buffer's dimensions, so its stride is
/// a sum of the buffer's strides and no copy is needed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum OperandView {
    /// The buffer itself (also through an absorbed copy: the copy changes
    /// the layout, not the logical array).
    Buffer,
    /// `transpose(buffer, permutation)`: operand dimension `i` is buffer
    /// dimension `permutation[i]`.
    Transpose(Vec<i64>),
    /// A convolution's patches, absorbed with their im2col (a reshape of a
    /// concatenate of equally shaped slices of the buffer at a grid of
    /// starts): operand index `x` is buffer index
    /// `start[e] + Σ_i x[i]·step` over the `(e, step)` of `steps[i]`, for
    /// each buffer dimension `e`.
    Window {
        /// The operand's dimensions.
        sizes: Vec<i64>,
        /// Per operand dimension, the buffer dimensions it steps through
        /// and by how much.
        steps: Vec<Vec<(usize, i64)>>,
        /// The buffer index of operand element 0.
        start: Vec<i64>,
    },
}

impl OperandView {
    /// `(size, stride)` of each operand dimension read through this view
    /// from a buffer whose dimensions have `sizes` and `strides`, and the
    /// offset of element 0; `None` for a negative stride or offset.
    pub fn dims(&self, sizes: &[i64], strides: &[i64]) -> Option<(Vec<(i64, i64)>, i64)> {
        match self {
            OperandView::Buffer => Some((
                sizes.iter().copied().zip(strides.iter().copied()).collect(),
                0,
            )),
            OperandView::Transpose(p) => Some((
                p.iter()
                    .map(|&d| (sizes[d as usize], strides[d as usize]))
                    .collect(),
                0,
            )),
            OperandView::Window {
                sizes,
                steps,
                start,
            } => {
                let offset: i64 = start.iter().zip(strides).map(|(s, t)| s * t).sum();
                let dims = steps
                    .iter()
                    .map(|terms| {
                        terms
                            .iter()
                            .map(|&(e, step)| step * strides[e])
                            .sum::<i64>()
                    })
                    .collect::<Vec<i64>>();
                if offset < 0 || dims.iter().any(|&s| s < 0) {
                    return None;
                }
                Some((sizes.iter().copied().zip(dims).collect(), offset))
            }
        }
    }
}

/// The dot of a [`FusionKind::DotEpilogue`] fusion and where its operands
/// come from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DotOperands {
    /// The `dot` instruction.
    pub dot: InstrId,
    /// Its lhs.
    pub lhs: DotOperand,
    /// Its rhs.
    pub rhs: DotOperand,
}

/// A fused value a kernel computes once per row: a reduce of a row kernel,
/// or any member whose value does not change along the kernel's inner
/// loop.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RowPass {
    /// The instruction.
    pub instr: InstrId,
    /// For each of its dimensions, the root dimension it is read at
    /// (`None` for dimensions of size 1). Softmax over `f32[4096,1024]`
    /// reads its reductions `f32[4096]` at `[Some(0)]`.
    pub dims: Vec<Option<usize>>,
}

/// A group of instructions computed by one kernel (or one dot call with its
/// epilogue).
#[derive(Clone, PartialEq, Debug)]
pub struct Fusion {
    /// The kind of kernel.
    pub kind: FusionKind,
    /// The instruction whose value the fusion computes.
    pub root: InstrId,
    /// Every instruction the kernel computes, in topological order (root
    /// last). Duplicated cheap producers may appear in several fusions.
    pub instructions: Vec<InstrId>,
    /// The values the kernel writes to buffers (the root). A tuple-shaped
    /// output (variadic reduce) contributes one buffer per tuple element.
    pub outputs: Vec<InstrId>,
    /// The values the kernel reads from buffers, in buffer order.
    pub inputs: Vec<InstrId>,
    /// Why each producer was fused or not.
    pub decisions: Vec<FusionDecision>,
    /// Set when the output aliases an input (an in-place
    /// dynamic-update-slice or scatter).
    pub in_place: Option<InPlace>,
    /// Inputs (positions in `inputs`) that a [`FusionKind::Loop`] kernel
    /// reads only at the index of the output element it computes: its
    /// output may share such an input's storage (a loop's state updated
    /// elementwise in place) when their layouts agree.
    pub aliasable: Vec<usize>,
    /// For [`FusionKind::Loop`]: set when some input's minor-most
    /// dimension in memory is indexed by a root dimension other than the
    /// root's minor-most (a transpose, or a copy into another layout), so
    /// that each output row reads one element per input row; the largest
    /// byte stride between the elements such an input gives one output
    /// row. The kernel then walks its output in tiles of rows × columns,
    /// which use each input cache line whole.
    pub transposed_read_stride: Option<i64>,
    /// Set for [`FusionKind::DotEpilogue`].
    pub dot: Option<DotOperands>,
    /// For [`FusionKind::Row`] (and reductions): the reduces, in the order
    /// the kernel computes them (a root reduce last).
    pub passes: Vec<RowPass>,
    /// Members (other than reduces) whose value is the same all along the
    /// kernel's inner loop: read only at root dimensions that index rows
    /// (row kernels) or at dimensions other than the root's minor-most
    /// (loop kernels). Kernels compute them once per row, in this
    /// (topological) order. Example: layernorm's `rsqrt(var + ε)`.
    pub invariants: Vec<RowPass>,
}

impl Fusion {
    /// `true` if `id` is computed by this fusion.
    pub fn contains(&self, id: InstrId) -> bool {
        self.instructions.binary_search(&id).is_ok()
    }

    /// The buffer position of an input, if `id` is one.
    pub fn input_index(&self, id: InstrId) -> Option<usize> {
        self.inputs.iter().position(|&i| i == id)
    }
}

/// Why an instruction is not computed by a fusion kernel.
#[derive(Clone, PartialEq, Debug)]
pub enum StandaloneReason {
    /// A parameter: the caller's buffer.
    Parameter,
    /// A constant whose value lives in a buffer.
    Constant,
    /// Control flow, tuples and other ops that run as their own thunk.
    Thunk(Opcode),
    /// An op the emitters cannot compile: the runtime interprets it.
    Unsupported(Unsupported),
    /// No user and not the root: nothing to run.
    Unused,
}

/// An instruction outside every fusion.
#[derive(Clone, PartialEq, Debug)]
pub struct Standalone {
    /// The instruction.
    pub instr: InstrId,
    /// Why it stands alone.
    pub reason: StandaloneReason,
}

/// The fusion plan of one computation.
#[derive(Clone, PartialEq, Debug)]
pub struct FusionPlan {
    /// The planned computation.
    pub computation: ComputationId,
    /// The fusions, in an order where producers come before consumers.
    pub fusions: Vec<Fusion>,
    /// Instructions outside every fusion, in instruction order.
    pub standalone: Vec<Standalone>,
}

/// Where an instruction's value comes from at run time.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Placement {
    /// Written to a buffer by this fusion.
    Output(usize),
    /// A standalone op (see [`FusionPlan::standalone`]).
    Standalone(usize),
    /// Only computed inside fusions; never in memory.
    Fused,
}

impl FusionPlan {
    /// Where `id`'s value comes from.
    pub fn placement(&self, id: InstrId) -> Placement {
        if let Some(f) = self.fusions.iter().position(|f| f.outputs.contains(&id)) {
            return Placement::Output(f);
        }
        match self.standalone.iter().position(|s| s.instr == id) {
            Some(s) => Placement::Standalone(s),
            None => Placement::Fused,
        }
    }

    /// The instructions the runtime must run through the interpreter.
    pub fn fallback_ops(&self) -> impl Iterator<Item = &Standalone> {
        self.standalone
            .iter()
            .filter(|s| matches!(s.reason, StandaloneReason::Unsupported(_)))
    }
}

/// What the kernel back ends can compute. The planner asks it and knows
/// nothing else of the emitters (`emit::Kernels` answers for the JIT's).
pub trait Backend {
    /// `Ok` if kernels compute instruction `id` of `comp` as a fusion
    /// member; otherwise why not (the instruction is then interpreted).
    fn check(
        &self,
        module: &HloModule,
        comp: &HloComputation,
        id: InstrId,
    ) -> Result<(), Unsupported>;

    /// `true` if `instr` runs as a kernel of its own that scans along one
    /// dimension (a reduce-window that is a prefix sum).
    fn scans(&self, module: &HloModule, comp: &HloComputation, instr: &HloInstruction) -> bool;

    /// `true` if `instr`, which kernels could compute, runs better as a
    /// thunk of its own (a library routine), outside every fusion.
    fn runs_alone(
        &self,
        _module: &HloModule,
        _comp: &HloComputation,
        _instr: &HloInstruction,
    ) -> bool {
        false
    }
}

/// Plans the fusions of one computation of `module` for kernels of
/// `backend` (after passes and layout assignment: every array shape should
/// carry its layout; missing layouts read as the default).
pub fn plan(module: &HloModule, computation: ComputationId, backend: &dyn Backend) -> FusionPlan {
    plan_with(module, computation, &SideEffects::of(module), backend)
}

/// [`plan`] with the module's side-effect table, computed once for all of
/// its computations (the table walks the whole module).
pub fn plan_with(
    module: &HloModule,
    computation: ComputationId,
    effects: &SideEffects,
    backend: &dyn Backend,
) -> FusionPlan {
    let comp = module.computation(computation);
    let users = comp.users();
    let mut fusions: Vec<Fusion> = Vec::new();
    let mut standalone = Vec::new();
    // For each instruction, the fusions that compute it.
    let mut member_of: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); comp.instructions.len()];
    let mut standalone_ids = vec![false; comp.instructions.len()];
    for index in (0..comp.instructions.len() as u32).rev() {
        let id = InstrId(index);
        let instr = comp.instr(id);
        let consumers = &users[id.index()];
        // A side effect runs even when nothing reads its value (a dead
        // collective with a channel, a host callback).
        let read_from_memory = id == comp.root
            || (consumers.is_empty() && effects.instruction(instr))
            || consumers.iter().any(|&u| {
                standalone_ids[u.index()]
                    || member_of[u.index()]
                        .iter()
                        .any(|&f| !fusions[f].contains(id))
            });
        if !read_from_memory {
            if consumers.is_empty() {
                standalone.push(Standalone {
                    instr: id,
                    reason: StandaloneReason::Unused,
                });
                standalone_ids[id.index()] = true;
            }
            continue;
        }
        let reason = match classify(module, comp, backend, id) {
            Role::Parameter => Some(StandaloneReason::Parameter),
            Role::Buffer | Role::ScalarConstant if instr.opcode == Opcode::Constant => {
                Some(StandaloneReason::Constant)
            }
            Role::Thunk => Some(StandaloneReason::Thunk(instr.opcode)),
            Role::Unsupported(u) => Some(StandaloneReason::Unsupported(u)),
            _ => None,
        };
        if let Some(reason) = reason {
            standalone.push(Standalone { instr: id, reason });
            standalone_ids[id.index()] = true;
            continue;
        }
        let fusion = region::grow(module, comp, backend, &users, id);
        for &m in &fusion.instructions {
            member_of[m.index()].insert(fusions.len());
        }
        fusions.push(fusion);
    }
    fusions.reverse();
    standalone.reverse();
    FusionPlan {
        computation,
        fusions,
        standalone,
    }
}
