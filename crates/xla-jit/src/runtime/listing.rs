//! The program listing of `Executable::dump`: the thunk tree, one line
//! per thunk.

use std::fmt::Write as _;

use super::program::Program;
use super::thunk::{Condition, Thunk};

/// Indentation stops growing at this depth; deeper lines start with their
/// depth instead (a program nested 30000 deep printed 60000 spaces per
/// line).
const MAX_INDENT: usize = 16;

/// One step of [`write_thunks`]: a list of thunks to print at a depth
/// (after a kernel whose pointer array starts at the given index, if
/// any), or a heading line.
enum Print<'a> {
    Thunks(&'a [Thunk], usize, Option<usize>),
    Heading(String, usize),
}

/// Prints the thunk tree, one line per thunk, nested lists indented below
/// their loop or conditional; the kernels of one fusion after its first
/// are listed without their buffers (a concatenate's pieces). Iterative:
/// programs nest thousands deep.
pub(super) fn write_thunks(out: &mut String, program: &Program, depth: usize) {
    let mut work = vec![Print::Thunks(&program.thunks, depth, None)];
    while let Some(item) = work.pop() {
        let (thunks, depth, previous) = match item {
            Print::Heading(text, depth) => {
                let _ = writeln!(out, "{}{text}", indent(depth));
                continue;
            }
            Print::Thunks(thunks, depth, previous) => (thunks, depth, previous),
        };
        let Some((thunk, rest)) = thunks.split_first() else {
            continue;
        };
        let args_at = match thunk {
            Thunk::Kernel(k) => Some(k.args_at),
            _ => None,
        };
        work.push(Print::Thunks(rest, depth, args_at));
        let pad = indent(depth);
        let _ = match thunk {
            Thunk::Kernel(k) if previous == Some(k.args_at) => writeln!(
                out,
                "{pad}kernel {} buffers as above iterations {} tasks {}",
                k.name, k.iterations, k.tasks
            ),
            Thunk::Kernel(k) => writeln!(
                out,
                "{pad}kernel {} buffers {:?} iterations {} tasks {}",
                k.name,
                program.kernel_args[k.args_at..][..k.buffer_count]
                    .iter()
                    .map(|b| b.0)
                    .collect::<Vec<_>>(),
                k.iterations,
                k.tasks
            ),
            Thunk::Dot(d) => writeln!(
                out,
                "{pad}dot {} b{} · b{} -> b{} lhs {:?} rhs {:?} out {:?}{}",
                d.name,
                d.lhs.0,
                d.rhs.0,
                d.out.0,
                d.geometry.lhs,
                d.geometry.rhs,
                d.geometry.out,
                if d.accumulate {
                    " adding to its output"
                } else if d.epilogue.is_some() {
                    " with epilogue"
                } else {
                    ""
                }
            ),
            Thunk::ScalarAdd(a) => {
                writeln!(out, "{pad}add b{} + {} -> b{}", a.from.0, a.add.by, a.to.0)
            }
            Thunk::Window(w) => writeln!(
                out,
                "{pad}window b{} -> b{} ({} bytes, copied)",
                w.from().0,
                w.to.0,
                w.window.bytes()
            ),
            Thunk::Copy(c) => writeln!(
                out,
                "{pad}copy b{} -> b{} ({} bytes{})",
                c.from.0,
                c.to.0,
                c.bytes,
                if c.relayout.is_some() {
                    ", relayout"
                } else {
                    ""
                }
            ),
            Thunk::While(w) => {
                work.push(Print::Thunks(&w.body, depth + 2, None));
                work.push(Print::Heading("body:".into(), depth + 1));
                match &w.condition {
                    Condition::Thunks { thunks, predicate } => {
                        work.push(Print::Thunks(thunks, depth + 2, None));
                        work.push(Print::Heading("condition:".into(), depth + 1));
                        writeln!(out, "{pad}while (predicate b{})", predicate.0)
                    }
                    Condition::Counter { counter, limit, .. } => {
                        writeln!(out, "{pad}while (b{} < {limit})", counter.0)
                    }
                }
            }
            Thunk::Conditional(c) => {
                for (i, branch) in c.branches.iter().enumerate().rev() {
                    work.push(Print::Thunks(branch, depth + 2, None));
                    work.push(Print::Heading(format!("branch {i}:"), depth + 1));
                }
                writeln!(out, "{pad}conditional (index b{})", c.index.0)
            }
            Thunk::Library(l) => writeln!(
                out,
                "{pad}library {} ({}) reads {:?} writes {:?}",
                l.name,
                l.routine.describe(),
                l.inputs.iter().map(|b| b.0).collect::<Vec<_>>(),
                l.outputs.iter().map(|b| b.0).collect::<Vec<_>>()
            ),
            Thunk::Collective(c) => writeln!(
                out,
                "{pad}{} {} reads {:?} writes {:?}",
                c.instr.opcode.name(),
                c.instr.name,
                c.inputs.iter().map(|b| b.0).collect::<Vec<_>>(),
                c.outputs.iter().map(|b| b.0).collect::<Vec<_>>()
            ),
            Thunk::Interpret(i) => {
                let (reads, writes) = i.buffers();
                writeln!(
                    out,
                    "{pad}interpret {} reads {:?} writes {:?}",
                    i.module().entry_computation().name,
                    reads.iter().map(|b| b.0).collect::<Vec<_>>(),
                    writes.iter().map(|b| b.0).collect::<Vec<_>>()
                )
            }
        };
    }
}

/// Two spaces per level up to [`MAX_INDENT`] levels, then the level.
fn indent(depth: usize) -> String {
    if depth <= MAX_INDENT {
        "  ".repeat(depth)
    } else {
        format!("{}[{depth}] ", "  ".repeat(MAX_INDENT))
    }
}
