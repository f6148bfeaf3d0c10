//! Collectives across replicas and partitions.

use super::eval::unsupported;
use super::eval::Ctx;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::Literal;

/// The device an evaluation runs on.
#[derive(Clone, Debug)]
pub(super) struct Device {
    /// This replica's id.
    pub replica_id: u32,
    /// This partition's id.
    pub partition_id: u32,
}

impl Device {
    /// Replica 0, partition 0 of a single-device run.
    pub fn single() -> Self {
        Device {
            replica_id: 0,
            partition_id: 0,
        }
    }
}

/// `replica-id`.
pub(super) fn replica_id(ctx: &Ctx<'_>) -> Result<Literal, InterpError> {
    Ok(Literal::scalar(ctx.device.replica_id))
}

/// `partition-id`.
pub(super) fn partition_id(ctx: &Ctx<'_>) -> Result<Literal, InterpError> {
    Ok(Literal::scalar(ctx.device.partition_id))
}

/// `all-gather`.
pub(super) fn all_gather(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "all-gather"))
}

/// `all-reduce`.
pub(super) fn all_reduce(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "all-reduce"))
}

/// `all-to-all`.
pub(super) fn all_to_all(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "all-to-all"))
}

/// `collective-permute`.
pub(super) fn collective_permute(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "collective-permute"))
}

/// `reduce-scatter`.
pub(super) fn reduce_scatter(
    _ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Err(unsupported(instr, "reduce-scatter"))
}
