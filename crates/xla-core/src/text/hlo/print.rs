//! The HLO module printer: XLA's canonical text, as JAX prints it.
//!
//! ```text
//! HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}
//!
//! region_0.1 {
//!   a.1 = f32[] parameter(0)
//!   b.1 = f32[] parameter(1)
//!   ROOT add.1 = f32[] add(a.1, b.1)
//! }
//!
//! ENTRY main.2 {
//!   …
//! }
//!
//! ```
//!
//! Computations come callees first (XLA's post order: a module parsed from
//! XLA's text prints in its original order); each computation is followed
//! by a blank line.

use std::fmt;

use super::keys::{keys, Key};
use super::values::{backend_config, print_value};
use crate::hlo::{
    ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode, ProgramShape,
};
use crate::text::literal::{write_literal, LiteralFormat};
use crate::PrimitiveType;

/// The computations in printing order: every callee before its callers,
/// otherwise in module order.
pub fn computation_post_order(module: &HloModule) -> Vec<ComputationId> {
    fn visit(
        module: &HloModule,
        id: ComputationId,
        seen: &mut [bool],
        order: &mut Vec<ComputationId>,
    ) {
        if seen[id.index()] {
            return;
        }
        seen[id.index()] = true;
        for instr in &module.computation(id).instructions {
            for &callee in &instr.called {
                if callee.index() < seen.len() {
                    visit(module, callee, seen, order);
                }
            }
        }
        order.push(id);
    }
    let mut seen = vec![false; module.computations.len()];
    let mut order = Vec::with_capacity(module.computations.len());
    for id in module.computation_ids() {
        visit(module, id, &mut seen, &mut order);
    }
    order
}

/// `(f32[2]{0}, s32[])->f32[2]{0}`, as in `entry_computation_layout`.
fn program_shape(p: &ProgramShape) -> String {
    let params: Vec<String> = p.parameters.iter().map(ToString::to_string).collect();
    format!("({})->{}", params.join(", "), p.result)
}

impl fmt::Display for HloModule {
    /// The whole module in XLA's text syntax; parsing it gives back an equal
    /// module.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HloModule {}", self.name)?;
        if let Some(layout) = &self.entry_layout {
            write!(
                f,
                ", entry_computation_layout={{{}}}",
                program_shape(layout)
            )?;
        }
        if !self.input_output_alias.is_empty() {
            let aliases = super::lists::input_output_alias(&self.input_output_alias);
            write!(f, ", input_output_alias={aliases}")?;
        }
        if self.replica_count != 1 {
            write!(f, ", replica_count={}", self.replica_count)?;
        }
        if self.num_partitions != 1 {
            write!(f, ", num_partitions={}", self.num_partitions)?;
        }
        f.write_str("\n\n")?;
        for id in computation_post_order(self) {
            write!(f, "{}\n\n", self.display_computation(id))?;
        }
        Ok(())
    }
}

impl HloModule {
    /// Displays one computation (`name {` … `}`), with `ENTRY` if it is the
    /// entry.
    pub fn display_computation(&self, id: ComputationId) -> ComputationDisplay<'_> {
        ComputationDisplay { module: self, id }
    }

    /// Displays one instruction as in a dump: `add.1 = f32[] add(a.1, b.1)`
    /// (without `ROOT` or indentation).
    pub fn display_instruction(
        &self,
        computation: ComputationId,
        id: InstrId,
    ) -> InstructionDisplay<'_> {
        InstructionDisplay {
            module: self,
            computation: self.computation(computation),
            id,
        }
    }
}

/// A computation's text; see [`HloModule::display_computation`].
pub struct ComputationDisplay<'a> {
    module: &'a HloModule,
    id: ComputationId,
}

impl fmt::Display for ComputationDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let computation = self.module.computation(self.id);
        if self.id == self.module.entry {
            f.write_str("ENTRY ")?;
        }
        writeln!(f, "{} {{", computation.name)?;
        for id in computation.ids() {
            let root = if id == computation.root { "ROOT " } else { "" };
            let instr = InstructionDisplay {
                module: self.module,
                computation,
                id,
            };
            writeln!(f, "  {root}{instr}")?;
        }
        f.write_str("}")
    }
}

/// An instruction's text; see [`HloModule::display_instruction`].
pub struct InstructionDisplay<'a> {
    module: &'a HloModule,
    computation: &'a HloComputation,
    id: InstrId,
}

impl fmt::Display for InstructionDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let instr = self.computation.instr(self.id);
        let op = instr.opcode;
        write!(f, "{} = {} {op}(", instr.name, instr.shape)?;
        match op {
            Opcode::Parameter => match instr.attrs.parameter_number {
                Some(n) => write!(f, "{n}")?,
                None => f.write_str("/*missing number*/")?,
            },
            Opcode::Constant => match &instr.attrs.literal {
                Some(literal) => {
                    let mut text = String::new();
                    write_literal(&mut text, literal, LiteralFormat::CONSTANT);
                    f.write_str(&text)?;
                }
                None => f.write_str("/*missing literal*/")?,
            },
            _ => {
                for (i, &operand) in instr.operands.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match self.computation.instructions.get(operand.index()) {
                        Some(o) => f.write_str(&o.name)?,
                        None => write!(f, "/*invalid operand {}*/", operand.0)?,
                    }
                }
            }
        }
        f.write_str(")")?;
        for &key in keys(op) {
            let value = match key.called_slot() {
                Some(_) => self.called_value(key, instr),
                None => print_value(key, op, &instr.attrs),
            };
            if let Some(value) = value {
                write!(f, ", {}={value}", key.name())?;
            }
        }
        if let Some(config) = &instr.attrs.backend_config {
            write!(f, ", backend_config={}", backend_config(config))?;
        }
        Ok(())
    }
}

impl InstructionDisplay<'_> {
    fn name_of(&self, id: ComputationId) -> &str {
        self.module
            .computations
            .get(id.index())
            .map_or("/*invalid computation*/", |c| c.name.as_str())
    }

    /// The value of a computation-valued key, by the op's layout of `called`.
    fn called_value(&self, key: Key, instr: &HloInstruction) -> Option<String> {
        let called = &instr.called;
        let one = |slot: usize| called.get(slot).map(|&id| self.name_of(id).to_string());
        let list = || {
            let names: Vec<&str> = called.iter().map(|&id| self.name_of(id)).collect();
            format!("{{{}}}", names.join(", "))
        };
        // A conditional on a pred prints its two branches by name; on an
        // index, as a list.
        let predicated = instr.opcode == Opcode::Conditional
            && called.len() == 2
            && instr
                .operands
                .first()
                .and_then(|&o| self.computation.instructions.get(o.index()))
                .is_some_and(|o| o.shape.element_type() == Some(PrimitiveType::Pred));
        match key {
            Key::TrueComputation if predicated => one(0),
            Key::FalseComputation if predicated => one(1),
            Key::TrueComputation | Key::FalseComputation => None,
            Key::BranchComputations => (!predicated).then(list),
            Key::CalledComputations => (!called.is_empty()).then(list),
            Key::Condition | Key::ToApply | Key::Calls | Key::Select => one(0),
            Key::Body | Key::Scatter => one(1),
            _ => unreachable!("`{}` is not computation-valued", key.name()),
        }
    }
}
