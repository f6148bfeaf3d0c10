//! Reductions along one dimension that keep or index it: the cumulative
//! reductions (`cumsum`, `cumprod`, `cummax`, `cummin`) and `argmax` /
//! `argmin`. Their element types and dimension follow the rules of the
//! reduction over that dimension (`reduce_by_shape`).

use crate::types::ExactDim;
use xla_core::hlo::Opcode;
use xla_core::infer::{self, InferError};
use xla_core::{ArrayShape, PrimitiveType, Shape};

use super::ops::Call;
use super::reduce::op_name;
use super::scope::Val;
use super::Checker;
use crate::ir::Arg;

impl Checker<'_> {
    /// `x.cumsum(dimension)` and the other cumulative reductions (JAX's
    /// `lax.cumsum` & co): element `i` along `dimension` reduces the
    /// elements `0..=i` there. The result has the operand's shape; the
    /// element type and dimension follow the rules of a reduction over
    /// `dimension` by `opcode`.
    pub fn cumulative(&mut self, call: &Call, opcode: Opcode) -> Val {
        if !self.arity(call, 2..=2) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let dim = self.int(call.args[1]);
        let (Some(a), Some(dim)) = (self.array_of(&x, "reduce", 0), dim) else {
            return Val::error(call.range);
        };
        let Some(dim) = self.one_dimension(call, dim, a.rank()) else {
            return Val::error(call.range);
        };
        let entries = vec![call.args[1].range];
        if self
            .reduce_by_shape(call, opcode, &x, &a, &[dim], entries)
            .is_none()
        {
            return Val::error(call.range);
        }
        let args = vec![Arg::Value(x.id.expect("a value")), Arg::Int(dim)];
        let id = self
            .frames
            .push_instr(crate::ir::Instr::Runtime(op_name(call), args));
        Val::shape(a.into(), id, call.range)
    }

    /// `x.argmax(dimension)` and `argmin`, with an optional index type
    /// (`x.argmax(1, s64)`; `s32` by default, as in JAX): the index of the
    /// best element along `dimension`, the first one on ties, a NaN before
    /// any number. The result is the reduction's shape, of the index type;
    /// the element type and dimension follow the rules of a reduction by
    /// `opcode` (max or min).
    pub fn arg_best(&mut self, call: &Call, opcode: Opcode) -> Val {
        if !self.arity(call, 2..=3) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let dim = self.int(call.args[1]);
        let index_type = match call.args.get(2) {
            Some(e) => self.type_arg(e),
            None => Some(PrimitiveType::S32),
        };
        let (Some(a), Some(dim), Some(index_type)) =
            (self.array_of(&x, "reduce", 0), dim, index_type)
        else {
            return Val::error(call.range);
        };
        if !index_type.is_integral() {
            let range = call.args.get(2).map_or(call.range, |e| e.range);
            self.error(
                range,
                format!(
                    "{}: the index type must be an integer type, not {index_type}",
                    call.name
                ),
            );
            return Val::error(call.range);
        }
        let Some(dim) = self.one_dimension(call, dim, a.rank()) else {
            return Val::error(call.range);
        };
        let entries = vec![call.args[1].range];
        let Some(Shape::Array(reduced)) =
            self.reduce_by_shape(call, opcode, &x, &a, &[dim], entries)
        else {
            return Val::error(call.range);
        };
        let shape: Shape<ExactDim> = ArrayShape::new(index_type, reduced.dims().to_vec()).into();
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Int(dim),
            Arg::Type(index_type),
        ];
        let id = self
            .frames
            .push_instr(crate::ir::Instr::Runtime(op_name(call), args));
        Val::shape(shape, id, call.range)
    }

    /// The dimension argument of a one-dimension op (`cumsum`, `argmax`),
    /// negative counting from the end as in JAX; out of range, an error
    /// at the argument.
    fn one_dimension(&mut self, call: &Call, dim: i64, rank: usize) -> Option<i64> {
        match xla_core::shape::normalize_dim(dim, rank) {
            Some(d) => Some(d as i64),
            None => {
                let err = InferError::<ExactDim>::DimOutOfRange {
                    op: op_name(call),
                    attr: infer::Attr::scalar("dimension"),
                    dim,
                    bound: rank,
                };
                self.error(call.args[1].range, err);
                None
            }
        }
    }
}
