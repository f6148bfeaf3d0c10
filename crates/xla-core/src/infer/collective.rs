//! Collectives (`docs/semantics.md`, *Collectives*): all-reduce, all-gather,
//! reduce-scatter, all-to-all, collective-permute, replica-id and
//! partition-id.

use super::check::{self, bare, bare_array};
use super::error::InferError;
use super::parts::{Attr, Callee, Count};
use super::reduce::reducer;
use super::Signature;
use crate::hlo::Opcode;
use crate::{ArrayShape, Dim, PrimitiveType, Shape};

/// The array operands of a variadic collective: at least one.
fn arrays<'a, D: Dim>(
    op: &'static str,
    operands: &[&'a Shape<D>],
) -> Result<Vec<&'a ArrayShape<D>>, InferError<D>> {
    check::operand_count(op, operands.len(), Count::AtLeast(1))?;
    operands
        .iter()
        .enumerate()
        .map(|(i, s)| check::array(op, i, s))
        .collect()
}

/// A group size or count attribute must be at least 1.
fn positive<D: Dim>(
    op: &'static str,
    attribute: &'static str,
    value: i64,
) -> Result<(), InferError<D>> {
    if value >= 1 {
        Ok(())
    } else {
        Err(InferError::InvalidAttribute {
            op,
            attribute,
            value: value.to_string(),
            requirement: "it must be at least 1",
        })
    }
}

/// `replica_groups`: empty (one group of every replica) or groups of equal
/// size. Returns the group size, if the groups give one.
pub fn replica_group_size<D: Dim>(
    op: &'static str,
    replica_groups: &[Vec<i64>],
) -> Result<Option<usize>, InferError<D>> {
    let Some(first) = replica_groups.first() else {
        return Ok(None);
    };
    for (group, members) in replica_groups.iter().enumerate() {
        if members.len() != first.len() {
            return Err(InferError::ReplicaGroupSize {
                op,
                group,
                actual: members.len(),
                expected: first.len(),
            });
        }
    }
    Ok(Some(first.len()))
}

/// `all-reduce(operands…), to_apply=…` (`docs/semantics.md`, *All-reduce and all-gather*): arrays
/// of one element type `T` and a reduction `(T, T) → T`; the result is `Collate` of
/// the operand shapes.
pub fn all_reduce<D: Dim>(
    operands: &[&Shape<D>],
    to_apply: Signature<'_, D>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::AllReduce.name();
    let arrays = arrays(op, operands)?;
    for (i, a) in arrays.iter().enumerate().skip(1) {
        check::same_element_type(op, i, a, 0, arrays[0])?;
    }
    reducer(op, Callee::ToApply, to_apply, &[arrays[0].element_type()])?;
    Ok(check::collate(
        operands.iter().map(|s| check::plain(s)).collect(),
    ))
}

/// `all-gather(operands…), dimensions={d}`: each operand's dimension `d`
/// grows `shard_count` times (`docs/semantics.md`, *All-reduce and all-gather*).
pub fn all_gather<D: Dim>(
    operands: &[&Shape<D>],
    all_gather_dimension: i64,
    shard_count: i64,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::AllGather.name();
    positive(op, "shard_count", shard_count)?;
    let mut out = Vec::new();
    for a in arrays(op, operands)? {
        let attr = Attr::entry("dimensions", 0);
        let d = check::in_range(op, attr, all_gather_dimension, a.rank())?;
        let mut dims = a.dims().to_vec();
        dims[d] = dims[d].mul(&D::constant(shard_count));
        out.push(check::with_dynamic(a.element_type(), dims, &check::dynamic_flags(a)).into());
    }
    Ok(check::collate(out))
}

/// `reduce-scatter(operands…), dimensions={d}, to_apply=…` (`docs/semantics.md`,
/// *Reduce-scatter*): an all-reduce whose result is split `shard_count` ways along
/// `d`, which must divide evenly.
pub fn reduce_scatter<D: Dim>(
    operands: &[&Shape<D>],
    to_apply: Signature<'_, D>,
    scatter_dimension: i64,
    shard_count: i64,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::ReduceScatter.name();
    positive(op, "shard_count", shard_count)?;
    let arrays = arrays(op, operands)?;
    let mut out = Vec::new();
    for (i, a) in arrays.iter().enumerate() {
        check::same_element_type(op, i, a, 0, arrays[0])?;
        let attr = Attr::entry("dimensions", 0);
        let d = check::in_range(op, attr, scatter_dimension, a.rank())?;
        let mut dims = a.dims().to_vec();
        dims[d] = check::divide(op, (i, a, d), "shard_count", &D::constant(shard_count), d)?;
        out.push(ArrayShape::new(a.element_type(), dims).into());
    }
    reducer(op, Callee::ToApply, to_apply, &[arrays[0].element_type()])?;
    Ok(check::collate(out))
}

/// `AllToAll(operand, split_dimension, concat_dimension, split_count)`, the
/// client op (`docs/semantics.md`, *All-to-all*): dimension `split_dimension` is divided
/// by `split_count` (evenly), then `concat_dimension` multiplied by it.
/// `f32[4,16]` split on 1 and concatenated on 0 four ways is `f32[16,4]`.
pub fn all_to_all<D: Dim>(
    operand: &ArrayShape<D>,
    split_dimension: i64,
    concat_dimension: i64,
    split_count: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::AllToAll.name();
    positive(op, "split_count", split_count)?;
    let rank = operand.rank();
    let split = check::in_range(op, Attr::scalar("split_dimension"), split_dimension, rank)?;
    let concat = check::in_range(op, Attr::scalar("concat_dimension"), concat_dimension, rank)?;
    let count = D::constant(split_count);
    let mut dims = operand.dims().to_vec();
    dims[split] = check::divide(op, (0, operand, split), "split_count", &count, split)?;
    dims[concat] = dims[concat].mul(&count);
    Ok(ArrayShape::new(operand.element_type(), dims))
}

/// The HLO `all-to-all` instruction. With `dimensions={d}` (the array form
/// the builder emits) it takes one array whose dimension `d` divides by the
/// group size when that is known, and keeps its shape; without (the tuple
/// form) it takes N ≥ 1 operands of one shape and returns their tuple.
pub fn all_to_all_instruction<D: Dim>(
    operands: &[&Shape<D>],
    split_dimension: Option<i64>,
    split_count: Option<usize>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::AllToAll.name();
    let arrays = arrays(op, operands)?;
    let Some(split_dimension) = split_dimension else {
        for (i, a) in arrays.iter().enumerate().skip(1) {
            if !check::may_equal(operands[i], operands[0]) {
                return Err(InferError::ShapeMismatch {
                    op,
                    index: i,
                    shape: bare_array(a),
                    other_index: 0,
                    other: bare(operands[0]),
                    what: "shape",
                });
            }
        }
        return Ok(Shape::Tuple(
            operands.iter().map(|s| check::plain(s)).collect(),
        ));
    };
    check::operand_count(op, operands.len(), Count::Exactly(1))?;
    let a = arrays[0];
    let attr = Attr::entry("dimensions", 0);
    let split = check::in_range(op, attr, split_dimension, a.rank())?;
    if let Some(count) = split_count {
        let count = D::constant(count as i64);
        check::divide(op, (0, a, split), "the replica group size", &count, split)?;
    }
    Ok(Shape::Array(a.clone().without_layout()))
}

/// `collective-permute(operand), source_target_pairs=…` (`docs/semantics.md`,
/// *Collective-permute*): no two pairs share a source, none share a target; the result is
/// the operand's shape.
pub fn collective_permute<D: Dim>(
    operand: &Shape<D>,
    source_target_pairs: &[(i64, i64)],
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::CollectivePermute.name();
    check::array(op, 0, operand)?;
    for (i, &(source, target)) in source_target_pairs.iter().enumerate() {
        let earlier = &source_target_pairs[..i];
        for (role, id, taken) in [
            ("source", source, earlier.iter().any(|p| p.0 == source)),
            ("target", target, earlier.iter().any(|p| p.1 == target)),
        ] {
            if taken {
                return Err(InferError::DuplicatePermutePeer { op, role, id });
            }
        }
    }
    Ok(check::plain(operand))
}

/// `replica-id()`: `u32[]`.
pub fn replica_id<D: Dim>() -> ArrayShape<D> {
    ArrayShape::new(PrimitiveType::U32, Vec::new())
}

/// `partition-id()`: `u32[]`.
pub fn partition_id<D: Dim>() -> ArrayShape<D> {
    ArrayShape::new(PrimitiveType::U32, Vec::new())
}
