//! A pure-Rust XLA.
//!
//! Tensor computations come in through four doors — the [`xla!`] macro, the
//! [`XlaBuilder`](xla_core) API, HLO text as JAX prints it, and the `xla`
//! command-line tool — and become one [`HloModule`]. The core infers shapes
//! and assigns layouts; a reference interpreter gives exact semantics; a
//! Cranelift JIT compiles fused, vectorized kernels.
//!
//! ```
//! use xla::Shape;
//! let shape: Shape = "f32[2,3]{0,1}".parse()?;
//! assert_eq!(shape.to_string(), "f32[2,3]{0,1}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod dsl;

pub use xla_core::*;
pub use xla_core::{hlo, layout, literal, shape, text};
pub use xla_jit::{Client, CompileOptions, Executable, ExecuteOptions, JitError};
pub use xla_macros::xla;

/// The names a program using the [`xla!`] macro needs.
pub mod prelude {
    pub use crate::dsl::{default_backend, Backend, DslError};
    pub use crate::xla;
    pub use xla_core::interp::Interpreter;
    pub use xla_core::{Literal, PrimitiveType, Shape, XlaBuilder, XlaComputation, XlaOp};
    pub use xla_jit::Client;
}
