//! Reading an HLO module file, shared by every subcommand that takes one.

use std::path::Path;
use std::process::ExitCode;

use xla_core::hlo::verify_module;
use xla_core::text::parse_hlo_module;
use xla_core::HloModule;

/// Why a module file could not be used.
pub enum LoadError {
    /// Unreadable (exit status 2).
    Io(String),
    /// Malformed or invalid (exit status 1).
    Invalid(String),
}

impl LoadError {
    /// The message alone, for subcommands that exit with one status for
    /// every failure.
    pub fn into_message(self) -> String {
        match self {
            LoadError::Io(m) | LoadError::Invalid(m) => m,
        }
    }

    /// Prints the message and gives the exit status.
    pub fn report(self) -> ExitCode {
        let (message, code) = match self {
            LoadError::Io(m) => (m, 2),
            LoadError::Invalid(m) => (m, 1),
        };
        eprintln!("error: {message}");
        ExitCode::from(code)
    }
}

/// Reads and parses `path`; with `verify`, also runs the module verifier.
/// Parse errors read `file:line:col: …` with the source line and a caret;
/// a file that is not UTF-8 (a binary) is invalid, naming the first bad
/// byte.
pub fn load(path: &Path, verify: bool) -> Result<HloModule, LoadError> {
    let shown = path.display();
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::Io(format!("cannot read {shown}: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        LoadError::Invalid(format!(
            "{shown} is not an HLO text file: byte {} is not UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let module = parse_hlo_module(&text).map_err(|e| LoadError::Invalid(format!("{shown}:{e}")))?;
    if verify {
        verify_module(&module).map_err(|e| LoadError::Invalid(format!("{shown}: {e}")))?;
    }
    Ok(module)
}
