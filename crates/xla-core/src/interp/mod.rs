//! The reference interpreter: exact semantics for every operation.
//!
//! The interpreter is the project's semantic oracle: the JIT is tested
//! against it op by op and on random programs. It follows
//! `spec/OPS.md` and its Project rules exactly; where they are silent,
//! XLA:CPU's observed behaviour.
//!
//! Before running, every instruction's shape is checked against shape
//! inference, so a malformed module is an error, not a panic. Each value
//! has its instruction's declared layout (arguments are relaid when they
//! differ); rules read operands of any layout and build row-major results.
//! What an element-wise op computes per element lives in one table
//! (`elementwise/table.rs`, with the integer, float and complex rules
//! beside it); called scalar computations (reduce, map, scatter, sort …)
//! are compiled once into a register program (`scalar.rs`).
//!
//! ```
//! use xla_core::{interp::Interpreter, HloModule, Literal};
//!
//! let module: HloModule = "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  \
//!                          ROOT y = f32[3] add(x, x)\n}".parse()?;
//! let x = Literal::vector(&[1.0f32, 2.0, 3.0]);
//! let y = Interpreter::new().run(&module, &[&x])?;
//! assert_eq!(y.to_vec::<f32>()?, [2.0, 4.0, 6.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod array;
mod collective;
mod control;
mod custom_call;
mod data_movement;
mod dot;
mod dynamic;
pub(crate) mod elementwise;
mod error;
mod eval;
mod indexing;
mod linalg;
mod normalization;
mod random;
mod reduce;
mod scalar;
mod side_effect;
mod sort;

pub use custom_call::{CustomCallFn, CustomCallRegistry};
pub use error::InterpError;

use crate::{HloModule, Literal};

/// Evaluates HLO modules on host literals.
#[derive(Clone, Default)]
pub struct Interpreter {
    custom_calls: CustomCallRegistry,
}

impl Interpreter {
    /// An interpreter with no custom calls registered.
    pub fn new() -> Self {
        Self::default()
    }

    /// The custom-call targets this interpreter can run.
    pub fn custom_calls(&self) -> &CustomCallRegistry {
        &self.custom_calls
    }

    /// Registers custom-call targets.
    pub fn custom_calls_mut(&mut self) -> &mut CustomCallRegistry {
        &mut self.custom_calls
    }

    /// Runs the entry computation of `module` on one device (replica 0,
    /// partition 0). Arguments may have any layout; the result has the
    /// layouts of the entry result (`entry_computation_layout` when given).
    pub fn run(&self, module: &HloModule, args: &[&Literal]) -> Result<Literal, InterpError> {
        eval::run_entry(self, module, args, collective::Device::single())
    }
}
