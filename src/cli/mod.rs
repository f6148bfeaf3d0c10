//! Subcommands of the `xla` tool, one file each.

mod bench;
mod check;
mod dump;
mod grad;
mod layout;
mod module_file;
mod out_dir;
mod print;
mod processes;
mod run;
mod stdout;
mod timeout;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Every subcommand's exit statuses, for `--help` and the README.
const EXIT_STATUS: &str = "\
Exit status (every subcommand):
  0    success
  1    the input is invalid: a module that does not parse, verify or compile,
       arrays that do not fit its parameters, a run that fails
  2    usage or I/O: bad arguments, a file that cannot be read or written,
       an output directory that holds other files
  124  a run stopped by --timeout";

/// A pure-Rust XLA: inspect layouts, check, print, differentiate, run and benchmark HLO modules.
#[derive(Parser, Debug)]
#[command(name = "xla", version, about, after_help = EXIT_STATUS)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Bench(bench::Args),
    Check(check::Args),
    Dump(dump::Args),
    Grad(grad::Args),
    Layout(layout::Args),
    Print(print::Args),
    Run(run::Args),
}

/// Why a subcommand failed; each kind has its exit status ([`EXIT_STATUS`]).
#[derive(Debug)]
pub enum Failure {
    /// The input is invalid (status 1).
    Invalid(String),
    /// Usage or I/O (status 2).
    Usage(String),
    /// A run stopped by `--timeout` (status 124).
    Timeout(String),
    /// A failure a child process already reported; exit with its status.
    Reported(u8),
}

impl Failure {
    /// The status a failure of this kind exits with.
    pub fn status(&self) -> u8 {
        match self {
            Failure::Invalid(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Timeout(_) => 124,
            Failure::Reported(status) => *status,
        }
    }

    /// The message to print, unless it was printed already.
    fn message(&self) -> Option<&str> {
        match self {
            Failure::Invalid(m) | Failure::Usage(m) | Failure::Timeout(m) => Some(m),
            Failure::Reported(_) => None,
        }
    }
}

/// What a subcommand returns.
pub type Outcome = Result<(), Failure>;

impl Cli {
    /// Runs the chosen subcommand and gives its exit status.
    pub fn run(self) -> ExitCode {
        let outcome = match self.command {
            Command::Bench(args) => bench::run(args),
            Command::Check(args) => check::run(args),
            Command::Dump(args) => dump::run(args),
            Command::Grad(args) => grad::run(args),
            Command::Layout(args) => layout::run(args),
            Command::Print(args) => print::run(args),
            Command::Run(args) => run::run(args),
        };
        match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(failure) => {
                if let Some(message) = failure.message() {
                    eprintln!("error: {message}");
                }
                ExitCode::from(failure.status())
            }
        }
    }
}
