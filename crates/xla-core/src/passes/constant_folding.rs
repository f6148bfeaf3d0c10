//! Constant folding through the reference interpreter.

use std::collections::HashMap;

use super::edit::Editor;
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{
    ComputationId, Flags, HloComputation, HloInstruction, HloModule, InstrId, Opcode,
};
use crate::interp::{CustomCallRegistry, Interpreter};
use crate::Result;

/// Replaces an instruction whose operands are all constants by the constant
/// it computes, evaluated by the reference interpreter (so folding follows
/// exactly the semantics the program would have at run time).
///
/// An instruction is folded when
///
/// * it has operands, all of them `constant`s, and an array result; neither
///   the result nor the operands together exceed `max_bytes` bytes (a
///   bound on both the module's growth and the time evaluation takes, as
///   XLA's bound on elements). Operands may also be `iota`s and
///   `broadcast`s of constants when the result is at most
///   `SMALL_TABLE_BYTES` (4 KiB): a table computed from positions (a rotary
///   embedding's inverse frequencies, `1 / 10000^(iota / d)`) is then one
///   constant instead of a kernel to compile and run, while a large
///   iota-made value (an attention mask) stays a cheap fused computation;
/// * it has no side effect, not even in a computation it calls
///   (`effects.rs`; this excludes `rng`), and its value does not depend on
///   the device: collectives, `replica-id` and `partition-id` stay;
/// * its op is worth folding: `broadcast` and `iota` only make constants
///   bigger (the simplifier already turns a constant of one repeated value
///   into a broadcast, which the JIT splats), `fft` and `while` can take
///   long to evaluate, `custom-call` runs user code, `tuple` constants are
///   not something a backend wants, and `after-all` makes tokens
///   (XLA's `HloConstantFolding` skips the same ops);
/// * the interpreter evaluates it. An instruction it does not support, or
///   whose evaluation fails, stays as it is and behaves at run time exactly
///   as it would have.
#[derive(Clone)]
pub struct ConstantFolding {
    max_bytes: usize,
    interpreter: Interpreter,
}

impl ConstantFolding {
    /// Folding into constants of at most `max_bytes` bytes.
    pub fn new(max_bytes: usize) -> Self {
        // Custom calls are not folded: the interpreter needs none of its
        // built-in targets (building their table is most of what creating
        // one costs, in every pipeline run).
        ConstantFolding {
            max_bytes,
            interpreter: Interpreter::with_custom_calls(CustomCallRegistry::empty()),
        }
    }
}

impl Pass for ConstantFolding {
    const NAME: &'static str = "constant-folding";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let effects = SideEffects::of(module);
        let mut changed = Changed::No;
        for id in module.computation_ids() {
            let mut editor = Editor::open(module, id);
            for i in 0..editor.len() as u32 {
                let id = InstrId(i);
                editor.resolve_operands(id);
                if !self.foldable(&editor, id, &effects) {
                    continue;
                }
                let Some(literal) = self.evaluate(module, &editor, id) else {
                    continue;
                };
                let instr = editor.instr_mut(id);
                instr.opcode = Opcode::Constant;
                instr.operands.clear();
                instr.called.clear();
                instr.attrs = crate::hlo::Attrs {
                    literal: Some(literal),
                    ..Default::default()
                };
            }
            changed |= editor.close(module, &effects);
        }
        Ok(changed)
    }
}

impl ConstantFolding {
    /// Whether `id` may be folded (the rules in the type's documentation,
    /// except evaluation).
    fn foldable(&self, editor: &Editor, id: InstrId, effects: &SideEffects) -> bool {
        let instr = editor.instr(id);
        if !instr.shape.is_array() {
            return false;
        }
        let operands: Vec<&HloInstruction> =
            instr.operands.iter().map(|&o| editor.instr(o)).collect();
        let operand_bytes = operands
            .iter()
            .map(|o| o.shape.saturating_byte_size())
            .fold(0, u64::saturating_add);
        let bytes = instr.shape.saturating_byte_size();
        let small = bytes.max(operand_bytes) <= self.max_bytes as u64;
        let table = bytes <= SMALL_TABLE_BYTES;
        let constant_operands = !operands.is_empty()
            && operands
                .iter()
                .all(|o| o.opcode == Opcode::Constant || (table && made_of_constants(editor, o)));
        small && constant_operands && instr.opcode.has(Flags::FOLD) && !effects.instruction(instr)
    }

    /// The value of `id`, computed by the interpreter on a module made of
    /// its constant operands, itself and the computations it calls.
    fn evaluate(&self, module: &HloModule, editor: &Editor, id: InstrId) -> Option<crate::Literal> {
        let instr = editor.instr(id);
        let mut computations = Vec::new();
        let mut renumbered = HashMap::new();
        for &callee in &instr.called {
            copy_callees(module, callee, &mut computations, &mut renumbered);
        }
        // One constant per distinct operand: `add(c, c)` reads `c` twice.
        let mut instructions: Vec<HloInstruction> = Vec::new();
        let mut operand_ids: Vec<InstrId> = Vec::new();
        let mut folded = instr.clone();
        for operand in &mut folded.operands {
            let position = match operand_ids.iter().position(|o| o == operand) {
                Some(position) => position,
                None => {
                    let mut copy = editor.instr(*operand).clone();
                    // A broadcast's constant comes along, just before it.
                    if let Some(&inner) = copy.operands.first() {
                        instructions.push(editor.instr(inner).clone());
                        copy.operands = vec![InstrId(instructions.len() as u32 - 1)];
                        operand_ids.push(inner);
                    }
                    operand_ids.push(*operand);
                    instructions.push(copy);
                    instructions.len() - 1
                }
            };
            *operand = InstrId(position as u32);
        }
        folded.called = instr.called.iter().map(|c| renumbered[c]).collect();
        instructions.push(folded);
        let root = InstrId(instructions.len() as u32 - 1);
        computations.push(HloComputation {
            name: format!("fold.{}", instr.name),
            instructions,
            root,
        });
        let entry = ComputationId(computations.len() as u32 - 1);
        let tiny = HloModule::new("constant_folding", computations, entry);
        self.interpreter.run(&tiny, &[]).ok()
    }
}

/// Copies `id` and every computation it calls (transitively) into
/// `computations`, recording their new ids in `renumbered`.
fn copy_callees(
    module: &HloModule,
    id: ComputationId,
    computations: &mut Vec<HloComputation>,
    renumbered: &mut HashMap<ComputationId, ComputationId>,
) {
    if renumbered.contains_key(&id) {
        return;
    }
    let computation = module.computation(id);
    for instr in &computation.instructions {
        for &callee in &instr.called {
            copy_callees(module, callee, computations, renumbered);
        }
    }
    let mut copy = computation.clone();
    for instr in &mut copy.instructions {
        for callee in &mut instr.called {
            *callee = renumbered[callee];
        }
    }
    renumbered.insert(id, ComputationId(computations.len() as u32));
    computations.push(copy);
}

/// The largest result whose operands may be iotas and broadcasts of
/// constants (see [`ConstantFolding`]).
const SMALL_TABLE_BYTES: u64 = 4096;

/// `true` for an `iota`, or a `broadcast` of a `constant`.
fn made_of_constants(editor: &Editor, instr: &HloInstruction) -> bool {
    match instr.opcode {
        Opcode::Iota => instr.shape.is_array(),
        Opcode::Broadcast => instr
            .operands
            .first()
            .is_some_and(|&o| editor.instr(o).opcode == Opcode::Constant),
        _ => false,
    }
}
