//! A library routine over buffers (see [`crate::library`]).

use super::buffers::BufferId;
use super::run::Pointers;
use crate::library::Routine;
use crate::pool::ThreadPool;

/// A routine with the buffers of its operand and result leaves, all in the
/// default layout.
pub(crate) struct LibraryThunk {
    /// The instruction's name, for dumps.
    pub name: String,
    pub routine: Routine,
    pub inputs: Vec<BufferId>,
    pub outputs: Vec<BufferId>,
}

impl LibraryThunk {
    /// Runs the routine on the current contents of its buffers.
    pub fn run(&self, pointers: &Pointers, pool: &ThreadPool) {
        let inputs: Vec<*const u8> = self
            .inputs
            .iter()
            .map(|&b| pointers.get(b).cast_const())
            .collect();
        let outputs: Vec<*mut u8> = self.outputs.iter().map(|&b| pointers.get(b)).collect();
        // SAFETY: lowering gave the routine buffers of its leaves' shapes in
        // the default layout, live at this step, the outputs apart from
        // every other buffer of the step.
        unsafe { self.routine.run(&inputs, &outputs, pool) }
    }

    pub fn remap_buffers(&mut self, map: &impl Fn(BufferId) -> BufferId) {
        self.inputs.iter_mut().for_each(|b| *b = map(*b));
        self.outputs.iter_mut().for_each(|b| *b = map(*b));
    }
}
