//! The threads that run the devices of multi-device runs, kept between
//! runs: starting a thread costs tens of microseconds, as much as a small
//! training step's collectives.
//!
//! [`run_devices`] runs one task per device, the first on the calling
//! thread and each other on an idle kept thread (a new one when none is
//! idle), and returns when every task has finished, so the tasks may
//! borrow from the caller.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// A task with its borrows' lifetime erased; [`run_devices`] waits for it
/// before those borrows end.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// The stack of a device thread (a deep program runs its steps on a
/// thread of its own, sized for its depth).
const DEVICE_STACK_BYTES: usize = 16 << 20;

/// Idle device threads, each waiting on its channel for a job.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// Counts the tasks still running and wakes the caller when none is.
struct Latch {
    left: Mutex<usize>,
    done: Condvar,
}

impl Latch {
    fn count_down(&self) {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        *left -= 1;
        if *left == 0 {
            self.done.notify_all();
        }
    }

    fn wait(&self) {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        while *left > 0 {
            left = self.done.wait(left).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A device thread: an idle one, or a new one.
fn worker() -> std::io::Result<Sender<Job>> {
    if let Some(sender) = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop() {
        return Ok(sender);
    }
    let (sender, jobs) = channel::<Job>();
    std::thread::Builder::new()
        .name("xla-device".into())
        .stack_size(DEVICE_STACK_BYTES)
        .spawn(move || {
            // Ends when its sender is dropped.
            for job in jobs {
                job();
            }
        })?;
    Ok(sender)
}

/// Runs `tasks[0]` on the calling thread and every other task on a device
/// thread, and returns when all have finished: each task's result, or
/// `start_failed(d)` for a task whose thread could not start (the task
/// did not run). A task's panic resumes here once every task is done.
pub(crate) fn run_devices<'a, T: Send + 'a>(
    mut tasks: Vec<Box<dyn FnOnce() -> T + Send + 'a>>,
    start_failed: impl Fn(usize, std::io::Error) -> T,
) -> Vec<T> {
    let count = tasks.len();
    let slots: Arc<Vec<Mutex<Option<std::thread::Result<T>>>>> =
        Arc::new((0..count).map(|_| Mutex::new(None)).collect());
    let latch = Arc::new(Latch {
        left: Mutex::new(count.saturating_sub(1)),
        done: Condvar::new(),
    });
    let first = (count > 0).then(|| tasks.remove(0));
    let mut workers = Vec::with_capacity(count.saturating_sub(1));
    for (i, task) in tasks.into_iter().enumerate() {
        let d = i + 1;
        let (slots_d, latch_d) = (Arc::clone(&slots), Arc::clone(&latch));
        let job: Box<dyn FnOnce() + Send + 'a> = Box::new(move || {
            let result = catch_unwind(AssertUnwindSafe(task));
            *slots_d[d].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
            latch_d.count_down();
        });
        // SAFETY: the job's borrows live for `'a`, beyond this call, and
        // this call returns (or unwinds) only after the latch saw every
        // job finish; a job that is not sent is dropped here.
        let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Job>(job) };
        match worker() {
            Ok(sender) => match sender.send(job) {
                Ok(()) => workers.push(sender),
                Err(returned) => {
                    drop(returned.0);
                    let error = std::io::Error::other("the device thread exited");
                    *slots[d].lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(Ok(start_failed(d, error)));
                    latch.count_down();
                }
            },
            Err(e) => {
                drop(job);
                *slots[d].lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(Ok(start_failed(d, e)));
                latch.count_down();
            }
        }
    }
    let first = first.map(|task| catch_unwind(AssertUnwindSafe(task)));
    latch.wait();
    IDLE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .extend(workers);
    let rest = slots.iter().skip(1).map(|slot| {
        (slot.lock().unwrap_or_else(PoisonError::into_inner))
            .take()
            .expect("every task finished")
    });
    first
        .into_iter()
        .chain(rest)
        .map(|result| result.unwrap_or_else(|panic| resume_unwind(panic)))
        .collect()
}
