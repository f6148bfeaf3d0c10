//! Collectives across replicas and partitions (`docs/semantics.md`, *Collectives*).
//!
//! Every device of a run evaluates the same module on its own thread. At a
//! collective, the devices of one group meet at the [`Hub`] keyed by the
//! instruction and how often each device ran it; each contributes its
//! operands (row-major) and computes its own result from everyone's
//! contributions, in group order, so all devices agree bit for bit.
//!
//! Which devices form a group follows XLA's `CollectiveOpGroupMode`, decided
//! by `channel_id` and `use_global_device_ids` (the latter only exists on
//! all-reduce, reduce-scatter and all-gather):
//!
//! | channel_id | use_global_device_ids | ids in `replica_groups` | a group is |
//! |---|---|---|---|
//! | none | false | replica ids | those replicas of this partition |
//! | set | (all-to-all, collective-permute) | partition ids | those partitions of this replica |
//! | set | false | replica ids | those replicas × every partition, replica-major |
//! | set | true | flattened ids `r·P + p` | those devices |
//!
//! Empty `replica_groups` mean one group of every replica (every partition
//! in the cross-partition mode); flattened ids need explicit groups.
//! `source_target_pairs` of collective-permute hold replica ids without a
//! channel and partition ids with one.

use std::collections::HashMap;
use std::sync::Arc;

use super::devices::DeviceAssignment;
use super::elementwise::table::Scalar;
use super::eval::{invalid, row_major, Ctx};
use super::rendezvous::{Contribution, Hub, MeetingKey};
use super::scalar::{literal_of, Elements, ScalarFn};
use super::InterpError;
use crate::hlo::{HloInstruction, Opcode};
use crate::literal::{AlignedBytes, Storage};
use crate::{ArrayShape, Literal, PrimitiveType};

/// The device an evaluation runs on.
pub(super) struct Device {
    /// The flattened id `replica · num_partitions + partition`.
    index: usize,
    /// This replica's id.
    pub replica_id: u32,
    /// This partition's id.
    pub partition_id: u32,
    hub: Arc<Hub<Contribution>>,
    /// How many times this device executed each collective, by name.
    occurrences: HashMap<String, u64>,
}

impl Device {
    /// Device `index` of the run `hub` connects.
    pub fn new(index: usize, hub: Arc<Hub<Contribution>>) -> Self {
        let assignment = hub.assignment();
        Device {
            index,
            replica_id: assignment.replica(index) as u32,
            partition_id: assignment.partition(index) as u32,
            hub,
            occurrences: HashMap::new(),
        }
    }

    /// The flattened id.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The run's meeting place.
    pub fn hub(&self) -> &Hub<Contribution> {
        &self.hub
    }

    /// Meets the other `participants` at `instr`, contributing `operands`;
    /// returns everyone's contributions in group order.
    fn meet(
        &mut self,
        instr: &HloInstruction,
        participants: Vec<usize>,
        operands: &[&Literal],
    ) -> Result<Vec<Contribution>, InterpError> {
        let count = self.occurrences.entry(instr.name.clone()).or_insert(0);
        let key = MeetingKey {
            instruction: instr.name.clone(),
            occurrence: *count,
            participants,
        };
        *count += 1;
        let contribution = operands
            .iter()
            .map(|&l| Ok(row_major(l)?.into_owned()))
            .collect::<Result<Vec<Literal>, InterpError>>()?;
        self.hub
            .meet(self.index, key, Arc::new(contribution), instr.opcode)
    }
}

/// How a collective's `replica_groups` name devices (XLA's
/// `CollectiveOpGroupMode`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum GroupMode {
    CrossReplica,
    CrossPartition,
    CrossReplicaAndPartition,
    FlattenedId,
}

fn group_mode(instr: &HloInstruction) -> Result<GroupMode, InterpError> {
    let has_global_ids_attribute = matches!(
        instr.opcode,
        Opcode::AllReduce | Opcode::ReduceScatter | Opcode::AllGather
    );
    let global = instr.attrs.use_global_device_ids;
    Ok(match (instr.attrs.channel_id.is_some(), global) {
        (false, false) => GroupMode::CrossReplica,
        (false, true) => {
            return Err(invalid(
                instr,
                "use_global_device_ids=true needs a channel_id",
            ))
        }
        (true, _) if !has_global_ids_attribute => GroupMode::CrossPartition,
        (true, false) => GroupMode::CrossReplicaAndPartition,
        (true, true) => GroupMode::FlattenedId,
    })
}

/// The devices of this device's group, in group order.
fn participants(ctx: &Ctx<'_>, instr: &HloInstruction) -> Result<Vec<usize>, InterpError> {
    group_of(instr, ctx.device.hub().assignment(), ctx.device.index())
}

/// The devices of device `d`'s group at collective `instr` (all-reduce,
/// all-gather, reduce-scatter, all-to-all), in group order, by the rules
/// of the table above.
pub fn group_of(
    instr: &HloInstruction,
    a: DeviceAssignment,
    d: usize,
) -> Result<Vec<usize>, InterpError> {
    let mode = group_mode(instr)?;
    let (replica, partition) = (a.replica(d), a.partition(d));
    let (my_id, id_count, what) = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => {
            (replica, a.num_replicas, "replica")
        }
        GroupMode::CrossPartition => (partition, a.num_partitions, "partition"),
        GroupMode::FlattenedId => (d, a.device_count(), "device"),
    };
    let groups = instr.attrs.replica_groups.as_deref().unwrap_or_default();
    let ids: Vec<usize> = if groups.is_empty() {
        if mode == GroupMode::FlattenedId {
            return Err(invalid(
                instr,
                "use_global_device_ids=true needs explicit replica_groups",
            ));
        }
        (0..id_count).collect()
    } else {
        let mut mine = None;
        for group in groups {
            for &id in group {
                if !(0..id_count as i64).contains(&id) {
                    return Err(invalid(
                        instr,
                        format!(
                            "replica_groups name {what} {id}, but the run has {id_count} {what}s"
                        ),
                    ));
                }
            }
            if group.contains(&(my_id as i64)) {
                if mine.is_some() {
                    return Err(invalid(
                        instr,
                        format!("{what} {my_id} is in two replica groups"),
                    ));
                }
                mine = Some(group);
            }
        }
        let group =
            mine.ok_or_else(|| invalid(instr, format!("{what} {my_id} is in no replica group")))?;
        group.iter().map(|&id| id as usize).collect()
    };
    Ok(match mode {
        GroupMode::CrossReplica => ids.iter().map(|&r| a.device(r, partition)).collect(),
        GroupMode::CrossPartition => ids.iter().map(|&p| a.device(replica, p)).collect(),
        GroupMode::CrossReplicaAndPartition => ids
            .iter()
            .flat_map(|&r| (0..a.num_partitions).map(move |p| a.device(r, p)))
            .collect(),
        GroupMode::FlattenedId => ids,
    })
}

/// The position of this device in `participants`.
fn position(ctx: &Ctx<'_>, participants: &[usize]) -> usize {
    let d = ctx.device.index();
    participants
        .iter()
        .position(|&p| p == d)
        .expect("a device's group contains it")
}

/// `replica-id`.
pub(super) fn replica_id(ctx: &Ctx<'_>) -> Result<Literal, InterpError> {
    Ok(Literal::scalar(ctx.device.replica_id))
}

/// `partition-id`.
pub(super) fn partition_id(ctx: &Ctx<'_>) -> Result<Literal, InterpError> {
    Ok(Literal::scalar(ctx.device.partition_id))
}

/// `all-reduce`: every operand reduced element-wise over the group, in group
/// order: `f(…f(f(x₀, x₁), x₂)…, xₙ₋₁)`.
pub(super) fn all_reduce(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let group = participants(ctx, instr)?;
    let all = ctx.device.meet(instr, group, operands)?;
    let reduced = reduce_all(ctx, instr, &all)?;
    Ok(collate(instr, reduced))
}

/// `reduce-scatter`: an all-reduce, after which the device at position `i`
/// of its group keeps block `i` of `dimensions={d}`.
pub(super) fn reduce_scatter(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let dim = single_dimension(instr)?;
    let group = participants(ctx, instr)?;
    let me = position(ctx, &group);
    let count = group.len();
    let all = ctx.device.meet(instr, group, operands)?;
    let reduced = reduce_all(ctx, instr, &all)?;
    let blocks = reduced
        .iter()
        .map(|full| block(instr, full, dim, count, me))
        .collect::<Result<_, _>>()?;
    Ok(collate(instr, blocks))
}

/// `all-gather`: every operand concatenated over the group along
/// `dimensions={d}`, in group order.
pub(super) fn all_gather(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let dim = single_dimension(instr)?;
    let group = participants(ctx, instr)?;
    let all = ctx.device.meet(instr, group, operands)?;
    let gathered = (0..operands.len())
        .map(|i| {
            let parts: Vec<&Literal> = all.iter().map(|c| &c[i]).collect();
            concatenate(instr, &parts, dim)
        })
        .collect::<Result<_, _>>()?;
    Ok(collate(instr, gathered))
}

/// `all-to-all`. Array form (`dimensions={d}`): the operand is split into
/// one block per group member along `d`; block `i` goes to member `i`, and
/// each member concatenates what it receives along `d` in sender order.
/// Tuple form: operand `i` goes to member `i`; result element `j` is what
/// member `j` sent.
pub(super) fn all_to_all(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let group = participants(ctx, instr)?;
    let me = position(ctx, &group);
    let count = group.len();
    let split = instr.attrs.dimensions.as_deref();
    if split.is_none() && operands.len() != count {
        return Err(invalid(
            instr,
            format!(
                "the tuple form has {} operands, but the group has {count} devices",
                operands.len()
            ),
        ));
    }
    let all = ctx.device.meet(instr, group, operands)?;
    match split {
        Some(_) => {
            let dim = single_dimension(instr)?;
            let received = all
                .iter()
                .map(|c| block(instr, &c[0], dim, count, me))
                .collect::<Result<Vec<_>, _>>()?;
            concatenate(instr, &received.iter().collect::<Vec<_>>(), dim)
        }
        None => Ok(Literal::tuple(all.iter().map(|c| c[me].clone()).collect())),
    }
}

/// `collective-permute`: the operand of each pair's source goes to its
/// target; a device that is no pair's target gets zeros.
pub(super) fn collective_permute(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let (group, me) = permute_group(instr, ctx.device.hub().assignment(), ctx.device.index())?;
    let pairs = instr
        .attrs
        .source_target_pairs
        .as_deref()
        .unwrap_or_default();
    let all = ctx.device.meet(instr, group, &operands[..1])?;
    match pairs.iter().find(|&&(_, target)| target == me as i64) {
        Some(&(source, _)) => Ok(all[source as usize][0].clone()),
        None => Ok(Literal::zeros(
            &operands[0].shape().clone().without_layouts(),
        )?),
    }
}

/// The devices that take part with device `d` in collective-permute
/// `instr` (every replica of its partition, or every partition of its
/// replica), in id order, and `d`'s position among them; the
/// `source_target_pairs` are checked to name positions of the group.
pub fn permute_group(
    instr: &HloInstruction,
    a: DeviceAssignment,
    d: usize,
) -> Result<(Vec<usize>, usize), InterpError> {
    // Pairs hold replica ids (no channel) or partition ids (a channel); the
    // devices that share this device's other coordinate take part.
    let (group, me): (Vec<usize>, usize) = match group_mode(instr)? {
        GroupMode::CrossReplica => (
            (0..a.num_replicas)
                .map(|r| a.device(r, a.partition(d)))
                .collect(),
            a.replica(d),
        ),
        _ => (
            (0..a.num_partitions)
                .map(|p| a.device(a.replica(d), p))
                .collect(),
            a.partition(d),
        ),
    };
    let pairs = instr
        .attrs
        .source_target_pairs
        .as_deref()
        .unwrap_or_default();
    for &(source, target) in pairs {
        for id in [source, target] {
            if !(0..group.len() as i64).contains(&id) {
                return Err(invalid(
                    instr,
                    format!(
                        "source_target_pairs name {id}, but {} devices take part",
                        group.len()
                    ),
                ));
            }
        }
    }
    Ok((group, me))
}

/// `dimensions={d}` of all-gather, reduce-scatter and the array all-to-all.
fn single_dimension(instr: &HloInstruction) -> Result<usize, InterpError> {
    match instr.attrs.dimensions.as_deref() {
        Some(&[d]) if d >= 0 => Ok(d as usize),
        _ => Err(invalid(instr, "needs dimensions={d} with one dimension")),
    }
}

/// The result: one array, or the tuple of one per operand when the
/// instruction's shape is a tuple.
fn collate(instr: &HloInstruction, mut values: Vec<Literal>) -> Literal {
    if instr.shape.is_tuple() {
        Literal::tuple(values)
    } else {
        values.swap_remove(0)
    }
}

/// Reduces operand `i` of every contribution with `to_apply`, for each `i`:
/// `acc[e] = to_apply(acc[e], x[e])` over the contributions in group order.
fn reduce_all(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    all: &[Contribution],
) -> Result<Vec<Literal>, InterpError> {
    let to_apply = *instr
        .called
        .first()
        .ok_or_else(|| invalid(instr, "no to_apply computation"))?;
    let mut f = ScalarFn::new(ctx.module, to_apply, instr);
    (0..all[0].len())
        .map(|i| {
            let first = &all[0][i];
            let shape = first.array_shape()?.clone();
            let values = Elements::of(first)?;
            let mut acc: Vec<Scalar> = (0..shape.element_count() as usize)
                .map(|e| values.get(e))
                .collect();
            for contribution in &all[1..] {
                let x = &contribution[i];
                if !x.shape().eq_ignoring_layout(first.shape()) {
                    return Err(invalid(
                        instr,
                        format!(
                            "devices contributed operands of shapes {} and {}",
                            first.shape(),
                            x.shape()
                        ),
                    ));
                }
                let x = Elements::of(x)?;
                for (e, a) in acc.iter_mut().enumerate() {
                    let args = [*a, x.get(e)];
                    f.call(ctx, &args, std::slice::from_mut(a))?;
                }
            }
            literal_of(&shape, &acc, instr)
        })
        .collect()
}

/// A row-major array literal over `bytes`.
fn array_from(
    ty: PrimitiveType,
    dims: Vec<i64>,
    bytes: AlignedBytes,
) -> Result<Literal, InterpError> {
    let shape = ArrayShape::new(ty, dims).with_default_layout();
    Ok(Literal::from_storage(shape, Storage::Owned(bytes))?)
}

/// `(rows, row bytes)` of a row-major array cut at dimension `dim`: the
/// array is `rows` runs of `dims[dim] · row bytes` bytes. `f32[2,3,4]` cut
/// at 1 is 2 runs of 3 rows of 16 bytes.
fn cut(
    instr: &HloInstruction,
    l: &Literal,
    dim: usize,
) -> Result<(ArrayShape, usize, usize), InterpError> {
    let shape = l.array_shape()?.clone();
    if dim >= shape.rank() {
        return Err(invalid(
            instr,
            format!("dimension {dim} is out of range for {}", l.shape()),
        ));
    }
    let dims = shape.dims();
    let outer: i64 = dims[..dim].iter().product();
    let inner: i64 = dims[dim + 1..].iter().product();
    Ok((
        shape.clone(),
        outer as usize,
        inner as usize * shape.element_type().byte_size(),
    ))
}

/// Row-major arrays of one element type joined along `dim`.
fn concatenate(
    instr: &HloInstruction,
    parts: &[&Literal],
    dim: usize,
) -> Result<Literal, InterpError> {
    let (shape, outer, row) = cut(instr, parts[0], dim)?;
    let mut dims = shape.dims().to_vec();
    dims[dim] = 0;
    let mut sizes = Vec::with_capacity(parts.len());
    for part in parts {
        let (s, _, _) = cut(instr, part, dim)?;
        dims[dim] += s.dims()[dim];
        sizes.push(s.dims()[dim] as usize * row);
    }
    let total: usize = sizes.iter().sum::<usize>() * outer;
    let mut out = AlignedBytes::zeroed(total);
    let mut at = 0;
    for o in 0..outer {
        for (part, &size) in parts.iter().zip(&sizes) {
            let src = &part.bytes()?[o * size..(o + 1) * size];
            out.as_mut_slice()[at..at + size].copy_from_slice(src);
            at += size;
        }
    }
    array_from(shape.element_type(), dims, out)
}

/// Block `index` of `count` equal blocks of a row-major array along `dim`.
fn block(
    instr: &HloInstruction,
    l: &Literal,
    dim: usize,
    count: usize,
    index: usize,
) -> Result<Literal, InterpError> {
    let (shape, outer, row) = cut(instr, l, dim)?;
    let size = shape.dims()[dim] as usize;
    if !size.is_multiple_of(count) {
        return Err(invalid(
            instr,
            format!(
                "dimension {dim} of {} does not split into {count} blocks",
                l.shape()
            ),
        ));
    }
    let block_rows = size / count;
    let mut dims = shape.dims().to_vec();
    dims[dim] = block_rows as i64;
    let run = block_rows * row;
    let mut out = AlignedBytes::zeroed(outer * run);
    let bytes = l.bytes()?;
    for o in 0..outer {
        let src = o * size * row + index * run;
        out.as_mut_slice()[o * run..(o + 1) * run].copy_from_slice(&bytes[src..src + run]);
    }
    array_from(shape.element_type(), dims, out)
}
