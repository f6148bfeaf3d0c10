//! Transcendental ops: the bridge to the vectorized math library
//! [`crate::math`] (polynomial approximations on `f32x4`, `f64x2` and
//! scalars, no libm calls; accuracy measured and documented there: at most
//! about 1.2 ulp, except f32 exp, tanh and logistic, which use the faster
//! forms of [`Accuracy::Xla`] within XLA:CPU's own errors). The elementwise emitter flushes subnormal inputs and
//! results around these calls, as the project rule wants.

use cranelift_codegen::ir::{types, Type, Value};
use xla_core::hlo::HloInstruction;
use xla_core::PrimitiveType;

use super::kernel::KernelBuilder;
use super::ops::{op_of, Binary, Op, Unary};
use super::Unsupported;
use crate::math::{
    emit_binary, emit_unary, emit_unary_stage, unary_stages, Accuracy, BinaryFn, UnaryFn,
};

/// `true` if the kernels' form of `f` on `lane` (`F32` or `F64`) applies
/// the flush-to-zero rule itself, so the emitter need not flush around it.
pub(super) fn flushes_subnormals(f: UnaryFn, lane: Type) -> bool {
    crate::math::flushes_subnormals(f, Accuracy::Xla, lane)
}

/// Emits the transcendental `f` on a float register value: its remaining
/// stages if [`next_stage`] emitted the first ones.
pub(super) fn unary(kb: &mut KernelBuilder, f: UnaryFn, x: Value) -> Result<Value, Unsupported> {
    if let Some((mut stage, mut values)) = kb.take_staged(f, x) {
        while stage < unary_stages(f, Accuracy::Xla, kb.ty(x)) {
            values = emit_unary_stage(kb.b, &mut kb.consts, f, stage, x, &values);
            stage += 1;
        }
        return Ok(values[0]);
    }
    Ok(emit_unary(kb.b, &mut kb.consts, f, x, Accuracy::Xla))
}

/// How many stages [`next_stage`] emits `f` on values of type `ty` in (1:
/// the whole function at once).
pub(super) fn stages(f: UnaryFn, ty: Type) -> usize {
    unary_stages(f, Accuracy::Xla, ty)
}

/// The math function `instr` applies if the kernels emit it in stages (on
/// f32 elements, in f32x4 vectors; see [`crate::math::unary_stages`]).
pub(super) fn staged(instr: &HloInstruction) -> Option<UnaryFn> {
    match op_of(instr.opcode) {
        Op::Unary(Unary::Math(f))
            if instr.shape.element_type() == Some(PrimitiveType::F32)
                && stages(f, types::F32X4) > 1 =>
        {
            Some(f)
        }
        _ => None,
    }
}

/// Emits the next stage of `f(x)` (the first if none was emitted); the
/// caller leaves the last one to [`unary`]. Orders the stage's code before
/// the code emitted next ([`KernelBuilder::order_before_next`]). Nothing is
/// emitted for an `x` of a type `f` has no stages on.
pub(super) fn next_stage(kb: &mut KernelBuilder, f: UnaryFn, x: Value) {
    if unary_stages(f, Accuracy::Xla, kb.ty(x)) < 2 {
        return;
    }
    let (stage, values) = kb.take_staged(f, x).unwrap_or((0, Vec::new()));
    let values = emit_unary_stage(kb.b, &mut kb.consts, f, stage, x, &values);
    kb.order_before_next(*values.last().expect("a stage returns values"));
    kb.put_staged(f, x, stage + 1, values);
}

/// Emits the binary transcendental `op` (power, atan2) on float values.
pub(super) fn binary(
    kb: &mut KernelBuilder,
    op: Binary,
    x: Value,
    y: Value,
) -> Result<Value, Unsupported> {
    let f = match op {
        Binary::Power => BinaryFn::Pow,
        Binary::Atan2 => BinaryFn::Atan2,
        Binary::Add
        | Binary::Subtract
        | Binary::Multiply
        | Binary::Divide
        | Binary::Remainder
        | Binary::Maximum
        | Binary::Minimum
        | Binary::And
        | Binary::Or
        | Binary::Xor
        | Binary::ShiftLeft
        | Binary::ShiftRightLogical
        | Binary::ShiftRightArithmetic => {
            return Err(Unsupported::layout(format!(
                "{op:?} is not a math function"
            )))
        }
    };
    Ok(emit_binary(kb.b, &mut kb.consts, f, x, y))
}
