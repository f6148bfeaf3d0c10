//! Common-subexpression elimination.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::edit::Editor;
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{ComparisonDirection, Flags, HloInstruction, HloModule, InstrId, Opcode};
use crate::Result;

/// Replaces an instruction by an earlier one that computes the same value.
///
/// Two instructions are the same if they have the same opcode, operands
/// (in either order for a commutative op), called computations, attributes
/// and shape, layouts included. Constants compare by value bit for bit: a
/// NaN equals a NaN with the same payload, `-0` differs from `+0`.
/// Parameters and instructions with a side effect (`effects.rs`, which
/// includes `rng`) are never merged: two draws from a generator are two
/// different values. `rng-bit-generator` is a pure function of its state
/// and is merged like any other op, as XLA does.
#[derive(Copy, Clone, Debug, Default)]
pub struct Cse;

impl Pass for Cse {
    const NAME: &'static str = "cse";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let effects = SideEffects::of(module);
        let mut changed = Changed::No;
        for id in module.computation_ids() {
            let mut editor = Editor::open(module, id);
            let mut seen: HashMap<u64, Vec<InstrId>> = HashMap::new();
            for i in 0..editor.len() as u32 {
                let id = InstrId(i);
                editor.resolve_operands(id);
                let instr = editor.instr(id);
                if instr.opcode == Opcode::Parameter || effects.instruction(instr) {
                    continue;
                }
                let bucket = seen.entry(fingerprint(instr)).or_default();
                match bucket.iter().find(|&&p| same_value(editor.instr(p), instr)) {
                    Some(&earlier) => editor.replace(id, earlier),
                    None => bucket.push(id),
                }
            }
            changed |= editor.close(module, &effects);
        }
        Ok(changed)
    }
}

/// A hash of what [`same_value`] compares cheaply: opcode, operands (sorted
/// for commutative ops), callees, and a constant's bytes.
fn fingerprint(instr: &HloInstruction) -> u64 {
    let mut hasher = DefaultHasher::new();
    instr.opcode.hash(&mut hasher);
    let mut operands = instr.operands.clone();
    if commutative(instr) {
        operands.sort();
    }
    operands.hash(&mut hasher);
    instr.called.hash(&mut hasher);
    if let Some(bytes) = instr.attrs.literal.as_ref().and_then(|l| l.bytes().ok()) {
        bytes.hash(&mut hasher);
    }
    hasher.finish()
}

/// `true` if `a` and `b` (operands already resolved) compute the same
/// value.
fn same_value(a: &HloInstruction, b: &HloInstruction) -> bool {
    let same_operands = a.operands == b.operands
        || (commutative(a)
            && a.operands.len() == 2
            && b.operands.len() == 2
            && a.operands[0] == b.operands[1]
            && a.operands[1] == b.operands[0]);
    a.opcode == b.opcode
        && same_operands
        && a.called == b.called
        && a.shape.eq_with_layout(&b.shape)
        && a.attrs == b.attrs
}

/// Binary ops whose operands can be swapped without changing the value.
fn commutative(instr: &HloInstruction) -> bool {
    use Opcode::*;
    match instr.opcode {
        Compare => matches!(
            instr.attrs.comparison_direction,
            Some(ComparisonDirection::Eq | ComparisonDirection::Ne)
        ),
        op => op.has(Flags::COMMUTATIVE),
    }
}
