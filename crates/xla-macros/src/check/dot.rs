//! Dot products and convolutions.

use crate::types::ExactDim;
use xla_core::hlo::{ConvDimensionNumbers, DotDimensionNumbers, Opcode, Window, WindowDim};
use xla_core::infer::{self, InferError};
use xla_core::{ArrayShape, Dim};

use super::args::{ListArg, Padding};
use super::ops::Call;
use super::scope::Val;
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{Expr, ExprKind};
use crate::ir::Arg;

impl Checker<'_> {
    /// The two operands of a dot or convolution.
    fn lhs_rhs(
        &mut self,
        call: &Call,
        op: &'static str,
    ) -> Option<(Val, Val, ArrayShape<ExactDim>, ArrayShape<ExactDim>)> {
        let l = self.expr(call.args[0]);
        let r = self.expr(call.args[1]);
        let (l, r) = (self.concrete(l), self.concrete(r));
        let a = self.array_of(&l, op, 0);
        let b = self.array_of(&r, op, 1);
        Some((l, r, a?, b?))
    }

    /// `x.dot(y)`: vector and matrix products.
    pub fn dot(&mut self, call: &Call) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let Some((l, r, a, b)) = self.lhs_rhs(call, "dot") else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![l.range, r.range]);
        let result = infer::dot(&a, &b);
        if let Err(err @ InferError::Rank { .. }) = &result {
            self.error(
                spans.of(err),
                format!(
                    "{err}; for batched and higher-rank products use `x.dot_general(y, \
                     ([lhs_contracting], [rhs_contracting]), ([lhs_batch], [rhs_batch]))`"
                ),
            );
            return Val::error(call.range);
        }
        let args = vec![
            Arg::Value(l.id.expect("a value")),
            Arg::Value(r.id.expect("a value")),
        ];
        self.emit(result, "dot", args, &spans)
    }

    /// `([lhs], [rhs])`: a pair of dimension lists.
    fn list_pair(&mut self, e: &Expr) -> Option<[ListArg; 2]> {
        let ExprKind::Tuple(items) = &e.kind else {
            self.error(
                e.range,
                "expected a pair of dimension lists such as `([1], [0])`",
            );
            return None;
        };
        let [l, r] = items.as_slice() else {
            self.error(
                e.range,
                "expected a pair of dimension lists such as `([1], [0])`",
            );
            return None;
        };
        let (a, b) = (self.ints(l), self.ints(r));
        let ((a, ae), (b, be)) = (a?, b?);
        Some([(a, l.range, ae), (b, r.range, be)])
    }

    /// `x.dot_general(y, ([lhs_contracting], [rhs_contracting]))`, with an
    /// optional batch pair `([lhs_batch], [rhs_batch])` and an optional
    /// result type (JAX's `preferred_element_type`).
    pub fn dot_general(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=5) {
            return Val::error(call.range);
        }
        let operands = self.lhs_rhs(call, "dot");
        let contracting = self.list_pair(call.args[2]);
        let batch = match call.args.get(3) {
            Some(e) if !matches!(e.kind, ExprKind::Var(_)) => self.list_pair(e).map(Some),
            _ => Some(None),
        };
        let type_arg = call.args[3..]
            .iter()
            .find(|e| matches!(e.kind, ExprKind::Var(_)));
        let preferred = match type_arg {
            Some(e) => self.type_arg(e).map(Some),
            None => Some(None),
        };
        let (Some((l, r, a, b)), Some([lc, rc]), Some(batch), Some(preferred)) =
            (operands, contracting, batch, preferred)
        else {
            return Val::error(call.range);
        };
        let mut spans = OpSpans::new(call.range, vec![l.range, r.range])
            .attr("lhs_contracting_dims", lc.1, lc.2.clone())
            .attr("rhs_contracting_dims", rc.1, rc.2.clone());
        let mut dims = DotDimensionNumbers {
            lhs_contracting: lc.0,
            rhs_contracting: rc.0,
            ..Default::default()
        };
        if let Some([lb, rb]) = batch {
            spans = spans
                .attr("lhs_batch_dims", lb.1, lb.2)
                .attr("rhs_batch_dims", rb.1, rb.2);
            dims.lhs_batch = lb.0;
            dims.rhs_batch = rb.0;
        }
        if let Some(e) = type_arg {
            spans = spans.attr("preferred_element_type", e.range, vec![]);
        }
        let result = match infer::dot_general(&a, &b, &dims) {
            Ok(shape) => infer::with_preferred_element_type(Opcode::Dot, shape, preferred),
            Err(err) => Err(err),
        };
        let args = vec![
            Arg::Value(l.id.expect("a value")),
            Arg::Value(r.id.expect("a value")),
            Arg::DotDims(dims),
            Arg::OptionalType(preferred),
        ];
        self.emit(result, "dot_general_with_type", args, &spans)
    }

    /// `x.conv(kernel, [strides], padding, "b01f_01io->b01f")`, or
    /// `x.conv_general_dilated(kernel, [strides], padding, [lhs_dilation],
    /// [rhs_dilation], "dim_labels", feature_group_count,
    /// batch_group_count)`.
    pub fn conv(&mut self, call: &Call, general: bool) -> Val {
        let count = if general { 9 } else { 5 };
        if !self.arity(call, count..=count) {
            return Val::error(call.range);
        }
        let operands = self.lhs_rhs(call, "convolution");
        let strides = self.ints(call.args[2]);
        let padding = self.padding_arg(call.args[3]);
        let (lhs_dilation, rhs_dilation, labels_arg, groups) = if general {
            (
                self.ints(call.args[4]),
                self.ints(call.args[5]),
                call.args[6],
                (self.int(call.args[7]), self.int(call.args[8])),
            )
        } else {
            (
                Some((vec![], vec![])),
                Some((vec![], vec![])),
                call.args[4],
                (Some(1), Some(1)),
            )
        };
        let labels = self.dim_labels(labels_arg);
        let (
            Some((l, r, a, b)),
            Some((strides, stride_entries)),
            Some(padding),
            Some((lhs_dilation, _)),
            Some((rhs_dilation, _)),
            Some(dims),
            (Some(fgc), Some(bgc)),
        ) = (
            operands,
            strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            labels,
            groups,
        )
        else {
            return Val::error(call.range);
        };
        let mut spans = OpSpans::new(call.range, vec![l.range, r.range])
            .attr("window_strides", call.args[2].range, stride_entries)
            .attr("window stride", call.args[2].range, vec![])
            .attr("padding", call.args[3].range, vec![])
            .attr("input dimension numbers", labels_arg.range, vec![])
            .attr("kernel dimension numbers", labels_arg.range, vec![])
            .attr("output dimension numbers", labels_arg.range, vec![])
            .attr("kernel spatial dimensions", labels_arg.range, vec![])
            .attr("output spatial dimensions", labels_arg.range, vec![]);
        if general {
            spans = spans
                .attr("lhs_dilation", call.args[4].range, vec![])
                .attr("window lhs_dilate", call.args[4].range, vec![])
                .attr("rhs_dilation", call.args[5].range, vec![])
                .attr("window rhs_dilate", call.args[5].range, vec![])
                .attr("feature_group_count", call.args[7].range, vec![])
                .attr("batch_group_count", call.args[8].range, vec![]);
        }
        let n = dims.input_spatial.len();
        let lists = [
            ("window_strides", strides.len(), false),
            ("lhs_dilation", lhs_dilation.len(), true),
            ("rhs_dilation", rhs_dilation.len(), true),
        ];
        for (list, len, may_be_empty) in lists {
            if len != n && !(may_be_empty && len == 0) {
                let err = InferError::ListLength {
                    op: "convolution",
                    list,
                    len,
                    other: "the number of input spatial dimensions",
                    expected: n,
                };
                self.report(err, &spans);
                return Val::error(call.range);
            }
        }
        let ranks_ok = a.rank() == n + 2 && b.rank() == n + 2;
        let window = if ranks_ok {
            let dilation = |list: &[i64], i: usize| list.get(i).copied().unwrap_or(1);
            let mut window_dims = Vec::new();
            for (i, &stride) in strides.iter().enumerate() {
                let base = a.dims()[dims.input_spatial[i] as usize].clone();
                let kernel = b.dims()[dims.kernel_spatial[i] as usize].clone();
                let (ld, rd) = (dilation(&lhs_dilation, i), dilation(&rhs_dilation, i));
                let Some(size) = kernel.as_const() else {
                    self.error(
                        r.range,
                        format!(
                            "convolution: the kernel's spatial sizes must be constants (they are the window's), \
                             but dimension {} of operand 1 {b} is {kernel}",
                            dims.kernel_spatial[i]
                        ),
                    );
                    return Val::error(call.range);
                };
                let pads = match &padding {
                    Padding::Valid => Some((0, 0)),
                    Padding::Pairs(p) => p.get(i).copied(),
                    Padding::Same => same_padding(&base, &kernel, stride, ld, rd),
                };
                let Some((low, high)) = pads else {
                    let err = match &padding {
                        Padding::Pairs(p) => InferError::ListLength {
                            op: "convolution",
                            list: "padding",
                            len: p.len(),
                            other: "the number of input spatial dimensions",
                            expected: n,
                        },
                        _ => InferError::NotExpressible {
                            op: "convolution",
                            dim: dims.output_spatial[i] as usize,
                            formula: format!(
                                "⌈{base} / {}⌉ (SAME padding needs constant sizes unless the stride is 1 and the kernel size is constant)",
                                stride
                            ),
                        },
                    };
                    self.report(err, &spans);
                    return Val::error(call.range);
                };
                window_dims.push(WindowDim {
                    size,
                    stride,
                    padding_low: low,
                    padding_high: high,
                    base_dilation: ld,
                    window_dilation: rd,
                    window_reversal: false,
                });
            }
            Window { dims: window_dims }
        } else {
            Window::default()
        };
        let result = infer::convolution(&a, &b, &window, &dims, fgc, bgc);
        let args = vec![
            Arg::Value(l.id.expect("a value")),
            Arg::Value(r.id.expect("a value")),
            Arg::Ints(strides),
            match padding {
                Padding::Same => Arg::SamePadding(true),
                Padding::Valid => Arg::SamePadding(false),
                Padding::Pairs(p) => Arg::Pairs(p),
            },
            Arg::Ints(lhs_dilation),
            Arg::Ints(rhs_dilation),
            Arg::ConvDims(dims),
            Arg::Int(fgc),
            Arg::Int(bgc),
        ];
        match result {
            Ok(shape) => {
                let id = self
                    .frames
                    .push_instr(crate::ir::Instr::Runtime("conv", args));
                Val::shape(shape.into(), id, call.range)
            }
            Err(err) => {
                self.report(err, &spans);
                Val::error(call.range)
            }
        }
    }

    /// A `dim_labels` string such as `"b01f_01io->b01f"` (XLA's text form):
    /// `b`/`f` mark the batch and feature dimensions of the input and output,
    /// `i`/`o` the kernel's input and output features, digits the spatial
    /// dimensions in order.
    fn dim_labels(&mut self, e: &Expr) -> Option<ConvDimensionNumbers> {
        let ExprKind::Str(text) = &e.kind else {
            self.error(e.range, "expected dim_labels such as \"b01f_01io->b01f\"");
            return None;
        };
        match parse_dim_labels(text) {
            Ok(dims) => Some(dims),
            Err(why) => {
                self.error(e.range, format!("invalid dim_labels \"{text}\": {why}"));
                None
            }
        }
    }
}

/// SAME padding `(low, high)` of one spatial dimension: the total makes
/// the output size `⌈base / stride⌉` (`docs/semantics.md`, *Windows*), computed on the
/// dilated base and kernel. Symbolic sizes are allowed only with stride 1
/// and a constant kernel, where the total is the dilated kernel size − 1.
fn same_padding(
    base: &ExactDim,
    kernel: &ExactDim,
    stride: i64,
    ld: i64,
    rd: i64,
) -> Option<(i64, i64)> {
    let dilate = |x: i64, d: i64| if x == 0 { 0 } else { (x - 1) * d + 1 };
    let k = dilate(kernel.as_const()?, rd);
    match base.as_const() {
        Some(n) => Some(
            infer::make_padding(&[dilate(n, ld)], &[k], &[stride], infer::PaddingKind::Same)[0],
        ),
        None if ld == 1 && (stride == 1 || divides(base, stride)) => {
            let total = (k - stride).max(0);
            Some((total / 2, total - total / 2))
        }
        None => None,
    }
}

/// Whether the symbolic size `n` is known to be a multiple of `stride`
/// (`2 * H` of 2). SAME padding of such a size does not depend on it: the
/// output has `n / stride` positions and the padding is `window − stride`
/// in all (at least 0); with stride 1, `window − 1` for any size.
pub(super) fn divides(n: &ExactDim, stride: i64) -> bool {
    xla_core::Dim::exact_div(n, &xla_core::Dim::constant(stride)).is_some()
}

/// Parses `lhs_rhs->out` labels.
pub fn parse_dim_labels(text: &str) -> Result<ConvDimensionNumbers, String> {
    let (lhs, rest) = text
        .split_once('_')
        .ok_or("expected the form \"b01f_01io->b01f\"")?;
    let (rhs, out) = rest
        .split_once("->")
        .ok_or("expected the form \"b01f_01io->b01f\"")?;
    let (input_batch, input_feature, input_spatial) = labels(lhs, ['b', 'f'])?;
    let (kernel_input_feature, kernel_output_feature, kernel_spatial) = labels(rhs, ['i', 'o'])?;
    let (output_batch, output_feature, output_spatial) = labels(out, ['b', 'f'])?;
    if kernel_spatial.len() != input_spatial.len() || output_spatial.len() != input_spatial.len() {
        return Err(
            "input, kernel and output have different numbers of spatial dimensions".to_string(),
        );
    }
    Ok(ConvDimensionNumbers {
        input_batch,
        input_feature,
        input_spatial,
        kernel_input_feature,
        kernel_output_feature,
        kernel_spatial,
        output_batch,
        output_feature,
        output_spatial,
    })
}

/// One operand's labels: positions of the two named dimensions and of each
/// spatial dimension (`"b01f"` → `(0, 3, [1, 2])`).
fn labels(text: &str, names: [char; 2]) -> Result<(i64, i64, Vec<i64>), String> {
    let mut found = [None, None];
    let mut spatial: Vec<Option<i64>> = Vec::new();
    for (pos, ch) in text.chars().enumerate() {
        let pos = pos as i64;
        if let Some(k) = names.iter().position(|&n| n == ch) {
            if found[k].replace(pos).is_some() {
                return Err(format!("`{text}` has `{ch}` twice"));
            }
        } else if let Some(d) = ch.to_digit(10) {
            let d = d as usize;
            if spatial.len() <= d {
                spatial.resize(d + 1, None);
            }
            if spatial[d].replace(pos).is_some() {
                return Err(format!("`{text}` has `{ch}` twice"));
            }
        } else {
            return Err(format!(
                "`{text}` has `{ch}`; expected `{}`, `{}` or a spatial digit",
                names[0], names[1]
            ));
        }
    }
    let [Some(a), Some(b)] = found else {
        return Err(format!(
            "`{text}` needs both `{}` and `{}`",
            names[0], names[1]
        ));
    };
    let spatial: Option<Vec<i64>> = spatial.into_iter().collect();
    let spatial = spatial.ok_or_else(|| format!("`{text}` skips a spatial dimension number"))?;
    Ok((a, b, spatial))
}

#[cfg(test)]
mod tests {
    use super::parse_dim_labels;

    #[test]
    fn dim_labels() {
        let d = parse_dim_labels("b01f_01io->b01f").unwrap();
        assert_eq!(
            (d.input_batch, d.input_feature, d.input_spatial.clone()),
            (0, 3, vec![1, 2])
        );
        assert_eq!((d.kernel_input_feature, d.kernel_output_feature), (2, 3));
        assert_eq!(d.kernel_spatial, vec![0, 1]);
        let e = parse_dim_labels("bf0_oi0->bf0").unwrap();
        assert_eq!((e.kernel_output_feature, e.kernel_input_feature), (0, 1));
        assert!(parse_dim_labels("bf0_oi->bf0").is_err());
        assert!(parse_dim_labels("bff_oi0->bf0").is_err());
    }
}
