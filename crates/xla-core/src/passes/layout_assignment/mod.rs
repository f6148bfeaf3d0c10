//! Layout assignment: gives every array value an explicit layout, chosen so
//! that transposes and reshapes become bitcasts where possible, and inserts
//! `copy` instructions only where constraints conflict.
//!
//! # What is fixed
//!
//! Some layouts are part of the program's meaning and never change:
//!
//! * the entry computation's parameters and result: the module's
//!   `entry_computation_layout` (where it has none, the layouts written on
//!   the entry's parameters and root, default where absent);
//! * buffers seen outside the program: `custom-call` results (as written)
//!   and operands (`operand_layout_constraints`, else row-major), `infeed`
//!   and `recv` data, `outfeed` and `send` operands, collectives with
//!   `constrain_layout=true`;
//! * both sides of a `bitcast` already in the module (its meaning depends on
//!   them);
//! * the boundary of every other computation (parameters and root), which is
//!   row-major: the operands and results of `while`, `conditional`, `call`
//!   and `fusion` are row-major. XLA instead propagates layouts into called
//!   computations; after call inlining, this simplification costs a copy only
//!   where a non-row-major value crosses a loop or conditional boundary.
//!
//! On top of these, the backend states its own constraints through
//! [`LayoutConstraints`].
//!
//! # How the rest is chosen
//!
//! A simplified form of XLA's `LayoutAssignment`, in three sweeps over each
//! computation:
//!
//! 1. fixed layouts (above, and the backend's required result layouts);
//! 2. backwards, from the root to the parameters: every decided instruction
//!    asks its operands for layouts: required ones (fixed operand layouts,
//!    the backend's), else preferred ones (the backend's, else the generic
//!    rule below). An undecided instruction takes a required layout if one
//!    was asked for, else the backend's preferred result layout, else the
//!    layout most of its users prefer; with no requests it waits;
//! 3. forwards, for what is still undecided: the backend's preferred result
//!    layout, else the generic rule from the operands' layouts, else
//!    row-major.
//!
//! The generic rule keeps the physical element order across an instruction:
//! element-wise and other shape-preserving ops use their operands' layout, a
//! transpose permutes it (so it relabels the same bytes), a reshape takes a
//! layout under which it moves no byte if one exists, broadcasts and
//! reductions keep the relative order of the dimensions they carry over.
//! Finally, wherever an operand's layout differs from a *required* one, a
//! `copy` into the required layout is inserted (one per value and layout);
//! unmet preferences cost nothing but speed.
//!
//! The pass [`LayoutCleanup`] then turns transposes and reshapes that move
//! no byte into `bitcast`s.

mod assign;
mod cleanup;
mod physical;
mod rules;

pub use cleanup::LayoutCleanup;

use super::edit::{Editor, Names};
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{Attrs, HloInstruction, InstrId, Opcode, ProgramShape};
use crate::layout::Layout;
use crate::literal::LiteralError;
use crate::{ArrayShape, HloModule, Literal, Result, Shape};

/// How strongly a backend wants a layout.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum Constraint {
    /// No opinion: the generic rules decide.
    #[default]
    Free,
    /// This layout is best; another one works too.
    Prefer(Layout),
    /// Only this layout works: a value in another layout is copied first.
    Require(Layout),
}

/// A backend's layout constraints on array values.
///
/// Layout assignment asks about each array result and each array operand;
/// the default methods answer [`Constraint::Free`], which leaves the choice
/// to the generic rules (the module documentation). An interpreter, which
/// reads any layout, needs nothing more ([`Unconstrained`]).
///
/// What a Cranelift backend will likely answer:
///
/// | op                                  | operands                                   | result               |
/// |-------------------------------------|--------------------------------------------|----------------------|
/// | element-wise                        | free (the generic rule prefers the result's layout) | free        |
/// | `dot`                               | `Require(row-major)` only if not dense: the GEMM packs any strides | `Require(row-major)` |
/// | `reduce`                            | free: kernels read any layout              | free                 |
/// | custom-call, infeed, outfeed        | fixed by their shapes (not asked)          | fixed (not asked)    |
///
/// ```
/// use xla_core::hlo::{HloInstruction, Opcode};
/// use xla_core::layout::Layout;
/// use xla_core::passes::layout_assignment::{Constraint, LayoutConstraints};
/// use xla_core::{ArrayShape, Shape};
///
/// /// Dots write row-major results and read dense operands in any order.
/// struct Gemm;
///
/// impl LayoutConstraints for Gemm {
///     fn result_layout(&self, instr: &HloInstruction, _operands: &[&Shape]) -> Constraint {
///         match (instr.opcode, instr.shape.as_array()) {
///             (Opcode::Dot, Some(a)) => Constraint::Require(Layout::default_for_rank(a.rank())),
///             _ => Constraint::Free,
///         }
///     }
///
///     fn operand_layout(&self, instr: &HloInstruction, _k: usize, operand: &ArrayShape, _result: &Shape) -> Constraint {
///         let dense = operand.layout().is_none_or(Layout::is_dense);
///         if instr.opcode == Opcode::Dot && !dense {
///             Constraint::Require(Layout::default_for_rank(operand.rank()))
///         } else {
///             Constraint::Free
///         }
///     }
/// }
/// ```
pub trait LayoutConstraints {
    /// The layout the array result of `instr` should or must have, asked
    /// before its operands have layouts. `operands` are the operands'
    /// shapes (their layouts mean nothing yet).
    fn result_layout(&self, instr: &HloInstruction, operands: &[&Shape]) -> Constraint {
        let _ = (instr, operands);
        Constraint::Free
    }

    /// The layout operand `k` (an array) of `instr` should or must have,
    /// given the shape `result` chosen for `instr`. `operand` has the
    /// operand's layout once that is decided (for the final check that
    /// inserts copies) and none while it is not.
    fn operand_layout(
        &self,
        instr: &HloInstruction,
        k: usize,
        operand: &ArrayShape,
        result: &Shape,
    ) -> Constraint {
        let _ = (instr, k, operand, result);
        Constraint::Free
    }
}

/// A backend that reads and writes every layout (the interpreter).
#[derive(Copy, Clone, Debug, Default)]
pub struct Unconstrained;

impl LayoutConstraints for Unconstrained {}

/// The layout assignment pass (see the module documentation).
pub struct LayoutAssignment<'a> {
    constraints: &'a dyn LayoutConstraints,
}

impl<'a> LayoutAssignment<'a> {
    /// Layout assignment under a backend's constraints.
    pub fn new(constraints: &'a dyn LayoutConstraints) -> Self {
        LayoutAssignment { constraints }
    }
}

impl Pass for LayoutAssignment<'_> {
    const NAME: &'static str = "layout-assignment";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let effects = SideEffects::of(module);
        let mut names = Names::of(module);
        let entry = module.entry_program_shape();
        let entry = ProgramShape {
            parameters: entry
                .parameters
                .into_iter()
                .map(Shape::with_default_layouts)
                .collect(),
            result: entry.result.with_default_layouts(),
        };
        let mut changed = Changed::No;
        for id in module.computation_ids() {
            let computation = module.computation(id);
            let boundary = if id == module.entry {
                entry.clone()
            } else {
                let own = computation.program_shape();
                ProgramShape {
                    parameters: own.parameters.into_iter().map(row_major).collect(),
                    result: row_major(own.result),
                }
            };
            let plan = assign::assign(computation, &boundary, self.constraints)?;
            let mut editor = Editor::open(module, id);
            changed |= apply(&mut editor, plan, &mut names)?;
            changed |= editor.close(module, &effects);
        }
        Ok(changed)
    }
}

/// `shape` with the default (row-major) layout on every array leaf.
pub(super) fn row_major(shape: Shape) -> Shape {
    shape.with_row_major_layouts()
}

/// Writes a plan into the computation: new shapes (constants relaid out),
/// then copies.
fn apply(editor: &mut Editor, plan: assign::Plan, names: &mut Names) -> Result<Changed> {
    let mut changed = Changed::No;
    for (i, shape) in plan.shapes.into_iter().enumerate() {
        let id = InstrId(i as u32);
        if editor.instr(id).shape == shape {
            continue;
        }
        let instr = editor.instr_mut(id);
        if let Some(literal) = &instr.attrs.literal {
            instr.attrs.literal = Some(relayout(literal, &shape)?);
        }
        instr.shape = shape;
        changed = Changed::Yes;
    }
    let mut made: Vec<(InstrId, Shape, InstrId)> = Vec::new();
    for (user, k, target) in plan.copies {
        let operand = editor.instr(user).operands[k];
        let copy = copy_into(editor, names, &mut made, operand, &target, user);
        editor.instr_mut(user).operands[k] = copy;
        changed = Changed::Yes;
    }
    if let Some(target) = plan.root_copy {
        let root = editor.root();
        let copy = copy_into(editor, names, &mut made, root, &target, root);
        editor.set_root(copy);
        changed = Changed::Yes;
    }
    Ok(changed)
}

/// The value of `operand` in the layouts of `target`: an existing copy, a
/// new `copy`, or for a tuple, the tuple of its elements copied where their
/// layouts differ. `made` remembers the copies made so far, so that every
/// value is copied into a layout at most once.
fn copy_into(
    editor: &mut Editor,
    names: &mut Names,
    made: &mut Vec<(InstrId, Shape, InstrId)>,
    operand: InstrId,
    target: &Shape,
    before: InstrId,
) -> InstrId {
    let current = editor.instr(operand).shape.clone();
    if current.eq_with_layout(target) {
        return operand;
    }
    if let Some(&(_, _, copy)) = made
        .iter()
        .find(|(o, s, _)| *o == operand && s.eq_with_layout(target))
    {
        return copy;
    }
    let add = |editor: &mut Editor, names: &mut Names, opcode: Opcode, shape, operands, attrs| {
        let mut instr = HloInstruction::new(names.fresh(opcode.name()), opcode, shape, operands);
        instr.attrs = attrs;
        editor.add(before, instr)
    };
    let copy = match (&current, target) {
        (Shape::Tuple(elements), Shape::Tuple(targets)) => {
            let mut parts = Vec::with_capacity(elements.len());
            for (index, (element, element_target)) in elements.iter().zip(targets).enumerate() {
                let attrs = Attrs {
                    tuple_index: Some(index as i64),
                    ..Attrs::default()
                };
                let gte = Opcode::GetTupleElement;
                let part = add(editor, names, gte, element.clone(), vec![operand], attrs);
                parts.push(copy_into(editor, names, made, part, element_target, before));
            }
            let tuple = Opcode::Tuple;
            add(
                editor,
                names,
                tuple,
                target.clone(),
                parts,
                Attrs::default(),
            )
        }
        _ => {
            let copy = Opcode::Copy;
            add(
                editor,
                names,
                copy,
                target.clone(),
                vec![operand],
                Attrs::default(),
            )
        }
    };
    made.push((operand, target.clone(), copy));
    copy
}

/// `literal` laid out as `shape` says, leaf by leaf.
fn relayout(literal: &Literal, shape: &Shape) -> Result<Literal, LiteralError> {
    match shape {
        Shape::Array(a) => {
            let layout = a.layout_or_default();
            if literal.array_shape()?.layout_or_default() == layout {
                Ok(literal.clone())
            } else {
                literal.relayout(&layout)
            }
        }
        Shape::Tuple(shapes) => {
            let elements = literal.tuple_elements().unwrap_or_default();
            Ok(Literal::tuple(
                elements
                    .iter()
                    .zip(shapes)
                    .map(|(e, s)| relayout(e, s))
                    .collect::<Result<_, _>>()?,
            ))
        }
        Shape::Token | Shape::Opaque => Ok(literal.clone()),
    }
}
