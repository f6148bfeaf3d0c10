//! Lowering fusions: kernels over their buffers, dots on the engine with
//! their epilogues, and the interpreter for what was not compiled.

use xla_core::hlo::InstrId;
use xla_core::{ArrayShape, HloComputation, HloInstruction, PrimitiveType, Shape};

use super::{Leaves, Lowering};
use crate::emit::EpilogueFn;
use crate::fusion::OperandView;
use crate::fusion::{canonicalize, DotGeometry, DotInput, LhsView};
use crate::runtime::buffers::BufferId;
use crate::runtime::dot::{engine_supports, widens, DotThunk};
use crate::runtime::plan::{external_inputs, FusionRun, PlannedFusion, PlannedKernel};
use crate::runtime::thunk::{KernelThunk, ScalarAddThunk, Thunk, WindowThunk};
use crate::JitError;

/// A dot operand inside a fusion: the buffer holding it, that buffer's
/// shape, and the transpose absorbed into its strides.
pub(super) struct DotSource<'a> {
    pub buffer: BufferId,
    pub shape: &'a Shape,
    pub view: &'a OperandView,
}

/// A dot fusion being lowered: its computation and plan, the dot, its
/// operands as the engine reads them, and the fusion's buffers.
#[derive(Clone, Copy)]
struct DotFusion<'a> {
    computation: &'a HloComputation,
    fusion: &'a PlannedFusion,
    dot: InstrId,
    lhs: &'a DotSource<'a>,
    rhs: &'a DotSource<'a>,
    inputs: &'a [(InstrId, Leaves)],
    outputs: &'a [Leaves],
}

impl Lowering<'_> {
    pub(super) fn fusion(
        &mut self,
        computation: &HloComputation,
        fusion: &PlannedFusion,
        values: &mut [Option<Leaves>],
        out: &mut Vec<Thunk>,
    ) -> Result<(), JitError> {
        let inputs: Vec<(InstrId, Leaves)> = fusion
            .inputs
            .iter()
            .map(|&i| {
                (
                    i,
                    values[i.index()]
                        .clone()
                        .expect("inputs precede their fusion"),
                )
            })
            .collect();
        let outputs: Vec<Leaves> = fusion
            .outputs
            .iter()
            .map(|&o| {
                let instr = computation.instr(o);
                self.fresh(&instr.shape, &instr.name)
            })
            .collect();
        for (&o, leaves) in fusion.outputs.iter().zip(&outputs) {
            values[o.index()] = Some(leaves.clone());
        }
        match &fusion.run {
            FusionRun::Kernels {
                kernels,
                scratch_bytes,
            } => {
                self.kernels(
                    computation,
                    fusion,
                    &inputs,
                    &outputs,
                    kernels,
                    *scratch_bytes,
                    out,
                );
                Ok(())
            }
            FusionRun::Dot {
                dot,
                lhs,
                rhs,
                epilogue,
                accumulate,
            } => {
                let (lhs, rhs) = (
                    dot_source(computation, &inputs, lhs),
                    dot_source(computation, &inputs, rhs),
                );
                let dot_id = *dot;
                let dot = computation.instr(dot_id);
                let parts = DotFusion {
                    computation,
                    fusion,
                    dot: dot_id,
                    lhs: &lhs,
                    rhs: &rhs,
                    inputs: &inputs,
                    outputs: &outputs,
                };
                let accumulating = accumulate.and_then(|k| self.accumulating_dot(&parts, k, out));
                if let Some(thunk) = accumulating {
                    out.push(Thunk::Dot(Box::new(thunk)));
                    return Ok(());
                }
                if let Some(f) = epilogue {
                    let args: Vec<BufferId> = inputs
                        .iter()
                        .flat_map(|(_, l)| l.iter().copied())
                        .chain(outputs.iter().flatten().copied())
                        .collect();
                    let root = &computation.instr(fusion.root).shape;
                    if let Some(thunk) =
                        self.dot(dot, &lhs, &rhs, (outputs[0][0], root), Some((f.func, args)))
                    {
                        out.push(Thunk::Dot(Box::new(thunk)));
                        return Ok(());
                    }
                } else if fusion.root == dot_id {
                    if let Some(thunk) =
                        self.dot(dot, &lhs, &rhs, (outputs[0][0], &dot.shape), None)
                    {
                        out.push(Thunk::Dot(Box::new(thunk)));
                        return Ok(());
                    }
                } else if self.dot_then_interpret(&parts, out)? {
                    return Ok(());
                }
                self.interpret(
                    computation,
                    &fusion.instructions,
                    inputs,
                    &fusion.outputs,
                    outputs.concat(),
                    out,
                )
            }
            FusionRun::Window(window) => {
                let mut input_buffers: Vec<BufferId> = inputs.iter().map(|(_, l)| l[0]).collect();
                let to = outputs[0][0];
                // An update in place writes into a copy of its operand
                // (none when coalescing gives both one buffer, which the
                // operand's last use here would prevent).
                if let Some((input, output)) = fusion.in_place {
                    let from_shape = &computation.instr(fusion.inputs[input]).shape;
                    let to_shape = &computation.instr(fusion.outputs[output]).shape;
                    if self.prime(input_buffers[input], from_shape, to, to_shape, out) {
                        input_buffers[input] = to;
                    }
                }
                let time = self.tick();
                input_buffers
                    .iter()
                    .chain([&to])
                    .for_each(|&b| self.table.access(b, time));
                out.push(Thunk::Window(WindowThunk {
                    to,
                    inputs: input_buffers,
                    window: window.clone(),
                }));
                Ok(())
            }
            &FusionRun::ScalarAdd(add) => {
                let (from, to) = (inputs[0].1[0], outputs[0][0]);
                let time = self.tick();
                self.table.access(from, time);
                self.table.access(to, time);
                // The sum may be written over its operand (a loop counter
                // stepped in place).
                self.primes.entry(time).or_default().push((from, to));
                out.push(Thunk::ScalarAdd(ScalarAddThunk { from, to, add }));
                Ok(())
            }
            FusionRun::Interpret { .. } => self.interpret(
                computation,
                &fusion.instructions,
                inputs,
                &fusion.outputs,
                outputs.concat(),
                out,
            ),
        }
    }

    /// The fusion's kernels, in order, on its buffers (inputs, outputs,
    /// scratch). An in-place fusion's output is first primed with its
    /// input's value (relaid if their layouts differ).
    #[allow(clippy::too_many_arguments)]
    fn kernels(
        &mut self,
        computation: &HloComputation,
        fusion: &PlannedFusion,
        inputs: &[(InstrId, Leaves)],
        outputs: &[Leaves],
        kernels: &[PlannedKernel],
        scratch_bytes: usize,
        out: &mut Vec<Thunk>,
    ) {
        debug_assert!(
            inputs.iter().all(|(_, l)| l.len() == 1),
            "fusion inputs are arrays"
        );
        let mut input_buffers: Vec<BufferId> = inputs.iter().map(|(_, l)| l[0]).collect();
        if let Some((input, output)) = fusion.in_place {
            let (from, to) = (input_buffers[input], outputs[output][0]);
            let from_shape = &computation.instr(fusion.inputs[input]).shape;
            let to_shape = &computation.instr(fusion.outputs[output]).shape;
            if self.prime(from, from_shape, to, to_shape, out) {
                // Coalescing may make the copy a no-op, so the kernels read
                // the input from the output.
                input_buffers[input] = to;
            }
        }
        let root = &computation.instr(fusion.root).name;
        let scratch = (scratch_bytes > 0).then(|| self.scratch(scratch_bytes, root));
        let buffers: Vec<BufferId> = input_buffers
            .into_iter()
            .chain(outputs.iter().flatten().copied())
            .chain(scratch)
            .collect();
        let args_at = self.kernel_args.len();
        self.kernel_args.extend(&buffers);
        // The kernels run back to back on the same buffers: one time for
        // all (a concatenate of n pieces made n² accesses otherwise).
        let time = self.tick();
        buffers.iter().for_each(|&b| self.table.access(b, time));
        if let ([_], [output]) = (kernels, outputs) {
            let output_shape = &computation.instr(fusion.outputs[0]).shape;
            for &k in &fusion.aliasable {
                if computation
                    .instr(fusion.inputs[k])
                    .shape
                    .eq_with_layout(output_shape)
                {
                    let pair = (buffers[k], output[0]);
                    self.primes.entry(time).or_default().push(pair);
                }
            }
        }
        for kernel in kernels {
            out.push(Thunk::Kernel(KernelThunk {
                name: kernel.name.clone(),
                func: kernel.func,
                args_at,
                buffer_count: buffers.len(),
                iterations: kernel.iterations,
                tasks: self
                    .parallelism
                    .tasks(kernel.iterations, kernel.cost_per_iteration),
            }));
        }
    }

    /// The dot of a fusion planned to add its product to its output
    /// ([`accumulated_input`](crate::runtime::plan::accumulated_input)):
    /// the output primed with input `k`, then the dot adding into it;
    /// `None` (nothing lowered) if the engine does not take the dot.
    fn accumulating_dot(
        &mut self,
        parts: &DotFusion<'_>,
        k: usize,
        out: &mut Vec<Thunk>,
    ) -> Option<DotThunk> {
        let DotFusion {
            computation,
            fusion,
            dot,
            lhs,
            rhs,
            inputs,
            outputs,
        } = *parts;
        let (root, dot) = (computation.instr(fusion.root), computation.instr(dot));
        // Checked before the priming copy, which must come first.
        dot_geometry(dot, lhs, rhs, &root.shape)?;
        let ((addend, leaves), to) = (&inputs[k], outputs[0][0]);
        let addend_shape = &computation.instr(*addend).shape;
        self.prime(leaves[0], addend_shape, to, &root.shape, out);
        let mut thunk = self.dot(dot, lhs, rhs, (to, &root.shape), None)?;
        thunk.accumulate = true;
        Some(thunk)
    }

    /// Copies `from` into `to` before an in-place update of `to`; `true`
    /// for a byte copy (same layouts), which coalescing may then remove by
    /// merging the two buffers.
    fn prime(
        &mut self,
        from: BufferId,
        from_shape: &Shape,
        to: BufferId,
        to_shape: &Shape,
        out: &mut Vec<Thunk>,
    ) -> bool {
        let copies = self.copies.len();
        self.copy_between(&[from], from_shape, &[to], to_shape, out);
        if self.copies.len() == copies {
            return false;
        }
        let time = self.copies[copies].time;
        self.primes.entry(time).or_default().push((from, to));
        true
    }

    /// A dot fusion whose epilogue was not compiled: the dot on the engine
    /// into a buffer of its own, then the members after it through the
    /// interpreter. `false` when that split does not work (the caller then
    /// interprets the whole fusion).
    fn dot_then_interpret(
        &mut self,
        parts: &DotFusion<'_>,
        out: &mut Vec<Thunk>,
    ) -> Result<bool, JitError> {
        let DotFusion {
            computation,
            fusion,
            dot: dot_id,
            lhs,
            rhs,
            inputs,
            outputs,
        } = *parts;
        let dot = computation.instr(dot_id);
        let before = ancestors(computation, &fusion.instructions, dot_id);
        let rest: Vec<InstrId> = fusion
            .instructions
            .iter()
            .copied()
            .filter(|id| *id != dot_id && !before.contains(id))
            .collect();
        let mut rest_inputs = Vec::new();
        let product = self.fresh(&dot.shape, &dot.name);
        for id in external_inputs(computation, &rest) {
            let leaves = if id == dot_id {
                product.clone()
            } else if let Some((_, leaves)) = inputs.iter().find(|(i, _)| *i == id) {
                leaves.clone()
            } else {
                return Ok(false);
            };
            rest_inputs.push((id, leaves));
        }
        let Some(thunk) = self.dot(dot, lhs, rhs, (product[0], &dot.shape), None) else {
            return Ok(false);
        };
        out.push(Thunk::Dot(Box::new(thunk)));
        self.interpret(
            computation,
            &rest,
            rest_inputs,
            &fusion.outputs,
            outputs.concat(),
            out,
        )?;
        Ok(true)
    }

    /// A dot thunk writing `out` (a buffer of the given shape), if the engine
    /// can compute it: one element type throughout, and every group of
    /// dimensions collapsing to one strided dimension.
    pub(super) fn dot(
        &mut self,
        instr: &HloInstruction,
        lhs: &DotSource<'_>,
        rhs: &DotSource<'_>,
        (out, out_shape): (BufferId, &Shape),
        epilogue: Option<(EpilogueFn, Vec<BufferId>)>,
    ) -> Option<DotThunk> {
        let Planned {
            geometry,
            operand_type,
        } = dot_geometry(instr, lhs, rhs, out_shape)?;
        let ty = instr.shape.element_type()?;
        let (l, r, o) = (
            lhs.shape.as_array()?,
            rhs.shape.as_array()?,
            out_shape.as_array()?,
        );
        let time = self.tick();
        for b in [lhs.buffer, rhs.buffer, out] {
            self.table.access(b, time);
        }
        let epilogue = epilogue.map(|(func, args)| {
            args.iter().for_each(|&b| self.table.access(b, time));
            let args_at = self.kernel_args.len();
            self.kernel_args.extend(args);
            (func, args_at)
        });
        let len = |a: &ArrayShape| a.buffer_elements().map_or(0, |n| n as usize);
        Some(DotThunk {
            name: instr.name.clone(),
            lhs: lhs.buffer,
            rhs: rhs.buffer,
            out,
            lens: [len(l), len(r), len(o)],
            geometry,
            operand_type,
            element_type: ty,
            epilogue,
            accumulate: false,
        })
    }

    /// An arena buffer of `bytes` for a kernel's scratch.
    fn scratch(&mut self, bytes: usize, root: &str) -> BufferId {
        let shape = Shape::array(xla_core::PrimitiveType::U8, vec![bytes as i64]);
        self.fresh(&shape, &format!("{root}.scratch"))[0]
    }
}

/// How the engine runs a dot: its geometry and its operands' type.
struct Planned {
    geometry: DotGeometry,
    operand_type: PrimitiveType,
}

/// The engine's geometry for `instr` on these operands into `out_shape`;
/// `None` for types the engine does not take (or a window of 16-bit
/// operands).
fn dot_geometry(
    instr: &HloInstruction,
    lhs: &DotSource<'_>,
    rhs: &DotSource<'_>,
    out_shape: &Shape,
) -> Option<Planned> {
    let (l, r, o) = (
        lhs.shape.as_array()?,
        rhs.shape.as_array()?,
        out_shape.as_array()?,
    );
    let ty = instr.shape.element_type()?;
    let operand_type = l.element_type();
    let types = [operand_type, r.element_type(), o.element_type()];
    let same = types.iter().all(|&t| t == ty) && engine_supports(ty);
    if !same && !widens(operand_type, r.element_type(), ty) {
        return None;
    }
    let input = |shape, view| DotInput { shape, view };
    let geometry = canonicalize(
        &input(l, lhs.view),
        &input(r, rhs.view),
        instr.attrs.dot_dims.as_ref()?,
        o,
    )?;
    if !same && matches!(geometry.lhs, LhsView::Window(_)) {
        return None;
    }
    Some(Planned {
        geometry,
        operand_type,
    })
}

fn dot_source<'a>(
    computation: &'a HloComputation,
    inputs: &[(InstrId, Leaves)],
    (input, view): &'a (usize, OperandView),
) -> DotSource<'a> {
    let (id, leaves) = &inputs[*input];
    DotSource {
        buffer: leaves[0],
        shape: &computation.instr(*id).shape,
        view,
    }
}

/// The members of `members` that `id` depends on.
fn ancestors(computation: &HloComputation, members: &[InstrId], id: InstrId) -> Vec<InstrId> {
    let mut found = Vec::new();
    let mut stack = computation.instr(id).operands.clone();
    while let Some(op) = stack.pop() {
        if members.contains(&op) && !found.contains(&op) {
            found.push(op);
            stack.extend(&computation.instr(op).operands);
        }
    }
    found
}
