//! How the instructions of one computation run, as fusion planning and
//! kernel emission decided: the runtime's view of a fusion plan.

use std::time::Duration;

use xla_core::hlo::{HloComputation, InstrId};
use xla_core::{Opcode, PrimitiveType};

use super::window_copy::WindowCopy;
use crate::emit::{EpilogueFn, KernelFn};
use crate::fusion::{Fusion, OperandView};

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
        epilogue: Option<PlannedEpilogue>,
        /// Set when the fusion is `add(x, dot)` ([`accumulated_input`]):
        /// the position of `x` in the inputs, which primes the output the
        /// dot then adds its product to (no epilogue is compiled).
        accumulate: Option<usize>,
    },
    /// Not compiled (the reason says why): the interpreter runs the members.
    Interpret { reason: String },
    /// An integer scalar plus a constant, added by the runtime itself.
    ScalarAdd(ScalarAdd),
    /// A pad, slice or dynamic update the runtime copies ([`WindowCopy`]).
    Window(WindowCopy),
}

/// The position in `fusion`'s inputs of `x` when the fusion is a dot whose
/// product is added to it, `add(x, dot)` in either order: `x` of the
/// result's shape and layout, f32 or f64 throughout, operands the engine
/// reads through strides (not a convolution's window). The dot then adds
/// into its output primed with `x` (`C += A·B`), free of a copy when `x`'s
/// buffer dies there (a loop's running sum), where an epilogue would read
/// `x` after the dot wrote each block. Not when `x` is a parameter or a
/// constant of the entry computation (`entry`): the caller's buffer
/// always needs that copy, which costs more than the epilogue's read (a
/// residual `x + conv(y)` of 16 MB: 1.1 ms of copy).
pub(crate) fn accumulated_input(
    computation: &HloComputation,
    fusion: &Fusion,
    entry: bool,
) -> Option<usize> {
    let dot_operands = fusion.dot.as_ref()?;
    let root = computation.instr(fusion.root);
    let dot = computation.instr(dot_operands.dot);
    let ty = root.shape.element_type()?;
    let same_type = |&o: &InstrId| computation.instr(o).shape.element_type() == Some(ty);
    if root.opcode != Opcode::Add
        || !matches!(ty, PrimitiveType::F32 | PrimitiveType::F64)
        || !root.operands.contains(&dot_operands.dot)
        || !dot.shape.eq_with_layout(&root.shape)
        || !dot.operands.iter().all(same_type)
        || matches!(dot_operands.lhs.view, OperandView::Window { .. })
        || fusion.outputs.len() != 1
    {
        return None;
    }
    let addend = *root.operands.iter().find(|&&o| o != dot_operands.dot)?;
    let x = computation.instr(addend);
    if !x.shape.eq_with_layout(&root.shape)
        || (entry && matches!(x.opcode, Opcode::Parameter | Opcode::Constant))
    {
        return None;
    }
    fusion.inputs.iter().position(|&i| i == addend)
}

/// `x + by` on an `s32[]` (`s64[]` when `wide`) scalar, wrapping as
/// integer adds do: a loop's counter step, which the runtime does in
/// place of a kernel call (a tiny loop body pays for every call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScalarAdd {
    pub by: i64,
    pub wide: bool,
}

impl ScalarAdd {
    /// `Some` when `fusion` is exactly `add(input, constant)` (either
    /// order) or `subtract(input, constant)` on an `s32[]` or `s64[]`
    /// scalar.
    pub fn of(computation: &HloComputation, fusion: &Fusion) -> Option<ScalarAdd> {
        let root = computation.instr(fusion.root);
        let subtract = match root.opcode {
            Opcode::Add => false,
            Opcode::Subtract => true,
            _ => return None,
        };
        if fusion.instructions.len() != 2 || fusion.inputs.len() != 1 {
            return None;
        }
        let array = root.shape.as_array().filter(|a| a.rank() == 0)?;
        let wide = match array.element_type() {
            PrimitiveType::S32 => false,
            PrimitiveType::S64 => true,
            _ => return None,
        };
        let constant = root
            .operands
            .iter()
            .find(|&&o| fusion.contains(o) && computation.instr(o).opcode == Opcode::Constant)?;
        let literal = computation.instr(*constant).attrs.literal.as_ref()?;
        let by = if wide {
            *literal.to_vec::<i64>().ok()?.first()?
        } else {
            i64::from(*literal.to_vec::<i32>().ok()?.first()?)
        };
        match subtract {
            false => root.operands.contains(&fusion.inputs[0]),
            true => root.operands[0] == fusion.inputs[0] && root.operands[1] == *constant,
        }
        .then_some(ScalarAdd {
            by: if subtract { by.wrapping_neg() } else { by },
            wide,
        })
    }
}

/// A dot's compiled epilogue kernel.
pub(crate) struct PlannedEpilogue {
    pub name: String,
    pub func: EpilogueFn,
    /// How long it took to build and compile.
    pub compile_time: Duration,
}

/// A compiled kernel over a range of its iterations.
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
