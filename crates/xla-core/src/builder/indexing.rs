//! Indexing: dynamic-slice, dynamic-update-slice, gather, scatter.

use super::{XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{Attrs, GatherDimensionNumbers, Opcode, ScatterDimensionNumbers};
use crate::infer::{self, Signature};
use crate::{ArrayShape, Result};

/// Hints a scatter's caller guarantees; they never change the result
/// (`docs/semantics.md`, *Scatter*, Project rule).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ScatterOptions {
    /// The indices are sorted (after mapping to operand dimensions).
    pub indices_are_sorted: bool,
    /// No two updates hit the same element.
    pub unique_indices: bool,
}

impl XlaBuilder {
    /// Start indices as scalars: N scalar operands are used as given; one
    /// rank-1 array of N integers (the older form of `docs/semantics.md`, *Dynamic slices*)
    /// is split into N scalars with slices and reshapes. `first` is the
    /// position of the first index among the op's operands.
    fn scalar_indices(
        &self,
        method: &'static str,
        first: usize,
        start_indices: &[XlaOp],
    ) -> Result<Vec<XlaOp>> {
        if let [single] = start_indices {
            let index = self.array(method, *single, first)?;
            if index.rank() == 1 {
                return (0..index.dims()[0])
                    .map(|i| {
                        let element = self.slice(*single, &[i], &[i + 1], &[1])?;
                        self.reshape(element, &[])
                    })
                    .collect();
            }
        }
        Ok(start_indices.to_vec())
    }

    /// `DynamicSlice(operand, start_indices, slice_sizes)`: a slice of
    /// `slice_sizes` at runtime starts, clamped so it stays in bounds.
    pub fn dynamic_slice(
        &self,
        operand: XlaOp,
        start_indices: &[XlaOp],
        slice_sizes: &[i64],
    ) -> Result<XlaOp> {
        let method = Opcode::DynamicSlice.name();
        let mut operands = vec![operand];
        operands.extend(self.scalar_indices(method, 1, start_indices)?);
        let s = self.arrays(method, &operands)?;
        let refs: Vec<&ArrayShape> = s[1..].iter().collect();
        let shape = infer::dynamic_slice(&s[0], &refs, slice_sizes)?;
        let attrs = Attrs {
            dynamic_slice_sizes: Some(slice_sizes.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::DynamicSlice, shape, &operands, attrs, vec![]))
    }

    /// `DynamicUpdateSlice(operand, update, start_indices)`: the operand with
    /// `update` written at the (clamped) runtime start.
    pub fn dynamic_update_slice(
        &self,
        operand: XlaOp,
        update: XlaOp,
        start_indices: &[XlaOp],
    ) -> Result<XlaOp> {
        let method = Opcode::DynamicUpdateSlice.name();
        let mut operands = vec![operand, update];
        operands.extend(self.scalar_indices(method, 2, start_indices)?);
        let s = self.arrays(method, &operands)?;
        let refs: Vec<&ArrayShape> = s[2..].iter().collect();
        let shape = infer::dynamic_update_slice(&s[0], &s[1], &refs)?;
        Ok(self.emit(
            Opcode::DynamicUpdateSlice,
            shape,
            &operands,
            Attrs::default(),
            vec![],
        ))
    }

    /// `Gather(operand, start_indices, dimension_numbers, slice_sizes,
    /// indices_are_sorted)` (`docs/semantics.md`, *Gather*).
    pub fn gather(
        &self,
        operand: XlaOp,
        start_indices: XlaOp,
        dimension_numbers: &GatherDimensionNumbers,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<XlaOp> {
        let s = self.arrays("gather", &[operand, start_indices])?;
        let shape = infer::gather(&s[0], &s[1], dimension_numbers, slice_sizes)?;
        let attrs = Attrs {
            gather_dims: Some(dimension_numbers.clone()),
            gather_slice_sizes: Some(slice_sizes.to_vec()),
            indices_are_sorted,
            ..Attrs::default()
        };
        Ok(self.emit(
            Opcode::Gather,
            shape,
            &[operand, start_indices],
            attrs,
            vec![],
        ))
    }

    /// `Scatter(operands, scatter_indices, updates, update_computation,
    /// dimension_numbers)` (`docs/semantics.md`, *Scatter*): N operands and N updates;
    /// the result is one array for N = 1, else a tuple.
    pub fn scatter(
        &self,
        operands: &[XlaOp],
        scatter_indices: XlaOp,
        updates: &[XlaOp],
        update_computation: &XlaComputation,
        dimension_numbers: &ScatterDimensionNumbers,
        options: ScatterOptions,
    ) -> Result<XlaOp> {
        let mut all = operands.to_vec();
        all.push(scatter_indices);
        all.extend_from_slice(updates);
        let s = self.arrays("scatter", &all)?;
        let n = operands.len();
        let (o, u): (Vec<&ArrayShape>, Vec<&ArrayShape>) =
            (s[..n].iter().collect(), s[n + 1..].iter().collect());
        let program = update_computation.program_shape();
        let shape = infer::scatter(&o, &s[n], &u, Signature::from(&program), dimension_numbers)?;
        let called = vec![self.embed(update_computation)];
        let attrs = Attrs {
            scatter_dims: Some(dimension_numbers.clone()),
            indices_are_sorted: options.indices_are_sorted,
            unique_indices: options.unique_indices,
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Scatter, shape, &all, attrs, called))
    }
}
