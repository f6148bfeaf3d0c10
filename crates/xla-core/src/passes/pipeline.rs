//! The pass pipeline: which passes run, in which order, and why.

use std::fmt;

use super::layout_assignment::{LayoutAssignment, LayoutCleanup, LayoutConstraints, Unconstrained};
use super::{
    AlgebraicSimplifier, Changed, ConstantFolding, Cse, Dce, DeadLoopCarries, InlineCalls,
    InlineFusions, Looped, Pass, PassError,
};
use crate::verify::verify_module;
use crate::{HloModule, Result};

/// What [`optimize`] does.
#[derive(Clone)]
pub struct PipelineOptions<'a> {
    /// Most rounds of the simplification loop (each round: simplifier,
    /// constant folding, CSE, DCE); the loop stops earlier once a round
    /// changes nothing.
    pub max_iterations: usize,
    /// Evaluate instructions whose operands are constants at compile time
    /// ([`ConstantFolding`]).
    pub constant_folding: bool,
    /// The largest constant folding creates, in bytes.
    pub max_folded_bytes: usize,
    /// Run the module verifier after every pass (and report
    /// `after <pass>: …`). On by default in debug builds and tests.
    pub verify: bool,
    /// The backend's layout constraints; `None` skips layout assignment
    /// (layouts then stay as written).
    pub layout_constraints: Option<&'a dyn LayoutConstraints>,
    /// Inline `fusion` instructions ([`InlineFusions`]), for a backend that
    /// plans its own kernels: an optimized module's fusions then fuse
    /// again by the backend's rules.
    pub inline_fusions: bool,
}

impl Default for PipelineOptions<'_> {
    /// 16 rounds at most, folding into constants of up to 1 MiB,
    /// verification in debug builds, layouts assigned for a backend that
    /// reads every layout ([`Unconstrained`]), fusions kept.
    fn default() -> Self {
        PipelineOptions {
            max_iterations: 16,
            constant_folding: true,
            max_folded_bytes: 1 << 20,
            verify: cfg!(debug_assertions),
            layout_constraints: Some(&Unconstrained),
            inline_fusions: false,
        }
    }
}

impl fmt::Debug for PipelineOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PipelineOptions")
            .field("max_iterations", &self.max_iterations)
            .field("constant_folding", &self.constant_folding)
            .field("max_folded_bytes", &self.max_folded_bytes)
            .field("verify", &self.verify)
            .field("layout_constraints", &self.layout_constraints.is_some())
            .field("inline_fusions", &self.inline_fusions)
            .finish()
    }
}

/// Runs `pass` on `module` and then, if `verify` is set and the pass
/// changed the module, the verifier; a verifier failure names the pass
/// (`after cse: …`).
pub fn run_pass<P: Pass>(pass: &mut P, module: &mut HloModule, verify: bool) -> Result<Changed> {
    let changed = pass.run(module)?;
    if verify && changed.is_yes() {
        verify_module(module).map_err(|source| PassError::Verify {
            pass: P::NAME,
            source: Box::new(source),
        })?;
    }
    Ok(changed)
}

/// Records the current entry signature as the module's
/// `entry_computation_layout` when it has none (missing layouts read as
/// the default), so that passes which rewrite the root or the parameters
/// keep the signature callers see. Run it before the first such pass;
/// [`optimize`] runs it first.
pub fn pin_entry_layout(module: &mut HloModule) -> Changed {
    if module.entry_layout.is_some() {
        return Changed::No;
    }
    module.entry_layout = Some(module.entry_program_shape().with_default_layouts());
    Changed::Yes
}

/// The optimization pipeline. The module must verify; afterwards it
/// computes the same values, and its entry signature (parameters, result
/// shape and layout) is unchanged: when the module has no
/// `entry_computation_layout`, the current entry signature is recorded
/// as one first, so later passes can restore it.
pub fn optimize(module: &mut HloModule, options: &PipelineOptions<'_>) -> Result<Changed> {
    verify_module(module).map_err(|e| PassError::InvalidInput(Box::new(e)))?;
    optimize_verified(module, options)
}

/// [`optimize`] for a module the caller has just verified (a compiler
/// that verifies its input before its own first pass).
pub fn optimize_verified(module: &mut HloModule, options: &PipelineOptions<'_>) -> Result<Changed> {
    let verify = options.verify;
    let mut changed = pin_entry_layout(module);

    // Inline calls first: JAX wraps named functions, custom_jvp rules and
    // checkpointed regions in `call`s, and every later pass then sees one
    // flat computation instead of stopping at call boundaries (or fusion
    // boundaries, for a backend that fuses again).
    if options.inline_fusions {
        changed |= run_pass(&mut InlineFusions, module, verify)?;
    }
    changed |= run_pass(&mut InlineCalls, module, verify)?;

    // The simplification loop, to a fixed point: the simplifier removes
    // work and turns element-wise ops of broadcast scalars into scalar ops,
    // which constant folding then evaluates when their operands are
    // constants; folded constants expose identities (`x * 1`) to the next
    // round's simplifier and equal values to CSE, whose merges expose more
    // simplifications (`select(p, a, a)`); DCE last, so each round starts
    // from live code and the inlined callees are gone. Dead loop carries
    // go before DCE, which then removes what computed their initial values.
    let folding = options
        .constant_folding
        .then(|| ConstantFolding::new(options.max_folded_bytes));
    let round = Simplification { verify, folding };
    let mut simplification = Looped::new(round, options.max_iterations);
    changed |= run_pass(&mut simplification, module, verify)?;

    let Some(constraints) = options.layout_constraints else {
        return Ok(changed);
    };
    // Layouts last: every rewrite above is layout-insensitive, and the
    // layouts chosen here (to make transposes and reshapes free) must not
    // be disturbed by later rewrites that do not know about them.
    changed |= run_pass(&mut LayoutAssignment::new(constraints), module, verify)?;
    // Only now can a transpose or reshape be recognized as a bitcast, and a
    // copy as one between equal layouts.
    changed |= run_pass(&mut LayoutCleanup, module, verify)?;
    Ok(changed)
}

/// One round of the simplification loop, each pass verified on its own.
struct Simplification {
    verify: bool,
    folding: Option<ConstantFolding>,
}

impl Pass for Simplification {
    const NAME: &'static str = "simplification";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let verify = self.verify;
        let mut changed = run_pass(&mut AlgebraicSimplifier, module, verify)?;
        if let Some(folding) = &mut self.folding {
            changed |= run_pass(folding, module, verify)?;
        }
        changed |= run_pass(&mut Cse, module, verify)?;
        changed |= run_pass(&mut DeadLoopCarries, module, verify)?;
        changed |= run_pass(&mut Dce, module, verify)?;
        Ok(changed)
    }
}
