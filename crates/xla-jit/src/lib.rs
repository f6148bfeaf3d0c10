//! The Cranelift JIT backend of xla-rs.
#![warn(missing_docs)]

pub mod codegen;
pub mod dot;
mod error;
pub mod runtime;

pub use error::JitError;
