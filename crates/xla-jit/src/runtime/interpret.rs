//! The visible fallback: instructions the JIT does not compile run through
//! the reference interpreter.
//!
//! At compile time the instructions are cut out into a module of their own
//! whose entry takes the instructions' inputs as parameters and returns
//! their outputs (with the computations they call). At run time the inputs
//! are copied out of their buffers into literals, the interpreter runs the
//! module, and the outputs are copied into their buffers.

use std::collections::HashMap;

use xla_core::hlo::{ComputationId, InstrId, Opcode, ProgramShape};
use xla_core::interp::{Interpreter, RunOptions};
use xla_core::literal::{AlignedBytes, Storage};
use xla_core::{CancelToken, HloComputation, HloInstruction, HloModule, Literal, Shape};

use super::buffers::BufferId;
use super::run::Pointers;
use crate::JitError;

/// An instruction that runs through the interpreter, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FallbackOp {
    /// The instruction's name.
    pub instruction: String,
    /// Its op.
    pub opcode: Opcode,
    /// The computation it belongs to.
    pub computation: String,
}

/// Instructions run by the interpreter over buffers.
pub(crate) struct InterpretThunk {
    /// The instructions as a module of their own.
    module: HloModule,
    /// Each entry parameter's shape and leaf buffers.
    operands: Vec<(Shape, Vec<BufferId>)>,
    /// The leaf buffers of the result (the outputs, as a tuple when more
    /// than one).
    results: Vec<BufferId>,
}

impl InterpretThunk {
    /// Cuts `instructions` (in order) out of `computation`: `inputs` are the
    /// values they read from outside, `outputs` the values others read.
    pub fn new(
        module: &HloModule,
        computation: &HloComputation,
        instructions: &[InstrId],
        inputs: &[(InstrId, Vec<BufferId>)],
        outputs: &[InstrId],
        results: Vec<BufferId>,
    ) -> Self {
        let (called, computations) = called_computations(module, computation, instructions);
        let mut entry = HloComputation {
            name: format!("{}.fallback", computation.instr(outputs[0]).name),
            instructions: Vec::new(),
            root: InstrId(0),
        };
        let mut new_id: HashMap<InstrId, InstrId> = HashMap::new();
        for (number, (input, _)) in inputs.iter().enumerate() {
            let original = computation.instr(*input);
            let mut param = HloInstruction::new(
                &original.name,
                Opcode::Parameter,
                original.shape.clone(),
                vec![],
            );
            param.attrs.parameter_number = Some(number as i64);
            new_id.insert(*input, push(&mut entry, param));
        }
        for &id in instructions {
            let mut instr = computation.instr(id).clone();
            instr.operands = instr.operands.iter().map(|op| new_id[op]).collect();
            instr.called = instr.called.iter().map(|c| called[c]).collect();
            new_id.insert(id, push(&mut entry, instr));
        }
        entry.root = if let [single] = outputs {
            new_id[single]
        } else {
            let shapes = outputs.iter().map(|&o| computation.instr(o).shape.clone());
            let tuple = HloInstruction::new(
                format!("{}.outputs", entry.name),
                Opcode::Tuple,
                Shape::tuple(shapes.collect::<Vec<_>>()),
                outputs.iter().map(|o| new_id[o]).collect(),
            );
            push(&mut entry, tuple)
        };
        let signature = ProgramShape {
            parameters: inputs
                .iter()
                .map(|(i, _)| computation.instr(*i).shape.clone())
                .collect(),
            result: entry.root_instr().shape.clone(),
        };
        let mut computations = computations;
        computations.push(entry);
        let mut fallback = HloModule::new(
            format!("{}.fallback", module.name),
            computations,
            ComputationId(0),
        );
        fallback.entry = ComputationId(fallback.computations.len() as u32 - 1);
        fallback.entry_layout = Some(signature);
        fallback.replica_count = module.replica_count;
        fallback.num_partitions = module.num_partitions;
        InterpretThunk {
            operands: inputs
                .iter()
                .map(|(i, leaves)| (computation.instr(*i).shape.clone(), leaves.clone()))
                .collect(),
            module: fallback,
            results,
        }
    }

    pub fn remap_buffers(&mut self, map: &impl Fn(BufferId) -> BufferId) {
        for (_, leaves) in &mut self.operands {
            leaves.iter_mut().for_each(|b| *b = map(*b));
        }
        self.results.iter_mut().for_each(|b| *b = map(*b));
    }

    /// Every buffer the thunk reads, then every buffer it writes.
    pub fn buffers(&self) -> (Vec<BufferId>, &[BufferId]) {
        let reads = self.operands.iter().flat_map(|(_, l)| l.iter().copied());
        (reads.collect(), &self.results)
    }

    /// Runs the instructions on the current contents of their buffers; a
    /// `while` among them stops when `cancel` does.
    pub fn run(
        &self,
        interpreter: &Interpreter,
        pointers: &Pointers,
        cancel: &CancelToken,
    ) -> Result<(), JitError> {
        let args = self
            .operands
            .iter()
            .map(|(shape, leaves)| {
                let mut leaves = leaves.iter();
                read_literal(shape, &mut leaves, pointers)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<&Literal> = args.iter().collect();
        let options = RunOptions {
            cancel: cancel.clone(),
            ..RunOptions::default()
        };
        let result = interpreter.run_with(&self.module, &refs, &options)?;
        let mut leaves = self.results.iter();
        write_literal(&result, &mut leaves, pointers)
    }

    /// The module the interpreter runs (for dumps).
    pub fn module(&self) -> &HloModule {
        &self.module
    }
}

fn push(computation: &mut HloComputation, instr: HloInstruction) -> InstrId {
    computation.instructions.push(instr);
    InstrId(computation.instructions.len() as u32 - 1)
}

/// The computations `instructions` call, directly or not, renumbered from
/// 0: the map from old to new ids and the computations in new order.
fn called_computations(
    module: &HloModule,
    computation: &HloComputation,
    instructions: &[InstrId],
) -> (HashMap<ComputationId, ComputationId>, Vec<HloComputation>) {
    let mut order: Vec<ComputationId> = Vec::new();
    let mut stack: Vec<ComputationId> = instructions
        .iter()
        .flat_map(|&i| computation.instr(i).called.iter().copied())
        .collect();
    while let Some(id) = stack.pop() {
        if order.contains(&id) {
            continue;
        }
        order.push(id);
        for instr in &module.computation(id).instructions {
            stack.extend(instr.called.iter().copied());
        }
    }
    let map: HashMap<ComputationId, ComputationId> = order
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, ComputationId(new as u32)))
        .collect();
    let computations = order
        .iter()
        .map(|&old| {
            let mut c = module.computation(old).clone();
            for instr in &mut c.instructions {
                instr.called = instr.called.iter().map(|c| map[c]).collect();
            }
            c
        })
        .collect();
    (map, computations)
}

/// A literal of `shape` holding a copy of the buffers' bytes.
fn read_literal<'a>(
    shape: &Shape,
    leaves: &mut impl Iterator<Item = &'a BufferId>,
    pointers: &Pointers,
) -> Result<Literal, JitError> {
    match shape {
        Shape::Array(array) => {
            let buffer = *leaves.next().expect("one buffer per array leaf");
            let size = array.byte_size()? as usize;
            // SAFETY: the buffer holds `size` bytes of this shape, and no
            // thunk writes it while this one runs.
            let bytes = unsafe { std::slice::from_raw_parts(pointers.get(buffer), size) };
            let storage = Storage::Owned(AlignedBytes::copy_from(bytes));
            Ok(Literal::from_storage(array.clone(), storage)?)
        }
        Shape::Tuple(elements) => Ok(Literal::tuple(
            elements
                .iter()
                .map(|e| read_literal(e, leaves, pointers))
                .collect::<Result<_, _>>()?,
        )),
        Shape::Token => {
            leaves.next();
            Ok(Literal::token())
        }
        Shape::Opaque => {
            leaves.next();
            Ok(Literal::zeros(&Shape::Opaque)?)
        }
    }
}

/// Copies the array leaves of `value` into the buffers.
fn write_literal<'a>(
    value: &Literal,
    leaves: &mut impl Iterator<Item = &'a BufferId>,
    pointers: &Pointers,
) -> Result<(), JitError> {
    if let Some(elements) = value.tuple_elements() {
        return elements
            .iter()
            .try_for_each(|e| write_literal(e, leaves, pointers));
    }
    let buffer = *leaves.next().expect("one buffer per leaf");
    if !value.shape().is_array() {
        return Ok(());
    }
    let bytes = value.bytes()?;
    // SAFETY: the buffer holds the value's bytes (same shape and layout),
    // and only this thunk touches it now.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), pointers.get(buffer), bytes.len());
    }
    Ok(())
}
