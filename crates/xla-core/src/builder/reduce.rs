//! Reductions: reduce, reduce-window, select-and-scatter, sort, top-k.

use super::{XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{Attrs, Opcode, Window, WindowDim};
use crate::infer::{self, InferError, PaddingKind, Signature};
use crate::{ArrayShape, Result};

/// A window over an operand with dimensions `base`: sizes, strides and
/// SAME/VALID padding (`docs/semantics.md`, *Windows*), no dilation. All three lists
/// have one entry per operand dimension.
pub fn make_window(
    base: &[i64],
    window_dimensions: &[i64],
    window_strides: &[i64],
    padding: PaddingKind,
) -> Result<Window, InferError> {
    for (list, len) in [
        ("window_dimensions", window_dimensions.len()),
        ("window_strides", window_strides.len()),
    ] {
        if len != base.len() {
            return Err(InferError::ListLength {
                op: "window",
                list,
                len,
                other: "the operand's rank",
                expected: base.len(),
            });
        }
    }
    let pads = infer::make_padding(base, window_dimensions, window_strides, padding);
    let dims = window_dimensions
        .iter()
        .zip(window_strides)
        .zip(pads)
        .map(
            |((&size, &stride), (padding_low, padding_high))| WindowDim {
                size,
                stride,
                padding_low,
                padding_high,
                ..WindowDim::default()
            },
        )
        .collect();
    Ok(Window { dims })
}

impl XlaBuilder {
    /// `Reduce(operands, init_values, computation, dimensions_to_reduce)`
    /// (`docs/semantics.md`, *Reduce*): one array for one operand, else a tuple.
    pub fn reduce(
        &self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        computation: &XlaComputation,
        dimensions_to_reduce: &[i64],
    ) -> Result<XlaOp> {
        let mut all = operands.to_vec();
        all.extend_from_slice(init_values);
        let s = self.arrays("reduce", &all)?;
        let (inputs, inits) = s.split_at(operands.len());
        let (inputs, inits): (Vec<&ArrayShape>, Vec<&ArrayShape>) =
            (inputs.iter().collect(), inits.iter().collect());
        let program = computation.program_shape();
        let shape = infer::reduce(
            &inputs,
            &inits,
            Signature::from(&program),
            dimensions_to_reduce,
        )?;
        let called = vec![self.embed(computation)];
        let attrs = Attrs {
            dimensions: Some(dimensions_to_reduce.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Reduce, shape, &all, attrs, called))
    }

    /// `ReduceWindow(operands, init_values, computation, window_dimensions,
    /// window_strides, padding)` (`docs/semantics.md`, *Reduce-window*).
    pub fn reduce_window(
        &self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        computation: &XlaComputation,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: PaddingKind,
    ) -> Result<XlaOp> {
        let base = match operands.first() {
            Some(&op) => self.array("reduce-window", op, 0)?.dims().to_vec(),
            None => Vec::new(),
        };
        let window = make_window(&base, window_dimensions, window_strides, padding)?;
        self.reduce_window_with_general_padding(operands, init_values, computation, &window)
    }

    /// `ReduceWindowWithGeneralPadding`: the window given in full (sizes,
    /// strides, explicit padding, base and window dilations).
    pub fn reduce_window_with_general_padding(
        &self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        computation: &XlaComputation,
        window: &Window,
    ) -> Result<XlaOp> {
        let mut all = operands.to_vec();
        all.extend_from_slice(init_values);
        let s = self.arrays("reduce-window", &all)?;
        let (inputs, inits) = s.split_at(operands.len());
        let (inputs, inits): (Vec<&ArrayShape>, Vec<&ArrayShape>) =
            (inputs.iter().collect(), inits.iter().collect());
        let program = computation.program_shape();
        let shape = infer::reduce_window(&inputs, &inits, Signature::from(&program), window)?;
        let called = vec![self.embed(computation)];
        let attrs = Attrs {
            window: Some(window.clone()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::ReduceWindow, shape, &all, attrs, called))
    }

    /// `SelectAndScatter(operand, select, window, source, init_value,
    /// scatter)` (`docs/semantics.md`, *Select-and-scatter*); build the window with
    /// [`make_window`] for SAME/VALID padding.
    pub fn select_and_scatter(
        &self,
        operand: XlaOp,
        select: &XlaComputation,
        window: &Window,
        source: XlaOp,
        init_value: XlaOp,
        scatter: &XlaComputation,
    ) -> Result<XlaOp> {
        let s = self.arrays("select-and-scatter", &[operand, source, init_value])?;
        let (sel, sca) = (select.program_shape(), scatter.program_shape());
        let shape = infer::select_and_scatter(
            &s[0],
            Signature::from(&sel),
            window,
            &s[1],
            &s[2],
            Signature::from(&sca),
        )?;
        let called = vec![self.embed(select), self.embed(scatter)];
        let attrs = Attrs {
            window: Some(window.clone()),
            ..Attrs::default()
        };
        let operands = [operand, source, init_value];
        Ok(self.emit(Opcode::SelectAndScatter, shape, &operands, attrs, called))
    }

    /// `Sort(operands, comparator, dimension, is_stable)` (`docs/semantics.md`,
    /// *Sort and top-k*); `dimension` may be negative (`-1`: the last).
    pub fn sort(
        &self,
        operands: &[XlaOp],
        comparator: &XlaComputation,
        dimension: i64,
        is_stable: bool,
    ) -> Result<XlaOp> {
        let s = self.arrays("sort", operands)?;
        let refs: Vec<&ArrayShape> = s.iter().collect();
        let rank = s.first().map_or(0, ArrayShape::rank);
        let dimension =
            crate::shape::normalize_dim(dimension, rank).map_or(dimension, |d| d as i64);
        let program = comparator.program_shape();
        let shape = infer::sort(&refs, dimension, Signature::from(&program))?;
        let called = vec![self.embed(comparator)];
        let attrs = Attrs {
            dimensions: Some(vec![dimension]),
            is_stable,
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Sort, shape, operands, attrs, called))
    }

    /// `TopK(operand, k, largest)`: `(values, s32 indices)` of the `k`
    /// largest (or smallest) entries along the last dimension.
    pub fn top_k(&self, operand: XlaOp, k: i64, largest: bool) -> Result<XlaOp> {
        let x = self.array("topk", operand, 0)?;
        let shape = infer::topk(&x, &k)?;
        let attrs = Attrs {
            k: Some(k),
            largest: Some(largest),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::TopK, shape, &[operand], attrs, vec![]))
    }
}
