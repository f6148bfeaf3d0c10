//! Semantic fuzzing: modules that parse but are wrong, or valid but
//! unusual, through the verifier, the pass pipeline, the interpreter and
//! the JIT.
//!
//! ```text
//! cargo run -p xla-jit --example fuzz_hlo -- [--seeds A..B] [--filter TEXT]
//!     [--jobs N] [--timeout SECS] [--mem MIB] [--bench DIR]
//! cargo run -p xla-jit --example fuzz_hlo -- --show SEED [--dump DIR]
//! ```
//!
//! Seed `s` picks a corpus module (a family first, then a member of it:
//! the conformance cases under `tests/conformance/cases` and the
//! benchmark modules of `--bench`, default the repository's `benches/hlo`,
//! shrunk to small sizes) and applies 1–3 mutations of `mutate.rs` to its
//! canonical text; the same seed always gives the same mutant. Each
//! mutant is parsed; if it verifies, it is optimized (verifier after
//! every pass), compiled by the JIT, and run by the interpreter and the
//! JIT on seeded random arguments whose results are compared; if it does
//! not verify, the interpreter and the JIT must refuse it too. Every
//! stage runs under `catch_unwind`.
//!
//! Cases run in worker processes (`--jobs`, default 1) under an address
//! space limit (`--mem`, default 4096 MiB); the supervisor restarts a
//! worker after an abort or a case slower than `--timeout` (default 3 s)
//! and reports the case. Findings are grouped by signature (a panic's
//! location, a message without numbers); the first of each prints with its
//! seed and mutated module, later ones by seed only. `--show SEED` prints
//! one mutant and runs it in this process.
//!
//! The dev profile keeps debug assertions and overflow checks, which find
//! more; `--release` runs more cases per second. The exit status is 1 if
//! anything was found. A campaign re-runs this binary as its workers, so
//! rebuilding it mid-campaign changes what later seeds mean: copy it
//! elsewhere first for long runs. The text scanners have unit tests:
//! `cargo test -p xla-jit --example fuzz_hlo`.

mod case;
mod corpus;
mod mutate;
#[path = "../../tests/runtime_support/mod.rs"]
mod runtime_support;
mod spans;
mod supervise;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use xla_jit::Client;

use corpus::Corpus;
use mutate::mutate;
use runtime_support::Rng;

/// The command line.
pub struct Options {
    seeds: std::ops::Range<u64>,
    filter: String,
    jobs: usize,
    timeout_secs: u64,
    mem_mib: u64,
    bench: PathBuf,
    show: Option<u64>,
    /// With `--show`: where to write the mutant and its arguments.
    dump: Option<PathBuf>,
    worker: bool,
}

impl Options {
    fn parse() -> Result<Options, String> {
        let mut options = Options {
            seeds: 0..1000,
            filter: String::new(),
            jobs: 1,
            timeout_secs: 3,
            mem_mib: 4096,
            bench: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/hlo")),
            show: None,
            dump: None,
            worker: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or(format!("{flag} needs a value"));
            let number = |v: String| v.parse::<u64>().map_err(|e| format!("{v}: {e}"));
            match flag.as_str() {
                "--seeds" => {
                    let v = value()?;
                    let (a, b) = v.split_once("..").ok_or("--seeds A..B")?;
                    options.seeds = number(a.into())?..number(b.into())?;
                }
                "--filter" => options.filter = value()?,
                "--jobs" => options.jobs = number(value()?)?.max(1) as usize,
                "--timeout" => options.timeout_secs = number(value()?)?,
                "--mem" => options.mem_mib = number(value()?)?,
                "--bench" => options.bench = PathBuf::from(value()?),
                "--show" => options.show = Some(number(value()?)?),
                "--dump" => options.dump = Some(PathBuf::from(value()?)),
                "--worker" => options.worker = true,
                other => return Err(format!("unknown argument {other}")),
            }
        }
        Ok(options)
    }

    /// The arguments that give a worker the same corpus.
    fn corpus_args(&self) -> Vec<String> {
        vec![
            "--filter".into(),
            self.filter.clone(),
            "--bench".into(),
            self.bench.display().to_string(),
        ]
    }
}

/// A mutant: the corpus module it came from, its text, the mutations.
pub struct Mutant {
    pub base: String,
    pub text: String,
    pub mutations: Vec<String>,
}

/// The mutant of `seed`.
pub fn mutant(corpus: &Corpus, seed: u64) -> Mutant {
    let mut rng = Rng(seed);
    let family = &corpus.families[rng.below(corpus.families.len())];
    let base = &corpus.seeds[family[rng.below(family.len())]];
    let (text, mutations) = mutate(&base.text, &mut rng);
    Mutant {
        base: base.name.clone(),
        text,
        mutations,
    }
}

fn main() -> ExitCode {
    let options = match Options::parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fuzz_hlo: {e}");
            return ExitCode::from(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let corpus = Corpus::load(&root, &options.bench, &options.filter);
    if corpus.seeds.is_empty() {
        eprintln!("fuzz_hlo: no corpus module matches `{}`", options.filter);
        return ExitCode::from(2);
    }
    if options.worker {
        worker(&corpus, options.seeds);
        return ExitCode::SUCCESS;
    }
    if let Some(seed) = options.show {
        return show(&corpus, seed, options.dump.as_deref());
    }
    eprintln!(
        "corpus: {} modules in {} families ({} skipped)",
        corpus.seeds.len(),
        corpus.families.len(),
        corpus.skipped.len()
    );
    for skipped in &corpus.skipped {
        eprintln!("  skipped {skipped}");
    }
    if supervise::campaign(&corpus, &options) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The worker: runs `seeds` in order, printing the protocol lines the
/// supervisor reads (`case`, `stage`, `finding`, `done`).
fn worker(corpus: &Corpus, seeds: std::ops::Range<u64>) {
    case::install_panic_hook();
    let client = Client::cpu().expect("a Cranelift host");
    for seed in seeds {
        println!("case {seed}");
        let mutant = mutant(corpus, seed);
        let verdict = case::run(&mutant.text, seed, &client, &mut |stage| {
            println!("stage {stage}")
        });
        let word = match verdict {
            case::Verdict::ParseError(_) => "parse-error",
            case::Verdict::Invalid(_) => "invalid",
            case::Verdict::BothFailed => "both-failed",
            case::Verdict::TooLarge => "too-large",
            case::Verdict::Ran => "ran",
            case::Verdict::Known(_) => "known",
            case::Verdict::Finding(f) => {
                println!(
                    "finding\t{seed}\t{}\t{}\t{}\t{}",
                    f.kind,
                    f.stage,
                    escape(&f.signature),
                    escape(&f.detail)
                );
                "finding"
            }
        };
        let kinds: Vec<&str> = mutant
            .mutations
            .iter()
            .map(|m| {
                let kind = m.split(':').next().unwrap_or_default();
                kind.split(" on line").next().unwrap_or_default()
            })
            .collect();
        println!("done {seed} {word} {}", kinds.join(","));
    }
}

/// `--show SEED`: the mutant and its verdict, in this process; with
/// `--dump DIR`, also `DIR/module.hlo` and `DIR/arg<i>.npy`, the case as
/// `xla run` takes it.
fn show(corpus: &Corpus, seed: u64, dump: Option<&Path>) -> ExitCode {
    let mutant = mutant(corpus, seed);
    if let Some(dir) = dump {
        if let Err(e) = dump_case(dir, &mutant.text, seed) {
            eprintln!("fuzz_hlo: cannot dump to {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }
    println!("seed {seed}: {}", mutant.base);
    for m in &mutant.mutations {
        println!("  {m}");
    }
    println!("{}", mutant.text);
    let client = Client::cpu().expect("a Cranelift host");
    case::install_panic_hook();
    let verdict = case::run(&mutant.text, seed, &client, &mut |stage| {
        println!("stage {stage}")
    });
    match verdict {
        case::Verdict::Finding(f) => {
            println!("{}: {}\n{}", f.kind, f.signature, f.detail);
            ExitCode::from(1)
        }
        case::Verdict::ParseError(message) => {
            println!("parse error: {message}");
            ExitCode::SUCCESS
        }
        case::Verdict::Invalid(message) => {
            println!("invalid: {message}");
            ExitCode::SUCCESS
        }
        case::Verdict::BothFailed => {
            println!("both failed");
            ExitCode::SUCCESS
        }
        case::Verdict::TooLarge => {
            println!("too large to run");
            ExitCode::SUCCESS
        }
        case::Verdict::Ran => {
            println!("ran, results agree");
            ExitCode::SUCCESS
        }
        case::Verdict::Known(why) => {
            println!("a known difference: {why}");
            ExitCode::SUCCESS
        }
    }
}

/// Writes the mutant and its arguments (when it parses and they are not
/// too large) into `dir`.
fn dump_case(dir: &Path, text: &str, seed: u64) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("module.hlo"), text).map_err(|e| e.to_string())?;
    let Ok(module) = text.parse::<xla_core::HloModule>() else {
        return Ok(());
    };
    for (i, arg) in case::arguments(&module, seed)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        xla_core::io::write_npy(dir.join(format!("arg{i}.npy")), arg).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// One line: `\` and newlines escaped.
pub fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}
