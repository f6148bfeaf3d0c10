//! The thread pool: every task runs exactly once, panics propagate, nesting
//! and concurrent callers do not deadlock.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

use xla_jit::pool::ThreadPool;

/// Runs `parallel_for(n)` and returns how often each task ran.
fn run_counts(pool: &ThreadPool, n: usize) -> Vec<usize> {
    let counts: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    pool.parallel_for(n, |task| {
        counts[task].fetch_add(1, SeqCst);
    });
    counts.into_iter().map(AtomicUsize::into_inner).collect()
}

#[test]
fn every_task_runs_exactly_once() {
    for threads in [1, 2, 3, 8] {
        let pool = ThreadPool::new(threads);
        assert_eq!(pool.threads(), threads);
        for n in [0, 1, 2, 3, 7, 64, 1000] {
            assert_eq!(
                run_counts(&pool, n),
                vec![1; n],
                "threads {threads}, tasks {n}"
            );
        }
    }
}

#[test]
fn many_back_to_back_jobs() {
    let pool = ThreadPool::new(4);
    let total = AtomicUsize::new(0);
    for round in 0..2000 {
        pool.parallel_for(round % 5, |task| {
            total.fetch_add(task + 1, SeqCst);
        });
    }
    // Each round of n tasks adds 1 + … + n; n cycles through 0..5.
    assert_eq!(total.into_inner(), 400 * (1 + 3 + 6 + 10));
}

#[test]
fn zero_threads_means_the_caller_only() {
    let pool = ThreadPool::new(0);
    assert_eq!(pool.threads(), 1);
    let caller = std::thread::current().id();
    pool.parallel_for(5, |_| assert_eq!(std::thread::current().id(), caller));
}

#[test]
fn tasks_run_on_several_threads() {
    let pool = ThreadPool::new(2);
    let ids = Mutex::new(std::collections::HashSet::new());
    // Each task waits until both have started, so a single thread cannot run
    // both (the wait gives up after 10 s so a failure cannot hang).
    let started = AtomicUsize::new(0);
    pool.parallel_for(2, |_| {
        started.fetch_add(1, SeqCst);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while started.load(SeqCst) < 2 && std::time::Instant::now() < deadline {
            std::hint::spin_loop();
        }
        ids.lock().unwrap().insert(std::thread::current().id());
    });
    assert_eq!(ids.into_inner().unwrap().len(), 2);
}

#[test]
fn a_panic_propagates_and_the_pool_survives() {
    let pool = ThreadPool::new(3);
    let ran = AtomicUsize::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        pool.parallel_for(100, |task| {
            ran.fetch_add(1, SeqCst);
            if task == 7 {
                panic!("task seven failed");
            }
        })
    }));
    let payload = result.expect_err("the panic must reach the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"task seven failed"));
    assert!(ran.load(SeqCst) >= 8);
    assert_eq!(run_counts(&pool, 10), vec![1; 10]);
}

#[test]
fn nested_calls_run_inline() {
    let pool = ThreadPool::new(2);
    let counts: Vec<AtomicUsize> = (0..12).map(|_| AtomicUsize::new(0)).collect();
    pool.parallel_for(3, |outer| {
        pool.parallel_for(4, |inner| {
            counts[outer * 4 + inner].fetch_add(1, SeqCst);
        });
    });
    assert!(counts.iter().all(|c| c.load(SeqCst) == 1));
}

#[test]
fn concurrent_callers_share_one_pool() {
    let pool = Arc::new(ThreadPool::new(2));
    let callers: Vec<_> = (0..4)
        .map(|_| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                for n in 0..200 {
                    assert_eq!(run_counts(&pool, n % 9), vec![1; n % 9]);
                }
            })
        })
        .collect();
    for caller in callers {
        caller.join().unwrap();
    }
}

#[test]
fn the_global_pool_matches_the_machine() {
    let expected = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(ThreadPool::global().threads(), expected);
    assert_eq!(run_counts(ThreadPool::global(), 5), vec![1; 5]);
}

/// Tasks run in the caller's flush mode on every thread: under an
/// `FtzGuard` a subnormal product is zero in every task, also those other
/// threads ran, and without one it is not.
#[test]
fn tasks_run_in_the_callers_flush_mode() {
    let pool = ThreadPool::new(3);
    let caller = std::thread::current().id();
    // Each task's product, and whether a worker ran it.
    let products = |pool: &ThreadPool| {
        let out: Vec<Mutex<(f32, bool)>> = (0..64).map(|_| Mutex::new((f32::NAN, false))).collect();
        pool.parallel_for(64, |task| {
            let tiny = std::hint::black_box(1e-30f32);
            let worker = std::thread::current().id() != caller;
            *out[task].lock().unwrap() = (tiny * std::hint::black_box(1e-10f32), worker);
            std::thread::sleep(std::time::Duration::from_micros(200));
        });
        out.into_iter()
            .map(|m| m.into_inner().unwrap())
            .collect::<Vec<(f32, bool)>>()
    };
    {
        let _guard = xla_jit::ftz::FtzGuard::new();
        let got = products(&pool);
        assert!(
            got.iter().any(|&(_, worker)| worker),
            "no worker ran a task"
        );
        // Bits, not `== 0.0`: under DAZ a subnormal compares equal to zero.
        assert!(got.iter().all(|&(p, _)| p.to_bits() == 0), "{got:?}");
    }
    assert!(products(&pool).iter().all(|&(p, _)| p.to_bits() != 0));
}
