//! Transcendental ops: the bridge from HLO opcodes to the vectorized math
//! library `crate::math`.
//!
//! Until that library is part of the crate, [`available`] is `false` for
//! every op, so the planner leaves these ops to the interpreter (reported
//! as fallbacks) and the emitters never reach [`unary`] or [`binary`].

use cranelift_codegen::ir::Value;
use xla_core::Opcode;

use super::kernel::KernelBuilder;
use super::Unsupported;

/// `true` if the math library emits `op`.
pub(super) fn available(op: Opcode) -> bool {
    let _ = op;
    false
}

/// Emits the unary transcendental `op` on a float register value.
pub(super) fn unary(kb: &mut KernelBuilder, op: Opcode, x: Value) -> Result<Value, Unsupported> {
    let _ = (kb, x);
    Err(Unsupported::new(
        op,
        "the vectorized math library is not available",
    ))
}

/// Emits the binary transcendental `op` (power, atan2).
pub(super) fn binary(
    kb: &mut KernelBuilder,
    op: Opcode,
    x: Value,
    y: Value,
) -> Result<Value, Unsupported> {
    let _ = (kb, x, y);
    Err(Unsupported::new(
        op,
        "the vectorized math library is not available",
    ))
}
