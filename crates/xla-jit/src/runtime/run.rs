//! Running a program: resolve every buffer to an address, then run the
//! thunks in order.

use std::sync::OnceLock;
use std::time::Instant;

use xla_core::arith::ceil_div;
use xla_core::interp::Interpreter;
use xla_core::literal::AlignedBytes;
use xla_core::{CancelToken, Literal};

use super::buffers::{BufferId, BufferSource};
use super::collective::DeviceContext;
use super::deep::{on_own_stack, INLINE_NESTING};
use super::executable::ExecuteOptions;
use super::profile::Profile;
use super::program::Program;
use super::thunk::{
    Condition, ConditionalThunk, CopyThunk, KernelThunk, ScalarAddThunk, Thunk, WhileThunk,
    WindowThunk,
};
use super::window_copy::integer;
use crate::dot::DotEngine;
use crate::ftz::{flush_mode, with_flush_mode, FtzGuard};
use crate::pool::ThreadPool;
use crate::JitError;

/// The address of every buffer during one run, and the pointer arrays the
/// kernels receive.
pub(crate) struct Pointers {
    buffers: Vec<*mut u8>,
    kernel_args: Vec<*mut u8>,
}

// SAFETY: the addresses are plain data; the thunks that use them run under
// the program's buffer discipline (no two writers, no reader of a buffer
// being written), which holds across the pool's threads.
unsafe impl Sync for Pointers {}
// SAFETY: as above.
unsafe impl Send for Pointers {}

impl Pointers {
    /// The address of buffer `id`.
    pub fn get(&self, id: BufferId) -> *mut u8 {
        self.buffers[id.index()]
    }

    /// A kernel's pointer array, starting at `args_at` in the table of
    /// kernel arguments.
    pub fn kernel_args(&self, args_at: usize) -> *const *mut u8 {
        self.kernel_args[args_at..].as_ptr()
    }
}

/// Copies of at least this many bytes are split over the pool's threads:
/// one core's copy bandwidth is about half the machine's, and a 1.5 MiB KV
/// cache copied for a decode step (gpt2_decode) took 0.1 ms on one.
const PARALLEL_COPY_BYTES: usize = 512 << 10;

/// A buffer's address, handed to the pool's tasks.
#[derive(Clone, Copy)]
struct Bytes(*mut u8);

impl Bytes {
    /// The address `offset` bytes in.
    fn at(self, offset: usize) -> *mut u8 {
        // SAFETY (of the callers): `offset` is within the buffer.
        self.0.wrapping_add(offset)
    }
}

// SAFETY: tasks write disjoint ranges of the buffer.
unsafe impl Sync for Bytes {}
// SAFETY: as above.
unsafe impl Send for Bytes {}

/// A kernel's pointer array, shared by the pool tasks that run it.
#[derive(Copy, Clone)]
struct KernelArgs(*const *mut u8);

impl KernelArgs {
    fn get(self) -> *const *mut u8 {
        self.0
    }
}

// SAFETY: the array is only read, while the kernel's tasks run.
unsafe impl Sync for KernelArgs {}
// SAFETY: as above.
unsafe impl Send for KernelArgs {}

/// What one run of a program owns between calls: its arena and pointer
/// tables (reused by the next run on the same executable).
pub(crate) struct RunState {
    arena: AlignedBytes,
    pointers: Pointers,
}

impl RunState {
    /// The state of a first run: the arena, and empty pointer tables.
    pub fn new(program: &Program) -> Result<Self, JitError> {
        let bytes = program.buffers.arena_size();
        let arena = AlignedBytes::try_for_overwrite(bytes).map_err(|e| JitError::OutOfMemory {
            what: match program.buffers.largest_in_arena() {
                Some((name, size)) => {
                    format!("the buffer arena (the largest buffer: {name}, {size} bytes)")
                }
                None => "the buffer arena".into(),
            },
            bytes: e.bytes,
        })?;
        Ok(RunState {
            arena,
            pointers: Pointers {
                buffers: vec![std::ptr::null_mut(); program.buffers.len()],
                kernel_args: vec![std::ptr::null_mut(); program.kernel_args.len()],
            },
        })
    }
}

/// Runs `program` on `args` (leaves in the entry layouts, checked by the
/// caller), writing result leaf `i` to `outputs[i]` (each of the leaf's
/// size).
pub(crate) fn run_program(
    program: &Program,
    state: &mut RunState,
    interpreter: &OnceLock<Interpreter>,
    device: &DeviceContext<'_>,
    args: &[Vec<*const u8>],
    outputs: &[*mut u8],
    options: &ExecuteOptions,
) -> Result<(), JitError> {
    let engine = DotEngine::global()?;
    let arena = state.arena.as_mut_slice().as_mut_ptr();
    let pointers = &mut state.pointers;
    for index in 0..program.buffers.len() {
        let buffer = program.buffers.get(BufferId(index as u32));
        pointers.buffers[index] = match buffer.source {
            BufferSource::Parameter { parameter, leaf } => args[parameter][leaf].cast_mut(),
            BufferSource::Constant(c) => program.constants[c].as_slice().as_ptr().cast_mut(),
            // SAFETY: packing placed the buffer inside the arena.
            BufferSource::Arena { offset } => unsafe { arena.add(offset) },
            BufferSource::Output { leaf } => outputs[leaf],
        };
    }
    for (slot, &buffer) in pointers.kernel_args.iter_mut().zip(&program.kernel_args) {
        *slot = pointers.buffers[buffer.index()];
    }
    let cx = Context {
        caller_flush: flush_mode(),
        pointers,
        interpreter,
        engine,
        pool: engine.pool(),
        device,
        cancel: &options.cancel,
        profile: options.profile.as_deref(),
    };
    if program.nesting <= INLINE_NESTING {
        return cx.run_entry(&program.thunks);
    }
    // Loops and conditionals run their thunks recursively, a level per
    // nested computation: deep programs run on a thread whose stack grows
    // with the depth.
    let stack = (program.nesting * STACK_BYTES_PER_LEVEL).clamp(1 << 20, 1 << 30);
    let deep = DeepRun(&cx, &program.thunks);
    on_own_stack("xla-run", stack, move || deep.run())
}

/// Stack reserved per nesting level for deep programs.
const STACK_BYTES_PER_LEVEL: usize = 16 << 10;

/// A run handed to a thread of its own for its stack, and joined before
/// the caller continues.
struct DeepRun<'a, 'b>(&'a Context<'b>, &'a [Thunk]);

// SAFETY: the context's pointers are only read through while the caller
// waits for the thread to finish (the scope joins it), exactly as the
// caller's own thread would use them.
unsafe impl Send for DeepRun<'_, '_> {}

impl DeepRun<'_, '_> {
    fn run(self) -> Result<(), JitError> {
        self.0.run_entry(self.1)
    }
}

struct Context<'a> {
    /// The flush mode of the thread that asked for the run, which library
    /// routines and the interpreter fallback run in (the other thunks run
    /// with DAZ and FTZ set).
    caller_flush: u32,
    pointers: &'a Pointers,
    interpreter: &'a OnceLock<Interpreter>,
    engine: &'a DotEngine,
    pool: &'a ThreadPool,
    /// The device this run is, for collectives.
    device: &'a DeviceContext<'a>,
    /// Checked at every iteration of a `while` loop.
    cancel: &'a CancelToken,
    /// Where each step's time goes, when asked for.
    profile: Option<&'a Profile>,
}

impl Context<'_> {
    /// Runs the entry's thunks with denormals flushed, as XLA runs a
    /// program (the pool runs its tasks in the same mode).
    fn run_entry(&self, thunks: &[Thunk]) -> Result<(), JitError> {
        let _ftz = FtzGuard::new();
        self.run(thunks, 0)
    }

    /// Runs `thunks`, which nest `depth` loops or conditionals deep.
    fn run(&self, thunks: &[Thunk], depth: usize) -> Result<(), JitError> {
        for thunk in thunks {
            match self.profile {
                None => self.step(thunk, depth)?,
                Some(profile) => {
                    let started = Instant::now();
                    self.step(thunk, depth)?;
                    profile.record(thunk, depth, started.elapsed());
                }
            }
        }
        Ok(())
    }

    /// Runs one thunk. A kernel on one task and a scalar add (the steps of
    /// a small loop's body) run from here directly; every other thunk goes
    /// through [`step_other`](Self::step_other), whose large frame the
    /// small kernels of a loop of many iterations should not pay for.
    #[inline]
    fn step(&self, thunk: &Thunk, depth: usize) -> Result<(), JitError> {
        match thunk {
            Thunk::Kernel(k) if k.tasks <= 1 => {
                // SAFETY: the kernel's buffers are live and sized for its
                // shapes.
                unsafe { (k.func)(self.pointers.kernel_args(k.args_at), 0, k.iterations) };
                Ok(())
            }
            Thunk::ScalarAdd(a) => {
                self.scalar_add(a);
                Ok(())
            }
            _ => self.step_other(thunk, depth),
        }
    }

    #[inline(never)]
    fn step_other(&self, thunk: &Thunk, depth: usize) -> Result<(), JitError> {
        match thunk {
            Thunk::Kernel(k) => self.parallel_kernel(k),
            Thunk::ScalarAdd(a) => self.scalar_add(a),
            Thunk::Dot(d) => d.run(self.engine, self.pointers)?,
            Thunk::Copy(c) => self.copy(c)?,
            Thunk::Window(w) => self.window_copy(w),
            Thunk::While(w) => self.while_loop(w, depth)?,
            Thunk::Conditional(c) => self.conditional(c, depth)?,
            // Library code (and faer's own threads) runs in the caller's
            // mode, as the interpreter does: its algorithms scale by tiny
            // numbers that flushing would change.
            Thunk::Library(l) => {
                with_flush_mode(self.caller_flush, || l.run(self.pointers, self.pool))
            }
            Thunk::Collective(c) => c.run(self.pointers, self.device)?,
            Thunk::Interpret(i) => with_flush_mode(self.caller_flush, || {
                i.run(
                    self.interpreter.get_or_init(Interpreter::new),
                    self.pointers,
                    self.cancel,
                )
            })?,
        }
        Ok(())
    }

    /// Runs a kernel split into `k.tasks` contiguous chunks of its
    /// iterations over the pool (chunk boundaries at multiples of 16
    /// iterations where there are enough, so vector loops stay aligned).
    fn parallel_kernel(&self, k: &KernelThunk) {
        let args = KernelArgs(self.pointers.kernel_args(k.args_at));
        let call = |start: i64, end: i64| {
            // SAFETY: the kernel's buffers are live and sized for its
            // shapes; tasks cover disjoint ranges of its iterations.
            unsafe { (k.func)(args.get(), start, end) };
        };
        let chunk = task_chunk(k.iterations, k.tasks);
        self.pool.parallel_for(k.tasks, |task| {
            let (start, end) = task_range(task, chunk, k.iterations);
            if start < end {
                call(start, end);
            }
        });
    }

    #[inline]
    fn scalar_add(&self, a: &ScalarAddThunk) {
        let (from, to) = (self.pointers.get(a.from), self.pointers.get(a.to));
        // SAFETY: live `s32[]` (`s64[]` when wide) buffers, aligned as
        // buffers are (possibly the same one).
        unsafe {
            if a.add.wide {
                *to.cast::<i64>() = (*from.cast::<i64>()).wrapping_add(a.add.by);
            } else {
                *to.cast::<i32>() = (*from.cast::<i32>()).wrapping_add(a.add.by as i32);
            }
        }
    }

    /// A pad, slice or dynamic update: the result's most major dimension
    /// split across the pool when it is large.
    fn window_copy(&self, w: &WindowThunk) {
        let (from, to) = (
            Bytes(self.pointers.get(w.from())),
            Bytes(self.pointers.get(w.to)),
        );
        let low = w.window.lows(|input, ty| {
            let at = self.pointers.get(w.inputs[input]);
            // SAFETY: the input is a live integer scalar of type `ty`.
            let bytes = unsafe { std::slice::from_raw_parts(at, ty.byte_size()) };
            integer(bytes, ty).unwrap_or(0)
        });
        let outer = w.window.out[0];
        let tasks = if w.window.bytes() >= PARALLEL_COPY_BYTES && w.window.out.len() > 1 {
            self.pool.threads()
        } else {
            1
        };
        let chunk = task_chunk(outer, tasks);
        let write = |task: usize| {
            let (first, end) = task_range(task, chunk, outer);
            // SAFETY: the operand's and the result's buffers, live and
            // distinct (the lowering offers no pair of them to share a
            // buffer, as it does for a kernel's aliasable inputs; a fill,
            // whose operand is empty, reads nothing); tasks write disjoint
            // blocks of the result.
            unsafe { w.window.write(&low, from.at(0), to.at(0), first, end) }
        };
        if tasks > 1 {
            self.pool.parallel_for(tasks, write);
        } else {
            write(0);
        }
    }

    fn copy(&self, c: &CopyThunk) -> Result<(), JitError> {
        let (from, to) = (self.pointers.get(c.from), self.pointers.get(c.to));
        match &c.relayout {
            None => {
                let tasks = if c.bytes >= PARALLEL_COPY_BYTES {
                    self.pool.threads()
                } else {
                    1
                };
                let total = c.bytes as i64;
                let chunk = task_chunk(total, tasks);
                let (from, to) = (Bytes(from), Bytes(to));
                let copy = |task: usize| {
                    let (start, end) = task_range(task, chunk, total);
                    // SAFETY: two distinct live buffers of `bytes` bytes (a
                    // copy onto itself was removed by coalescing); tasks copy
                    // disjoint ranges of them.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            from.at(start as usize),
                            to.at(start as usize),
                            (end - start) as usize,
                        )
                    }
                };
                if tasks > 1 {
                    self.pool.parallel_for(tasks, copy);
                } else {
                    copy(0);
                }
            }
            Some((from_shape, to_shape)) => {
                // SAFETY: a live buffer of `from_shape`.
                let bytes =
                    unsafe { std::slice::from_raw_parts(from, from_shape.byte_size()? as usize) };
                let storage = xla_core::literal::Storage::Owned(AlignedBytes::copy_from(bytes));
                let literal = Literal::from_storage(from_shape.clone(), storage)?;
                let relaid = literal.relayout(&to_shape.layout_or_default())?;
                let bytes = relaid.bytes()?;
                // SAFETY: the destination holds `to_shape`, the relaid size.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), to, bytes.len()) }
            }
        }
        Ok(())
    }

    fn while_loop(&self, w: &WhileThunk, depth: usize) -> Result<(), JitError> {
        loop {
            self.cancel.check()?;
            let again = match &w.condition {
                Condition::Thunks { thunks, predicate } => {
                    self.run(thunks, depth + 1)?;
                    // SAFETY: the predicate is a live `pred[]` buffer (one
                    // byte).
                    unsafe { *self.pointers.get(*predicate) != 0 }
                }
                &Condition::Counter {
                    counter,
                    limit,
                    wide,
                } => {
                    let at = self.pointers.get(counter);
                    // SAFETY: a live `s32[]` (`s64[]` when wide) buffer,
                    // aligned as buffers are.
                    let i = unsafe {
                        if wide {
                            *at.cast::<i64>()
                        } else {
                            i64::from(*at.cast::<i32>())
                        }
                    };
                    i < limit
                }
            };
            if !again {
                return Ok(());
            }
            self.run(&w.body, depth + 1)?;
        }
    }

    fn conditional(&self, c: &ConditionalThunk, depth: usize) -> Result<(), JitError> {
        let at = self.pointers.get(c.index);
        let last = c.branches.len() - 1;
        let branch = if c.is_predicate {
            // SAFETY: a live `pred[]` buffer.
            if unsafe { *at } != 0 {
                0
            } else {
                1
            }
        } else {
            // SAFETY: a live `s32[]` buffer (aligned: buffers are).
            let index = unsafe { *at.cast::<i32>() };
            usize::try_from(index).map_or(last, |i| i.min(last))
        };
        self.run(&c.branches[branch], depth + 1)
    }
}

/// The iterations each of `tasks` tasks runs (the last may run fewer):
/// enough for the tasks to cover all `iterations`, and a multiple of 16
/// where there are at least 16 per task, so vector loops stay aligned.
fn task_chunk(iterations: i64, tasks: usize) -> i64 {
    let tasks = tasks as i64;
    let grain = if iterations >= 16 * tasks { 16 } else { 1 };
    ceil_div(ceil_div(iterations, grain), tasks) * grain
}

/// The iterations `[start, end)` task `task` runs, in chunks of `chunk`
/// (empty for a task past the end).
fn task_range(task: usize, chunk: i64, iterations: i64) -> (i64, i64) {
    let start = (task as i64 * chunk).min(iterations);
    (start, (start + chunk).min(iterations))
}

#[cfg(test)]
mod tests {
    use super::{task_chunk, task_range};

    /// Every iteration runs in exactly one task, and chunks are multiples
    /// of 16 when every task gets at least 16 (1800 iterations in 8 tasks
    /// once ran only 1792: the chunk was rounded from 1800 / 16 down).
    #[test]
    fn task_chunks_cover_every_iteration_once() {
        for iterations in 1..2100i64 {
            for tasks in 1..=64usize {
                let chunk = task_chunk(iterations, tasks);
                let covered: i64 = (0..tasks)
                    .map(|t| {
                        let (start, end) = task_range(t, chunk, iterations);
                        end - start
                    })
                    .sum();
                assert_eq!(covered, iterations, "{iterations} in {tasks}");
                if iterations >= 16 * tasks as i64 {
                    assert_eq!(chunk % 16, 0, "{iterations} in {tasks}");
                }
            }
        }
    }
}
