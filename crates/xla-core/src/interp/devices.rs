//! Runs on several devices: every replica × partition runs the module on
//! its own thread of this process; collectives and channels connect them
//! through a [`Hub`].

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use super::collective::Device;
use super::rendezvous::{Contribution, Hub};
use super::side_effect::Io;
use super::{eval, InterpError, Interpreter};
use crate::{CancelToken, HloModule, Literal};

/// How many replicas and partitions run a module.
///
/// Devices are numbered by XLA's *flattened id*: device
/// `d = replica · num_partitions + partition`. With 2 replicas × 2
/// partitions, device 3 is replica 1, partition 1. Per-device arguments and
/// results are ordered by this number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DeviceAssignment {
    /// Replicas (≥ 1): copies of the program on different data; `replica-id`.
    pub num_replicas: usize,
    /// Partitions (≥ 1) of one SPMD program; `partition-id`.
    pub num_partitions: usize,
}

impl DeviceAssignment {
    /// `num_replicas` × `num_partitions` devices.
    pub fn new(num_replicas: usize, num_partitions: usize) -> Self {
        DeviceAssignment {
            num_replicas,
            num_partitions,
        }
    }

    /// One replica, one partition.
    pub fn single() -> Self {
        Self::new(1, 1)
    }

    /// `num_replicas · num_partitions` (saturating at `usize::MAX`, which
    /// no run accepts).
    pub fn device_count(&self) -> usize {
        self.num_replicas.saturating_mul(self.num_partitions)
    }

    /// The number of devices, if a run can have that many: at least one
    /// and at most [`MAX_DEVICES`].
    pub fn checked_device_count(&self) -> Result<usize, InterpError> {
        match self.device_count() {
            0 => Err(InterpError::NoDevices {
                replicas: self.num_replicas,
                partitions: self.num_partitions,
            }),
            count if count > MAX_DEVICES => Err(InterpError::TooManyDevices {
                replicas: self.num_replicas,
                partitions: self.num_partitions,
                max: MAX_DEVICES,
            }),
            count => Ok(count),
        }
    }

    /// The flattened id of a replica's partition.
    pub fn device(&self, replica: usize, partition: usize) -> usize {
        replica * self.num_partitions + partition
    }

    /// The replica device `device` belongs to.
    pub fn replica(&self, device: usize) -> usize {
        device / self.num_partitions
    }

    /// The partition device `device` runs.
    pub fn partition(&self, device: usize) -> usize {
        device % self.num_partitions
    }

    /// `replica 1`, `partition 3`, or `device 3 (replica 1, partition 1)`.
    pub(super) fn describe(&self, device: usize) -> String {
        let (replica, partition) = (self.replica(device), self.partition(device));
        match (self.num_replicas, self.num_partitions) {
            (_, 1) => format!("replica {replica}"),
            (1, _) => format!("partition {partition}"),
            _ => format!("device {device} (replica {replica}, partition {partition})"),
        }
    }
}

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Seed of the `rng` instruction's generator (every device draws the
    /// same sequence; the values are not XLA's). `rng-bit-generator` takes
    /// its state as an operand and does not use it: its bits are XLA's,
    /// bit for bit, for `rng_three_fry`, `rng_philox` and `rng_default`
    /// (Philox).
    pub rng_seed: u64,
    /// How long a device waits at a collective or a `recv-done` while some
    /// other device is still running. Deadlocks (every device waiting) and
    /// devices that finished or failed without arriving are reported at
    /// once, whatever the timeout.
    pub timeout: Duration,
    /// Where `send` on a channel delivers: `channel_id → [(source device,
    /// target device)]`. A device without a route on a channel sends to
    /// itself (a `send`/`recv` pair inside one program).
    pub channel_routes: HashMap<i64, Vec<(usize, usize)>>,
    /// Stops the run (every device) when cancelled or past its deadline,
    /// checked at every iteration of a `while` loop.
    pub cancel: CancelToken,
}

impl Default for RunOptions {
    /// Seed 0, a 10-second timeout, no routes, a token that never stops.
    fn default() -> Self {
        RunOptions {
            rng_seed: 0,
            timeout: Duration::from_secs(10),
            channel_routes: HashMap::new(),
            cancel: CancelToken::new(),
        }
    }
}

/// What one device exchanges with the host while it runs: the caller fills
/// the inputs before the run and reads the outputs after it.
#[derive(Clone, Debug, Default)]
pub struct Feeds {
    /// Data for `infeed`, read front to back (one literal per `infeed`).
    pub infeed: VecDeque<Literal>,
    /// Data `outfeed` wrote, in order.
    pub outfeed: Vec<Literal>,
    /// Data for `recv` with `is_host_transfer=true`, by channel id.
    pub from_host: BTreeMap<i64, VecDeque<Literal>>,
    /// Data `send` with `is_host_transfer=true` wrote, by channel id.
    pub to_host: BTreeMap<i64, Vec<Literal>>,
}

/// Stack of a device thread: nested calls and loops recurse in the
/// evaluator.
const DEVICE_STACK_BYTES: usize = 64 << 20;

/// Stack reserved per level of nested computations (a release build uses
/// about 2 KiB; an unoptimized one several times that).
const STACK_BYTES_PER_LEVEL: usize = 32 << 10;

/// Computations nested at most this deep run a single device on the
/// calling thread (whose stack may be as small as a test thread's 2 MiB).
const INLINE_CALL_DEPTH: usize = 32;

/// The deepest nesting of computations the interpreter runs: a thread
/// with `STACK_BYTES_PER_LEVEL` per level, 1 GiB of address space.
pub const MAX_CALL_DEPTH: usize = (1 << 30) / STACK_BYTES_PER_LEVEL;

/// The most devices one run has: each runs on its own thread with
/// 64 MiB of stack reserved (64 GiB of address space for
/// 1024 devices); beyond that, starting the threads exhausts the process.
pub const MAX_DEVICES: usize = 1024;

/// Runs the entry computation of `module` on every device of `assignment`:
/// `args[d]` are device `d`'s arguments, `feeds[d]` its host data (none at
/// all when `feeds` is empty). Returns each device's result.
pub(super) fn run(
    interp: &Interpreter,
    module: &HloModule,
    args: &[Vec<&Literal>],
    assignment: DeviceAssignment,
    options: &RunOptions,
    feeds: &mut [Feeds],
) -> Result<Vec<Literal>, InterpError> {
    let count = assignment.checked_device_count()?;
    if args.len() != count {
        return Err(InterpError::DeviceCount {
            what: "argument lists",
            expected: count,
            actual: args.len(),
        });
    }
    let mut no_feeds = Vec::new();
    let feeds = if feeds.is_empty() {
        no_feeds.resize_with(count, Feeds::default);
        &mut no_feeds[..]
    } else if feeds.len() == count {
        feeds
    } else {
        return Err(InterpError::DeviceCount {
            what: "feeds",
            expected: count,
            actual: feeds.len(),
        });
    };
    // A cycle or a missing computation fails verification on the device.
    let depth = module.call_depth().unwrap_or(1);
    if depth > MAX_CALL_DEPTH {
        return Err(InterpError::TooDeep {
            depth,
            max: MAX_CALL_DEPTH,
        });
    }
    let stack_bytes = DEVICE_STACK_BYTES.max(depth * STACK_BYTES_PER_LEVEL);
    let hub = Arc::new(Hub::new(assignment, options.timeout));
    let run_device = |d: usize, args: &[&Literal], feeds: &mut Feeds| {
        // Marks the device failed if the evaluator panics, so that the
        // others stop waiting for it.
        let mut finish = Finish {
            hub: &hub,
            device: d,
            ok: false,
        };
        let device = Device::new(d, Arc::clone(&hub));
        let io = Io::new(feeds, options);
        let result = eval::run_entry(interp, module, args, device, io, &options.cancel);
        finish.ok = result.is_ok();
        result
    };
    let results: Vec<Result<Literal, InterpError>> = if count == 1 && depth <= INLINE_CALL_DEPTH {
        vec![run_device(0, &args[0], &mut feeds[0])]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = args
                .iter()
                .zip(feeds.iter_mut())
                .enumerate()
                .map(|(d, (args, feeds))| {
                    std::thread::Builder::new()
                        .name(format!("xla-device-{d}"))
                        .stack_size(stack_bytes)
                        .spawn_scoped(scope, move || run_device(d, args, feeds))
                        .map_err(|e| {
                            // The others stop waiting for this device.
                            hub.finish(d, false);
                            InterpError::DeviceThread {
                                device: d,
                                message: e.to_string(),
                            }
                        })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.and_then(|h| {
                        h.join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                })
                .collect()
        })
    };
    // The device that failed first explains the failure; the others only
    // saw it while waiting.
    let mut results = results;
    if let Some(d) = hub.first_failed().filter(|&d| results[d].is_err()) {
        return Err(results.swap_remove(d).expect_err("checked above"));
    }
    results.into_iter().collect()
}

/// Tells the hub, when dropped, that a device finished (or failed).
struct Finish<'a> {
    hub: &'a Hub<Contribution>,
    device: usize,
    ok: bool,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.hub.finish(self.device, self.ok);
    }
}
