//! How the instructions of one computation run, as fusion planning and
//! kernel emission decided: the runtime's view of a fusion plan.

use std::time::Duration;

use xla_core::hlo::{HloComputation, InstrId};

use crate::emit::{EpilogueFn, KernelFn};
use crate::fusion::OperandView;

/// A fused group of instructions and how it runs.
pub(crate) struct PlannedFusion {
    /// The instruction whose value the fusion computes.
    pub root: InstrId,
    /// Members, in topological order (root last).
    pub instructions: Vec<InstrId>,
    /// Values read from buffers, in the kernel's buffer order.
    pub inputs: Vec<InstrId>,
    /// Values written to buffers, in the kernel's buffer order.
    pub outputs: Vec<InstrId>,
    /// `(input, output)`: the output buffer must hold the input's value
    /// before the kernels run (an in-place dynamic-update-slice writes only
    /// the update window); positions in `inputs` and `outputs`.
    pub in_place: Option<(usize, usize)>,
    /// Inputs the kernel reads only at its output element's index
    /// ([`crate::fusion::Fusion::aliasable`]).
    pub aliasable: Vec<usize>,
    pub run: FusionRun,
}

/// How a fusion's work is done.
pub(crate) enum FusionRun {
    /// Kernels over ranges of their iterations, run in order on the
    /// fusion's buffers (inputs, outputs, then `scratch_bytes` of scratch
    /// when not 0).
    Kernels {
        kernels: Vec<PlannedKernel>,
        scratch_bytes: usize,
    },
    /// A dot on the engine writing the fusion's output, then the epilogue
    /// kernel on each finished output block. Without a compiled epilogue,
    /// the members after the dot run through the interpreter.
    Dot {
        dot: InstrId,
        /// `(input, view)` of each operand: the input buffer holding it and
        /// how the dot reads it there (an absorbed transpose or patches).
        lhs: (usize, OperandView),
        rhs: (usize, OperandView),
        epilogue: Option<EpilogueFn>,
    },
    /// Not compiled (the reason says why): the interpreter runs the members.
    Interpret { reason: String },
}

/// A compiled kernel.
#[derive(Clone)]
pub(crate) struct PlannedKernel {
    pub name: String,
    pub func: KernelFn,
    /// Size of the outer iteration space.
    pub iterations: i64,
    /// Estimated nanoseconds per iteration (the parallelism cost model).
    pub cost_per_iteration: f64,
    pub compile_time: Duration,
}

/// The fusions of one computation, and the instructions that run as their
/// own thunks (control flow, tuples, constants, fallbacks).
pub(crate) struct ComputationPlan {
    pub fusions: Vec<PlannedFusion>,
    pub standalone: Vec<InstrId>,
}

/// One step of a computation's lowering.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Fusion(usize),
    Standalone(InstrId),
}

impl ComputationPlan {
    /// No fusion: every instruction stands alone.
    pub fn unfused(computation: &HloComputation) -> Self {
        ComputationPlan {
            fusions: Vec::new(),
            standalone: computation.ids().collect(),
        }
    }

    /// The steps in an order where every value is computed before it is
    /// read: by the position of each step's root instruction. (A fusion's
    /// input precedes its users in the computation, so it precedes the
    /// fusion's root; the input's own step has its producer as root, at or
    /// before the input.)
    pub fn steps(&self) -> Vec<Step> {
        let mut steps: Vec<(InstrId, Step)> = self
            .fusions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.root, Step::Fusion(i)))
            .chain(self.standalone.iter().map(|&id| (id, Step::Standalone(id))))
            .collect();
        steps.sort_by_key(|&(root, _)| root);
        steps.into_iter().map(|(_, step)| step).collect()
    }
}

/// The values the instructions `members` read from outside the set, in
/// order of first use.
pub(crate) fn external_inputs(computation: &HloComputation, members: &[InstrId]) -> Vec<InstrId> {
    let mut inputs = Vec::new();
    for &id in members {
        for &op in &computation.instr(id).operands {
            if !members.contains(&op) && !inputs.contains(&op) {
                inputs.push(op);
            }
        }
    }
    inputs
}
