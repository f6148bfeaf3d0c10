//! `xla print MODULE`: the module in canonical HLO text, or with
//! `--stablehlo` as StableHLO text.

use super::{module_file, stdout, Failure, Outcome};

/// Read a module (HLO or StableHLO text, MLIR bytecode, a `jax.export`
/// artifact) and print it in canonical HLO text.
///
/// As XLA prints it: `%` prefixes, operand shapes and metadata dropped; an
/// omitted layout printed as the default one, and the
/// `entry_computation_layout` always given. With `--stablehlo`: StableHLO
/// text in MLIR's generic form, which JAX's MLIR tooling and this command
/// read back.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The module file (HLO text as JAX's `.as_text(dialect="hlo")` or an
    /// XLA dump, StableHLO text as `.as_text()`, MLIR bytecode, or a
    /// `jax.export` artifact; told apart by content).
    module: std::path::PathBuf,
    /// Print StableHLO text instead of HLO text.
    #[arg(long)]
    stablehlo: bool,
}

/// Runs the subcommand: status 1 for a parse error (`file:line:col: …` with
/// the source line and a caret) or a module with no StableHLO form, 2 for an
/// unreadable file.
pub fn run(args: Args) -> Outcome {
    let module = module_file::load(&args.module, false)?;
    if args.stablehlo {
        let text = xla_core::mlir::print_stablehlo(&module).map_err(|e| {
            Failure::Invalid(format!("{}: no StableHLO form: {e}", args.module.display()))
        })?;
        return stdout::write(&text);
    }
    stdout::write(&module.with_default_layouts().to_string())
}
