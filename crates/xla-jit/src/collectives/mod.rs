//! Collectives between the devices of a multi-device run.
//!
//! A module for `N = replicas × partitions` devices is compiled once;
//! each device runs the executable's program on its own thread (its
//! kernels share the process's thread pool: a kernel issued while the pool
//! is busy with another device's runs inline). Every collective is a step
//! of the program that calls the run's [`Communicator`] with this device's
//! buffers. Which devices form a group follows XLA's rules
//! ([`xla_core::interp::group_of`], `docs/semantics.md`, *Collectives*).
//!
//! [`InProcess`] connects the devices of one process through shared
//! memory: the devices of a group meet (exchanging the addresses of their
//! operand and result buffers), each does its share of the work reading
//! the others' buffers directly, and they meet again before any leaves,
//! so no data is copied but into the results. Reductions are
//! deterministic: every element is combined in group order
//! (`f(…f(f(x₀, x₁), x₂)…)`), whichever device computes it, so every
//! device gets bit-identical results on every run, as XLA guarantees.

#[cfg(feature = "mpi")]
pub mod mpi;

use std::sync::Arc;
use std::time::Duration;

use xla_core::interp::rendezvous::{Hub, MeetingKey};
use xla_core::interp::{ByteCombiner, DeviceAssignment};
use xla_core::{Opcode, PrimitiveType};

use crate::ftz::{DAZ, FTZ};
use crate::JitError;

/// One device's execution of a collective step.
#[derive(Clone, Copy, Debug)]
pub struct CollectiveCall<'a> {
    /// The instruction's name (for keys and errors).
    pub name: &'a str,
    /// The op.
    pub opcode: Opcode,
    /// The device (its flattened id `replica · partitions + partition`).
    pub device: usize,
    /// The devices of its group, in group order.
    pub group: &'a [usize],
    /// The device's position in `group`.
    pub position: usize,
    /// How many calls this device made at this step before; every device
    /// of the group counts the same.
    pub occurrence: u64,
}

/// A row-major array cut at one dimension into `count` equal blocks (the
/// members of a group): `outer` runs of `count` blocks of `run` bytes.
/// `f32[2,8]` cut at dimension 1 for 4 devices is 2 runs of 4 blocks of
/// 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    /// The product of the dimensions before the cut one.
    pub outer: usize,
    /// Bytes of one block of one run: the cut dimension's size over the
    /// group size, times the following dimensions' sizes and the element
    /// size.
    pub run: usize,
}

/// How a reducing collective combines elements: its `to_apply` computation
/// when that is one binary op of its two parameters.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The combining op (`add`, `maximum`, `and`, …).
    pub op: Opcode,
    /// The element type.
    pub element_type: PrimitiveType,
    combiner: ByteCombiner,
}

/// Elements combined per pass over the group's buffers: a block of every
/// member's buffer stays in the first-level cache while it is combined.
const COMBINE_BYTES: usize = 16 << 10;

impl Reduction {
    /// The reduction of `op` on `element_type`, if the semantics table
    /// defines `op` for that type.
    pub fn new(op: Opcode, element_type: PrimitiveType) -> Option<Reduction> {
        let combiner = ByteCombiner::new(op, element_type)?;
        Some(Reduction {
            op,
            element_type,
            combiner,
        })
    }

    /// `acc[i] = op(acc[i], x[i])` for every element. Runs in the caller's
    /// floating-point mode: the program's steps run with subnormals
    /// flushed (DAZ and FTZ), in which a hardware `f32`/`f64` addition is
    /// the table's flushing addition.
    pub fn combine(&self, acc: &mut [u8], x: &[u8]) {
        let flushing = crate::ftz::flush_mode() == DAZ | FTZ;
        match (self.op, self.element_type) {
            (Opcode::Add, PrimitiveType::F32) if flushing => combine_lanes::<4>(acc, x, |a, b| {
                (f32::from_ne_bytes(a) + f32::from_ne_bytes(b)).to_ne_bytes()
            }),
            (Opcode::Add, PrimitiveType::F64) if flushing => combine_lanes::<8>(acc, x, |a, b| {
                (f64::from_ne_bytes(a) + f64::from_ne_bytes(b)).to_ne_bytes()
            }),
            _ => self.combiner.apply(acc, x),
        }
    }

    /// Bytes per element.
    pub fn element_size(&self) -> usize {
        self.element_type.byte_size()
    }

    /// The bytes of the `p`-th of `count` shares of the elements of a
    /// buffer of `len` bytes: the part one member of an all-reduce
    /// combines.
    pub(crate) fn share(&self, len: usize, count: usize, p: usize) -> std::ops::Range<usize> {
        let size = self.element_size().max(1);
        let elements = len / size;
        elements * p / count * size..elements * (p + 1) / count * size
    }
}

/// The key of phase `phase` (0: exchange, 1: leave) of `call`'s meeting
/// of `participants`.
pub(crate) fn meeting_key(
    call: &CollectiveCall<'_>,
    phase: u64,
    participants: &[usize],
) -> MeetingKey {
    MeetingKey {
        instruction: call.name.to_string(),
        occurrence: call.occurrence * 2 + phase,
        participants: participants.to_vec(),
    }
}

/// `acc[i] = f(acc[i], x[i])` over elements of `N` bytes (a loop the
/// compiler vectorizes).
fn combine_lanes<const N: usize>(
    acc: &mut [u8],
    x: &[u8],
    f: impl Fn([u8; N], [u8; N]) -> [u8; N],
) {
    for (a, b) in acc.chunks_exact_mut(N).zip(x.chunks_exact(N)) {
        let sum = f(
            a.try_into().expect("N bytes"),
            b.try_into().expect("N bytes"),
        );
        a.copy_from_slice(&sum);
    }
}

/// How the devices of a run exchange data at collectives. Each method is
/// called by every member of `call.group` with its own buffers (of equal
/// sizes on every member) and returns when this device's `output` holds
/// its result and the other members no longer need its `input`.
pub trait Communicator: Send + Sync {
    /// The run's replicas and partitions.
    fn assignment(&self) -> DeviceAssignment;

    /// `output` = every member's `input` combined element-wise by
    /// `reduction`, in group order.
    fn all_reduce(
        &self,
        call: &CollectiveCall<'_>,
        reduction: &Reduction,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError>;

    /// `output` (`blocks` for the group: `[outer][member][run]`) = each
    /// member's `input` (`[outer][run]`) at the member's position.
    fn all_gather(
        &self,
        call: &CollectiveCall<'_>,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError>;

    /// `output` (`[outer][run]`) = block `call.position` of every
    /// member's `input` (`[outer][member][run]`), combined in group order.
    fn reduce_scatter(
        &self,
        call: &CollectiveCall<'_>,
        reduction: &Reduction,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError>;

    /// Block `j` of `input` (`[outer][member][run]`) goes to member `j`;
    /// block `i` of `output` is what member `i` sent.
    fn all_to_all(
        &self,
        call: &CollectiveCall<'_>,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError>;

    /// For each `(source, target)` pair of positions, the source's `input`
    /// goes to the target's `output`; a member that is no pair's target
    /// gets zeros.
    fn permute(
        &self,
        call: &CollectiveCall<'_>,
        pairs: &[(usize, usize)],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError>;

    /// Called once per run by each process before its devices start, with
    /// the hash of the program (made on request): a communicator across
    /// processes checks that every process runs the same one.
    fn begin(&self, fingerprint: &dyn Fn() -> u64) -> Result<(), JitError> {
        let _ = fingerprint;
        Ok(())
    }

    /// Device `device` finished its program (`ok`) or failed: members
    /// waiting for it at a collective stop with an error naming it.
    fn finish(&self, device: usize, ok: bool);

    /// The device that failed first, if any did: its error explains the
    /// others'.
    fn first_failed(&self) -> Option<usize>;
}

/// A member's buffers, as the others of its group see them.
#[derive(Clone, Copy)]
struct Shared {
    input: *const u8,
    output: *mut u8,
}

// SAFETY: the addresses are only used between the two meetings of a call,
// while their owner waits for the second: its buffers stay live, and each
// byte of them is written by one device only.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// The communicator of the devices of one process: threads that meet at a
/// [`Hub`] and read each other's buffers.
pub struct InProcess {
    hub: Hub<Shared>,
}

impl InProcess {
    /// A communicator for every device of `assignment`; a device waits at
    /// most `timeout` for another that is still running (a device that
    /// failed or finished, and a deadlock, end the wait at once).
    pub fn new(assignment: DeviceAssignment, timeout: Duration) -> Arc<InProcess> {
        Arc::new(InProcess {
            hub: Hub::new(assignment, timeout),
        })
    }

    /// Meets the group with this device's buffers (`mine`), runs `work` on
    /// every member's, then meets again so that no member leaves (and
    /// reuses its buffers) while another still reads or writes them.
    fn exchange(
        &self,
        call: &CollectiveCall<'_>,
        mine: Shared,
        work: impl FnOnce(&[Shared]),
    ) -> Result<(), JitError> {
        let key = |phase| meeting_key(call, phase, call.group);
        let all = self
            .hub
            .meet(call.device, key(0), mine, call.opcode)
            .map_err(JitError::Interp)?;
        work(&all);
        self.hub
            .meet(call.device, key(1), mine, call.opcode)
            .map_err(JitError::Interp)?;
        Ok(())
    }
}

/// What a member shares: the addresses of its buffers.
fn shared(input: &[u8], output: &mut [u8]) -> Shared {
    Shared {
        input: input.as_ptr(),
        output: output.as_mut_ptr(),
    }
}

/// `len` bytes at `at` (an empty slice for none: a zero-sized buffer may
/// have no address).
///
/// # Safety
///
/// `at` holds `len` readable bytes, which nobody writes meanwhile.
pub(crate) unsafe fn bytes<'a>(at: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's.
        unsafe { std::slice::from_raw_parts(at, len) }
    }
}

/// `len` writable bytes at `at` (empty for none).
///
/// # Safety
///
/// `at` holds `len` bytes that only the caller accesses meanwhile.
pub(crate) unsafe fn bytes_mut<'a>(at: *mut u8, len: usize) -> &'a mut [u8] {
    if len == 0 {
        &mut []
    } else {
        // SAFETY: the caller's.
        unsafe { std::slice::from_raw_parts_mut(at, len) }
    }
}

/// Combines `count` members' runs of `len` bytes, member `k`'s at
/// `input(k)`, in member order, a cache-sized block at a time, and hands
/// each combined block to `store(start, block)`.
fn combine_runs(
    reduction: &Reduction,
    count: usize,
    len: usize,
    input: impl Fn(usize) -> *const u8,
    mut store: impl FnMut(usize, &[u8]),
) {
    let block = COMBINE_BYTES - COMBINE_BYTES % reduction.element_size().max(1);
    let mut acc = vec![0u8; block.min(len)];
    let mut start = 0;
    while start < len {
        let size = block.min(len - start);
        let acc = &mut acc[..size];
        // SAFETY (of every read): each member's input holds `len` bytes at
        // its offset and nobody writes them until the second meeting.
        acc.copy_from_slice(unsafe { bytes(input(0).add(start), size) });
        for k in 1..count {
            reduction.combine(acc, unsafe { bytes(input(k).add(start), size) });
        }
        store(start, acc);
        start += size;
    }
}

impl Communicator for InProcess {
    fn assignment(&self) -> DeviceAssignment {
        self.hub.assignment()
    }

    /// Member `p` combines the `p`-th share of the elements from every
    /// member's input and writes it into every member's output: each byte
    /// is read once and written once per member, and an output that
    /// shares its input's storage is safe (a share is read by its one
    /// combiner before it writes it).
    fn all_reduce(
        &self,
        call: &CollectiveCall<'_>,
        reduction: &Reduction,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        let share = reduction.share(input.len(), call.group.len(), call.position);
        self.exchange(call, shared(input, output), |all| {
            let (from, to) = (share.start, share.end);
            let count = all.len();
            combine_runs(
                reduction,
                count,
                to - from,
                |k| all[k].input.wrapping_add(from),
                |start, block| {
                    for member in all {
                        // SAFETY: every output holds `len` bytes, and this
                        // share of them is written by this device only.
                        let out = unsafe { bytes_mut(member.output.wrapping_add(from), to - from) };
                        out[start..start + block.len()].copy_from_slice(block);
                    }
                },
            );
        })
    }

    fn all_gather(
        &self,
        call: &CollectiveCall<'_>,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        self.exchange(call, shared(input, output), |all| {
            let count = all.len();
            for (k, member) in all.iter().enumerate() {
                // SAFETY: every input holds `outer` runs.
                let src = unsafe { bytes(member.input, blocks.outer * blocks.run) };
                for o in 0..blocks.outer {
                    let at = (o * count + k) * blocks.run;
                    output[at..at + blocks.run]
                        .copy_from_slice(&src[o * blocks.run..(o + 1) * blocks.run]);
                }
            }
        })
    }

    fn reduce_scatter(
        &self,
        call: &CollectiveCall<'_>,
        reduction: &Reduction,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        self.exchange(call, shared(input, output), |all| {
            let count = all.len();
            for o in 0..blocks.outer {
                let from = (o * count + call.position) * blocks.run;
                combine_runs(
                    reduction,
                    count,
                    blocks.run,
                    |k| all[k].input.wrapping_add(from),
                    |start, block| {
                        let at = o * blocks.run + start;
                        output[at..at + block.len()].copy_from_slice(block);
                    },
                );
            }
        })
    }

    fn all_to_all(
        &self,
        call: &CollectiveCall<'_>,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        let in_len = input.len();
        self.exchange(call, shared(input, output), |all| {
            let count = all.len();
            for (sender, member) in all.iter().enumerate() {
                // SAFETY: every input has this device's size.
                let src = unsafe { bytes(member.input, in_len) };
                for o in 0..blocks.outer {
                    let from = (o * count + call.position) * blocks.run;
                    let to = (o * count + sender) * blocks.run;
                    output[to..to + blocks.run].copy_from_slice(&src[from..from + blocks.run]);
                }
            }
        })
    }

    fn permute(
        &self,
        call: &CollectiveCall<'_>,
        pairs: &[(usize, usize)],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        let source = pairs.iter().find(|p| p.1 == call.position).map(|p| p.0);
        let len = output.len();
        self.exchange(call, shared(input, output), |all| match source {
            // SAFETY: the source's input has this size.
            Some(s) => output.copy_from_slice(unsafe { bytes(all[s].input, len) }),
            None => output.fill(0),
        })
    }

    fn finish(&self, device: usize, ok: bool) {
        self.hub.finish(device, ok);
    }

    fn first_failed(&self) -> Option<usize> {
        self.hub.first_failed()
    }
}
