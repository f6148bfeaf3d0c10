//! Calls of element-wise scalar computations, expanded before
//! differentiation so that the element-wise rules give their gradients:
//!
//! - a `map` becomes its computation's instructions applied to whole
//!   arrays;
//! - a cumulative reduction whose combiner is not one op
//!   (`lax.cumlogsumexp` combines with a `logaddexp` of several
//!   instructions) becomes `⌈log₂ n⌉` steps that combine the array with a
//!   copy of itself shifted by 1, 2, 4, … along the scanned dimension (a
//!   Hillis–Steele scan), the combiner applied element by element; the
//!   window's initial value fills the shifted-in places, so it is assumed
//!   neutral for the combiner, as a cumulative reduction's is.

use crate::hlo::{
    ComputationId, Form, HloComputation, HloInstruction, HloModule, InstrId, Opcode, PadDim,
    SliceDim,
};
use crate::passes::edit::{Editor, Names};
use crate::passes::effects::SideEffects;
use crate::{ArrayShape, Shape};

/// Rewrites every such call of the module.
pub(super) fn expand_elementwise_calls(module: &mut HloModule) {
    let effects = SideEffects::of(module);
    let mut names = Names::of(module);
    for c in 0..module.computations.len() {
        let id = ComputationId(c as u32);
        let comp = module.computation(id);
        let calls: Vec<InstrId> = comp
            .ids()
            .filter(|&i| expandable(module, comp, i))
            .collect();
        if calls.is_empty() {
            continue;
        }
        let mut editor = Editor::open(module, id);
        for call in calls {
            let instr = editor.instr(call).clone();
            let callee = module.computation(instr.called[0]).clone();
            let shape = instr.shape.as_array().cloned().expect("checked: an array");
            let new = match instr.opcode {
                Opcode::Map => {
                    let mut add = adder(&mut names, call);
                    apply(&mut editor, &mut add, &callee, &shape, &instr.operands)
                }
                _ => expand(&mut editor, &mut names, call, &callee),
            };
            editor.replace(call, new);
        }
        let _ = editor.close(module, &effects);
    }
}

/// Whether instruction `id` is a `map`, or a cumulative reduce-window of
/// one operand whose combiner is not a single op, calling an element-wise
/// scalar computation.
fn expandable(module: &HloModule, comp: &HloComputation, id: InstrId) -> bool {
    let instr = comp.instr(id);
    let Some(shape) = instr.shape.as_array() else {
        return false;
    };
    let callee = || module.computation(instr.called[0]);
    let scan = || {
        (instr.attrs.window.as_ref())
            .is_some_and(|w| instr.operands.len() == 2 && w.scan_dim(shape.dims()).is_some())
            && callee().binary_of_parameters().is_none()
    };
    let candidate = match instr.opcode {
        Opcode::Map => true,
        Opcode::ReduceWindow => scan(),
        _ => false,
    };
    candidate
        && callee().instructions.iter().all(|i| {
            i.called.is_empty()
                && (matches!(i.opcode, Opcode::Parameter | Opcode::Constant)
                    || elementwise(i.opcode))
        })
}

/// A function adding an instruction before `at` under a fresh name.
fn adder<'n>(
    names: &'n mut Names,
    at: InstrId,
) -> impl FnMut(&mut Editor, &str, Opcode, Shape, Vec<InstrId>) -> InstrId + 'n {
    move |editor: &mut Editor, base: &str, opcode: Opcode, shape: Shape, operands: Vec<InstrId>| {
        let name = names.fresh(base);
        editor.add(at, HloInstruction::new(name, opcode, shape, operands))
    }
}

/// Ops that apply to arrays element by element as they do to scalars.
fn elementwise(op: Opcode) -> bool {
    matches!(op.form(), Form::Unary(..) | Form::Binary(..))
        || matches!(
            op,
            Opcode::Compare | Opcode::Select | Opcode::Clamp | Opcode::Convert
        )
}

/// The expansion of scan `scan` (its replacement).
fn expand(
    editor: &mut Editor,
    names: &mut Names,
    scan: InstrId,
    combiner: &HloComputation,
) -> InstrId {
    let instr = editor.instr(scan).clone();
    let shape = instr.shape.as_array().cloned().expect("checked: an array");
    let window = instr.attrs.window.clone().expect("checked: a window");
    let plan = window.scan_dim(shape.dims()).expect("checked: a scan");
    let (x, init) = (instr.operands[0], instr.operands[1]);
    let n = shape.dims()[plan.dim];
    let mut add = adder(names, scan);
    let mut y = x;
    let mut step = 1;
    while step < n {
        // The values `step` places earlier (later, for a reverse scan),
        // the initial value where there are none.
        let mut slice: Vec<SliceDim> = shape
            .dims()
            .iter()
            .map(|&d| SliceDim {
                start: 0,
                limit: d,
                stride: 1,
            })
            .collect();
        let mut padding = vec![PadDim::default(); shape.rank()];
        if plan.reverse {
            slice[plan.dim].start = step;
            padding[plan.dim].high = step;
        } else {
            slice[plan.dim].limit = n - step;
            padding[plan.dim].low = step;
        }
        let mut part_dims = shape.dims().to_vec();
        part_dims[plan.dim] = n - step;
        let part_shape = Shape::Array(ArrayShape::new(shape.element_type(), part_dims));
        let cut = add(editor, "scan_slice", Opcode::Slice, part_shape, vec![y]);
        editor.instr_mut(cut).attrs.slice = Some(slice);
        let shifted = add(
            editor,
            "scan_shift",
            Opcode::Pad,
            Shape::Array(shape.clone()),
            vec![cut, init],
        );
        editor.instr_mut(shifted).attrs.padding = Some(padding);
        let (first, second) = if plan.reverse {
            (y, shifted)
        } else {
            (shifted, y)
        };
        y = apply(editor, &mut add, combiner, &shape, &[first, second]);
        step *= 2;
    }
    y
}

/// The scalar computation `combiner` applied element by element to `args`
/// (arrays of `shape`'s dimensions).
fn apply(
    editor: &mut Editor,
    add: &mut impl FnMut(&mut Editor, &str, Opcode, Shape, Vec<InstrId>) -> InstrId,
    combiner: &HloComputation,
    shape: &ArrayShape,
    args: &[InstrId],
) -> InstrId {
    let mut values = Vec::with_capacity(combiner.instructions.len());
    for instr in &combiner.instructions {
        let ty = instr.shape.element_type().unwrap_or(shape.element_type());
        let array = Shape::Array(ArrayShape::new(ty, shape.dims().to_vec()));
        let value = match instr.opcode {
            Opcode::Parameter => args[instr.attrs.parameter_number.unwrap_or(0) as usize],
            Opcode::Constant => {
                let scalar = add(
                    editor,
                    &instr.name,
                    Opcode::Constant,
                    instr.shape.clone(),
                    vec![],
                );
                editor.instr_mut(scalar).attrs.literal = instr.attrs.literal.clone();
                let spread = add(editor, "broadcast", Opcode::Broadcast, array, vec![scalar]);
                editor.instr_mut(spread).attrs.dimensions = Some(Vec::new());
                spread
            }
            _ => {
                let operands = instr.operands.iter().map(|o| values[o.index()]).collect();
                let new = add(editor, &instr.name, instr.opcode, array, operands);
                editor.instr_mut(new).attrs = instr.attrs.clone();
                new
            }
        };
        values.push(value);
    }
    values[combiner.root.index()]
}
