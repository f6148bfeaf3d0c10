//! The reference interpreter: exact semantics for every operation.
//!
//! The interpreter is the project's semantic oracle: the JIT is tested
//! against it op by op and on random programs. It follows
//! `docs/semantics.md` and its Project rules exactly; where they are silent,
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
mod devices;
mod dot;
mod dynamic;
pub(crate) mod elementwise;
mod error;
mod eval;
mod fft;
mod indexing;
mod lapack;
mod lapack_eig;
mod lapack_qr;
mod lapack_svd;
mod linalg;
mod normalization;
mod random;
mod reduce;
pub mod rendezvous;
mod scalar;
mod side_effect;
mod sort;

pub use collective::{group_of, permute_group};
pub use custom_call::{
    backend_config_integer, CustomCallAbiFn, CustomCallArgs, CustomCallFn, CustomCallRegistry,
};
pub use devices::{DeviceAssignment, Feeds, RunOptions, MAX_CALL_DEPTH, MAX_DEVICES};
pub use elementwise::{complex_op_c128, complex_op_c64, ByteCombiner};
pub use error::InterpError;
pub(crate) use lapack::trsm_options;
pub use sort::merge_sort;

use crate::{HloModule, Literal};

/// Evaluates HLO modules on host literals.
#[derive(Clone, Default)]
pub struct Interpreter {
    custom_calls: CustomCallRegistry,
}

impl Interpreter {
    /// An interpreter with the built-in custom calls (JAX's CPU LAPACK
    /// targets) registered.
    pub fn new() -> Self {
        Self::default()
    }

    /// An interpreter that runs the custom-call targets of `custom_calls`
    /// and no others.
    pub fn with_custom_calls(custom_calls: CustomCallRegistry) -> Self {
        Interpreter { custom_calls }
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
        self.run_with(module, args, &RunOptions::default())
    }

    /// Runs the entry computation of `module` on one device like
    /// [`run`](Self::run), with `options` (rng seed, cancellation).
    pub fn run_with(
        &self,
        module: &HloModule,
        args: &[&Literal],
        options: &RunOptions,
    ) -> Result<Literal, InterpError> {
        let mut results = devices::run(
            self,
            module,
            &[args.to_vec()],
            DeviceAssignment::single(),
            options,
            &mut [],
        )?;
        Ok(results.swap_remove(0))
    }

    /// Runs the entry computation of `module` on every replica × partition
    /// of `assignment`, each on its own thread: `args_per_device[d]` are the
    /// arguments of device `d = replica · num_partitions + partition`, and
    /// the results come in the same order (at most [`MAX_DEVICES`]
    /// devices). Collectives connect the devices; a device that waits for
    /// one that never comes fails with [`InterpError::Collective`] instead
    /// of hanging.
    ///
    /// ```
    /// use xla_core::{interp::{DeviceAssignment, Interpreter}, HloModule, Literal};
    ///
    /// let module: HloModule = "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
    ///     ROOT y = f32[4] all-gather(x), dimensions={0}, replica_groups={}\n}".parse()?;
    /// let args = vec![
    ///     vec![Literal::vector(&[1.0f32, 2.5])],
    ///     vec![Literal::vector(&[3.0f32, 5.25])],
    /// ];
    /// let results = Interpreter::new().run_partitioned(&module, args, DeviceAssignment::new(2, 1))?;
    /// assert_eq!(results[1].to_vec::<f32>()?, [1.0, 2.5, 3.0, 5.25]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_partitioned(
        &self,
        module: &HloModule,
        args_per_device: Vec<Vec<Literal>>,
        assignment: DeviceAssignment,
    ) -> Result<Vec<Literal>, InterpError> {
        self.execute(
            module,
            &args_per_device,
            assignment,
            &RunOptions::default(),
            &mut [],
        )
    }

    /// Runs `module` like [`run_partitioned`](Self::run_partitioned), with
    /// `options` (rng seed, collective timeout, channel routes, cancellation) and `feeds[d]` as
    /// device `d`'s infeed/outfeed and host transfers (an empty slice: no
    /// host data). The feeds' outputs are filled in even when the run fails.
    pub fn execute(
        &self,
        module: &HloModule,
        args_per_device: &[Vec<Literal>],
        assignment: DeviceAssignment,
        options: &RunOptions,
        feeds: &mut [Feeds],
    ) -> Result<Vec<Literal>, InterpError> {
        let args: Vec<Vec<&Literal>> = args_per_device
            .iter()
            .map(|device| device.iter().collect())
            .collect();
        devices::run(self, module, &args, assignment, options, feeds)
    }
}
