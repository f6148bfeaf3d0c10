//! StableHLO programs: MLIR text as JAX prints it, MLIR bytecode (the
//! VHLO dialect) and `jax.export` artifacts, read into one MLIR form
//! ([`ir`]) and lowered to an [`HloModule`](crate::HloModule).

pub mod bytecode;
pub mod export;
pub mod ir;
mod lower;
mod print;
mod text;

pub use lower::{
    dynamic_entry, lower_function, lower_module, lower_module_for_arguments, LowerError,
};
pub use print::{print_stablehlo, PrintError};
pub use text::parse_stablehlo;
