//! Collectives across processes over MPI (the `mpi` feature).
//!
//! Under `mpirun -np P`, each process runs `K` devices of a run of
//! `N = P × K` (process `r` runs devices `r·K … r·K + K − 1`). At a
//! collective, the process's devices meet in shared memory (when `K > 1`);
//! one of them, the leader, exchanges what the process's devices send to
//! other processes' devices in one `MPI_Alltoallv` over `MPI_COMM_WORLD`
//! (every process takes part in every collective: the devices of one
//! program reach its collectives in the same order), and every device's
//! result is computed from what its group's members sent, in group order.
//!
//! An all-reduce runs as the in-process one does: the member at position
//! `p` receives the `p`-th share of the elements from every member,
//! combines them in group order and sends the combined share to every
//! member (two exchanges). The results are therefore the same bits as in
//! one process and on the reference interpreter, on every device and every
//! run; MPI's own reductions (`MPI_Allreduce`) fix no order, which is why
//! they are not used (`docs/devices.md` measures the difference).
//!
//! Errors return instead of aborting (`MPI_ERRORS_RETURN`), and before a
//! run the processes check, in a non-blocking exchange waited for with a
//! deadline, that they run the same program: one that runs another module
//! gives the others an error, not a hang. The exchanges themselves block
//! (polling a non-blocking one was several times slower); a process that
//! dies ends the run through `mpirun`.

use std::ffi::{c_int, c_void};
use std::ops::Range;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use mpi::environment::Universe;
use mpi::ffi;
use xla_core::interp::rendezvous::Hub;
use xla_core::interp::{DeviceAssignment, InterpError};

use super::{bytes, bytes_mut, meeting_key, Blocks, CollectiveCall, Communicator, Reduction};
use crate::JitError;

/// MPI for one process of a run: initialized by [`MpiProcess::initialize`]
/// (as `jax.distributed.initialize` sets up JAX's processes), finalized
/// when dropped.
pub struct MpiProcess {
    communicator: MpiCommunicator,
    /// Keeps MPI initialized; dropping it finalizes MPI.
    _universe: Universe,
}

impl MpiProcess {
    /// Initializes MPI for a run of `assignment`'s devices, `per_process`
    /// of them in each of the `mpirun` processes; a device waits at most
    /// `timeout` for the others at a collective.
    pub fn initialize(
        assignment: DeviceAssignment,
        per_process: usize,
        timeout: Duration,
    ) -> Result<MpiProcess, JitError> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Multiple)
            .ok_or_else(|| JitError::Mpi("MPI is already initialized in this process".into()))?;
        if threading < mpi::Threading::Serialized {
            return Err(JitError::Mpi(format!(
                "the MPI library provides {threading:?} threading; the devices of a process \
                 need at least Serialized"
            )));
        }
        // SAFETY: MPI is initialized; the handles are the library's.
        unsafe {
            check(
                ffi::MPI_Comm_set_errhandler(ffi::RSMPI_COMM_WORLD, ffi::RSMPI_ERRORS_RETURN),
                "setting MPI_ERRORS_RETURN",
            )?;
        }
        let (mut rank, mut size) = (0, 0);
        // SAFETY: as above; the outputs are plain integers.
        unsafe {
            check(
                ffi::MPI_Comm_rank(ffi::RSMPI_COMM_WORLD, &mut rank),
                "MPI_Comm_rank",
            )?;
            check(
                ffi::MPI_Comm_size(ffi::RSMPI_COMM_WORLD, &mut size),
                "MPI_Comm_size",
            )?;
        }
        let (rank, size) = (rank as usize, size as usize);
        let devices = assignment.checked_device_count()?;
        if per_process == 0 || !devices.is_multiple_of(per_process) {
            return Err(JitError::Mpi(format!(
                "a run on {devices} devices cannot have {per_process} devices per process"
            )));
        }
        if size * per_process != devices {
            return Err(JitError::Mpi(format!(
                "a run on {devices} devices with {per_process} per process needs {} processes, \
                 but mpirun started {size}",
                devices / per_process
            )));
        }
        let communicator = MpiCommunicator {
            assignment,
            per_process,
            rank,
            size,
            timeout,
            local: (per_process > 1).then(|| Hub::new(assignment, timeout)),
            lock: Mutex::new(Scratch::default()),
        };
        Ok(MpiProcess {
            communicator,
            _universe: universe,
        })
    }

    /// The communicator of this process's devices.
    pub fn communicator(&self) -> &MpiCommunicator {
        &self.communicator
    }

    /// This process's index (its MPI rank).
    pub fn process_index(&self) -> usize {
        self.communicator.rank
    }

    /// The number of processes.
    pub fn process_count(&self) -> usize {
        self.communicator.size
    }

    /// The devices this process runs (flattened ids).
    pub fn local_devices(&self) -> Range<usize> {
        self.communicator.local_devices()
    }
}

/// The [`Communicator`] of one process's devices over MPI.
pub struct MpiCommunicator {
    assignment: DeviceAssignment,
    per_process: usize,
    rank: usize,
    size: usize,
    timeout: Duration,
    /// Where the process's devices meet (with several per process).
    local: Option<Hub<Part>>,
    /// Held by the one device thread calling MPI at a time, with the
    /// buffers its exchanges pack into and receive into (kept between
    /// calls: fresh ones would cost page faults at every call).
    lock: Mutex<Scratch>,
}

/// The exchange buffers of a process.
#[derive(Default)]
struct Scratch {
    send: Vec<u8>,
    received: Vec<u8>,
}

/// One of the process's devices at a collective.
#[derive(Clone)]
struct Part {
    device: usize,
    /// Its group, in group order.
    group: Vec<usize>,
    input: *const u8,
    in_len: usize,
    output: *mut u8,
    out_len: usize,
}

// SAFETY: the addresses are used between the two local meetings of a
// call, while their owner waits at the second; each byte is written by
// one thread (the leader).
unsafe impl Send for Part {}
// SAFETY: as above.
unsafe impl Sync for Part {}

/// What a collective computes, as the exchange sees it.
enum Op<'a> {
    AllGather(Blocks),
    AllToAll(Blocks),
    ReduceScatter(&'a Reduction, Blocks),
    /// `(source, target)` positions.
    Permute(Vec<(usize, usize)>),
    /// Every member's whole input to every member, each combining all of
    /// them (one exchange: for small buffers, where an exchange's latency
    /// costs more than its bytes).
    AllReduceWhole(&'a Reduction),
    /// The shares of the elements.
    AllReduceShares(&'a Reduction),
    /// Every member's combined share to every other member.
    AllReduceGather(&'a Reduction),
}

/// All-reduces of at most this many bytes a device exchange whole inputs
/// in one exchange instead of shares in two (at 1 KiB on 2 processes: 1.5
/// against 3 µs).
const WHOLE_ALL_REDUCE_BYTES: usize = 16 << 10;

impl Op<'_> {
    /// The byte ranges of the sender's buffer (input, or output for the
    /// gather of an all-reduce's shares) that the member at position `to`
    /// receives from the member at `from`, of a group of `count`, for a
    /// buffer of `len` bytes.
    fn ranges(&self, from: usize, to: usize, count: usize, len: usize) -> Vec<Range<usize>> {
        let runs = |blocks: &Blocks, block: usize| {
            (0..blocks.outer)
                .map(|o| {
                    let at = (o * count + block) * blocks.run;
                    at..at + blocks.run
                })
                .collect()
        };
        match self {
            Op::AllGather(_) | Op::AllReduceWhole(_) => std::iter::once(0..len).collect(),
            Op::AllToAll(blocks) | Op::ReduceScatter(_, blocks) => runs(blocks, to),
            Op::Permute(pairs) if pairs.contains(&(from, to)) => std::iter::once(0..len).collect(),
            Op::Permute(_) => Vec::new(),
            Op::AllReduceShares(reduction) => vec![reduction.share(len, count, to)],
            Op::AllReduceGather(_) if from == to => Vec::new(),
            Op::AllReduceGather(reduction) => vec![reduction.share(len, count, from)],
        }
    }

    /// Reads the sender's output instead of its input.
    fn reads_output(&self) -> bool {
        matches!(self, Op::AllReduceGather(_))
    }

    /// Puts what the member at position `from` sent into `output`, the
    /// result of the member at `to`; members arrive in group order.
    fn deliver(&self, output: &mut [u8], from: usize, to: usize, count: usize, data: &[u8]) {
        match self {
            Op::AllGather(blocks) | Op::AllToAll(blocks) => {
                for o in 0..blocks.outer {
                    let at = (o * count + from) * blocks.run;
                    output[at..at + blocks.run]
                        .copy_from_slice(&data[o * blocks.run..(o + 1) * blocks.run]);
                }
            }
            Op::ReduceScatter(reduction, _) | Op::AllReduceWhole(reduction) => {
                if from == 0 {
                    output.copy_from_slice(data);
                } else {
                    reduction.combine(output, data);
                }
            }
            Op::Permute(_) => output.copy_from_slice(data),
            Op::AllReduceShares(reduction) => {
                let range = reduction.share(output.len(), count, to);
                if from == 0 {
                    output[range].copy_from_slice(data);
                } else {
                    reduction.combine(&mut output[range], data);
                }
            }
            Op::AllReduceGather(reduction) => {
                let range = reduction.share(output.len(), count, from);
                output[range].copy_from_slice(data);
            }
        }
    }
}

/// The error of an MPI call that returned `code`.
fn check(code: c_int, what: &str) -> Result<(), JitError> {
    if code == 0 {
        return Ok(());
    }
    let mut text = vec![0u8; 512];
    let mut len: c_int = 0;
    // SAFETY: MPI writes at most MPI_MAX_ERROR_STRING (256) bytes.
    unsafe { ffi::MPI_Error_string(code, text.as_mut_ptr().cast(), &mut len) };
    text.truncate(len.clamp(0, 512) as usize);
    Err(JitError::Mpi(format!(
        "{what}: {}",
        String::from_utf8_lossy(&text)
    )))
}

/// An error of a collective, naming it.
fn collective_error(call: &CollectiveCall<'_>, message: String) -> JitError {
    JitError::Interp(InterpError::Collective {
        instruction: call.name.to_string(),
        op: call.opcode,
        message,
    })
}

/// A byte count for MPI (an `int`).
fn count(bytes: usize, call: &CollectiveCall<'_>) -> Result<c_int, JitError> {
    c_int::try_from(bytes).map_err(|_| {
        collective_error(
            call,
            format!("{bytes} bytes for one process are more than one MPI exchange carries"),
        )
    })
}

impl MpiCommunicator {
    /// The devices this process runs.
    pub fn local_devices(&self) -> Range<usize> {
        self.rank * self.per_process..(self.rank + 1) * self.per_process
    }

    fn rank_of(&self, device: usize) -> usize {
        device / self.per_process
    }

    /// Waits for `request` until the deadline.
    fn wait(&self, request: &mut ffi::MPI_Request, what: &str) -> Result<(), JitError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let mut done: c_int = 0;
            // SAFETY: a live request; the status is ignored.
            check(
                unsafe { ffi::MPI_Test(request, &mut done, ffi::RSMPI_STATUS_IGNORE) },
                what,
            )?;
            if done != 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(JitError::Mpi(format!(
                    "{what}: process {} waited {:?} for the others (one died, or runs \
                     another program)",
                    self.rank, self.timeout
                )));
            }
            std::thread::yield_now();
        }
    }

    /// One collective for this process's devices (`parts`, in device
    /// order, of groups `groups`), run by the leader.
    fn exchange(
        &self,
        call: &CollectiveCall<'_>,
        op: &Op<'_>,
        parts: &[Part],
    ) -> Result<(), JitError> {
        if let [part] = parts {
            let every_process = part.group.iter().copied().eq(0..self.size);
            if every_process && matches!(op, Op::AllGather(_) | Op::AllReduceWhole(_)) {
                return self.gather_whole(call, op, part);
            }
        }
        let groups: Vec<&[usize]> = parts.iter().map(|p| &p.group[..]).collect();
        let local = |device: usize| parts.iter().position(|p| p.device == device);
        let position = |group: &[usize], device: usize| {
            group
                .iter()
                .position(|&d| d == device)
                .expect("a member of the group")
        };
        let source = |part: &Part| {
            if op.reads_output() {
                (part.output.cast_const(), part.out_len)
            } else {
                (part.input, part.in_len)
            }
        };
        // What each sender sends each receiver: `(receiver, sender)` pairs
        // in that order, the same order on both sides (a process's devices
        // are consecutive, so the order is also by process).
        let mut outgoing: Vec<(usize, usize, usize)> = Vec::new();
        for (k, group) in groups.iter().enumerate() {
            let sender = parts[k].device;
            for &receiver in group.iter() {
                if self.rank_of(receiver) != self.rank {
                    outgoing.push((receiver, sender, k));
                }
            }
        }
        outgoing.sort_unstable();
        let mut pieces: Vec<(usize, &[u8])> = Vec::new();
        for &(receiver, sender, k) in &outgoing {
            let group = &groups[k];
            let (at, len) = source(&parts[k]);
            // SAFETY: the sender's buffer holds `len` bytes, which nobody
            // writes until the second local meeting.
            let buffer = unsafe { bytes(at, len) };
            let count = group.len();
            let (from, to) = (position(group, sender), position(group, receiver));
            for range in op.ranges(from, to, count, len) {
                pieces.push((self.rank_of(receiver), &buffer[range]));
            }
        }
        // What this process's receivers get from other processes' senders:
        // `(receiver, sender, bytes)`, by sending process, then as that
        // process orders its pieces. Pieces from this process's own
        // senders are read in place (a step's results never share its
        // operands' storage) or, when not contiguous, copied.
        let mut incoming: Vec<(usize, usize, usize)> = Vec::new();
        for (k, group) in groups.iter().enumerate() {
            let receiver = parts[k].device;
            for &sender in group.iter() {
                if local(sender).is_none() {
                    let (from, to) = (position(group, sender), position(group, receiver));
                    let ranges = op.ranges(from, to, group.len(), source(&parts[k]).1);
                    incoming.push((receiver, sender, ranges.iter().map(Range::len).sum()));
                }
            }
        }
        incoming.sort_unstable_by_key(|&(receiver, sender, _)| {
            (self.rank_of(sender), receiver, sender)
        });
        let mut send_bytes: Vec<usize> = vec![0; self.size];
        let mut receive_bytes: Vec<usize> = vec![0; self.size];
        for &(rank, piece) in &pieces {
            send_bytes[rank] += piece.len();
        }
        for &(_, sender, size) in &incoming {
            receive_bytes[self.rank_of(sender)] += size;
        }
        // Counts and displacements of packed pieces, as MPI's `int`s.
        let counts = |bytes: &[usize]| -> Result<(Vec<c_int>, Vec<c_int>), JitError> {
            let mut at = 0usize;
            let mut displacements = Vec::with_capacity(bytes.len());
            for &c in bytes {
                displacements.push(count(at, call)?);
                at += c;
            }
            count(at, call)?;
            let counts = bytes
                .iter()
                .map(|&c| count(c, call))
                .collect::<Result<_, _>>()?;
            Ok((counts, displacements))
        };
        let (send_counts, packed) = counts(&send_bytes)?;
        let (receive_counts, receive_displacements) = counts(&receive_bytes)?;
        let mut scratch = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let Scratch { send, received } = &mut *scratch;
        // One piece for each process, all from one buffer (one device in
        // this process): sent from that buffer in place, each piece at its
        // own displacement; otherwise packed. Buffers get a byte at least:
        // an empty one's address is 1, which OpenMPI reads as MPI_IN_PLACE.
        let one_buffer = parts.len() == 1 && {
            let mut ranks: Vec<usize> = pieces.iter().map(|p| p.0).collect();
            ranks.dedup();
            ranks.len() == pieces.len()
        };
        let base = source(&parts[0]).0;
        let (send_base, send_displacements) =
            if one_buffer && pieces.iter().any(|p| !p.1.is_empty()) {
                let mut displacements = vec![0; self.size];
                for &(rank, piece) in &pieces {
                    displacements[rank] = count(piece.as_ptr() as usize - base as usize, call)?;
                }
                (base, displacements)
            } else {
                send.clear();
                send.reserve(pieces.iter().map(|p| p.1.len()).sum::<usize>() + 1);
                pieces.iter().for_each(|p| send.extend_from_slice(p.1));
                (send.as_ptr(), packed)
            };
        let total: usize = receive_bytes.iter().sum();
        received.clear();
        received.reserve(total.max(1));
        // SAFETY: MPI is initialized; the buffers, counts and displacements
        // describe live memory of the sizes given.
        check(
            unsafe {
                ffi::MPI_Alltoallv(
                    send_base.cast::<c_void>(),
                    send_counts.as_ptr(),
                    send_displacements.as_ptr(),
                    ffi::RSMPI_UINT8_T,
                    received.as_mut_ptr().cast::<c_void>(),
                    receive_counts.as_ptr(),
                    receive_displacements.as_ptr(),
                    ffi::RSMPI_UINT8_T,
                    ffi::RSMPI_COMM_WORLD,
                )
            },
            &format!("{} ({})", call.name, call.opcode),
        )?;
        // SAFETY: the exchange succeeded: MPI wrote all `total` bytes.
        unsafe { received.set_len(total) };
        // Every receiver's pieces, from every sender, in group order.
        let mut remote: Vec<((usize, usize), Range<usize>)> = Vec::with_capacity(incoming.len());
        let mut at = 0;
        for &(receiver, sender, size) in &incoming {
            remote.push(((receiver, sender), at..at + size));
            at += size;
        }
        let mut copied = Vec::new();
        for (k, group) in groups.iter().enumerate() {
            let part = &parts[k];
            // SAFETY: this device's result, written by the leader alone
            // while its owner waits.
            let output = unsafe { bytes_mut(part.output, part.out_len) };
            let count = group.len();
            let to = position(group, part.device);
            for (from, &sender) in group.iter().enumerate() {
                let data: &[u8] = match local(sender) {
                    Some(s) => {
                        let (at, len) = source(&parts[s]);
                        // SAFETY: as above, for a sender of this process
                        // (never this step's result being written).
                        let buffer = unsafe { bytes(at, len) };
                        match &op.ranges(from, to, count, len)[..] {
                            [] => continue,
                            [range] => &buffer[range.clone()],
                            ranges => {
                                copied.clear();
                                ranges
                                    .iter()
                                    .for_each(|r| copied.extend_from_slice(&buffer[r.clone()]));
                                &copied
                            }
                        }
                    }
                    None => match remote.iter().find(|r| r.0 == (part.device, sender)) {
                        Some((_, range)) => &received[range.clone()],
                        None => continue,
                    },
                };
                if !data.is_empty() {
                    op.deliver(output, from, to, count, data);
                }
            }
        }
        Ok(())
    }

    /// `op` (an all-gather, or an all-reduce of whole buffers) over every
    /// process, one device each, by `MPI_Allgather`: its small-message
    /// path is quicker than an `MPI_Alltoallv`'s.
    fn gather_whole(
        &self,
        call: &CollectiveCall<'_>,
        op: &Op<'_>,
        part: &Part,
    ) -> Result<(), JitError> {
        let len = part.in_len;
        let what = || format!("{} ({})", call.name, call.opcode);
        let each = count(len, call)?;
        count(len * self.size, call)?;
        let mut scratch = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let received = &mut scratch.received;
        received.clear();
        received.reserve((len * self.size).max(1));
        // A byte at least: an empty buffer's address reads as MPI_IN_PLACE.
        let input = if len == 0 {
            received.as_ptr()
        } else {
            part.input
        };
        // SAFETY: MPI is initialized; `len` bytes in, `len` from each
        // process out, into reserved memory.
        check(
            unsafe {
                ffi::MPI_Allgather(
                    input.cast::<c_void>(),
                    each,
                    ffi::RSMPI_UINT8_T,
                    received.as_mut_ptr().cast::<c_void>(),
                    each,
                    ffi::RSMPI_UINT8_T,
                    ffi::RSMPI_COMM_WORLD,
                )
            },
            &what(),
        )?;
        // SAFETY: the gather succeeded: MPI wrote every process's bytes.
        unsafe { received.set_len(len * self.size) };
        // SAFETY: this device's result, written here alone.
        let output = unsafe { bytes_mut(part.output, part.out_len) };
        for (from, data) in received.chunks_exact(len.max(1)).enumerate() {
            op.deliver(output, from, call.position, self.size, data);
        }
        Ok(())
    }

    /// Runs `op` for the calling device: meets the process's other devices
    /// (with several per process), has the leader exchange for all, and
    /// meets again before any leaves.
    fn collective(
        &self,
        call: &CollectiveCall<'_>,
        ops: &[Op<'_>],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        let mine = Part {
            device: call.device,
            group: call.group.to_vec(),
            input: input.as_ptr(),
            in_len: input.len(),
            output: output.as_mut_ptr(),
            out_len: output.len(),
        };
        let Some(hub) = &self.local else {
            let parts = [mine];
            return ops
                .iter()
                .try_for_each(|op| self.exchange(call, op, &parts));
        };
        let local: Vec<usize> = self.local_devices().collect();
        let key = |phase| meeting_key(call, phase, &local);
        let parts = hub
            .meet(call.device, key(0), mine.clone(), call.opcode)
            .map_err(JitError::Interp)?;
        let result = if parts[0].device == call.device {
            ops.iter()
                .try_for_each(|op| self.exchange(call, op, &parts))
        } else {
            Ok(())
        };
        if result.is_err() {
            hub.finish(call.device, false);
        }
        hub.meet(call.device, key(1), mine, call.opcode)
            .map_err(JitError::Interp)?;
        result
    }
}

impl Communicator for MpiCommunicator {
    fn assignment(&self) -> DeviceAssignment {
        self.assignment
    }

    fn all_reduce(
        &self,
        call: &CollectiveCall<'_>,
        reduction: &Reduction,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        if input.len() <= WHOLE_ALL_REDUCE_BYTES {
            return self.collective(call, &[Op::AllReduceWhole(reduction)], input, output);
        }
        let ops = [
            Op::AllReduceShares(reduction),
            Op::AllReduceGather(reduction),
        ];
        self.collective(call, &ops, input, output)
    }

    fn all_gather(
        &self,
        call: &CollectiveCall<'_>,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        self.collective(call, &[Op::AllGather(blocks)], input, output)
    }

    fn reduce_scatter(
        &self,
        call: &CollectiveCall<'_>,
        reduction: &Reduction,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        self.collective(call, &[Op::ReduceScatter(reduction, blocks)], input, output)
    }

    fn all_to_all(
        &self,
        call: &CollectiveCall<'_>,
        blocks: Blocks,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        self.collective(call, &[Op::AllToAll(blocks)], input, output)
    }

    fn permute(
        &self,
        call: &CollectiveCall<'_>,
        pairs: &[(usize, usize)],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), JitError> {
        if !pairs.iter().any(|p| p.1 == call.position) {
            output.fill(0);
        }
        self.collective(call, &[Op::Permute(pairs.to_vec())], input, output)
    }

    /// Every process's fingerprint, compared with this one's.
    fn begin(&self, fingerprint: &dyn Fn() -> u64) -> Result<(), JitError> {
        let fingerprint = fingerprint();
        let mut all = vec![0u64; self.size];
        let _mpi = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: MPI is initialized; one u64 out, one per process in.
        let mut request = unsafe { ffi::RSMPI_REQUEST_NULL };
        check(
            unsafe {
                ffi::MPI_Iallgather(
                    (&fingerprint as *const u64).cast::<c_void>(),
                    8,
                    ffi::RSMPI_UINT8_T,
                    all.as_mut_ptr().cast::<c_void>(),
                    8,
                    ffi::RSMPI_UINT8_T,
                    ffi::RSMPI_COMM_WORLD,
                    &mut request,
                )
            },
            "comparing the processes' programs",
        )?;
        self.wait(&mut request, "comparing the processes' programs")?;
        match all.iter().position(|&f| f != fingerprint) {
            Some(other) => Err(JitError::Mpi(format!(
                "process {other} runs another program than process {} (fingerprints {:016x} \
                 and {fingerprint:016x})",
                self.rank, all[other]
            ))),
            None => Ok(()),
        }
    }

    fn finish(&self, device: usize, ok: bool) {
        if let Some(hub) = &self.local {
            hub.finish(device, ok);
        }
    }

    fn first_failed(&self) -> Option<usize> {
        self.local.as_ref().and_then(Hub::first_failed)
    }
}
