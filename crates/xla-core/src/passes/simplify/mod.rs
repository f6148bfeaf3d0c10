//! The algebraic simplifier: local rewrites that remove work without
//! changing any value.
//!
//! Each rule lives in the file of its op family (`arith.rs` for arithmetic
//! and selection, `data_movement.rs` for reshapes, transposes, broadcasts,
//! slices, conversions and the like) with a doc comment giving the rewrite
//! and its precondition. XLA's `AlgebraicSimplifier` is the reference for
//! which rewrites are safe for floating-point values; where XLA trades
//! exactness away we say so. One trade is common to all rules that drop a
//! floating-point operation (`x * 1 → x`, `x / 1 → x`, `x + -0 → x`,
//! `x - 0 → x`): the dropped operation would have flushed a subnormal `x` to
//! zero (the project's flush-to-zero rule, `docs/semantics.md`, *Flush to zero*), and the
//! rewritten program keeps it. XLA:CPU, which also runs with flush-to-zero,
//! makes the same trade.
//!
//! The simplifier is layout-insensitive: it runs before layout assignment,
//! when layouts other than the entry signature's carry no meaning.

mod arith;
mod data_movement;
mod splat;

use super::edit::{Editor, Names};
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{Family, HloInstruction, HloModule, InstrId, Opcode};
use crate::{Result, Shape};

/// Rewrites per instruction, in order; an instruction that a rule creates
/// is simplified again at once (a few times), and [`Looped`](super::Looped)
/// repeats the pass until nothing changes.
#[derive(Copy, Clone, Debug, Default)]
pub struct AlgebraicSimplifier;

/// How many times a freshly created instruction is simplified again within
/// one run.
const CHAIN_LIMIT: usize = 8;

impl Pass for AlgebraicSimplifier {
    const NAME: &'static str = "algebraic-simplifier";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let effects = SideEffects::of(module);
        let mut names = Names::of(module);
        let mut changed = Changed::No;
        for id in module.computation_ids() {
            let mut editor = Editor::open(module, id);
            let original = editor.len();
            for i in 0..original as u32 {
                let mut current = InstrId(i);
                editor.resolve_operands(current);
                for _ in 0..CHAIN_LIMIT {
                    let mut cx = Rewriter {
                        editor: &mut editor,
                        names: &mut names,
                        at: current,
                    };
                    let Some(new) = simplify(&mut cx, current) else {
                        break;
                    };
                    editor.replace(current, new);
                    if new.index() < original {
                        break;
                    }
                    current = new;
                }
            }
            changed |= editor.close(module, &effects);
        }
        Ok(changed)
    }
}

/// What a rule sees: the computation being edited and a way to add
/// instructions (placed before the instruction being simplified).
pub(super) struct Rewriter<'a> {
    editor: &'a mut Editor,
    names: &'a mut Names,
    at: InstrId,
}

impl Rewriter<'_> {
    /// The instruction at `id`.
    pub fn instr(&self, id: InstrId) -> &HloInstruction {
        self.editor.instr(id)
    }

    /// Operand `k` of `id`.
    pub fn operand(&self, id: InstrId, k: usize) -> InstrId {
        self.editor.operand(id, k)
    }

    /// The instruction that is operand `k` of `id`.
    pub fn operand_instr(&self, id: InstrId, k: usize) -> &HloInstruction {
        self.editor.operand_instr(id, k)
    }

    /// `true` when `id` is an original instruction with exactly one use
    /// and not the root: rewriting its one user leaves it dead.
    pub fn used_once(&self, id: InstrId) -> bool {
        self.editor.original_uses(id) == 1 && self.editor.root() != id
    }

    /// Adds a new instruction named after its op (`reshape.4`).
    pub fn add(&mut self, opcode: Opcode, shape: Shape, operands: Vec<InstrId>) -> InstrId {
        self.add_with(HloInstruction::new(String::new(), opcode, shape, operands))
    }

    /// Adds `instr` under a fresh name made from its op's name.
    pub fn add_with(&mut self, mut instr: HloInstruction) -> InstrId {
        instr.name = self.names.fresh(instr.opcode.name());
        self.editor.add(self.at, instr)
    }
}

/// The replacement for `id`, if a rule applies: an existing instruction or
/// one the rule added.
fn simplify(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    use Opcode::*;
    let op = cx.instr(id).opcode;
    let elementwise = |cx: &mut Rewriter<'_>| arith::sink_scalar_broadcasts(cx, id);
    match op {
        Add => arith::add(cx, id).or_else(|| elementwise(cx)),
        Subtract => arith::subtract(cx, id).or_else(|| elementwise(cx)),
        Multiply => arith::multiply(cx, id).or_else(|| elementwise(cx)),
        Divide => arith::divide(cx, id).or_else(|| elementwise(cx)),
        Negate => arith::negate(cx, id).or_else(|| elementwise(cx)),
        Not => arith::not(cx, id).or_else(|| elementwise(cx)),
        Select => arith::select(cx, id).or_else(|| elementwise(cx)),
        Convert => data_movement::convert(cx, id).or_else(|| elementwise(cx)),
        Bitcast => data_movement::bitcast(cx, id),
        Broadcast => data_movement::broadcast(cx, id),
        Concatenate => data_movement::concatenate(cx, id),
        Constant => data_movement::constant(cx, id),
        Copy => data_movement::copy(cx, id),
        CustomCall => data_movement::custom_call(cx, id),
        Dot => data_movement::dot(cx, id),
        GetTupleElement => data_movement::get_tuple_element(cx, id),
        Pad => data_movement::pad(cx, id),
        Reduce => data_movement::reduce(cx, id),
        Reshape => data_movement::reshape(cx, id),
        Slice => data_movement::slice(cx, id),
        Transpose => data_movement::transpose(cx, id),
        // Every other element-wise op only sinks scalar broadcasts.
        _ if op.family() == Family::Elementwise && op != BitcastConvert && op != Map => {
            elementwise(cx)
        }
        _ => None,
    }
}
