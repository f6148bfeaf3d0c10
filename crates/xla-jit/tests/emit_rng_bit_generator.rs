//! `rng-bit-generator` kernels against the interpreter (bit-exact with
//! XLA): Threefry, Philox and the default algorithm, every output type
//! (narrow ones keep the low bits), scalars, odd sizes along Threefry's
//! split dimension, partial Philox blocks, a 128-bit counter carry, empty
//! outputs (the state still advances), and Random123's known answers.

use crate::emit_harness;

use emit_harness::*;
use xla_core::Literal;

const TYPES: [&str; 4] = ["u8", "u16", "u32", "u64"];

const SHAPES: [&str; 10] = [
    "[]", "[1]", "[3]", "[7]", "[4]", "[5,3]", "[3,5]", "[4,6]", "[3,5,7]", "[1025]",
];

fn module(algorithm: &str, state_len: usize, bits: &str) -> String {
    format!(
        "HloModule m\n\nENTRY e {{\n  s = u64[{state_len}] parameter(0)\n  \
         ROOT r = (u64[{state_len}], {bits}) rng-bit-generator(s), algorithm={algorithm}\n}}\n"
    )
}

#[track_caller]
fn check_all(algorithm: &str, state: &[u64]) {
    let state = Literal::vector(state);
    for ty in TYPES {
        for dims in SHAPES {
            let text = module(
                algorithm,
                state.to_vec::<u64>().unwrap().len(),
                &format!("{ty}{dims}"),
            );
            assert_eq!(check(&text, &[&state]), Checked::Same, "{text}");
        }
    }
}

#[test]
fn three_fry_matches_the_interpreter() {
    check_all("rng_three_fry", &[0x0123_4567_89ab_cdef, 42]);
    // The 64-bit counter wraps.
    check_all("rng_three_fry", &[7, u64::MAX - 3]);
}

#[test]
fn philox_matches_the_interpreter() {
    check_all("rng_philox", &[0x0123_4567_89ab_cdef, 42, 9]);
    // The low counter word carries into the high one.
    check_all("rng_philox", &[5, u64::MAX - 100, u64::MAX]);
    // A two-word state: the key doubles as the counter's high word.
    check_all("rng_philox", &[3, u64::MAX - 1]);
    check_all("rng_default", &[11, 12]);
}

/// Random123's `kat_vectors` for Threefry-2x32-20 and Philox-4x32-10 with
/// zero key and counter, and the advanced states.
#[test]
fn known_answers() {
    let zero2 = Literal::vector(&[0u64, 0]);
    let c = compile(&module("rng_three_fry", 2, "u32[2]"));
    let out = run(&c, &[&zero2]);
    let [state, bits] = out.tuple_elements().unwrap() else {
        panic!("{out:?}")
    };
    assert_eq!(bits.to_vec::<u32>().unwrap(), [0x6b20_0159, 0x99ba_4efe]);
    assert_eq!(state.to_vec::<u64>().unwrap(), [0, 1]);

    let zero3 = Literal::vector(&[0u64, 0, 0]);
    let c = compile(&module("rng_philox", 3, "u32[4]"));
    let out = run(&c, &[&zero3]);
    let [state, bits] = out.tuple_elements().unwrap() else {
        panic!("{out:?}")
    };
    assert_eq!(
        bits.to_vec::<u32>().unwrap(),
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
    );
    assert_eq!(state.to_vec::<u64>().unwrap(), [0, 1, 0]);
}

/// No bits drawn: the state comes back unchanged, from the kernel.
#[test]
fn empty_output_keeps_the_state() {
    for (algorithm, state) in [
        ("rng_three_fry", vec![1u64, 2]),
        ("rng_philox", vec![1, 2, 3]),
    ] {
        let text = module(algorithm, state.len(), "u32[0,3]");
        let state = Literal::vector(&state);
        assert_eq!(check(&text, &[&state]), Checked::Same, "{text}");
        let out = run(&compile(&text), &[&state]);
        let [new_state, _] = out.tuple_elements().unwrap() else {
            panic!("{out:?}")
        };
        assert_eq!(new_state, &state);
    }
}
