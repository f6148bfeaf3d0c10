//! The error type of passes and layout assignment.

use crate::hlo::VerifyError;
use crate::layout::LayoutError;
use crate::Shape;

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
