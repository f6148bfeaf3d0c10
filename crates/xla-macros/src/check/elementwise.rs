//! Element-wise ops: unary functions, binary arithmetic, comparisons,
//! select, clamp and conversions (operators lower to these, in
//! `operators.rs`).

use crate::types::ExactDim;
use xla_core::hlo::{ComparisonDirection as Dir, ComparisonType, Opcode};
use xla_core::infer::{self, InferError};
use xla_core::{ArrayShape, PrimitiveType, Shape};

use super::args::ListArg;
use super::operators::compare_method;
use super::ops::Call;
use super::scope::{Deferred, Ty, Val, Weak};
use super::spans::OpSpans;
use super::Checker;
use crate::ast::Range;
use crate::ir::{Arg, Instr};

/// Whether the unary `opcode` takes floating-point numbers but not
/// integers (`sqrt`, `exp`), so that a weak number meeting it is a float.
fn floating_only(opcode: Opcode) -> bool {
    let scalar = |ty| ArrayShape::new(ty, Vec::<ExactDim>::new());
    infer::unary(opcode, &scalar(PrimitiveType::S32)).is_err()
        && infer::unary(opcode, &scalar(PrimitiveType::F32)).is_ok()
}

/// For operands of different ranks, the method form with the broadcast
/// dimensions their sizes suggest: each dimension of the lower-rank
/// operand maps to the next dimension of the same size in the other
/// (`f32[B]` and `f32[B, N]`: `` `a.sub(b, [0])` maps f32[B] onto
/// dimension 0 of f32[B, N]``). `None` when the sizes do not line up.
fn broadcast_hint(
    method: &str,
    a: &ArrayShape<ExactDim>,
    b: &ArrayShape<ExactDim>,
) -> Option<String> {
    let (small, big) = if a.rank() < b.rank() { (a, b) } else { (b, a) };
    let mut dims = Vec::new();
    let mut next = 0;
    for size in small.dims() {
        let at = (next..big.rank()).find(|&d| &big.dims()[d] == size)?;
        dims.push(at.to_string());
        next = at + 1;
    }
    let list = dims.join(", ");
    let noun = if dims.len() == 1 {
        "dimension"
    } else {
        "dimensions"
    };
    Some(format!(
        "`a.{method}(b, [{list}])` maps {small} onto {noun} {list} of {big}"
    ))
}

impl Checker<'_> {
    /// The two array operands of an element-wise op.
    fn arrays2(
        &mut self,
        op: &'static str,
        l: &Val,
        r: &Val,
    ) -> Option<(ArrayShape<ExactDim>, ArrayShape<ExactDim>)> {
        let a = self.array_of(l, op, 0);
        let b = self.array_of(r, op, 1);
        Some((a?, b?))
    }

    /// An element-wise binary op on concrete values.
    pub fn binary(
        &mut self,
        opcode: Opcode,
        builder: &'static str,
        l: Val,
        r: Val,
        broadcast_dimensions: Option<Vec<i64>>,
        spans: &OpSpans,
    ) -> Val {
        let Some((a, b)) = self.arrays2(opcode.name(), &l, &r) else {
            return Val::error(spans.call);
        };
        match infer::binary(opcode, &a, &b, broadcast_dimensions.as_deref()) {
            Ok(shape) => {
                let args = vec![
                    Arg::Value(l.id.expect("a value")),
                    Arg::Value(r.id.expect("a value")),
                    Arg::Ints(broadcast_dimensions.unwrap_or_default()),
                ];
                let id = self.frames.push_instr(Instr::Builder(builder, args));
                Val::shape(shape.into(), id, spans.call)
            }
            Err(err) => {
                self.report_binary(err, builder, &a, &b, spans);
                Val::error(spans.call)
            }
        }
    }

    /// Reports an error of a binary op; operands of different ranks get a
    /// hint naming the broadcast dimensions their sizes suggest.
    fn report_binary(
        &mut self,
        err: InferError<ExactDim>,
        method: &str,
        a: &ArrayShape<ExactDim>,
        b: &ArrayShape<ExactDim>,
        spans: &OpSpans,
    ) {
        let hint = match &err {
            InferError::MissingBroadcastDims { .. } => broadcast_hint(method, a, b),
            _ => None,
        };
        match hint {
            Some(hint) => self.error(spans.of(&err), format!("{err}: {hint}")),
            None => self.report(err, spans),
        }
    }

    /// A comparison on concrete values.
    pub fn compare(
        &mut self,
        dir: Dir,
        total_order: bool,
        l: Val,
        r: Val,
        broadcast_dimensions: Option<Vec<i64>>,
        spans: &OpSpans,
    ) -> Val {
        let Some((a, b)) = self.arrays2(Opcode::Compare.name(), &l, &r) else {
            return Val::error(spans.call);
        };
        let comparison_type =
            (total_order && a.element_type().is_floating()).then_some(ComparisonType::TotalOrder);
        match infer::compare(
            &a,
            &b,
            broadcast_dimensions.as_deref(),
            dir,
            comparison_type,
        ) {
            Ok(shape) => {
                let args = vec![
                    Arg::Value(l.id.expect("a value")),
                    Arg::Value(r.id.expect("a value")),
                    Arg::Ints(broadcast_dimensions.unwrap_or_default()),
                ];
                let method = compare_method(dir, total_order);
                let id = self.frames.push_instr(Instr::Builder(method, args));
                Val::shape(shape.into(), id, spans.call)
            }
            Err(err) => {
                self.report_binary(err, compare_method(dir, total_order), &a, &b, spans);
                Val::error(spans.call)
            }
        }
    }

    /// The operands of `x.op(y)` or `x.op(y, [broadcast_dimensions])`.
    fn binary_args(&mut self, call: &Call) -> Option<(Val, Val, Option<ListArg>)> {
        if !self.arity(call, 2..=3) {
            return None;
        }
        let l = self.expr(call.args[0]);
        let r = self.expr(call.args[1]);
        let dims = match call.args.get(2) {
            Some(e) => Some(self.ints(e).map(|(d, ranges)| (d, e.range, ranges))?),
            None => None,
        };
        let (l, r) = self.unify_literals(l, r)?;
        Some((l, r, dims))
    }

    /// `x.add(y)`, `add(x, y, [1])` and the other binary methods.
    pub fn binary_op(&mut self, call: &Call, opcode: Opcode, builder: &'static str) -> Val {
        let Some((l, r, dims)) = self.binary_args(call) else {
            return Val::error(call.range);
        };
        let mut spans = OpSpans::new(call.range, vec![l.range, r.range]);
        if let Some((_, range, entries)) = &dims {
            spans = spans.attr("broadcast_dimensions", *range, entries.clone());
        }
        self.binary(opcode, builder, l, r, dims.map(|d| d.0), &spans)
    }

    /// `x.lt(y)` and the other comparison methods.
    pub fn compare_op(&mut self, call: &Call, dir: Dir, total_order: bool) -> Val {
        let Some((l, r, dims)) = self.binary_args(call) else {
            return Val::error(call.range);
        };
        let mut spans = OpSpans::new(call.range, vec![l.range, r.range]);
        if let Some((_, range, entries)) = &dims {
            spans = spans.attr("broadcast_dimensions", *range, entries.clone());
        }
        self.compare(dir, total_order, l, r, dims.map(|d| d.0), &spans)
    }

    /// An element-wise unary op on a concrete value.
    pub fn unary(&mut self, opcode: Opcode, builder: &'static str, x: Val, range: Range) -> Val {
        let Some(a) = self.array_of(&x, opcode.name(), 0) else {
            return Val::error(range);
        };
        match infer::unary(opcode, &a) {
            Ok(shape) => {
                let id = self.frames.push_instr(Instr::Builder(
                    builder,
                    vec![Arg::Value(x.id.expect("a value"))],
                ));
                Val::shape(shape.into(), id, range)
            }
            Err(err) => {
                self.report(err, &OpSpans::new(range, vec![x.range]));
                Val::error(range)
            }
        }
    }

    /// `x.exp()` and the other unary methods.
    pub fn unary_op(&mut self, call: &Call, opcode: Opcode, builder: &'static str) -> Val {
        if !self.arity(call, 1..=1) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        if matches!(x.ty, Ty::Weak(_)) && floating_only(opcode) {
            // `D.sqrt()`: computed in the floating-point type it takes.
            let deferred = Deferred::Unary(opcode, builder, x);
            return Val {
                ty: Ty::Weak(Weak::Deferred(Box::new(deferred))),
                id: None,
                range: call.range,
            };
        }
        let x = self.concrete(x);
        self.unary(opcode, builder, x, call.range)
    }

    /// `x.conj()`: the complex conjugate, the identity on real types.
    pub fn conj(&mut self, call: &Call) -> Val {
        if !self.arity(call, 1..=1) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let Some(a) = self.array_of(&x, "conj", 0) else {
            return Val::error(call.range);
        };
        let id = self.frames.push_instr(Instr::Builder(
            "conj",
            vec![Arg::Value(x.id.expect("a value"))],
        ));
        Val::shape(a.into(), id, call.range)
    }

    /// `pred.select(on_true, on_false)`. A literal branch takes the other
    /// branch's element type; a scalar branch is broadcast to the other
    /// branch's shape, or both to the predicate's (`jnp.where(p, 1.0,
    /// 0.0)`).
    pub fn select(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let pred = self.expr(call.args[0]);
        let t = self.expr(call.args[1]);
        let f = self.expr(call.args[2]);
        let pred = self.concrete(pred);
        let Some((t, f)) = self.unify_literals(t, f) else {
            return Val::error(call.range);
        };
        let t = self.broadcast_scalar(t, &f);
        let f = self.broadcast_scalar(f, &t);
        let t = self.broadcast_scalar(t, &pred);
        let f = self.broadcast_scalar(f, &pred);
        let (Ty::Shape(ps), Ty::Shape(ts), Ty::Shape(fs)) = (&pred.ty, &t.ty, &f.ty) else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![pred.range, t.range, f.range]);
        match infer::select(ps, ts, fs) {
            Ok(shape) => {
                let args = [&pred, &t, &f].map(|v| Arg::Value(v.id.expect("a value")));
                let id = self
                    .frames
                    .push_instr(Instr::Builder("select", args.into()));
                Val::shape(shape, id, call.range)
            }
            Err(err) => {
                self.report(err, &spans);
                Val::error(call.range)
            }
        }
    }

    /// A scalar `v` broadcast to the dimensions of `like` (keeping its
    /// element type); other values as they are.
    fn broadcast_scalar(&mut self, v: Val, like: &Val) -> Val {
        let (Ty::Shape(Shape::Array(a)), Ty::Shape(Shape::Array(b))) = (&v.ty, &like.ty) else {
            return v;
        };
        if a.rank() != 0 || b.rank() == 0 {
            return v;
        }
        let shape: Shape<ExactDim> = ArrayShape::new(a.element_type(), b.dims().to_vec()).into();
        let args = vec![
            Arg::Value(v.id.expect("a value")),
            Arg::Value(like.id.expect("a value")),
        ];
        let id = self
            .frames
            .push_instr(Instr::Runtime("broadcast_like", args));
        Val::shape(shape, id, v.range)
    }

    /// `x.clamp(min, max)` (Rust's argument order; XLA's `Clamp(min, x,
    /// max)`).
    pub fn clamp(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let lo = self.expr(call.args[1]);
        let hi = self.expr(call.args[2]);
        let (Some((lo, _)), Some((hi, _))) = (
            self.unify_literals(lo, x.clone()),
            self.unify_literals(hi, x.clone()),
        ) else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![lo.range, x.range, hi.range]);
        let (a, b, c) = (
            self.array_of(&lo, "clamp", 0),
            self.array_of(&x, "clamp", 1),
            self.array_of(&hi, "clamp", 2),
        );
        let (Some(a), Some(b), Some(c)) = (a, b, c) else {
            return Val::error(call.range);
        };
        match infer::clamp(&a, &b, &c) {
            Ok(shape) => {
                let args = [&lo, &x, &hi].map(|v| Arg::Value(v.id.expect("a value")));
                let id = self.frames.push_instr(Instr::Builder("clamp", args.into()));
                Val::shape(shape.into(), id, call.range)
            }
            Err(err) => {
                self.report(err, &spans);
                Val::error(call.range)
            }
        }
    }

    /// `x.convert(T)` or `x.bitcast_convert(T)`.
    pub fn convert(&mut self, call: &Call, bitcast: bool) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let to = self.type_arg(call.args[1]);
        let Some(to) = to else {
            return Val::error(call.range);
        };
        let x = self.materialize(&x, to);
        let op = if bitcast {
            "bitcast-convert"
        } else {
            "convert"
        };
        let Some(a) = self.array_of(&x, op, 0) else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range]).attr(
            "new_element_type",
            call.args[1].range,
            vec![],
        );
        let (result, builder) = if bitcast {
            (infer::bitcast_convert(&a, to), "bitcast_convert_type")
        } else {
            (infer::convert(&a, to), "convert_element_type")
        };
        self.emit(
            result,
            builder,
            vec![Arg::Value(x.id.expect("a value")), Arg::Type(to)],
            &spans,
        )
    }

    /// `x.reduce_precision(exponent_bits, mantissa_bits)`.
    pub fn reduce_precision(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let (e, m) = (self.int(call.args[1]), self.int(call.args[2]));
        let (Some(a), Some(e), Some(m)) = (self.array_of(&x, "reduce-precision", 0), e, m) else {
            return Val::error(call.range);
        };
        let spans = OpSpans::new(call.range, vec![x.range])
            .attr("exponent_bits", call.args[1].range, vec![])
            .attr("mantissa_bits", call.args[2].range, vec![]);
        let result = infer::reduce_precision(&a, e, m);
        let args = vec![Arg::Value(x.id.expect("a value")), Arg::Int(e), Arg::Int(m)];
        self.emit(result, "reduce_precision", args, &spans)
    }

    /// Emits a builder call if inference succeeded, else reports.
    pub fn emit(
        &mut self,
        result: Result<impl Into<Shape<ExactDim>>, InferError<ExactDim>>,
        builder: &'static str,
        args: Vec<Arg>,
        spans: &OpSpans,
    ) -> Val {
        match result {
            Ok(shape) => {
                let id = self.frames.push_instr(Instr::Builder(builder, args));
                Val::shape(shape.into(), id, spans.call)
            }
            Err(err) => {
                self.report(err, spans);
                Val::error(spans.call)
            }
        }
    }
}
