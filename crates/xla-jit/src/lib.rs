//! The Cranelift JIT backend of xla-rs.
#![warn(missing_docs)]

pub mod codegen;
mod error;
pub mod math;

pub use error::JitError;
