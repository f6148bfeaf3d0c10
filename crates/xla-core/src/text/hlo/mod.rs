//! HLO module text: XLA's syntax, as JAX prints it
//! (`jax.jit(f).lower(…).as_text(dialect="hlo")`) and as XLA dumps it.
//!
//! [`parse_hlo_module`] (or `text.parse::<HloModule>()`) reads a module;
//! `Display for HloModule` writes it back. Printing is canonical: a module
//! printed by XLA reads and prints back to the same text, and
//! `parse(print(m)) == m` for every module whose computations are stored
//! callees first.
//!
//! What reading normalizes away (so that text printed again differs):
//! `%` name prefixes, operand shapes (`f32[] %x`), computation signatures,
//! attributes that carry nothing here (`metadata`, `sharding`,
//! `frontend_attributes`, precision and scheduling hints, debug tables),
//! defaults XLA does not print (`[0:4:1]`, `0_0_0` padding), iota replica
//! groups (printed as lists) and attribute order.

mod keys;
mod lists;
mod parse;
mod print;
mod values;
mod window;

pub use parse::parse_hlo_module;
pub use print::{computation_post_order, ComputationDisplay, InstructionDisplay};
