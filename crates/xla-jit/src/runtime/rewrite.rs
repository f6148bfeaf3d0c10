//! The frame of the preparation passes that run after layout assignment
//! (`dot_prepare`, `conv_prepare`): each instruction of each computation is
//! either kept or replaced by a sequence of new instructions, which keeps
//! operands before their users and renumbers the users.

use std::collections::{HashMap, HashSet};

use xla_core::hlo::InstrId;
use xla_core::{
    ArrayShape, HloComputation, HloInstruction, HloModule, Opcode, PrimitiveType, Shape,
};

/// Rewrites every instruction of `module` through `rewrite`, which pushes
/// the instruction itself or its replacement onto the growing computation
/// and returns the id now holding its value; `true` if any instruction
/// was added.
pub(super) fn rewrite_module(
    module: &mut HloModule,
    mut rewrite: impl FnMut(&mut Emitted<'_>, HloInstruction) -> InstrId,
) -> bool {
    let names: HashSet<String> = module
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter().map(|i| i.name.clone()))
        .collect();
    let mut names = Names {
        taken: names,
        next: HashMap::new(),
    };
    let mut changed = false;
    for computation in &mut module.computations {
        changed |= rewrite_computation(computation, &mut names, &mut rewrite);
    }
    changed
}

/// The module's instruction names, and the next suffix to try for each
/// name a rewrite asked for (a convolution's 256 slices took 3.3 ms of
/// compile time probing `.2`, `.3`, … from the start each time).
pub(super) struct Names {
    taken: HashSet<String>,
    next: HashMap<String, usize>,
}

impl Names {
    /// `wanted`, or `wanted.k` with the smallest `k ≥ 2` not taken yet
    /// (counting on from the last one given out); now taken.
    fn unique(&mut self, wanted: String) -> String {
        let mut name = wanted.clone();
        let k = self.next.entry(wanted.clone()).or_insert(1);
        while self.taken.contains(&name) {
            *k += 1;
            name = format!("{wanted}.{k}");
        }
        self.taken.insert(name.clone());
        name
    }
}

fn rewrite_computation(
    computation: &mut HloComputation,
    names: &mut Names,
    rewrite: &mut impl FnMut(&mut Emitted<'_>, HloInstruction) -> InstrId,
) -> bool {
    let old = std::mem::take(&mut computation.instructions);
    let mut out = Emitted {
        instructions: Vec::with_capacity(old.len()),
        names,
        changed: false,
    };
    // `map[old id]` = the id of the instruction that now holds its value.
    let mut map: Vec<InstrId> = Vec::with_capacity(old.len());
    for mut instr in old {
        instr.operands = instr.operands.iter().map(|o| map[o.index()]).collect();
        map.push(rewrite(&mut out, instr));
    }
    computation.root = map[computation.root.index()];
    computation.instructions = out.instructions;
    out.changed
}

/// The rewritten computation's instructions, growing.
pub(super) struct Emitted<'n> {
    instructions: Vec<HloInstruction>,
    names: &'n mut Names,
    /// Set when the computation differs from the original.
    pub(super) changed: bool,
}

impl Emitted<'_> {
    /// Appends `instr`; its id.
    pub(super) fn push(&mut self, instr: HloInstruction) -> InstrId {
        self.instructions.push(instr);
        InstrId(self.instructions.len() as u32 - 1)
    }

    /// The array shape of an instruction already emitted (the operands of
    /// the rewritten ops are arrays: the module is verified).
    pub(super) fn shape(&self, id: InstrId) -> &ArrayShape {
        self.instructions[id.index()]
            .shape
            .as_array()
            .expect("verified: operands of rewritten ops are arrays")
    }

    /// A new `opcode(operands)` of `shape` named `base.opcode` (with a
    /// number when taken), not yet pushed.
    pub(super) fn named(
        &mut self,
        base: &str,
        opcode: Opcode,
        shape: Shape,
        operands: Vec<InstrId>,
    ) -> HloInstruction {
        let name = self.names.unique(format!("{base}.{}", opcode.name()));
        self.changed = true;
        HloInstruction::new(name, opcode, shape, operands)
    }

    /// `operand` converted to `ty` in its layout (itself if it has that
    /// type already).
    pub(super) fn converted(&mut self, base: &str, operand: InstrId, ty: PrimitiveType) -> InstrId {
        let shape = self.shape(operand);
        if shape.element_type() == ty {
            return operand;
        }
        let shape = shape.clone().with_element_type(ty);
        let c = self.named(base, Opcode::Convert, shape.into(), vec![operand]);
        self.push(c)
    }
}
