//! A lowered program: thunks, buffers and constants, ready to run.

use xla_core::hlo::{InstrId, ProgramShape};
use xla_core::literal::AlignedBytes;
use xla_core::{HloModule, Shape};

use super::buffers::{BufferId, BufferSource, BufferTable};
use super::interpret::FallbackOp;
use super::lower::{leaf_shapes, Leaves, Lowering};
use super::thunk::{remap_buffers, Thunk};
use crate::JitError;

/// Everything a run needs.
pub(crate) struct Program {
    pub thunks: Vec<Thunk>,
    pub buffers: BufferTable,
    pub constants: Vec<AlignedBytes>,
    /// The buffers of every kernel's pointer array, concatenated
    /// (`KernelThunk::args_at` indexes it).
    pub kernel_args: Vec<BufferId>,
    /// The entry signature with the layouts of the caller's buffers.
    pub signature: ProgramShape,
    /// The entry parameters' names, by number.
    pub parameter_names: Vec<String>,
    /// The result's leaves (depth-first), in their layouts.
    pub output_leaves: Vec<Shape>,
    pub fallbacks: Vec<FallbackOp>,
    /// Copies lowering emitted and coalescing removed.
    pub copies_removed: usize,
    /// Collective steps (each counts its calls per device).
    pub collective_steps: usize,
    /// How deep the thunks nest (loop bodies and branches within each
    /// other): how deep running them recurses.
    pub nesting: usize,
    /// The module's `input_output_alias` entries that are safe to honor:
    /// a donated argument's memory can hold that result leaf.
    pub donations: Vec<Donation>,
}

/// A result leaf that may be written into a donated argument's leaf.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Donation {
    /// The entry parameter.
    pub parameter: usize,
    /// Its leaf (depth-first).
    pub leaf: usize,
    /// The result leaf (depth-first).
    pub output: usize,
}

/// The depth-first number of the array leaf at tuple index `index` of
/// `shape`.
fn leaf_number(shape: &Shape, index: &[i64]) -> Option<usize> {
    let Some((&first, rest)) = index.split_first() else {
        return shape.is_array().then_some(0);
    };
    let parts = shape.tuple_shapes()?;
    let k = usize::try_from(first).ok()?;
    let before: usize = parts.get(..k)?.iter().map(|p| leaf_shapes(p).len()).sum();
    Some(before + leaf_number(parts.get(k)?, rest)?)
}

impl Program {
    /// Lowers the entry computation of `module` (optimized, layouts
    /// assigned), with the entry's parameters read in place from the
    /// caller's literals and its result leaves written into the output
    /// buffers.
    pub fn lower(mut lowering: Lowering<'_>, module: &HloModule) -> Result<Self, JitError> {
        let entry = module.entry_computation();
        let signature = module.entry_program_shape();
        let parameter_ids: Vec<InstrId> = entry.parameters();
        let parameter_names: Vec<String> = parameter_ids
            .iter()
            .map(|&p| entry.instr(p).name.clone())
            .collect();
        let params: Vec<Leaves> = signature
            .parameters
            .iter()
            .enumerate()
            .map(|(number, shape)| lowering.parameter(number, shape, &parameter_names[number]))
            .collect();
        let (mut thunks, root) = lowering.computation(module.entry, &params)?;
        let nesting = lowering.max_nesting();
        let output_leaves = leaf_shapes(&signature.result);
        let outputs: Leaves = output_leaves
            .iter()
            .enumerate()
            .map(|(leaf, shape)| {
                let size = super::lower::byte_size(shape);
                lowering.table.add(
                    BufferSource::Output { leaf },
                    size,
                    &entry.root_instr().name,
                )
            })
            .collect();
        lowering.copy_between(
            &root,
            &entry.root_instr().shape,
            &outputs,
            &signature.result,
            &mut thunks,
        );
        let mut table = lowering.table;
        let primes = lowering.primes;
        let in_place = |table: &BufferTable, time, to, from| {
            primes
                .get(&time)
                .is_some_and(|pairs: &Vec<(BufferId, BufferId)>| {
                    pairs
                        .iter()
                        .any(|&(f, t)| table.find(f) == to && table.find(t) == from)
                })
        };
        let copies_removed = table.coalesce(&lowering.copies, in_place);
        let donations = module
            .input_output_alias
            .iter()
            .filter_map(|alias| {
                let parameter = usize::try_from(alias.parameter).ok()?;
                let leaf =
                    leaf_number(signature.parameters.get(parameter)?, &alias.parameter_index)?;
                let output = leaf_number(&signature.result, &alias.output_index)?;
                let (&param, &out) = (params.get(parameter)?.get(leaf)?, outputs.get(output)?);
                table.reusable(param, out, in_place).then_some(Donation {
                    parameter,
                    leaf,
                    output,
                })
            })
            .collect();
        let find = |id| table.find(id);
        remap_buffers(&mut thunks, &find);
        let kernel_args = lowering
            .kernel_args
            .iter()
            .map(|&b| table.find(b))
            .collect();
        table.pack();
        Ok(Program {
            thunks,
            buffers: table,
            constants: lowering.constants,
            kernel_args,
            signature,
            parameter_names,
            output_leaves,
            fallbacks: lowering.fallbacks,
            collective_steps: lowering.collective_steps,
            copies_removed,
            nesting,
            donations,
        })
    }
}
