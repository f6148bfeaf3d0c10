//! Rules for arithmetic, logic and selection.

use super::splat::Splat;
use super::Rewriter;
use crate::hlo::{InstrId, Opcode};
use crate::{PrimitiveType, Shape};

/// The operand that is not the splat `which`, if operand `k` of a binary op
/// is one: `(x, k)` for `op(x, c)` when `k = 1`.
fn other_if(
    cx: &Rewriter<'_>,
    id: InstrId,
    k: usize,
    which: impl Fn(&Splat) -> bool,
) -> Option<InstrId> {
    let splat = Splat::of(cx, cx.operand(id, k))?;
    which(&splat).then(|| cx.operand(id, 1 - k))
}

fn element_type(cx: &Rewriter<'_>, id: InstrId) -> PrimitiveType {
    cx.instr(id)
        .shape
        .element_type()
        .expect("arithmetic has an array result")
}

/// `x + 0 → x` and `0 + x → x`.
///
/// Integers: any zero. Floats: only `-0`, the identity of IEEE addition:
/// `x + +0` turns `x = -0` into `+0`, so it stays (XLA drops it and loses
/// the sign of zero). Complex: never (the zero would have to be `(-0, -0)`).
pub(super) fn add(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let ty = element_type(cx, id);
    let is_identity = |s: &Splat| {
        if ty.is_integral() {
            s.is_zero()
        } else {
            s.is_negative_zero()
        }
    };
    other_if(cx, id, 1, is_identity).or_else(|| other_if(cx, id, 0, is_identity))
}

/// `x - 0 → x`.
///
/// Integers: any zero. Floats: only `+0` (`x - +0` keeps the sign of every
/// `x`; `-0 - -0` is `+0`). Complex: never.
pub(super) fn subtract(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let ty = element_type(cx, id);
    let real = ty.is_integral() || ty.is_floating();
    other_if(cx, id, 1, |s| real && s.is_zero())
}

/// `x * 1 → x`, `1 * x → x`, and for integers `x * 0 → 0`, `0 * x → 0`.
///
/// `x * 1` holds for integers and floats (including NaN, ±inf and -0;
/// subnormals: see the module docs). Complex: never (`(a+bi)(1+0i)` computes
/// `b * 0`, which is NaN for an infinite `b`). `x * 0` holds only for
/// integers: for floats `inf * 0` and `NaN * 0` are NaN and `-1 * 0` is -0.
pub(super) fn multiply(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let ty = element_type(cx, id);
    let real = ty.is_integral() || ty.is_floating();
    let by_one = |s: &Splat| real && s.is_one();
    if let Some(x) = other_if(cx, id, 1, by_one).or_else(|| other_if(cx, id, 0, by_one)) {
        return Some(x);
    }
    if ty.is_integral() {
        // The zero operand has the result's shape already.
        for k in 0..2 {
            let zero = cx.operand(id, k);
            if Splat::of(cx, zero).is_some_and(|s| s.is_zero()) {
                return Some(zero);
            }
        }
    }
    None
}

/// `x / 1 → x` for integers and floats (subnormals: see the module docs).
/// Complex: never (complex division scales by the divisor's magnitude).
pub(super) fn divide(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let ty = element_type(cx, id);
    let real = ty.is_integral() || ty.is_floating();
    other_if(cx, id, 1, |s| real && s.is_one())
}

/// `-(-x) → x`, for every type: negation flips the sign bit of floats
/// (NaN payloads and subnormals included) and wraps integers
/// (`-(-MIN) = MIN`).
pub(super) fn negate(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let inner = cx.operand_instr(id, 0);
    (inner.opcode == Opcode::Negate).then(|| cx.operand(cx.operand(id, 0), 0))
}

/// `not(not(x)) → x`, for pred (logical) and integers (bitwise).
pub(super) fn not(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let inner = cx.operand_instr(id, 0);
    (inner.opcode == Opcode::Not).then(|| cx.operand(cx.operand(id, 0), 0))
}

/// `select(true, a, b) → a`, `select(false, a, b) → b` (the predicate a
/// constant, or a broadcast of one, with all elements equal),
/// `select(p, a, a) → a`, and for pred values `select(p, true, false) → p`
/// and `select(p, false, true) → not(p)` (a mask written as a select, as
/// JAX's `jnp.where(mask, True, False)` is).
pub(super) fn select(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let (p, on_true, on_false) = (cx.operand(id, 0), cx.operand(id, 1), cx.operand(id, 2));
    if on_true == on_false {
        return Some(on_true);
    }
    if let Some(pred) = Splat::of(cx, p).and_then(|s| s.as_pred()) {
        return Some(if pred { on_true } else { on_false });
    }
    let shape = cx.instr(id).shape.clone();
    if cx.instr(p).shape != shape {
        return None;
    }
    let splat = |cx: &Rewriter<'_>, k: InstrId| Splat::of(cx, k).and_then(|s| s.as_pred());
    match (splat(cx, on_true)?, splat(cx, on_false)?) {
        (true, false) => Some(p),
        (false, true) => Some(cx.add(Opcode::Not, shape, vec![p])),
        _ => None,
    }
}

/// `op(broadcast(a), broadcast(b)) → broadcast(op(a, b))` for an
/// element-wise op whose array operands are all broadcasts of scalars
/// (scalar operands, e.g. of `clamp`, may appear as they are): the op then
/// runs once instead of once per element, and constant folding can fold the
/// scalar op when `a` and `b` are constants. Exact for every op, since an
/// element-wise op computes each element from the operands' elements at the
/// same index alone.
pub(super) fn sink_scalar_broadcasts(cx: &mut Rewriter<'_>, id: InstrId) -> Option<InstrId> {
    let instr = cx.instr(id);
    let Shape::Array(result) = &instr.shape else {
        return None;
    };
    if result.rank() == 0 || instr.operands.is_empty() {
        return None;
    }
    let mut scalars = Vec::with_capacity(instr.operands.len());
    for k in 0..instr.operands.len() {
        let operand = cx.operand_instr(id, k);
        let rank = operand.shape.as_array().map(|a| a.rank());
        let scalar = match (operand.opcode, rank) {
            (_, Some(0)) => cx.operand(id, k),
            (Opcode::Broadcast, Some(_)) => {
                let source = cx.operand(cx.operand(id, k), 0);
                cx.instr(source)
                    .shape
                    .as_array()?
                    .rank()
                    .eq(&0)
                    .then_some(source)?
            }
            _ => return None,
        };
        scalars.push(scalar);
    }
    let element_type = result.element_type();
    let result = instr.shape.clone();
    let mut scalar_op = instr.clone();
    scalar_op.shape = Shape::scalar(element_type);
    scalar_op.operands = scalars;
    let scalar = cx.add_with(scalar_op);
    let mut broadcast =
        crate::hlo::HloInstruction::new(String::new(), Opcode::Broadcast, result, vec![scalar]);
    broadcast.attrs.dimensions = Some(Vec::new());
    Some(cx.add_with(broadcast))
}
