//! Reading an HLO module file, shared by every subcommand that takes one.

use std::path::Path;

use xla_core::text::parse_hlo_module;
use xla_core::verify::verify_module;
use xla_core::HloModule;

use super::Failure;

/// Reads and parses `path`; with `verify`, also runs the module verifier.
/// An unreadable file is an I/O failure; a parse error (`file:line:col: …`
/// with a window of the source line and a caret), a file that is not UTF-8
/// (a binary: the first bad byte is named) or an invalid module is an
/// invalid input.
pub fn load(path: &Path, verify: bool) -> Result<HloModule, Failure> {
    let shown = path.display();
    let bytes =
        std::fs::read(path).map_err(|e| Failure::Usage(format!("cannot read {shown}: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::Invalid(format!(
            "{shown} is not an HLO text file: byte {} is not UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let module = parse_hlo_module(&text).map_err(|e| Failure::Invalid(format!("{shown}:{e}")))?;
    if verify {
        verify_module(&module).map_err(|e| Failure::Invalid(format!("{shown}: {e}")))?;
    }
    Ok(module)
}
