//! `rng-bit-generator` through the runtime: outputs large enough that the
//! kernel's hashes are split across the pool, and the state carried
//! through a `while` loop, bit for bit against the interpreter.

use crate::runtime_support;

use runtime_support::check_against_interpreter;
use xla_core::literal::Tolerance;
use xla_core::{HloModule, Literal};

fn parse(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn large_outputs_split_across_threads() {
    for (algorithm, state, bits) in [
        ("rng_three_fry", "u64[2]", "u32[301,99]"),
        ("rng_three_fry", "u64[2]", "u64[20011]"),
        ("rng_philox", "u64[3]", "u32[40003]"),
        ("rng_philox", "u64[2]", "u8[211,97]"),
    ] {
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  s = {state} parameter(0)\n  \
             ROOT r = ({state}, {bits}) rng-bit-generator(s), algorithm={algorithm}\n}}\n"
        );
        let words: Vec<u64> = [0x0123_4567_89ab_cdef, u64::MAX - 5000, 17]
            .into_iter()
            .take(if state == "u64[3]" { 3 } else { 2 })
            .collect();
        check_against_interpreter(&parse(&text), &[Literal::vector(&words)], Tolerance::EXACT);
    }
}

/// Three draws in a loop, each from the state the previous one returned.
#[test]
fn state_carried_through_a_loop() {
    let text = "HloModule m\n\n\
        cond {\n  p = (s32[], u64[3], u32[5]) parameter(0)\n  \
        i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(3)\n  \
        ROOT c = pred[] compare(i, n), direction=LT\n}\n\n\
        body {\n  p = (s32[], u64[3], u32[5]) parameter(0)\n  \
        i = s32[] get-tuple-element(p), index=0\n  s = u64[3] get-tuple-element(p), index=1\n  \
        acc = u32[5] get-tuple-element(p), index=2\n  \
        r = (u64[3], u32[5]) rng-bit-generator(s), algorithm=rng_philox\n  \
        s2 = u64[3] get-tuple-element(r), index=0\n  b = u32[5] get-tuple-element(r), index=1\n  \
        x = u32[5] xor(acc, b)\n  one = s32[] constant(1)\n  i2 = s32[] add(i, one)\n  \
        ROOT t = (s32[], u64[3], u32[5]) tuple(i2, s2, x)\n}\n\n\
        ENTRY e {\n  s = u64[3] parameter(0)\n  zero = s32[] constant(0)\n  \
        z = u32[] constant(0)\n  acc = u32[5] broadcast(z), dimensions={}\n  \
        init = (s32[], u64[3], u32[5]) tuple(zero, s, acc)\n  \
        ROOT w = (s32[], u64[3], u32[5]) while(init), condition=cond, body=body\n}\n";
    check_against_interpreter(
        &parse(text),
        &[Literal::vector(&[5u64, u64::MAX - 1, 0])],
        Tolerance::EXACT,
    );
}
