//! Deep recursion off the caller's stack: compiling and running recurse a
//! level per fused op or nested computation, and the caller's stack may be
//! as small as a test thread's 2 MiB.

use crate::JitError;

/// Modules whose computations nest at most this deep (calls, loops and
/// branches within each other) compile and run on the caller's thread.
pub(crate) const INLINE_NESTING: usize = 32;

/// Runs `work` on a thread of its own with `stack_bytes` of stack (address
/// space, touched only as deep as the recursion goes), waiting for it.
pub(crate) fn on_own_stack<T: Send>(
    name: &str,
    stack_bytes: usize,
    work: impl FnOnce() -> Result<T, JitError> + Send,
) -> Result<T, JitError> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name(name.into())
            .stack_size(stack_bytes)
            .spawn_scoped(scope, work)
            .map_err(|e| JitError::Host(format!("cannot start thread {name}: {e}")))?
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
