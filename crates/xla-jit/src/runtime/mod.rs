//! What compiled code needs at run time: the compile pipeline, buffer
//! assignment, thunks, executables and the interpreter fallback.

mod buffers;
mod collective;
mod compile;
mod conv_prepare;
mod deep;
mod device_threads;
pub(crate) mod dot;
mod dot_prepare;
mod executable;
mod interpret;
mod layout;
mod library;
mod listing;
mod lower;
mod plan;
mod profile;
mod program;
mod rewrite;
mod run;
mod thunk;
mod window_copy;

pub(crate) use compile::compile;
pub use compile::CompileOptions;
pub use executable::{CompileStats, Executable, ExecuteOptions, KernelStats};
pub use interpret::FallbackOp;
pub use layout::CpuLayoutConstraints;
pub use profile::{Profile, Step};
