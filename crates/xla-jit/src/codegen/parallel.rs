//! Cranelift's code generation of a batch of functions on every core.
//!
//! Building a kernel's CLIF is cheap next to compiling it (the e-graph
//! mid-end and the register allocator), and the functions of one
//! executable are independent: [`Jit`](super::Jit) builds them one by one
//! and hands them here at [`Jit::finalize`](super::Jit::finalize), where
//! the threads of the process-wide pool ([`ThreadPool::global`]) each
//! compile the next waiting function until none is left. Their machine
//! code is then placed in the module in order, so the result does not
//! depend on which thread compiled what.

use std::cell::RefCell;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;
use cranelift_module::{FuncId, ModuleReloc};

use crate::pool::ThreadPool;

/// A function built and declared, waiting for its code.
pub(super) struct Pending {
    pub id: FuncId,
    pub name: String,
    pub func: ir::Function,
}

/// A function's machine code, ready to be defined in the module.
pub(super) struct Compiled {
    pub id: FuncId,
    pub name: String,
    pub bytes: Vec<u8>,
    pub alignment: u64,
    pub relocs: Vec<ModuleReloc>,
    /// How long Cranelift took.
    pub time: Duration,
}

thread_local! {
    /// The compiling thread's context: Cranelift keeps its allocations
    /// (the function's tables, the register allocator's working memory)
    /// from one function to the next.
    static CONTEXT: RefCell<Context> = RefCell::new(Context::new());
}

/// Compiles `pending` over the process-wide pool; each result in
/// `pending`'s order, an error naming its function.
pub(super) fn compile_all(
    isa: &dyn TargetIsa,
    pending: Vec<Pending>,
) -> Vec<Result<Compiled, String>> {
    fn lock<T>(slot: &Mutex<T>) -> MutexGuard<'_, T> {
        slot.lock().unwrap_or_else(|e| e.into_inner())
    }
    let work: Vec<Mutex<Option<Pending>>> =
        pending.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let results: Vec<Mutex<Option<Result<Compiled, String>>>> =
        work.iter().map(|_| Mutex::new(None)).collect();
    ThreadPool::global().parallel_for(work.len(), |i| {
        let job = lock(&work[i]).take().expect("each task runs once");
        let compiled = CONTEXT.with_borrow_mut(|ctx| compile_one(isa, ctx, job));
        *lock(&results[i]) = Some(compiled);
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every task ran (a panic is resumed above)")
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
        id: job.id,
        name: job.name,
        bytes,
        alignment,
        relocs,
        time: started.elapsed(),
    })
}
