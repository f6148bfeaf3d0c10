//! One StableHLO op to HLO instructions: the opcode, the attributes read
//! under VHLO's names, the called computations and the result shape.

use super::sharding;
use super::{chlo, op_error, operands, shape, string_attr, Env, Lowering, OpResult, Params, Root};
use crate::hlo::{
    Attrs, ComparisonDirection, ComparisonType, ConvDimensionNumbers, DotDimensionNumbers, FftType,
    GatherDimensionNumbers, OutputOperandAlias, PadDim, RngAlgorithm, RngDistribution,
    ScatterDimensionNumbers, SliceDim, TransposeKind, TriangularSolveOptions, Window, WindowDim,
};
use crate::mlir::ir::{Attr, ElementType, Operation, Type};
use crate::mlir::LowerError;
use crate::{
    HloInstruction, Layout, Literal, Opcode, PrimitiveType, Shape, XlaBuilder, XlaComputation,
    XlaOp,
};

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

    /// JAX's `shape_assertion(predicate, values…)`: evaluated when the
    /// shapes are known (its message, with `{i}` the values, when it
    /// fails), dropped otherwise.
    fn shape_assertion(&self, op: &Operation) -> OpResult<()> {
        let known: Vec<Option<&Vec<i64>>> =
            op.operands.iter().map(|v| self.known_value(*v)).collect();
        let Some(Some(predicate)) = known.first() else {
            return Ok(());
        };
        if predicate.iter().all(|&p| p != 0) {
            return Ok(());
        }
        let mut message = match op.attr("error_message") {
            Some(Attr::String(m)) => String::from_utf8_lossy(m).into_owned(),
            _ => "a shape assertion failed".into(),
        };
        for (i, value) in known.iter().enumerate().skip(1) {
            if let Some(v) = value.and_then(|v| v.first()) {
                message = message.replace(&format!("{{{}}}", i - 1), &v.to_string());
            }
        }
        Err(format!(
            "the arguments break the exported shapes: {message}"
        ))
    }

    /// `dynamic_broadcast_in_dim`, `dynamic_reshape` and `dynamic_iota`,
    /// whose output shape operand is known: as their static forms.
    fn dynamic_shape_op(
        &self,
        b: &XlaBuilder,
        op: &Operation,
        args: &[XlaOp],
    ) -> OpResult<Vec<XlaOp>> {
        let e = |r: crate::Result<XlaOp>| r.map_err(|e| e.to_string());
        let shape_operand = if op.name == "stablehlo.dynamic_iota" {
            0
        } else {
            1
        };
        let dims = op
            .operands
            .get(shape_operand)
            .and_then(|v| self.known_value(*v))
            .cloned()
            .ok_or("an output shape that is not computed from the arguments' shapes")?;
        let element = match op.results.first().map(|(_, t)| t) {
            Some(Type::Tensor { element, .. }) => super::primitive(element)?,
            _ => return Err("a tensor result".into()),
        };
        let operand = || args.first().copied().ok_or("an operand");
        let x = match op.name.as_str() {
            "stablehlo.dynamic_broadcast_in_dim" => e(b.broadcast_in_dim(
                operand()?,
                &dims,
                &Reader(op).ints("broadcast_dimensions")?,
            ))?,
            "stablehlo.dynamic_reshape" => e(b.reshape(operand()?, &dims))?,
            _ => e(b.iota(
                &crate::ArrayShape::new(element, dims),
                Reader(op).int("iota_dimension")?,
            ))?,
        };
        Ok(vec![x])
    }

    /// `while`: one tuple carried through, the values the regions use from
    /// outside appended and passed along unchanged.
    fn while_op(
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
    fn manual_computation(
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
    fn case(
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

/// The result shape (and attributes) of an op whose type has dynamic
/// dimensions, now that its operands' shapes are static: what shape
/// inference gives, which must agree with the type's static sizes. (Ops whose result dimensions are an
/// input, `broadcast_in_dim` and `reshape`, come with a shape operand in
/// their dynamic forms, lowered apart.)
fn refined_shape(
    op: &Operation,
    opcode: Opcode,
    operands: &[Shape],
    called: &[XlaComputation],
) -> OpResult<(Shape, Attrs)> {
    let [(_, ty)] = op.results.as_slice() else {
        return Err("an op of several dynamically shaped results".into());
    };
    let Type::Tensor { element, dims } = ty else {
        return Err("a dynamically shaped result that is not a tensor".into());
    };
    // A placeholder with the operand's sizes where the type has none.
    let like = operands
        .first()
        .and_then(Shape::as_array)
        .map(|a| a.dims().to_vec())
        .unwrap_or_default();
    let guess: Vec<i64> = dims
        .iter()
        .enumerate()
        .map(|(i, d)| d.unwrap_or_else(|| if like.len() == dims.len() { like[i] } else { 1 }))
        .collect();
    let mut declared = Shape::array(super::primitive(element)?, guess);
    let attrs = attributes(op, opcode, operands, &mut declared)?;
    let refs: Vec<&Shape> = operands.iter().collect();
    let programs: Vec<crate::hlo::ProgramShape> =
        called.iter().map(XlaComputation::program_shape).collect();
    let inferred = crate::infer::infer_instruction(opcode, &refs, &attrs, &programs, &declared)
        .map_err(|e| e.to_string())?;
    let fits = inferred.as_array().is_some_and(|a| {
        a.rank() == dims.len()
            && a.dims()
                .iter()
                .zip(dims)
                .all(|(&n, d)| d.is_none_or(|d| d == n))
    });
    if !fits {
        return Err(format!(
            "inferred {inferred}, which does not fit the result type"
        ));
    }
    Ok((inferred, attrs))
}

/// Whether `op` has one result of an integer (or pred) type of rank 0
/// or 1: what [`fold`] may know the value of.
fn small_integer(op: &Operation) -> bool {
    matches!(
        op.results.as_slice(),
        [(_, Type::Tensor { element: ElementType::Known(e), dims })]
            if (e.is_integral() || *e == PrimitiveType::Pred) && dims.len() <= 1
    )
}

/// The value of an integer result computed from known values (constants
/// and dimension sizes): what shape computations on symbolic dimensions
/// need, for tensors of at most 16 elements.
fn fold(op: &Operation, known: &[Option<&Vec<i64>>]) -> Option<Vec<i64>> {
    let [(_, Type::Tensor { dims, .. })] = op.results.as_slice() else {
        return None;
    };
    let all: Option<Vec<&Vec<i64>>> = known.iter().copied().collect();
    let binary = |f: fn(i64, i64) -> Option<i64>| pairwise(all.as_deref()?, f);
    let value = match op.name.trim_start_matches("stablehlo.") {
        "constant" => match op.attr("value") {
            Some(attr @ Attr::Dense { .. }) => ints_of(attr).ok().filter(|v| v.len() <= 16)?,
            _ => return None,
        },
        "reshape" | "convert" | "broadcast_in_dim" => {
            let v = (*known.first()?)?.clone();
            let n = dims.iter().map(|d| d.unwrap_or(1)).product::<i64>();
            match v.as_slice() {
                [one] if (0..=16).contains(&n) => vec![*one; n as usize],
                _ => v,
            }
        }
        "concatenate" => all?.into_iter().flatten().copied().collect(),
        "add" => binary(i64::checked_add)?,
        "subtract" => binary(i64::checked_sub)?,
        "multiply" => binary(i64::checked_mul)?,
        "divide" => binary(i64::checked_div)?,
        "remainder" => binary(i64::checked_rem)?,
        "maximum" => binary(|a, b| Some(a.max(b)))?,
        "minimum" => binary(|a, b| Some(a.min(b)))?,
        "compare" => {
            let test: fn(i64, i64) -> bool = match op.attr("comparison_direction") {
                Some(Attr::Enum(_, d)) => match d.as_str() {
                    "EQ" => |a, b| a == b,
                    "NE" => |a, b| a != b,
                    "LT" => |a, b| a < b,
                    "LE" => |a, b| a <= b,
                    "GT" => |a, b| a > b,
                    "GE" => |a, b| a >= b,
                    _ => return None,
                },
                _ => return None,
            };
            pairwise(all.as_deref()?, |a, b| Some(i64::from(test(a, b))))?
        }
        _ => return None,
    };
    (value.len() <= 16).then_some(value)
}

/// `f` of two known integer lists, element by element (a one-element list
/// stands for every element).
fn pairwise(all: &[&Vec<i64>], f: impl Fn(i64, i64) -> Option<i64>) -> Option<Vec<i64>> {
    let [a, b] = all else { return None };
    let n = a.len().max(b.len());
    let at = |v: &Vec<i64>, i: usize| {
        if v.len() == 1 {
            v.first().copied()
        } else {
            v.get(i).copied()
        }
    };
    (0..n).map(|i| f(at(a, i)?, at(b, i)?)).collect()
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

/// The HLO attributes of `op` (the result shape gets the layouts a custom
/// call declares).
fn attributes(
    op: &Operation,
    opcode: Opcode,
    operands: &[Shape],
    result: &mut Shape,
) -> OpResult<Attrs> {
    use Opcode as O;
    let a = Reader(op);
    let mut attrs = Attrs::default();
    let rank = |i: usize| {
        operands
            .get(i)
            .and_then(Shape::as_array)
            .map_or(0, |s| s.rank() as i64)
    };
    match opcode {
        O::Broadcast if op.name == "stablehlo.broadcast" => {
            let out_rank = result.as_array().map_or(0, |s| s.rank() as i64);
            attrs.dimensions = Some((out_rank - rank(0)..out_rank).collect());
        }
        O::Broadcast => attrs.dimensions = Some(a.ints("broadcast_dimensions")?),
        O::Transpose => attrs.dimensions = Some(a.ints("permutation")?),
        O::Reverse => attrs.dimensions = Some(a.ints("dimensions")?),
        O::Concatenate => attrs.dimensions = Some(vec![a.int("dimension")?]),
        O::GetDimensionSize | O::SetDimensionSize => {
            attrs.dimensions = Some(vec![a.int("dimension")?])
        }
        O::Iota => attrs.iota_dimension = Some(a.int("iota_dimension")?),
        O::Pad => {
            let (low, high, interior) = (
                a.ints("edge_padding_low")?,
                a.ints("edge_padding_high")?,
                a.ints("interior_padding")?,
            );
            if high.len() != low.len() || interior.len() != low.len() {
                return Err("padding lists of different lengths".into());
            }
            attrs.padding = Some(
                (0..low.len())
                    .map(|i| PadDim {
                        low: low[i],
                        high: high[i],
                        interior: interior[i],
                    })
                    .collect(),
            );
        }
        O::Slice => {
            let (start, limit) = (a.ints("start_indices")?, a.ints("limit_indices")?);
            let strides = a.ints_or("strides", vec![1; start.len()])?;
            if limit.len() != start.len() || strides.len() != start.len() {
                return Err("slice lists of different lengths".into());
            }
            attrs.slice = Some(
                (0..start.len())
                    .map(|i| SliceDim {
                        start: start[i],
                        limit: limit[i],
                        stride: strides[i],
                    })
                    .collect(),
            );
        }
        O::DynamicSlice => attrs.dynamic_slice_sizes = Some(a.ints("slice_sizes")?),
        O::GetTupleElement => attrs.tuple_index = Some(a.int("index")?),
        O::Gather => {
            attrs.gather_dims = Some(GatherDimensionNumbers {
                offset_dims: a.ints_or("offset_dims", vec![])?,
                collapsed_slice_dims: a.ints_or("collapsed_slice_dims", vec![])?,
                start_index_map: a.ints_or("start_index_map", vec![])?,
                index_vector_dim: a.int_or("index_vector_dim", 0)?,
                operand_batching_dims: a.ints_or("operand_batching_dims", vec![])?,
                start_indices_batching_dims: a.ints_or("start_indices_batching_dims", vec![])?,
            });
            attrs.gather_slice_sizes = Some(a.ints("slice_sizes")?);
            attrs.indices_are_sorted = a.flag("indices_are_sorted");
        }
        O::Scatter => {
            attrs.scatter_dims = Some(ScatterDimensionNumbers {
                update_window_dims: a.ints_or("update_window_dims", vec![])?,
                inserted_window_dims: a.ints_or("inserted_window_dims", vec![])?,
                scatter_dims_to_operand_dims: a.ints_or("scatter_dims_to_operand_dims", vec![])?,
                index_vector_dim: a.int_or("index_vector_dim", 0)?,
                input_batching_dims: a.ints_or("input_batching_dims", vec![])?,
                scatter_indices_batching_dims: a
                    .ints_or("scatter_indices_batching_dims", vec![])?,
            });
            attrs.indices_are_sorted = a.flag("indices_are_sorted");
            attrs.unique_indices = a.flag("unique_indices");
        }
        O::Reduce | O::Map => attrs.dimensions = Some(a.ints("dimensions")?),
        O::ReduceWindow => {
            let size = a.ints("window_dimensions")?;
            attrs.window = Some(window(
                &a,
                &size,
                "window_strides",
                "base_dilations",
                "window_dilations",
                None,
            )?);
        }
        O::SelectAndScatter => {
            let size = a.ints("window_dimensions")?;
            attrs.window = Some(window(&a, &size, "window_strides", "", "", None)?);
        }
        O::Sort => {
            let d = a.int_or("dimension", -1)?;
            attrs.dimensions = Some(vec![if d < 0 { d + rank(0) } else { d }]);
            attrs.is_stable = a.flag("is_stable");
        }
        O::Dot if op.name == "stablehlo.dot" => {
            attrs.dot_dims = Some(DotDimensionNumbers {
                lhs_batch: vec![],
                rhs_batch: vec![],
                lhs_contracting: vec![rank(0) - 1],
                rhs_contracting: vec![0],
            });
        }
        O::Dot => {
            attrs.dot_dims = Some(DotDimensionNumbers {
                lhs_batch: a.ints_or("lhs_batching_dimensions", vec![])?,
                rhs_batch: a.ints_or("rhs_batching_dimensions", vec![])?,
                lhs_contracting: a.ints_or("lhs_contracting_dimensions", vec![])?,
                rhs_contracting: a.ints_or("rhs_contracting_dimensions", vec![])?,
            });
        }
        O::Convolution => {
            let dims = ConvDimensionNumbers {
                input_batch: a.int("input_batch_dimension")?,
                input_feature: a.int("input_feature_dimension")?,
                input_spatial: a.ints("input_spatial_dimensions")?,
                kernel_input_feature: a.int("kernel_input_feature_dimension")?,
                kernel_output_feature: a.int("kernel_output_feature_dimension")?,
                kernel_spatial: a.ints("kernel_spatial_dimensions")?,
                output_batch: a.int("output_batch_dimension")?,
                output_feature: a.int("output_feature_dimension")?,
                output_spatial: a.ints("output_spatial_dimensions")?,
            };
            let kernel = operands
                .get(1)
                .and_then(Shape::as_array)
                .ok_or("a kernel operand")?;
            let size: Vec<i64> = dims
                .kernel_spatial
                .iter()
                .map(|&d| {
                    kernel
                        .dims()
                        .get(d as usize)
                        .copied()
                        .ok_or("a kernel spatial dimension out of range")
                })
                .collect::<Result<_, _>>()?;
            attrs.window = Some(window(
                &a,
                &size,
                "window_strides",
                "lhs_dilation",
                "rhs_dilation",
                Some("window_reversal"),
            )?);
            attrs.conv_dims = Some(dims);
            // XLA leaves out group counts of 1.
            let count = |name| Ok::<_, String>(Some(a.int_or(name, 1)?).filter(|&c| c != 1));
            attrs.feature_group_count = count("feature_group_count")?;
            attrs.batch_group_count = count("batch_group_count")?;
        }
        O::Compare => {
            let direction = a
                .enumeration("comparison_direction")?
                .ok_or("missing `comparison_direction`")?;
            attrs.comparison_direction = Some(
                ComparisonDirection::from_name(direction)
                    .ok_or_else(|| format!("unknown comparison `{direction}`"))?,
            );
            if let Some(t) = a.enumeration("compare_type")? {
                let t = ComparisonType::from_name(t)
                    .ok_or_else(|| format!("unknown comparison type `{t}`"))?;
                // XLA leaves out the type its element type implies.
                let element = operands
                    .first()
                    .and_then(Shape::as_array)
                    .map(|s| s.element_type());
                let implied = element.map(|e| match e {
                    e if e.is_floating() || e.is_complex() => ComparisonType::Float,
                    e if e.is_unsigned_integral() || e == PrimitiveType::Pred => {
                        ComparisonType::Unsigned
                    }
                    _ => ComparisonType::Signed,
                });
                attrs.comparison_type = (implied != Some(t)).then_some(t);
            }
        }
        O::ReducePrecision => {
            attrs.exponent_bits = Some(a.int("exponent_bits")?);
            attrs.mantissa_bits = Some(a.int("mantissa_bits")?);
        }
        O::Fft => {
            let t = a.enumeration("fft_type")?.ok_or("missing `fft_type`")?;
            attrs.fft_type =
                Some(FftType::from_name(t).ok_or_else(|| format!("unknown fft type `{t}`"))?);
            attrs.fft_length = Some(a.ints("fft_length")?);
        }
        O::Cholesky => attrs.cholesky_lower = Some(a.flag("lower")),
        O::TriangularSolve => {
            let t = a.enumeration("transpose_a")?.unwrap_or("NO_TRANSPOSE");
            attrs.triangular_solve = Some(TriangularSolveOptions {
                left_side: a.flag("left_side"),
                lower: a.flag("lower"),
                unit_diagonal: a.flag("unit_diagonal"),
                transpose_a: TransposeKind::from_name(t)
                    .ok_or_else(|| format!("unknown transpose `{t}`"))?,
            });
        }
        O::BatchNormGrad | O::BatchNormInference | O::BatchNormTraining => {
            attrs.epsilon = Some(a.float("epsilon")? as f32);
            attrs.feature_index = Some(a.int("feature_index")?);
        }
        O::Rng => {
            let d = a
                .enumeration("rng_distribution")?
                .ok_or("missing `rng_distribution`")?;
            attrs.rng_distribution = Some(match d {
                "UNIFORM" => RngDistribution::Uniform,
                "NORMAL" => RngDistribution::Normal,
                other => return Err(format!("unknown distribution `{other}`")),
            });
        }
        O::RngBitGenerator => {
            let algorithm = a.enumeration("rng_algorithm")?.unwrap_or("DEFAULT");
            attrs.rng_algorithm = Some(match algorithm {
                "DEFAULT" => RngAlgorithm::Default,
                "THREE_FRY" => RngAlgorithm::ThreeFry,
                "PHILOX" => RngAlgorithm::Philox,
                other => return Err(format!("unknown rng algorithm `{other}`")),
            });
        }
        O::CustomCall => custom_call(&a, &mut attrs, operands, result)?,
        O::AllReduce | O::AllGather | O::ReduceScatter | O::AllToAll | O::CollectivePermute => {
            collective(&a, opcode, &mut attrs)?
        }
        _ => {}
    }
    if opcode == O::Constant {
        let value = op.attr("value").ok_or("missing `value`")?;
        attrs.literal = Some(literal(value)?);
    }
    Ok(attrs)
}

/// A window of `size` from the attributes named (an empty name: the
/// default).
fn window(
    a: &Reader,
    size: &[i64],
    strides: &str,
    base: &str,
    dilation: &str,
    reversal: Option<&str>,
) -> OpResult<Window> {
    let n = size.len();
    let list = |name: &str| {
        if name.is_empty() {
            Ok(vec![1; n])
        } else {
            a.ints_or(name, vec![1; n])
        }
    };
    let (strides, base, dilation) = (list(strides)?, list(base)?, list(dilation)?);
    let padding = a.ints_or("padding", vec![0; 2 * n])?;
    let reversal = match reversal.and_then(|r| a.0.attr(r)) {
        Some(Attr::Bools(v)) => v.clone(),
        Some(other) => ints_of(other)?.iter().map(|&x| x != 0).collect(),
        None => vec![false; n],
    };
    if [strides.len(), base.len(), dilation.len(), reversal.len()]
        .iter()
        .any(|&l| l != n)
        || padding.len() != 2 * n
    {
        return Err(format!(
            "window attributes of {n} dimensions do not agree in length"
        ));
    }
    Ok(Window {
        dims: (0..n)
            .map(|i| WindowDim {
                size: size[i],
                stride: strides[i],
                padding_low: padding[2 * i],
                padding_high: padding[2 * i + 1],
                window_dilation: dilation[i],
                base_dilation: base[i],
                window_reversal: reversal[i],
            })
            .collect(),
    })
}

/// A custom call's target, configuration, API version, layouts and aliases.
fn custom_call(
    a: &Reader,
    attrs: &mut Attrs,
    operands: &[Shape],
    result: &mut Shape,
) -> OpResult<()> {
    attrs.custom_call_target = Some(string_attr(a.0, "call_target_name")?);
    attrs.custom_call_has_side_effect = a.flag("has_side_effect");
    let config = match (a.0.attr("mhlo.backend_config"), a.0.attr("backend_config")) {
        (Some(dict @ Attr::Dict(_)), _) | (_, Some(dict @ Attr::Dict(_))) => Some(attr_text(dict)),
        (_, Some(Attr::String(s))) if !s.is_empty() => {
            Some(String::from_utf8_lossy(s).into_owned())
        }
        _ => None,
    };
    // The original API (1) is the default XLA leaves out; 0 is "unspecified".
    attrs.custom_call_api_version = match a.0.attr("api_version") {
        Some(Attr::Int(0 | 1, _)) | None => None,
        Some(Attr::Int(v, _)) => Some(
            match v {
                2 => "API_VERSION_STATUS_RETURNING",
                3 => "API_VERSION_STATUS_RETURNING_UNIFIED",
                4 => "API_VERSION_TYPED_FFI",
                _ => return Err(format!("unknown custom call api_version {v}")),
            }
            .to_string(),
        ),
        Some(Attr::Enum(_, v)) if v == "API_VERSION_ORIGINAL" || v == "API_VERSION_UNSPECIFIED" => {
            None
        }
        Some(Attr::Enum(_, v)) => Some(v.clone()),
        Some(other) => return Err(format!("`api_version` is not an integer: {other:?}")),
    };
    // A typed FFI call's configuration is a dictionary, empty when absent.
    let typed = attrs.custom_call_api_version.as_deref() == Some("API_VERSION_TYPED_FFI");
    attrs.backend_config = config.or_else(|| typed.then(|| "{}".to_string()));
    if let Some(Attr::Array(layouts)) = a.0.attr("operand_layouts") {
        let mut constrained = Vec::new();
        for (layout, shape) in layouts.iter().zip(operands) {
            let mut shape = shape.clone();
            if let Shape::Array(array) = &mut shape {
                array.set_layout(Some(Layout::new(ints_of(layout)?)));
            }
            constrained.push(shape);
        }
        attrs.operand_layout_constraints = Some(constrained);
    }
    if let Some(Attr::Array(layouts)) = a.0.attr("result_layouts") {
        let mut leaves: Vec<&mut Shape> = match result {
            Shape::Tuple(parts) => parts.iter_mut().collect(),
            other => vec![other],
        };
        for (layout, shape) in layouts.iter().zip(leaves.iter_mut()) {
            if let Shape::Array(array) = shape {
                array.set_layout(Some(Layout::new(ints_of(layout)?)));
            }
        }
    }
    if let Some(Attr::Array(aliases)) = a.0.attr("output_operand_aliases") {
        let mut out = Vec::new();
        for alias in aliases {
            let Attr::Dict(fields) = alias else {
                return Err("an output_operand_alias that is not a structure".into());
            };
            let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
            out.push(OutputOperandAlias {
                output_index: field("output_tuple_indices")
                    .map(ints_of)
                    .transpose()?
                    .unwrap_or_default(),
                operand: match field("operand_index") {
                    Some(Attr::Int(v, _)) => *v,
                    _ => 0,
                },
                operand_index: field("operand_tuple_indices")
                    .map(ints_of)
                    .transpose()?
                    .unwrap_or_default(),
            });
        }
        attrs.output_to_operand_aliasing = Some(out);
    }
    Ok(())
}

/// A collective's replica groups, channel, device-id mode and dimension.
fn collective(a: &Reader, opcode: Opcode, attrs: &mut Attrs) -> OpResult<()> {
    use Opcode as O;
    let groups = |name: &str| -> OpResult<Option<Vec<Vec<i64>>>> {
        match a.0.attr(name) {
            Some(
                groups @ Attr::Dense {
                    ty: Type::Tensor { dims, .. },
                    ..
                },
            ) if dims.len() == 2 => {
                let values = ints_of(groups)?;
                let width = dims[1].unwrap_or(0).max(1) as usize;
                Ok(Some(values.chunks(width).map(<[i64]>::to_vec).collect()))
            }
            Some(other) => Err(format!("`{name}` is not a 2-D integer tensor: {other:?}")),
            None => Ok(None),
        }
    };
    if opcode == O::CollectivePermute {
        let pairs = groups("source_target_pairs")?.ok_or("missing `source_target_pairs`")?;
        attrs.source_target_pairs = Some(
            pairs
                .iter()
                .map(|p| (p[0], *p.get(1).unwrap_or(&0)))
                .collect(),
        );
    } else {
        attrs.replica_groups = groups("replica_groups")?;
    }
    if let Some(Attr::Dict(fields)) = a.0.attr("channel_handle") {
        if let Some((_, Attr::Int(handle, _))) = fields.iter().find(|(k, _)| k == "handle") {
            attrs.channel_id = (*handle > 0).then_some(*handle);
        }
    } else if let Some(Attr::Int(handle, _)) = a.0.attr("channel_id") {
        attrs.channel_id = (*handle > 0).then_some(*handle);
    }
    attrs.use_global_device_ids = a.flag("use_global_device_ids");
    match opcode {
        O::AllGather => attrs.dimensions = Some(vec![a.int("all_gather_dim")?]),
        O::ReduceScatter => attrs.dimensions = Some(vec![a.int("scatter_dimension")?]),
        // A concat dimension other than the split one is lowered around
        // HLO's all-to-all (`all_to_all`).
        O::AllToAll => attrs.dimensions = Some(vec![a.int("split_dimension")?]),
        _ => {}
    }
    Ok(())
}

/// Typed reads of an op's attributes.
struct Reader<'a>(&'a Operation);

impl Reader<'_> {
    fn get(&self, name: &str) -> OpResult<&Attr> {
        self.0
            .attr(name)
            .ok_or_else(|| format!("missing attribute `{name}`"))
    }

    fn ints(&self, name: &str) -> OpResult<Vec<i64>> {
        ints_of(self.get(name)?).map_err(|e| format!("`{name}`: {e}"))
    }

    fn ints_or(&self, name: &str, default: Vec<i64>) -> OpResult<Vec<i64>> {
        match self.0.attr(name) {
            Some(attr) => ints_of(attr).map_err(|e| format!("`{name}`: {e}")),
            None => Ok(default),
        }
    }

    fn int(&self, name: &str) -> OpResult<i64> {
        match self.get(name)? {
            Attr::Int(v, _) => Ok(*v),
            other => Err(format!("`{name}` is not an integer: {other:?}")),
        }
    }

    fn int_or(&self, name: &str, default: i64) -> OpResult<i64> {
        match self.0.attr(name) {
            Some(_) => self.int(name),
            None => Ok(default),
        }
    }

    fn float(&self, name: &str) -> OpResult<f64> {
        match self.get(name)? {
            Attr::Float(v, _) => Ok(*v),
            Attr::Int(v, _) => Ok(*v as f64),
            other => Err(format!("`{name}` is not a float: {other:?}")),
        }
    }

    /// A boolean attribute: `true`, or present as a unit attribute.
    fn flag(&self, name: &str) -> bool {
        matches!(self.0.attr(name), Some(Attr::Bool(true) | Attr::Unit))
    }

    fn enumeration(&self, name: &str) -> OpResult<Option<&str>> {
        match self.0.attr(name) {
            Some(Attr::Enum(_, v)) => Ok(Some(v)),
            Some(Attr::Opaque(v)) => Ok(Some(v)),
            Some(other) => Err(format!("`{name}` is not an enum: {other:?}")),
            None => Ok(None),
        }
    }
}

/// An integer list: `array<i64: …>`, `[1, 2]` or an integer tensor
/// (flattened).
pub(crate) fn ints_of(attr: &Attr) -> OpResult<Vec<i64>> {
    match attr {
        Attr::Ints(v) => Ok(v.clone()),
        Attr::Array(items) => items
            .iter()
            .map(|i| match i {
                Attr::Int(v, _) => Ok(*v),
                other => Err(format!("not an integer: {other:?}")),
            })
            .collect(),
        Attr::Dense {
            ty: Type::Tensor { element, dims },
            bytes,
            splat,
        } => {
            let size = match element {
                ElementType::Index => 8,
                ElementType::Known(p) if p.is_integral() => p.byte_size(),
                _ => return Err(format!("not an integer tensor: {element:?}")),
            };
            let signed = !matches!(element, ElementType::Known(p) if p.is_unsigned_integral());
            let values: Vec<i64> = bytes
                .chunks_exact(size)
                .map(|c| {
                    let mut raw = [0u8; 8];
                    raw[..size].copy_from_slice(c);
                    let v = u64::from_le_bytes(raw);
                    let shift = 64 - 8 * size as u32;
                    if signed && shift > 0 {
                        ((v << shift) as i64) >> shift
                    } else {
                        v as i64
                    }
                })
                .collect();
            if *splat {
                let count = dims
                    .iter()
                    .try_fold(1i64, |n, d| n.checked_mul(d.unwrap_or(0)));
                match count {
                    Some(n @ 0..=MAX_LIST) => {
                        Ok(vec![values.first().copied().unwrap_or(0); n as usize])
                    }
                    _ => Err(format!("an integer list of {dims:?} elements")),
                }
            } else {
                Ok(values)
            }
        }
        other => Err(format!("not an integer list: {other:?}")),
    }
}

/// The longest integer list (dimension numbers, replica groups) read.
const MAX_LIST: i64 = 1 << 24;

/// The largest constant made (a splat of a larger shape is refused).
const MAX_CONSTANT_BYTES: u64 = 1 << 32;

/// The literal of a dense constant.
pub(crate) fn literal(attr: &Attr) -> OpResult<Literal> {
    let Attr::Dense { ty, bytes, splat } = attr else {
        return Err(format!("a constant that is not a dense literal: {attr:?}"));
    };
    let shape = shape(ty)?;
    let size = shape.as_array().and_then(|a| {
        a.dims()
            .iter()
            .try_fold(a.element_type().byte_size() as u64, |n, &d| {
                n.checked_mul(u64::try_from(d).ok()?)
            })
    });
    if size.is_none_or(|n| n > MAX_CONSTANT_BYTES) {
        return Err(format!(
            "a constant of type {shape} is larger than {MAX_CONSTANT_BYTES} bytes"
        ));
    }
    let mut literal = Literal::zeros(&shape).map_err(|e| e.to_string())?;
    let out = literal.bytes_mut().map_err(|e| e.to_string())?;
    if *splat {
        if bytes.is_empty() && !out.is_empty() {
            return Err("an empty splat".into());
        }
        for chunk in out.chunks_exact_mut(bytes.len().max(1)) {
            chunk.copy_from_slice(bytes);
        }
    } else if out.len() == bytes.len() {
        out.copy_from_slice(bytes);
    } else {
        return Err(format!(
            "a literal of {} bytes for a shape of {}",
            bytes.len(),
            out.len()
        ));
    }
    if let Type::Tensor {
        element: ElementType::Known(PrimitiveType::Pred),
        ..
    } = ty
    {
        for b in out.iter_mut() {
            *b = u8::from(*b != 0);
        }
    }
    Ok(literal)
}

/// An attribute in MLIR's text form, as XLA prints a custom call's
/// dictionary `backend_config` (`{diag = 78 : ui8, side = 76 : ui8}`).
fn attr_text(attr: &Attr) -> String {
    match attr {
        Attr::Unit => "unit".into(),
        Attr::Bool(v) => v.to_string(),
        Attr::Int(v, ElementType::Known(PrimitiveType::S64)) => v.to_string(),
        Attr::Int(v, t) => format!("{v} : {}", t.mlir_name()),
        // MLIR's float syntax needs the point: `1.0000000000000000e-5`.
        Attr::Float(v, t) => format!("{v:.16e} : {}", t.mlir_name()),
        Attr::String(s) => format!("{:?}", String::from_utf8_lossy(s)),
        Attr::Array(items) => format!(
            "[{}]",
            items.iter().map(attr_text).collect::<Vec<_>>().join(", ")
        ),
        Attr::Ints(v) => format!(
            "array<i64: {}>",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ),
        Attr::Dict(fields) => {
            let mut sorted: Vec<&(String, Attr)> = fields.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let body: Vec<String> = sorted
                .iter()
                .map(|(k, v)| {
                    if *v == Attr::Unit {
                        k.clone()
                    } else {
                        format!("{k} = {}", attr_text(v))
                    }
                })
                .collect();
            format!("{{{}}}", body.join(", "))
        }
        Attr::Enum(_, v) | Attr::Opaque(v) | Attr::Symbol(v) => v.clone(),
        other => format!("{other:?}"),
    }
}
