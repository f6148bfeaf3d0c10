//! `--timeout SECS`, shared by `run` and `bench`.

use std::time::Duration;

use super::Failure;

/// The duration `seconds` gives: a finite number of seconds above 0.
pub fn duration(seconds: f64) -> Result<Duration, Failure> {
    if seconds.is_finite() && seconds > 0.0 {
        Duration::try_from_secs_f64(seconds).map_err(|e| Failure::Usage(e.to_string()))
    } else {
        Err(Failure::Usage(format!(
            "--timeout must be a finite number of seconds above 0, not {seconds}"
        )))
    }
}
