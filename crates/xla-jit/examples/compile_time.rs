//! Where a module's compile time goes: cold compiles (the cache bypassed)
//! of one HLO module, with the median and fastest total, the mean of each
//! pipeline phase, and Cranelift's own pass times summed over all of them
//! (register allocation, e-graph, lowering, emission).
//!
//! ```text
//! cargo run --release -p xla-jit --example compile_time -- MODULE.hlo [compiles]
//! ```

use std::io::Write as _;
use std::time::Instant;

use xla_jit::{Client, CompileOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return Err("usage: compile_time MODULE.hlo [compiles]".into());
    };
    let compiles: usize = match args.get(1) {
        Some(n) => n.parse()?,
        None => 200,
    };
    if compiles == 0 {
        return Err("at least one compile".into());
    }
    let module = xla_core::text::parse_hlo_module(&std::fs::read_to_string(path)?)?;
    let client = Client::cpu()?;
    let options = CompileOptions {
        bypass_cache: true,
        ..CompileOptions::default()
    };
    let mut totals = Vec::with_capacity(compiles);
    let mut phases: Vec<(&str, f64)> = Vec::new();
    for _ in 0..compiles {
        let started = Instant::now();
        let executable = client.compile_with(&module, &options)?;
        totals.push(started.elapsed().as_secs_f64() * 1e3);
        for (i, &(name, time)) in executable.compile_stats().phases.iter().enumerate() {
            if phases.len() <= i {
                phases.push((name, 0.0));
            }
            phases[i].1 += time.as_secs_f64() * 1e3 / compiles as f64;
        }
    }
    totals.sort_by(f64::total_cmp);
    let mut report = format!(
        "{compiles} compiles of {path}: median {:.3} ms, fastest {:.3} ms\n",
        totals[compiles / 2],
        totals[0]
    );
    for (name, ms) in phases {
        report += &format!("  {name}: {ms:.3} ms\n");
    }
    report += "Cranelift, summed over every compile (seconds):\n";
    report += &format!("{}\n", cranelift_codegen::timing::take_current());
    // A closed pipe (`| head`) ends the output, not the program with a panic.
    match std::io::stdout().write_all(report.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
