//! One StableHLO op to HLO instructions: the opcode, the attributes read
//! under VHLO's names, the called computations and the result shape.

mod attrs;
mod control;
mod dynamic;
mod read;

use super::{chlo, op_error, operands, shape, string_attr, Env, Lowering, OpResult, Params, Root};
use crate::hlo::Attrs;
use crate::mlir::ir::{Attr, Operation};
use crate::mlir::LowerError;
use crate::{HloInstruction, Literal, Opcode, Shape, XlaBuilder, XlaComputation, XlaOp};
use attrs::{attributes, collective};
use dynamic::{fold, refined_shape, small_integer};
pub(super) use read::ints_of;
use read::Reader;

impl<'m> Lowering<'m> {
    /// Lowers `op`; returns the XLA ops of its results.
    pub(crate) fn op(
        &mut self,
        b: &XlaBuilder,
        op: &'m Operation,
        env: &Env,
    ) -> Result<Vec<XlaOp>, LowerError> {
        let args = operands(op, env)?;
        let outs = self.op_with(b, op, env, &args)?;
        // Small integer tensors computed from dimension sizes are followed,
        // so that the shapes they become are known.
        if let (true, Some((result, _))) = (small_integer(op), op.results.first()) {
            let known: Vec<Option<&Vec<i64>>> =
                op.operands.iter().map(|v| self.known_value(*v)).collect();
            if let Some(value) = fold(op, &known) {
                self.set_known(*result, value);
            }
        }
        Ok(outs)
    }

    fn op_with(
        &mut self,
        b: &XlaBuilder,
        op: &'m Operation,
        env: &Env,
        args: &[XlaOp],
    ) -> Result<Vec<XlaOp>, LowerError> {
        let err = |m: String| op_error(op, m);
        match op.name.as_str() {
            "stablehlo.custom_call" if matches!(op.attr("call_target_name"), Some(Attr::String(t)) if t == b"shape_assertion") =>
            {
                self.shape_assertion(op).map_err(err)?;
                Ok(Vec::new())
            }
            "stablehlo.get_dimension_size" => {
                let d = Reader(op).int("dimension").map_err(err)?;
                let (Some(&x), Some((result, _))) = (args.first(), op.results.first()) else {
                    return Err(err("one operand and one result".into()));
                };
                let shape = b.get_shape(x).map_err(|e| err(e.to_string()))?;
                let size = shape
                    .as_array()
                    .and_then(|a| a.dims().get(d as usize).copied())
                    .ok_or_else(|| err(format!("no dimension {d}")))?;
                self.set_known(*result, vec![size]);
                let x = b
                    .constant(&Literal::scalar(size as i32))
                    .map_err(|e| err(e.to_string()))?;
                Ok(vec![x])
            }
            "stablehlo.dynamic_broadcast_in_dim"
            | "stablehlo.dynamic_reshape"
            | "stablehlo.dynamic_iota" => self.dynamic_shape_op(b, op, args).map_err(err),
            "func.call" => {
                let callee = string_attr(op, "callee").map_err(err)?;
                let computation = self.callee(b, &callee, &op.operands, args)?;
                let x = b.call(&computation, args).map_err(|e| err(e.to_string()))?;
                untuple(b, op, x)
            }
            "stablehlo.composite" => {
                // A `chlo` op JAX serialized as a composite lowers as the
                // op itself, as in the text form; others run their
                // decomposition.
                if let Some(chlo_op) = composite_as_chlo(op) {
                    if let Ok(outs) = chlo::lower(b, &chlo_op, args) {
                        return Ok(outs);
                    }
                }
                let callee = string_attr(op, "decomposition").map_err(err)?;
                let computation = self.callee(b, &callee, &op.operands, args)?;
                let x = b.call(&computation, args).map_err(|e| err(e.to_string()))?;
                untuple(b, op, x)
            }
            "stablehlo.while" => self.while_op(b, op, env, args),
            "sdy.manual_computation" => self.manual_computation(b, op, args),
            // Sharding hints: the value itself on one device (XLA's
            // partitioner reads them; a single-device program ignores them).
            "sdy.sharding_constraint" | "sdy.reshard" | "sdy.propagation_barrier" => match args {
                [x] => Ok(vec![*x]),
                _ => Err(err(format!("takes one operand, not {}", args.len()))),
            },
            "builtin.unrealized_conversion_cast" => {
                let shapes = result_shape(op).map_err(err)?;
                match args {
                    [x] if b.get_shape(*x).map(Shape::without_layouts).ok()
                        == Some(shapes.without_layouts()) =>
                    {
                        Ok(vec![*x])
                    }
                    _ => Err(err("only casts that keep the type are supported".into())),
                }
            }
            "stablehlo.all_to_all" if all_to_all_moves(op) => all_to_all(b, op, args).map_err(err),
            "stablehlo.broadcast_in_dim" => broadcast_in_dim(b, op, args).map_err(err),
            "stablehlo.optimization_barrier" => {
                let t = b.tuple(args).map_err(|e| err(e.to_string()))?;
                let x = b.optimization_barrier(t).map_err(|e| err(e.to_string()))?;
                tuple_elements(b, x, args.len()).map_err(|e| err(e.to_string()))
            }
            "stablehlo.case" | "stablehlo.if" => self.case(b, op, env, args),
            name if name.starts_with("chlo.") => chlo::lower(b, op, args).map_err(err),
            _ => {
                let mut called = Vec::new();
                for (i, region) in op.regions.iter().enumerate() {
                    let block = region
                        .blocks
                        .first()
                        .ok_or_else(|| err("an empty region".into()))?;
                    let name = format!("region_{i}");
                    called.push(self.region(&name, block, Params::Flat, &[], Root::Values)?);
                }
                simple(b, op, args, &called).map_err(err)
            }
        }
    }
}

/// `broadcast_in_dim` (operand dimensions of size 1 may stretch to any
/// size, which the builder's `broadcast_in_dim` reshapes away).
fn broadcast_in_dim(b: &XlaBuilder, op: &Operation, args: &[XlaOp]) -> OpResult<Vec<XlaOp>> {
    let [x] = args else {
        return Err("one operand".into());
    };
    let dims = Reader(op).ints("broadcast_dimensions")?;
    let out = result_shape(op)?;
    let out = out.as_array().ok_or("an array result")?;
    let y = b
        .broadcast_in_dim(*x, out.dims(), &dims)
        .map_err(|e| e.to_string())?;
    Ok(vec![y])
}

/// Whether an `all_to_all` concatenates along another dimension than it
/// splits.
fn all_to_all_moves(op: &Operation) -> bool {
    let a = Reader(op);
    matches!((a.int("split_dimension"), a.int("concat_dimension")), (Ok(s), Ok(c)) if s != c)
}

/// An `all_to_all` whose split and concat dimensions differ, as XLA
/// lowers it: HLO's all-to-all along the split dimension, then the
/// received blocks (split out of that dimension) moved in front of the
/// concat dimension and merged into it.
fn all_to_all(b: &XlaBuilder, op: &Operation, args: &[XlaOp]) -> OpResult<Vec<XlaOp>> {
    let e = |r: crate::Result<XlaOp>| r.map_err(|e| e.to_string());
    let a = Reader(op);
    let [x] = args else {
        return Err(
            "an all_to_all of several operands whose dimensions differ is not supported".into(),
        );
    };
    let (split, concat, count) = (
        a.int("split_dimension")?,
        a.int("concat_dimension")?,
        a.int("split_count")?,
    );
    let operand = b.get_shape(*x).map_err(|e| e.to_string())?;
    let dims = operand
        .as_array()
        .ok_or("an array operand")?
        .dims()
        .to_vec();
    let (s, c) = (split as usize, concat as usize);
    if s >= dims.len() || c >= dims.len() || count <= 0 || dims[s] % count != 0 {
        return Err(format!(
            "split dimension {split} of {dims:?} does not divide into {count}"
        ));
    }
    let mut attrs = Attrs::default();
    collective(&a, Opcode::AllToAll, &mut attrs)?;
    let mut instr =
        HloInstruction::new("all_to_all", Opcode::AllToAll, operand.clone(), Vec::new());
    instr.attrs = attrs;
    let exchanged = b
        .add_instruction(&instr, &[*x], &[])
        .map_err(|e| e.to_string())?;
    let mut split_dims = dims.clone();
    split_dims.splice(s..=s, [count, dims[s] / count]);
    let split_out = e(b.reshape(exchanged, &split_dims))?;
    let target = if c < s { c } else { c + 1 };
    let mut order: Vec<i64> = (0..split_dims.len() as i64)
        .filter(|&d| d != s as i64)
        .collect();
    let at = order
        .iter()
        .position(|&d| d == target as i64)
        .unwrap_or(order.len());
    order.insert(at, s as i64);
    let moved = e(b.transpose(split_out, &order))?;
    let out = result_shape(op)?;
    Ok(vec![e(b.reshape(
        moved,
        out.as_array().ok_or("an array result")?.dims(),
    ))?])
}

/// A composite named after a `chlo` op (`name = "chlo.erf"`) as that op,
/// its `composite_attributes` as the op's attributes.
fn composite_as_chlo(op: &Operation) -> Option<Operation> {
    let name = string_attr(op, "name")
        .ok()
        .filter(|n| n.starts_with("chlo."))?;
    let attrs = match op.attr("composite_attributes") {
        Some(Attr::Dict(fields)) => fields.clone(),
        _ => Vec::new(),
    };
    Some(Operation {
        name,
        attrs,
        regions: Vec::new(),
        ..op.clone()
    })
}

/// The results of an op lowered to one XLA op: itself, or its tuple's
/// elements when the op has several results.
fn untuple(b: &XlaBuilder, op: &Operation, x: XlaOp) -> Result<Vec<XlaOp>, LowerError> {
    results(b, x, op.results.len()).map_err(|e| op_error(op, e.to_string()))
}

/// `n` results held by `x`: `x` itself when there is one, else the first
/// `n` elements of its tuple.
fn results(b: &XlaBuilder, x: XlaOp, n: usize) -> crate::Result<Vec<XlaOp>> {
    if n == 1 {
        Ok(vec![x])
    } else {
        tuple_elements(b, x, n)
    }
}

/// The first `n` elements of the tuple `x`.
fn tuple_elements(b: &XlaBuilder, x: XlaOp, n: usize) -> crate::Result<Vec<XlaOp>> {
    (0..n).map(|i| b.get_tuple_element(x, i as i64)).collect()
}

/// The result shape of `op`: one array, or a tuple of several results.
pub(crate) fn result_shape(op: &Operation) -> OpResult<Shape> {
    let shapes: Vec<Shape> = op
        .results
        .iter()
        .map(|(_, t)| shape(t))
        .collect::<OpResult<_>>()?;
    Ok(match <[Shape; 1]>::try_from(shapes) {
        Ok([one]) => one,
        Err(many) => Shape::tuple(many),
    })
}

/// The HLO opcode of a StableHLO op name.
fn opcode(name: &str) -> Option<Opcode> {
    let short = name.strip_prefix("stablehlo.")?;
    let hlo = match short {
        "broadcast_in_dim" | "broadcast" => "broadcast".to_string(),
        "dot_general" | "dot" => "dot".to_string(),
        "optimization_barrier" => "opt-barrier".to_string(),
        "create_token" => "after-all".to_string(),
        "custom_call" => "custom-call".to_string(),
        other => other.replace('_', "-"),
    };
    Opcode::from_name(&hlo)
}

/// An op that is one HLO instruction (regions already lowered to
/// `called`), followed by get-tuple-elements for several results.
fn simple(
    b: &XlaBuilder,
    op: &Operation,
    args: &[XlaOp],
    called: &[XlaComputation],
) -> OpResult<Vec<XlaOp>> {
    let opcode = opcode(&op.name).ok_or_else(|| format!("unknown op `{}`", op.name))?;
    let shapes: Vec<Shape> = args
        .iter()
        .map(|&a| b.get_shape(a))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let (shape, attrs) = match result_shape(op) {
        Ok(mut shape) => {
            let attrs = attributes(op, opcode, &shapes, &mut shape)?;
            (shape, attrs)
        }
        Err(_) if op.results.iter().any(|(_, t)| super::is_dynamic(t)) => {
            refined_shape(op, opcode, &shapes, called)?
        }
        Err(e) => return Err(e),
    };
    let instr = HloInstruction {
        name: opcode.name().to_string(),
        opcode,
        shape,
        operands: Vec::new(),
        called: Vec::new(),
        attrs,
    };
    let refs: Vec<&XlaComputation> = called.iter().collect();
    let x = b
        .add_instruction(&instr, args, &refs)
        .map_err(|e| e.to_string())?;
    results(b, x, op.results.len()).map_err(|e| e.to_string())
}
