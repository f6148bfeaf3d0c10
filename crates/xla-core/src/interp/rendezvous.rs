//! Where the devices of a multi-device run meet: collectives exchange their
//! operands in a *meeting*, send/recv move data through *mailboxes*.
//!
//! The interpreter's devices contribute copies of their operands; the
//! JIT's in-process communicator contributes the addresses of its buffers
//! (the hub is generic over what a contribution is).
//!
//! Every wait ends: it returns as soon as what it waits for is there, and
//! fails with [`InterpError::Collective`] (naming the instruction and the
//! missing devices) when
//! * a device failed (an error anywhere stops every waiting device),
//! * a device it waits for finished its program without arriving,
//! * every unfinished device is waiting and none of those waits can be
//!   satisfied (a deadlock, e.g. two devices at different collectives), or
//! * the run's timeout passed (a device is still busy, or loops forever).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::devices::DeviceAssignment;
use super::InterpError;
use crate::hlo::{HloInstruction, Opcode};
use crate::Literal;

/// One execution of a collective by one group of devices. Devices that
/// run the same program compute the same key: the instruction's name, how
/// many times this device ran it before, and the group's devices in group
/// order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MeetingKey {
    /// The collective instruction's name (unique in its module).
    pub instruction: String,
    /// How many times this device executed the instruction before.
    pub occurrence: u64,
    /// The participating devices, in group order.
    pub participants: Vec<usize>,
}

/// What one interpreter device contributes to a meeting (one literal per
/// operand).
pub(super) type Contribution = Arc<Vec<Literal>>;

/// The shared state of a run's devices; `C` is what a device contributes
/// to a meeting.
pub struct Hub<C> {
    assignment: DeviceAssignment,
    timeout: Duration,
    state: Mutex<State<C>>,
    wake: Condvar,
}

struct State<C> {
    devices: Vec<Activity>,
    meetings: HashMap<MeetingKey, Meeting<C>>,
    /// Data sent on a channel to a device, oldest first, keyed by
    /// `(channel_id, receiving device)`.
    mailboxes: HashMap<(i64, usize), VecDeque<Literal>>,
    /// The device that failed first: its error explains the others'.
    first_failed: Option<usize>,
}

impl<C> State<C> {
    fn fail(&mut self, device: usize) {
        self.devices[device] = Activity::Failed;
        self.first_failed.get_or_insert(device);
    }
}

#[derive(Clone, Debug)]
enum Activity {
    Running,
    Waiting(Wait),
    Finished,
    Failed,
}

#[derive(Clone, Debug)]
enum Wait {
    Meeting(MeetingKey),
    Mail {
        channel: i64,
        device: usize,
        instruction: String,
    },
}

impl Wait {
    fn instruction(&self) -> &str {
        match self {
            Wait::Meeting(key) => &key.instruction,
            Wait::Mail { instruction, .. } => instruction,
        }
    }
}

struct Meeting<C> {
    contributions: Vec<Option<C>>,
    /// Participants that took the contributions and left.
    left: usize,
}

impl<C> Meeting<C> {
    fn is_complete(&self) -> bool {
        self.contributions.iter().all(Option::is_some)
    }
}

impl<C: Clone> Hub<C> {
    /// A hub for `assignment.device_count()` devices, all running.
    pub fn new(assignment: DeviceAssignment, timeout: Duration) -> Self {
        Hub {
            assignment,
            timeout,
            state: Mutex::new(State {
                devices: vec![Activity::Running; assignment.device_count()],
                meetings: HashMap::new(),
                mailboxes: HashMap::new(),
                first_failed: None,
            }),
            wake: Condvar::new(),
        }
    }

    /// The replicas and partitions of the run.
    pub fn assignment(&self) -> DeviceAssignment {
        self.assignment
    }

    fn lock(&self) -> MutexGuard<'_, State<C>> {
        // A device thread never panics while holding the lock; if one did,
        // the state is still consistent (every update is a single step).
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Contributes `contribution` to the meeting `key` as `device` (one of
    /// its participants) at a collective `op`, and waits for every
    /// participant's; returns them in group order.
    pub fn meet(
        &self,
        device: usize,
        key: MeetingKey,
        contribution: C,
        op: Opcode,
    ) -> Result<Vec<C>, InterpError> {
        let count = key.participants.len();
        let position = key
            .participants
            .iter()
            .position(|&d| d == device)
            .expect("a device meets only in groups it belongs to");
        let mut state = self.lock();
        let meeting = state
            .meetings
            .entry(key.clone())
            .or_insert_with(|| Meeting {
                contributions: vec![None; count],
                left: 0,
            });
        debug_assert!(meeting.contributions[position].is_none());
        meeting.contributions[position] = Some(contribution);
        self.wake.notify_all();
        let wait = Wait::Meeting(key.clone());
        let instruction = key.instruction.clone();
        self.wait(state, device, wait, (&instruction, op), |state| {
            let meeting = state.meetings.get_mut(&key)?;
            if !meeting.is_complete() {
                return None;
            }
            let all: Vec<C> = meeting.contributions.iter().flatten().cloned().collect();
            meeting.left += 1;
            if meeting.left == count {
                state.meetings.remove(&key);
            }
            Some(all)
        })
    }

    /// Puts `data` into `device`'s mailbox for `channel`.
    pub fn post(&self, channel: i64, device: usize, data: Literal) {
        let mut state = self.lock();
        state
            .mailboxes
            .entry((channel, device))
            .or_default()
            .push_back(data);
        self.wake.notify_all();
    }

    /// Takes the oldest data from `device`'s mailbox for `channel`, waiting
    /// for it if the mailbox is empty.
    pub fn collect(
        &self,
        channel: i64,
        device: usize,
        instr: &HloInstruction,
    ) -> Result<Literal, InterpError> {
        let state = self.lock();
        let wait = Wait::Mail {
            channel,
            device,
            instruction: instr.name.clone(),
        };
        self.wait(state, device, wait, (&instr.name, instr.opcode), |state| {
            state.mailboxes.get_mut(&(channel, device))?.pop_front()
        })
    }

    /// Records that `device` finished its program (`ok`) or failed, and wakes
    /// every waiting device so that it can re-check what it waits for.
    pub fn finish(&self, device: usize, ok: bool) {
        let mut state = self.lock();
        if ok {
            state.devices[device] = Activity::Finished;
        } else {
            state.fail(device);
        }
        self.wake.notify_all();
    }

    /// The device that failed first, if any did.
    pub fn first_failed(&self) -> Option<usize> {
        self.lock().first_failed
    }

    /// Waits until `ready` gives a value or the wait cannot end; errors
    /// name the instruction `(name, op)` that waited.
    fn wait<T>(
        &self,
        mut state: MutexGuard<'_, State<C>>,
        device: usize,
        wait: Wait,
        (name, op): (&str, Opcode),
        mut ready: impl FnMut(&mut State<C>) -> Option<T>,
    ) -> Result<T, InterpError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(value) = ready(&mut state) {
                state.devices[device] = Activity::Running;
                return Ok(value);
            }
            state.devices[device] = Activity::Waiting(wait.clone());
            let now = Instant::now();
            let stuck = self.why_stuck(&state, &wait).or_else(|| {
                (now >= deadline).then(|| {
                    format!(
                        "{} after waiting {:?}",
                        self.what_is_missing(&state, &wait),
                        self.timeout
                    )
                })
            });
            if let Some(message) = stuck {
                state.fail(device);
                self.wake.notify_all();
                return Err(InterpError::Collective {
                    instruction: name.to_string(),
                    op,
                    message: format!("on {}: {message}", self.assignment.describe(device)),
                });
            }
            state = self
                .wake
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Why `wait` can never be satisfied, if that is already certain.
    fn why_stuck(&self, state: &State<C>, wait: &Wait) -> Option<String> {
        if let Some(failed) = state
            .devices
            .iter()
            .position(|a| matches!(a, Activity::Failed))
        {
            return Some(format!(
                "stopped because {} failed",
                self.assignment.describe(failed)
            ));
        }
        if let Wait::Meeting(key) = wait {
            let meeting = &state.meetings[key];
            let gone: Vec<usize> = absent(meeting, key)
                .filter(|&d| matches!(state.devices[d], Activity::Finished))
                .collect();
            if !gone.is_empty() {
                let names: Vec<String> =
                    gone.iter().map(|&d| self.assignment.describe(d)).collect();
                return Some(format!("{} finished without reaching it", names.join(", ")));
            }
        }
        let nobody_can_move = state.devices.iter().all(|activity| match activity {
            Activity::Running => false,
            Activity::Waiting(w) => !is_satisfied(state, w),
            Activity::Finished | Activity::Failed => true,
        });
        nobody_can_move.then(|| format!("deadlock: {}", self.what_is_missing(state, wait)))
    }

    /// Which devices `wait` still needs and what they are doing.
    fn what_is_missing(&self, state: &State<C>, wait: &Wait) -> String {
        match wait {
            Wait::Meeting(key) => {
                let missing: Vec<String> = absent(&state.meetings[key], key)
                    .map(|d| format!("{} {}", self.assignment.describe(d), doing(state, d)))
                    .collect();
                format!(
                    "{} of its group {} did not arrive ({})",
                    plural(missing.len(), "device"),
                    self.describe_all(&key.participants),
                    missing.join("; ")
                )
            }
            Wait::Mail { channel, .. } => {
                let others: Vec<String> = (0..state.devices.len())
                    .map(|d| format!("{} {}", self.assignment.describe(d), doing(state, d)))
                    .collect();
                format!(
                    "no data was sent to it on channel {channel} ({})",
                    others.join("; ")
                )
            }
        }
    }

    fn describe_all(&self, devices: &[usize]) -> String {
        let names: Vec<String> = devices
            .iter()
            .map(|&d| self.assignment.describe(d))
            .collect();
        format!("[{}]", names.join(", "))
    }
}

/// The participants of `key` that have not contributed yet.
fn absent<'a, C>(meeting: &'a Meeting<C>, key: &'a MeetingKey) -> impl Iterator<Item = usize> + 'a {
    key.participants
        .iter()
        .zip(&meeting.contributions)
        .filter(|(_, c)| c.is_none())
        .map(|(&d, _)| d)
}

/// Whether a waiting device's wait would end now.
fn is_satisfied<C>(state: &State<C>, wait: &Wait) -> bool {
    match wait {
        Wait::Meeting(key) => state.meetings.get(key).is_some_and(Meeting::is_complete),
        Wait::Mail {
            channel, device, ..
        } => state
            .mailboxes
            .get(&(*channel, *device))
            .is_some_and(|m| !m.is_empty()),
    }
}

/// What device `d` is doing, for messages.
fn doing<C>(state: &State<C>, d: usize) -> String {
    match &state.devices[d] {
        Activity::Running => "is still running".to_string(),
        Activity::Waiting(w) => format!("is waiting at {}", w.instruction()),
        Activity::Finished => "finished".to_string(),
        Activity::Failed => "failed".to_string(),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
