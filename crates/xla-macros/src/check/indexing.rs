//! Indexing: dynamic_slice, dynamic_update_slice, gather and scatter.

use std::collections::HashMap;

use crate::types::ExactDim;
use xla_core::hlo::{GatherDimensionNumbers, ScatterDimensionNumbers};
use xla_core::infer::{self, Signature};
use xla_core::{ArrayShape, PrimitiveType};

use super::ops::Call;
use super::scope::{Ty, Val};
use super::spans::OpSpans;
use super::Checker;
use crate::ast::{Expr, ExprKind, Range};
use crate::ir::Arg;

/// A field of a dimension-numbers struct literal: its value (a list, or
/// one integer as a one-entry list), the field's range and each entry's.
type Field = (Vec<i64>, Range, Vec<Range>);

impl Checker<'_> {
    /// Start indices `[i, 0]`: scalars, literals taking the type of the
    /// other indices (`s32` if all are literals).
    fn start_indices(&mut self, e: &Expr) -> Option<Vec<Val>> {
        let values = self.operand_list(e)?;
        let ty = values
            .iter()
            .find_map(|v| match &v.ty {
                Ty::Shape(s) => s.element_type(),
                Ty::Weak(_) | Ty::Error => None,
            })
            .unwrap_or(PrimitiveType::S32);
        let values: Vec<Val> = values.iter().map(|v| self.materialize(v, ty)).collect();
        Some(values)
    }

    /// `x.dynamic_slice([start_indices], [slice_sizes])`.
    pub fn dynamic_slice(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let starts = self.start_indices(call.args[1]);
        let sizes = self.sizes(call.args[2]);
        let (Some(a), Some(starts), Some((exprs, syms, entries))) =
            (self.array_of(&x, "dynamic-slice", 0), starts, sizes)
        else {
            return Val::error(call.range);
        };
        let Some(indices) = self.index_arrays(&starts, "dynamic-slice", 1) else {
            return Val::error(call.range);
        };
        let refs: Vec<&ArrayShape<ExactDim>> = indices.iter().collect();
        let mut operand_ranges = vec![x.range];
        operand_ranges.extend(starts.iter().map(|v| v.range));
        let spans = OpSpans::new(call.range, operand_ranges).attr(
            "dynamic_slice_sizes",
            call.args[2].range,
            entries,
        );
        let result = infer::dynamic_slice(&a, &refs, &syms);
        let ids = starts.iter().map(|v| v.id.expect("a value")).collect();
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Values(ids),
            Arg::Sizes(exprs),
        ];
        self.emit(result, "dynamic_slice", args, &spans)
    }

    fn index_arrays(
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

    /// `x.dynamic_update_slice(update, [start_indices])`.
    pub fn dynamic_update_slice(&mut self, call: &Call) -> Val {
        if !self.arity(call, 3..=3) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let update = self.expr(call.args[1]);
        let update = match &x.ty {
            Ty::Shape(s) => match s.element_type() {
                Some(t) => self.materialize(&update, t),
                None => update,
            },
            _ => self.concrete(update),
        };
        let starts = self.start_indices(call.args[2]);
        let (Some(a), Some(u), Some(starts)) = (
            self.array_of(&x, "dynamic-update-slice", 0),
            self.array_of(&update, "dynamic-update-slice", 1),
            starts,
        ) else {
            return Val::error(call.range);
        };
        let Some(indices) = self.index_arrays(&starts, "dynamic-update-slice", 2) else {
            return Val::error(call.range);
        };
        let refs: Vec<&ArrayShape<ExactDim>> = indices.iter().collect();
        let mut operand_ranges = vec![x.range, update.range];
        operand_ranges.extend(starts.iter().map(|v| v.range));
        let spans = OpSpans::new(call.range, operand_ranges);
        let result = infer::dynamic_update_slice(&a, &u, &refs);
        let ids = starts.iter().map(|v| v.id.expect("a value")).collect();
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Value(update.id.expect("a value")),
            Arg::Values(ids),
        ];
        self.emit(result, "dynamic_update_slice", args, &spans)
    }

    /// A struct literal of dimension numbers, `Name { field: [..], … }`:
    /// each field is a list or an integer; `required` fields must appear,
    /// `optional` ones default to empty.
    fn dims_struct(
        &mut self,
        e: &Expr,
        name: &str,
        required: &[&'static str],
        optional: &[&'static str],
    ) -> Option<HashMap<&'static str, Field>> {
        let ExprKind::Struct {
            name: written,
            fields,
        } = &e.kind
        else {
            self.error(
                e.range,
                format!("expected `{name} {{ {}: …, … }}`", required.join(": …, ")),
            );
            return None;
        };
        if written != name {
            self.error(
                Range::single(written.span()),
                format!("expected `{name} {{ … }}`"),
            );
            return None;
        }
        let mut out = HashMap::new();
        let mut ok = true;
        for (field, value) in fields {
            let text = field.to_string();
            let Some(key) = required.iter().chain(optional).find(|k| **k == text) else {
                let all: Vec<&str> = required.iter().chain(optional).copied().collect();
                let hint = match crate::suggest::closest(&text, all.iter().copied()) {
                    Some(name) => format!("did you mean `{name}`?"),
                    None => format!("its fields are {}", all.join(", ")),
                };
                self.error(
                    Range::single(field.span()),
                    format!("`{name}` has no field `{text}`; {hint}"),
                );
                ok = false;
                continue;
            };
            let parsed = match &value.kind {
                ExprKind::Array(_) => self.ints(value),
                _ => self.int(value).map(|v| (vec![v], vec![value.range])),
            };
            match parsed {
                Some((values, entries)) => {
                    out.insert(*key, (values, value.range, entries));
                }
                None => ok = false,
            }
        }
        for key in required {
            if !out.contains_key(key) && ok {
                self.error(e.range, format!("`{name}` is missing the field `{key}`"));
                ok = false;
            }
        }
        for key in optional {
            out.entry(*key).or_insert((Vec::new(), e.range, Vec::new()));
        }
        ok.then_some(out)
    }

    /// `x.gather(indices, GatherDims { … }, [slice_sizes])`.
    pub fn gather(&mut self, call: &Call) -> Val {
        if !self.arity(call, 4..=4) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let indices = self.expr(call.args[1]);
        let indices = self.concrete(indices);
        let fields = self.dims_struct(
            call.args[2],
            "GatherDims",
            &[
                "offset_dims",
                "collapsed_slice_dims",
                "start_index_map",
                "index_vector_dim",
            ],
            &["operand_batching_dims", "start_indices_batching_dims"],
        );
        let sizes = self.sizes(call.args[3]);
        let (Some(a), Some(i), Some(f), Some((exprs, syms, entries))) = (
            self.array_of(&x, "gather", 0),
            self.array_of(&indices, "gather", 1),
            fields,
            sizes,
        ) else {
            return Val::error(call.range);
        };
        let dims = GatherDimensionNumbers {
            offset_dims: f["offset_dims"].0.clone(),
            collapsed_slice_dims: f["collapsed_slice_dims"].0.clone(),
            start_index_map: f["start_index_map"].0.clone(),
            index_vector_dim: f["index_vector_dim"].0.first().copied().unwrap_or(0),
            operand_batching_dims: f["operand_batching_dims"].0.clone(),
            start_indices_batching_dims: f["start_indices_batching_dims"].0.clone(),
        };
        let mut spans = OpSpans::new(call.range, vec![x.range, indices.range]).attr(
            "slice_sizes",
            call.args[3].range,
            entries,
        );
        for (name, (_, range, entries)) in f {
            spans = spans.attr(name, range, entries);
        }
        let result = infer::gather(&a, &i, &dims, &syms);
        let args = vec![
            Arg::Value(x.id.expect("a value")),
            Arg::Value(indices.id.expect("a value")),
            Arg::GatherDims(dims),
            Arg::Sizes(exprs),
            Arg::Bool(false),
        ];
        self.emit(result, "gather", args, &spans)
    }

    /// `x.scatter(indices, updates, |old, new| …, ScatterDims { … })`.
    pub fn scatter(&mut self, call: &Call) -> Val {
        if !self.arity(call, 5..=5) {
            return Val::error(call.range);
        }
        let x = self.expr(call.args[0]);
        let x = self.concrete(x);
        let indices = self.expr(call.args[1]);
        let indices = self.concrete(indices);
        let updates = self.expr(call.args[2]);
        let fields = self.dims_struct(
            call.args[4],
            "ScatterDims",
            &[
                "update_window_dims",
                "inserted_window_dims",
                "scatter_dims_to_operand_dims",
                "index_vector_dim",
            ],
            &["input_batching_dims", "scatter_indices_batching_dims"],
        );
        let (Some(a), Some(i)) = (
            self.array_of(&x, "scatter", 0),
            self.array_of(&indices, "scatter", 1),
        ) else {
            return Val::error(call.range);
        };
        let updates = self.materialize(&updates, a.element_type());
        let (Some(u), Some(f)) = (self.array_of(&updates, "scatter", 2), fields) else {
            return Val::error(call.range);
        };
        let ty = a.element_type();
        let Some(closure) = self.closure(call.args[3], &[ty, ty], "scatter") else {
            return Val::error(call.range);
        };
        let dims = ScatterDimensionNumbers {
            update_window_dims: f["update_window_dims"].0.clone(),
            inserted_window_dims: f["inserted_window_dims"].0.clone(),
            scatter_dims_to_operand_dims: f["scatter_dims_to_operand_dims"].0.clone(),
            index_vector_dim: f["index_vector_dim"].0.first().copied().unwrap_or(0),
            input_batching_dims: f["input_batching_dims"].0.clone(),
            scatter_indices_batching_dims: f["scatter_indices_batching_dims"].0.clone(),
        };
        let mut spans = OpSpans::new(call.range, vec![x.range, indices.range, updates.range]).attr(
            "to_apply",
            closure.range,
            vec![],
        );
        for (name, (_, range, entries)) in f {
            spans = spans.attr(name, range, entries);
        }
        let sig = Signature {
            parameters: &closure.params,
            result: &closure.result,
        };
        let result = infer::scatter(&[&a], &i, &[&u], sig, &dims);
        let args = vec![
            Arg::Values(vec![x.id.expect("a value")]),
            Arg::Value(indices.id.expect("a value")),
            Arg::Values(vec![updates.id.expect("a value")]),
            Arg::Comp(closure.comp),
            Arg::ScatterDims(dims),
            Arg::Default,
        ];
        self.emit(result, "scatter", args, &spans)
    }
}
