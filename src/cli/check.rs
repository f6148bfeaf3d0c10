//! `xla check MODULE.hlo`: parse and verify a module, print its signature.

use super::{module_file, stdout, Outcome};

/// Parse and verify an HLO module; print its entry signature.
///
/// The signature reads e.g. `(f32[4,8]{1,0}, f32[8,16]{1,0}) -> f32[4]{0}`
/// (an omitted layout is printed as the default one, as XLA does).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file.
    module: std::path::PathBuf,
}

/// Runs the subcommand: status 1 when the module is invalid (the error
/// gives line:col for syntax, or the instruction, op and shapes for a shape
/// error), 2 for an unreadable file.
pub fn run(args: Args) -> Outcome {
    let module = module_file::load(&args.module, true)?;
    stdout::write(&format!(
        "{}\n",
        module.entry_program_shape().with_default_layouts()
    ))
}
