//! `xla grad MODULE.hlo [--wrt I,J,…] [--vjp | --value]`: the gradient
//! module, as HLO text.

use super::{module_file, stdout, Failure, Outcome};
use xla_core::autodiff;

/// Differentiate a module (reverse mode) and print the gradient module.
///
/// By default the entry must return a floating-point scalar; the printed
/// module takes the same parameters and returns the tuple of the gradients
/// with respect to the `--wrt` parameters, in that order (default: every
/// floating-point parameter), as `jax.grad(f, argnums)` does. Run it with
/// `xla run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file of the function to differentiate.
    module: std::path::PathBuf,
    /// The parameter numbers to differentiate with respect to, e.g. `0,2`.
    #[arg(long, value_delimiter = ',')]
    wrt: Option<Vec<usize>>,
    /// Print the vector-Jacobian product instead: one cotangent parameter
    /// per result (per tuple element) after the module's own.
    #[arg(long, conflicts_with = "value")]
    vjp: bool,
    /// Return the value too: `(value, gradients…)`.
    #[arg(long)]
    value: bool,
}

/// Runs the subcommand: status 1 for a module that does not parse or
/// cannot be differentiated (the error names the instruction), 2 for an
/// unreadable file.
pub fn run(args: Args) -> Outcome {
    let module = module_file::load(&args.module, true)?;
    let wrt = args.wrt.as_deref();
    let derived = match (args.vjp, args.value) {
        (true, _) => autodiff::vjp(&module, wrt),
        (false, true) => autodiff::value_and_grad(&module, wrt),
        (false, false) => autodiff::grad(&module, wrt),
    }
    .map_err(|e| Failure::Invalid(format!("{}: {e}", args.module.display())))?;
    stdout::write(&derived.with_default_layouts().to_string())
}
