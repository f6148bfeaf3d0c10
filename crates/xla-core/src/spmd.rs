//! Programs for several devices: the per-device program of a module.
//!
//! JAX writes a program for `N` devices (`shard_map`, and `pmap`, which JAX
//! 0.10 lowers through `shard_map`) as a module over global shapes whose
//! entry only converts each argument to its local shard
//! (`xla.sdy.GlobalToLocalShape`), calls the per-device body, and converts
//! the results back (`xla.sdy.LocalToGlobalShape`). The framework hands
//! each device its shard, so the program each device runs is that entry
//! with the conversions taken out: parameters of the local shapes, the
//! body's results as they are. A module with more than that in its entry
//! needs XLA's automatic SPMD partitioner, which this project does not
//! have; replicated modules (several replicas, one partition, no
//! conversions) run as they are on every device.
//!
//! The shard conversions carry the values' HLO shardings, one per line,
//! in their `backend_config` (the StableHLO lowering writes them from
//! Shardy's), which a runtime reports back to the framework.

use crate::hlo::{HloComputation, InstrId, Opcode};
use crate::verify::{verify_module, VerifyError};
use crate::{HloModule, Shape};

/// Why a module has no per-device program here.
#[derive(Debug, thiserror::Error)]
pub enum SpmdError {
    /// Its partitioning is left to XLA's automatic SPMD partitioner.
    #[error(
        "`{module}` is partitioned over {partitions} devices by sharding annotations; only \
         programs whose partitioning is written out (`shard_map`, `pmap`) run per device, \
         not XLA's automatic SPMD partitioning"
    )]
    Automatic {
        /// The module's name.
        module: String,
        /// Its partition count.
        partitions: i64,
    },
    /// Its entry does more than move shards in and out of one body.
    #[error(
        "`{module}` has {what} in its entry; multi-device programs run per device when their \
         entry only moves shards in and out of one `shard_map` body"
    )]
    NotManual {
        /// The module's name.
        module: String,
        /// What is in the way.
        what: String,
    },
    /// The per-device program does not verify (a malformed module).
    #[error("the per-device program of `{module}`: {error}")]
    Verify {
        /// The module's name.
        module: String,
        /// The verifier's error.
        error: VerifyError,
    },
}

const GLOBAL_TO_LOCAL: &str = "xla.sdy.GlobalToLocalShape";
const LOCAL_TO_GLOBAL: &str = "xla.sdy.LocalToGlobalShape";

/// The program each device runs, and how the framework's global values
/// are split into its arguments and results.
pub struct PerDevice {
    /// The program each device runs.
    pub module: HloModule,
    /// The HLO shardings of the parameters and results, when the module
    /// gives them (shard_map does).
    pub shardings: Option<Shardings>,
}

/// HLO sharding strings (`{devices=[2,1]<=[2]}`), one per value.
#[derive(Clone, Debug, PartialEq)]
pub struct Shardings {
    /// One per entry parameter.
    pub parameters: Vec<String>,
    /// One per result (tuple element).
    pub outputs: Vec<String>,
}

/// The program each device of `module` runs.
pub fn per_device(mut module: HloModule) -> Result<PerDevice, SpmdError> {
    let entry = module.entry.index();
    let name = module.name.clone();
    let computation = &mut module.computations[entry];
    let targets: Vec<Option<String>> = (computation.instructions.iter())
        .map(|i| i.attrs.custom_call_target.clone())
        .collect();
    let manual = (targets.iter().flatten()).any(|t| t == GLOBAL_TO_LOCAL || t == LOCAL_TO_GLOBAL);
    let shardings = manual.then(|| shardings(computation, &targets)).flatten();
    if !manual {
        if module.num_partitions > 1 {
            return Err(SpmdError::Automatic {
                module: name,
                partitions: module.num_partitions,
            });
        }
        return Ok(PerDevice {
            module,
            shardings: None,
        });
    }
    for (i, target) in targets.iter().enumerate() {
        let instruction = &computation.instructions[i];
        match (instruction.opcode, target.as_deref()) {
            (Opcode::Parameter | Opcode::Call | Opcode::Tuple | Opcode::GetTupleElement, _) => {}
            (Opcode::CustomCall, Some(GLOBAL_TO_LOCAL)) => {
                // Each operand, a parameter, becomes its shard (the
                // result's element for several operands); the conversion
                // passes them on.
                let operands = instruction.operands.clone();
                let locals: Vec<Shape> = match (&instruction.shape, operands.len()) {
                    (shape, 1) => vec![shape.clone()],
                    (Shape::Tuple(elements), n) if elements.len() == n => elements.clone(),
                    _ => return Err(not_manual(&name, "a malformed shard conversion")),
                };
                for (operand, local) in operands.iter().zip(locals) {
                    if computation.instr(*operand).opcode != Opcode::Parameter {
                        return Err(not_manual(&name, "a shard conversion of a computed value"));
                    }
                    computation.instructions[operand.index()].shape = local;
                }
                pass_on(&mut computation.instructions[i]);
            }
            (Opcode::CustomCall, Some(LOCAL_TO_GLOBAL)) => {
                // Each device returns its shards as they are.
                pass_on(&mut computation.instructions[i]);
            }
            (opcode, _) => {
                let what = format!("`{}` ({opcode:?}) outside the body", instruction.name);
                return Err(not_manual(&name, &what));
            }
        }
    }
    // Copies, tuples and their elements take the local shapes.
    for i in 0..computation.instructions.len() {
        let instruction = &computation.instructions[i];
        let shape = match instruction.opcode {
            Opcode::Copy => computation.instr(instruction.operands[0]).shape.clone(),
            Opcode::Tuple => Shape::tuple(
                (instruction.operands.iter())
                    .map(|&o| computation.instr(o).shape.clone())
                    .collect::<Vec<_>>(),
            ),
            Opcode::GetTupleElement => {
                let index = instruction.attrs.tuple_index.unwrap_or(0) as usize;
                let tuple = &computation.instr(instruction.operands[0]).shape;
                match tuple.tuple_shapes().and_then(|t| t.get(index)) {
                    Some(shape) => shape.clone(),
                    None => return Err(not_manual(&name, "a tuple index out of range")),
                }
            }
            _ => continue,
        };
        computation.instructions[i].shape = shape;
    }
    module.entry_layout = None;
    verify_module(&module).map_err(|error| SpmdError::Verify {
        module: name,
        error,
    })?;
    Ok(PerDevice { module, shardings })
}

/// The parameters' and results' shardings, from the shard conversions'
/// `backend_config` (the loader writes one HLO sharding per line there).
fn shardings(computation: &HloComputation, targets: &[Option<String>]) -> Option<Shardings> {
    let lines = |i: usize| -> Vec<String> {
        let config = computation.instructions[i]
            .attrs
            .backend_config
            .as_deref()
            .unwrap_or("");
        config.lines().map(str::to_string).collect()
    };
    let is = |i: usize, target: &str| targets[i].as_deref() == Some(target);
    // Parameter p's sharding: its operand slot in the conversion taking it.
    let mut parameters = Vec::new();
    for (i, instruction) in computation.instructions.iter().enumerate() {
        if instruction.opcode != Opcode::Parameter {
            continue;
        }
        let number = instruction.attrs.parameter_number? as usize;
        let (user, slot) = (computation.instructions.iter().enumerate())
            .filter(|(u, _)| is(*u, GLOBAL_TO_LOCAL))
            .find_map(|(u, user)| Some((u, user.operands.iter().position(|o| o.index() == i)?)))?;
        parameters.resize(parameters.len().max(number + 1), String::new());
        parameters[number] = lines(user).get(slot)?.clone();
    }
    // Result k's sharding: the conversion element it is.
    let element = |id: InstrId| -> Option<String> {
        let instruction = computation.instr(id);
        match instruction.opcode {
            Opcode::GetTupleElement if is(instruction.operands[0].index(), LOCAL_TO_GLOBAL) => {
                let k = instruction.attrs.tuple_index? as usize;
                lines(instruction.operands[0].index()).get(k).cloned()
            }
            Opcode::CustomCall if is(id.index(), LOCAL_TO_GLOBAL) => {
                lines(id.index()).first().cloned()
            }
            _ => None,
        }
    };
    let root = computation.instr(computation.root);
    let outputs = match root.opcode {
        Opcode::Tuple => root
            .operands
            .iter()
            .map(|&o| element(o))
            .collect::<Option<Vec<_>>>()?,
        Opcode::CustomCall if is(computation.root.index(), LOCAL_TO_GLOBAL) => {
            lines(computation.root.index())
        }
        _ => vec![element(computation.root)?],
    };
    (!parameters.iter().any(String::is_empty)).then_some(Shardings {
        parameters,
        outputs,
    })
}

/// Turns a shard conversion into what passes its operands on: a copy of
/// one operand, a tuple of several (its shape is set afterwards).
fn pass_on(instruction: &mut crate::HloInstruction) {
    instruction.opcode = match instruction.operands.len() {
        1 => Opcode::Copy,
        _ => Opcode::Tuple,
    };
    instruction.attrs = Default::default();
}

fn not_manual(name: &str, what: &str) -> SpmdError {
    SpmdError::NotManual {
        module: name.to_string(),
        what: what.to_string(),
    }
}
