//! Functions and regions: a computation's parameters as arguments, its
//! instructions, and the terminator that returns its root.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::syntax::{symbol, ty};
use super::{PrintError, Printer, Scope};
use crate::hlo::{ComputationId, InstrId};
use crate::{HloComputation, Opcode, Shape};

impl<'m> Printer<'m> {
    /// The function name of computation `id`, queued for printing.
    pub(super) fn function_name(&mut self, id: ComputationId, preferred: &str) -> String {
        if let Some(name) = self.named.get(&id) {
            return name.clone();
        }
        let taken: HashSet<&String> = self.named.values().collect();
        let mut name = preferred.to_string();
        let mut k = 1;
        while taken.contains(&name) {
            name = format!("{preferred}_{k}");
            k += 1;
        }
        self.named.insert(id, name.clone());
        self.functions.push((id, name.clone()));
        name
    }

    /// `func.func @name(%arg…) -> (…) { … }`.
    pub(super) fn function(
        &mut self,
        id: ComputationId,
        name: &str,
        entry: bool,
    ) -> Result<String, PrintError> {
        let c = self.module.computation(id);
        let mut scope = Scope { next: 0 };
        let mut names: HashMap<InstrId, String> = HashMap::new();
        let params = c.parameters();
        let mut args = Vec::new();
        for (i, &p) in params.iter().enumerate() {
            let arg = format!("%arg{i}");
            args.push(format!("{arg}: {}", ty(&c.instr(p).shape)));
            names.insert(p, arg);
        }
        let root = c.root_instr();
        let (results, returned): (Vec<String>, Vec<InstrId>) =
            if entry && root.opcode == Opcode::Tuple {
                (
                    root.operands
                        .iter()
                        .map(|&o| ty(&c.instr(o).shape))
                        .collect(),
                    root.operands.clone(),
                )
            } else {
                (vec![ty(&root.shape)], vec![c.root])
            };
        let visibility = if entry { "public" } else { "private" };
        let mut out = format!(
            "  func.func {visibility} @{}({}) -> ({}) {{\n",
            symbol(name),
            args.join(", "),
            results.join(", ")
        );
        std::mem::swap(&mut self.out, &mut out);
        let body = self.body(
            c,
            &mut names,
            &mut scope,
            2,
            Returned::Values(returned),
            "func.return",
        );
        std::mem::swap(&mut self.out, &mut out);
        body?;
        out.push_str("  }\n");
        Ok(out)
    }

    /// The instructions of `c`, then the terminator returning `returned`.
    fn body(
        &mut self,
        c: &'m HloComputation,
        names: &mut HashMap<InstrId, String>,
        scope: &mut Scope,
        depth: usize,
        returned: Returned,
        terminator: &str,
    ) -> Result<(), PrintError> {
        for id in c.ids() {
            if names.contains_key(&id) {
                continue;
            }
            let instr = c.instr(id);
            self.instruction(c, instr, id, names, scope, depth)?;
        }
        let indent = "  ".repeat(depth);
        let root = c.root_instr();
        let (values, types): (Vec<String>, Vec<String>) = match (returned, &root.shape) {
            (Returned::Elements, Shape::Tuple(_)) if root.opcode == Opcode::Tuple => root
                .operands
                .iter()
                .map(|r| (names[r].clone(), ty(&c.instr(*r).shape)))
                .unzip(),
            (Returned::Elements, Shape::Tuple(parts)) => {
                let tuple = names[&c.root].clone();
                self.elements(&tuple, &root.shape, parts, scope, depth)
                    .into_iter()
                    .zip(parts.iter().map(ty))
                    .unzip()
            }
            (Returned::Values(ids), _) => ids
                .iter()
                .map(|r| (names[r].clone(), ty(&c.instr(*r).shape)))
                .unzip(),
            (Returned::Elements, shape) => (vec![names[&c.root].clone()], vec![ty(shape)]),
        };
        writeln!(
            self.out,
            "{indent}\"{terminator}\"({}) : ({}) -> ()",
            values.join(", "),
            types.join(", ")
        )
        .expect("writing to a String");
        Ok(())
    }

    /// `get_tuple_element`s of every element of `tuple`.
    pub(super) fn elements(
        &mut self,
        tuple: &str,
        shape: &Shape,
        parts: &[Shape],
        scope: &mut Scope,
        depth: usize,
    ) -> Vec<String> {
        let indent = "  ".repeat(depth);
        let mut out = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let e = format!("%{}", scope.next);
            scope.next += 1;
            writeln!(
                self.out,
                "{indent}{e} = \"stablehlo.get_tuple_element\"({tuple}) <{{index = {i} : i32}}> : ({}) -> {}",
                ty(shape),
                ty(part)
            )
            .expect("writing to a String");
            out.push(e);
        }
        out
    }

    /// A called computation as a region whose block arguments are its
    /// parameters (with `pack`: the elements of its one tuple parameter,
    /// made a tuple again inside); `unpack`: a tuple result is returned as
    /// its elements.
    pub(super) fn region_with_args(
        &mut self,
        b: &'m HloComputation,
        scope: &mut Scope,
        depth: usize,
        unpack: bool,
        pack: bool,
    ) -> Result<String, PrintError> {
        let mut names = HashMap::new();
        let mut args = Vec::new();
        let mut prelude = String::new();
        for &p in &b.parameters() {
            let shape = &b.instr(p).shape;
            match shape {
                Shape::Tuple(parts) if pack => {
                    let mut elements = Vec::new();
                    for part in parts {
                        let arg = format!("%{}", scope.next);
                        scope.next += 1;
                        args.push(format!("{arg}: {}", ty(part)));
                        elements.push(arg);
                    }
                    let tuple = format!("%{}", scope.next);
                    scope.next += 1;
                    let types: Vec<String> = parts.iter().map(ty).collect();
                    writeln!(
                        prelude,
                        "{}{tuple} = \"stablehlo.tuple\"({}) : ({}) -> {}",
                        "  ".repeat(depth + 1),
                        elements.join(", "),
                        types.join(", "),
                        ty(shape)
                    )
                    .expect("writing to a String");
                    names.insert(p, tuple);
                }
                _ => {
                    let arg = format!("%{}", scope.next);
                    scope.next += 1;
                    args.push(format!("{arg}: {}", ty(shape)));
                    names.insert(p, arg);
                }
            }
        }
        let header = format!("^bb0({}):", args.join(", "));
        let body = self.region(b, names, scope, depth, unpack, prelude)?;
        Ok(body.replacen('{', &format!("{{\n{}{header}", "  ".repeat(depth)), 1))
    }

    /// `{ prelude; ops; stablehlo.return … }` with the values in `names`
    /// given; `unpack`: a tuple result is returned as its elements.
    pub(super) fn region(
        &mut self,
        b: &'m HloComputation,
        mut names: HashMap<InstrId, String>,
        scope: &mut Scope,
        depth: usize,
        unpack: bool,
        prelude: String,
    ) -> Result<String, PrintError> {
        let returned = if unpack {
            Returned::Elements
        } else {
            Returned::Values(vec![b.root])
        };
        let mut out = prelude;
        std::mem::swap(&mut self.out, &mut out);
        let body = self.body(
            b,
            &mut names,
            scope,
            depth + 1,
            returned,
            "stablehlo.return",
        );
        std::mem::swap(&mut self.out, &mut out);
        body?;
        Ok(format!("{{\n{out}{}}}", "  ".repeat(depth)))
    }
}

/// What a region or function returns.
enum Returned {
    /// These values.
    Values(Vec<InstrId>),
    /// The root's elements when it is a tuple, else the root.
    Elements,
}
