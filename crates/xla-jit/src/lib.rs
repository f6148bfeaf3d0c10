//! The JIT backend of xla-rs: Cranelift kernels, and AVX-512 machine code
//! for the elementwise, row and dot kernels where the CPU has it
//! ([`wide`]).
#![warn(missing_docs)]

mod client;
pub mod clif;
pub mod codegen;
pub mod collectives;
pub mod disasm;
pub mod dot;
pub mod emit;
mod error;
pub mod ftz;
pub mod fusion;
mod library;
pub mod math;
pub mod pool;
pub mod runtime;
pub mod wide;

pub use client::{Client, Computation};
pub use error::JitError;
pub use runtime::{CompileOptions, Executable, ExecuteOptions, Profile};
