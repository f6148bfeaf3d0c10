//! The HLO module parser.
//!
//! ```text
//! module      := "HloModule" NAME ("," header_attr)* computation* debug_table*
//! computation := ["ENTRY"] NAME [signature] "{" instruction+ "}" ("," NAME "=" value)*
//! signature   := "(" [NAME ":" shape ("," NAME ":" shape)*] ")" "->" shape
//! instruction := ["ROOT"] NAME "=" shape OPCODE "(" operands ")" ("," NAME "=" value)*
//! operands    := [[shape] NAME ("," [shape] NAME)*] | INT (parameter) | literal (constant)
//! NAME        := ["%"] name
//! ```
//!
//! Names resolve within their computation and must be defined before use;
//! called computations may be defined anywhere in the module. The entry is
//! the computation marked `ENTRY`, else the last one; the root is the
//! instruction marked `ROOT`, else the last one.

use std::collections::HashMap;

use super::keys::{is_dropped, keys, required_computations, CalledSlot, Key};
use super::values::parse_value;
use crate::hlo::{
    Arity, ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode, ProgramShape,
};
use crate::text::literal::parse_literal_payload;
use crate::text::shape::{parse_shape, parse_shape_tight};
use crate::text::{Cursor, ParseError};
use crate::PrimitiveType;

/// Header attributes that carry nothing this crate uses.
const DROPPED_HEADER_ATTRS: &[&str] = &[
    "is_scheduled",
    "buffer_donor",
    "alias_passthrough_params",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output",
    "frontend_attributes",
];

/// Tables newer XLA prints after the computations (source locations).
const DEBUG_TABLES: &[&str] = &["FileNames", "FunctionNames", "FileLocations", "StackFrames"];

/// Parses an HLO module in XLA's text syntax (as JAX prints it, or as XLA
/// dumps it).
///
/// ```
/// let m = xla_core::text::parse_hlo_module(
///     "HloModule m\n\nENTRY main {\n  x = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(x)\n}\n",
/// )?;
/// assert_eq!(m.entry_computation().root_instr().name, "n");
/// # Ok::<(), xla_core::text::ParseError>(())
/// ```
pub fn parse_hlo_module(text: &str) -> Result<HloModule, ParseError> {
    let mut p = ModuleParser {
        c: Cursor::new(text),
        computations: Vec::new(),
        names: HashMap::new(),
        calls: Vec::new(),
        entry: None,
    };
    p.module()
}

/// A computation reference waiting for every computation to be known.
struct PendingCall<'a> {
    computation: usize,
    instruction: InstrId,
    key: Key,
    names: Vec<(&'a str, usize)>,
}

struct ModuleParser<'a> {
    c: Cursor<'a>,
    computations: Vec<HloComputation>,
    /// Computation name → (index, position of its name).
    names: HashMap<&'a str, (usize, usize)>,
    calls: Vec<PendingCall<'a>>,
    /// The `ENTRY` computation and the position of its keyword.
    entry: Option<(usize, usize)>,
}

impl<'a> ModuleParser<'a> {
    fn module(&mut self) -> Result<HloModule, ParseError> {
        self.c.skip_ws();
        if !self.c.eat_keyword("HloModule") {
            return Err(self.c.error("`HloModule`"));
        }
        let name = self.c.expect_hlo_name("a module name")?;
        let mut module = HloModule::new(name, Vec::new(), ComputationId(0));
        while self.c.eat(",") {
            self.header_attr(&mut module)?;
        }
        while !self.c.at_end() {
            if let Some(table) = self.debug_table() {
                self.skip_debug_table(table)?;
            } else {
                self.computation()?;
            }
        }
        if self.computations.is_empty() {
            return Err(self.c.error("a computation"));
        }
        self.resolve_calls()?;
        let entry = self.entry.map_or(self.computations.len() - 1, |(i, _)| i);
        module.computations = std::mem::take(&mut self.computations);
        module.entry = ComputationId(entry as u32);
        Ok(module)
    }

    fn header_attr(&mut self, module: &mut HloModule) -> Result<(), ParseError> {
        let c = &mut self.c;
        c.skip_ws();
        let at = c.pos();
        let key = c.expect_name("a module attribute")?;
        c.expect("=")?;
        match key {
            "entry_computation_layout" => {
                c.expect("{")?;
                c.expect("(")?;
                let mut parameters = Vec::new();
                while !c.eat(")") {
                    if !parameters.is_empty() {
                        c.expect(",")?;
                    }
                    parameters.push(parse_shape(c)?);
                }
                c.expect("->")?;
                let result = parse_shape(c)?;
                c.expect("}")?;
                module.entry_layout = Some(ProgramShape { parameters, result });
            }
            "replica_count" | "num_partitions" => {
                c.skip_ws();
                let value_at = c.pos();
                let n = c.int()?;
                if n < 1 {
                    return Err(c.error_at(value_at, format!("a positive {key}")));
                }
                match key {
                    "replica_count" => module.replica_count = n,
                    _ => module.num_partitions = n,
                }
            }
            "input_output_alias" => {
                module.input_output_alias = super::lists::parse_input_output_alias(c)?;
            }
            _ if DROPPED_HEADER_ATTRS.contains(&key) => c.skip_value()?,
            _ => return Err(c.message_at(at, format!("unknown module attribute `{key}`"))),
        }
        Ok(())
    }

    /// The debug table that starts here, if one does: its keyword followed
    /// by a row number or the end (a computation's name is followed by `{`
    /// or its signature).
    fn debug_table(&mut self) -> Option<&'static str> {
        let save = self.c.pos();
        let word = self.c.name();
        let table = DEBUG_TABLES.iter().copied().find(|&t| Some(t) == word);
        let is_table = table.is_some() && !self.c.looking_at("{") && !self.c.looking_at("(");
        self.c.set_pos(save);
        table.filter(|_| is_table)
    }

    /// Skips a `FileNames`-style table: `INT "string"` or `INT {…}` rows.
    fn skip_debug_table(&mut self, table: &str) -> Result<(), ParseError> {
        let c = &mut self.c;
        c.expect(table)?;
        while c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
            c.int()?;
            if c.looking_at("\"") {
                c.string()?;
            } else {
                c.balanced()?;
            }
        }
        Ok(())
    }

    fn computation(&mut self) -> Result<(), ParseError> {
        self.c.skip_ws();
        let entry_at = self.c.pos();
        let is_entry = self.c.eat_keyword("ENTRY");
        self.c.skip_ws();
        let name_at = self.c.pos();
        let name = self.c.expect_hlo_name("a computation name (or `ENTRY`)")?;
        let index = self.computations.len();
        if let Some(&(_, first)) = self.names.get(name) {
            let (line, col) = line_col(&self.c, first);
            return Err(self.c.message_at(
                name_at,
                format!("computation `{name}` is already defined at {line}:{col}"),
            ));
        }
        self.names.insert(name, (index, name_at));
        if is_entry {
            if let Some((_, first)) = self.entry {
                let (line, col) = line_col(&self.c, first);
                return Err(self.c.message_at(
                    entry_at,
                    format!("a second ENTRY computation (the first is at {line}:{col})"),
                ));
            }
            self.entry = Some((index, entry_at));
        }
        if self.c.eat("(") {
            self.skip_signature()?;
        }
        self.c.expect("{")?;
        let mut body = Body::default();
        while !self.c.eat("}") {
            if self.c.at_end() {
                return Err(self.c.error(format!("`}}` closing computation `{name}`")));
            }
            self.instruction(index, &mut body)?;
        }
        if body.instructions.is_empty() {
            return Err(self
                .c
                .message_at(name_at, format!("computation `{name}` has no instructions")));
        }
        while self.c.eat(",") {
            self.c.expect_name("a computation attribute")?;
            self.c.expect("=")?;
            self.c.skip_value()?;
        }
        let root = body
            .root
            .map_or(body.instructions.len() - 1, |(id, _)| id.index());
        self.computations.push(HloComputation {
            name: name.to_string(),
            instructions: body.instructions,
            root: InstrId(root as u32),
        });
        Ok(())
    }

    /// Skips `(p: f32[], q: s32[]) -> f32[]` after the `(`: the parameter
    /// instructions carry the same shapes.
    fn skip_signature(&mut self) -> Result<(), ParseError> {
        let c = &mut self.c;
        let mut first = true;
        while !c.eat(")") {
            if !first {
                c.expect(",")?;
            }
            first = false;
            c.expect_hlo_name("a parameter name")?;
            c.expect(":")?;
            parse_shape_tight(c)?;
        }
        c.expect("->")?;
        parse_shape_tight(c).map(drop)
    }

    fn instruction(&mut self, computation: usize, body: &mut Body<'a>) -> Result<(), ParseError> {
        self.c.skip_ws();
        let root_at = self.c.pos();
        let is_root = self.c.eat_keyword("ROOT");
        self.c.skip_ws();
        let name_at = self.c.pos();
        let name = self
            .c
            .expect_hlo_name("an instruction name, `ROOT` or `}`")?;
        let id = InstrId(body.instructions.len() as u32);
        if let Some(&(_, first)) = body.names.get(name) {
            let (line, col) = line_col(&self.c, first);
            return Err(self.c.message_at(
                name_at,
                format!("instruction `{name}` is already defined at {line}:{col}"),
            ));
        }
        if is_root {
            if let Some((_, first)) = body.root {
                let (line, col) = line_col(&self.c, first);
                return Err(self.c.message_at(
                    root_at,
                    format!("a second ROOT in this computation (the first is at {line}:{col})"),
                ));
            }
            body.root = Some((id, root_at));
        }
        self.c.expect("=")?;
        let shape = parse_shape(&mut self.c)?;
        self.c.skip_ws();
        let op_at = self.c.pos();
        let op_name = self.c.expect_name("an opcode")?;
        let op = Opcode::from_name(op_name).ok_or_else(|| {
            self.c
                .message_at(op_at, format!("unknown opcode `{op_name}`"))
        })?;
        self.c.expect("(")?;
        let mut instr = HloInstruction::new(name, op, shape, Vec::new());
        match op {
            Opcode::Parameter => {
                let at = self.c.pos();
                let n = self.c.int()?;
                if n < 0 {
                    return Err(self.c.error_at(at, "a parameter number ≥ 0"));
                }
                instr.attrs.parameter_number = Some(n);
            }
            Opcode::Constant => {
                let literal = parse_literal_payload(&mut self.c, &instr.shape)?;
                instr.attrs.literal = Some(literal);
            }
            _ => instr.operands = self.operands(body, computation)?,
        }
        self.c.expect(")")?;
        if let Arity::Fixed(n) = op.arity() {
            let found = instr.operands.len();
            if found != n {
                let s = if n == 1 { "" } else { "s" };
                return Err(self
                    .c
                    .message_at(op_at, format!("`{op}` takes {n} operand{s}, found {found}")));
            }
        }
        self.attributes(computation, id, &mut instr, op_at)?;
        body.names.insert(name, (id, name_at));
        body.instructions.push(instr);
        Ok(())
    }

    fn operands(
        &mut self,
        body: &Body<'a>,
        computation: usize,
    ) -> Result<Vec<InstrId>, ParseError> {
        let mut operands = Vec::new();
        if self.c.looking_at(")") {
            return Ok(operands);
        }
        loop {
            if self.starts_shape() {
                parse_shape(&mut self.c)?;
            }
            self.c.skip_ws();
            let at = self.c.pos();
            let name = self.c.expect_hlo_name("an operand name")?;
            let &(id, _) = body.names.get(name).ok_or_else(|| {
                let comp = self.computation_name(computation);
                self.c.message_at(
                    at,
                    format!("unknown operand `{name}`: no instruction of that name is defined earlier in computation `{comp}`"),
                )
            })?;
            operands.push(id);
            if !self.c.eat(",") {
                return Ok(operands);
            }
        }
    }

    /// `true` if an old-style operand shape (`f32[2]{0} %x`) comes next.
    fn starts_shape(&mut self) -> bool {
        let save = self.c.pos();
        let is_shape = self.c.looking_at("(")
            || self.c.name().is_some_and(|n| {
                (PrimitiveType::from_name(n).is_some() || n == "token" || n == "opaque")
                    && self.c.rest().starts_with('[')
            });
        self.c.set_pos(save);
        is_shape
    }

    fn attributes(
        &mut self,
        computation: usize,
        id: InstrId,
        instr: &mut HloInstruction,
        op_at: usize,
    ) -> Result<(), ParseError> {
        let op = instr.opcode;
        let mut seen: Vec<&str> = Vec::new();
        let mut calls: Vec<(Key, Vec<(&'a str, usize)>)> = Vec::new();
        while self.c.eat(",") {
            self.c.skip_ws();
            let at = self.c.pos();
            let name = self.c.expect_name("an attribute name")?;
            self.c.expect("=")?;
            if seen.contains(&name) {
                return Err(self
                    .c
                    .message_at(at, format!("attribute `{name}` is given twice")));
            }
            seen.push(name);
            let key = Key::from_name(name).filter(|k| keys(op).contains(k));
            match key {
                Some(key) if key.called_slot().is_some() => {
                    calls.push((key, self.computation_refs(key)?))
                }
                Some(key) => parse_value(key, op, &mut self.c, &mut instr.attrs)?,
                None if name == "backend_config" => {
                    instr.attrs.backend_config = Some(self.backend_config()?)
                }
                None if name == "operand_precision" && is_dropped(op, name) => {
                    self.operand_precision(op, instr.operands.len())?
                }
                None if is_dropped(op, name) => self.c.skip_value()?,
                None => {
                    return Err(self
                        .c
                        .message_at(at, format!("`{op}` has no attribute `{name}`")))
                }
            }
        }
        let has = |k: Key| calls.iter().any(|(key, _)| *key == k);
        let missing = match op {
            Opcode::Conditional if has(Key::BranchComputations) => None,
            Opcode::Conditional => [Key::TrueComputation, Key::FalseComputation]
                .into_iter()
                .find(|&k| !has(k))
                .map(|k| format!("`branch_computations` (or `{}`)", k.name())),
            _ => required_computations(op)
                .iter()
                .find(|&&k| !has(k))
                .map(|k| format!("`{}`", k.name())),
        };
        if let Some(missing) = missing {
            return Err(self
                .c
                .message_at(op_at, format!("`{op}` needs attribute {missing}")));
        }
        for (key, names) in calls {
            self.calls.push(PendingCall {
                computation,
                instruction: id,
                key,
                names,
            });
        }
        Ok(())
    }

    /// `name` or `{name, name}` (with optional `%`), with positions.
    fn computation_refs(&mut self, key: Key) -> Result<Vec<(&'a str, usize)>, ParseError> {
        let list = key.called_slot() == Some(CalledSlot::All);
        let mut out = Vec::new();
        if list {
            self.c.expect("{")?;
            if self.c.eat("}") {
                return Ok(out);
            }
        }
        loop {
            self.c.skip_ws();
            let at = self.c.pos();
            out.push((self.c.expect_hlo_name("a computation name")?, at));
            if !list {
                return Ok(out);
            }
            if self.c.eat("}") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// `operand_precision={default,highest}`: checked, then dropped (the
    /// CPU computes every precision at full f32). A dot or convolution
    /// names one precision per operand, or none.
    fn operand_precision(&mut self, op: Opcode, operands: usize) -> Result<(), ParseError> {
        const PRECISIONS: [&str; 4] = ["default", "high", "highest", "packed_nibble"];
        let start = self.c.pos();
        self.c.expect("{")?;
        let mut count = 0;
        if !self.c.eat("}") {
            loop {
                let at = self.c.pos();
                let word = self.c.expect_name("a precision")?;
                if !PRECISIONS.iter().any(|p| p.eq_ignore_ascii_case(word)) {
                    return Err(self.c.message_at(
                        at,
                        format!(
                            "unknown precision `{word}` (one of default, high, highest, \
                             packed_nibble)"
                        ),
                    ));
                }
                count += 1;
                if self.c.eat("}") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        if matches!(op, Opcode::Dot | Opcode::Convolution) && count != 0 && count != operands {
            return Err(self.c.message_at(
                start,
                format!("`{op}` has {operands} operands but operand_precision names {count}"),
            ));
        }
        Ok(())
    }

    fn backend_config(&mut self) -> Result<String, ParseError> {
        if self.c.looking_at("\"") {
            self.c.string()
        } else {
            self.c.balanced().map(str::to_string)
        }
    }

    fn resolve_calls(&mut self) -> Result<(), ParseError> {
        for call in std::mem::take(&mut self.calls) {
            let mut ids = Vec::with_capacity(call.names.len());
            for (name, at) in call.names {
                let &(index, _) = self.names.get(name).ok_or_else(|| {
                    self.c
                        .message_at(at, format!("unknown computation `{name}`"))
                })?;
                ids.push(ComputationId(index as u32));
            }
            let called = &mut self.computations[call.computation]
                .instr_mut(call.instruction)
                .called;
            match call.key.called_slot() {
                Some(CalledSlot::All) => *called = ids,
                Some(CalledSlot::At(slot)) => {
                    if called.len() <= slot {
                        called.resize(slot + 1, ComputationId(u32::MAX));
                    }
                    called[slot] = ids[0];
                }
                None => unreachable!("only computation-valued keys are pending"),
            }
        }
        Ok(())
    }

    fn computation_name(&self, index: usize) -> &'a str {
        self.names
            .iter()
            .find(|(_, &(i, _))| i == index)
            .map_or("?", |(name, _)| name)
    }
}

/// The instructions of the computation being parsed.
#[derive(Default)]
struct Body<'a> {
    instructions: Vec<HloInstruction>,
    /// Instruction name → (id, position of its name).
    names: HashMap<&'a str, (InstrId, usize)>,
    /// The `ROOT` instruction and the position of its keyword.
    root: Option<(InstrId, usize)>,
}

fn line_col(c: &Cursor<'_>, pos: usize) -> (usize, usize) {
    let e = c.error_at(pos, "");
    (e.line, e.col)
}

impl std::str::FromStr for HloModule {
    type Err = ParseError;

    /// Parses HLO text; see [`parse_hlo_module`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_hlo_module(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;

    #[test]
    fn shapes_of_old_style_operands_are_skipped() {
        let m = parse_hlo_module(
            "HloModule m\nENTRY %e (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  ROOT %n = f32[] negate(f32[] %a)\n}",
        )
        .unwrap();
        let e = m.entry_computation();
        assert_eq!(e.instructions[1].operands, vec![InstrId(0)]);
        assert_eq!(Shape::scalar(PrimitiveType::F32), e.instructions[1].shape);
    }
}
