//! Side effects: which instructions must stay even when their value is
//! unused, and which must never be merged (CSE) or evaluated at compile time
//! (constant folding).
//!
//! The rule follows XLA's `HloInstruction::HasSideEffect`: an instruction
//! has a side effect if its op does (below) or if any computation it calls
//! contains one, transitively.

use crate::hlo::{Flags, HloInstruction, HloModule, Opcode};

/// Which computations of a module contain a side effect (transitively),
/// computed once per pass.
pub struct SideEffects {
    computations: Vec<bool>,
}

impl SideEffects {
    /// The side-effect table of `module` (whose call graph is acyclic, as
    /// the verifier guarantees; on a cycle every computation counts as
    /// side-effecting).
    pub fn of(module: &HloModule) -> Self {
        let count = module.computations.len();
        let Ok(order) = module.callees_first() else {
            return SideEffects {
                computations: vec![true; count],
            };
        };
        let mut computations = vec![false; count];
        for c in order {
            computations[c] = module.computations[c]
                .instructions
                .iter()
                .any(|i| op_has_side_effect(i) || i.called.iter().any(|k| computations[k.index()]));
        }
        SideEffects { computations }
    }

    /// `true` if `instr` has a side effect, itself or through a called
    /// computation.
    pub fn instruction(&self, instr: &HloInstruction) -> bool {
        op_has_side_effect(instr)
            || instr
                .called
                .iter()
                .any(|c| self.computations.get(c.index()).copied().unwrap_or(true))
    }
}

/// Whether the instruction itself (not its callees) has a side effect.
///
/// | ops                                                   | side effect                      |
/// |-------------------------------------------------------|----------------------------------|
/// | infeed, outfeed, send, send-done, recv, recv-done      | always (they talk to the host)   |
/// | rng                                                   | always (it draws from a stream)  |
/// | custom-call                                           | `custom_call_has_side_effect`    |
/// | all-reduce, all-gather, all-to-all, reduce-scatter    | `constrain_layout`, or a channel |
/// | collective-permute                                    | a channel                        |
/// | everything else                                       | never                            |
///
/// XLA counts a collective with a channel as side-effecting only outside
/// SPMD partitioning; we do not track that mode, so we keep the
/// conservative answer. `rng` is side-effecting in XLA's classic rule (a
/// dead draw still advances the generator), and it must never be merged or
/// folded either way.
fn op_has_side_effect(instr: &HloInstruction) -> bool {
    use Opcode::*;
    let attrs = &instr.attrs;
    match instr.opcode {
        CustomCall => attrs.custom_call_has_side_effect,
        AllGather | AllReduce | AllToAll | ReduceScatter => {
            attrs.constrain_layout || attrs.channel_id.is_some()
        }
        CollectivePermute => attrs.channel_id.is_some(),
        op => op.has(Flags::SIDE_EFFECT),
    }
}
