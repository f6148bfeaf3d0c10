//! The Cranelift JIT backend of xla-rs.
#![warn(missing_docs)]

pub mod codegen;
pub mod emit;
mod error;
pub mod fusion;
pub mod math;

pub use error::JitError;
