//! One loader for every form a program comes in: HLO text, StableHLO text
//! (MLIR), MLIR bytecode (VHLO) and `jax.export` artifacts, told apart by
//! content, not by file name.

use crate::mlir::{lower_module, parse_stablehlo, LowerError};
use crate::text::{parse_hlo_module, ParseError};
use crate::HloModule;

/// The forms [`load_module`] reads.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ModuleFormat {
    /// XLA's HLO text (`HloModule name, …`).
    HloText,
    /// StableHLO in MLIR's text form (`module @jit_f … { func.func … }`).
    StableHloText,
    /// MLIR bytecode (`ML\xEFR…`), the VHLO dialect.
    MlirBytecode,
    /// A `jax.export` artifact: a FlatBuffer holding VHLO bytecode.
    JaxExport,
}

impl ModuleFormat {
    /// The format of `bytes`, from their content.
    pub fn detect(bytes: &[u8]) -> ModuleFormat {
        const MAGIC: &[u8] = b"ML\xEFR";
        if bytes.starts_with(MAGIC) {
            return ModuleFormat::MlirBytecode;
        }
        if bytes.windows(MAGIC.len()).any(|w| w == MAGIC) && std::str::from_utf8(bytes).is_err() {
            return ModuleFormat::JaxExport;
        }
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
        let mut rest = text.trim_start();
        while let Some(comment) = rest.strip_prefix("//") {
            rest = comment.split_once('\n').map_or("", |(_, r)| r).trim_start();
        }
        let mlir = ["module", "func.func", "#", "\"builtin.module\"", "{-#"];
        if mlir.iter().any(|m| rest.starts_with(m)) {
            ModuleFormat::StableHloText
        } else {
            ModuleFormat::HloText
        }
    }

    /// A short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            ModuleFormat::HloText => "HLO text",
            ModuleFormat::StableHloText => "StableHLO text",
            ModuleFormat::MlirBytecode => "MLIR bytecode",
            ModuleFormat::JaxExport => "jax.export artifact",
        }
    }
}

/// Why a module could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A text module that is not UTF-8.
    #[error("not a text file: byte {0} is not UTF-8")]
    NotUtf8(usize),
    /// Malformed text (`line:col: …`).
    #[error("{0}")]
    Parse(#[from] ParseError),
    /// A StableHLO module that does not lower to HLO.
    #[error("{0}")]
    Lower(#[from] LowerError),
    /// A form this build does not read.
    #[error("{} is not supported yet", .0.name())]
    Unsupported(ModuleFormat),
}

/// Reads a module in any of the [`ModuleFormat`]s.
///
/// ```
/// let hlo = "HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n";
/// let stablehlo = "module @m {\n  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    return %a : tensor<2xf32>\n  }\n}\n";
/// for text in [hlo, stablehlo] {
///     let module = xla_core::load_module(text.as_bytes())?;
///     assert_eq!(module.entry_computation().program_shape().to_string(), "(f32[2]) -> f32[2]");
/// }
/// # Ok::<(), xla_core::LoadError>(())
/// ```
pub fn load_module(bytes: &[u8]) -> Result<HloModule, LoadError> {
    let format = ModuleFormat::detect(bytes);
    let text = || std::str::from_utf8(bytes).map_err(|e| LoadError::NotUtf8(e.valid_up_to()));
    match format {
        ModuleFormat::HloText => Ok(parse_hlo_module(text()?)?),
        ModuleFormat::StableHloText => Ok(lower_module(&parse_stablehlo(text()?)?)?),
        other => Err(LoadError::Unsupported(other)),
    }
}
