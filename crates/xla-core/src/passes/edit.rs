//! Editing a computation: adding instructions, replacing uses, and writing
//! the result back in topological order with dense ids.
//!
//! Passes never shift ids while they work. An [`Editor`] appends new
//! instructions at the end and records replacements as forwarding links
//! (`old → new`); [`Editor::close`] then resolves every operand through the
//! links, drops the replaced instructions and whatever only they used, sorts
//! the survivors topologically (keeping the original order where operands
//! allow it) and renumbers them.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use super::effects::SideEffects;
use super::Changed;
use crate::hlo::{ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode};

/// Fresh instruction names, unique in the module: `copy.1`, `copy.2`, …
pub(crate) struct Names {
    /// Hashes of the names taken: building it copies no name, and a
    /// collision only skips a free name.
    used: HashSet<u64>,
    next: HashMap<String, u64>,
}

/// The hash [`Names`] keeps of `name`.
fn name_hash(name: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    name.hash(&mut hasher);
    hasher.finish()
}

impl Names {
    /// The names already taken in `module`.
    pub fn of(module: &HloModule) -> Self {
        let used = module
            .computations
            .iter()
            .flat_map(|c| c.instructions.iter().map(|i| name_hash(&i.name)))
            .collect();
        Names {
            used,
            next: HashMap::new(),
        }
    }

    /// A name not used anywhere in the module, made of `base` without its
    /// numeric suffix (`add.3` → `add`) and a new number: `add.4`.
    pub fn fresh(&mut self, base: &str) -> String {
        let stem = match base.rsplit_once('.') {
            Some((stem, digits))
                if !stem.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
            {
                stem
            }
            _ => base,
        };
        let next = self.next.entry(stem.to_string()).or_insert(1);
        loop {
            let name = format!("{stem}.{next}");
            *next += 1;
            if self.used.insert(name_hash(&name)) {
                return name;
            }
        }
    }
}

/// Where an instruction goes when the computation is written back: before
/// the original instruction at `anchor` (`added = 0`) or as that
/// instruction itself (`added = 1`); `sequence` orders instructions added
/// at one anchor.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Key {
    anchor: u32,
    added: u8,
    sequence: u32,
}

/// One computation taken out of its module for editing.
///
/// The computation's instructions move into the editor (the module's slot
/// stays empty until [`Editor::close`]), so a pass can keep reading the
/// module's other computations while it edits this one.
pub(crate) struct Editor {
    id: ComputationId,
    instrs: Vec<HloInstruction>,
    keys: Vec<Key>,
    forward: Vec<Option<InstrId>>,
    /// Uses of each original instruction before editing.
    original_uses: Vec<usize>,
    root: InstrId,
    sequence: u32,
    changed: bool,
}

impl Editor {
    /// Takes computation `id` out of `module`.
    pub fn open(module: &mut HloModule, id: ComputationId) -> Self {
        let computation = module.computation_mut(id);
        let instrs = std::mem::take(&mut computation.instructions);
        let mut original_uses = vec![0; instrs.len()];
        for instr in &instrs {
            for op in &instr.operands {
                original_uses[op.index()] += 1;
            }
        }
        let keys = (0..instrs.len() as u32)
            .map(|anchor| Key {
                anchor,
                added: 1,
                sequence: 0,
            })
            .collect();
        Editor {
            id,
            forward: vec![None; instrs.len()],
            keys,
            original_uses,
            root: computation.root,
            instrs,
            sequence: 0,
            changed: false,
        }
    }

    /// The number of instructions, added ones included (ids below this are
    /// valid).
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// The instruction at `id` (replaced or not).
    pub fn instr(&self, id: InstrId) -> &HloInstruction {
        &self.instrs[id.index()]
    }

    /// The instruction at `id`, to change in place; marks the computation
    /// changed.
    pub fn instr_mut(&mut self, id: InstrId) -> &mut HloInstruction {
        self.changed = true;
        &mut self.instrs[id.index()]
    }

    /// What `id` stands for now: itself, or the instruction that replaced
    /// it (transitively).
    pub fn resolve(&self, mut id: InstrId) -> InstrId {
        while let Some(next) = self.forward[id.index()] {
            id = next;
        }
        id
    }

    /// Operand `k` of `id`, through replacements.
    pub fn operand(&self, id: InstrId, k: usize) -> InstrId {
        self.resolve(self.instrs[id.index()].operands[k])
    }

    /// Operand `k` of `id`, through replacements.
    pub fn operand_instr(&self, id: InstrId, k: usize) -> &HloInstruction {
        self.instr(self.operand(id, k))
    }

    /// The operands of `id`, through replacements.
    pub fn operands(&self, id: InstrId) -> Vec<InstrId> {
        (0..self.instrs[id.index()].operands.len())
            .map(|k| self.operand(id, k))
            .collect()
    }

    /// Rewrites the operands of `id` through replacements, so that
    /// `instr(id).operands` holds current ids.
    pub fn resolve_operands(&mut self, id: InstrId) {
        let resolved = self.operands(id);
        self.instrs[id.index()].operands = resolved;
    }

    /// The root, through replacements.
    pub fn root(&self) -> InstrId {
        self.resolve(self.root)
    }

    /// How many instructions used `id` before editing (0 for an added
    /// instruction); the root's place is not a use.
    pub fn original_uses(&self, id: InstrId) -> usize {
        self.original_uses.get(id.index()).copied().unwrap_or(0)
    }

    /// `true` once `id` has been replaced.
    pub fn is_replaced(&self, id: InstrId) -> bool {
        self.forward[id.index()].is_some()
    }

    /// Adds `instr`, to be placed just before the instruction at `before`
    /// (an original or an added one) unless its operands force it later.
    pub fn add(&mut self, before: InstrId, instr: HloInstruction) -> InstrId {
        let anchor = self.keys[before.index()].anchor;
        self.sequence += 1;
        self.keys.push(Key {
            anchor,
            added: 0,
            sequence: self.sequence,
        });
        self.forward.push(None);
        self.instrs.push(instr);
        self.changed = true;
        InstrId(self.instrs.len() as u32 - 1)
    }

    /// Makes every use of `old` (and the root, if it is `old`) use `new`.
    /// `old` is dropped when the editor closes.
    pub fn replace(&mut self, old: InstrId, new: InstrId) {
        let new = self.resolve(new);
        debug_assert_ne!(old, new, "an instruction cannot replace itself");
        debug_assert_ne!(
            self.instrs[old.index()].opcode,
            Opcode::Parameter,
            "parameters are never replaced"
        );
        self.forward[old.index()] = Some(new);
        self.changed = true;
    }

    /// Makes `id` the root.
    pub fn set_root(&mut self, id: InstrId) {
        self.root = id;
        self.changed = true;
    }

    /// Writes the computation back into `module`: operands resolved,
    /// replaced instructions dropped along with what only they used
    /// (unless it is a parameter or has a side effect), topologically
    /// sorted, ids renumbered.
    pub fn close(mut self, module: &mut HloModule, effects: &SideEffects) -> Changed {
        if !self.changed {
            // Nothing added, replaced or edited: the computation is as it
            // was (verified modules list operands first).
            module.computation_mut(self.id).instructions = self.instrs;
            return Changed::No;
        }
        let n = self.instrs.len();
        for i in 0..n {
            self.resolve_operands(InstrId(i as u32));
        }
        let root = self.root();
        let mut uses = vec![0usize; n];
        for (i, instr) in self.instrs.iter().enumerate() {
            if self.forward[i].is_none() {
                for op in &instr.operands {
                    uses[op.index()] += 1;
                }
            }
        }
        // Drop replaced instructions and those the edit left unused (added
        // ones, and original ones whose users changed operands), then
        // whatever they alone kept alive.
        let mut alive = vec![true; n];
        let original = self.original_uses.len();
        let orphaned = |i: usize| uses[i] == 0 && (i >= original || self.original_uses[i] > 0);
        let mut worklist: Vec<usize> = (0..n)
            .filter(|&i| self.forward[i].is_some() || orphaned(i))
            .collect();
        while let Some(i) = worklist.pop() {
            if !alive[i] || i == root.index() {
                continue;
            }
            let instr = &self.instrs[i];
            let removable = self.forward[i].is_some()
                || (uses[i] == 0
                    && (i >= original || self.original_uses[i] > 0)
                    && instr.opcode != Opcode::Parameter
                    && !effects.instruction(instr));
            if !removable {
                continue;
            }
            alive[i] = false;
            let counted = self.forward[i].is_none();
            for op in &instr.operands {
                if counted {
                    uses[op.index()] -= 1;
                }
                if uses[op.index()] == 0 {
                    worklist.push(op.index());
                }
            }
        }
        let order = self.topological_order(&alive);
        let mut new_id = vec![None; n];
        for (position, &i) in order.iter().enumerate() {
            new_id[i] = Some(InstrId(position as u32));
        }
        let mut slots: Vec<Option<HloInstruction>> = self.instrs.into_iter().map(Some).collect();
        let instructions: Vec<HloInstruction> = order
            .iter()
            .map(|&i| {
                let mut instr = slots[i].take().expect("each instruction is placed once");
                for op in &mut instr.operands {
                    *op = new_id[op.index()].expect("operands of live instructions are live");
                }
                instr
            })
            .collect();
        let computation: &mut HloComputation = module.computation_mut(self.id);
        computation.instructions = instructions;
        computation.root = new_id[root.index()].expect("the root is live");
        Changed::from(self.changed || order.len() != original)
    }

    /// Live instructions in an order where operands come first, otherwise
    /// by key (original order, added instructions before their anchor).
    fn topological_order(&self, alive: &[bool]) -> Vec<usize> {
        let mut by_key: Vec<usize> = (0..self.instrs.len()).filter(|&i| alive[i]).collect();
        by_key.sort_by_key(|&i| self.keys[i]);
        let mut placed = vec![false; self.instrs.len()];
        let mut order = Vec::with_capacity(by_key.len());
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for start in by_key {
            if placed[start] {
                continue;
            }
            // Iterative depth-first walk: (instruction, next operand to visit).
            stack.push((start, 0));
            while let Some((i, next)) = stack.last_mut() {
                let operands = &self.instrs[*i].operands;
                if let Some(op) = operands.get(*next) {
                    *next += 1;
                    if !placed[op.index()] {
                        stack.push((op.index(), 0));
                    }
                } else {
                    let i = *i;
                    stack.pop();
                    if !placed[i] {
                        placed[i] = true;
                        order.push(i);
                    }
                }
            }
        }
        order
    }
}

/// Keeps the instructions of `computation` whose `keep` entry is set (every
/// operand of a kept instruction must be kept), renumbering ids. Returns
/// whether anything was removed.
pub(crate) fn retain(computation: &mut HloComputation, keep: &[bool]) -> Changed {
    if keep.iter().all(|&k| k) {
        return Changed::No;
    }
    let mut new_id = vec![None; keep.len()];
    let mut next = 0u32;
    for (i, &k) in keep.iter().enumerate() {
        if k {
            new_id[i] = Some(InstrId(next));
            next += 1;
        }
    }
    let instructions = std::mem::take(&mut computation.instructions);
    computation.instructions = instructions
        .into_iter()
        .zip(keep)
        .filter(|(_, &k)| k)
        .map(|(mut instr, _)| {
            for op in &mut instr.operands {
                *op = new_id[op.index()].expect("operands of kept instructions are kept");
            }
            instr
        })
        .collect();
    computation.root = new_id[computation.root.index()].expect("the root is kept");
    Changed::Yes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;

    fn module(text: &str) -> HloModule {
        text.parse().unwrap()
    }

    #[test]
    fn fresh_names_skip_taken_ones_and_drop_numeric_suffixes() {
        let m = module("HloModule m\n\nENTRY e {\n  copy.1 = f32[] parameter(0)\n  ROOT add.3 = f32[] add(copy.1, copy.1)\n}");
        let mut names = Names::of(&m);
        assert_eq!(names.fresh("copy"), "copy.2");
        assert_eq!(names.fresh("copy.7"), "copy.3");
        assert_eq!(names.fresh("add.3"), "add.1");
        assert_eq!(names.fresh("add"), "add.2");
        assert_eq!(names.fresh("add"), "add.4");
        assert_eq!(names.fresh("x.y"), "x.y.1");
    }

    #[test]
    fn close_sorts_added_instructions_after_their_operands_and_drops_orphans() {
        let mut m = module(
            "HloModule m\n\nENTRY e {\n  x = f32[] parameter(0)\n  c = f32[] constant(1)\n  \
             a = f32[] add(x, c)\n  ROOT n = f32[] negate(a)\n}",
        );
        let effects = SideEffects::of(&m);
        let entry = m.entry;
        let mut editor = Editor::open(&mut m, entry);
        let (x, a, n) = (InstrId(0), InstrId(2), InstrId(3));
        // Anchored before `x`, but it uses `n`: it must move after `n`.
        let scalar = Shape::scalar(crate::PrimitiveType::F32);
        let e = editor.add(
            x,
            HloInstruction::new("e", Opcode::Exp, scalar.clone(), vec![n]),
        );
        editor.set_root(e);
        // Replacing `a` by `x` orphans the constant.
        editor.replace(a, x);
        assert_eq!(editor.close(&mut m, &effects), Changed::Yes);
        assert_eq!(
            m.to_string(),
            "HloModule m\n\nENTRY e {\n  x = f32[] parameter(0)\n  n = f32[] negate(x)\n  \
             ROOT e = f32[] exponential(n)\n}\n\n"
        );
    }

    #[test]
    fn close_keeps_side_effects_and_code_that_was_dead_before() {
        let mut m = module(
            "HloModule m\n\nENTRY e {\n  x = f32[] parameter(0)\n  dead = f32[] negate(x)\n  \
             lo = f32[] constant(0)\n  r = f32[] rng(lo, x), distribution=rng_uniform\n  \
             ROOT s = f32[] add(x, r)\n}",
        );
        let effects = SideEffects::of(&m);
        let entry = m.entry;
        let mut editor = Editor::open(&mut m, entry);
        editor.replace(InstrId(4), InstrId(0));
        assert_eq!(editor.close(&mut m, &effects), Changed::Yes);
        assert_eq!(
            m.to_string(),
            "HloModule m\n\nENTRY e {\n  ROOT x = f32[] parameter(0)\n  dead = f32[] negate(x)\n  \
             lo = f32[] constant(0)\n  r = f32[] rng(lo, x), distribution=rng_uniform\n}\n\n"
        );
    }
}
