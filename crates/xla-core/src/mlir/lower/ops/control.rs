//! Ops with regions that HLO spells otherwise: `while` (one tuple
//! carried), `case` and `if` (each branch's captures in a tuple), and
//! Shardy's `manual_computation` (a body called between two custom calls).

use super::{results, tuple_elements, untuple};
use crate::mlir::ir::{Attr, Operation};
use crate::mlir::lower::sharding;
use crate::mlir::lower::{op_error, shape, Env, Lowering, OpResult, Params, Root};
use crate::mlir::LowerError;
use crate::{HloInstruction, Opcode, Shape, XlaBuilder, XlaComputation, XlaOp};

impl<'m> Lowering<'m> {
    /// `while`: one tuple carried through, the values the regions use from
    /// outside appended and passed along unchanged.
    pub(super) fn while_op(
        &mut self,
        b: &XlaBuilder,
        op: &'m Operation,
        env: &Env,
        args: &[XlaOp],
    ) -> Result<Vec<XlaOp>, LowerError> {
        let err = |m: String| op_error(op, m);
        let [cond, body] = op.regions.as_slice() else {
            return Err(err("a while needs `cond` and `body` regions".into()));
        };
        let (Some(cond), Some(body)) = (cond.blocks.first(), body.blocks.first()) else {
            return Err(err("an empty region".into()));
        };
        let captures = Lowering::captures(b, &[cond, body], env).map_err(err)?;
        let cond = self.region("cond", cond, Params::Tuple, &captures, Root::Values)?;
        let body = self.region("body", body, Params::Tuple, &captures, Root::Carry)?;
        let mut init: Vec<XlaOp> = args.to_vec();
        init.extend(captures.iter().map(|(v, _)| env[v]));
        let init = b.tuple(&init).map_err(|e| err(e.to_string()))?;
        let x = b
            .while_loop(&cond, &body, init)
            .map_err(|e| err(e.to_string()))?;
        // The loop's results, without the captured values carried along.
        tuple_elements(b, x, op.results.len()).map_err(|e| err(e.to_string()))
    }

    /// Shardy's `manual_computation` as XLA lowers it: the operands cut
    /// to their per-device shapes (`xla.sdy.GlobalToLocalShape`), the body
    /// called as `xla.sdy.manual_computation_body`, the results put back
    /// together (`xla.sdy.LocalToGlobalShape`).
    pub(super) fn manual_computation(
        &mut self,
        b: &XlaBuilder,
        op: &'m Operation,
        args: &[XlaOp],
    ) -> Result<Vec<XlaOp>, LowerError> {
        let err = |m: String| op_error(op, m);
        let block = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| err("a manual computation without a body".into()))?;
        let body = self.region(
            "xla.sdy.manual_computation_body",
            block,
            Params::Flat,
            &[],
            Root::Values,
        )?;
        let local: Vec<Shape> = block
            .args
            .iter()
            .map(|(_, t)| shape(t))
            .collect::<OpResult<_>>()
            .map_err(err)?;
        let global: Vec<Shape> = op
            .results
            .iter()
            .map(|(_, t)| shape(t))
            .collect::<OpResult<_>>()
            .map_err(err)?;
        // Each value's HLO sharding, one per line, in the conversions'
        // `backend_config` (where a runtime that splits the program per
        // device finds them).
        let shardings = |key: &str, shapes: &[Shape]| {
            let ranks: Vec<usize> = shapes
                .iter()
                .map(|s| s.as_array().map_or(0, |a| a.rank()))
                .collect();
            match op.attr(key) {
                Some(Attr::Opaque(text)) => sharding::hlo_shardings(text, &self.meshes, &ranks)
                    .map(|lines| lines.join("\n")),
                _ => None,
            }
        };
        let (ins, outs) = (
            shardings("in_shardings", &local),
            shardings("out_shardings", &global),
        );
        let locals = shard_call(b, "xla.sdy.GlobalToLocalShape", args, &local, ins).map_err(err)?;
        let x = b.call(&body, &locals).map_err(|e| err(e.to_string()))?;
        let results = results(b, x, global.len()).map_err(|e| err(e.to_string()))?;
        shard_call(b, "xla.sdy.LocalToGlobalShape", &results, &global, outs).map_err(err)
    }

    /// `case` (an index) and `if` (a predicate): each branch gets the
    /// tuple of the values it uses from outside.
    pub(super) fn case(
        &mut self,
        b: &XlaBuilder,
        op: &'m Operation,
        env: &Env,
        args: &[XlaOp],
    ) -> Result<Vec<XlaOp>, LowerError> {
        let err = |m: String| op_error(op, m);
        let [selector] = args else {
            return Err(err("one selector operand".into()));
        };
        let mut branches = Vec::new();
        let mut branch_args = Vec::new();
        for (i, region) in op.regions.iter().enumerate() {
            let block = region
                .blocks
                .first()
                .ok_or_else(|| err("an empty branch".into()))?;
            let captures = Lowering::captures(b, &[block], env).map_err(err)?;
            branches.push(self.region(
                &format!("branch_{i}"),
                block,
                Params::Operand,
                &captures,
                Root::Values,
            )?);
            let values: Vec<XlaOp> = captures.iter().map(|(v, _)| env[v]).collect();
            branch_args.push(match values.as_slice() {
                [one] => *one,
                _ => b.tuple(&values).map_err(|e| err(e.to_string()))?,
            });
        }
        let x = if op.name == "stablehlo.if" {
            let [on_true, on_false] = branches.as_slice() else {
                return Err(err("an if needs two branches".into()));
            };
            b.conditional(*selector, branch_args[0], on_true, branch_args[1], on_false)
        } else {
            let refs: Vec<&XlaComputation> = branches.iter().collect();
            b.conditional_indexed(*selector, &refs, &branch_args)
        }
        .map_err(|e| err(e.to_string()))?;
        untuple(b, op, x)
    }
}

/// A side-effecting custom call `target(values)` whose results have
/// `shapes` (one result: itself; several: a tuple, taken apart).
fn shard_call(
    b: &XlaBuilder,
    target: &str,
    values: &[XlaOp],
    shapes: &[Shape],
    shardings: Option<String>,
) -> OpResult<Vec<XlaOp>> {
    let shape = match shapes {
        [one] => one.clone(),
        many => Shape::tuple(many.to_vec()),
    };
    let mut instr = HloInstruction::new("shard_map", Opcode::CustomCall, shape, Vec::new());
    instr.attrs.custom_call_target = Some(target.to_string());
    instr.attrs.custom_call_has_side_effect = true;
    instr.attrs.backend_config = shardings;
    let x = b
        .add_instruction(&instr, values, &[])
        .map_err(|e| e.to_string())?;
    results(b, x, shapes.len()).map_err(|e| e.to_string())
}
