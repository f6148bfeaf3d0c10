//! One loader for every form a program comes in: HLO text, StableHLO text
//! (MLIR), MLIR bytecode (VHLO) and `jax.export` artifacts, told apart by
//! content, not by file name.

use crate::hlo::{InstrId, Opcode};
use crate::mlir::bytecode::{read_bytecode, BytecodeError};
use crate::mlir::export::{read_jax_export, DType, ExportError, Exported};
use crate::mlir::{lower_module, lower_module_for_arguments, parse_stablehlo, LowerError};
use crate::text::{parse_hlo_module, ParseError};
use crate::{HloInstruction, HloModule, Literal, Shape};

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
        // A FlatBuffer starts with the offset of its root table: small
        // and aligned (text never starts with NUL bytes); an
        // artifact holds the module's bytecode.
        let root = bytes
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
        let flatbuffer = root.is_some_and(|r| (4..4096).contains(&r) && r % 4 == 0);
        if flatbuffer || (bytes.contains(&0) && bytes.windows(MAGIC.len()).any(|w| w == MAGIC)) {
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
    /// Malformed MLIR bytecode (the byte offset and what was expected).
    #[error("{0}")]
    Bytecode(#[from] BytecodeError),
    /// A malformed `jax.export` artifact.
    #[error("{0}")]
    Export(#[from] ExportError),
    /// A `jax.export` artifact this loader cannot run as it is.
    #[error("jax.export artifact: {0}")]
    Artifact(String),
    /// A module whose entry takes arrays of dynamic (symbolic) dimensions:
    /// it loads for given argument shapes ([`load_module_for_arguments`]).
    #[error(
        "the entry takes arrays of symbolic dimensions ({0}): load it for the arguments' shapes"
    )]
    NeedsArgumentShapes(String),
}

/// Reads a module in any of the [`ModuleFormat`]s.
///
/// ```
/// let hlo = "HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n";
/// let stablehlo = "module @m {\n  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    return %a : tensor<2xf32>\n  }\n}\n";
/// for text in [hlo, stablehlo] {
///     let module = xla_core::load_module(text.as_bytes())?.with_default_layouts();
///     assert_eq!(module.entry_program_shape().to_string(), "(f32[2]{0}) -> f32[2]{0}");
/// }
/// # Ok::<(), xla_core::LoadError>(())
/// ```
pub fn load_module(bytes: &[u8]) -> Result<HloModule, LoadError> {
    load(bytes, None)
}

/// [`load_module`] for arguments of these shapes: a StableHLO module whose
/// entry takes dynamic dimensions (a `jax.export` of symbolic shapes, e.g.
/// `symbolic_shape("b, 4")`) is specialized to them, its shape assertions
/// checked (an argument that breaks one is an error carrying JAX's message).
/// An HLO text module is read as [`load_module`] reads it.
pub fn load_module_for_arguments(
    bytes: &[u8],
    arguments: &[Shape],
) -> Result<HloModule, LoadError> {
    load(bytes, Some(arguments))
}

fn load(bytes: &[u8], arguments: Option<&[Shape]>) -> Result<HloModule, LoadError> {
    let format = ModuleFormat::detect(bytes);
    let text = || std::str::from_utf8(bytes).map_err(|e| LoadError::NotUtf8(e.valid_up_to()));
    match format {
        ModuleFormat::HloText => Ok(parse_hlo_module(text()?)?),
        ModuleFormat::StableHloText => lower_for(&parse_stablehlo(text()?)?, arguments),
        ModuleFormat::MlirBytecode => lower_for(&read_bytecode(bytes)?, arguments),
        ModuleFormat::JaxExport => exported_module(&read_jax_export(bytes)?, arguments),
    }
}

/// Lowers `module`, for `arguments` when given; a module of dynamic
/// arguments without them is [`LoadError::NeedsArgumentShapes`].
fn lower_for(
    module: &crate::mlir::ir::Module,
    arguments: Option<&[Shape]>,
) -> Result<HloModule, LoadError> {
    match arguments {
        Some(shapes) => Ok(lower_module_for_arguments(module, shapes)?),
        None => {
            if let Some(signature) = crate::mlir::dynamic_entry(module) {
                return Err(LoadError::NeedsArgumentShapes(signature));
            }
            Ok(lower_module(module)?)
        }
    }
}

/// The HLO module of a `jax.export` artifact, taking the exported
/// function's arguments: a leading platform index (an artifact for several
/// platforms) is bound to the CPU's, and arguments JAX dropped because the
/// function does not use them come back as unused parameters.
fn exported_module(
    exported: &Exported,
    arguments: Option<&[Shape]>,
) -> Result<HloModule, LoadError> {
    if !exported.ordered_effects.is_empty() {
        return Err(LoadError::Artifact(format!(
            "ordered effects ({}) are not supported",
            exported.ordered_effects.join(", ")
        )));
    }
    let kept = &exported.module_kept_var_idx;
    // The module takes the kept arguments (after a platform index).
    let module_arguments: Option<Vec<Shape>> = arguments.map(|all| {
        let platform =
            (exported.platforms.len() > 1).then(|| Shape::scalar(crate::PrimitiveType::S32));
        platform
            .into_iter()
            .chain(
                kept.iter()
                    .filter_map(|&k| all.get(usize::from(k)).cloned()),
            )
            .collect()
    });
    let mut module = lower_for(&exported.module, module_arguments.as_deref())?;
    if exported.platforms.len() > 1 {
        let cpu = exported
            .platforms
            .iter()
            .position(|p| p == "cpu")
            .ok_or_else(|| {
                LoadError::Artifact(format!(
                    "exported for {} only, not for cpu",
                    exported.platforms.join(", ")
                ))
            })?;
        bind_parameter(&mut module, 0, Literal::scalar(cpu as i32)).map_err(LoadError::Artifact)?;
    }
    if kept.len() < exported.in_avals.len() {
        let mut shapes = Vec::new();
        for (i, aval) in exported.in_avals.iter().enumerate() {
            if let Some(given) = arguments.and_then(|a| a.get(i)) {
                shapes.push(given.clone());
                continue;
            }
            let (DType::Known(element), dims) = (aval.dtype, aval.dims()) else {
                return Err(LoadError::Artifact(format!(
                    "argument {i} has element type {:?}",
                    aval.dtype
                )));
            };
            let dims: Option<Vec<i64>> = dims.into_iter().collect();
            let dims = dims.ok_or_else(|| {
                LoadError::Artifact(format!(
                    "argument {i} has symbolic dimensions ({}): binding them is not supported yet",
                    aval.shape.join(", ")
                ))
            })?;
            shapes.push(Shape::array(element, dims));
        }
        restore_parameters(&mut module, kept, &shapes).map_err(LoadError::Artifact)?;
    }
    Ok(module)
}

/// Replaces entry parameter `number` by the constant `value` and numbers
/// the later parameters down by one.
fn bind_parameter(module: &mut HloModule, number: i64, value: Literal) -> Result<(), String> {
    let entry = module.entry;
    let c = module.computation_mut(entry);
    let mut found = false;
    for instr in &mut c.instructions {
        if instr.opcode != Opcode::Parameter {
            continue;
        }
        let p = instr.attrs.parameter_number.unwrap_or(0);
        if p == number {
            if instr.shape.clone().without_layouts() != value.shape().clone().without_layouts() {
                return Err(format!(
                    "parameter {number} is {}, not {}",
                    instr.shape,
                    value.shape()
                ));
            }
            instr.opcode = Opcode::Constant;
            instr.attrs.parameter_number = None;
            instr.attrs.literal = Some(value.clone());
            found = true;
        } else if p > number {
            instr.attrs.parameter_number = Some(p - 1);
        }
    }
    module.entry_layout = None;
    found
        .then_some(())
        .ok_or_else(|| format!("the entry has no parameter {number}"))
}

/// Renumbers the entry's parameters `k` to `kept[k]` and adds unused
/// parameters of `shapes` for the other positions.
fn restore_parameters(
    module: &mut HloModule,
    kept: &[u16],
    shapes: &[Shape],
) -> Result<(), String> {
    let entry = module.entry;
    let c = module.computation_mut(entry);
    for instr in &mut c.instructions {
        if instr.opcode == Opcode::Parameter {
            let p = instr.attrs.parameter_number.unwrap_or(0) as usize;
            let to = kept
                .get(p)
                .ok_or_else(|| format!("parameter {p} is not among the kept arguments"))?;
            instr.attrs.parameter_number = Some(i64::from(*to));
        }
    }
    for (i, shape) in shapes.iter().enumerate() {
        if kept.iter().any(|&k| usize::from(k) == i) {
            continue;
        }
        let mut p = HloInstruction::new(
            format!("unused.{i}"),
            Opcode::Parameter,
            shape.clone().with_default_layouts(),
            Vec::<InstrId>::new(),
        );
        p.attrs.parameter_number = Some(i as i64);
        c.instructions.push(p);
    }
    module.entry_layout = None;
    Ok(())
}
