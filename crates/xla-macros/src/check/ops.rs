//! The ops of the language: one table of names, each with its family and
//! its usage line (shown when the arguments are wrong), and the dispatch
//! to the family's checker.
//!
//! Every op is a method and a free function: `x.exp()` is `exp(x)`, and
//! `x.add(y, [1])` is `add(x, y, [1])`. Names follow `XlaBuilder`'s methods.

use std::sync::OnceLock;

use xla_core::hlo::{ComparisonDirection as Dir, Form, Opcode};

use super::scope::Val;
use super::Checker;
use crate::ast::{Expr, Range};
use crate::suggest::{did_you_mean, jax_equivalent};

/// What an op is, for dispatch.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// An element-wise unary op: the opcode and the builder method.
    Unary(Opcode, &'static str),
    /// An element-wise binary op.
    Binary(Opcode, &'static str),
    /// A comparison; `true` for the total order of floats.
    Compare(Dir, bool),
    Select,
    Clamp,
    Convert,
    BitcastConvert,
    ReducePrecision,
    Conj,
    Broadcast,
    BroadcastInDim,
    Reshape,
    Transpose,
    Rev,
    Slice,
    SliceInDim,
    Concat,
    Pad,
    Iota,
    DynamicSlice,
    DynamicUpdateSlice,
    Gather,
    Scatter,
    /// `reduce_sum` & co: a reduction by this binary op.
    ReduceBy(Opcode),
    /// `cumsum` & co: a cumulative reduction by this binary op.
    Cumulative(Opcode),
    /// `argmax` (by max) and `argmin` (by min).
    ArgBest(Opcode),
    Reduce,
    ReduceWindow,
    Sort,
    Map,
    TopK,
    Dot,
    DotGeneral,
    Conv,
    ConvGeneralDilated,
}

/// The ops that are not plain element-wise ones: name, family, usage. The
/// plain unary and binary ops come from the op table ([`ops`]).
const OTHERS: &[(&str, Op, &str)] = &[
    ("argmax", Op::ArgBest(Opcode::Maximum), "x.argmax(dimension) or x.argmax(dimension, index_type)"),
    ("argmin", Op::ArgBest(Opcode::Minimum), "x.argmin(dimension) or x.argmin(dimension, index_type)"),
    ("bitcast_convert", Op::BitcastConvert, "x.bitcast_convert(u32)"),
    ("broadcast", Op::Broadcast, "x.broadcast([sizes])"),
    ("broadcast_in_dim", Op::BroadcastInDim, "x.broadcast_in_dim([out_dim_sizes], [broadcast_dimensions])"),
    ("clamp", Op::Clamp, "x.clamp(min, max)"),
    ("concat", Op::Concat, "concat([a, b, …], dimension) or a.concat([b, …], dimension)"),
    ("conj", Op::Conj, "x.conj()"),
    ("conv", Op::Conv, "x.conv(kernel, [window_strides], padding, \"b01f_01io->b01f\") with padding `same`, `valid` or [(low, high), …]"),
    ("conv_general_dilated", Op::ConvGeneralDilated, "x.conv_general_dilated(kernel, [window_strides], padding, [lhs_dilation], [rhs_dilation], \"dim_labels\", feature_group_count, batch_group_count)"),
    ("convert", Op::Convert, "x.convert(f32)"),
    ("cummax", Op::Cumulative(Opcode::Maximum), "x.cummax(dimension)"),
    ("cummin", Op::Cumulative(Opcode::Minimum), "x.cummin(dimension)"),
    ("cumprod", Op::Cumulative(Opcode::Multiply), "x.cumprod(dimension)"),
    ("cumsum", Op::Cumulative(Opcode::Add), "x.cumsum(dimension)"),
    ("dot", Op::Dot, "x.dot(y)"),
    ("dot_general", Op::DotGeneral, "x.dot_general(y, ([lhs_contracting], [rhs_contracting])) or x.dot_general(y, ([lhs_contracting], [rhs_contracting]), ([lhs_batch], [rhs_batch]))"),
    ("dynamic_slice", Op::DynamicSlice, "x.dynamic_slice([start_indices], [slice_sizes])"),
    ("dynamic_update_slice", Op::DynamicUpdateSlice, "x.dynamic_update_slice(update, [start_indices])"),
    ("eq", Op::Compare(Dir::Eq, false), "x.eq(y) or x.eq(y, [broadcast_dimensions])"),
    ("eq_total_order", Op::Compare(Dir::Eq, true), "x.eq_total_order(y)"),
    ("gather", Op::Gather, "x.gather(indices, GatherDims { offset_dims: […], collapsed_slice_dims: […], start_index_map: […], index_vector_dim: n }, [slice_sizes])"),
    ("ge", Op::Compare(Dir::Ge, false), "x.ge(y) or x.ge(y, [broadcast_dimensions])"),
    ("ge_total_order", Op::Compare(Dir::Ge, true), "x.ge_total_order(y)"),
    ("gt", Op::Compare(Dir::Gt, false), "x.gt(y) or x.gt(y, [broadcast_dimensions])"),
    ("gt_total_order", Op::Compare(Dir::Gt, true), "x.gt_total_order(y)"),
    ("iota", Op::Iota, "iota(s32[N, M], iota_dimension)"),
    ("le", Op::Compare(Dir::Le, false), "x.le(y) or x.le(y, [broadcast_dimensions])"),
    ("le_total_order", Op::Compare(Dir::Le, true), "x.le_total_order(y)"),
    ("lt", Op::Compare(Dir::Lt, false), "x.lt(y) or x.lt(y, [broadcast_dimensions])"),
    ("lt_total_order", Op::Compare(Dir::Lt, true), "x.lt_total_order(y)"),
    ("map", Op::Map, "x.map(|v| …) or map([x, y, …], |a, b, …| …)"),
    ("ne", Op::Compare(Dir::Ne, false), "x.ne(y) or x.ne(y, [broadcast_dimensions])"),
    ("ne_total_order", Op::Compare(Dir::Ne, true), "x.ne_total_order(y)"),
    ("pad", Op::Pad, "x.pad(padding_value, [(low, high, interior), …])"),
    ("reduce", Op::Reduce, "x.reduce(init, |a, b| …, [dimensions]) or reduce([x, y], [init_x, init_y], |a_x, a_y, b_x, b_y| (…, …), [dimensions])"),
    ("reduce_and", Op::ReduceBy(Opcode::And), "x.reduce_and([dimensions])"),
    ("reduce_max", Op::ReduceBy(Opcode::Maximum), "x.reduce_max([dimensions])"),
    ("reduce_min", Op::ReduceBy(Opcode::Minimum), "x.reduce_min([dimensions])"),
    ("reduce_or", Op::ReduceBy(Opcode::Or), "x.reduce_or([dimensions])"),
    ("reduce_precision", Op::ReducePrecision, "x.reduce_precision(exponent_bits, mantissa_bits)"),
    ("reduce_prod", Op::ReduceBy(Opcode::Multiply), "x.reduce_prod([dimensions])"),
    ("reduce_sum", Op::ReduceBy(Opcode::Add), "x.reduce_sum([dimensions])"),
    ("reduce_window", Op::ReduceWindow, "x.reduce_window(init, |a, b| …, [window_dimensions], [window_strides], padding) with padding `same`, `valid` or [(low, high), …]"),
    ("reshape", Op::Reshape, "x.reshape([new_sizes])"),
    ("rev", Op::Rev, "x.rev([dimensions])"),
    ("scatter", Op::Scatter, "x.scatter(indices, updates, |a, b| …, ScatterDims { update_window_dims: […], inserted_window_dims: […], scatter_dims_to_operand_dims: […], index_vector_dim: n })"),
    ("select", Op::Select, "pred.select(on_true, on_false) or select(pred, on_true, on_false)"),
    ("slice", Op::Slice, "x.slice([start_indices], [limit_indices]) or x.slice([start_indices], [limit_indices], [strides])"),
    ("slice_in_dim", Op::SliceInDim, "x.slice_in_dim(start, limit, stride, dimension)"),
    ("sort", Op::Sort, "x.sort(dimension, |a, b| a < b) or sort([keys, values, …], dimension, |k_a, k_b, v_a, v_b| …)"),
    ("top_k", Op::TopK, "x.top_k(k) giving (values, s32 indices)"),
    ("transpose", Op::Transpose, "x.transpose([permutation])"),
];

/// Every op, sorted by name: name, family, usage. The plain element-wise
/// ops are the op table's rows with a builder method (`Opcode::Negate` is
/// `neg`), then come [`OTHERS`].
pub fn ops() -> &'static [(&'static str, Op, String)] {
    static OPS: OnceLock<Vec<(&'static str, Op, String)>> = OnceLock::new();
    OPS.get_or_init(|| {
        let plain = Opcode::ALL.iter().filter_map(|&op| {
            let name = op.builder_name()?;
            match op.form() {
                Form::Unary(..) => Some((name, Op::Unary(op, name), format!("x.{name}()"))),
                Form::Binary(..) => Some((
                    name,
                    Op::Binary(op, name),
                    format!("x.{name}(y) or x.{name}(y, [broadcast_dimensions])"),
                )),
                Form::Own => None,
            }
        });
        let others = OTHERS
            .iter()
            .map(|&(n, op, usage)| (n, op, usage.to_string()));
        let mut all: Vec<_> = plain.chain(others).collect();
        all.sort_by_key(|&(name, ..)| name);
        all
    })
}

/// The op named `name` and its usage line.
pub fn lookup(name: &str) -> Option<(Op, &'static str)> {
    ops()
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, op, usage)| (*op, usage.as_str()))
}

/// An op call, method or free form; `args[0]` is the receiver of a method.
pub struct Call<'e> {
    pub name: &'e syn::Ident,
    pub args: Vec<&'e Expr>,
    pub range: Range,
    pub usage: &'static str,
    /// `x.op(…)` rather than `op(x, …)`.
    pub method: bool,
}

impl Call<'_> {
    pub fn name(&self) -> String {
        self.name.to_string()
    }
}

impl Checker<'_> {
    /// Checks an op call; unknown names get a suggestion.
    pub fn op(&mut self, name: &syn::Ident, args: Vec<&Expr>, range: Range, method: bool) -> Val {
        let text = name.to_string();
        let Some((op, usage)) = lookup(&text) else {
            if method && self.signatures.contains_key(&text) {
                self.error(
                    Range::single(name.span()),
                    format!("`{text}` is a function of this `xla!` invocation, not a method: call it as `{text}(…)`"),
                );
                for a in args {
                    self.argument_for_errors(a);
                }
                return Val::error(range);
            }
            let what = if method { "method" } else { "function" };
            let mut candidates: Vec<&str> = ops().iter().map(|(n, ..)| *n).collect();
            if !method {
                candidates.extend(self.signatures.keys().map(String::as_str));
            }
            let hint = jax_equivalent(&text).unwrap_or_else(|| did_you_mean(&text, candidates));
            self.error(
                Range::single(name.span()),
                format!("no {what} `{text}` in the xla! language{hint}"),
            );
            // Check the arguments anyway, for their own errors.
            for a in args {
                self.argument_for_errors(a);
            }
            return Val::error(range);
        };
        let call = Call {
            name,
            args,
            range,
            usage,
            method,
        };
        match op {
            Op::Unary(opcode, builder) => self.unary_op(&call, opcode, builder),
            Op::Binary(opcode, builder) => self.binary_op(&call, opcode, builder),
            Op::Compare(dir, total) => self.compare_op(&call, dir, total),
            Op::Select => self.select(&call),
            Op::Clamp => self.clamp(&call),
            Op::Convert => self.convert(&call, false),
            Op::BitcastConvert => self.convert(&call, true),
            Op::ReducePrecision => self.reduce_precision(&call),
            Op::Conj => self.conj(&call),
            Op::Broadcast => self.broadcast(&call),
            Op::BroadcastInDim => self.broadcast_in_dim(&call),
            Op::Reshape => self.reshape(&call),
            Op::Transpose => self.transpose(&call),
            Op::Rev => self.rev(&call),
            Op::Slice => self.slice(&call),
            Op::SliceInDim => self.slice_in_dim(&call),
            Op::Concat => self.concat(&call),
            Op::Pad => self.pad(&call),
            Op::Iota => self.iota(&call),
            Op::DynamicSlice => self.dynamic_slice(&call),
            Op::DynamicUpdateSlice => self.dynamic_update_slice(&call),
            Op::Gather => self.gather(&call),
            Op::Scatter => self.scatter(&call),
            Op::ReduceBy(opcode) => self.reduce_by(&call, opcode),
            Op::Cumulative(opcode) => self.cumulative(&call, opcode),
            Op::ArgBest(opcode) => self.arg_best(&call, opcode),
            Op::Reduce => self.reduce(&call),
            Op::ReduceWindow => self.reduce_window(&call),
            Op::Sort => self.sort(&call),
            Op::Map => self.map(&call),
            Op::TopK => self.top_k(&call),
            Op::Dot => self.dot(&call),
            Op::DotGeneral => self.dot_general(&call),
            Op::Conv => self.conv(&call, false),
            Op::ConvGeneralDilated => self.conv(&call, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{lookup, ops, Op, OTHERS};
    use xla_core::Opcode;

    #[test]
    fn names_are_sorted_and_unique() {
        for pair in OTHERS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
        for pair in ops().windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
    }

    #[test]
    fn plain_element_wise_ops_come_from_the_op_table() {
        assert!(matches!(
            lookup("neg"),
            Some((Op::Unary(Opcode::Negate, "neg"), "x.neg()"))
        ));
        let (op, usage) = lookup("pow").unwrap();
        assert!(matches!(op, Op::Binary(Opcode::Power, "pow")));
        assert_eq!(usage, "x.pow(y) or x.pow(y, [broadcast_dimensions])");
        assert!(lookup("negate").is_none());
    }

    /// The language reference lists the plain element-wise ops by name
    /// (`conj`, a unary op of the language that is not one row of the op
    /// table, among them).
    #[test]
    fn the_reference_lists_every_plain_element_wise_op() {
        let listed = |kind: &str| -> Vec<String> {
            let prefix = format!("| {kind} | `");
            let line = include_str!("../language.md")
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("no `{kind}` row in language.md"));
            let names = &line[prefix.len()..];
            let mut v: Vec<String> = names[..names.find('`').unwrap()]
                .split_whitespace()
                .filter(|&n| n != "conj")
                .map(String::from)
                .collect();
            v.sort();
            v
        };
        let table = |unary: bool| -> Vec<String> {
            let mut v: Vec<String> = ops()
                .iter()
                .filter(|(_, op, _)| match op {
                    Op::Unary(..) => unary,
                    Op::Binary(..) => !unary,
                    _ => false,
                })
                .map(|(n, ..)| n.to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(listed("unary"), table(true));
        assert_eq!(listed("binary"), table(false));
    }
}
