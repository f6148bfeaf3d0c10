//! Call inlining.

use super::edit::{Editor, Names};
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{HloModule, InstrId, Opcode};
use crate::Result;

/// Replaces every `call` by a copy of the callee's body.
///
/// The callee's parameters become the call's operands and its root becomes
/// the call's value; the copied instructions get fresh names (`add.3` in
/// the callee becomes, say, `add.7`). Calls inside the inlined body are
/// inlined too. Callees left without callers stay until [`Dce`](super::Dce)
/// removes them. Once a run has copied about 260000 instructions, the
/// remaining calls stay calls: computations that call a shared one twice
/// per level would otherwise grow exponentially with their depth.
/// `fusion` instructions are kept: a fusion is a backend's decision about
/// kernels, not a function boundary of the program (a backend that plans
/// its own kernels runs [`InlineFusions`]).
#[derive(Copy, Clone, Debug, Default)]
pub struct InlineCalls;

impl Pass for InlineCalls {
    const NAME: &'static str = "inline-calls";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        Ok(inline(module, Opcode::Call))
    }
}

/// Replaces every `fusion` by a copy of its fused computation, as
/// [`InlineCalls`] does for calls: the kernels of a module that XLA has
/// already optimized (`kind=kLoop`, `kInput`, `kOutput`, `kCustom`) are
/// XLA's decisions, and a backend that plans its own fuses the ops again.
#[derive(Copy, Clone, Debug, Default)]
pub struct InlineFusions;

impl Pass for InlineFusions {
    const NAME: &'static str = "inline-fusions";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        Ok(inline(module, Opcode::Fusion))
    }
}

/// Instructions one run of an inlining pass copies at most. Inlining
/// gives every call site its own copy of the callee, so computations that
/// call a shared one twice per level, `n` levels deep, grow to `2^n`
/// copies: past this budget the remaining calls stay calls (a backend
/// runs them as calls), so the module's size stays bounded.
const INLINE_BUDGET: usize = 1 << 18;

/// Replaces every instruction with opcode `op` (which calls one
/// computation with its operands as parameters) by a copy of the callee,
/// within [`INLINE_BUDGET`].
fn inline(module: &mut HloModule, op: Opcode) -> Changed {
    let effects = SideEffects::of(module);
    let mut names = Names::of(module);
    let mut changed = Changed::No;
    let mut budget = INLINE_BUDGET;
    for id in module.computation_ids() {
        let has_calls = module
            .computation(id)
            .instructions
            .iter()
            .any(|i| i.opcode == op);
        if !has_calls {
            continue;
        }
        let mut editor = Editor::open(module, id);
        // Inlined bodies are appended, so this loop also reaches the
        // calls they contain.
        let mut i = 0;
        while i < editor.len() {
            let call = InstrId(i as u32);
            i += 1;
            if editor.instr(call).opcode != op || editor.is_replaced(call) {
                continue;
            }
            let callee = module.computation(editor.instr(call).called[0]);
            let Some(left) = budget.checked_sub(callee.instructions.len()) else {
                continue;
            };
            budget = left;
            let mut map = Vec::with_capacity(callee.instructions.len());
            for instr in &callee.instructions {
                let new = if instr.opcode == Opcode::Parameter {
                    let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
                    editor.operand(call, number)
                } else {
                    let mut copy = instr.clone();
                    copy.name = names.fresh(&instr.name);
                    for op in &mut copy.operands {
                        *op = map[op.index()];
                    }
                    editor.add(call, copy)
                };
                map.push(new);
            }
            editor.replace(call, map[callee.root.index()]);
        }
        changed |= editor.close(module, &effects);
    }
    changed
}
