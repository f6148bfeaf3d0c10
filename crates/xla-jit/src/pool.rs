//! A fixed-size thread pool with one operation: [`ThreadPool::parallel_for`].
//!
//! Kernels split their outer iteration space into tasks and call
//! `parallel_for(n_tasks, |task| ...)`. The calling thread runs tasks too, so a
//! pool of `threads` threads has `threads - 1` workers. Tasks are claimed one
//! at a time from a shared counter, so uneven tasks balance themselves.
//!
//! Cost (2-core Zen 5, `examples/gemm.rs`): a call whose workers are still
//! spinning from the previous call costs about 0.2–0.8 µs (claiming tasks
//! moves a few cache lines between the cores); a call that must wake a
//! sleeping worker costs about 4 µs (a futex wake-up). Workers spin for
//! about 100 µs after each job before they sleep, so the kernels of one
//! executable run back to back without paying the wake-up. A call allocates
//! nothing. Work below ~10 µs per task is not worth splitting.
//!
//! Only one job runs at a time. A `parallel_for` issued while the pool is busy
//! (from inside a task, or from another thread) runs its tasks inline on the
//! calling thread, so nesting cannot deadlock. A panicking task stops the
//! job from handing out further tasks; once every running task has finished,
//! the panic resumes on the calling thread and the pool stays usable.
//! Tasks run in the caller's floating-point flush mode (DAZ/FTZ), on
//! whichever thread.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;

use crate::ftz;

/// Spin iterations before a thread sleeps: a `spin_loop` hint (`pause`)
/// takes about 25 ns on Zen 5, so about 100 µs.
const SPIN_ITERATIONS: u32 = 1 << 12;

/// A pool of threads that run the tasks of one job at a time.
pub struct ThreadPool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

/// A value alone on its cache line, so that threads writing it do not
/// invalidate their neighbours' reads.
#[repr(align(64))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// One `parallel_for` call, on the caller's stack while workers may read it.
struct Job<'f> {
    task: &'f (dyn Fn(usize) + Sync),
    n_tasks: usize,
    /// The next task index to hand out.
    next: Padded<AtomicUsize>,
    /// The first panic of a task.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The caller's flush mode ([`ftz::flush_mode`]), which every task runs
    /// in: a kernel or dot run under an [`ftz::FtzGuard`] flushes
    /// subnormals on every thread.
    flush: u32,
}

/// State shared by the caller and the workers.
///
/// Protocol: the caller publishes `job`, bumps `epoch` and wakes sleepers.
/// A worker that sees a new epoch increments `active` and only then reads
/// `job`; the caller, after the last task was handed out, clears `job` and
/// waits for `active == 0`. All of these are `SeqCst`, so a worker either
/// is counted in `active` before the job is cleared, or sees it cleared.
struct Shared {
    job: AtomicPtr<Job<'static>>,
    epoch: Padded<AtomicU64>,
    active: Padded<AtomicUsize>,
    busy: AtomicBool,
    shutdown: AtomicBool,
    /// Workers sleeping (or about to sleep) on `work`.
    sleepers: AtomicUsize,
    work_lock: Mutex<()>,
    work: Condvar,
    /// The caller sleeps (or is about to) on `done`.
    caller_waiting: AtomicBool,
    done_lock: Mutex<()>,
    done: Condvar,
}

impl ThreadPool {
    /// A pool of `threads` threads in all (the caller and `threads - 1`
    /// workers); `0` counts as 1, which runs every task on the caller.
    pub fn new(threads: usize) -> ThreadPool {
        let shared = Arc::new(Shared {
            job: AtomicPtr::new(std::ptr::null_mut()),
            epoch: Padded(AtomicU64::new(0)),
            active: Padded(AtomicUsize::new(0)),
            busy: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            work_lock: Mutex::new(()),
            work: Condvar::new(),
            caller_waiting: AtomicBool::new(false),
            done_lock: Mutex::new(()),
            done: Condvar::new(),
        });
        let workers = (1..threads.max(1))
            .map(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("xla-pool-{i}"))
                    .spawn(move || worker_loop(&shared))
                    .expect("spawning a thread-pool worker")
            })
            .collect();
        ThreadPool { shared, workers }
    }

    /// The process-wide pool, sized to the machine
    /// ([`std::thread::available_parallelism`]), created on first use.
    pub fn global() -> &'static ThreadPool {
        static GLOBAL: OnceLock<ThreadPool> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            ThreadPool::new(std::thread::available_parallelism().map_or(1, |n| n.get()))
        })
    }

    /// The number of threads that run tasks, the caller included.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `task(0)`, …, `task(n_tasks - 1)`, each exactly once, spread over
    /// the pool's threads, and returns when all have finished. The order and
    /// the thread of each task are unspecified. A panic in a task is resumed
    /// here after the other running tasks finish.
    pub fn parallel_for<F: Fn(usize) + Sync>(&self, n_tasks: usize, task: F) {
        let shared = &*self.shared;
        if n_tasks <= 1 || self.workers.is_empty() || shared.busy.swap(true, SeqCst) {
            (0..n_tasks).for_each(task);
            return;
        }
        let job = Job {
            task: &task,
            n_tasks,
            next: Padded(AtomicUsize::new(0)),
            panic: Mutex::new(None),
            flush: ftz::flush_mode(),
        };
        // SAFETY (lifetime erasure): workers dereference the pointer only
        // while counted in `active`, and this function clears it and waits
        // for `active == 0` before `job` goes out of scope.
        let erased = &job as *const Job<'_> as *mut Job<'static>;
        shared.job.store(erased, SeqCst);
        shared.epoch.fetch_add(1, SeqCst);
        if shared.sleepers.load(SeqCst) > 0 {
            let _guard = shared.work_lock.lock().unwrap_or_else(|e| e.into_inner());
            shared.work.notify_all();
        }
        job.run();
        shared.job.store(std::ptr::null_mut(), SeqCst);
        shared.wait_idle();
        shared.busy.store(false, SeqCst);
        let panic = job.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
    }
}

impl Job<'_> {
    /// Claims and runs tasks until none are left, in the caller's flush
    /// mode.
    fn run(&self) {
        ftz::with_flush_mode(self.flush, || self.claim_and_run());
    }

    fn claim_and_run(&self) {
        loop {
            let index = self.next.fetch_add(1, SeqCst);
            if index >= self.n_tasks {
                return;
            }
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (self.task)(index))) {
                // Hand out no more tasks; keep the first payload.
                self.next.store(self.n_tasks, SeqCst);
                let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(payload);
            }
        }
    }
}

impl Shared {
    /// The caller's wait for every worker to leave the job.
    fn wait_idle(&self) {
        for _ in 0..SPIN_ITERATIONS {
            if self.active.load(SeqCst) == 0 {
                return;
            }
            std::hint::spin_loop();
        }
        self.caller_waiting.store(true, SeqCst);
        let mut guard = self.done_lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.active.load(SeqCst) != 0 {
            guard = self.done.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        self.caller_waiting.store(false, SeqCst);
    }

    /// A worker's wait for an epoch other than `seen`; returns the new one.
    fn wait_for_work(&self, seen: u64) -> u64 {
        for _ in 0..SPIN_ITERATIONS {
            let epoch = self.epoch.load(SeqCst);
            if epoch != seen {
                return epoch;
            }
            std::hint::spin_loop();
        }
        self.sleepers.fetch_add(1, SeqCst);
        let mut guard = self.work_lock.lock().unwrap_or_else(|e| e.into_inner());
        let epoch = loop {
            let epoch = self.epoch.load(SeqCst);
            if epoch != seen {
                break epoch;
            }
            guard = self.work.wait(guard).unwrap_or_else(|e| e.into_inner());
        };
        drop(guard);
        self.sleepers.fetch_sub(1, SeqCst);
        epoch
    }
}

fn worker_loop(shared: &Shared) {
    let mut seen = 0;
    loop {
        seen = shared.wait_for_work(seen);
        if shared.shutdown.load(SeqCst) {
            return;
        }
        shared.active.fetch_add(1, SeqCst);
        let job = shared.job.load(SeqCst);
        if !job.is_null() {
            // SAFETY: counted in `active`, so the job outlives this use.
            unsafe { &*job }.run();
        }
        if shared.active.fetch_sub(1, SeqCst) == 1 && shared.caller_waiting.load(SeqCst) {
            let _guard = shared.done_lock.lock().unwrap_or_else(|e| e.into_inner());
            shared.done.notify_all();
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, SeqCst);
        self.shared.epoch.fetch_add(1, SeqCst);
        {
            let _guard = self
                .shared
                .work_lock
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            self.shared.work.notify_all();
        }
        for worker in self.workers.drain(..) {
            // A worker never panics: tasks run under `catch_unwind`.
            let _ = worker.join();
        }
    }
}

impl std::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadPool")
            .field("threads", &self.threads())
            .finish()
    }
}
