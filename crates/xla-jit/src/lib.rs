//! The Cranelift JIT backend of xla-rs.
#![warn(missing_docs)]

mod client;
pub mod codegen;
pub mod dot;
pub mod emit;
mod error;
pub mod fusion;
pub mod math;
pub mod runtime;
pub mod wide;

pub use client::{Client, Computation};
pub use error::JitError;
pub use runtime::{CompileOptions, Executable};
