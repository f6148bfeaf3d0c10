//! The crate's error type.

/// Any error of `xla-jit`.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    // === host and Cranelift ===
    /// The host CPU or a Cranelift setting is not supported.
    #[error("unsupported host: {0}")]
    Host(String),
    /// A configuration value is out of its valid range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// Cranelift's module failed to declare, define or finalize code.
    #[error("cranelift: {0}")]
    Module(String),
    /// A generated function failed Cranelift's verifier (an internal bug);
    /// the report holds the annotated CLIF.
    #[error("internal error: function `{function}` failed the CLIF verifier:\n{report}")]
    Verifier {
        /// The function's name.
        function: String,
        /// The verifier's report with the function's CLIF.
        report: String,
    },

    // === kernels ===
    /// An instruction the kernel emitters cannot compile (the fusion
    /// planner leaves such instructions to the interpreter, so this is
    /// reached only with a plan made elsewhere).
    #[error("cannot compile {0}")]
    Unsupported(crate::emit::Unsupported),
    // === dot operands ===
    /// A dot operand's view reaches past the end of its buffer.
    #[error(
        "dot: {operand} {layout} reaches element {needed} but its buffer holds {len} elements"
    )]
    DotOutOfBounds {
        /// Which operand.
        operand: crate::dot::Operand,
        /// The view's layout.
        layout: crate::dot::MatrixLayout,
        /// The number of elements the view needs (largest offset + 1).
        needed: usize,
        /// The buffer's length in elements.
        len: usize,
    },
    /// The output view maps two elements to one memory location.
    #[error("dot: the output {layout} maps two elements to the same memory location")]
    DotOverlappingOutput {
        /// The output's layout.
        layout: crate::dot::MatrixLayout,
    },
    /// The sizes of the lhs, rhs and output do not agree.
    #[error(
        "dot: the {dimension} sizes disagree: operand 0 (lhs) [batch,m,k] = {lhs:?}, \
         operand 1 (rhs) [batch,k,n] = {rhs:?}, output [batch,m,n] = {out:?}"
    )]
    DotSizeMismatch {
        /// The dimension that disagrees: `batch`, `m`, `n` or `k`.
        dimension: &'static str,
        /// The lhs sizes `[batch, m, k]`.
        lhs: [usize; 3],
        /// The rhs sizes `[batch, k, n]`.
        rhs: [usize; 3],
        /// The output sizes `[batch, m, n]`.
        out: [usize; 3],
    },
}
