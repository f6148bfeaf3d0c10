//! Subcommands of the `xla` tool, one file each.

mod bench;
mod check;
mod dump;
mod layout;
mod module_file;
mod print;
mod run;
mod stdout;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A pure-Rust XLA: inspect layouts, check, print, run and benchmark HLO modules.
#[derive(Parser, Debug)]
#[command(name = "xla", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    Bench(bench::Args),
    Check(check::Args),
    Dump(dump::Args),
    Layout(layout::Args),
    Print(print::Args),
    Run(run::Args),
}

impl Cli {
    /// Runs the chosen subcommand. Usage errors exit with status 2.
    pub fn run(self) -> ExitCode {
        let result = match self.command {
            Command::Bench(args) => bench::run(args),
            Command::Check(args) => check::run(args),
            Command::Dump(args) => dump::run(args),
            Command::Layout(args) => layout::run(args),
            Command::Print(args) => print::run(args),
            Command::Run(args) => run::run(args),
        };
        match result {
            Ok(code) => code,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::from(2)
            }
        }
    }
}
