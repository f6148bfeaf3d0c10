//! HLO passes: the simplification pipeline and layout assignment.
//!
//! A pass is a struct implementing [`Pass`]: a `NAME` for dumps and
//! verifier errors, and `run`, which rewrites a module and says whether it
//! changed anything. [`optimize`] is the pipeline: one function listing the
//! passes in order, each with the reason it sits where it does. With
//! [`PipelineOptions::verify`] (on in debug builds and tests) the module
//! verifier runs after every pass, and a failure names the pass:
//! `after cse: instruction add.3 (add): inferred f32[2] but …`.
//!
//! ```
//! use xla_core::passes::{optimize, PipelineOptions};
//! use xla_core::HloModule;
//!
//! let mut module: HloModule = "HloModule m
//!
//! ENTRY e {
//!   x = f32[2,3] parameter(0)
//!   t = f32[3,2] transpose(x), dimensions={1,0}
//!   tt = f32[2,3] transpose(t), dimensions={1,0}
//!   ROOT n = f32[2,3] negate(tt)
//! }".parse()?;
//! optimize(&mut module, &PipelineOptions::default())?;
//! assert_eq!(
//!     module.to_string(),
//!     "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}\n\n\
//!      ENTRY e {\n  x = f32[2,3]{1,0} parameter(0)\n  ROOT n = f32[2,3]{1,0} negate(x)\n}\n\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Instruction order stays topological after every pass, names stay unique
//! in the module (new instructions get fresh `op.N` names), and nothing the
//! entry signature depends on (parameters, the root's shape and layout)
//! changes.

mod batch_norm;
mod constant_folding;
mod cse;
mod dce;
pub(crate) mod edit;
pub mod effects;
mod inline;
pub mod layout_assignment;
mod pipeline;
mod simplify;
mod while_loop;

use std::ops::{BitOr, BitOrAssign};

pub use crate::error::PassError;
pub use batch_norm::BatchNormExpander;
pub use constant_folding::ConstantFolding;
pub use cse::Cse;
pub use dce::Dce;
pub use inline::{InlineCalls, InlineFusions};
pub use layout_assignment::{LayoutAssignment, LayoutCleanup};
pub use pipeline::{optimize, optimize_verified, pin_entry_layout, run_pass, PipelineOptions};
pub use simplify::AlgebraicSimplifier;
pub use while_loop::DeadLoopCarries;

use crate::{HloModule, Result};

/// Whether a pass changed the module.
#[must_use]
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Changed {
    /// The module is exactly as before.
    No,
    /// Something was rewritten.
    Yes,
}

impl Changed {
    /// `true` for [`Changed::Yes`].
    pub fn is_yes(self) -> bool {
        self == Changed::Yes
    }
}

impl From<bool> for Changed {
    fn from(changed: bool) -> Self {
        if changed {
            Changed::Yes
        } else {
            Changed::No
        }
    }
}

impl BitOr for Changed {
    type Output = Changed;

    fn bitor(self, other: Changed) -> Changed {
        Changed::from(self.is_yes() || other.is_yes())
    }
}

impl BitOrAssign for Changed {
    fn bitor_assign(&mut self, other: Changed) {
        *self = *self | other;
    }
}

/// A module-to-module rewrite.
pub trait Pass {
    /// The name used in dumps and in verifier errors (`after dce: …`).
    const NAME: &'static str;

    /// Rewrites `module`, which must verify, into an equivalent module that
    /// still verifies.
    fn run(&mut self, module: &mut HloModule) -> Result<Changed>;
}

/// Runs a pass until it changes nothing, at most `max_iterations` times
/// (a rewrite often exposes another: `reshape(reshape(x))` becomes one
/// reshape, which may then reshape to the same shape and vanish).
#[derive(Clone, Debug)]
pub struct Looped<P> {
    pass: P,
    max_iterations: usize,
}

impl<P> Looped<P> {
    /// `pass`, repeated until it reports no change or `max_iterations`
    /// runs.
    pub fn new(pass: P, max_iterations: usize) -> Self {
        Looped {
            pass,
            max_iterations,
        }
    }
}

impl<P: Pass> Pass for Looped<P> {
    const NAME: &'static str = P::NAME;

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let mut changed = Changed::No;
        for _ in 0..self.max_iterations {
            if self.pass.run(module)? == Changed::No {
                break;
            }
            changed = Changed::Yes;
        }
        Ok(changed)
    }
}
