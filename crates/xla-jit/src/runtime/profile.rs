//! Where a program's time goes: the wall time of each step (kernel, dot,
//! copy, loop, conditional, interpreter fallback), summed over the runs
//! given the same [`Profile`].

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use super::thunk::Thunk;

/// Time per step of an executable's program, summed over every run given
/// it ([`crate::ExecuteOptions::profile`]). Steps inside loops and
/// conditionals are counted each time they run, and the loop or
/// conditional's own line includes them. A profile is for the runs of one
/// executable, whose steps it tells apart by where the executable keeps
/// them.
#[derive(Debug, Default)]
pub struct Profile {
    steps: Mutex<HashMap<usize, Step>>,
}

/// One step's totals.
#[derive(Clone, Debug)]
pub struct Step {
    /// What the step is: `kernel <name>`, `dot <name>`, `copy`, `while`, …
    pub label: String,
    /// Nesting depth (0: the entry computation's own steps).
    pub depth: usize,
    /// Wall time summed over every time it ran.
    pub total: Duration,
    /// How many times it ran.
    pub count: u64,
}

impl Profile {
    /// An empty profile.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one run of `thunk` (at `depth`) that took `time`.
    pub(crate) fn record(&self, thunk: &Thunk, depth: usize, time: Duration) {
        let mut steps = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        let step = steps
            .entry(std::ptr::from_ref(thunk) as usize)
            .or_insert_with(|| Step {
                label: label(thunk),
                depth,
                total: Duration::ZERO,
                count: 0,
            });
        step.total += time;
        step.count += 1;
    }

    /// Every step that ran, the longest first.
    pub fn steps(&self) -> Vec<Step> {
        let steps = self.steps.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<Step> = steps.values().cloned().collect();
        all.sort_by(|a, b| b.total.cmp(&a.total).then(a.label.cmp(&b.label)));
        all
    }

    /// A table of the steps, the longest first: total milliseconds, share
    /// of the entry computation's time, runs, and the step (indented by
    /// its nesting).
    pub fn report(&self) -> String {
        let steps = self.steps();
        let whole: Duration = steps.iter().filter(|s| s.depth == 0).map(|s| s.total).sum();
        let mut out = String::from("  total ms   share      runs  step\n");
        for step in steps {
            let share = if whole.is_zero() {
                0.0
            } else {
                100.0 * step.total.as_secs_f64() / whole.as_secs_f64()
            };
            let _ = writeln!(
                out,
                "{:>10.3} {:>6.1}% {:>9}  {}{}",
                step.total.as_secs_f64() * 1e3,
                share,
                step.count,
                "  ".repeat(step.depth),
                step.label
            );
        }
        out
    }
}

fn label(thunk: &Thunk) -> String {
    match thunk {
        Thunk::Kernel(k) => format!("kernel {} ({} tasks)", k.name, k.tasks),
        Thunk::Dot(d) => {
            let [batch, m, k] = d.geometry.lhs.sizes();
            let n = d.geometry.rhs.sizes[2];
            let batch = if batch > 1 {
                format!("{batch} × ")
            } else {
                String::new()
            };
            let types = if d.operand_type == d.element_type {
                d.element_type.name().to_string()
            } else {
                format!("{} → {}", d.operand_type.name(), d.element_type.name())
            };
            format!("dot {} ({batch}{m}×{k} · {k}×{n}, {types})", d.name)
        }
        Thunk::Copy(c) => format!("copy of {} bytes", c.bytes),
        Thunk::Window(w) => format!("window copy of {} bytes", w.window.bytes()),
        Thunk::ScalarAdd(a) => format!("scalar add of {}", a.add.by),
        Thunk::While(_) => "while (condition and body)".into(),
        Thunk::Conditional(_) => "conditional".into(),
        Thunk::Library(l) => format!("library {} ({})", l.name, l.routine.describe()),
        Thunk::Collective(c) => format!("{} {}", c.instr.opcode.name(), c.instr.name),
        Thunk::Interpret(i) => format!("interpreter: {}", i.module().name),
    }
}
