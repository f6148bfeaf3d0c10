//! The ops of the language: one table of names, each with its family and
//! its usage line (shown when the arguments are wrong), and the dispatch
//! to the family's checker.
//!
//! Every op is a method and a free function: `x.exp()` is `exp(x)`, and
//! `x.add(y, [1])` is `add(x, y, [1])`. Names follow `XlaBuilder`'s methods.

use xla_core::hlo::{ComparisonDirection as Dir, Opcode};

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

/// Every op: name, family, usage.
pub const OPS: &[(&str, Op, &str)] = &[
    ("abs", Op::Unary(Opcode::Abs, "abs"), "x.abs()"),
    ("add", Op::Binary(Opcode::Add, "add"), "x.add(y) or x.add(y, [broadcast_dimensions])"),
    ("and", Op::Binary(Opcode::And, "and"), "x.and(y) or x.and(y, [broadcast_dimensions])"),
    ("argmax", Op::ArgBest(Opcode::Maximum), "x.argmax(dimension) or x.argmax(dimension, index_type)"),
    ("argmin", Op::ArgBest(Opcode::Minimum), "x.argmin(dimension) or x.argmin(dimension, index_type)"),
    ("atan2", Op::Binary(Opcode::Atan2, "atan2"), "y.atan2(x) or y.atan2(x, [broadcast_dimensions])"),
    ("bitcast_convert", Op::BitcastConvert, "x.bitcast_convert(u32)"),
    ("broadcast", Op::Broadcast, "x.broadcast([sizes])"),
    ("broadcast_in_dim", Op::BroadcastInDim, "x.broadcast_in_dim([out_dim_sizes], [broadcast_dimensions])"),
    ("cbrt", Op::Unary(Opcode::Cbrt, "cbrt"), "x.cbrt()"),
    ("ceil", Op::Unary(Opcode::Ceil, "ceil"), "x.ceil()"),
    ("clamp", Op::Clamp, "x.clamp(min, max)"),
    ("clz", Op::Unary(Opcode::Clz, "clz"), "x.clz()"),
    ("complex", Op::Binary(Opcode::Complex, "complex"), "re.complex(im)"),
    ("concat", Op::Concat, "concat([a, b, …], dimension) or a.concat([b, …], dimension)"),
    ("conj", Op::Conj, "x.conj()"),
    ("conv", Op::Conv, "x.conv(kernel, [window_strides], padding, \"b01f_01io->b01f\") with padding `same`, `valid` or [(low, high), …]"),
    ("conv_general_dilated", Op::ConvGeneralDilated, "x.conv_general_dilated(kernel, [window_strides], padding, [lhs_dilation], [rhs_dilation], \"dim_labels\", feature_group_count, batch_group_count)"),
    ("convert", Op::Convert, "x.convert(f32)"),
    ("cos", Op::Unary(Opcode::Cos, "cos"), "x.cos()"),
    ("cummax", Op::Cumulative(Opcode::Maximum), "x.cummax(dimension)"),
    ("cummin", Op::Cumulative(Opcode::Minimum), "x.cummin(dimension)"),
    ("cumprod", Op::Cumulative(Opcode::Multiply), "x.cumprod(dimension)"),
    ("cumsum", Op::Cumulative(Opcode::Add), "x.cumsum(dimension)"),
    ("div", Op::Binary(Opcode::Divide, "div"), "x.div(y) or x.div(y, [broadcast_dimensions])"),
    ("dot", Op::Dot, "x.dot(y)"),
    ("dot_general", Op::DotGeneral, "x.dot_general(y, ([lhs_contracting], [rhs_contracting])) or x.dot_general(y, ([lhs_contracting], [rhs_contracting]), ([lhs_batch], [rhs_batch]))"),
    ("dynamic_slice", Op::DynamicSlice, "x.dynamic_slice([start_indices], [slice_sizes])"),
    ("dynamic_update_slice", Op::DynamicUpdateSlice, "x.dynamic_update_slice(update, [start_indices])"),
    ("eq", Op::Compare(Dir::Eq, false), "x.eq(y) or x.eq(y, [broadcast_dimensions])"),
    ("eq_total_order", Op::Compare(Dir::Eq, true), "x.eq_total_order(y)"),
    ("erf", Op::Unary(Opcode::Erf, "erf"), "x.erf()"),
    ("exp", Op::Unary(Opcode::Exp, "exp"), "x.exp()"),
    ("expm1", Op::Unary(Opcode::Expm1, "expm1"), "x.expm1()"),
    ("floor", Op::Unary(Opcode::Floor, "floor"), "x.floor()"),
    ("gather", Op::Gather, "x.gather(indices, GatherDims { offset_dims: […], collapsed_slice_dims: […], start_index_map: […], index_vector_dim: n }, [slice_sizes])"),
    ("ge", Op::Compare(Dir::Ge, false), "x.ge(y) or x.ge(y, [broadcast_dimensions])"),
    ("ge_total_order", Op::Compare(Dir::Ge, true), "x.ge_total_order(y)"),
    ("gt", Op::Compare(Dir::Gt, false), "x.gt(y) or x.gt(y, [broadcast_dimensions])"),
    ("gt_total_order", Op::Compare(Dir::Gt, true), "x.gt_total_order(y)"),
    ("imag", Op::Unary(Opcode::Imag, "imag"), "x.imag()"),
    ("iota", Op::Iota, "iota(s32[N, M], iota_dimension)"),
    ("is_finite", Op::Unary(Opcode::IsFinite, "is_finite"), "x.is_finite()"),
    ("le", Op::Compare(Dir::Le, false), "x.le(y) or x.le(y, [broadcast_dimensions])"),
    ("le_total_order", Op::Compare(Dir::Le, true), "x.le_total_order(y)"),
    ("log", Op::Unary(Opcode::Log, "log"), "x.log()"),
    ("log1p", Op::Unary(Opcode::Log1p, "log1p"), "x.log1p()"),
    ("logistic", Op::Unary(Opcode::Logistic, "logistic"), "x.logistic()"),
    ("lt", Op::Compare(Dir::Lt, false), "x.lt(y) or x.lt(y, [broadcast_dimensions])"),
    ("lt_total_order", Op::Compare(Dir::Lt, true), "x.lt_total_order(y)"),
    ("map", Op::Map, "x.map(|v| …) or map([x, y, …], |a, b, …| …)"),
    ("max", Op::Binary(Opcode::Maximum, "max"), "x.max(y) or x.max(y, [broadcast_dimensions])"),
    ("min", Op::Binary(Opcode::Minimum, "min"), "x.min(y) or x.min(y, [broadcast_dimensions])"),
    ("mul", Op::Binary(Opcode::Multiply, "mul"), "x.mul(y) or x.mul(y, [broadcast_dimensions])"),
    ("ne", Op::Compare(Dir::Ne, false), "x.ne(y) or x.ne(y, [broadcast_dimensions])"),
    ("ne_total_order", Op::Compare(Dir::Ne, true), "x.ne_total_order(y)"),
    ("neg", Op::Unary(Opcode::Negate, "neg"), "x.neg()"),
    ("not", Op::Unary(Opcode::Not, "not"), "x.not()"),
    ("or", Op::Binary(Opcode::Or, "or"), "x.or(y) or x.or(y, [broadcast_dimensions])"),
    ("pad", Op::Pad, "x.pad(padding_value, [(low, high, interior), …])"),
    ("population_count", Op::Unary(Opcode::PopulationCount, "population_count"), "x.population_count()"),
    ("pow", Op::Binary(Opcode::Power, "pow"), "x.pow(y) or x.pow(y, [broadcast_dimensions])"),
    ("real", Op::Unary(Opcode::Real, "real"), "x.real()"),
    ("reduce", Op::Reduce, "x.reduce(init, |a, b| …, [dimensions]) or reduce([x, y], [init_x, init_y], |a_x, a_y, b_x, b_y| (…, …), [dimensions])"),
    ("reduce_and", Op::ReduceBy(Opcode::And), "x.reduce_and([dimensions])"),
    ("reduce_max", Op::ReduceBy(Opcode::Maximum), "x.reduce_max([dimensions])"),
    ("reduce_min", Op::ReduceBy(Opcode::Minimum), "x.reduce_min([dimensions])"),
    ("reduce_or", Op::ReduceBy(Opcode::Or), "x.reduce_or([dimensions])"),
    ("reduce_precision", Op::ReducePrecision, "x.reduce_precision(exponent_bits, mantissa_bits)"),
    ("reduce_prod", Op::ReduceBy(Opcode::Multiply), "x.reduce_prod([dimensions])"),
    ("reduce_sum", Op::ReduceBy(Opcode::Add), "x.reduce_sum([dimensions])"),
    ("reduce_window", Op::ReduceWindow, "x.reduce_window(init, |a, b| …, [window_dimensions], [window_strides], padding) with padding `same`, `valid` or [(low, high), …]"),
    ("rem", Op::Binary(Opcode::Remainder, "rem"), "x.rem(y) or x.rem(y, [broadcast_dimensions])"),
    ("reshape", Op::Reshape, "x.reshape([new_sizes])"),
    ("rev", Op::Rev, "x.rev([dimensions])"),
    ("round", Op::Unary(Opcode::RoundNearestAfz, "round"), "x.round()"),
    ("round_nearest_even", Op::Unary(Opcode::RoundNearestEven, "round_nearest_even"), "x.round_nearest_even()"),
    ("rsqrt", Op::Unary(Opcode::Rsqrt, "rsqrt"), "x.rsqrt()"),
    ("scatter", Op::Scatter, "x.scatter(indices, updates, |a, b| …, ScatterDims { update_window_dims: […], inserted_window_dims: […], scatter_dims_to_operand_dims: […], index_vector_dim: n })"),
    ("select", Op::Select, "pred.select(on_true, on_false) or select(pred, on_true, on_false)"),
    ("shift_left", Op::Binary(Opcode::ShiftLeft, "shift_left"), "x.shift_left(y)"),
    ("shift_right_arithmetic", Op::Binary(Opcode::ShiftRightArithmetic, "shift_right_arithmetic"), "x.shift_right_arithmetic(y)"),
    ("shift_right_logical", Op::Binary(Opcode::ShiftRightLogical, "shift_right_logical"), "x.shift_right_logical(y)"),
    ("sign", Op::Unary(Opcode::Sign, "sign"), "x.sign()"),
    ("sin", Op::Unary(Opcode::Sin, "sin"), "x.sin()"),
    ("slice", Op::Slice, "x.slice([start_indices], [limit_indices]) or x.slice([start_indices], [limit_indices], [strides])"),
    ("slice_in_dim", Op::SliceInDim, "x.slice_in_dim(start, limit, stride, dimension)"),
    ("sort", Op::Sort, "x.sort(dimension, |a, b| a < b) or sort([keys, values, …], dimension, |k_a, k_b, v_a, v_b| …)"),
    ("sqrt", Op::Unary(Opcode::Sqrt, "sqrt"), "x.sqrt()"),
    ("sub", Op::Binary(Opcode::Subtract, "sub"), "x.sub(y) or x.sub(y, [broadcast_dimensions])"),
    ("tan", Op::Unary(Opcode::Tan, "tan"), "x.tan()"),
    ("tanh", Op::Unary(Opcode::Tanh, "tanh"), "x.tanh()"),
    ("top_k", Op::TopK, "x.top_k(k) giving (values, s32 indices)"),
    ("transpose", Op::Transpose, "x.transpose([permutation])"),
    ("xor", Op::Binary(Opcode::Xor, "xor"), "x.xor(y) or x.xor(y, [broadcast_dimensions])"),
];

/// The op named `name` and its usage line.
pub fn lookup(name: &str) -> Option<(Op, &'static str)> {
    OPS.iter()
        .find(|(n, ..)| *n == name)
        .map(|&(_, op, usage)| (op, usage))
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
            let mut candidates: Vec<&str> = OPS.iter().map(|(n, ..)| *n).collect();
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
    use super::OPS;

    #[test]
    fn names_are_sorted_and_unique() {
        for pair in OPS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
    }
}
