//! An HLO module as StableHLO text in MLIR's generic operation form, which
//! every MLIR tool reads (JAX's included) and [`parse_stablehlo`] reads
//! back to the same module.
//!
//! One HLO instruction is one StableHLO op; called computations become
//! the regions of the ops that call them (a `call` or `fusion` calls a
//! private function); tuples stay tuples (a `while` carries one tuple, as
//! HLO's does). Layouts are not printed (StableHLO has none), except a
//! custom call's operand and result layouts.
//!
//! [`parse_stablehlo`]: super::parse_stablehlo

mod function;
mod instruction;
mod properties;
mod syntax;

use std::collections::HashMap;

use crate::hlo::ComputationId;
use crate::HloModule;
use syntax::symbol;

/// Why a module has no StableHLO form here: the instruction and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("instruction `{instruction}`: {message}")]
pub struct PrintError {
    /// The instruction's name.
    pub instruction: String,
    /// What has no StableHLO form.
    pub message: String,
}

/// Prints `module` as StableHLO text: `module @name` with its replica and
/// partition counts, `@main` (the entry) and one private function per
/// computation that a `call` or `fusion` calls. The module is verified
/// first.
pub fn print_stablehlo(module: &HloModule) -> Result<String, PrintError> {
    crate::verify::verify_module(module).map_err(|e| PrintError {
        instruction: module.name.clone(),
        message: format!("an invalid module: {e}"),
    })?;
    let mut printer = Printer {
        module,
        out: String::new(),
        functions: Vec::new(),
        named: HashMap::new(),
    };
    printer.function_name(module.entry, "main");
    let mut i = 0;
    let mut bodies = Vec::new();
    while i < printer.functions.len() {
        let (id, name) = printer.functions[i].clone();
        bodies.push(printer.function(id, &name, i == 0)?);
        i += 1;
    }
    let mut out = format!(
        "module @{} attributes {{mhlo.num_partitions = {} : i32, mhlo.num_replicas = {} : i32}} {{\n",
        symbol(&module.name),
        module.num_partitions,
        module.replica_count
    );
    for body in bodies {
        out.push_str(&body);
    }
    out.push_str("}\n");
    Ok(out)
}

struct Printer<'m> {
    module: &'m HloModule,
    out: String,
    /// Computations printed as functions, in order, with their names.
    functions: Vec<(ComputationId, String)>,
    named: HashMap<ComputationId, String>,
}

/// The values of one function: each instruction's SSA name, per region.
struct Scope {
    next: usize,
}
