//! A mutation fuzzer for the module readers: HLO text, StableHLO text,
//! MLIR bytecode and `jax.export` artifacts, each loaded through
//! [`xla_core::load_module`] (parsing, decoding, lowering, verifying), and
//! every module that loads printed as StableHLO and loaded again.
//!
//! It starts from a corpus (every file under the given folders), mutates
//! inputs (bit flips, truncations, deleted, repeated and spliced ranges,
//! MLIR and HLO tokens inserted, numbers replaced by extreme ones) and
//! reports every input that panics, hangs (more than 10 s) or overflows the
//! stack, saved under `--out`. Nothing is written when nothing is found.
//!
//! ```text
//! cargo run --release -p xla-core --example fuzz_readers -- \
//!     --seconds 3600 --out target/fuzz tests/conformance/cases crates/xla-core/tests/data
//! ```

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use xla_testkit::XorShift;

/// Tokens of the formats, inserted by the structure-aware mutations.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    ",",
    ":",
    "=",
    "->",
    "x",
    "?",
    "%0",
    "%arg0",
    "%1#3",
    "^bb0(",
    "\"",
    "0x",
    "-1",
    "0",
    "99999999999999999999",
    "-9223372036854775808",
    "1.5e308",
    "nan",
    "inf",
    "tensor<",
    "tensor<?x",
    "tuple<",
    "complex<",
    "f32",
    "i1",
    "ui64",
    "bf16",
    "f8E4M3FN",
    "dense<",
    "dense<\"0x",
    "array<i64: ",
    "#stablehlo<",
    "#stablehlo.gather<",
    "#loc1",
    "loc(",
    "loc(#loc",
    "stablehlo.add",
    "stablehlo.while",
    "stablehlo.reduce",
    "stablehlo.constant",
    "stablehlo.case",
    "func.call @main(",
    "func.func public @main(",
    "applies",
    "across dimensions = [",
    "cond {",
    "do {",
    "reducer(",
    "sdy.manual_computation(",
    "ROOT ",
    "ENTRY ",
    "parameter(",
    "tuple(",
    "f32[",
    "{1,0}",
    "to_apply=",
    "while(",
    "condition=",
    "body=",
    "dimensions={",
    "custom_call_target=",
    "\u{0}",
    "\u{ff}",
];

/// One to four mutations of `input`, with `other` for splicing.
fn mutate(input: &[u8], other: &[u8], rng: &mut XorShift) -> Vec<u8> {
    let mut b = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = b.len();
        let at = rng.below(len + 1);
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                b[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                b[i] = rng.next_u64() as u8;
            }
            2 => b.truncate(at),
            3 => {
                let end = (at + rng.below(64)).min(len);
                b.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(256)).min(len);
                let copy = b[at..end].to_vec();
                b.splice(at..at, copy);
            }
            5 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                b.splice(at..at, token.iter().copied());
            }
            6 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + rng.below(512)).min(other.len());
                b.splice(at..at, other[from..end].iter().copied());
            }
            _ => {
                // A number replaced by an extreme one.
                let digits = b.iter().skip(at).position(u8::is_ascii_digit);
                if let Some(d) = digits {
                    let start = at + d;
                    let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
                    let extreme = ["0", "1", "4294967296", "18446744073709551615", "65536"];
                    b.splice(start..end, extreme[rng.below(extreme.len())].bytes());
                }
            }
        }
    }
    b
}

/// Loads `input` (a module of symbolic dimensions for guessed argument
/// shapes); a module that loads is printed as StableHLO and loaded again.
fn exercise(input: &[u8]) {
    let loaded = match xla_core::load_module(input) {
        Err(xla_core::LoadError::NeedsArgumentShapes(_)) => match guessed_arguments(input) {
            Some(shapes) => xla_core::load_module_for_arguments(input, &shapes),
            None => return,
        },
        loaded => loaded,
    };
    if let Ok(module) = loaded {
        if let Ok(text) = xla_core::mlir::print_stablehlo(&module) {
            let _ = xla_core::load_module(text.as_bytes());
        }
    }
}

/// Argument shapes for a module's entry with every dynamic dimension 3.
fn guessed_arguments(input: &[u8]) -> Option<Vec<xla_core::Shape>> {
    use xla_core::mlir::ir::{Attr, ElementType, Type};
    let module = match xla_core::ModuleFormat::detect(input) {
        xla_core::ModuleFormat::StableHloText => {
            xla_core::mlir::parse_stablehlo(std::str::from_utf8(input).ok()?).ok()?
        }
        xla_core::ModuleFormat::MlirBytecode => {
            xla_core::mlir::bytecode::read_bytecode(input).ok()?
        }
        xla_core::ModuleFormat::JaxExport => {
            xla_core::mlir::export::read_jax_export(input).ok()?.module
        }
        xla_core::ModuleFormat::HloText => return None,
    };
    let main = module
        .ops
        .iter()
        .find(|op| matches!(op.attr("sym_name"), Some(Attr::String(n)) if n == b"main"))?;
    let Some(Attr::Type(Type::Function(inputs, _))) = main.attr("function_type") else {
        return None;
    };
    inputs
        .iter()
        .map(|t| match t {
            Type::Tensor {
                element: ElementType::Known(p),
                dims,
            } => Some(xla_core::Shape::array(
                *p,
                dims.iter().map(|d| d.unwrap_or(3)).collect::<Vec<_>>(),
            )),
            _ => None,
        })
        .collect()
}

fn files(dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            let module = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("hlo" | "mlir" | "jax_export" | "bc")
            );
            if module && bytes.len() < 1 << 20 {
                out.push(bytes);
            }
        }
    }
}

fn main() {
    let mut seconds = 60u64;
    let mut out = PathBuf::from("target/fuzz");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut dirs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).unwrap_or(seconds),
            "--out" => out = args.next().map(PathBuf::from).unwrap_or(out),
            "--seed" => seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(seed),
            dir => dirs.push(PathBuf::from(dir)),
        }
    }
    let mut corpus = Vec::new();
    for dir in &dirs {
        files(dir, &mut corpus);
    }
    if corpus.is_empty() {
        eprintln!("no corpus: give folders holding .hlo, .mlir, .jax_export or .bc files");
        std::process::exit(2);
    }
    eprintln!("fuzzing {} corpus files for {seconds} s", corpus.len());
    // Panics are caught and reported below, not printed as they happen.
    std::panic::set_hook(Box::new(|_| {}));
    let started = Arc::new(AtomicU64::new(0));
    let current = Arc::new(std::sync::Mutex::new(Vec::new()));
    let epoch = Instant::now();
    {
        // A watchdog: an input that runs for more than 10 s is a hang.
        let (started, current, out) = (Arc::clone(&started), Arc::clone(&current), out.clone());
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_secs(1));
            let at = started.load(Ordering::Relaxed);
            if at > 0 && epoch.elapsed().as_millis() as u64 > at + 10_000 {
                let input = current.lock().map(|c| c.clone()).unwrap_or_default();
                let _ = std::fs::create_dir_all(&out);
                let _ = std::fs::write(out.join("hang.bin"), input);
                eprintln!("hang: an input ran for more than 10 s; saved as hang.bin");
                std::process::exit(1);
            }
        });
    }
    let worker = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut rng = XorShift(seed.max(1));
            let mut found: BTreeMap<String, Vec<u8>> = BTreeMap::new();
            let mut runs = 0u64;
            let deadline = Instant::now() + Duration::from_secs(seconds);
            while Instant::now() < deadline {
                let input = &corpus[rng.below(corpus.len())];
                let other = &corpus[rng.below(corpus.len())];
                let candidate = mutate(input, other, &mut rng);
                if let Ok(mut c) = current.lock() {
                    c.clone_from(&candidate);
                }
                started.store(epoch.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
                let result = catch_unwind(AssertUnwindSafe(|| exercise(&candidate)));
                started.store(0, Ordering::Relaxed);
                runs += 1;
                if let Err(panic) = result {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    found.entry(message).or_insert(candidate);
                }
            }
            (runs, found)
        })
        .expect("spawning the fuzzing thread");
    let (runs, found) = worker.join().expect("the fuzzing thread");
    eprintln!(
        "{runs} inputs in {:.0} s ({:.0}/s); {} distinct panics",
        epoch.elapsed().as_secs_f64(),
        runs as f64 / epoch.elapsed().as_secs_f64(),
        found.len()
    );
    if !found.is_empty() {
        let _ = std::fs::create_dir_all(&out);
        for (i, (message, input)) in found.iter().enumerate() {
            let _ = std::fs::write(out.join(format!("panic{i}.bin")), input);
            eprintln!("panic{i}.bin: {message}");
        }
        std::process::exit(1);
    }
}
