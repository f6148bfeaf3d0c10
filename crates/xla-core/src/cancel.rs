//! Stopping a run from outside: a cancellation flag and an optional
//! deadline, shared by every clone of a [`CancelToken`].
//!
//! Engines check the token where a program can run for unbounded time: at
//! every iteration of a `while` loop (the only op whose running time the
//! module does not bound). A stopped run returns [`Stopped`] and leaves
//! no partial result behind.
//!
//! ```
//! use std::time::Duration;
//! use xla_core::{interp::{Interpreter, RunOptions}, CancelToken, HloModule, Literal};
//!
//! // A loop that never ends: its condition is always true.
//! let module: HloModule = "HloModule m\n\n\
//!     cond { s = s32[] parameter(0)\n  ROOT t = pred[] constant(true) }\n\
//!     body { s = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT n = s32[] add(s, one) }\n\
//!     ENTRY e { z = s32[] constant(0)\n  ROOT w = s32[] while(z), condition=cond, body=body }"
//!     .parse()?;
//! let options = RunOptions {
//!     cancel: CancelToken::with_timeout(Duration::from_millis(20)),
//!     ..RunOptions::default()
//! };
//! let error = Interpreter::new().run_with(&module, &[], &options).unwrap_err();
//! assert!(error.to_string().contains("deadline"), "{error}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A handle that stops runs: [`CancelToken::cancel`] from any thread, or a
/// deadline fixed when the token is made. Clones share the flag, so a
/// clone kept by another thread (a signal handler, a UI, a watchdog)
/// cancels every run given the token. The default token never stops.
#[derive(Clone, Debug, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
    /// The deadline and the time it was measured from (for messages).
    deadline: Option<(Instant, Duration)>,
}

/// Why a run was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    /// [`CancelToken::cancel`] was called.
    #[error("the run was cancelled")]
    Cancelled,
    /// The token's deadline passed.
    #[error("the run passed its deadline ({:.3} s)", .0.as_secs_f64())]
    DeadlineExceeded(Duration),
}

impl CancelToken {
    /// A token that stops runs only when cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token that also stops runs `timeout` from now.
    pub fn with_timeout(timeout: Duration) -> Self {
        let now = Instant::now();
        CancelToken {
            flag: Arc::default(),
            deadline: Some((now.checked_add(timeout).unwrap_or(far_future(now)), timeout)),
        }
    }

    /// Stops every run given this token (or a clone of it), now and later.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// `true` once [`CancelToken::cancel`] has been called.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// `true` when the token has a deadline (checking it reads the clock).
    pub fn has_deadline(&self) -> bool {
        self.deadline.is_some()
    }

    /// `Err` when the token was cancelled or its deadline has passed. One
    /// atomic load, and a clock read only for a token with a deadline.
    #[inline]
    pub fn check(&self) -> Result<(), Stopped> {
        if self.is_cancelled() {
            return Err(Stopped::Cancelled);
        }
        match self.deadline {
            Some((at, after)) if Instant::now() >= at => Err(Stopped::DeadlineExceeded(after)),
            _ => Ok(()),
        }
    }
}

/// An instant beyond any run, for timeouts too large to add to `now`.
fn far_future(now: Instant) -> Instant {
    now + Duration::from_secs(100 * 365 * 24 * 3600)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_token_never_stops() {
        assert_eq!(CancelToken::new().check(), Ok(()));
        assert!(!CancelToken::default().has_deadline());
    }

    #[test]
    fn cancel_reaches_every_clone() {
        let token = CancelToken::new();
        let clone = token.clone();
        std::thread::spawn(move || clone.cancel()).join().unwrap();
        assert_eq!(token.check(), Err(Stopped::Cancelled));
    }

    #[test]
    fn a_deadline_passes() {
        let token = CancelToken::with_timeout(Duration::from_millis(1));
        assert!(token.has_deadline());
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            token.check(),
            Err(Stopped::DeadlineExceeded(Duration::from_millis(1)))
        );
        assert!(CancelToken::with_timeout(Duration::MAX).check().is_ok());
    }
}
