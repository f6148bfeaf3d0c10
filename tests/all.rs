//! The integration tests of the `xla` crate (command line, DSL, conformance,
//! compile errors), one module per subject, in one test binary: `cargo test
//! --test all ui::` runs one subject.

mod cli;
mod cli_conventions;
mod cli_grad;
mod cli_jit;
#[cfg(feature = "mpi")]
mod cli_mpi;
mod cli_run;
mod cli_support;
mod conformance;
mod dsl_build;
mod dsl_ops;
#[path = "dsl_programs/main.rs"]
mod dsl_programs;
mod dsl_run;
mod gradients;
mod readme;
mod ui;
