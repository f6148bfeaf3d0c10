//! Results to stdout. `println!` panics when the reader has gone (`xla dump
//! m.hlo | head`); here a closed pipe just ends the output, and any other
//! write failure is an I/O error naming stdout.

use std::io::{self, Write};

use super::{Failure, Outcome};

/// Writes `text` to stdout.
pub fn write(text: &str) -> Outcome {
    let mut out = io::stdout().lock();
    finish(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// The outcome of writing to stdout: a closed pipe is the reader's choice
/// (`Ok`), anything else an I/O failure.
pub fn finish(written: io::Result<()>) -> Outcome {
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(Failure::Usage(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}
