//! `xla check MODULE.hlo`: parse and verify a module, print its signature.

use std::process::ExitCode;

use super::{module_file, stdout};

/// Parse and verify an HLO module; print the entry signature, e.g.
/// `(f32[4,8]{1,0}, f32[8,16]{1,0}) -> f32[4]{0}` (an omitted layout is
/// printed as the default one, as XLA does).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file.
    module: std::path::PathBuf,
}

/// Runs the subcommand: status 0 when the module is valid, 1 when it is
/// not (the error gives line:col for syntax, or the instruction, op and
/// shapes for a shape error), 2 for an unreadable file.
pub fn run(args: Args) -> Result<ExitCode, String> {
    match module_file::load(&args.module, true) {
        Ok(module) => {
            stdout::write(&format!(
                "{}\n",
                module.entry_program_shape().with_default_layouts()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Ok(e.report()),
    }
}
