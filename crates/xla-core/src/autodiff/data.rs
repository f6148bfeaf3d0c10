//! Gradients of data movement and indexing: each moves the cotangent back
//! to where the value came from (a broadcast sums it, a slice pads it, a
//! gather scatter-adds it, …).

use super::rules::no_rule;
use super::Tape;
use crate::builder::{ScatterOptions, XlaComputation, XlaOp};
use crate::hlo::{GatherDimensionNumbers, HloInstruction, Opcode, ScatterDimensionNumbers};
use crate::{Literal, Result};

impl Tape<'_> {
    /// `broadcast`, `reshape`, `bitcast`, `transpose`, `slice`, `pad`,
    /// `concatenate` and `reverse`.
    pub(super) fn data_movement(
        &self,
        instr: &HloInstruction,
        g: XlaOp,
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let x = self.operand_shape(instr, 0);
        let dims = instr.attrs.dimensions.clone().unwrap_or_default();
        let one = |op: XlaOp| Ok(vec![Some(op)]);
        match instr.opcode {
            Opcode::Broadcast => one(self.unbroadcast(g, x.dims(), &dims)?),
            Opcode::Reshape | Opcode::Bitcast => one(b.reshape(g, x.dims())?),
            Opcode::Transpose => {
                let mut inverse = vec![0; dims.len()];
                for (i, &d) in dims.iter().enumerate() {
                    inverse[d as usize] = i as i64;
                }
                one(b.transpose(g, &inverse)?)
            }
            Opcode::Reverse => one(b.rev(g, &dims)?),
            Opcode::Slice => {
                let slice = instr.attrs.slice.clone().unwrap_or_default();
                let out = self.array_shape_of_instr(instr);
                let config: Vec<(i64, i64, i64)> = (slice.iter().zip(x.dims()).zip(out))
                    .map(|((s, &n), &m)| {
                        let last = if m == 0 {
                            s.start
                        } else {
                            s.start + (m - 1) * s.stride + 1
                        };
                        match m {
                            0 => (n, 0, 0),
                            _ => (s.start, n - last, s.stride - 1),
                        }
                    })
                    .collect();
                one(self.pad_with_zero(g, &config)?)
            }
            Opcode::Pad => {
                let config = instr.attrs.padding.clone().unwrap_or_default();
                let unpad: Vec<(i64, i64, i64)> =
                    config.iter().map(|p| (-p.low, -p.high, 0)).collect();
                let cropped = self.pad_with_zero(g, &unpad)?;
                let cropped_dims = b
                    .get_shape(cropped)?
                    .as_array()
                    .map(|a| a.dims().to_vec())
                    .unwrap_or_default();
                let starts = vec![0; config.len()];
                let strides: Vec<i64> = config.iter().map(|p| p.interior + 1).collect();
                let dx = b.slice(cropped, &starts, &cropped_dims, &strides)?;
                let all: Vec<i64> = (0..config.len() as i64).collect();
                let dv = b.sub(self.sum(g, &all)?, self.sum(dx, &all)?, &[])?;
                Ok(vec![Some(dx), Some(dv)])
            }
            Opcode::Concatenate => {
                let d = dims.first().copied().unwrap_or(0);
                let mut offset = 0;
                (0..instr.operands.len())
                    .map(|k| {
                        let size = self.operand_shape(instr, k).dims()[d as usize];
                        let piece = b.slice_in_dim(g, offset, offset + size, 1, d)?;
                        offset += size;
                        Ok(Some(piece))
                    })
                    .collect()
            }
            _ => Err(no_rule(instr, "it has no gradient rule")),
        }
    }

    /// The dimensions of `instr`'s array result.
    fn array_shape_of_instr<'i>(&self, instr: &'i HloInstruction) -> &'i [i64] {
        instr.shape.as_array().map_or(&[], |a| a.dims())
    }

    /// `g`, of a broadcast's result shape, summed back to an operand of
    /// dimensions `to` that `broadcast` mapped onto result dimensions
    /// `dims`.
    fn unbroadcast(&self, g: XlaOp, to: &[i64], dims: &[i64]) -> Result<XlaOp> {
        let b = self.b;
        let rank = b.get_shape(g)?.as_array().map_or(0, |a| a.rank()) as i64;
        let summed: Vec<i64> = (0..rank).filter(|d| !dims.contains(d)).collect();
        let mut s = self.sum(g, &summed)?;
        let mut sorted = dims.to_vec();
        sorted.sort_unstable();
        let perm: Vec<i64> = dims
            .iter()
            .map(|d| sorted.iter().position(|s| s == d).unwrap_or(0) as i64)
            .collect();
        if perm.iter().enumerate().any(|(i, &p)| p != i as i64) {
            s = b.transpose(s, &perm)?;
        }
        let now = b
            .get_shape(s)?
            .as_array()
            .map(|a| a.dims().to_vec())
            .unwrap_or_default();
        if now != to {
            let degenerate: Vec<i64> = (0..to.len() as i64)
                .filter(|&d| to[d as usize] != now[d as usize])
                .collect();
            s = b.reshape(self.sum(s, &degenerate)?, to)?;
        }
        Ok(s)
    }

    /// `pad(x, 0)` with `(low, high, interior)` per dimension.
    fn pad_with_zero(&self, x: XlaOp, config: &[(i64, i64, i64)]) -> Result<XlaOp> {
        let ty = self
            .b
            .get_shape(x)?
            .element_type()
            .unwrap_or(crate::PrimitiveType::F32);
        let zero = self.scalar(ty, 0.0)?;
        let config = config
            .iter()
            .map(|&(low, high, interior)| crate::hlo::PadDim {
                low,
                high,
                interior,
            })
            .collect::<Vec<_>>();
        self.b.pad(x, zero, &config)
    }

    /// `dynamic-slice`, `dynamic-update-slice`, `gather` and `scatter`.
    pub(super) fn indexing(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        g: XlaOp,
        wanted: &[bool],
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let operands = (0..instr.operands.len())
            .map(|k| self.operand(instr, k))
            .collect::<Result<Vec<XlaOp>>>()?;
        let mut out = vec![None; operands.len()];
        match instr.opcode {
            Opcode::DynamicSlice => {
                let zeros = self.full(self.operand_shape(instr, 0), 0.0)?;
                out[0] = Some(b.dynamic_update_slice(zeros, g, &operands[1..])?);
            }
            Opcode::DynamicUpdateSlice => {
                let update = self.operand_shape(instr, 1);
                // The update's cotangent is read out before the operand's
                // zeroes that region, and kept apart from its users (an
                // optimization barrier), so that a backend can zero the
                // region in place instead of copying the whole cotangent
                // first (a scan's reverse loop does this every step).
                if wanted[1] {
                    let slice = b.dynamic_slice(g, &operands[2..], update.dims())?;
                    out[1] = Some(match wanted[0] {
                        true => b.optimization_barrier(slice)?,
                        false => slice,
                    });
                }
                if wanted[0] {
                    let zeros = self.full(update, 0.0)?;
                    out[0] = Some(b.dynamic_update_slice(g, zeros, &operands[2..])?);
                }
            }
            Opcode::Gather => {
                let dnums = instr.attrs.gather_dims.clone().unwrap_or_default();
                let sizes = instr.attrs.gather_slice_sizes.clone().unwrap_or_default();
                let scatter = ScatterDimensionNumbers {
                    update_window_dims: dnums.offset_dims.clone(),
                    inserted_window_dims: dnums.collapsed_slice_dims.clone(),
                    scatter_dims_to_operand_dims: dnums.start_index_map.clone(),
                    index_vector_dim: dnums.index_vector_dim,
                    input_batching_dims: dnums.operand_batching_dims.clone(),
                    scatter_indices_batching_dims: dnums.start_indices_batching_dims.clone(),
                };
                // A gather clamps its start indices into the operand; a
                // scatter drops windows out of bounds: clamp them first.
                let clamped = self.clamp_indices(
                    instr,
                    operands[1],
                    &dnums.start_index_map,
                    dnums.index_vector_dim,
                    &sizes,
                )?;
                let x = self.operand_shape(instr, 0);
                let zeros = self.full(x, 0.0)?;
                let add = self.adder(x.element_type())?;
                let options = ScatterOptions {
                    indices_are_sorted: instr.attrs.indices_are_sorted,
                    unique_indices: false,
                };
                out[0] = Some(b.scatter(&[zeros], clamped, &[g], &add, &scatter, options)?);
            }
            Opcode::Scatter => return self.scatter_rule(instr, y, g, wanted, &operands),
            _ => return Err(no_rule(instr, "it has no gradient rule")),
        }
        Ok(out)
    }

    /// `indices` (of `instr`'s operand 1) with each index vector clamped so
    /// that the window of `sizes` starting there fits the operand, as a
    /// gather clamps them.
    fn clamp_indices(
        &self,
        instr: &HloInstruction,
        indices: XlaOp,
        index_map: &[i64],
        index_vector_dim: i64,
        sizes: &[i64],
    ) -> Result<XlaOp> {
        let b = self.b;
        let x = self.operand_shape(instr, 0);
        let shape = self.operand_shape(instr, 1);
        let ty = shape.element_type();
        let limits: Vec<i64> = index_map
            .iter()
            .map(|&d| x.dims()[d as usize] - sizes[d as usize])
            .collect();
        let limit = b.constant(&Literal::vector(&limits).convert(ty)?)?;
        let limit = match index_vector_dim as usize == shape.rank() {
            true => b.reshape(limit, &[])?,
            false => b.broadcast_in_dim(limit, shape.dims(), &[index_vector_dim])?,
        };
        let zero = b.constant(&Literal::scalar(0i64).convert(ty)?)?;
        b.clamp(zero, indices, limit)
    }

    /// `scatter` of one operand whose combiner adds, multiplies, replaces
    /// or takes the maximum or minimum (`y` is its result).
    fn scatter_rule(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        g: XlaOp,
        wanted: &[bool],
        operands: &[XlaOp],
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        if operands.len() != 3 {
            return Err(no_rule(
                instr,
                "a scatter of several operands has no gradient rule",
            ));
        }
        let combiner = self.module.computation(instr.called[0]);
        let root = combiner.root_instr();
        let kind = match combiner.binary_of_parameters() {
            Some(Opcode::Add) => Combiner::Add,
            Some(Opcode::Multiply) => Combiner::Multiply,
            Some(Opcode::Maximum | Opcode::Minimum) => Combiner::Extremal,
            _ if root.opcode == Opcode::Parameter && root.attrs.parameter_number == Some(1) => {
                Combiner::Replace
            }
            _ => return Err(no_rule(
                instr,
                "only scatters that add, multiply, replace or take extrema have a gradient rule",
            )),
        };
        let dnums = instr.attrs.scatter_dims.clone().unwrap_or_default();
        let updates = self.operand_shape(instr, 2);
        let x = self.operand_shape(instr, 0);
        let mut window = dnums
            .update_window_dims
            .iter()
            .map(|&d| updates.dims()[d as usize]);
        let sizes: Vec<i64> = (0..x.rank() as i64)
            .map(|d| {
                let point = dnums.inserted_window_dims.contains(&d)
                    || dnums.input_batching_dims.contains(&d);
                if point {
                    1
                } else {
                    window.next().unwrap_or(1)
                }
            })
            .collect();
        let gather_dnums = GatherDimensionNumbers {
            offset_dims: dnums.update_window_dims.clone(),
            collapsed_slice_dims: dnums.inserted_window_dims.clone(),
            start_index_map: dnums.scatter_dims_to_operand_dims.clone(),
            index_vector_dim: dnums.index_vector_dim,
            operand_batching_dims: dnums.input_batching_dims.clone(),
            start_indices_batching_dims: dnums.scatter_indices_batching_dims.clone(),
        };
        let zeros_u = self.full(updates, 0.0)?;
        let kept_updates = self.in_bounds(instr, &dnums, &sizes)?;
        // The value each update met at its target (zero for an update the
        // scatter dropped, out of bounds).
        let at_targets = |v: XlaOp| -> Result<XlaOp> {
            let gathered = b.gather(
                v,
                operands[1],
                &gather_dnums,
                &sizes,
                instr.attrs.indices_are_sorted,
            )?;
            b.select(kept_updates, gathered, zeros_u)
        };
        let scatter_with = |into: XlaOp, with: XlaOp, combine: &XlaComputation| {
            b.scatter(
                &[into],
                operands[1],
                &[with],
                combine,
                &dnums,
                ScatterOptions::default(),
            )
        };
        let mut out = vec![None, None, None];
        match kind {
            // Adding passes the cotangent through; replacing zeroes the
            // replaced elements (a scatter of zeros); multiplying scales
            // each element by the updates that multiplied it (the same
            // scatter, applied to the cotangent), and an update's share is
            // the operand element it scaled (indices assumed unique, as JAX
            // assumes).
            Combiner::Add | Combiner::Replace | Combiner::Multiply => {
                let combine = self.computation(instr.called[0])?;
                if wanted[0] {
                    out[0] = Some(match kind {
                        Combiner::Add => g,
                        Combiner::Replace => scatter_with(g, zeros_u, &combine)?,
                        _ => scatter_with(g, operands[2], &combine)?,
                    });
                }
                if wanted[2] {
                    let source = match kind {
                        Combiner::Multiply => b.mul(g, operands[0], &[])?,
                        _ => g,
                    };
                    out[2] = Some(at_targets(source)?);
                }
            }
            // JAX's rule for scatter maximum and minimum: the cotangent of
            // each element of the result is shared evenly between the
            // operand element (if it kept its value) and the updates equal
            // to the result there.
            Combiner::Extremal => {
                let hit = b.and(b.eq(operands[2], at_targets(y)?, &[])?, kept_updates, &[])?;
                let ones_u = self.full(updates, 1.0)?;
                let count = scatter_with(
                    self.full(x, 0.0)?,
                    b.select(hit, ones_u, zeros_u)?,
                    &self.adder(x.element_type())?,
                )?;
                let kept = b.eq(operands[0], y, &[])?;
                let (ones, zeros) = (self.full(x, 1.0)?, self.full(x, 0.0)?);
                let sharers = b.add(count, b.select(kept, ones, zeros)?, &[])?;
                let none = b.eq(sharers, zeros, &[])?;
                let share =
                    b.select(none, zeros, b.div(g, b.select(none, ones, sharers)?, &[])?)?;
                out[0] = Some(b.select(kept, share, zeros)?);
                out[2] = Some(b.select(hit, at_targets(share)?, zeros_u)?);
            }
        }
        Ok(out)
    }
}

/// How a scatter combines an update with the operand element.
#[derive(Clone, Copy)]
enum Combiner {
    Add,
    Multiply,
    Replace,
    Extremal,
}

impl Tape<'_> {
    /// For each element of a scatter's updates, whether its window was in
    /// bounds (a scatter drops the others, so they get no cotangent).
    fn in_bounds(
        &self,
        instr: &HloInstruction,
        dnums: &ScatterDimensionNumbers,
        sizes: &[i64],
    ) -> Result<XlaOp> {
        let b = self.b;
        let x = self.operand_shape(instr, 0);
        let indices = self.operand_shape(instr, 1);
        let updates = self.operand_shape(instr, 2);
        let idx = self.operand(instr, 1)?;
        let ty = indices.element_type();
        let ivd = dnums.index_vector_dim;
        let limits: Vec<i64> = (dnums.scatter_dims_to_operand_dims.iter())
            .map(|&d| x.dims()[d as usize] - sizes[d as usize])
            .collect();
        let limit = b.constant(&Literal::vector(&limits).convert(ty)?)?;
        let zero = b.constant(&Literal::scalar(0i64).convert(ty)?)?;
        let (ok, batch) = if ivd as usize == indices.rank() {
            let limit = b.reshape(limit, &[])?;
            let lo = b.ge(idx, zero, &[])?;
            let hi = b.le(idx, limit, &[])?;
            (b.and(lo, hi, &[])?, indices.dims().to_vec())
        } else {
            let limit = b.broadcast_in_dim(limit, indices.dims(), &[ivd])?;
            let lo = b.ge(idx, zero, &[])?;
            let hi = b.le(idx, limit, &[])?;
            let both = b.and(lo, hi, &[])?;
            let yes = b.constant_r0(true)?;
            let and = crate::builder::create_scalar_computation(
                "and",
                crate::PrimitiveType::Pred,
                |c, p, q| c.and(p, q, &[]),
            )?;
            let mut batch = indices.dims().to_vec();
            batch.remove(ivd as usize);
            (b.reduce(&[both], &[yes], &and, &[ivd])?, batch)
        };
        let scatter_dims: Vec<i64> = (0..updates.rank() as i64)
            .filter(|d| !dnums.update_window_dims.contains(d))
            .collect();
        debug_assert_eq!(batch.len(), scatter_dims.len());
        b.broadcast_in_dim(ok, updates.dims(), &scatter_dims)
    }
}
