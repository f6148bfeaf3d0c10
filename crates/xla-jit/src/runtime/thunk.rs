//! Thunks: the runtime's instruction list. Lowering turns each computation
//! into a sequence of thunks over buffers; running an executable runs its
//! entry sequence.

use xla_core::ArrayShape;

use super::buffers::BufferId;
use super::collective::CollectiveThunk;
use super::dot::DotThunk;
use super::interpret::InterpretThunk;
use super::library::LibraryThunk;
use super::plan::ScalarAdd;
use super::window_copy::WindowCopy;
use crate::emit::KernelFn;

/// One step of a program.
pub(crate) enum Thunk {
    /// A compiled kernel.
    Kernel(KernelThunk),
    /// An integer scalar plus a constant (a loop counter's step).
    ScalarAdd(ScalarAddThunk),
    /// A pad, slice or dynamic update copied by the runtime.
    Window(WindowThunk),
    /// A dot run by the dot engine.
    Dot(Box<DotThunk>),
    /// `bytes` bytes from one buffer to another (a no-op when coalescing made
    /// them the same buffer).
    Copy(CopyThunk),
    /// `while`: run `condition`, read the predicate, run `body`, repeat.
    While(WhileThunk),
    /// `conditional`: read the branch index, run one branch.
    Conditional(ConditionalThunk),
    /// A library routine (an FFT) over whole buffers.
    Library(Box<LibraryThunk>),
    /// A collective, through the run's communicator.
    Collective(Box<CollectiveThunk>),
    /// Instructions the JIT does not compile, run by the reference
    /// interpreter (listed by `Executable::fallback_ops`).
    Interpret(Box<InterpretThunk>),
}

/// A compiled kernel over its buffers.
pub(crate) struct KernelThunk {
    /// The fusion's name (its root instruction), for dumps.
    pub name: String,
    pub func: KernelFn,
    /// Where the kernel's buffers (inputs, outputs, then scratch) start in
    /// the program's kernel arguments, which the run turns into pointers;
    /// the kernels of one fusion share them.
    pub args_at: usize,
    /// How many buffers the kernel takes.
    pub buffer_count: usize,
    /// The size of the outer iteration space.
    pub iterations: i64,
    /// How many pool tasks split the iterations (1: inline on the caller).
    pub tasks: usize,
}

/// `to = from + add.by` on integer scalars.
pub(crate) struct ScalarAddThunk {
    pub from: BufferId,
    pub to: BufferId,
    pub add: ScalarAdd,
}

/// `to = pad(from, …)`, a slice or dynamic slice of `from`, or `from`
/// written into `to` at dynamic starts, copied ([`WindowCopy`]).
pub(crate) struct WindowThunk {
    pub to: BufferId,
    /// The fusion's inputs (the copied one and the dynamic starts' buffers
    /// among them).
    pub inputs: Vec<BufferId>,
    pub window: WindowCopy,
}

impl WindowThunk {
    /// The buffer copied from (a fill's result, which it does not read).
    pub fn from(&self) -> BufferId {
        self.window.source.map_or(self.to, |k| self.inputs[k])
    }
}

/// A byte copy, or a relayout when the layouts differ.
pub(crate) struct CopyThunk {
    pub from: BufferId,
    pub to: BufferId,
    pub bytes: usize,
    /// The source and destination shapes when their layouts differ.
    pub relayout: Option<(ArrayShape, ArrayShape)>,
}

/// A `while` loop over the buffers of its state.
pub(crate) struct WhileThunk {
    pub condition: Condition,
    pub body: Vec<Thunk>,
}

/// How a `while` decides whether to run its body again.
pub(crate) enum Condition {
    /// Run the condition's steps, then read the `pred[]` they compute.
    Thunks {
        thunks: Vec<Thunk>,
        predicate: BufferId,
    },
    /// The condition is `counter < limit` on an `s32[]` (`s64[]` when
    /// `wide`) element of the loop's state, compared in place.
    Counter {
        counter: BufferId,
        limit: i64,
        wide: bool,
    },
}

/// A `conditional`.
pub(crate) struct ConditionalThunk {
    /// The `pred[]` (branch 0 when true, 1 when false) or `s32[]` index (out
    /// of range selects the last branch).
    pub index: BufferId,
    /// `true` when `index` is a `pred[]`.
    pub is_predicate: bool,
    pub branches: Vec<Vec<Thunk>>,
}

/// Replaces every buffer id in `thunks` by `map(id)` (after coalescing, by
/// the buffer it was merged into), and drops copies that became no-ops.
pub(crate) fn remap_buffers(thunks: &mut Vec<Thunk>, map: &impl Fn(BufferId) -> BufferId) {
    for thunk in thunks.iter_mut() {
        match thunk {
            Thunk::Kernel(_) => {}
            Thunk::ScalarAdd(a) => {
                a.from = map(a.from);
                a.to = map(a.to);
            }
            Thunk::Dot(d) => {
                d.lhs = map(d.lhs);
                d.rhs = map(d.rhs);
                d.out = map(d.out);
            }
            Thunk::Copy(c) => {
                c.from = map(c.from);
                c.to = map(c.to);
            }
            Thunk::Window(w) => {
                w.to = map(w.to);
                w.inputs.iter_mut().for_each(|b| *b = map(*b));
            }
            Thunk::While(w) => {
                match &mut w.condition {
                    Condition::Thunks { thunks, predicate } => {
                        remap_buffers(thunks, map);
                        *predicate = map(*predicate);
                    }
                    Condition::Counter { counter, .. } => *counter = map(*counter),
                }
                remap_buffers(&mut w.body, map);
            }
            Thunk::Conditional(c) => {
                c.index = map(c.index);
                c.branches.iter_mut().for_each(|b| remap_buffers(b, map));
            }
            Thunk::Library(l) => l.remap_buffers(map),
            Thunk::Collective(c) => c.remap_buffers(map),
            Thunk::Interpret(i) => i.remap_buffers(map),
        }
    }
    thunks.retain(|t| !matches!(t, Thunk::Copy(c) if c.from == c.to && c.relayout.is_none()));
}
