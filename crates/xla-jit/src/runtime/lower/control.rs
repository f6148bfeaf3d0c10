//! Lowering control flow: loops and conditionals over buffers.

use xla_core::hlo::{ComparisonDirection, ComparisonType, HloInstruction};
use xla_core::{HloComputation, HloModule, Opcode, PrimitiveType, Shape};

use super::{leaf_shapes, Leaves, Lowering};
use crate::runtime::buffers::LoopSpan;
use crate::runtime::thunk::{Condition, ConditionalThunk, Thunk, WhileThunk};
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
        let condition = match counted(self.module, instr) {
            Some((k, limit, wide)) => {
                let time = self.tick();
                self.table.access(state[k], time);
                Condition::Counter {
                    counter: state[k],
                    limit,
                    wide,
                }
            }
            None => {
                let (thunks, predicate) =
                    self.computation(condition_id, std::slice::from_ref(&state))?;
                let time = self.tick();
                self.table.access(predicate[0], time);
                Condition::Thunks {
                    thunks,
                    predicate: predicate[0],
                }
            }
        };
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
        out.push(Thunk::While(WhileThunk { condition, body }));
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

/// `(k, limit, wide)` when loop `instr`'s condition is exactly
/// `compare(get-tuple-element(state, k), constant(limit)), direction=LT`
/// on an `s32[]` (`s64[]`: `wide`) element of a state whose elements are
/// all arrays (so that element `k` is leaf `k`), as `fori_loop` and `scan`
/// loops are: the runtime then compares the element itself each iteration
/// instead of running the condition's kernel.
pub(crate) fn counted(module: &HloModule, instr: &HloInstruction) -> Option<(usize, i64, bool)> {
    let Shape::Tuple(elements) = &instr.shape else {
        return None;
    };
    if !elements.iter().all(|e| matches!(e, Shape::Array(_))) {
        return None;
    }
    let condition = module.computation(*instr.called.first()?);
    let root = condition.instr(condition.root);
    if root.opcode != Opcode::Compare
        || root.attrs.comparison_direction != Some(ComparisonDirection::Lt)
        || root
            .attrs
            .comparison_type
            .is_some_and(|t| t != ComparisonType::Signed)
        || root.operands.len() != 2
    {
        return None;
    }
    let (element, bound) = (
        condition.instr(root.operands[0]),
        condition.instr(root.operands[1]),
    );
    let param = condition.instr(*element.operands.first()?);
    if element.opcode != Opcode::GetTupleElement
        || param.opcode != Opcode::Parameter
        || bound.opcode != Opcode::Constant
    {
        return None;
    }
    let k = usize::try_from(element.attrs.tuple_index?).ok()?;
    let literal = bound.attrs.literal.as_ref()?;
    let (limit, wide) = match element.shape.as_array()? {
        a if a.rank() != 0 => return None,
        a if a.element_type() == PrimitiveType::S32 => {
            (i64::from(*literal.to_vec::<i32>().ok()?.first()?), false)
        }
        a if a.element_type() == PrimitiveType::S64 => {
            (*literal.to_vec::<i64>().ok()?.first()?, true)
        }
        _ => return None,
    };
    (k < elements.len()).then_some((k, limit, wide))
}
