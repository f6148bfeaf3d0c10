//! The test kit of xla-rs, shared by every test runner of the workspace (a
//! dev-dependency only):
//!
//! - [`case`]: the conformance cases of `tests/conformance/cases` (a module
//!   as JAX prints it, its arguments and XLA:CPU's outputs as `.npy`, and
//!   the comparison rule of each case);
//! - [`compare`]: literals compared by that rule (exactly, or within an
//!   absolute, relative or ulp tolerance), tuples flattened;
//! - [`random`]: deterministic arguments for a parameter shape, and a
//!   deterministic generator for mutation tests.

pub mod case;
pub mod compare;
pub mod random;

pub use case::Case;
pub use compare::{flatten, Rule};
pub use random::{random_literal, XorShift};
