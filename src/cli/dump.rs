//! `xla dump MODULE.hlo [--clif] [--asm] [--cranelift-only]`: what the JIT
//! made of a module.

use xla_jit::{Client, CompileOptions};

use super::{module_file, stdout, Failure, Outcome};

/// Compile an HLO module with the JIT and print what it made of it.
///
/// Prints the optimized module with layouts, the fusion plan with the
/// reason for every decision, the thunks and buffers, the ops that fall
/// back to the interpreter, and compile times by phase and by kernel; with
/// `--asm`, each kernel's machine code (GNU syntax, as objdump prints it).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text file.
    module: std::path::PathBuf,
    /// Also print each kernel's Cranelift IR (CLIF).
    #[arg(long)]
    clif: bool,
    /// Also print each kernel's machine code (GNU syntax, as objdump prints it).
    #[arg(long)]
    asm: bool,
    /// Compile every fusion kernel with Cranelift (128-bit vectors), also
    /// those that would run as native AVX-512 or AVX2 code.
    #[arg(long)]
    cranelift_only: bool,
}

/// Runs the subcommand: status 1 when the module is invalid or does not
/// compile, 2 for an unreadable file.
pub fn run(args: Args) -> Outcome {
    let module = module_file::load(&args.module, true)?;
    let options = CompileOptions {
        keep_clif: args.clif,
        keep_asm: args.asm,
        cranelift_only: args.cranelift_only,
        ..CompileOptions::default()
    };
    let executable = Client::cpu()
        .and_then(|client| client.compile_with(&module, &options))
        .map_err(|e| Failure::Invalid(format!("{}: {e}", args.module.display())))?;
    stdout::write(&executable.dump())
}
