//! Dead-code elimination.

use super::edit::retain;
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{ComputationId, HloModule, Opcode};
use crate::Result;

/// Removes instructions whose value nobody uses and computations nobody
/// calls.
///
/// An instruction is live if it is its computation's root, a parameter
/// (parameters make up the signature), has a side effect (see
/// `effects.rs`: infeed, outfeed, send/recv, rng, side-effecting custom
/// calls, collectives with channels), or is an operand of a live
/// instruction. A computation is live if it is the entry or a live
/// instruction of a live computation calls it. Dead computations are
/// removed and the remaining ones renumbered.
#[derive(Copy, Clone, Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    const NAME: &'static str = "dce";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let effects = SideEffects::of(module);
        let mut changed = Changed::No;
        for computation in &mut module.computations {
            let n = computation.instructions.len();
            let mut live = vec![false; n];
            live[computation.root.index()] = true;
            for (i, instr) in computation.instructions.iter().enumerate() {
                if instr.opcode == Opcode::Parameter || effects.instruction(instr) {
                    live[i] = true;
                }
            }
            // Operands precede their users, so one backward sweep suffices.
            for i in (0..n).rev() {
                if live[i] {
                    for op in &computation.instructions[i].operands {
                        live[op.index()] = true;
                    }
                }
            }
            changed |= retain(computation, &live);
        }
        changed |= remove_dead_computations(module);
        Ok(changed)
    }
}

/// Removes computations not reachable from the entry and renumbers the
/// rest (in their original order).
fn remove_dead_computations(module: &mut HloModule) -> Changed {
    let count = module.computations.len();
    let mut reachable = vec![false; count];
    let mut stack = vec![module.entry];
    reachable[module.entry.index()] = true;
    while let Some(id) = stack.pop() {
        for instr in &module.computation(id).instructions {
            for &callee in &instr.called {
                if !reachable[callee.index()] {
                    reachable[callee.index()] = true;
                    stack.push(callee);
                }
            }
        }
    }
    if reachable.iter().all(|&r| r) {
        return Changed::No;
    }
    let mut new_id = vec![None; count];
    let mut next = 0u32;
    for (i, &r) in reachable.iter().enumerate() {
        if r {
            new_id[i] = Some(ComputationId(next));
            next += 1;
        }
    }
    let computations = std::mem::take(&mut module.computations);
    module.computations = computations
        .into_iter()
        .zip(&reachable)
        .filter(|(_, &r)| r)
        .map(|(mut c, _)| {
            for instr in &mut c.instructions {
                for callee in &mut instr.called {
                    *callee = new_id[callee.index()].expect("callees of live code are live");
                }
            }
            c
        })
        .collect();
    module.entry = new_id[module.entry.index()].expect("the entry is live");
    Changed::Yes
}
