//! The crate's error type.

use std::fmt;

use xla_core::interp::InterpError;
use xla_core::Opcode;

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
    Unsupported(Unsupported),

    // === dot operands ===
    /// A dot operand's view reaches past the end of its buffer.
    #[error(
        "dot: {operand} {layout} reaches element {needed} but its buffer holds {len} elements"
    )]
    DotOutOfBounds {
        /// Which operand (`operand 1 (rhs)`).
        operand: String,
        /// The view's layout, as the dot engine prints it.
        layout: String,
        /// The number of elements the view needs (largest offset + 1).
        needed: usize,
        /// The buffer's length in elements.
        len: usize,
    },
    /// The output view maps two elements to one memory location.
    #[error("dot: the output {layout} maps two elements to the same memory location")]
    DotOverlappingOutput {
        /// The output's layout, as the dot engine prints it.
        layout: String,
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

    // === compiling and running modules ===
    /// The module or a literal was rejected by xla-core (verifier, layout,
    /// literal access).
    #[error(transparent)]
    Core(#[from] xla_core::Error),
    /// The reference interpreter failed on an instruction the JIT runs
    /// through it (its stops convert to [`JitError::Stopped`]).
    #[error(transparent)]
    Interp(InterpError),
    /// The run was cancelled or passed its deadline
    /// ([`ExecuteOptions::cancel`](crate::ExecuteOptions::cancel)).
    #[error(transparent)]
    Stopped(#[from] xla_core::Stopped),
    /// The system refused the memory for a buffer.
    #[error("cannot allocate {bytes} bytes for {what}")]
    OutOfMemory {
        /// What the buffer holds.
        what: String,
        /// Its size.
        bytes: usize,
    },
    /// A buffer, or all of a program's buffers together, larger than a
    /// process can address (its byte size does not fit `isize`).
    #[error(
        "{what} needs more bytes than a process can address ({} at most)",
        isize::MAX
    )]
    BeyondAddressSpace {
        /// The buffer: `instruction i (c64[…])`, `parameter 0 (…)`, `the
        /// result (…)`, or `the instructions' buffers together`.
        what: String,
    },
    /// MPI refused a run across processes, or one of its calls failed
    /// (the `mpi` feature).
    #[error("MPI: {0}")]
    Mpi(String),
    /// A multi-device run with the wrong number of argument lists.
    #[error("the run has {expected} devices, but {actual} argument lists were given")]
    DeviceCount {
        /// Devices of the run.
        expected: usize,
        /// Argument lists given.
        actual: usize,
    },
    /// A multi-device run of a program in which an instruction that reaches
    /// other devices runs through the interpreter fallback, which runs one
    /// device (the whole module can run on the interpreter instead).
    #[error(
        "{instruction} ({opcode}) runs through the interpreter fallback, which cannot reach \
         the other devices of a run on {devices} devices"
    )]
    NotOnDevices {
        /// The instruction.
        instruction: String,
        /// Its op.
        opcode: Opcode,
        /// Devices of the run.
        devices: usize,
    },
    /// The wrong number of arguments.
    #[error("the entry computation takes {expected} arguments, but {actual} were given")]
    ArgumentCount {
        /// Parameters of the entry computation.
        expected: usize,
        /// Arguments given.
        actual: usize,
    },
    /// An argument whose shape does not match its parameter (layouts may
    /// differ: such an argument is relaid).
    #[error("argument {index} has shape {actual}, but parameter {index} ({name}) is {expected}")]
    ArgumentShape {
        /// The parameter number.
        index: usize,
        /// The parameter instruction's name.
        name: String,
        /// The parameter's shape.
        expected: Box<xla_core::Shape>,
        /// The argument's shape.
        actual: Box<xla_core::Shape>,
    },
    /// `execute_into` got the wrong number of output literals.
    #[error("the result has {expected} leaves (one output literal each), but {actual} outputs were given")]
    OutputCount {
        /// Leaves of the result.
        expected: usize,
        /// Output literals given.
        actual: usize,
    },
    /// An output literal whose shape (with layout) is not the result leaf's.
    #[error("output {index} has shape {actual}, but result leaf {index} is {expected}")]
    OutputShape {
        /// The leaf number.
        index: usize,
        /// The result leaf's shape.
        expected: Box<xla_core::Shape>,
        /// The output literal's shape.
        actual: Box<xla_core::Shape>,
    },
}

/// `?` on xla-core's area errors inside the runtime.
macro_rules! from_core {
    ($($error:ty),*) => {$(
        impl From<$error> for JitError {
            fn from(e: $error) -> Self {
                JitError::Core(e.into())
            }
        }
    )*};
}

from_core!(
    xla_core::literal::LiteralError,
    xla_core::layout::LayoutError,
    xla_core::verify::VerifyError
);

impl From<InterpError> for JitError {
    fn from(e: InterpError) -> Self {
        match e {
            InterpError::Stopped(stopped) => JitError::Stopped(stopped),
            e => JitError::Interp(e),
        }
    }
}

/// Something the emitters cannot compile; the planner leaves such
/// instructions to the interpreter.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unsupported {
    /// The op, if the limitation is an op's.
    pub op: Option<Opcode>,
    /// What is missing.
    pub what: String,
}

impl Unsupported {
    /// `op` cannot be compiled because of `what`.
    pub fn new(op: Opcode, what: impl Into<String>) -> Self {
        Unsupported {
            op: Some(op),
            what: what.into(),
        }
    }

    /// A layout the kernels cannot address.
    pub fn layout(what: impl Into<String>) -> Self {
        Unsupported {
            op: None,
            what: what.into(),
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Some(op) => write!(f, "{op}: {}", self.what),
            None => f.write_str(&self.what),
        }
    }
}
