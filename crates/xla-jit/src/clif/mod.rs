//! Helpers for writing Cranelift IR, shared by the kernel emitters, the
//! math library and the dot engine: a per-function table of vector
//! constants, counted loops, and the 128-bit vector type of a lane type.

mod consts;
mod loops;

use cranelift_codegen::ir::Type;

pub use consts::ConstTable;
pub use loops::for_range;

/// The vector type of 128 bits holding lanes of `lane`: `f32` → `f32x4`.
pub fn vector_of(lane: Type) -> Type {
    lane.by(128 / lane.bits())
        .expect("lane type divides 128 bits")
}
