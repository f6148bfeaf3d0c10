//! Collectives: replica and partition ids, all-gather, all-reduce,
//! cross-replica sum, all-to-all, reduce-scatter, collective-permute.

use super::{create_scalar_computation, XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{Attrs, Opcode};
use crate::infer::{self, InferError, Signature};
use crate::{Result, Shape};

/// The attributes every collective carries.
fn collective_attrs(replica_groups: &[Vec<i64>], channel_id: Option<i64>) -> Attrs {
    Attrs {
        replica_groups: Some(replica_groups.to_vec()),
        channel_id,
        ..Attrs::default()
    }
}

/// When `replica_groups` is not empty, every group must have `count`
/// replicas.
fn groups_of(op: &'static str, replica_groups: &[Vec<i64>], count: i64) -> Result<(), InferError> {
    match infer::replica_group_size(op, replica_groups)? {
        Some(size) if size as i64 != count => Err(InferError::ReplicaGroupSize {
            op,
            group: 0,
            actual: size,
            expected: count.max(0) as usize,
        }),
        _ => Ok(()),
    }
}

impl XlaBuilder {
    /// `replica-id()`: this replica's id, `u32[]`.
    pub fn replica_id(&self) -> Result<XlaOp> {
        Ok(self.emit(
            Opcode::ReplicaId,
            infer::replica_id::<i64>(),
            &[],
            Attrs::default(),
            vec![],
        ))
    }

    /// `partition-id()`: this partition's id, `u32[]`.
    pub fn partition_id(&self) -> Result<XlaOp> {
        Ok(self.emit(
            Opcode::PartitionId,
            infer::partition_id::<i64>(),
            &[],
            Attrs::default(),
            vec![],
        ))
    }

    /// `AllGather(operand, all_gather_dimension, shard_count,
    /// replica_groups, channel_id)` (`docs/semantics.md`, *All-reduce and all-gather*).
    pub fn all_gather(
        &self,
        operand: XlaOp,
        all_gather_dimension: i64,
        shard_count: i64,
        replica_groups: &[Vec<i64>],
        channel_id: Option<i64>,
    ) -> Result<XlaOp> {
        let op = Opcode::AllGather.name();
        let s = self.shapes(op, &[operand])?;
        groups_of(op, replica_groups, shard_count)?;
        let shape = infer::all_gather(&[&s[0]], all_gather_dimension, shard_count)?;
        let attrs = Attrs {
            dimensions: Some(vec![all_gather_dimension]),
            ..collective_attrs(replica_groups, channel_id)
        };
        Ok(self.emit(Opcode::AllGather, shape, &[operand], attrs, vec![]))
    }

    /// `AllReduce(operand, computation, replica_groups, channel_id)`
    /// (`docs/semantics.md`, *All-reduce and all-gather*). A tuple operand is reduced element by
    /// element (one variadic all-reduce of its elements).
    pub fn all_reduce(
        &self,
        operand: XlaOp,
        computation: &XlaComputation,
        replica_groups: &[Vec<i64>],
        channel_id: Option<i64>,
    ) -> Result<XlaOp> {
        let op = Opcode::AllReduce.name();
        let operands = match &self.shapes(op, &[operand])?[0] {
            Shape::Tuple(elements) => (0..elements.len() as i64)
                .map(|i| self.get_tuple_element(operand, i))
                .collect::<Result<Vec<_>>>()?,
            _ => vec![operand],
        };
        let shapes = self.shapes(op, &operands)?;
        let refs: Vec<&Shape> = shapes.iter().collect();
        let program = computation.program_shape();
        let shape = infer::all_reduce(&refs, Signature::from(&program))?;
        let called = vec![self.embed(computation)];
        let attrs = collective_attrs(replica_groups, channel_id);
        Ok(self.emit(Opcode::AllReduce, shape, &operands, attrs, called))
    }

    /// `CrossReplicaSum(operand, replica_groups)`: an all-reduce with
    /// addition (of the first element's type for a tuple).
    pub fn cross_replica_sum(&self, operand: XlaOp, replica_groups: &[Vec<i64>]) -> Result<XlaOp> {
        let shape = self.get_shape(operand)?;
        let leaf = shape.array_leaves().first().map(|a| a.element_type());
        let Some(ty) = leaf else {
            return Err(InferError::OperandKind {
                op: "all-reduce",
                index: 0,
                expected: infer::Kind::ArrayOrTuple,
                shape: Box::new(shape.without_layouts()),
            }
            .into());
        };
        let add = create_scalar_computation("add", ty, |b, x, y| b.add(x, y, &[]))?;
        self.all_reduce(operand, &add, replica_groups, None)
    }

    /// `AllToAll(operand, split_dimension, concat_dimension, split_count,
    /// replica_groups)` (`docs/semantics.md`, *All-to-all*), lowered as XLA does: the HLO
    /// `all-to-all` exchanges blocks of `split_dimension` in place, then a
    /// reshape, a transpose and a reshape move the received blocks into
    /// `concat_dimension`.
    pub fn all_to_all(
        &self,
        operand: XlaOp,
        split_dimension: i64,
        concat_dimension: i64,
        split_count: i64,
        replica_groups: &[Vec<i64>],
    ) -> Result<XlaOp> {
        let op = Opcode::AllToAll.name();
        let x = self.array(op, operand, 0)?;
        let result = infer::all_to_all(&x, split_dimension, concat_dimension, split_count)?;
        groups_of(op, replica_groups, split_count)?;
        let attrs = Attrs {
            dimensions: Some(vec![split_dimension]),
            ..collective_attrs(replica_groups, None)
        };
        let exchanged = self.emit(Opcode::AllToAll, x.clone(), &[operand], attrs, vec![]);
        if split_dimension == concat_dimension {
            return Ok(exchanged);
        }
        let (split, concat) = (split_dimension as usize, concat_dimension as usize);
        let mut sizes = Vec::with_capacity(x.rank() + 1);
        for (i, &size) in x.dims().iter().enumerate() {
            if i == split {
                sizes.extend([split_count, size / split_count]);
            } else {
                sizes.push(size);
            }
        }
        let blocks = self.reshape(exchanged, &sizes)?;
        let mut permutation = Vec::with_capacity(x.rank() + 1);
        for i in 0..x.rank() {
            if i == concat {
                permutation.push(split as i64);
            }
            permutation.push(if i >= split { i as i64 + 1 } else { i as i64 });
        }
        let moved = self.transpose(blocks, &permutation)?;
        self.reshape(moved, result.dims())
    }

    /// `ReduceScatter(operand, computation, scatter_dimension, shard_count,
    /// replica_groups, channel_id)` (`docs/semantics.md`, *Reduce-scatter*).
    pub fn reduce_scatter(
        &self,
        operand: XlaOp,
        computation: &XlaComputation,
        scatter_dimension: i64,
        shard_count: i64,
        replica_groups: &[Vec<i64>],
        channel_id: Option<i64>,
    ) -> Result<XlaOp> {
        let op = Opcode::ReduceScatter.name();
        let s = self.shapes(op, &[operand])?;
        groups_of(op, replica_groups, shard_count)?;
        let program = computation.program_shape();
        let shape = infer::reduce_scatter(
            &[&s[0]],
            Signature::from(&program),
            scatter_dimension,
            shard_count,
        )?;
        let called = vec![self.embed(computation)];
        let attrs = Attrs {
            dimensions: Some(vec![scatter_dimension]),
            ..collective_attrs(replica_groups, channel_id)
        };
        Ok(self.emit(Opcode::ReduceScatter, shape, &[operand], attrs, called))
    }

    /// `CollectivePermute(operand, source_target_pairs)` (`docs/semantics.md`,
    /// *Collective-permute*).
    pub fn collective_permute(
        &self,
        operand: XlaOp,
        source_target_pairs: &[(i64, i64)],
    ) -> Result<XlaOp> {
        let s = self.shapes("collective-permute", &[operand])?;
        let shape = infer::collective_permute(&s[0], source_target_pairs)?;
        let attrs = Attrs {
            source_target_pairs: Some(source_target_pairs.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::CollectivePermute, shape, &[operand], attrs, vec![]))
    }
}
