//! One HLO instruction as StableHLO: mostly one op with its properties
//! and regions; `copy`, `bitcast`, `opt-barrier` and `while` spelled out
//! as what StableHLO has for them.

use std::collections::HashMap;
use std::fmt::Write;

use super::properties::op_name_and_properties;
use super::syntax::{ints, symbol, ty};
use super::{PrintError, Printer, Scope};
use crate::hlo::InstrId;
use crate::{HloComputation, HloInstruction, Opcode, Shape};

impl<'m> Printer<'m> {
    /// One instruction as one op (or none: a `copy` is its operand).
    pub(super) fn instruction(
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
