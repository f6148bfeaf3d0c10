//! Transcendental ops: the bridge from HLO opcodes to the vectorized math
//! library `crate::math`.
//!
//! Until that library is part of the crate, [`AVAILABLE`] is `false`, so
//! the planner leaves these ops to the interpreter (reported as fallbacks)
//! and the emitters never reach [`unary`] or [`binary`].

use cranelift_codegen::ir::Value;

use super::kernel::KernelBuilder;
use super::ops::{Binary, MathUnary};
use super::Unsupported;

/// `true` if the math library is there to emit transcendentals.
pub(super) const AVAILABLE: bool = false;

/// Emits the transcendental `f` on a float register value.
pub(super) fn unary(kb: &mut KernelBuilder, f: MathUnary, x: Value) -> Result<Value, Unsupported> {
    let _ = (kb, x);
    Err(Unsupported::layout(format!(
        "{f:?}: the vectorized math library is not available"
    )))
}

/// Emits the binary transcendental `op` (power, atan2) on float values.
pub(super) fn binary(
    kb: &mut KernelBuilder,
    op: Binary,
    x: Value,
    y: Value,
) -> Result<Value, Unsupported> {
    let _ = (kb, x, y);
    Err(Unsupported::layout(format!(
        "{op:?}: the vectorized math library is not available"
    )))
}
