//! Lowering: computations (with their fusion plans) become thunk sequences
//! over buffers.
//!
//! Every value is a list of leaf buffers (depth-first over tuples), so
//! tuples, `get-tuple-element`, bitcasts and same-layout copies cost no
//! bytes: they rearrange lists. Control flow gets explicit copies where its
//! semantics move values (a loop's initial and next state, a conditional's
//! branch results, the entry's results); buffer coalescing removes most of
//! them afterwards.

pub(super) mod control;
mod fusion;
mod single;

use std::collections::HashMap;

use xla_core::hlo::{ComputationId, InstrId, Opcode};
use xla_core::literal::AlignedBytes;
use xla_core::{HloComputation, HloInstruction, HloModule, Literal, Shape};

use super::buffers::{BufferId, BufferSource, BufferTable, CopyRecord};
use super::collective::{needs_device, CollectiveThunk};
use super::interpret::{FallbackOp, InterpretThunk};
use super::library::LibraryThunk;
use super::plan::{ComputationPlan, Step};
use super::thunk::{CopyThunk, Thunk};
use crate::fusion::OperandView;
use crate::library::Routine;
use crate::JitError;
use fusion::DotSource;
use single::{single, Single};

/// A value: its leaf buffers, depth-first over tuples.
pub(crate) type Leaves = Vec<BufferId>;

/// How a kernel's work is split across threads.
pub(crate) trait Parallelism {
    /// Pool tasks for `iterations` iterations of `cost_per_iteration` ns.
    fn tasks(&self, iterations: i64, cost_per_iteration: f64) -> usize;
}

/// Lowering state for one executable.
pub(crate) struct Lowering<'m> {
    module: &'m HloModule,
    plans: &'m HashMap<ComputationId, ComputationPlan>,
    parallelism: &'m dyn Parallelism,
    pub table: BufferTable,
    pub constants: Vec<AlignedBytes>,
    pub copies: Vec<CopyRecord>,
    /// Thunks that may compute a buffer in place of another, by time:
    /// `(from, to)` when the thunk at that time computes `to` correctly
    /// even if it shares `from`'s storage (a copy priming an in-place
    /// update; an elementwise kernel reading `from` only at the index it
    /// writes).
    pub primes: HashMap<u32, Vec<(BufferId, BufferId)>>,
    pub kernel_args: Vec<BufferId>,
    pub fallbacks: Vec<FallbackOp>,
    /// Collective steps lowered so far (each counts its calls per device).
    pub collective_steps: usize,
    time: u32,
    /// [`HloModule::expanded_sizes`]: what lowering each computation at
    /// one more call site costs.
    expanded: Vec<u64>,
    /// Instructions lowered so far, over all call sites.
    lowered: u64,
    /// Computations being lowered within each other now, and at most.
    nesting: (usize, usize),
}

/// Instructions an executable lowers at most, counting a computation once
/// per call site. Past it, a loop, conditional or call whose computations
/// would cross it runs through the interpreter (which evaluates a shared
/// computation without copying it): computations that call a shared one
/// twice per level, `n` levels deep, would otherwise need `2^n` copies.
const LOWER_BUDGET: u64 = 1 << 18;

/// The leaves of a shape, depth-first: arrays, tokens and opaque values.
pub(crate) fn leaf_shapes(shape: &Shape) -> Vec<Shape> {
    match shape {
        Shape::Tuple(elements) => elements.iter().flat_map(leaf_shapes).collect(),
        leaf => vec![leaf.clone()],
    }
}

/// Bytes of a leaf's buffer (0 for tokens; a tuple counts its leaves).
/// Compilation refuses shapes whose size does not fit `isize`
/// (`check_buffer_sizes`); were one to get here, its size reads as one no
/// allocation can satisfy, never as a small one.
pub(crate) fn byte_size(shape: &Shape) -> usize {
    usize::try_from(shape.saturating_byte_size()).unwrap_or(usize::MAX)
}

impl<'m> Lowering<'m> {
    pub fn new(
        module: &'m HloModule,
        plans: &'m HashMap<ComputationId, ComputationPlan>,
        parallelism: &'m dyn Parallelism,
    ) -> Self {
        Lowering {
            module,
            plans,
            parallelism,
            table: BufferTable::default(),
            constants: Vec::new(),
            copies: Vec::new(),
            primes: HashMap::new(),
            kernel_args: Vec::new(),
            fallbacks: Vec::new(),
            collective_steps: 0,
            time: 0,
            expanded: module.expanded_sizes().unwrap_or_default(),
            lowered: 0,
            nesting: (0, 0),
        }
    }

    /// The next thunk time.
    fn tick(&mut self) -> u32 {
        self.time += 1;
        self.time
    }

    /// New arena buffers for the leaves of `shape`.
    fn fresh(&mut self, shape: &Shape, name: &str) -> Leaves {
        leaf_shapes(shape)
            .iter()
            .map(|leaf| {
                self.table
                    .add(BufferSource::Arena { offset: 0 }, byte_size(leaf), name)
            })
            .collect()
    }

    /// Buffers bound to the leaves of entry parameter `number`.
    pub fn parameter(&mut self, number: usize, shape: &Shape, name: &str) -> Leaves {
        leaf_shapes(shape)
            .iter()
            .enumerate()
            .map(|(leaf, s)| {
                let source = BufferSource::Parameter {
                    parameter: number,
                    leaf,
                };
                self.table.add(source, byte_size(s), name)
            })
            .collect()
    }

    /// Copies `from` into `to` leaf by leaf (skipping identical leaves),
    /// each copy its own thunk.
    fn copy_leaves(
        &mut self,
        from: &[BufferId],
        to: &[BufferId],
        shape: &Shape,
        out: &mut Vec<Thunk>,
    ) {
        self.copy_between(from, shape, to, shape, out);
    }

    /// Copies the leaves of `from` (of `from_shape`) into those of `to` (of
    /// `to_shape`, the same but for layouts): byte copies where the layouts
    /// agree (candidates for coalescing), relayouts where they differ.
    pub fn copy_between(
        &mut self,
        from: &[BufferId],
        from_shape: &Shape,
        to: &[BufferId],
        to_shape: &Shape,
        out: &mut Vec<Thunk>,
    ) {
        let leaves = leaf_shapes(from_shape)
            .into_iter()
            .zip(leaf_shapes(to_shape));
        for ((&from, &to), (from_leaf, to_leaf)) in from.iter().zip(to).zip(leaves) {
            if from == to {
                continue;
            }
            let time = self.tick();
            self.table.access(from, time);
            self.table.access(to, time);
            let relayout = match (&from_leaf, &to_leaf) {
                (Shape::Array(a), Shape::Array(b))
                    if a.layout_or_default() != b.layout_or_default() =>
                {
                    Some((a.clone(), b.clone()))
                }
                _ => None,
            };
            if relayout.is_none() {
                self.copies.push(CopyRecord { from, to, time });
            }
            out.push(Thunk::Copy(CopyThunk {
                from,
                to,
                bytes: byte_size(&to_leaf),
                relayout,
            }));
        }
    }

    /// Lowers computation `id` with its parameters bound to `params`:
    /// its thunks and the leaves of its root.
    pub fn computation(
        &mut self,
        id: ComputationId,
        params: &[Leaves],
    ) -> Result<(Vec<Thunk>, Leaves), JitError> {
        self.nesting.0 += 1;
        self.nesting.1 = self.nesting.1.max(self.nesting.0);
        let lowered = self.lower_computation(id, params);
        self.nesting.0 -= 1;
        lowered
    }

    /// The deepest that computations were lowered within each other (the
    /// entry alone: 1), which bounds how deep running the thunks recurses.
    pub fn max_nesting(&self) -> usize {
        self.nesting.1
    }

    /// [`computation`](Self::computation), one level deeper.
    fn lower_computation(
        &mut self,
        id: ComputationId,
        params: &[Leaves],
    ) -> Result<(Vec<Thunk>, Leaves), JitError> {
        let module = self.module;
        let computation = module.computation(id);
        let unfused;
        let plan = match self.plans.get(&id) {
            Some(plan) => plan,
            None => {
                unfused = ComputationPlan::unfused(computation);
                &unfused
            }
        };
        self.lowered += computation.instructions.len() as u64;
        let mut values: Vec<Option<Leaves>> = vec![None; computation.instructions.len()];
        let mut thunks = Vec::new();
        for step in plan.steps() {
            match step {
                Step::Fusion(f) => {
                    self.fusion(computation, &plan.fusions[f], &mut values, &mut thunks)?
                }
                Step::Standalone(id) => {
                    self.instruction(computation, id, params, &mut values, &mut thunks)?
                }
            }
        }
        let root = values[computation.root.index()]
            .clone()
            .expect("the root is lowered");
        Ok((thunks, root))
    }

    fn instruction(
        &mut self,
        computation: &HloComputation,
        id: InstrId,
        params: &[Leaves],
        values: &mut [Option<Leaves>],
        out: &mut Vec<Thunk>,
    ) -> Result<(), JitError> {
        let instr = computation.instr(id);
        let operand = |i: usize| -> Leaves {
            values[instr.operands[i].index()]
                .clone()
                .expect("operands precede their users")
        };
        let operand_shape = instr
            .operands
            .first()
            .map(|&op| &computation.instr(op).shape);
        let mut kind = single(instr, operand_shape);
        if matches!(kind, Single::While | Single::Conditional | Single::Call) {
            let cost = instr.called.iter().fold(0u64, |total, c| {
                total.saturating_add(self.expanded.get(c.index()).copied().unwrap_or(0))
            });
            if self.lowered.saturating_add(cost) > LOWER_BUDGET {
                kind = Single::Interpret;
            }
        }
        let leaves = match kind {
            Single::Parameter => {
                let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
                params[number].clone()
            }
            Single::Constant => self.constant(instr)?,
            Single::Tuple => (0..instr.operands.len()).flat_map(operand).collect(),
            Single::GetTupleElement => {
                let tuple = &computation.instr(instr.operands[0]).shape;
                let index = instr.attrs.tuple_index.unwrap_or(0) as usize;
                let elements = tuple.tuple_shapes().expect("verified: a tuple operand");
                let start: usize = elements[..index].iter().map(|e| leaf_shapes(e).len()).sum();
                operand(0)[start..start + leaf_shapes(&elements[index]).len()].to_vec()
            }
            Single::Alias => operand(0),
            Single::Copy => {
                let to = self.fresh(&instr.shape, &instr.name);
                let from_shape = operand_shape.expect("a copy has an operand");
                self.copy_between(&operand(0), from_shape, &to, &instr.shape, out);
                to
            }
            Single::While => self.while_loop(instr, operand(0), out)?,
            Single::Conditional => {
                let args: Vec<Leaves> = (1..instr.operands.len()).map(operand).collect();
                self.conditional(computation, instr, operand(0), &args, out)?
            }
            Single::Call => {
                let args: Vec<Leaves> = (0..instr.operands.len()).map(operand).collect();
                let (thunks, root) = self.computation(instr.called[0], &args)?;
                out.extend(thunks);
                root
            }
            Single::Dot => {
                let results = self.fresh(&instr.shape, &instr.name);
                let source = |k: usize| DotSource {
                    buffer: operand(k)[0],
                    shape: &computation.instr(instr.operands[k]).shape,
                    view: &OperandView::Buffer,
                };
                let out_buffer = (results[0], &instr.shape);
                match self.dot(instr, &source(0), &source(1), out_buffer, None) {
                    Some(thunk) => out.push(Thunk::Dot(Box::new(thunk))),
                    None => {
                        self.interpret_instruction(computation, id, values, results.clone(), out)?
                    }
                }
                results
            }
            Single::Collective => {
                let results = self.fresh(&instr.shape, &instr.name);
                if !self.collective(computation, id, values, &results, out) {
                    self.interpret_instruction(computation, id, values, results.clone(), out)?;
                }
                results
            }
            Single::Interpret => {
                let results = self.fresh(&instr.shape, &instr.name);
                if !self.library(computation, id, values, &results, out) {
                    self.interpret_instruction(computation, id, values, results.clone(), out)?;
                }
                results
            }
        };
        values[id.index()] = Some(leaves);
        Ok(())
    }

    /// Instruction `id` as a library routine writing `results`, with
    /// relayouts into and out of the buffers the routine takes (row-major
    /// unless it asks for other layouts, [`Routine::layouts`]); `false`
    /// when no library runs it.
    fn library(
        &mut self,
        computation: &HloComputation,
        id: InstrId,
        values: &[Option<Leaves>],
        results: &Leaves,
        out: &mut Vec<Thunk>,
    ) -> bool {
        let instr = computation.instr(id);
        let shapes: Vec<&Shape> = instr
            .operands
            .iter()
            .map(|&op| &computation.instr(op).shape)
            .collect();
        let Some(routine) = Routine::new(self.module, instr, &shapes) else {
            return false;
        };
        let (operand_layouts, result_layout) = routine.layouts(&shapes, &instr.shape);
        self.relaid_step(
            computation,
            id,
            values,
            &operand_layouts,
            &result_layout,
            results,
            out,
            |inputs, outputs| {
                Thunk::Library(Box::new(LibraryThunk {
                    name: instr.name.clone(),
                    routine,
                    inputs,
                    outputs,
                }))
            },
        );
        true
    }

    /// A step of instruction `id` over its operands' leaves in the layouts
    /// `wanted` and its result's in `result_layout`, writing `results`:
    /// copies relay operands and results whose layouts differ; `step`
    /// makes the thunk from the input and output buffers.
    #[allow(clippy::too_many_arguments)]
    fn relaid_step(
        &mut self,
        computation: &HloComputation,
        id: InstrId,
        values: &[Option<Leaves>],
        wanted: &[Shape],
        result_layout: &Shape,
        results: &Leaves,
        out: &mut Vec<Thunk>,
        step: impl FnOnce(Vec<BufferId>, Leaves) -> Thunk,
    ) {
        let instr = computation.instr(id);
        let mut inputs = Vec::new();
        for (&op, wanted) in instr.operands.iter().zip(wanted) {
            let shape = &computation.instr(op).shape;
            let leaves = values[op.index()]
                .clone()
                .expect("operands precede their users");
            if wanted.eq_with_layout(shape) {
                inputs.extend(leaves);
            } else {
                let copy = self.fresh(wanted, &instr.name);
                self.copy_between(&leaves, shape, &copy, wanted, out);
                inputs.extend(copy);
            }
        }
        let relaid = !result_layout.eq_with_layout(&instr.shape);
        let outputs = if relaid {
            self.fresh(result_layout, &instr.name)
        } else {
            results.clone()
        };
        let time = self.tick();
        for &b in inputs.iter().chain(&outputs) {
            self.table.access(b, time);
        }
        out.push(step(inputs, outputs.clone()));
        if relaid {
            self.copy_between(&outputs, result_layout, results, &instr.shape, out);
        }
    }

    /// Collective `id` as a step over its leaves in the default layout
    /// (relaid into and out of it where the instruction's differ), writing
    /// `results`; `false` when no step runs it (an operand that is not an
    /// array, a reducer that is not one binary op).
    fn collective(
        &mut self,
        computation: &HloComputation,
        id: InstrId,
        values: &[Option<Leaves>],
        results: &Leaves,
        out: &mut Vec<Thunk>,
    ) -> bool {
        let instr = computation.instr(id);
        let mut shapes = Vec::new();
        for &op in &instr.operands {
            match &computation.instr(op).shape {
                Shape::Array(a) => shapes.push(a.clone()),
                _ => return false,
            }
        }
        let result_leaves = leaf_shapes(&instr.shape);
        if !result_leaves.iter().all(Shape::is_array) {
            return false;
        }
        let reducer = instr
            .called
            .first()
            .and_then(|&c| self.module.computation(c).binary_of_parameters());
        let Some(collective) = CollectiveThunk::plan(instr, &shapes, reducer) else {
            return false;
        };
        let wanted: Vec<Shape> = (instr.operands.iter())
            .map(|&op| computation.instr(op).shape.clone().with_row_major_layouts())
            .collect();
        let step = self.collective_steps;
        self.relaid_step(
            computation,
            id,
            values,
            &wanted,
            &instr.shape.clone().with_row_major_layouts(),
            results,
            out,
            |inputs, outputs| {
                Thunk::Collective(Box::new(CollectiveThunk {
                    instr: instr.clone(),
                    collective,
                    shapes: (shapes.into_iter())
                        .map(|s| s.without_layout().with_default_layout())
                        .collect(),
                    inputs,
                    outputs,
                    step,
                }))
            },
        );
        self.collective_steps += 1;
        true
    }

    /// Instruction `id` alone through the interpreter, writing `results`.
    fn interpret_instruction(
        &mut self,
        computation: &HloComputation,
        id: InstrId,
        values: &[Option<Leaves>],
        results: Leaves,
        out: &mut Vec<Thunk>,
    ) -> Result<(), JitError> {
        let inputs: Vec<(InstrId, Leaves)> = computation
            .instr(id)
            .operands
            .iter()
            .map(|&op| {
                (
                    op,
                    values[op.index()]
                        .clone()
                        .expect("operands precede their users"),
                )
            })
            .collect();
        self.interpret(computation, &[id], inputs, &[id], results, out)
    }

    /// A constant's leaves as executable-owned buffers in the instruction's
    /// layouts.
    fn constant(&mut self, instr: &HloInstruction) -> Result<Leaves, JitError> {
        let literal = instr
            .attrs
            .literal
            .as_ref()
            .expect("verified: a constant has a literal");
        let mut leaves = Vec::new();
        self.constant_leaves(literal, &instr.shape, &instr.name, &mut leaves)?;
        Ok(leaves)
    }

    fn constant_leaves(
        &mut self,
        literal: &Literal,
        shape: &Shape,
        name: &str,
        leaves: &mut Leaves,
    ) -> Result<(), JitError> {
        match (literal.tuple_elements(), shape) {
            (Some(elements), Shape::Tuple(shapes)) => {
                for (element, shape) in elements.iter().zip(shapes) {
                    self.constant_leaves(element, shape, name, leaves)?;
                }
            }
            (_, Shape::Array(array)) => {
                let relaid = literal.relayout(&array.layout_or_default())?;
                let bytes = relaid.bytes()?;
                self.constants.push(AlignedBytes::copy_from(bytes));
                let source = BufferSource::Constant(self.constants.len() - 1);
                leaves.push(self.table.add(source, bytes.len(), name));
            }
            _ => leaves.push(self.table.add(BufferSource::Constant(usize::MAX), 0, name)),
        }
        Ok(())
    }

    fn interpret(
        &mut self,
        computation: &HloComputation,
        instructions: &[InstrId],
        mut inputs: Vec<(InstrId, Leaves)>,
        outputs: &[InstrId],
        results: Leaves,
        out: &mut Vec<Thunk>,
    ) -> Result<(), JitError> {
        // One parameter per value, however many operands read it.
        let mut seen = Vec::new();
        inputs.retain(|(id, _)| {
            let first = !seen.contains(id);
            seen.push(*id);
            first
        });
        let time = self.tick();
        for &b in inputs.iter().flat_map(|(_, l)| l).chain(&results) {
            self.table.access(b, time);
        }
        for &id in instructions {
            let instr = computation.instr(id);
            if instr.opcode != Opcode::Parameter && instr.opcode != Opcode::Constant {
                self.fallbacks.push(FallbackOp {
                    instruction: instr.name.clone(),
                    opcode: instr.opcode,
                    computation: computation.name.clone(),
                });
            }
        }
        let thunk = InterpretThunk::new(
            self.module,
            computation,
            instructions,
            &inputs,
            outputs,
            results,
        );
        // Collectives and channels inside the computations they call (the
        // thunk's module holds them, its entry being the instructions
        // above) run on the interpreter too: listed, a run on several
        // devices refuses them.
        let fallback = thunk.module();
        let callees = (fallback.computation_ids()).filter(|&c| c != fallback.entry);
        for inner in callees.map(|c| fallback.computation(c)) {
            for instr in inner.instructions.iter().filter(|i| needs_device(i.opcode)) {
                self.fallbacks.push(FallbackOp {
                    instruction: instr.name.clone(),
                    opcode: instr.opcode,
                    computation: inner.name.clone(),
                });
            }
        }
        out.push(Thunk::Interpret(Box::new(thunk)));
        Ok(())
    }
}
