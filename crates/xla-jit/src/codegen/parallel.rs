//! Cranelift's code generation of a batch of functions on every core.
//!
//! Building a kernel's CLIF is cheap next to compiling it (the e-graph
//! mid-end and the register allocator), and the functions of one
//! executable are independent: [`Jit`](super::Jit) builds them one by one
//! and hands them here at [`Jit::finalize`](super::Jit::finalize), where
//! each core compiles the next waiting function until none is left. Their
//! machine code is then placed in the module in order, so the result does
//! not depend on which thread compiled what.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;
use cranelift_module::{FuncId, ModuleReloc};

/// A function built and declared, waiting for its code.
pub(super) struct Pending {
    pub id: FuncId,
    pub name: String,
    pub func: ir::Function,
}

/// A function's machine code, ready to be defined in the module.
pub(super) struct Compiled {
    pub bytes: Vec<u8>,
    pub alignment: u64,
    pub relocs: Vec<ModuleReloc>,
    /// How long Cranelift took.
    pub time: Duration,
}

/// Compiles `pending` on up to `threads` threads (the calling one
/// included); each result in `pending`'s order, an error naming its
/// function.
pub(super) fn compile_all(
    isa: &dyn TargetIsa,
    pending: Vec<Pending>,
    threads: usize,
) -> Vec<Result<Compiled, String>> {
    let count = pending.len();
    let work: Vec<Mutex<Option<Pending>>> =
        pending.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let results: Vec<Mutex<Option<Result<Compiled, String>>>> =
        (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let run = || {
        let mut ctx = Context::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = work.get(i) else { break };
            let job = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(job) = job {
                let compiled = compile_one(isa, &mut ctx, job);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(compiled);
            }
        }
    };
    let helpers = threads.min(count).saturating_sub(1);
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            // A thread that cannot start leaves its share to the others.
            let _ = std::thread::Builder::new().spawn_scoped(scope, run);
        }
        run();
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .unwrap_or_else(|| Err("not compiled (a compiling thread failed)".into()))
        })
        .collect()
}

fn compile_one(isa: &dyn TargetIsa, ctx: &mut Context, job: Pending) -> Result<Compiled, String> {
    let started = Instant::now();
    ctx.clear();
    ctx.func = job.func;
    if let Err(e) = ctx.compile(isa, &mut ControlPlane::default()) {
        return Err(format!("{}: {:?}", job.name, e.inner));
    }
    let compiled = ctx.compiled_code().expect("compiled above");
    let alignment = u64::from(compiled.buffer.alignment);
    let bytes = compiled.code_buffer().to_vec();
    let relocs = compiled
        .buffer
        .relocs()
        .iter()
        .map(|reloc| ModuleReloc::from_mach_reloc(reloc, &ctx.func, job.id))
        .collect();
    Ok(Compiled {
        bytes,
        alignment,
        relocs,
        time: started.elapsed(),
    })
}
