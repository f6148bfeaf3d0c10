//! The crate's error type.

/// Any error of `xla-jit`.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    // === host and Cranelift ===
    /// The host CPU or a Cranelift setting is not supported.
    #[error("unsupported host: {0}")]
    Host(String),
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
}
