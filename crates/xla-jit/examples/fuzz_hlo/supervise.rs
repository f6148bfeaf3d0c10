//! The supervisor: worker processes over seed ranges, restarted after an
//! abort or a hang, and the findings they report, grouped.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::corpus::Corpus;
use crate::{mutant, unescape, Options};

/// Lines of a dead worker's stderr kept for its report.
const STDERR_LINES: usize = 20;

/// One kind of defect and the seeds that showed it.
struct Group {
    kind: String,
    seeds: Vec<u64>,
}

#[derive(Default)]
struct Tally {
    verdicts: BTreeMap<String, u64>,
    groups: BTreeMap<String, Group>,
    /// Verdict counts by mutation kind (a mutant counts for each of its
    /// mutations).
    by_mutation: BTreeMap<String, BTreeMap<String, u64>>,
    cases: u64,
}

/// Runs `options.seeds` in `options.jobs` workers; prints each new kind of
/// finding as it comes and a summary at the end. Returns whether anything
/// was found.
pub fn campaign(corpus: &Corpus, options: &Options) -> bool {
    let tally = Mutex::new(Tally::default());
    let (start, end) = (options.seeds.start, options.seeds.end);
    let jobs = options.jobs as u64;
    let chunk = (end - start).div_ceil(jobs).max(1);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for j in 0..jobs {
            let range = (start + j * chunk).min(end)..(start + (j + 1) * chunk).min(end);
            let tally = &tally;
            scope.spawn(move || supervise(corpus, options, range, tally));
        }
    });
    let tally = tally.into_inner().unwrap();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "\n{} cases (seeds {start}..{end}) in {seconds:.0} s ({:.0}/s)",
        tally.cases,
        tally.cases as f64 / seconds
    );
    for (verdict, count) in &tally.verdicts {
        println!("  {verdict:<12} {count}");
    }
    println!("by mutation:");
    for (kind, verdicts) in &tally.by_mutation {
        let counts: Vec<String> = verdicts.iter().map(|(v, n)| format!("{v} {n}")).collect();
        println!("  {kind:<20} {}", counts.join(", "));
    }
    println!("{} kinds of finding", tally.groups.len());
    let mut groups: Vec<(&String, &Group)> = tally.groups.iter().collect();
    groups.sort_by_key(|(_, g)| std::cmp::Reverse(g.seeds.len()));
    for (signature, group) in groups {
        let shown: Vec<String> = group.seeds.iter().take(8).map(u64::to_string).collect();
        println!(
            "  {:>5} × [{}] {signature}\n        seeds {}",
            group.seeds.len(),
            group.kind,
            shown.join(" ")
        );
    }
    !tally.groups.is_empty()
}

/// What a worker's stdout said, or that it went quiet or away.
enum Event {
    Line(String),
    Closed,
}

/// Runs `range` to the end, restarting the worker after each crash or hang.
fn supervise(
    corpus: &Corpus,
    options: &Options,
    range: std::ops::Range<u64>,
    tally: &Mutex<Tally>,
) {
    let timeout = Duration::from_secs(options.timeout_secs);
    let mut next = range.start;
    let mut failed_starts = 0;
    while next < range.end {
        let Worker {
            mut child,
            lines,
            stderr,
            stderr_reader,
        } = spawn(options, next..range.end);
        let mut current: Option<(u64, Instant)> = None;
        let mut stage = String::new();
        loop {
            let wait = current.map_or(timeout * 6, |(_, t)| timeout.saturating_sub(t.elapsed()));
            match lines.recv_timeout(wait) {
                Ok(Event::Line(line)) => {
                    let mut words = line.splitn(2, ' ');
                    match (words.next(), words.next()) {
                        (Some("case"), Some(seed)) => {
                            current = seed.parse().ok().map(|s| (s, Instant::now()));
                            stage.clear();
                        }
                        (Some("stage"), Some(s)) => stage = s.to_string(),
                        (Some("done"), Some(rest)) => {
                            let mut words = rest.splitn(3, ' ').skip(1);
                            let verdict = words.next().unwrap_or("?").to_string();
                            let mut t = tally.lock().unwrap();
                            t.cases += 1;
                            for kind in words.next().unwrap_or_default().split(',') {
                                *t.by_mutation
                                    .entry(kind.to_string())
                                    .or_default()
                                    .entry(verdict.clone())
                                    .or_default() += 1;
                            }
                            *t.verdicts.entry(verdict).or_default() += 1;
                            if t.cases.is_multiple_of(1000) {
                                eprintln!("… {} cases", t.cases);
                            }
                            if let Some((seed, _)) = current.take() {
                                next = seed + 1;
                            }
                        }
                        _ if line.starts_with("finding\t") => {
                            let parts: Vec<&str> = line.splitn(6, '\t').collect();
                            if let [_, seed, kind, _stage, signature, detail] = parts[..] {
                                let seed = seed.parse().unwrap_or(0);
                                record(
                                    corpus,
                                    tally,
                                    seed,
                                    kind,
                                    &unescape(signature),
                                    &unescape(detail),
                                );
                            }
                        }
                        _ => eprintln!("worker: {line}"),
                    }
                }
                Ok(Event::Closed) => {
                    let status = child.wait();
                    let _ = stderr_reader.join();
                    let success = status.as_ref().is_ok_and(|s| s.success());
                    let status = status.map(|s| s.to_string()).unwrap_or_default();
                    if let Some((seed, _)) = current {
                        let stderr = stderr.lock().unwrap();
                        let first = stderr.head.first().cloned().unwrap_or_default();
                        let signature = format!("abort in {stage}: {}", normalize(&first));
                        let detail = format!("worker {status}\n{}", stderr.text());
                        record(corpus, tally, seed, "abort", &signature, &detail);
                        count(tally, "abort");
                        next = seed + 1;
                        failed_starts = 0;
                    } else if !success && next < range.end {
                        // Died between cases (e.g. the binary was being
                        // rebuilt when it started): start again, a few times.
                        failed_starts += 1;
                        if failed_starts == 3 {
                            eprintln!(
                                "worker failed 3 times before seed {next} ({status}): {}; stopping",
                                stderr.lock().unwrap().text()
                            );
                            next = range.end;
                        }
                    } else {
                        next = range.end;
                    }
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    let Some((seed, _)) = current else {
                        eprintln!(
                            "worker silent for {:?} between cases; stopping",
                            timeout * 6
                        );
                        next = range.end;
                        break;
                    };
                    let text = mutant(corpus, seed).text;
                    let loop_note = if text.contains(" while(") {
                        " (module has a while loop)"
                    } else {
                        ""
                    };
                    let signature = format!("hang in {stage}{loop_note}");
                    let detail = format!("no result after {timeout:?}");
                    record(corpus, tally, seed, "hang", &signature, &detail);
                    count(tally, "hang");
                    next = seed + 1;
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
    }
}

fn count(tally: &Mutex<Tally>, verdict: &str) {
    let mut t = tally.lock().unwrap();
    t.cases += 1;
    *t.verdicts.entry(verdict.to_string()).or_default() += 1;
}

/// Adds a finding; the first of its signature prints in full.
fn record(
    corpus: &Corpus,
    tally: &Mutex<Tally>,
    seed: u64,
    kind: &str,
    signature: &str,
    detail: &str,
) {
    let mut t = tally.lock().unwrap();
    let group = t
        .groups
        .entry(signature.to_string())
        .or_insert_with(|| Group {
            kind: kind.to_string(),
            seeds: Vec::new(),
        });
    group.seeds.push(seed);
    if group.seeds.len() > 1 {
        return;
    }
    let mutant = mutant(corpus, seed);
    println!("=== {kind}: {signature}");
    println!(
        "seed {seed} (from {}): {}",
        mutant.base,
        mutant.mutations.join("; ")
    );
    println!("{detail}");
    println!("--- module\n{}---", mutant.text);
}

/// A message with its numbers replaced by `#`, to group findings.
fn normalize(message: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in message.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            out.push(c);
            in_number = false;
        }
    }
    out
}

/// A running worker process.
struct Worker {
    child: Child,
    /// Its stdout, line by line, then [`Event::Closed`].
    lines: Receiver<Event>,
    stderr: Arc<Mutex<Stderr>>,
    /// Reads stderr until the worker exits.
    stderr_reader: JoinHandle<()>,
}

/// The first and the last lines a worker wrote to stderr (an abort's
/// message comes first, its backtrace after).
#[derive(Default)]
struct Stderr {
    head: Vec<String>,
    tail: VecDeque<String>,
}

impl Stderr {
    fn push(&mut self, line: String) {
        if self.head.len() < STDERR_LINES {
            self.head.push(line);
            return;
        }
        if self.tail.len() == STDERR_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    fn text(&self) -> String {
        let mut lines = self.head.clone();
        if !self.tail.is_empty() {
            lines.push("…".into());
            lines.extend(self.tail.iter().cloned());
        }
        lines.join("\n")
    }
}

/// Starts a worker on `seeds` under the address-space limit.
fn spawn(options: &Options, seeds: std::ops::Range<u64>) -> Worker {
    let exe = std::env::current_exe().expect("the fuzzer's own path");
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!(
            "ulimit -v {} && exec \"$0\" \"$@\"",
            options.mem_mib * 1024
        ))
        .arg(exe)
        .arg("--worker")
        .arg("--seeds")
        .arg(format!("{}..{}", seeds.start, seeds.end))
        .args(options.corpus_args())
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the worker starts");
    let stdout = child.stdout.take().unwrap();
    let stderr_pipe = child.stderr.take().unwrap();
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if send.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = send.send(Event::Closed);
    });
    let stderr = Arc::new(Mutex::new(Stderr::default()));
    let sink = Arc::clone(&stderr);
    let stderr_reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr_pipe).lines() {
            let Ok(line) = line else { break };
            sink.lock().unwrap().push(line);
        }
    });
    Worker {
        child,
        lines,
        stderr,
        stderr_reader,
    }
}
