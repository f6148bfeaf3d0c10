//! Collective steps: a collective instruction over the buffers of its
//! operands and results, run through the run's
//! [`Communicator`](crate::collectives::Communicator).

use xla_core::hlo::{Family, HloInstruction, Opcode};
use xla_core::interp::{group_of, permute_group};
use xla_core::ArrayShape;

use super::buffers::BufferId;
use super::run::Pointers;
use crate::collectives::{bytes, bytes_mut, Blocks, CollectiveCall, Communicator, Reduction};
use crate::JitError;

/// What a collective step computes.
pub(crate) enum Collective {
    /// One reduction per operand.
    AllReduce(Vec<Reduction>),
    /// Concatenation along `dimension` in group order.
    AllGather {
        dimension: usize,
    },
    ReduceScatter {
        reductions: Vec<Reduction>,
        dimension: usize,
    },
    /// The array form (`dimensions={d}`: split and concatenated along `d`)
    /// or, without a dimension, the tuple form (operand `i` to member `i`).
    AllToAll {
        dimension: Option<usize>,
    },
    Permute,
    ReplicaId,
    PartitionId,
}

/// A collective instruction with the buffers of its operand and result
/// leaves, all in the default layout.
pub(crate) struct CollectiveThunk {
    /// The instruction (its name, groups and pairs are read at run time,
    /// when the device is known).
    pub instr: HloInstruction,
    pub collective: Collective,
    /// The operands' shapes.
    pub shapes: Vec<ArrayShape>,
    pub inputs: Vec<BufferId>,
    pub outputs: Vec<BufferId>,
    /// This step's index among the program's collective steps, which
    /// count their occurrences per device.
    pub step: usize,
}

/// The device a program runs as, and how it reaches the others.
pub(crate) struct DeviceContext<'a> {
    pub device: usize,
    pub communicator: &'a dyn Communicator,
    /// Calls made so far at each collective step.
    pub occurrences: Vec<std::sync::atomic::AtomicU64>,
}

impl CollectiveThunk {
    /// What `instr` computes on operands of `shapes`, if a step runs it:
    /// reductions whose `to_apply` is the binary op `reducer` of the
    /// semantics table, one dimension where the op cuts its operands.
    pub fn plan(
        instr: &HloInstruction,
        shapes: &[ArrayShape],
        reducer: Option<Opcode>,
    ) -> Option<Collective> {
        let dimension = || match instr.attrs.dimensions.as_deref() {
            Some(&[d]) if d >= 0 => Some(d as usize),
            _ => None,
        };
        let reduction = || -> Option<Vec<Reduction>> {
            let op = reducer?;
            shapes
                .iter()
                .map(|s| Reduction::new(op, s.element_type()))
                .collect()
        };
        Some(match instr.opcode {
            Opcode::AllReduce => Collective::AllReduce(reduction()?),
            Opcode::AllGather => Collective::AllGather {
                dimension: dimension()?,
            },
            Opcode::ReduceScatter => Collective::ReduceScatter {
                reductions: reduction()?,
                dimension: dimension()?,
            },
            Opcode::AllToAll => Collective::AllToAll {
                dimension: match instr.attrs.dimensions {
                    Some(_) => Some(dimension()?),
                    None => None,
                },
            },
            Opcode::CollectivePermute => Collective::Permute,
            Opcode::ReplicaId => Collective::ReplicaId,
            Opcode::PartitionId => Collective::PartitionId,
            _ => return None,
        })
    }

    pub fn remap_buffers(&mut self, map: &impl Fn(BufferId) -> BufferId) {
        self.inputs.iter_mut().for_each(|b| *b = map(*b));
        self.outputs.iter_mut().for_each(|b| *b = map(*b));
    }

    /// Runs the step as `device`.
    pub fn run(&self, pointers: &Pointers, device: &DeviceContext<'_>) -> Result<(), JitError> {
        let assignment = device.communicator.assignment();
        let d = device.device;
        let input = |k: usize| -> Result<&[u8], JitError> {
            let size = self.shapes[k].byte_size()? as usize;
            // SAFETY: lowering gave the step live buffers of its operands'
            // shapes, which no other step writes meanwhile.
            Ok(unsafe { bytes(pointers.get(self.inputs[k]), size) })
        };
        let output = |k: usize, size: usize| -> &mut [u8] {
            // SAFETY: as above, for a result buffer of `size` bytes that
            // only this step accesses now.
            unsafe { bytes_mut(pointers.get(self.outputs[k]), size) }
        };
        let ids = |value: u32| {
            output(0, 4).copy_from_slice(&value.to_ne_bytes());
            Ok(())
        };
        match &self.collective {
            Collective::ReplicaId => return ids(assignment.replica(d) as u32),
            Collective::PartitionId => return ids(assignment.partition(d) as u32),
            _ => {}
        }
        let (group, position) = match self.collective {
            Collective::Permute => permute_group(&self.instr, assignment, d)?,
            _ => {
                let group = group_of(&self.instr, assignment, d)?;
                let position = group.iter().position(|&m| m == d).ok_or_else(|| {
                    invalid(&self.instr, format!("device {d} is not in its own group"))
                })?;
                (group, position)
            }
        };
        let count = group.len();
        let counter = &device.occurrences[self.step];
        let mut call = CollectiveCall {
            name: &self.instr.name,
            opcode: self.instr.opcode,
            device: d,
            group: &group,
            position,
            occurrence: 0,
        };
        let mut next = || {
            call.occurrence = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            call
        };
        let comm = device.communicator;
        match &self.collective {
            Collective::AllReduce(reductions) => {
                for (k, reduction) in reductions.iter().enumerate() {
                    let input = input(k)?;
                    comm.all_reduce(&next(), reduction, input, output(k, input.len()))?;
                }
            }
            Collective::AllGather { dimension } => {
                for k in 0..self.inputs.len() {
                    let blocks = self.blocks(k, *dimension, 1)?;
                    let input = input(k)?;
                    let out = output(k, input.len() * count);
                    comm.all_gather(&next(), blocks, input, out)?;
                }
            }
            Collective::ReduceScatter {
                reductions,
                dimension,
            } => {
                for (k, reduction) in reductions.iter().enumerate() {
                    let blocks = self.blocks(k, *dimension, count)?;
                    let input = input(k)?;
                    let out = output(k, input.len() / count);
                    comm.reduce_scatter(&next(), reduction, blocks, input, out)?;
                }
            }
            Collective::AllToAll {
                dimension: Some(dimension),
            } => {
                let blocks = self.blocks(0, *dimension, count)?;
                let input = input(0)?;
                comm.all_to_all(&next(), blocks, input, output(0, input.len()))?;
            }
            Collective::AllToAll { dimension: None } => {
                if self.inputs.len() != count {
                    return Err(invalid(
                        &self.instr,
                        format!(
                            "the tuple form has {} operands, but the group has {count} devices",
                            self.inputs.len()
                        ),
                    ));
                }
                // Operand `j` for member `j`: one buffer of `count` blocks.
                let run = input(0)?.len();
                let mut send = Vec::with_capacity(run * count);
                for k in 0..count {
                    let part = input(k)?;
                    if part.len() != run {
                        return Err(invalid(&self.instr, "operands of different sizes"));
                    }
                    send.extend_from_slice(part);
                }
                let mut received = vec![0u8; run * count];
                let blocks = Blocks { outer: 1, run };
                comm.all_to_all(&next(), blocks, &send, &mut received)?;
                for (k, part) in received.chunks_exact(run.max(1)).enumerate() {
                    output(k, run).copy_from_slice(part);
                }
            }
            Collective::Permute => {
                let pairs = self
                    .instr
                    .attrs
                    .source_target_pairs
                    .as_deref()
                    .unwrap_or_default();
                let pairs: Vec<(usize, usize)> = (pairs.iter())
                    .map(|&(s, t)| (s as usize, t as usize))
                    .collect();
                let input = input(0)?;
                let out = output(0, input.len());
                comm.permute(&next(), &pairs, input, out)?;
            }
            Collective::ReplicaId | Collective::PartitionId => {}
        }
        Ok(())
    }

    /// Operand `k` cut at `dimension` into `count` blocks.
    fn blocks(&self, k: usize, dimension: usize, count: usize) -> Result<Blocks, JitError> {
        let shape = &self.shapes[k];
        let dims = shape.dims();
        if dimension >= dims.len() {
            return Err(invalid(
                &self.instr,
                format!("dimension {dimension} is out of range for {shape}"),
            ));
        }
        let size = dims[dimension] as usize;
        if !size.is_multiple_of(count) {
            return Err(invalid(
                &self.instr,
                format!("dimension {dimension} of {shape} does not split into {count} blocks"),
            ));
        }
        let outer: i64 = dims[..dimension].iter().product();
        let inner: i64 = dims[dimension + 1..].iter().product();
        Ok(Blocks {
            outer: outer as usize,
            run: size / count * inner as usize * shape.element_type().byte_size(),
        })
    }
}

/// Whether an instruction that runs through the interpreter fallback
/// needs to reach the other devices (collectives, channels), which the
/// fallback, running one device, cannot.
pub(crate) fn needs_device(op: Opcode) -> bool {
    op.family() == Family::Collective
        || matches!(
            op,
            Opcode::Send | Opcode::SendDone | Opcode::Recv | Opcode::RecvDone
        )
}

/// An error naming the instruction, as the interpreter reports it.
fn invalid(instr: &HloInstruction, message: impl Into<String>) -> JitError {
    JitError::Interp(xla_core::interp::InterpError::Collective {
        instruction: instr.name.clone(),
        op: instr.opcode,
        message: message.into(),
    })
}
