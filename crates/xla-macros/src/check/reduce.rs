//! Reductions and the other ops taking a closure: reduce_sum & co, reduce,
//! reduce_window, sort and map; and top_k.

use crate::types::ExactDim;
use xla_core::hlo::{Opcode, Window, WindowDim};
use xla_core::infer::{self, InferError, Signature};
use xla_core::{ArrayShape, PrimitiveType, Shape};

use super::args::{Closure, Padding};
use super::dot::divides;
use super::ops::Call;
use super::scope::Val;
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{Expr, ExprKind};
use crate::ir::Arg;

/// The op's name as the table spells it (`reduce_sum`), for messages and
/// the lowering it calls.
pub(super) fn op_name(call: &Call) -> &'static str {
    super::ops::ops()
        .iter()
        .find(|(n, ..)| *n == call.name())
        .map(|(n, ..)| *n)
        .expect("dispatched from the table")
}

/// The operands of a variadic op: `x` (a method's receiver or a single
/// argument) or a list `[x, y]`.
fn is_list(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Array(_))
}

impl Checker<'_> {
    /// Concrete array operands with their shapes (`None` if any failed).
    fn arrays(
        &mut self,
        values: &[Val],
        op: &'static str,
        first: usize,
    ) -> Option<Vec<ArrayShape<ExactDim>>> {
        let arrays: Vec<Option<ArrayShape<ExactDim>>> = values
            .iter()
            .enumerate()
            .map(|(i, v)| self.array_of(v, op, first + i))
            .collect();
        arrays.into_iter().collect()
    }

    /// `x.reduce_sum([dimensions])` and the other named reductions: a
    /// reduce whose computation is `opcode` and whose init value is its
    /// identity.
    pub fn reduce_by(&mut self, call: &Call, opcode: Opcode) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let dims = self.ints(call.args[1]);
        let (Some(a), Some((dims, entries))) = (self.array_of(&x, "reduce", 0), dims) else {
            return Val::error(call.range);
        };
        match self.reduce_by_shape(call, opcode, &x, &a, &dims, entries) {
            Some(shape) => {
                let args = vec![Arg::Value(x.id.expect("a value")), Arg::Ints(dims)];
                let id = self
                    .frames
                    .push_instr(crate::ir::Instr::Runtime(op_name(call), args));
                Val::shape(shape, id, call.range)
            }
            None => Val::error(call.range),
        }
    }

    /// The shape of reducing `x` (shape `a`) over `dims` by `opcode`, or
    /// `None` after reporting why it cannot be (an element type `opcode`
    /// does not take, a dimension out of range).
    pub(super) fn reduce_by_shape(
        &mut self,
        call: &Call,
        opcode: Opcode,
        x: &Val,
        a: &ArrayShape<ExactDim>,
        dims: &[i64],
        entries: Vec<crate::ast::Range>,
    ) -> Option<Shape<ExactDim>> {
        let scalar = ArrayShape::new(a.element_type(), Vec::<ExactDim>::new());
        if let Err(err) = infer::binary(opcode, &scalar, &scalar, None) {
            let err = match err {
                InferError::ElementType { expected, .. } => InferError::ElementType {
                    op: op_name(call),
                    index: 0,
                    shape: Box::new(a.clone().into()),
                    expected,
                },
                other => other,
            };
            self.error(call.range, err);
            return None;
        }
        let s: Shape<ExactDim> = scalar.clone().into();
        let params = [s.clone(), s.clone()];
        let sig = Signature {
            parameters: &params,
            result: &s,
        };
        let spans =
            OpSpans::new(call.range, vec![x.range]).attr("dimensions", call.args[1].range, entries);
        match infer::reduce(&[a], &[&scalar], sig, dims) {
            Ok(shape) => Some(shape),
            Err(err) => {
                self.report(err, &spans);
                None
            }
        }
    }

    /// Operands and init values: `x, init` or `[x, y], [ix, iy]`; inits
    /// that are literals take their operand's element type.
    fn operands_and_inits(&mut self, first: &Expr, inits: &Expr) -> Option<(Vec<Val>, Vec<Val>)> {
        let operands = if is_list(first) {
            self.operand_list(first)?
        } else {
            vec![self.expr(first)]
        };
        let operands: Vec<Val> = operands.into_iter().map(|v| self.concrete(v)).collect();
        let init_values = if is_list(first) {
            self.operand_list(inits)?
        } else {
            vec![self.expr(inits)]
        };
        let init_values = init_values
            .iter()
            .enumerate()
            .map(|(i, v)| match operands.get(i).and_then(o_type) {
                Some(t) => self.materialize(v, t),
                None => self.concrete(v.clone()),
            })
            .collect();
        Some((operands, init_values))
    }

    /// `x.reduce(init, |acc, v| …, [dimensions])` or the variadic
    /// `reduce([x, y], [ix, iy], |ax, ay, bx, by| (…, …), [dimensions])`.
    pub fn reduce(&mut self, call: &Call) -> Val {
        if !self.arity(call, 4..=4) {
            return Val::error(call.range);
        }
        let (Some((operands, inits)), dims) = (
            self.operands_and_inits(call.args[0], call.args[1]),
            self.ints(call.args[3]),
        ) else {
            return Val::error(call.range);
        };
        let inputs = self.arrays(&operands, "reduce", 0);
        let init_arrays = self.arrays(&inits, "reduce", operands.len());
        let (Some(inputs), Some(init_arrays), Some((dims, entries))) = (inputs, init_arrays, dims)
        else {
            return Val::error(call.range);
        };
        let types: Vec<PrimitiveType> = inputs.iter().map(|a| a.element_type()).collect();
        let closure_types: Vec<PrimitiveType> = types.iter().chain(&types).copied().collect();
        let Some(closure) = self.closure(call.args[2], &closure_types, "reduce") else {
            return Val::error(call.range);
        };
        let spans = self
            .operand_spans(call.range, &operands, &inits)
            .attr("dimensions", call.args[3].range, entries)
            .attr("to_apply", closure.range, vec![]);
        let refs: Vec<&ArrayShape<ExactDim>> = inputs.iter().collect();
        let init_refs: Vec<&ArrayShape<ExactDim>> = init_arrays.iter().collect();
        let result = infer::reduce(&refs, &init_refs, signature(&closure), &dims);
        let args = vec![
            ids(&operands),
            ids(&inits),
            Arg::Comp(closure.comp),
            Arg::Ints(dims),
        ];
        self.emit(result, "reduce", args, &spans)
    }

    fn operand_spans(&self, call: crate::ast::Range, operands: &[Val], inits: &[Val]) -> OpSpans {
        OpSpans::new(
            call,
            operands.iter().chain(inits).map(|v| v.range).collect(),
        )
    }

    /// `x.reduce_window(init, |a, b| …, [window_dimensions],
    /// [window_strides], padding)`.
    pub fn reduce_window(&mut self, call: &Call) -> Val {
        if !self.arity(call, 6..=6) {
            return Val::error(call.range);
        }
        let operands = self.operands_and_inits(call.args[0], call.args[1]);
        let sizes = self.ints(call.args[3]);
        let strides = self.ints(call.args[4]);
        let padding = self.padding_arg(call.args[5]);
        let (
            Some((operands, inits)),
            Some((sizes, size_entries)),
            Some((strides, stride_entries)),
            Some(padding),
        ) = (operands, sizes, strides, padding)
        else {
            return Val::error(call.range);
        };
        let inputs = self.arrays(&operands, "reduce-window", 0);
        let init_arrays = self.arrays(&inits, "reduce-window", operands.len());
        let (Some(inputs), Some(init_arrays)) = (inputs, init_arrays) else {
            return Val::error(call.range);
        };
        let types: Vec<PrimitiveType> = inputs.iter().map(|a| a.element_type()).collect();
        let closure_types: Vec<PrimitiveType> = types.iter().chain(&types).copied().collect();
        let Some(closure) = self.closure(call.args[2], &closure_types, "reduce_window") else {
            return Val::error(call.range);
        };
        let spans = self
            .operand_spans(call.range, &operands, &inits)
            .attr("window_dimensions", call.args[3].range, size_entries)
            .attr("window_strides", call.args[4].range, stride_entries)
            .attr("window size", call.args[3].range, vec![])
            .attr("window stride", call.args[4].range, vec![])
            .attr("padding", call.args[5].range, vec![])
            .attr("window", call.args[3].range, vec![])
            .attr("to_apply", closure.range, vec![]);
        for (list, len) in [
            ("window_dimensions", sizes.len()),
            ("window_strides", strides.len()),
        ] {
            if len != inputs[0].rank() {
                let err = InferError::ListLength {
                    op: "window",
                    list,
                    len,
                    other: "the operand's rank",
                    expected: inputs[0].rank(),
                };
                self.report(err, &spans);
                return Val::error(call.range);
            }
        }
        let window = match self.window(&inputs[0], &sizes, &strides, &padding, &spans) {
            Some(w) => w,
            None => return Val::error(call.range),
        };
        let refs: Vec<&ArrayShape<ExactDim>> = inputs.iter().collect();
        let init_refs: Vec<&ArrayShape<ExactDim>> = init_arrays.iter().collect();
        let result = infer::reduce_window(&refs, &init_refs, signature(&closure), &window);
        let mut args = vec![
            ids(&operands),
            ids(&inits),
            Arg::Comp(closure.comp),
            Arg::Ints(sizes),
            Arg::Ints(strides),
        ];
        match padding {
            Padding::Same | Padding::Valid => {
                args.push(Arg::SamePadding(matches!(padding, Padding::Same)));
                self.emit(result, "reduce_window", args, &spans)
            }
            Padding::Pairs(pairs) => {
                args.push(Arg::Pairs(pairs));
                match result {
                    Ok(shape) => {
                        let id = self
                            .frames
                            .push_instr(crate::ir::Instr::Runtime("reduce_window_padded", args));
                        Val::shape(shape, id, call.range)
                    }
                    Err(err) => {
                        self.report(err, &spans);
                        Val::error(call.range)
                    }
                }
            }
        }
    }

    /// The window of a reduce-window over `base` with the padding as
    /// written. SAME padding needs the base size unless the stride is 1
    /// (then the padding is `size - 1` in total, whatever the base).
    fn window(
        &mut self,
        base: &ArrayShape<ExactDim>,
        sizes: &[i64],
        strides: &[i64],
        padding: &Padding,
        spans: &OpSpans,
    ) -> Option<Window> {
        let mut dims = Vec::new();
        for (d, (&size, &stride)) in sizes.iter().zip(strides).enumerate() {
            let (low, high) = match padding {
                Padding::Valid => (0, 0),
                Padding::Pairs(pairs) => match pairs.get(d) {
                    Some(&p) => p,
                    None => {
                        let err = InferError::ListLength {
                            op: "reduce-window",
                            list: "padding",
                            len: pairs.len(),
                            other: "the operand's rank",
                            expected: base.rank(),
                        };
                        self.report(err, spans);
                        return None;
                    }
                },
                Padding::Same => {
                    let n = &base.dims()[d];
                    match xla_core::Dim::as_const(n) {
                        Some(n) => {
                            infer::make_padding(&[n], &[size], &[stride], infer::PaddingKind::Same)
                                [0]
                        }
                        None if stride == 1 || divides(n, stride) => {
                            let total = (size - stride).max(0);
                            (total / 2, total - total / 2)
                        }
                        None => {
                            let err = InferError::NotExpressible {
                                op: "reduce-window",
                                dim: d,
                                formula: format!("⌈{n} / {stride}⌉ (SAME padding with a stride needs a constant size)"),
                            };
                            self.report(err, spans);
                            return None;
                        }
                    }
                }
            };
            dims.push(WindowDim {
                size,
                stride,
                padding_low: low,
                padding_high: high,
                ..WindowDim::default()
            });
        }
        Some(Window { dims })
    }

    /// `x.sort(dimension, |a, b| a < b)`, or `sort([keys, values], dimension,
    /// |ka, kb, va, vb| ka < kb)`. The sort is stable.
    pub fn sort(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let operands = if is_list(call.args[0]) {
            self.operand_list(call.args[0])
        } else {
            Some(vec![self.expr(call.args[0])])
        };
        let dim = self.int(call.args[1]);
        let (Some(operands), Some(dim)) = (operands, dim) else {
            return Val::error(call.range);
        };
        let operands: Vec<Val> = operands.into_iter().map(|v| self.concrete(v)).collect();
        let Some(arrays) = self.arrays(&operands, "sort", 0) else {
            return Val::error(call.range);
        };
        let types: Vec<PrimitiveType> = arrays
            .iter()
            .flat_map(|a| [a.element_type(), a.element_type()])
            .collect();
        let Some(closure) = self.closure(call.args[2], &types, "sort") else {
            return Val::error(call.range);
        };
        let rank = arrays.first().map_or(0, ArrayShape::rank);
        let dim = xla_core::shape::normalize_dim(dim, rank).map_or(dim, |d| d as i64);
        let spans = OpSpans::new(call.range, operands.iter().map(|v| v.range).collect())
            .attr("dimensions", call.args[1].range, vec![call.args[1].range])
            .attr("to_apply", closure.range, vec![]);
        let refs: Vec<&ArrayShape<ExactDim>> = arrays.iter().collect();
        let result = infer::sort(&refs, dim, signature(&closure));
        let args = vec![
            ids(&operands),
            Arg::Comp(closure.comp),
            Arg::Int(dim),
            Arg::Bool(true),
        ];
        self.emit(result, "sort", args, &spans)
    }

    /// `x.map(|v| …)` or `map([x, y], |a, b| …)`.
    pub fn map(&mut self, call: &Call) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let operands = if is_list(call.args[0]) {
            self.operand_list(call.args[0])
        } else {
            Some(vec![self.expr(call.args[0])])
        };
        let Some(operands) = operands else {
            return Val::error(call.range);
        };
        let operands: Vec<Val> = operands.into_iter().map(|v| self.concrete(v)).collect();
        let Some(arrays) = self.arrays(&operands, "map", 0) else {
            return Val::error(call.range);
        };
        let types: Vec<PrimitiveType> = arrays.iter().map(|a| a.element_type()).collect();
        let Some(closure) = self.closure(call.args[1], &types, "map") else {
            return Val::error(call.range);
        };
        let rank = arrays.first().map_or(0, ArrayShape::rank);
        let dims: Vec<i64> = (0..rank as i64).collect();
        let spans = OpSpans::new(call.range, operands.iter().map(|v| v.range).collect()).attr(
            "to_apply",
            closure.range,
            vec![],
        );
        let refs: Vec<&ArrayShape<ExactDim>> = arrays.iter().collect();
        let result = infer::map(&refs, signature(&closure), &dims);
        let args = vec![ids(&operands), Arg::Comp(closure.comp), Arg::Ints(dims)];
        self.emit(result, "map", args, &spans)
    }

    /// `x.top_k(k)`: `(values, s32 indices)` of the `k` largest entries
    /// along the last dimension.
    pub fn top_k(&mut self, call: &Call) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let k = self.size_arg(call.args[1]);
        let (Some(a), Some((k_expr, k))) = (self.array_of(&x, "topk", 0), k) else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range]).attr("k", call.args[1].range, vec![]);
        let result = infer::topk(&a, &k);
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Size(k_expr),
            Arg::Bool(true),
        ];
        self.emit(result, "top_k", args, &spans)
    }
}

fn o_type(v: &Val) -> Option<PrimitiveType> {
    match &v.ty {
        super::scope::Ty::Shape(s) => s.element_type(),
        _ => None,
    }
}

fn ids(values: &[Val]) -> Arg {
    Arg::Values(values.iter().map(|v| v.id.expect("a value")).collect())
}

fn signature(closure: &Closure) -> Signature<'_, ExactDim> {
    Signature {
        parameters: &closure.params,
        result: &closure.result,
    }
}
