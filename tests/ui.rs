//! Compile-time errors of the `xla!` macro: every error class has a case in
//! `tests/ui/` with the compiler's output in a `.stderr` file (generated with
//! `TRYBUILD=overwrite`, reviewed, never edited by hand); the programs in
//! `tests/ui/pass/` (including the documentation's examples) must compile.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
