//! `xla print MODULE.hlo`: the module in canonical HLO text.

use super::{module_file, stdout, Outcome};

/// Parse an HLO module and print it in canonical HLO text.
///
/// As XLA prints it: `%` prefixes, operand shapes and metadata dropped; an
/// omitted layout printed as the default one, and the
/// `entry_computation_layout` always given.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file (as JAX's `.as_text(dialect="hlo")` or an XLA dump).
    module: std::path::PathBuf,
}

/// Runs the subcommand: status 1 for a parse error (`file:line:col: …` with
/// the source line and a caret), 2 for an unreadable file.
pub fn run(args: Args) -> Outcome {
    let module = module_file::load(&args.module, false)?;
    stdout::write(&module.with_default_layouts().to_string())
}
