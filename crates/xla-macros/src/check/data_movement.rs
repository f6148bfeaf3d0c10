//! Data movement: broadcast, broadcast_in_dim, reshape, transpose, rev,
//! slice, slice_in_dim, concat, pad and iota.

use crate::types::ExactDim;
use xla_core::infer::{self, Attr, InferError, PadAmounts};
use xla_core::{ArrayShape, Dim};

use super::ops::Call;
use super::scope::Val;
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{DimExpr, ExprKind, TypeSpec};
use crate::ir::Arg;
use crate::types::element_type;

impl Checker<'_> {
    /// The single array operand of a data-movement op (weak literals get
    /// their default type).
    fn operand0(&mut self, call: &Call, op: &'static str) -> Option<(Val, ArrayShape<ExactDim>)> {
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let a = self.array_of(&x, op, 0)?;
        Some((x, a))
    }

    /// `x.broadcast([sizes])`: new dimensions in front.
    pub fn broadcast(&mut self, call: &Call) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, "broadcast");
        let sizes = self.sizes(call.args[1]);
        let (Some((x, a)), Some((exprs, syms, entries))) = (x, sizes) else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range]).attr(
            "broadcast_sizes",
            call.args[1].range,
            entries,
        );
        let result = infer::broadcast(&a, &syms);
        self.emit(
            result,
            "broadcast",
            vec![Arg::Value(x.id.expect("a value")), Arg::Sizes(exprs)],
            &spans,
        )
    }

    /// `x.broadcast_in_dim([out_dim_sizes], [broadcast_dimensions])`.
    pub fn broadcast_in_dim(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, "broadcast_in_dim");
        let sizes = self.sizes(call.args[1]);
        let dims = self.ints(call.args[2]);
        let (Some((x, a)), Some((exprs, syms, size_entries)), Some((dims, dim_entries))) =
            (x, sizes, dims)
        else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range])
            .attr("out_dim_size", call.args[1].range, size_entries)
            .attr("broadcast_dimensions", call.args[2].range, dim_entries);
        let result = infer::broadcast_in_dim(&a, &syms, &dims);
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Sizes(exprs),
            Arg::Ints(dims),
        ];
        self.emit(result, "broadcast_in_dim", args, &spans)
    }

    /// `x.reshape([new_sizes])`.
    pub fn reshape(&mut self, call: &Call) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, "reshape");
        let sizes = self.sizes(call.args[1]);
        let (Some((x, a)), Some((exprs, syms, entries))) = (x, sizes) else {
            return Val::error(call.range);
        };
        let spans =
            OpSpans::new(call.range, vec![x.range]).attr("new_sizes", call.args[1].range, entries);
        let result = infer::reshape(&a, &syms);
        self.emit(
            result,
            "reshape",
            vec![Arg::Value(x.id.expect("a value")), Arg::Sizes(exprs)],
            &spans,
        )
    }

    /// `x.transpose([permutation])` and `x.rev([dimensions])`.
    fn dims_op(&mut self, call: &Call, op: &'static str, builder: &'static str) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, op);
        let dims = self.ints(call.args[1]);
        let (Some((x, a)), Some((dims, entries))) = (x, dims) else {
            return Val::error(call.range);
        };
        let spans =
            OpSpans::new(call.range, vec![x.range]).attr("dimensions", call.args[1].range, entries);
        let result = if builder == "transpose" {
            infer::transpose(&a, &dims)
        } else {
            infer::reverse(&a, &dims)
        };
        self.emit(
            result,
            builder,
            vec![Arg::Value(x.id.expect("a value")), Arg::Ints(dims)],
            &spans,
        )
    }

    pub fn transpose(&mut self, call: &Call) -> Val {
        self.dims_op(call, "transpose", "transpose")
    }

    pub fn rev(&mut self, call: &Call) -> Val {
        self.dims_op(call, "reverse", "rev")
    }

    /// `x.slice([starts], [limits])` or with `[strides]`.
    pub fn slice(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=4) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, "slice");
        let starts = self.sizes(call.args[1]);
        let limits = self.sizes(call.args[2]);
        let strides = match call.args.get(3) {
            Some(e) => self.ints(e).map(Some),
            None => Some(None),
        };
        let (Some((x, a)), Some(starts), Some(limits), Some(strides)) =
            (x, starts, limits, strides)
        else {
            return Val::error(call.range);
        };
        let (strides, stride_entries) = strides.unwrap_or_else(|| (vec![1; a.rank()], Vec::new()));
        let mut spans = OpSpans::new(call.range, vec![x.range])
            .attr("start_indices", call.args[1].range, starts.2)
            .attr("limit_indices", call.args[2].range, limits.2);
        if let Some(e) = call.args.get(3) {
            spans = spans.attr("strides", e.range, stride_entries);
        }
        let result = infer::slice(&a, &starts.1, &limits.1, &strides);
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Sizes(starts.0),
            Arg::Sizes(limits.0),
            Arg::Ints(strides),
        ];
        self.emit(result, "slice", args, &spans)
    }

    /// `x.slice_in_dim(start, limit, stride, dimension)`: a slice of one
    /// dimension.
    pub fn slice_in_dim(&mut self, call: &Call) -> Val {
        if !self.arity(call, 5..=5) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, "slice");
        let start = self.size_arg(call.args[1]);
        let limit = self.size_arg(call.args[2]);
        let stride = self.int(call.args[3]);
        let dim = self.int(call.args[4]);
        let (Some((x, a)), Some(start), Some(limit), Some(stride), Some(dim)) =
            (x, start, limit, stride, dim)
        else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range])
            .attr("dimno", call.args[4].range, vec![])
            .attr("start_indices", call.args[1].range, vec![])
            .attr("limit_indices", call.args[2].range, vec![])
            .attr("strides", call.args[3].range, vec![]);
        let Some(d) = xla_core::shape::normalize_dim(dim, a.rank()) else {
            let err = InferError::DimOutOfRange {
                op: "slice_in_dim",
                attr: Attr::scalar("dimno"),
                dim,
                bound: a.rank(),
            };
            self.report(err, &spans);
            return Val::error(call.range);
        };
        let mut starts = vec![ExactDim::constant(0); a.rank()];
        let mut limits = a.dims().to_vec();
        let mut strides = vec![1; a.rank()];
        (starts[d], limits[d], strides[d]) = (start.1, limit.1, stride);
        let result = infer::slice(&a, &starts, &limits, &strides);
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Size(start.0),
            Arg::Size(limit.0),
            Arg::Int(stride),
            Arg::Int(dim),
        ];
        self.emit(result, "slice_in_dim", args, &spans)
    }

    /// `concat([a, b], dimension)` or `a.concat([b], dimension)`.
    pub fn concat(&mut self, call: &Call) -> Val {
        let expected = if call.method { 3..=3 } else { 2..=2 };
        if !self.arity(call, expected) {
            return Val::error(call.range);
        }
        let mut operands = Vec::new();
        if call.method {
            operands.push(self.expr(call.args[0]));
        }
        let list = call.args[call.args.len() - 2];
        let listed = self.operand_list(list);
        let dim_arg = call.args[call.args.len() - 1];
        let dim = self.int(dim_arg);
        let (Some(listed), Some(dim)) = (listed, dim) else {
            return Val::error(call.range);
        };
        operands.extend(listed);
        let operands: Vec<Val> = operands.into_iter().map(|v| self.concrete(v)).collect();
        let arrays: Vec<Option<ArrayShape<ExactDim>>> = operands
            .iter()
            .enumerate()
            .map(|(i, v)| self.array_of(v, "concatenate", i))
            .collect();
        let Some(arrays) = arrays.into_iter().collect::<Option<Vec<_>>>() else {
            return Val::error(call.range);
        };
        let refs: Vec<&ArrayShape<ExactDim>> = arrays.iter().collect();
        let spans = OpSpans::new(call.range, operands.iter().map(|v| v.range).collect()).attr(
            "dimensions",
            dim_arg.range,
            vec![dim_arg.range],
        );
        let result = infer::concatenate(&refs, dim);
        let ids = operands.iter().map(|v| v.id.expect("a value")).collect();
        self.emit(
            result,
            "concat_in_dim",
            vec![Arg::Values(ids), Arg::Int(dim)],
            &spans,
        )
    }

    /// `x.pad(value, [(low, high, interior), …])`; `(low, high)` means no
    /// interior padding.
    pub fn pad(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let x = self.operand0(call, "pad");
        let value = self.expr(call.args[1]);
        let config = self.pad_config(call.args[2]);
        let Some((x, a)) = x else {
            return Val::error(call.range);
        };
        let value = self.materialize(&value, a.element_type());
        let (Some(v), Some((exprs, amounts, entries))) = (self.array_of(&value, "pad", 1), config)
        else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range, value.range])
            .attr("padding", call.args[2].range, entries.clone())
            .attr("interior_padding", call.args[2].range, entries);
        let result = infer::pad(&a, &v, &amounts);
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Value(value.id.expect("a value")),
            Arg::PadConfig(exprs),
        ];
        self.emit(result, "pad", args, &spans)
    }

    #[allow(clippy::type_complexity)]
    fn pad_config(
        &mut self,
        e: &crate::ast::Expr,
    ) -> Option<(
        Vec<[DimExpr; 3]>,
        Vec<PadAmounts<ExactDim>>,
        Vec<crate::ast::Range>,
    )> {
        let ExprKind::Array(items) = &e.kind else {
            self.error(
                e.range,
                "expected a padding config such as `[(1, 1, 0), (0, 2, 1)]`",
            );
            return None;
        };
        let mut exprs = Vec::new();
        let mut amounts = Vec::new();
        for item in items {
            let parts = match &item.kind {
                ExprKind::Tuple(parts) if (2..=3).contains(&parts.len()) => parts,
                _ => {
                    self.error(
                        item.range,
                        "expected `(low, high, interior)` or `(low, high)`",
                    );
                    return None;
                }
            };
            let mut sizes: Vec<(DimExpr, ExactDim)> = Vec::new();
            for p in parts {
                sizes.push(self.size_arg(p)?);
            }
            if sizes.len() == 2 {
                sizes.push((DimExpr::Const(0, item.range), ExactDim::constant(0)));
            }
            let [low, high, interior] = <[(DimExpr, ExactDim); 3]>::try_from(sizes).ok()?;
            amounts.push(PadAmounts {
                low: low.1,
                high: high.1,
                interior: interior.1,
            });
            exprs.push([low.0, high.0, interior.0]);
        }
        Some((exprs, amounts, items.iter().map(|i| i.range).collect()))
    }

    /// `iota(s32[N, M], iota_dimension)`.
    pub fn iota(&mut self, call: &Call) -> Val {
        if call.method {
            self.error(
                call.range,
                "`iota` makes a new array: call it as `iota(s32[N], 0)`",
            );
            return Val::error(call.range);
        }
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let shape_arg = call.args[0];
        let ExprKind::Type(TypeSpec::Array {
            element_type: ty,
            dims,
            range,
        }) = &shape_arg.kind
        else {
            self.error(
                shape_arg.range,
                "expected the result type, such as `s32[N]`",
            );
            return Val::error(call.range);
        };
        let ty = element_type(ty).map_err(|e| self.errors.push(e)).ok();
        let syms: Vec<Option<ExactDim>> = dims.iter().map(|d| self.size(d)).collect();
        let dim = self.int(call.args[1]);
        let (Some(ty), Some(syms), Some(dim)) =
            (ty, syms.into_iter().collect::<Option<Vec<_>>>(), dim)
        else {
            return Val::error(call.range);
        };
        let entries = dims.iter().map(|d| d.range()).collect();
        let spans = OpSpans::new(call.range, vec![])
            .attr("shape", *range, entries)
            .attr("iota_dimension", call.args[1].range, vec![]);
        let result = infer::iota(&ArrayShape::new(ty, syms), dim);
        self.emit(
            result,
            "iota",
            vec![Arg::ArrayShape(ty, dims.clone()), Arg::Int(dim)],
            &spans,
        )
    }
}
