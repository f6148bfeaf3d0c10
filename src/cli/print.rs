//! `xla print MODULE.hlo`: the module in canonical HLO text.

use std::process::ExitCode;

use xla_core::text::parse_hlo_module;

/// Parse an HLO module and print it in canonical HLO text (as XLA prints
/// it: `%` prefixes, operand shapes and metadata dropped).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file (as JAX's `.as_text(dialect="hlo")` or an XLA dump).
    module: std::path::PathBuf,
}

/// Runs the subcommand. A parse error prints `file:line:col: …` with the
/// source line and a caret and exits with status 1; `Err` carries the
/// message for an unreadable file (status 2).
pub fn run(args: Args) -> Result<ExitCode, String> {
    let path = args.module.display();
    let text =
        std::fs::read_to_string(&args.module).map_err(|e| format!("cannot read {path}: {e}"))?;
    match parse_hlo_module(&text) {
        Ok(module) => {
            print!("{module}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {path}:{e}");
            Ok(ExitCode::from(1))
        }
    }
}
