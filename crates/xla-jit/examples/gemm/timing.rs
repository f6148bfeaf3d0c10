//! Timing: the median wall time and the CPU time of repeated calls.

use std::time::{Duration, Instant};

/// The cost of one call: the median wall time, and the CPU time of all
/// the process's threads per call (on a machine shared with other work the
/// wall time includes time slices given to others; the CPU time does not).
#[derive(Clone, Copy, Debug)]
pub(super) struct Timing {
    pub(super) wall: f64,
    pub(super) cpu: Option<f64>,
}

/// CPU time of every thread of this process so far, in seconds (Linux).
fn process_cpu() -> Option<f64> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total as f64 * 1e-9)
}

/// CPU time of the calling thread so far, in seconds (Linux).
pub(super) fn thread_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(stat.split_whitespace().next()?.parse::<u64>().ok()? as f64 * 1e-9)
}

/// Times at least `runs` calls of `f` (after one warm-up call), and enough
/// calls for `clock` to advance 0.3 s: the kernel updates thread CPU times
/// only at scheduler ticks (1–4 ms), so short measurements would be noise.
pub(super) fn measure_with(clock: fn() -> Option<f64>, runs: usize, mut f: impl FnMut()) -> Timing {
    f();
    let cpu_start = clock();
    let mut times: Vec<f64> = Vec::new();
    let mut next_check = runs;
    let cpu = loop {
        let start = Instant::now();
        f();
        times.push(start.elapsed().as_secs_f64());
        if times.len() == next_check {
            let spent = clock().zip(cpu_start).map(|(end, start)| end - start);
            let wall: f64 = times.iter().sum();
            if spent.unwrap_or(wall) >= 0.3 {
                break spent.map(|s| s / times.len() as f64);
            }
            next_check *= 2;
        }
    };
    times.sort_by(f64::total_cmp);
    Timing {
        wall: times[times.len() / 2],
        cpu,
    }
}

/// [`measure_with`] the CPU time of the whole process.
pub(super) fn measure(runs: usize, f: impl FnMut()) -> Timing {
    measure_with(process_cpu, runs, f)
}

/// Median wall time of `runs` calls of `f`.
pub(super) fn median(runs: usize, f: impl FnMut()) -> Duration {
    Duration::from_secs_f64(measure(runs, f).wall)
}
