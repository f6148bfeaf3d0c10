//! `xla print MODULE.hlo`: the module in canonical HLO text.

use std::process::ExitCode;

use super::{module_file, stdout};

/// Parse an HLO module and print it in canonical HLO text (as XLA prints
/// it: `%` prefixes, operand shapes and metadata dropped; an omitted layout
/// printed as the default one, and the `entry_computation_layout` always
/// given).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file (as JAX's `.as_text(dialect="hlo")` or an XLA dump).
    module: std::path::PathBuf,
}

/// Runs the subcommand: status 1 for a parse error (`file:line:col: …` with
/// the source line and a caret), 2 for an unreadable file.
pub fn run(args: Args) -> Result<ExitCode, String> {
    match module_file::load(&args.module, false) {
        Ok(module) => {
            stdout::write(&module.with_default_layouts().to_string())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Ok(e.report()),
    }
}
