//! Transcendental ops: the bridge to the vectorized math library
//! [`crate::math`] (polynomial approximations on `f32x4`, `f64x2` and
//! scalars, no libm calls; accuracy measured and documented there: at most
//! about 1.2 ulp, except f32 exp, tanh and logistic, which use the faster
//! forms of [`Accuracy::Xla`] within XLA:CPU's own errors). The elementwise emitter flushes subnormal inputs and
//! results around these calls, as the project rule wants.

use cranelift_codegen::ir::{Type, Value};

use super::kernel::KernelBuilder;
use super::ops::{Binary, MathUnary};
use super::Unsupported;
use crate::math::{emit_binary, emit_unary, Accuracy, BinaryFn, UnaryFn};

/// The math library's function for `f`.
fn unary_fn(f: MathUnary) -> UnaryFn {
    match f {
        MathUnary::Exp => UnaryFn::Exp,
        MathUnary::Expm1 => UnaryFn::Expm1,
        MathUnary::Log => UnaryFn::Log,
        MathUnary::Log1p => UnaryFn::Log1p,
        MathUnary::Logistic => UnaryFn::Logistic,
        MathUnary::Tanh => UnaryFn::Tanh,
        MathUnary::Erf => UnaryFn::Erf,
        MathUnary::Sin => UnaryFn::Sin,
        MathUnary::Cos => UnaryFn::Cos,
        MathUnary::Tan => UnaryFn::Tan,
        MathUnary::Cbrt => UnaryFn::Cbrt,
    }
}

/// `true` if the kernels' form of `f` on `lane` (`F32` or `F64`) applies
/// the flush-to-zero rule itself, so the emitter need not flush around it.
pub(super) fn flushes_subnormals(f: MathUnary, lane: Type) -> bool {
    crate::math::flushes_subnormals(unary_fn(f), Accuracy::Xla, lane)
}

/// Emits the transcendental `f` on a float register value.
pub(super) fn unary(kb: &mut KernelBuilder, f: MathUnary, x: Value) -> Result<Value, Unsupported> {
    Ok(emit_unary(
        kb.b,
        &mut kb.consts,
        unary_fn(f),
        x,
        Accuracy::Xla,
    ))
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
