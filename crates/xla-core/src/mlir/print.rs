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

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::ir::primitive_name;
use crate::hlo::{ComputationId, InstrId};
use crate::{HloComputation, HloInstruction, HloModule, Literal, Opcode, PrimitiveType, Shape};

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

/// A symbol name, quoted when it is not a bare identifier.
fn symbol(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'));
    if bare {
        name.to_string()
    } else {
        format!("{name:?}")
    }
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

impl<'m> Printer<'m> {
    /// The function name of computation `id`, queued for printing.
    fn function_name(&mut self, id: ComputationId, preferred: &str) -> String {
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
    fn function(
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
    fn elements(
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

    /// One instruction as one op (or none: a `copy` is its operand).
    fn instruction(
        &mut self,
        c: &'m HloComputation,
        instr: &HloInstruction,
        id: InstrId,
        names: &mut HashMap<InstrId, String>,
        scope: &mut Scope,
        depth: usize,
    ) -> Result<(), PrintError> {
        if let Some(topk) = instr.xla_topk_as_topk() {
            // XLA:CPU's `TopK` custom call: StableHLO's `chlo.top_k`.
            return self.instruction(c, &topk, id, names, scope, depth);
        }
        let fail = |message: String| PrintError {
            instruction: instr.name.clone(),
            message,
        };
        let operands: Vec<String> = instr.operands.iter().map(|o| names[o].clone()).collect();
        let operand_types: Vec<String> = instr
            .operands
            .iter()
            .map(|&o| ty(&c.instr(o).shape))
            .collect();
        if instr.opcode == Opcode::Copy {
            names.insert(id, operands[0].clone());
            return Ok(());
        }
        if instr.opcode == Opcode::OptimizationBarrier {
            return self.barrier(c, instr, id, names, scope, depth);
        }
        if instr.opcode == Opcode::Bitcast {
            let value = self
                .bitcast(
                    &operands[0],
                    &c.instr(instr.operands[0]).shape,
                    &instr.shape,
                    scope,
                    depth,
                )
                .map_err(fail)?;
            names.insert(id, value);
            return Ok(());
        }
        let result = format!("%{}", scope.next);
        scope.next += 1;
        let indent = "  ".repeat(depth);
        let mut regions = Vec::new();
        match instr.opcode {
            Opcode::Call | Opcode::Fusion => {
                let callee = instr
                    .called
                    .first()
                    .ok_or_else(|| fail("no called computation".into()))?;
                let preferred = self.module.computation(*callee).name.clone();
                let f = self.function_name(*callee, &preferred);
                writeln!(
                    self.out,
                    "{indent}{result} = \"func.call\"({}) <{{callee = @{}}}> : ({}) -> {}",
                    operands.join(", "),
                    symbol(&f),
                    operand_types.join(", "),
                    ty(&instr.shape)
                )
                .expect("writing to a String");
                names.insert(id, result);
                return Ok(());
            }
            Opcode::Conditional => {
                // Each branch inlined, its parameter the branch's operand.
                for (k, &branch) in instr.called.iter().enumerate() {
                    let b = self.module.computation(branch);
                    let mut inner = HashMap::new();
                    if let Some(&p) = b.parameters().first() {
                        inner.insert(p, operands[k + 1].clone());
                    }
                    regions.push(self.region(b, inner, scope, depth + 1, true, String::new())?);
                }
            }
            Opcode::While => return self.while_loop(c, instr, id, names, scope, depth),
            _ => {
                for &called in &instr.called {
                    let b = self.module.computation(called);
                    regions.push(self.region_with_args(b, scope, depth + 1, true, false)?);
                }
            }
        }
        let (name, props) = op_name_and_properties(instr, c).map_err(fail)?;
        let (operand_list, types) = if instr.opcode == Opcode::Conditional {
            (operands[..1].join(", "), operand_types[..1].join(", "))
        } else {
            (operands.join(", "), operand_types.join(", "))
        };
        let parts: Vec<String> = match &instr.shape {
            Shape::Tuple(parts) if multi_result(instr) => parts.iter().map(ty).collect(),
            other => vec![ty(other)],
        };
        let head = if multi_result(instr) {
            format!("{result}:{}", parts.len())
        } else {
            result.clone()
        };
        let mut line = format!("{indent}{head} = \"{name}\"({operand_list})");
        if !props.is_empty() {
            write!(line, " <{{{}}}>", props.join(", ")).expect("writing to a String");
        }
        if !regions.is_empty() {
            write!(line, " ({})", regions.join(", ")).expect("writing to a String");
        }
        writeln!(self.out, "{line} : ({types}) -> ({})", parts.join(", "))
            .expect("writing to a String");
        if multi_result(instr) {
            // A tuple of the op's results stands for the HLO value.
            let tuple = format!("%{}", scope.next);
            scope.next += 1;
            let values: Vec<String> = (0..parts.len()).map(|i| format!("{result}#{i}")).collect();
            writeln!(
                self.out,
                "{indent}{tuple} = \"stablehlo.tuple\"({}) : ({}) -> {}",
                values.join(", "),
                parts.join(", "),
                ty(&instr.shape)
            )
            .expect("writing to a String");
            names.insert(id, tuple);
        } else {
            names.insert(id, result);
        }
        Ok(())
    }

    /// A `bitcast` (XLA's reinterpretation of a buffer in another shape
    /// and layout, element type kept) as what it computes: the operand
    /// transposed into its memory order, reshaped to the result's memory
    /// order, transposed back to the result's logical order.
    fn bitcast(
        &mut self,
        value: &str,
        from: &Shape,
        to: &Shape,
        scope: &mut Scope,
        depth: usize,
    ) -> Result<String, String> {
        let (Some(a), Some(b)) = (from.as_array(), to.as_array()) else {
            return Err("a bitcast of a tuple".into());
        };
        if a.element_type().byte_size() != b.element_type().byte_size() {
            return Err("a bitcast that changes the element size".into());
        }
        let order = |s: &crate::ArrayShape| -> Vec<i64> {
            s.layout_or_default()
                .major_to_minor()
                .map(|d| d as i64)
                .collect()
        };
        let (from_order, to_order) = (order(a), order(b));
        let indent = "  ".repeat(depth);
        let mut value = value.to_string();
        let mut current = from.clone().without_layouts();
        let mut emit = |out: &mut String,
                        op: String,
                        props: String,
                        result: Shape,
                        current: &mut Shape,
                        value: &mut String| {
            let name = format!("%{}", scope.next);
            scope.next += 1;
            writeln!(
                out,
                "{indent}{name} = \"stablehlo.{op}\"({value}){props} : ({}) -> {}",
                ty(current),
                ty(&result)
            )
            .expect("writing to a String");
            *current = result;
            *value = name;
        };
        let identity = |p: &[i64]| p.iter().enumerate().all(|(i, &d)| d == i as i64);
        if a.element_type() != b.element_type() {
            let same_dims = Shape::array(b.element_type(), a.dims().to_vec());
            emit(
                &mut self.out,
                "bitcast_convert".into(),
                String::new(),
                same_dims,
                &mut current,
                &mut value,
            );
        }
        let physical = |s: &crate::ArrayShape, order: &[i64]| -> Shape {
            Shape::array(
                b.element_type(),
                order
                    .iter()
                    .map(|&d| s.dims()[d as usize])
                    .collect::<Vec<_>>(),
            )
        };
        if !identity(&from_order) {
            let props = format!(" <{{permutation = {}}}>", ints(&from_order));
            emit(
                &mut self.out,
                "transpose".into(),
                props,
                physical(a, &from_order),
                &mut current,
                &mut value,
            );
        }
        let target = physical(b, &to_order);
        if current.clone().without_layouts() != target {
            emit(
                &mut self.out,
                "reshape".into(),
                String::new(),
                target,
                &mut current,
                &mut value,
            );
        }
        if !identity(&to_order) {
            let mut inverse = vec![0i64; to_order.len()];
            for (i, &d) in to_order.iter().enumerate() {
                inverse[d as usize] = i as i64;
            }
            let props = format!(" <{{permutation = {}}}>", ints(&inverse));
            emit(
                &mut self.out,
                "transpose".into(),
                props,
                to.clone().without_layouts(),
                &mut current,
                &mut value,
            );
        }
        Ok(value)
    }

    /// `opt-barrier(tuple)`: the tuple's elements through StableHLO's
    /// variadic barrier, then a tuple again.
    fn barrier(
        &mut self,
        c: &'m HloComputation,
        instr: &HloInstruction,
        id: InstrId,
        names: &mut HashMap<InstrId, String>,
        scope: &mut Scope,
        depth: usize,
    ) -> Result<(), PrintError> {
        let indent = "  ".repeat(depth);
        let operand = instr.operands[0];
        let (value, shape) = (names[&operand].clone(), &c.instr(operand).shape);
        let Shape::Tuple(parts) = shape else {
            let result = format!("%{}", scope.next);
            scope.next += 1;
            let t = ty(shape);
            writeln!(
                self.out,
                "{indent}{result} = \"stablehlo.optimization_barrier\"({value}) : ({t}) -> ({t})"
            )
            .expect("writing to a String");
            names.insert(id, result);
            return Ok(());
        };
        let types: Vec<String> = parts.iter().map(ty).collect();
        let elements = self.elements(&value, shape, parts, scope, depth);
        let barrier = format!("%{}", scope.next);
        let tuple = format!("%{}", scope.next + 1);
        scope.next += 2;
        let list = types.join(", ");
        writeln!(
            self.out,
            "{indent}{barrier}:{} = \"stablehlo.optimization_barrier\"({}) : ({list}) -> ({list})",
            types.len(),
            elements.join(", ")
        )
        .expect("writing to a String");
        let values: Vec<String> = (0..types.len()).map(|i| format!("{barrier}#{i}")).collect();
        writeln!(
            self.out,
            "{indent}{tuple} = \"stablehlo.tuple\"({}) : ({list}) -> {}",
            values.join(", "),
            ty(shape)
        )
        .expect("writing to a String");
        names.insert(id, tuple);
        Ok(())
    }

    /// A called computation as a region whose block arguments are its
    /// parameters (with `pack`: the elements of its one tuple parameter,
    /// made a tuple again inside); `unpack`: a tuple result is returned as
    /// its elements.
    fn region_with_args(
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
    fn region(
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

    /// HLO's `while` of one tuple as StableHLO's `while` of its elements.
    fn while_loop(
        &mut self,
        c: &'m HloComputation,
        instr: &HloInstruction,
        id: InstrId,
        names: &mut HashMap<InstrId, String>,
        scope: &mut Scope,
        depth: usize,
    ) -> Result<(), PrintError> {
        let indent = "  ".repeat(depth);
        let Shape::Tuple(parts) = &instr.shape else {
            return Err(PrintError {
                instruction: instr.name.clone(),
                message: "a while loop of a value that is not a tuple".into(),
            });
        };
        let init = names[&instr.operands[0]].clone();
        let elements = self.elements(
            &init,
            &c.instr(instr.operands[0]).shape,
            parts,
            scope,
            depth,
        );
        let [cond, body] = instr.called[..] else {
            return Err(PrintError {
                instruction: instr.name.clone(),
                message: "a while loop without a condition and a body".into(),
            });
        };
        let cond =
            self.region_with_args(self.module.computation(cond), scope, depth + 1, false, true)?;
        let body =
            self.region_with_args(self.module.computation(body), scope, depth + 1, true, true)?;
        let result = format!("%{}", scope.next);
        let tuple = format!("%{}", scope.next + 1);
        scope.next += 2;
        let types: Vec<String> = parts.iter().map(ty).collect();
        let list = types.join(", ");
        writeln!(
            self.out,
            "{indent}{result}:{} = \"stablehlo.while\"({}) ({cond}, {body}) : ({list}) -> ({list})",
            parts.len(),
            elements.join(", ")
        )
        .expect("writing to a String");
        let values: Vec<String> = (0..parts.len()).map(|i| format!("{result}#{i}")).collect();
        writeln!(
            self.out,
            "{indent}{tuple} = \"stablehlo.tuple\"({}) : ({list}) -> {}",
            values.join(", "),
            ty(&instr.shape)
        )
        .expect("writing to a String");
        names.insert(id, tuple);
        Ok(())
    }
}

/// What a region or function returns.
enum Returned {
    /// These values.
    Values(Vec<InstrId>),
    /// The root's elements when it is a tuple, else the root.
    Elements,
}

/// Whether the StableHLO op has several results where HLO has one tuple.
fn multi_result(instr: &HloInstruction) -> bool {
    use Opcode as O;
    matches!(instr.shape, Shape::Tuple(_))
        && matches!(
            instr.opcode,
            O::Sort
                | O::Reduce
                | O::ReduceWindow
                | O::Scatter
                | O::BatchNormTraining
                | O::BatchNormGrad
                | O::RngBitGenerator
                | O::CustomCall
                | O::AllReduce
                | O::AllGather
                | O::AllToAll
                | O::ReduceScatter
                | O::TopK
                | O::Conditional
        )
}

/// A type: `tensor<2x3xf32>`, `tuple<…>`, `!stablehlo.token`.
fn ty(shape: &Shape) -> String {
    match shape {
        Shape::Array(a) => {
            let mut out = String::from("tensor<");
            for d in a.dims() {
                write!(out, "{d}x").expect("writing to a String");
            }
            out.push_str(primitive_name(a.element_type()));
            out.push('>');
            out
        }
        Shape::Tuple(parts) => format!(
            "tuple<{}>",
            parts.iter().map(ty).collect::<Vec<_>>().join(", ")
        ),
        Shape::Token | Shape::Opaque => "!stablehlo.token".to_string(),
    }
}

fn ints(values: &[i64]) -> String {
    format!(
        "array<i64{}{}>",
        if values.is_empty() { "" } else { ": " },
        join(values)
    )
}

/// One field of every window dimension, as `array<i64: …>`.
fn window_field(
    dims: &[crate::hlo::WindowDim],
    field: fn(&crate::hlo::WindowDim) -> i64,
) -> String {
    ints(&dims.iter().map(field).collect::<Vec<_>>())
}

fn list(values: &[i64]) -> String {
    format!("[{}]", join(values))
}

fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn bools(values: &[bool]) -> String {
    let items: Vec<&str> = values
        .iter()
        .map(|&b| if b { "true" } else { "false" })
        .collect();
    format!(
        "array<i1{}{}>",
        if items.is_empty() { "" } else { ": " },
        items.join(", ")
    )
}

/// An `N×2` padding tensor.
fn pairs(values: &[(i64, i64)]) -> String {
    let rows: Vec<String> = values.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    format!(
        "dense<[{}]> : tensor<{}x2xi64>",
        rows.join(", "),
        values.len()
    )
}

/// The op name and the properties of `instr`.
fn op_name_and_properties(
    instr: &HloInstruction,
    c: &HloComputation,
) -> Result<(String, Vec<String>), String> {
    use Opcode as O;
    let a = &instr.attrs;
    let mut props = Vec::new();
    let operand = |i: usize| instr.operands.get(i).map(|&o| &c.instr(o).shape);
    let rank = |i: usize| operand(i).and_then(Shape::as_array).map_or(0, |s| s.rank());
    let missing = |what: &str| format!("{} without {what}", instr.opcode.name());
    let name = match instr.opcode {
        O::Constant => {
            let literal = a.literal.as_ref().ok_or_else(|| missing("a literal"))?;
            props.push(format!("value = {}", dense(literal)?));
            "constant".to_string()
        }
        O::Broadcast => {
            props.push(format!(
                "broadcast_dimensions = {}",
                ints(a.dimensions.as_deref().unwrap_or(&[]))
            ));
            "broadcast_in_dim".to_string()
        }
        O::Transpose => {
            props.push(format!(
                "permutation = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "transpose".to_string()
        }
        O::Reverse => {
            props.push(format!(
                "dimensions = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "reverse".to_string()
        }
        O::Concatenate => {
            let d = a
                .dimensions
                .as_deref()
                .and_then(<[i64]>::first)
                .ok_or_else(|| missing("a dimension"))?;
            props.push(format!("dimension = {d} : i64"));
            "concatenate".to_string()
        }
        O::Iota => {
            props.push(format!(
                "iota_dimension = {} : i64",
                a.iota_dimension.ok_or_else(|| missing("a dimension"))?
            ));
            "iota".to_string()
        }
        O::Pad => {
            let p = a.padding.as_ref().ok_or_else(|| missing("padding"))?;
            let field =
                |f: fn(&crate::hlo::PadDim) -> i64| ints(&p.iter().map(f).collect::<Vec<_>>());
            props.push(format!("edge_padding_low = {}", field(|d| d.low)));
            props.push(format!("edge_padding_high = {}", field(|d| d.high)));
            props.push(format!("interior_padding = {}", field(|d| d.interior)));
            "pad".to_string()
        }
        O::Slice => {
            let s = a.slice.as_ref().ok_or_else(|| missing("a slice"))?;
            let field =
                |f: fn(&crate::hlo::SliceDim) -> i64| ints(&s.iter().map(f).collect::<Vec<_>>());
            props.push(format!("start_indices = {}", field(|d| d.start)));
            props.push(format!("limit_indices = {}", field(|d| d.limit)));
            props.push(format!("strides = {}", field(|d| d.stride)));
            "slice".to_string()
        }
        O::DynamicSlice => {
            props.push(format!(
                "slice_sizes = {}",
                ints(
                    a.dynamic_slice_sizes
                        .as_deref()
                        .ok_or_else(|| missing("sizes"))?
                )
            ));
            "dynamic_slice".to_string()
        }
        O::GetTupleElement => {
            props.push(format!(
                "index = {} : i32",
                a.tuple_index.ok_or_else(|| missing("an index"))?
            ));
            "get_tuple_element".to_string()
        }
        O::Compare => {
            let d = a
                .comparison_direction
                .ok_or_else(|| missing("a direction"))?;
            props.push(format!(
                "comparison_direction = #stablehlo<comparison_direction {}>",
                d.name()
            ));
            if let Some(t) = a.comparison_type {
                props.push(format!(
                    "compare_type = #stablehlo<comparison_type {}>",
                    t.name()
                ));
            }
            "compare".to_string()
        }
        O::Dot => {
            let d = a
                .dot_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            props.push(format!(
                "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = {}, rhs_batching_dimensions = {}, lhs_contracting_dimensions = {}, rhs_contracting_dimensions = {}>",
                list(&d.lhs_batch),
                list(&d.rhs_batch),
                list(&d.lhs_contracting),
                list(&d.rhs_contracting)
            ));
            "dot_general".to_string()
        }
        O::Convolution => {
            let d = a
                .conv_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            let w = a.window.as_ref().ok_or_else(|| missing("a window"))?;
            let layout =
                |batch: i64, feature: i64, spatial: &[i64], letters: [&str; 2], n: usize| {
                    let mut items = vec![String::new(); n];
                    if let Some(x) = items.get_mut(batch as usize) {
                        *x = letters[0].to_string();
                    }
                    if let Some(x) = items.get_mut(feature as usize) {
                        *x = letters[1].to_string();
                    }
                    for (k, &s) in spatial.iter().enumerate() {
                        if let Some(x) = items.get_mut(s as usize) {
                            *x = k.to_string();
                        }
                    }
                    format!("[{}]", items.join(", "))
                };
            let n = d.input_spatial.len() + 2;
            props.push(format!(
                "dimension_numbers = #stablehlo.conv<{}x{}->{}>",
                layout(
                    d.input_batch,
                    d.input_feature,
                    &d.input_spatial,
                    ["b", "f"],
                    n
                ),
                layout(
                    d.kernel_output_feature,
                    d.kernel_input_feature,
                    &d.kernel_spatial,
                    ["o", "i"],
                    n
                ),
                layout(
                    d.output_batch,
                    d.output_feature,
                    &d.output_spatial,
                    ["b", "f"],
                    n
                )
            ));
            let dims = &w.dims;
            props.push(format!(
                "window_strides = {}",
                window_field(dims, |x| x.stride)
            ));
            props.push(format!(
                "padding = {}",
                pairs(
                    &dims
                        .iter()
                        .map(|x| (x.padding_low, x.padding_high))
                        .collect::<Vec<_>>()
                )
            ));
            props.push(format!(
                "lhs_dilation = {}",
                window_field(dims, |x| x.base_dilation)
            ));
            props.push(format!(
                "rhs_dilation = {}",
                window_field(dims, |x| x.window_dilation)
            ));
            props.push(format!(
                "window_reversal = {}",
                bools(&dims.iter().map(|x| x.window_reversal).collect::<Vec<_>>())
            ));
            props.push(format!(
                "feature_group_count = {} : i64",
                a.feature_group_count.unwrap_or(1)
            ));
            props.push(format!(
                "batch_group_count = {} : i64",
                a.batch_group_count.unwrap_or(1)
            ));
            "convolution".to_string()
        }
        O::Gather => {
            let d = a
                .gather_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            props.push(format!(
                "dimension_numbers = #stablehlo.gather<offset_dims = {}, collapsed_slice_dims = {}, operand_batching_dims = {}, start_indices_batching_dims = {}, start_index_map = {}, index_vector_dim = {}>",
                list(&d.offset_dims),
                list(&d.collapsed_slice_dims),
                list(&d.operand_batching_dims),
                list(&d.start_indices_batching_dims),
                list(&d.start_index_map),
                d.index_vector_dim
            ));
            props.push(format!(
                "slice_sizes = {}",
                ints(
                    a.gather_slice_sizes
                        .as_deref()
                        .ok_or_else(|| missing("slice sizes"))?
                )
            ));
            props.push(format!("indices_are_sorted = {}", a.indices_are_sorted));
            "gather".to_string()
        }
        O::Scatter => {
            let d = a
                .scatter_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            props.push(format!(
                "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {}, inserted_window_dims = {}, input_batching_dims = {}, scatter_indices_batching_dims = {}, scatter_dims_to_operand_dims = {}, index_vector_dim = {}>",
                list(&d.update_window_dims),
                list(&d.inserted_window_dims),
                list(&d.input_batching_dims),
                list(&d.scatter_indices_batching_dims),
                list(&d.scatter_dims_to_operand_dims),
                d.index_vector_dim
            ));
            props.push(format!("indices_are_sorted = {}", a.indices_are_sorted));
            props.push(format!("unique_indices = {}", a.unique_indices));
            "scatter".to_string()
        }
        O::Reduce => {
            props.push(format!(
                "dimensions = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "reduce".to_string()
        }
        O::Map => {
            props.push(format!(
                "dimensions = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "map".to_string()
        }
        O::ReduceWindow | O::SelectAndScatter => {
            let w = a.window.as_ref().ok_or_else(|| missing("a window"))?;
            let dims = &w.dims;
            props.push(format!(
                "window_dimensions = {}",
                window_field(dims, |x| x.size)
            ));
            props.push(format!(
                "window_strides = {}",
                window_field(dims, |x| x.stride)
            ));
            if instr.opcode == O::ReduceWindow {
                props.push(format!(
                    "base_dilations = {}",
                    window_field(dims, |x| x.base_dilation)
                ));
                props.push(format!(
                    "window_dilations = {}",
                    window_field(dims, |x| x.window_dilation)
                ));
            } else if dims
                .iter()
                .any(|x| x.base_dilation != 1 || x.window_dilation != 1)
            {
                return Err("a select-and-scatter with dilations has no StableHLO form".into());
            }
            props.push(format!(
                "padding = {}",
                pairs(
                    &dims
                        .iter()
                        .map(|x| (x.padding_low, x.padding_high))
                        .collect::<Vec<_>>()
                )
            ));
            if instr.opcode == O::ReduceWindow {
                "reduce_window"
            } else {
                "select_and_scatter"
            }
            .to_string()
        }
        O::Sort => {
            let d = a
                .dimensions
                .as_deref()
                .and_then(<[i64]>::first)
                .copied()
                .unwrap_or(rank(0) as i64 - 1);
            props.push(format!("dimension = {d} : i64"));
            props.push(format!("is_stable = {}", a.is_stable));
            "sort".to_string()
        }
        O::Fft => {
            let t = a.fft_type.ok_or_else(|| missing("a type"))?;
            props.push(format!("fft_type = #stablehlo<fft_type {}>", t.name()));
            props.push(format!(
                "fft_length = {}",
                ints(a.fft_length.as_deref().ok_or_else(|| missing("lengths"))?)
            ));
            "fft".to_string()
        }
        O::ReducePrecision => {
            props.push(format!(
                "exponent_bits = {} : i32",
                a.exponent_bits.ok_or_else(|| missing("exponent bits"))?
            ));
            props.push(format!(
                "mantissa_bits = {} : i32",
                a.mantissa_bits.ok_or_else(|| missing("mantissa bits"))?
            ));
            "reduce_precision".to_string()
        }
        O::Cholesky => {
            props.push(format!("lower = {}", a.cholesky_lower.unwrap_or(false)));
            "cholesky".to_string()
        }
        O::TriangularSolve => {
            let o = a.triangular_solve.ok_or_else(|| missing("options"))?;
            props.push(format!("left_side = {}", o.left_side));
            props.push(format!("lower = {}", o.lower));
            props.push(format!("unit_diagonal = {}", o.unit_diagonal));
            props.push(format!(
                "transpose_a = #stablehlo<transpose {}>",
                o.transpose_a.name()
            ));
            "triangular_solve".to_string()
        }
        O::BatchNormGrad | O::BatchNormInference | O::BatchNormTraining => {
            // A float as its bit pattern: exact, and MLIR's float syntax.
            let epsilon = a.epsilon.ok_or_else(|| missing("epsilon"))?;
            props.push(format!("epsilon = 0x{:08X} : f32", epsilon.to_bits()));
            props.push(format!(
                "feature_index = {} : i64",
                a.feature_index.ok_or_else(|| missing("a feature index"))?
            ));
            instr.opcode.name().replace('-', "_")
        }
        O::Rng => {
            let d = a
                .rng_distribution
                .ok_or_else(|| missing("a distribution"))?;
            let name = if d == crate::hlo::RngDistribution::Uniform {
                "UNIFORM"
            } else {
                "NORMAL"
            };
            props.push(format!(
                "rng_distribution = #stablehlo<rng_distribution {name}>"
            ));
            "rng".to_string()
        }
        O::RngBitGenerator => {
            let algorithm = match a.rng_algorithm.ok_or_else(|| missing("an algorithm"))? {
                crate::hlo::RngAlgorithm::Default => "DEFAULT",
                crate::hlo::RngAlgorithm::ThreeFry => "THREE_FRY",
                crate::hlo::RngAlgorithm::Philox => "PHILOX",
            };
            props.push(format!(
                "rng_algorithm = #stablehlo<rng_algorithm {algorithm}>"
            ));
            "rng_bit_generator".to_string()
        }
        O::TopK => {
            if a.largest == Some(false) {
                return Err("a top-k of the smallest values has no StableHLO form".into());
            }
            props.push(format!("k = {} : i64", a.k.ok_or_else(|| missing("k"))?));
            return Ok(("chlo.top_k".to_string(), props));
        }
        O::Erf => return Ok(("chlo.erf".to_string(), props)),
        O::CustomCall => {
            custom_call_properties(instr, &mut props)?;
            "custom_call".to_string()
        }
        O::AllReduce | O::AllGather | O::ReduceScatter | O::AllToAll | O::CollectivePermute => {
            collective_properties(instr, &mut props)?;
            instr.opcode.name().replace('-', "_")
        }
        O::Conditional => {
            let pred = operand(0)
                .and_then(Shape::as_array)
                .is_some_and(|s| s.element_type() == PrimitiveType::Pred);
            if pred { "if" } else { "case" }.to_string()
        }
        O::Clz => "count_leading_zeros".to_string(),
        O::Bitcast | O::Fusion | O::Parameter | O::Copy | O::OptimizationBarrier | O::Call => {
            return Err(format!(
                "`{}` has no StableHLO form here",
                instr.opcode.name()
            ))
        }
        other => other.name().replace('-', "_"),
    };
    Ok((format!("stablehlo.{name}"), props))
}

/// A custom call's target, configuration, API version, layouts, aliases.
fn custom_call_properties(instr: &HloInstruction, props: &mut Vec<String>) -> Result<(), String> {
    let a = &instr.attrs;
    let target = a
        .custom_call_target
        .as_deref()
        .ok_or("a custom call without a target")?;
    props.push(format!("call_target_name = {target:?}"));
    if a.custom_call_has_side_effect {
        props.push("has_side_effect = true".into());
    }
    let typed = a.custom_call_api_version.as_deref() == Some("API_VERSION_TYPED_FFI");
    if let Some(version) = &a.custom_call_api_version {
        let v = match version.as_str() {
            "API_VERSION_ORIGINAL" => 1,
            "API_VERSION_STATUS_RETURNING" => 2,
            "API_VERSION_STATUS_RETURNING_UNIFIED" => 3,
            "API_VERSION_TYPED_FFI" => 4,
            other => return Err(format!("unknown custom call API version `{other}`")),
        };
        props.push(format!("api_version = {v} : i32"));
    }
    match (&a.backend_config, typed) {
        // A typed FFI call's configuration is an MLIR dictionary already.
        (Some(config), true) if config.trim_start().starts_with('{') => {
            props.push(format!("backend_config = {config}"))
        }
        (Some(config), _) => props.push(format!("backend_config = {config:?}")),
        (None, _) => {}
    }
    let layout_of = |shape: &Shape| {
        shape
            .as_array()
            .map(|s| s.layout_or_default().minor_to_major.clone())
    };
    if let Some(constraints) = &a.operand_layout_constraints {
        let layouts: Vec<String> = constraints
            .iter()
            .map(|s| {
                layout_of(s).map(|l| format!("dense<{}> : tensor<{}xindex>", list(&l), l.len()))
            })
            .collect::<Option<_>>()
            .ok_or("an operand layout of a tuple")?;
        props.push(format!("operand_layouts = [{}]", layouts.join(", ")));
        let results: Vec<&Shape> = match &instr.shape {
            Shape::Tuple(parts) => parts.iter().collect(),
            other => vec![other],
        };
        let layouts: Vec<String> = results
            .iter()
            .map(|s| {
                layout_of(s).map(|l| format!("dense<{}> : tensor<{}xindex>", list(&l), l.len()))
            })
            .collect::<Option<_>>()
            .ok_or("a result layout of a tuple")?;
        props.push(format!("result_layouts = [{}]", layouts.join(", ")));
    }
    if let Some(aliases) = &a.output_to_operand_aliasing {
        let items: Vec<String> = aliases
            .iter()
            .map(|x| {
                format!(
                    "#stablehlo.output_operand_alias<output_tuple_indices = {}, operand_index = {}, operand_tuple_indices = {}>",
                    list(&x.output_index),
                    x.operand,
                    list(&x.operand_index)
                )
            })
            .collect();
        props.push(format!("output_operand_aliases = [{}]", items.join(", ")));
    }
    if !instr.called.is_empty() {
        return Err("a custom call with called computations has no StableHLO form here".into());
    }
    Ok(())
}

/// A collective's groups, channel and dimensions.
fn collective_properties(instr: &HloInstruction, props: &mut Vec<String>) -> Result<(), String> {
    use Opcode as O;
    let a = &instr.attrs;
    if instr.opcode == O::CollectivePermute {
        let pairs_list: Vec<(i64, i64)> = a.source_target_pairs.clone().unwrap_or_default();
        props.push(format!("source_target_pairs = {}", pairs(&pairs_list)));
    } else if let Some(groups) = &a.replica_groups {
        let width = groups.first().map_or(0, Vec::len);
        if groups.iter().any(|g| g.len() != width) {
            return Err("replica groups of different sizes have no StableHLO form".into());
        }
        let rows: Vec<String> = groups.iter().map(|g| list(g)).collect();
        props.push(format!(
            "replica_groups = dense<[{}]> : tensor<{}x{width}xi64>",
            rows.join(", "),
            groups.len()
        ));
    } else {
        props.push("replica_groups = dense<> : tensor<0x0xi64>".into());
    }
    if let Some(channel) = a.channel_id {
        props.push(format!(
            "channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>"
        ));
    }
    if a.use_global_device_ids {
        props.push("use_global_device_ids".into());
    }
    let dim = a.dimensions.as_deref().and_then(<[i64]>::first).copied();
    match instr.opcode {
        O::AllGather => props.push(format!(
            "all_gather_dim = {} : i64",
            dim.ok_or("an all-gather without a dimension")?
        )),
        O::ReduceScatter => props.push(format!(
            "scatter_dimension = {} : i64",
            dim.ok_or("a reduce-scatter without a dimension")?
        )),
        O::AllToAll => {
            let d = dim.ok_or("the tuple form of all-to-all has no StableHLO form here")?;
            let count = a
                .replica_groups
                .as_ref()
                .and_then(|g| g.first())
                .map_or(1, Vec::len);
            props.push(format!("split_dimension = {d} : i64"));
            props.push(format!("concat_dimension = {d} : i64"));
            props.push(format!("split_count = {count} : i64"));
        }
        _ => {}
    }
    Ok(())
}

/// A literal as `dense<…> : tensor<…>`: raw little-endian hex (exact for
/// every type), `true`/`false` lists for `pred`.
fn dense(literal: &Literal) -> Result<String, String> {
    let shape = literal.shape();
    let array = shape
        .as_array()
        .ok_or("a tuple constant has no StableHLO form here")?;
    let bytes = literal.bytes().map_err(|e| e.to_string())?;
    let t = ty(shape);
    if array.dims().iter().product::<i64>() == 0 {
        return Ok(format!("dense<> : {t}"));
    }
    if array.element_type() == PrimitiveType::Pred {
        let items: Vec<&str> = bytes
            .iter()
            .map(|&b| if b != 0 { "true" } else { "false" })
            .collect();
        return Ok(if array.rank() == 0 {
            format!("dense<{}> : {t}", items[0])
        } else {
            format!("dense<[{}]> : {t}", nest(&items, array.dims()))
        });
    }
    let mut hex = String::with_capacity(2 + 2 * bytes.len());
    hex.push_str("0x");
    for b in bytes {
        write!(hex, "{b:02X}").expect("writing to a String");
    }
    Ok(format!("dense<\"{hex}\"> : {t}"))
}

/// Items nested in brackets by `dims` (the outer brackets left out).
fn nest(items: &[&str], dims: &[i64]) -> String {
    if dims.len() <= 1 {
        return items.join(", ");
    }
    let inner: i64 = dims[1..].iter().product();
    items
        .chunks(inner.max(1) as usize)
        .map(|chunk| format!("[{}]", nest(chunk, &dims[1..])))
        .collect::<Vec<_>>()
        .join(", ")
}
