//! `gather` as an elemental generator (`docs/semantics.md`, *Gather*): the value at
//! an output index reads the index vector its batch coordinates select,
//! clamps the slice start into the operand, and reads the operand at start
//! plus the offset coordinates.
//!
//! Example: operand `s32[3,3]`, `start_indices = [[0,1],[1,0],[2,2]]`,
//! `index_vector_dim = 1`, `offset_dims = {1,2}`, `start_index_map = {0,1}`,
//! `slice_sizes = [2,2]`. Output index `(2, o0, o1)` (batch 2, offsets
//! `o0, o1`) reads the index vector `(2,2)` at `start_indices[2, 0..2]`,
//! clamps it to `(1,1)` (a 2×2 slice must fit in 3×3) and reads
//! `operand[1 + o0, 1 + o1]`.
//!
//! Lanes vectorize along offset dimensions: when the batch coordinates are
//! the same in every lane, the start is computed once per vector and the
//! operand read keeps the output's lane strides (a vector load for a row
//! gather). Lanes that walk a batch dimension pick different index vectors
//! and are computed one at a time.

use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::hlo::InstrId;
use xla_core::Opcode;

use super::data_movement::{clamp_start, dims_of};
use super::elemental::Elemental;
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::Unsupported;

/// The value of `gather` instruction `id` at `idx`.
pub(super) fn gather(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let (Some(dn), Some(slice_sizes)) = (
        instr.attrs.gather_dims.as_ref(),
        instr.attrs.gather_slice_sizes.as_ref(),
    ) else {
        return Err(Unsupported::new(
            Opcode::Gather,
            format!("`{}` has no dimension numbers or slice_sizes", instr.name),
        ));
    };
    let (operand, indices) = (instr.operands[0], instr.operands[1]);
    let operand_dims = dims_of(el, operand);
    let indices_rank = dims_of(el, indices).len();
    let out_rank = idx.dims.len();
    let offset_dims: Vec<usize> = dn.offset_dims.iter().map(|&d| d as usize).collect();
    let batch_out: Vec<usize> = (0..out_rank).filter(|d| !offset_dims.contains(d)).collect();
    if idx.lanes > 1 && batch_out.iter().any(|&d| idx.dims[d].lane_stride != 0) {
        return el.gen_lanes(kb, id, idx);
    }
    let ivd = dn.index_vector_dim as usize;
    // Batch coordinate `b` indexes start-indices dimension `b` below
    // `index_vector_dim` and `b + 1` from it on.
    let batch_coordinate = |indices_dim: usize| {
        let b = if indices_dim < ivd {
            indices_dim
        } else {
            indices_dim - 1
        };
        idx.dims[batch_out[b]].lane(0)
    };
    let mut start: Vec<Option<Value>> = vec![None; operand_dims.len()];
    let index_type = el.ty(indices);
    for (k, &d) in dn.start_index_map.iter().enumerate() {
        let at: Vec<IndexDim> = (0..indices_rank)
            .map(|i| {
                if i == ivd {
                    IndexDim::constant(k as i64)
                } else {
                    batch_coordinate(i)
                }
            })
            .collect();
        let v = el.gen(kb, indices, &Index::new(1, at))?;
        let d = d as usize;
        let max = operand_dims[d] - slice_sizes[d];
        start[d] = Some(clamp_start(kb, index_type, v, max));
    }
    // A batching pair's batch coordinate is in range of the operand's
    // batch dimension (shape inference makes the sizes equal).
    for (&d, &i) in dn
        .operand_batching_dims
        .iter()
        .zip(&dn.start_indices_batching_dims)
    {
        start[d as usize] = Some(batch_coordinate(i as usize).value(kb));
    }
    let mut offsets = offset_dims.iter();
    let mut dims = Vec::with_capacity(operand_dims.len());
    for (d, s) in start.iter().enumerate() {
        let dropped = dn.collapsed_slice_dims.contains(&(d as i64))
            || dn.operand_batching_dims.contains(&(d as i64));
        let base = if dropped {
            IndexDim::constant(0)
        } else {
            let &o = offsets.next().ok_or_else(|| {
                Unsupported::new(
                    Opcode::Gather,
                    format!("`{}` has too few offset_dims", instr.name),
                )
            })?;
            idx.dims[o]
        };
        dims.push(match (s, base.var) {
            (None, _) => base,
            (Some(s), None) => IndexDim {
                var: Some(*s),
                aligned: false,
                ..base
            },
            (Some(s), Some(v)) => IndexDim {
                var: Some(kb.b.ins().iadd(v, *s)),
                aligned: false,
                ..base
            },
        });
    }
    el.gen(kb, operand, &Index::new(idx.lanes, dims))
}
