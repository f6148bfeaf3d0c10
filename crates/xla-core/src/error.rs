//! The crate's error type.
//!
//! Each area keeps its own typed error enum next to its code (so that the
//! inference rules, which the `xla!` macro reuses with symbolic sizes, stay
//! self-contained); `Error` gathers them for callers. The builder's and the
//! passes' own errors are defined here (and re-exported there), since those
//! areas return `Error` itself.

use crate::infer::InferError;
use crate::io::IoError;
use crate::layout::LayoutError;
use crate::literal::LiteralError;
use crate::text::ParseError;
use crate::verify::VerifyError;
use crate::Shape;

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

    // === differentiation ===
    /// A module that cannot be differentiated as asked.
    #[error(transparent)]
    Grad(#[from] GradError),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Mistakes in using the builder itself (shape mistakes are
/// [`InferError`](crate::infer::InferError)s).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuilderError {
    /// An operand built by another builder.
    #[error("{method}: operand {index} was built by another XlaBuilder, not by `{builder}`")]
    ForeignOp {
        /// The method called.
        method: &'static str,
        /// The operand's position in the call.
        index: usize,
        /// This builder's name.
        builder: String,
    },
    /// A parameter number used twice.
    #[error("parameter: number {number} is already taken by {existing} in `{builder}`")]
    ParameterReused {
        /// The number.
        number: i64,
        /// The parameter that has it.
        existing: String,
        /// This builder's name.
        builder: String,
    },
    /// A negative parameter number.
    #[error("parameter: number {number} is negative")]
    NegativeParameter {
        /// The number.
        number: i64,
    },
}

/// A pass that could not run, or that left the module invalid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PassError {
    /// The module handed to the pipeline does not verify; passes assume a
    /// well-formed module.
    #[error("the module to optimize is invalid: {0}")]
    InvalidInput(Box<VerifyError>),
    /// A pass broke an invariant of the IR (a bug in the pass).
    #[error("after {pass}: {source}")]
    Verify {
        /// The pass that ran last.
        pass: &'static str,
        /// What the verifier found.
        source: Box<VerifyError>,
    },
    /// A backend's layout constraint that does not fit the value it
    /// constrains.
    #[error("layout assignment: the backend's layout for {what} of instruction {instruction} ({shape}) is invalid: {source}")]
    InvalidConstraint {
        /// The constrained instruction.
        instruction: String,
        /// `the result` or `operand 1`.
        what: String,
        /// The shape of the constrained value.
        shape: Box<Shape>,
        /// Why the layout does not fit.
        source: Box<LayoutError>,
    },
}

/// Why a module cannot be differentiated as asked
/// ([`crate::autodiff`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GradError {
    /// `grad` of a result that is not a floating-point scalar.
    #[error("grad needs a floating-point scalar result; the entry returns {shape} (use vjp for other results)")]
    NotScalar {
        /// The entry's result shape.
        shape: Shape,
    },
    /// A parameter number the entry does not have.
    #[error(
        "there is no parameter {number} to differentiate with respect to: the entry has {count}"
    )]
    NoParameter {
        /// The number asked for.
        number: usize,
        /// How many parameters the entry has.
        count: usize,
    },
    /// A parameter that is not a floating-point array.
    #[error("parameter {number} is {shape}: only floating-point arrays are differentiated")]
    NotFloating {
        /// The parameter's number.
        number: usize,
        /// Its shape.
        shape: Shape,
    },
    /// An instruction on the path from a differentiated parameter to the
    /// result that has no gradient rule.
    #[error("cannot differentiate {instruction} ({opcode}): {reason}")]
    NoRule {
        /// The instruction's name.
        instruction: String,
        /// Its opcode.
        opcode: &'static str,
        /// Why.
        reason: &'static str,
    },
}
