//! The layout-sensitive cleanup after layout assignment.

use super::physical;
use crate::hlo::{Attrs, HloModule, InstrId, Opcode};
use crate::passes::edit::Editor;
use crate::passes::effects::SideEffects;
use crate::passes::{Changed, Pass};
use crate::Result;

/// Rewrites, once every value has its final layout:
///
/// * a `transpose` or `reshape` that leaves every byte where it is (see
///   `physical.rs`) becomes a `bitcast` (same name, same shape): it costs
///   nothing at run time;
/// * `bitcast(bitcast(x))` becomes `bitcast(x)`, and a bitcast whose
///   operand already has its shape and layout becomes that operand;
/// * a `copy` whose operand already has its layout becomes that operand.
#[derive(Copy, Clone, Debug, Default)]
pub struct LayoutCleanup;

impl Pass for LayoutCleanup {
    const NAME: &'static str = "layout-cleanup";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let effects = SideEffects::of(module);
        let mut changed = Changed::No;
        for id in module.computation_ids() {
            let mut editor = Editor::open(module, id);
            for i in 0..editor.len() as u32 {
                let id = InstrId(i);
                editor.resolve_operands(id);
                clean(&mut editor, id);
            }
            changed |= editor.close(module, &effects);
        }
        Ok(changed)
    }
}

/// Applies the rules to one instruction.
fn clean(editor: &mut Editor, id: InstrId) {
    let instr = editor.instr(id);
    let operand_id = match instr.operands.first() {
        Some(&o) => o,
        None => return,
    };
    let operand = editor.instr(operand_id);
    let (Some(result), Some(source)) = (instr.shape.as_array(), operand.shape.as_array()) else {
        return;
    };
    let same = source.eq_with_layout(result);
    let opcode = instr.opcode;
    let permutation = instr.attrs.dimensions.as_deref().unwrap_or_default();
    let to_bitcast = (opcode == Opcode::Transpose
        && physical::transpose_is_bitcast(source, result, permutation))
        || (opcode == Opcode::Reshape && physical::reshape_is_bitcast(source, result));
    if (opcode == Opcode::Copy || opcode == Opcode::Bitcast) && same {
        editor.replace(id, operand_id);
    } else if opcode == Opcode::Bitcast && operand.opcode == Opcode::Bitcast {
        let inner = operand.operands[0];
        editor.instr_mut(id).operands[0] = inner;
        if editor
            .instr(inner)
            .shape
            .eq_with_layout(&editor.instr(id).shape)
        {
            editor.replace(id, inner);
        }
    } else if to_bitcast {
        let instr = editor.instr_mut(id);
        instr.opcode = Opcode::Bitcast;
        instr.attrs = Attrs::default();
    }
}
