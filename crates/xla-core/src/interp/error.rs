//! The interpreter's error type.

use crate::hlo::Opcode;
use crate::infer::InferError;
use crate::literal::LiteralError;
use crate::Shape;

/// An error while evaluating a module.
#[derive(Debug, thiserror::Error)]
pub enum InterpError {
    // === arguments ===
    /// The wrong number of arguments for the entry computation.
    #[error("the entry computation takes {expected} arguments, but {actual} were given")]
    ArgumentCount {
        /// Parameters of the entry computation.
        expected: usize,
        /// Arguments given.
        actual: usize,
    },
    /// An argument whose shape does not match its parameter (layouts ignored).
    #[error("argument {index} has shape {actual}, but parameter {index} ({name}) is {expected}")]
    ArgumentShape {
        /// The parameter number.
        index: usize,
        /// The parameter instruction's name.
        name: String,
        /// The parameter's shape (boxed: keeps the error small).
        expected: Box<Shape>,
        /// The argument's shape.
        actual: Box<Shape>,
    },

    /// A device assignment without devices.
    #[error("a run needs at least one replica and one partition, not {replicas} × {partitions}")]
    NoDevices {
        /// Replicas asked for.
        replicas: usize,
        /// Partitions asked for.
        partitions: usize,
    },
    /// A device assignment with more devices than a run has (one thread
    /// each, on the interpreter and the JIT alike).
    #[error(
        "a run on {replicas} × {partitions} devices is beyond the {max} one run can have \
         (one thread per device)"
    )]
    TooManyDevices {
        /// Replicas asked for.
        replicas: usize,
        /// Partitions asked for.
        partitions: usize,
        /// [`MAX_DEVICES`](super::MAX_DEVICES).
        max: usize,
    },
    /// The system refused a device's thread (too little memory for its
    /// stack, too many threads).
    #[error("cannot start the thread of device {device}: {message}")]
    DeviceThread {
        /// The device.
        device: usize,
        /// The system's reason.
        message: String,
    },
    /// Computations nested deeper than the interpreter's stack allows.
    #[error(
        "computations nest {depth} deep (calls, loops and branches within each other); \
         the interpreter runs at most {max} levels"
    )]
    TooDeep {
        /// The module's nesting depth ([`HloModule::call_depth`](crate::HloModule::call_depth)).
        depth: usize,
        /// [`MAX_CALL_DEPTH`](super::MAX_CALL_DEPTH).
        max: usize,
    },
    /// Per-device data for a different number of devices than the run has.
    #[error("the run has {expected} devices, but {actual} {what} were given")]
    DeviceCount {
        /// What was given per device.
        what: &'static str,
        /// Devices of the run.
        expected: usize,
        /// Entries given.
        actual: usize,
    },

    // === operations ===
    /// An instruction whose result is larger than the machine's memory.
    #[error("{instruction}: its result {shape} needs {bytes} bytes, more than this machine's {memory} bytes of memory")]
    OutOfMemory {
        /// The instruction's name.
        instruction: String,
        /// Its result shape (boxed: keeps the error small).
        shape: Box<Shape>,
        /// The result's bytes.
        bytes: u64,
        /// The machine's physical memory.
        memory: u64,
    },
    /// An op (or a case of it) the interpreter does not implement.
    #[error("{instruction} ({op}): {what} is not supported by the interpreter")]
    Unsupported {
        /// The instruction's name.
        instruction: String,
        /// The op.
        op: Opcode,
        /// What exactly is unsupported.
        what: String,
    },
    /// An instruction whose operands or attributes are invalid at run time
    /// (e.g. a module that was not verified).
    #[error("{instruction} ({op}): {message}")]
    Invalid {
        /// The instruction's name.
        instruction: String,
        /// The op.
        op: Opcode,
        /// What is wrong.
        message: String,
    },
    /// A custom call to a target nobody registered.
    #[error("{instruction}: no custom-call target named `{target}` is registered")]
    UnknownCustomCall {
        /// The instruction's name.
        instruction: String,
        /// The target name.
        target: String,
    },
    /// A registered custom-call target failed.
    #[error("{instruction}: custom call `{target}` failed: {message}")]
    CustomCallFailed {
        /// The instruction's name.
        instruction: String,
        /// The target name.
        target: String,
        /// The target's message.
        message: String,
    },

    // === devices ===
    /// A collective or channel whose participants did not all arrive in time.
    #[error("{instruction} ({op}): {message}")]
    Collective {
        /// The instruction's name.
        instruction: String,
        /// The op.
        op: Opcode,
        /// What went wrong (which participants are missing).
        message: String,
    },

    /// An infeed, outfeed or host transfer whose data the caller did not
    /// supply, or supplied with the wrong shape.
    #[error("{instruction} ({op}): {message}")]
    Feed {
        /// The instruction's name.
        instruction: String,
        /// The op.
        op: Opcode,
        /// What is missing or wrong.
        message: String,
    },

    /// The run was cancelled, or passed its deadline
    /// ([`RunOptions::cancel`](super::RunOptions::cancel)).
    #[error(transparent)]
    Stopped(#[from] crate::Stopped),

    // === wrapped ===
    /// A literal operation failed.
    #[error(transparent)]
    Literal(#[from] LiteralError),
    /// Shape inference rejected an instruction.
    #[error(transparent)]
    Infer(#[from] InferError<i64>),
    /// The module is invalid.
    #[error(transparent)]
    Verify(#[from] crate::verify::VerifyError),
}
