//! Lowering control flow: loops and conditionals over buffers.

use xla_core::hlo::HloInstruction;
use xla_core::{HloComputation, PrimitiveType};

use super::{leaf_shapes, Leaves, Lowering};
use crate::runtime::buffers::LoopSpan;
use crate::runtime::thunk::{ConditionalThunk, Thunk, WhileThunk};
use crate::JitError;

impl Lowering<'_> {
    /// `while`: the state lives in buffers `W`. The initial state is
    /// copied in before the loop; the condition and body read `W`; the
    /// body's result is copied back into `W` at the end of each iteration
    /// (through temporaries where it permutes `W`'s own leaves). Time:
    /// `[init copies] start [condition] predicate [body] [next-state
    /// copies] end`.
    pub(super) fn while_loop(
        &mut self,
        instr: &HloInstruction,
        init: Leaves,
        out: &mut Vec<Thunk>,
    ) -> Result<Leaves, JitError> {
        let (condition_id, body_id) = (instr.called[0], instr.called[1]);
        let state = self.fresh(&instr.shape, &instr.name);
        self.copy_leaves(&init, &state, &instr.shape, out);
        let start = self.tick();
        let (condition, predicate) =
            self.computation(condition_id, std::slice::from_ref(&state))?;
        let time = self.tick();
        self.table.access(predicate[0], time);
        let (mut body, next) = self.computation(body_id, std::slice::from_ref(&state))?;
        // A next-state leaf that is another leaf of the state would be
        // overwritten before it is read: copy such leaves aside first.
        let mut sources = next.clone();
        for (i, source) in sources.iter_mut().enumerate() {
            if *source != state[i] && state.contains(source) {
                let shape = &leaf_shapes(&instr.shape)[i];
                let aside = self.fresh(shape, &instr.name)[0];
                self.copy_leaves(&[*source], &[aside], shape, &mut body);
                *source = aside;
            }
        }
        self.copy_leaves(&sources, &state, &instr.shape, &mut body);
        let end = self.tick();
        self.table.add_loop(LoopSpan { start, end });
        out.push(Thunk::While(WhileThunk {
            condition,
            predicate: predicate[0],
            body,
        }));
        Ok(state)
    }

    /// `conditional`: every branch copies its result into the buffers `C`.
    pub(super) fn conditional(
        &mut self,
        computation: &HloComputation,
        instr: &HloInstruction,
        index: Leaves,
        args: &[Leaves],
        out: &mut Vec<Thunk>,
    ) -> Result<Leaves, JitError> {
        let time = self.tick();
        self.table.access(index[0], time);
        let is_predicate =
            computation.instr(instr.operands[0]).shape.element_type() == Some(PrimitiveType::Pred);
        let result = self.fresh(&instr.shape, &instr.name);
        let mut branches = Vec::new();
        for (&branch, arg) in instr.called.iter().zip(args) {
            let (mut thunks, root) = self.computation(branch, std::slice::from_ref(arg))?;
            self.copy_leaves(&root, &result, &instr.shape, &mut thunks);
            branches.push(thunks);
        }
        out.push(Thunk::Conditional(ConditionalThunk {
            index: index[0],
            is_predicate,
            branches,
        }));
        Ok(result)
    }
}
