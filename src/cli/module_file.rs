//! Reading a module file, shared by every subcommand that takes one: HLO
//! text, StableHLO text, MLIR bytecode or a `jax.export` artifact, told
//! apart by content.

use std::path::Path;

use xla_core::verify::verify_module;
use xla_core::{load_module, load_module_for_arguments, HloModule, LoadError, Shape};

use super::Failure;

/// Reads and loads `path`; with `verify`, also runs the module verifier.
/// An unreadable file is an I/O failure; a parse error (`file:line:col: …`
/// with a window of the source line and a caret), a text file that is not
/// UTF-8 (the first bad byte is named), a StableHLO op that does not lower
/// (the op and its location) or an invalid module is an invalid input.
pub fn load(path: &Path, verify: bool) -> Result<HloModule, Failure> {
    load_for(path, verify, None)
}

/// [`load`] for arguments of these shapes, which bind the symbolic
/// dimensions of a StableHLO module's entry.
pub fn load_for(
    path: &Path,
    verify: bool,
    arguments: Option<&[Shape]>,
) -> Result<HloModule, Failure> {
    let shown = path.display();
    let bytes =
        std::fs::read(path).map_err(|e| Failure::Usage(format!("cannot read {shown}: {e}")))?;
    let loaded = match arguments {
        Some(shapes) => load_module_for_arguments(&bytes, shapes),
        None => load_module(&bytes),
    };
    let module = loaded.map_err(|e| match e {
        LoadError::Parse(e) => Failure::Invalid(format!("{shown}:{e}")),
        LoadError::NotUtf8(at) => Failure::Invalid(format!(
            "{shown} is not a module (HLO or StableHLO text, MLIR bytecode, jax.export): \
             byte {at} is not UTF-8"
        )),
        e => Failure::Invalid(format!("{shown}: {e}")),
    })?;
    if verify {
        verify_module(&module).map_err(|e| Failure::Invalid(format!("{shown}: {e}")))?;
    }
    Ok(module)
}

/// The program each device runs: a `shard_map` module's per-device
/// program (its entry's shard conversions taken out); a module written per
/// device (its collectives explicit) as it is.
pub fn per_device(module: HloModule) -> Result<HloModule, Failure> {
    match xla_core::spmd::per_device(module.clone()) {
        Ok(per_device) => Ok(per_device.module),
        Err(xla_core::spmd::SpmdError::Automatic { .. }) => Ok(module),
        Err(e) => Err(Failure::Invalid(e.to_string())),
    }
}
