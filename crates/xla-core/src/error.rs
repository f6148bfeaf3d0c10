//! The crate's error type.
//!
//! Each area keeps its own typed error enum next to its code (so that the
//! inference rules, which the `xla!` macro reuses with symbolic sizes, stay
//! self-contained); `Error` gathers them for callers.

use crate::builder::BuilderError;
use crate::hlo::VerifyError;
use crate::infer::InferError;
use crate::io::IoError;
use crate::layout::LayoutError;
use crate::literal::LiteralError;
use crate::passes::PassError;
use crate::text::ParseError;

/// Any error of `xla-core`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // === text ===
    /// Malformed text (shape, literal or HLO module).
    #[error("{0}")]
    Parse(#[from] ParseError),

    // === shapes and literals ===
    /// A layout that does not fit its shape.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A literal used in a way its shape does not allow.
    #[error(transparent)]
    Literal(#[from] LiteralError),

    // === shape inference ===
    /// An op whose operands or attributes break its shape rule.
    #[error(transparent)]
    Infer(#[from] InferError<i64>),

    // === array files ===
    /// A `.npy` or safetensors file that could not be read or written.
    #[error(transparent)]
    Io(#[from] IoError),

    // === builder ===
    /// A mistake in using the `XlaBuilder` itself.
    #[error(transparent)]
    Builder(#[from] BuilderError),

    // === verifier ===
    /// A module that breaks an invariant of the IR.
    #[error(transparent)]
    Verify(#[from] VerifyError),

    // === passes ===
    /// A pass that could not run, or that broke the module.
    #[error(transparent)]
    Pass(#[from] PassError),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
