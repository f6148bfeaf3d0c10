//! Data movement: broadcast, broadcast_in_dim, reshape, collapse, transpose,
//! rev, slice, concatenate, pad, iota.

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, Opcode, PadDim, SliceDim};
use crate::infer::{self, PadAmounts};
use crate::{ArrayShape, Result};

impl XlaBuilder {
    /// The HLO `broadcast` instruction (XLA's internal `InDimBroadcast`):
    /// operand dimension `i` becomes result dimension `dimensions[i]`, with
    /// exactly its size; the result has `out_dims`.
    pub(super) fn in_dim_broadcast(
        &self,
        operand: XlaOp,
        out_dims: &[i64],
        dimensions: &[i64],
    ) -> Result<XlaOp> {
        let x = self.array("broadcast", operand, 0)?;
        let shape = infer::in_dim_broadcast(&x, out_dims, dimensions)?;
        let attrs = Attrs {
            dimensions: Some(dimensions.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Broadcast, shape, &[operand], attrs, vec![]))
    }

    /// XLA's `AddBroadcastSequence`: broadcasts a scalar, or an operand of
    /// the result's rank whose differing dimensions have size 1, to
    /// `out_dims`. The size-1 dimensions are reshaped away first, so the
    /// `broadcast` maps only equal sizes: `f32[4,1]` to `[4,8]` becomes
    /// `reshape` to `f32[4]`, then `broadcast(…), dimensions={0}`.
    pub(super) fn add_broadcast_sequence(&self, out_dims: &[i64], operand: XlaOp) -> Result<XlaOp> {
        let x = self.array("broadcast", operand, 0)?;
        if x.rank() == 0 {
            return self.in_dim_broadcast(operand, out_dims, &[]);
        }
        let kept: Vec<i64> = (0..x.rank())
            .filter(|&i| out_dims.get(i) == Some(&x.dims()[i]))
            .map(|i| i as i64)
            .collect();
        let sizes: Vec<i64> = kept.iter().map(|&i| x.dims()[i as usize]).collect();
        let reshaped = if sizes.len() == x.rank() {
            operand
        } else {
            self.reshape(operand, &sizes)?
        };
        self.in_dim_broadcast(reshaped, out_dims, &kept)
    }

    /// `Broadcast(operand, broadcast_sizes)`: prepends dimensions
    /// (`f32[3]` with `{2}` gives `f32[2,3]`).
    pub fn broadcast(&self, operand: XlaOp, broadcast_sizes: &[i64]) -> Result<XlaOp> {
        let x = self.array("broadcast", operand, 0)?;
        let shape = infer::broadcast(&x, broadcast_sizes)?;
        let n = broadcast_sizes.len() as i64;
        let dimensions: Vec<i64> = (n..n + x.rank() as i64).collect();
        self.in_dim_broadcast(operand, shape.dims(), &dimensions)
    }

    /// `BroadcastInDim(operand, out_dim_size, broadcast_dimensions)`:
    /// operand dimension `i` maps to output dimension
    /// `broadcast_dimensions[i]` and has size 1 or the output's size there.
    pub fn broadcast_in_dim(
        &self,
        operand: XlaOp,
        out_dim_size: &[i64],
        broadcast_dimensions: &[i64],
    ) -> Result<XlaOp> {
        let x = self.array("broadcast_in_dim", operand, 0)?;
        infer::broadcast_in_dim(&x, out_dim_size, broadcast_dimensions)?;
        let mut in_dim_size = out_dim_size.to_vec();
        for (i, &d) in broadcast_dimensions.iter().enumerate() {
            in_dim_size[d as usize] = x.dims()[i];
        }
        let op = self.in_dim_broadcast(operand, &in_dim_size, broadcast_dimensions)?;
        if in_dim_size == out_dim_size {
            Ok(op)
        } else {
            self.add_broadcast_sequence(out_dim_size, op)
        }
    }

    /// `Reshape(operand, new_sizes)`: row-major refill (`docs/semantics.md`,
    /// *Reshape*).
    pub fn reshape(&self, operand: XlaOp, new_sizes: &[i64]) -> Result<XlaOp> {
        let x = self.array("reshape", operand, 0)?;
        let shape = infer::reshape(&x, new_sizes)?;
        Ok(self.emit(Opcode::Reshape, shape, &[operand], Attrs::default(), vec![]))
    }

    /// `Reshape(operand, dimensions, new_sizes)`: flattens in `dimensions`
    /// order (a transpose, unless the identity) and refills row-major.
    pub fn reshape_with_dimensions(
        &self,
        operand: XlaOp,
        dimensions: &[i64],
        new_sizes: &[i64],
    ) -> Result<XlaOp> {
        let identity = dimensions.iter().copied().eq(0..dimensions.len() as i64);
        let rank = self.array("reshape", operand, 0)?.rank();
        let transposed = if identity && dimensions.len() == rank {
            operand
        } else {
            self.transpose(operand, dimensions)?
        };
        self.reshape(transposed, new_sizes)
    }

    /// `Collapse(operand, dimensions)`: merges a consecutive, increasing run
    /// of dimensions into one (a row-major reshape).
    pub fn collapse(&self, operand: XlaOp, dimensions: &[i64]) -> Result<XlaOp> {
        let x = self.array("collapse", operand, 0)?;
        let shape = infer::collapse(&x, dimensions)?;
        if dimensions.len() <= 1 {
            return Ok(operand);
        }
        self.reshape(operand, shape.dims())
    }

    /// `Transpose(operand, permutation)`: result dimension `i` is operand
    /// dimension `permutation[i]`.
    pub fn transpose(&self, operand: XlaOp, permutation: &[i64]) -> Result<XlaOp> {
        let x = self.array("transpose", operand, 0)?;
        let shape = infer::transpose(&x, permutation)?;
        let attrs = Attrs {
            dimensions: Some(permutation.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Transpose, shape, &[operand], attrs, vec![]))
    }

    /// `Rev(operand, dimensions)`: reverses the listed dimensions.
    pub fn rev(&self, operand: XlaOp, dimensions: &[i64]) -> Result<XlaOp> {
        let x = self.array("reverse", operand, 0)?;
        let shape = infer::reverse(&x, dimensions)?;
        let attrs = Attrs {
            dimensions: Some(dimensions.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Reverse, shape, &[operand], attrs, vec![]))
    }

    /// `Slice(operand, start_indices, limit_indices, strides)`.
    pub fn slice(
        &self,
        operand: XlaOp,
        start_indices: &[i64],
        limit_indices: &[i64],
        strides: &[i64],
    ) -> Result<XlaOp> {
        let x = self.array("slice", operand, 0)?;
        let shape = infer::slice(&x, start_indices, limit_indices, strides)?;
        let slice = start_indices
            .iter()
            .zip(limit_indices)
            .zip(strides)
            .map(|((&start, &limit), &stride)| SliceDim {
                start,
                limit,
                stride,
            })
            .collect();
        let attrs = Attrs {
            slice: Some(slice),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Slice, shape, &[operand], attrs, vec![]))
    }

    /// `SliceInDim(operand, start, limit, stride, dimno)`: a slice of one
    /// dimension, keeping the others whole.
    pub fn slice_in_dim(
        &self,
        operand: XlaOp,
        start: i64,
        limit: i64,
        stride: i64,
        dimno: i64,
    ) -> Result<XlaOp> {
        let x = self.array("slice", operand, 0)?;
        let d = crate::shape::normalize_dim(dimno, x.rank()).ok_or_else(|| {
            infer::InferError::DimOutOfRange {
                op: "slice_in_dim",
                attr: infer::Attr::scalar("dimno"),
                dim: dimno,
                bound: x.rank(),
            }
        })?;
        let mut starts = vec![0; x.rank()];
        let mut limits = x.dims().to_vec();
        let mut strides = vec![1; x.rank()];
        (starts[d], limits[d], strides[d]) = (start, limit, stride);
        self.slice(operand, &starts, &limits, &strides)
    }

    /// `ConcatInDim(operands, dimension)`.
    pub fn concat_in_dim(&self, operands: &[XlaOp], dimension: i64) -> Result<XlaOp> {
        let arrays = self.arrays("concatenate", operands)?;
        let refs: Vec<&ArrayShape> = arrays.iter().collect();
        let shape = infer::concatenate(&refs, dimension)?;
        let attrs = Attrs {
            dimensions: Some(vec![dimension]),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Concatenate, shape, operands, attrs, vec![]))
    }

    /// `Pad(operand, padding_value, padding_config)`: per dimension low,
    /// high (negative crops) and interior padding.
    pub fn pad(
        &self,
        operand: XlaOp,
        padding_value: XlaOp,
        padding_config: &[PadDim],
    ) -> Result<XlaOp> {
        let s = self.arrays("pad", &[operand, padding_value])?;
        let config: Vec<PadAmounts> = padding_config.iter().map(PadAmounts::from).collect();
        let shape = infer::pad(&s[0], &s[1], &config)?;
        let attrs = Attrs {
            padding: Some(padding_config.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Pad, shape, &[operand, padding_value], attrs, vec![]))
    }

    /// `Iota(shape, iota_dimension)`: `out[i] = i[iota_dimension]`.
    pub fn iota(&self, shape: &ArrayShape, iota_dimension: i64) -> Result<XlaOp> {
        let shape = infer::iota(shape, iota_dimension)?;
        let attrs = Attrs {
            iota_dimension: Some(iota_dimension),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Iota, shape, &[], attrs, vec![]))
    }
}
