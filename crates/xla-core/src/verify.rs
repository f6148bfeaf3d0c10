//! The module verifier: re-checks everything a well-formed module promises,
//! re-inferring every instruction's shape with [`infer_instruction`].
//!
//! It checks, in order: the entry exists; computation names are unique;
//! every computation has a root, operands that come before their users,
//! called computations that exist, and parameters numbered `0…k−1`;
//! instruction names are unique in each computation (XLA accepts the same
//! name in two computations, and so do we); no computation calls itself
//! (directly or not); the entry matches `entry_computation_layout`; every
//! layout fits its shape; and every instruction's shape is the inferred one.
//!
//! Shapes are compared ignoring layouts and dynamic-dimension flags (bounds
//! are compared): inference does not track dynamism through every op.

use std::collections::HashMap;

use crate::hlo::{HloComputation, HloInstruction, HloModule, Opcode, ProgramShape};
use crate::infer::{infer_instruction, InferError};
use crate::layout::LayoutError;
use crate::Shape;

/// A module that breaks one of the IR's invariants.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VerifyError {
    // === module structure ===
    /// An `input_output_alias` entry that does not fit the entry signature.
    #[error("input_output_alias: result part {output} and parameter {parameter}: {reason}")]
    BadAlias {
        /// The result part's tuple index.
        output: String,
        /// The parameter number.
        parameter: i64,
        /// What does not fit.
        reason: String,
    },
    /// The entry id points past the computations.
    #[error("the entry computation #{entry} does not exist (the module has {count})")]
    MissingEntry {
        /// The entry id.
        entry: usize,
        /// How many computations there are.
        count: usize,
    },
    /// Two computations share a name.
    #[error("two computations are named {name}")]
    DuplicateComputation {
        /// The name.
        name: String,
    },
    /// Two instructions of one computation share a name.
    #[error("instruction name {name} is used twice in computation {computation}")]
    DuplicateInstruction {
        /// The name.
        name: String,
        /// The computation.
        computation: String,
    },
    /// A computation without instructions.
    #[error("computation {computation} has no instructions")]
    EmptyComputation {
        /// The computation.
        computation: String,
    },
    /// A root id past the instructions.
    #[error("the root #{root} of computation {computation} does not exist (it has {count} instructions)")]
    MissingRoot {
        /// The computation.
        computation: String,
        /// The root id.
        root: usize,
        /// How many instructions there are.
        count: usize,
    },
    /// An operand that is not an earlier instruction of the same computation.
    #[error(
        "instruction {instruction}: operand {index} refers to #{operand}, \
         which is not an earlier instruction of computation {computation}"
    )]
    OperandNotDefined {
        /// The computation.
        computation: String,
        /// The using instruction.
        instruction: String,
        /// The operand's position.
        index: usize,
        /// The id it refers to.
        operand: usize,
    },
    /// A called computation id past the computations.
    #[error("instruction {instruction} calls computation #{called}, which does not exist")]
    MissingCallee {
        /// The calling instruction.
        instruction: String,
        /// The computation id.
        called: usize,
    },
    /// A computation that calls itself, directly or through others.
    #[error("computations call each other in a cycle: {}", .cycle.join(" -> "))]
    Recursion {
        /// The computations on the cycle, the first repeated at the end.
        cycle: Vec<String>,
    },

    // === parameters ===
    /// A parameter number outside `0…k−1` for `k` parameters.
    #[error(
        "parameter {instruction} of computation {computation} has number {number}, \
         but the computation has {count} parameters (numbered from 0)"
    )]
    ParameterNumber {
        /// The computation.
        computation: String,
        /// The parameter instruction.
        instruction: String,
        /// Its number.
        number: i64,
        /// How many parameters the computation has.
        count: usize,
    },
    /// Two parameters with one number.
    #[error(
        "parameters {first} and {second} of computation {computation} both have number {number}"
    )]
    DuplicateParameter {
        /// The computation.
        computation: String,
        /// The first parameter.
        first: String,
        /// The second parameter.
        second: String,
        /// The shared number.
        number: i64,
    },
    /// `entry_computation_layout` with the wrong number of parameters.
    #[error(
        "entry_computation_layout has {layout} parameters, but the entry computation has {actual}"
    )]
    EntryLayoutArity {
        /// Parameters in the layout.
        layout: usize,
        /// Parameters of the entry computation.
        actual: usize,
    },
    /// `entry_computation_layout` whose shape differs from the entry's.
    #[error("entry_computation_layout gives {what} the shape {layout}, but the entry computation has {actual}")]
    EntryLayoutShape {
        /// `parameter 0` or `the result`.
        what: String,
        /// The shape in the layout.
        layout: Box<Shape>,
        /// The entry's shape.
        actual: Box<Shape>,
    },

    // === shapes and layouts ===
    /// A layout that does not fit its shape.
    #[error("{place}: the layout of {shape} is invalid: {source}")]
    InvalidLayout {
        /// Where: `instruction x.1` or `entry_computation_layout`.
        place: String,
        /// The shape.
        shape: Box<Shape>,
        /// What is wrong.
        source: LayoutError,
    },
    /// An instruction whose operands, attributes or callees break its rule.
    #[error("instruction {instruction}: {source}")]
    Infer {
        /// The instruction.
        instruction: String,
        /// The broken rule.
        source: Box<InferError>,
    },
    /// An instruction whose shape is not the inferred one.
    #[error("instruction {instruction} ({opcode}): inferred {inferred} but the instruction says {declared}")]
    ShapeMismatch {
        /// The instruction.
        instruction: String,
        /// Its op.
        opcode: Opcode,
        /// The inferred shape.
        inferred: Box<Shape>,
        /// The instruction's shape.
        declared: Box<Shape>,
    },
}

/// Verifies a whole module (see the module docs for what is checked).
pub fn verify_module(module: &HloModule) -> Result<(), VerifyError> {
    let count = module.computations.len();
    if module.entry.index() >= count {
        return Err(VerifyError::MissingEntry {
            entry: module.entry.index(),
            count,
        });
    }
    let mut computation_names = HashMap::new();
    for c in &module.computations {
        if computation_names.insert(c.name.as_str(), ()).is_some() {
            return Err(VerifyError::DuplicateComputation {
                name: c.name.clone(),
            });
        }
        verify_structure(c, count)?;
    }
    for c in &module.computations {
        let mut names = std::collections::HashSet::new();
        for instr in &c.instructions {
            if !names.insert(instr.name.as_str()) {
                return Err(VerifyError::DuplicateInstruction {
                    name: instr.name.clone(),
                    computation: c.name.clone(),
                });
            }
        }
    }
    verify_acyclic(module)?;
    let signatures: Vec<ProgramShape> = module
        .computations
        .iter()
        .map(HloComputation::program_shape)
        .collect();
    if let Some(layout) = &module.entry_layout {
        verify_entry_layout(layout, &signatures[module.entry.index()])?;
    }
    verify_aliases(module, &signatures[module.entry.index()])?;
    for c in &module.computations {
        for instr in &c.instructions {
            verify_shape(c, instr, &signatures)?;
        }
    }
    Ok(())
}

/// Each `input_output_alias` entry names a result part and a parameter
/// part that exist, have one array shape (layouts aside), and no parameter
/// part is given to two results.
fn verify_aliases(module: &HloModule, signature: &ProgramShape) -> Result<(), VerifyError> {
    let part = |shape: &Shape, index: &[i64]| -> Option<Shape> {
        let mut shape = shape;
        for &k in index {
            shape = shape.tuple_shapes()?.get(usize::try_from(k).ok()?)?;
        }
        Some(shape.clone())
    };
    let mut taken = std::collections::HashSet::new();
    for alias in &module.input_output_alias {
        let bad = |reason: &str| VerifyError::BadAlias {
            output: format!("{:?}", alias.output_index),
            parameter: alias.parameter,
            reason: reason.to_string(),
        };
        let output = part(&signature.result, &alias.output_index)
            .ok_or_else(|| bad("the result has no such part"))?;
        let parameter = usize::try_from(alias.parameter)
            .ok()
            .and_then(|p| signature.parameters.get(p))
            .and_then(|p| part(p, &alias.parameter_index))
            .ok_or_else(|| bad("the parameter has no such part"))?;
        if !output.is_array() || !output.eq_ignoring_layout(&parameter) {
            return Err(bad(&format!(
                "the result part is {} and the parameter part {}",
                output.without_layouts(),
                parameter.without_layouts()
            )));
        }
        if !taken.insert((alias.parameter, alias.parameter_index.clone())) {
            return Err(bad(
                "the parameter part is given to another result part too",
            ));
        }
    }
    Ok(())
}

/// Root, operands, callees and parameter numbers of one computation.
fn verify_structure(c: &HloComputation, computation_count: usize) -> Result<(), VerifyError> {
    let count = c.instructions.len();
    if count == 0 {
        return Err(VerifyError::EmptyComputation {
            computation: c.name.clone(),
        });
    }
    if c.root.index() >= count {
        return Err(VerifyError::MissingRoot {
            computation: c.name.clone(),
            root: c.root.index(),
            count,
        });
    }
    for (position, instr) in c.instructions.iter().enumerate() {
        for (index, operand) in instr.operands.iter().enumerate() {
            if operand.index() >= position {
                return Err(VerifyError::OperandNotDefined {
                    computation: c.name.clone(),
                    instruction: instr.name.clone(),
                    index,
                    operand: operand.index(),
                });
            }
        }
        if let Some(called) = instr
            .called
            .iter()
            .find(|id| id.index() >= computation_count)
        {
            return Err(VerifyError::MissingCallee {
                instruction: instr.name.clone(),
                called: called.index(),
            });
        }
    }
    verify_parameters(c)
}

/// Parameter numbers are exactly `0…k−1` for `k` parameters.
fn verify_parameters(c: &HloComputation) -> Result<(), VerifyError> {
    let params: Vec<&HloInstruction> = c
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Parameter)
        .collect();
    let mut by_number: Vec<Option<&str>> = vec![None; params.len()];
    for p in &params {
        let Some(number) = p.attrs.parameter_number else {
            // infer_instruction reports the missing number with the op's name.
            continue;
        };
        let slot = usize::try_from(number)
            .ok()
            .and_then(|n| by_number.get_mut(n))
            .ok_or_else(|| VerifyError::ParameterNumber {
                computation: c.name.clone(),
                instruction: p.name.clone(),
                number,
                count: params.len(),
            })?;
        if let Some(first) = slot.replace(&p.name) {
            return Err(VerifyError::DuplicateParameter {
                computation: c.name.clone(),
                first: first.to_string(),
                second: p.name.clone(),
                number,
            });
        }
    }
    Ok(())
}

/// No computation reaches itself through called computations (callees
/// that do not exist are reported before).
fn verify_acyclic(module: &HloModule) -> Result<(), VerifyError> {
    match module.callees_first() {
        Err(Some(cycle)) => Err(VerifyError::Recursion {
            cycle: cycle
                .into_iter()
                .map(|c| module.computations[c].name.clone())
                .collect(),
        }),
        Ok(_) | Err(None) => Ok(()),
    }
}

/// Same element types, dimension sizes and tuple structure; layouts and
/// dynamic-dimension flags ignored.
pub(crate) fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => {
            x.element_type() == y.element_type() && x.dims() == y.dims()
        }
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q))
        }
        (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
        _ => false,
    }
}

/// `entry_computation_layout` has valid layouts and the entry's shapes.
fn verify_entry_layout(layout: &ProgramShape, entry: &ProgramShape) -> Result<(), VerifyError> {
    if layout.parameters.len() != entry.parameters.len() {
        return Err(VerifyError::EntryLayoutArity {
            layout: layout.parameters.len(),
            actual: entry.parameters.len(),
        });
    }
    let pairs = layout
        .parameters
        .iter()
        .zip(&entry.parameters)
        .enumerate()
        .map(|(i, pair)| (format!("parameter {i}"), pair))
        .chain([("the result".to_string(), (&layout.result, &entry.result))]);
    for (what, (given, actual)) in pairs {
        given
            .validate()
            .map_err(|source| VerifyError::InvalidLayout {
                place: "entry_computation_layout".to_string(),
                shape: Box::new(given.clone()),
                source,
            })?;
        if !same_shape(given, actual) {
            return Err(VerifyError::EntryLayoutShape {
                what,
                layout: Box::new(given.clone()),
                actual: Box::new(actual.clone()),
            });
        }
    }
    Ok(())
}

/// The instruction's layouts fit its shape, and the shape is the inferred one.
fn verify_shape(
    c: &HloComputation,
    instr: &HloInstruction,
    signatures: &[ProgramShape],
) -> Result<(), VerifyError> {
    instr
        .shape
        .validate()
        .map_err(|source| VerifyError::InvalidLayout {
            place: format!("instruction {}", instr.name),
            shape: Box::new(instr.shape.clone()),
            source,
        })?;
    let operands: Vec<&Shape> = instr
        .operands
        .iter()
        .map(|&id| &c.instr(id).shape)
        .collect();
    let called: Vec<ProgramShape> = instr
        .called
        .iter()
        .map(|id| signatures[id.index()].clone())
        .collect();
    let infer = |instr: &HloInstruction, called: &[ProgramShape]| {
        infer_instruction(instr.opcode, &operands, &instr.attrs, called, &instr.shape).map_err(
            |source| VerifyError::Infer {
                instruction: instr.name.clone(),
                source: Box::new(source),
            },
        )
    };
    let inferred = infer(instr, &called)?;
    // XLA's `TopK` custom call is the `topk` it computes (its comparator
    // aside), which passes compile and which checks `k` against the
    // operand.
    if let Some(topk) = instr.xla_topk_as_topk() {
        infer(&topk, &[])?;
    }
    if same_shape(&inferred, &instr.shape) {
        Ok(())
    } else {
        Err(VerifyError::ShapeMismatch {
            instruction: instr.name.clone(),
            opcode: instr.opcode,
            inferred: Box::new(inferred),
            declared: Box::new(instr.shape.clone().without_layouts()),
        })
    }
}
