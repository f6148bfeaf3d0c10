//! Helpers shared by the pass tests: run a pass on HLO text and compare the
//! printed result with the expected text.
// Each test crate that includes this module uses only some of it.
#![allow(dead_code)]

use xla_core::passes::{run_pass, Changed, Pass};
use xla_core::verify::verify_module;
use xla_core::HloModule;

/// Parses `text`, panicking with the parse error.
pub fn parse(text: &str) -> HloModule {
    text.parse()
        .unwrap_or_else(|e| panic!("test module does not parse:\n{e}\n{text}"))
}

/// The module text as the printer writes it (`text` parsed and printed).
pub fn canonical(text: &str) -> String {
    parse(text).to_string()
}

/// Runs `pass` on `before` (with the verifier after it) and returns the
/// printed module and whether the pass reported a change.
pub fn run<P: Pass>(mut pass: P, before: &str) -> (String, Changed) {
    let mut module = parse(before);
    verify_module(&module).unwrap_or_else(|e| panic!("test module is invalid: {e}"));
    let changed = run_pass(&mut pass, &mut module, true).unwrap_or_else(|e| panic!("{e}"));
    (module.to_string(), changed)
}

/// Runs `pass` on `before`; `Err` unless the result prints as `after` and
/// the pass reports a change exactly when the text changed.
pub fn compare<P: Pass>(pass: P, before: &str, after: &str) -> Result<(), String> {
    let (actual, changed) = run(pass, before);
    let expected = canonical(after);
    if actual != expected {
        return Err(format!(
            "\n--- actual ---\n{actual}\n--- expected ---\n{expected}"
        ));
    }
    let text_changed = canonical(before) != expected;
    if changed != Changed::from(text_changed) {
        return Err(format!("the pass reported {changed:?}"));
    }
    Ok(())
}

/// [`compare`], panicking with its message.
#[track_caller]
pub fn check<P: Pass>(pass: P, before: &str, after: &str) {
    if let Err(e) = compare(pass, before, after) {
        panic!("{e}");
    }
}

/// Asserts that `pass` leaves `text` unchanged and says so.
#[track_caller]
pub fn unchanged<P: Pass>(pass: P, text: &str) {
    check(pass, text, text);
}
