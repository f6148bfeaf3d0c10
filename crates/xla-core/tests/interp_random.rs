//! Random numbers (`docs/semantics.md`, *Random numbers*): `rng-bit-generator` bit for bit
//! against values JAX computed on XLA:CPU (`jax.lax.rng_bit_generator`,
//! jax 0.10.2), `rng` by ranges and statistics.

use xla_core::interp::{DeviceAssignment, Interpreter, RunOptions};
use xla_core::{HloModule, Literal};

const KEY: u64 = 0x0123_4567_89ab_cdef;

/// Runs `rng-bit-generator` on `state`; returns (new state, bits as u64).
fn bits(algorithm: &str, state: &[u64], shape: &str) -> (Vec<u64>, Vec<u64>) {
    let n = state.len();
    let text = format!(
        "HloModule m\n\nENTRY e {{\n  s = u64[{n}] parameter(0)\n  \
         ROOT r = (u64[{n}], {shape}) rng-bit-generator(s), algorithm={algorithm}\n}}\n"
    );
    let module: HloModule = text.parse().unwrap();
    let out = Interpreter::new()
        .run(&module, &[&Literal::vector(state)])
        .unwrap();
    let t = out.tuple_elements().unwrap();
    let bits = t[1].convert(xla_core::PrimitiveType::U64).unwrap();
    (t[0].to_vec().unwrap(), bits.to_vec().unwrap())
}

#[test]
fn three_fry_matches_xla() {
    let state = [KEY, 7];
    assert_eq!(
        bits("rng_three_fry", &state, "u32[3]"),
        (vec![KEY, 9], vec![0xc8124617, 0x2077496e, 0xb530f815])
    );
    assert_eq!(
        bits("rng_three_fry", &state, "u32[2,3]"),
        (
            vec![KEY, 10],
            vec![0xc8124617, 0xb530f815, 0x95fbb24b, 0x2077496e, 0xedce8403, 0xa2c8a180]
        )
    );
    assert_eq!(
        bits("rng_three_fry", &state, "u32[]"),
        (vec![KEY, 8], vec![0xc8124617])
    );
    assert_eq!(
        bits("rng_three_fry", &state, "u64[3]"),
        (
            vec![KEY, 10],
            vec![0x2077496ec8124617, 0xedce8403b530f815, 0xa2c8a18095fbb24b]
        )
    );
    assert_eq!(
        bits("rng_three_fry", &state, "u8[5]"),
        (vec![KEY, 10], vec![0x17, 0x6e, 0x15, 0x03, 0x4b])
    );
}

#[test]
fn philox_matches_xla() {
    let state = [KEY, 7];
    for algorithm in ["rng_philox", "rng_default"] {
        assert_eq!(
            bits(algorithm, &state, "u32[3]"),
            (vec![KEY, 8], vec![0xd7a7e19d, 0x04a529d4, 0x9654e92d])
        );
        assert_eq!(
            bits(algorithm, &state, "u32[2,3]"),
            (
                vec![KEY, 9],
                vec![0xd7a7e19d, 0x04a529d4, 0x9654e92d, 0xf38c5dcb, 0x3850fd0f, 0x9fe1bcd5]
            )
        );
        assert_eq!(
            bits(algorithm, &state, "u64[3]"),
            (
                vec![KEY, 9],
                vec![0x04a529d4d7a7e19d, 0xf38c5dcb9654e92d, 0x9fe1bcd53850fd0f]
            )
        );
        assert_eq!(
            bits(algorithm, &state, "u8[5]"),
            (vec![KEY, 9], vec![0x9d, 0xd4, 0x2d, 0xcb, 0x0f])
        );
    }
    // The counter's low word wraps; a u64[2] state drops the carry.
    assert_eq!(
        bits("rng_philox", &[5, u64::MAX], "u32[3]"),
        (vec![5, 0], vec![0x4e5aa1ba, 0xf08b4400, 0x979e52b9])
    );
    // A u64[3] state carries into its high word.
    let (state, _) = bits("rng_philox", &[5, u64::MAX, 1], "u32[3]");
    assert_eq!(state, [5, 0, 2]);
}

/// The state advances by the draws, so two calls chained give what one
/// call twice as long gives (Philox: whole blocks of four 32-bit draws).
#[test]
fn chained_calls_continue_the_stream() {
    let (state, first) = bits("rng_philox", &[KEY, 0, 0], "u32[4]");
    let (_, second) = bits("rng_philox", &state, "u32[4]");
    let (_, both) = bits("rng_philox", &[KEY, 0, 0], "u32[8]");
    assert_eq!([first, second].concat(), both);
    let (_, empty) = bits("rng_three_fry", &[KEY, 0], "u32[0,3]");
    assert!(empty.is_empty());
}

/// Runs `rng` of `shape` with operands `a`, `b` (scalars of text `ty`).
fn rng(distribution: &str, ty: &str, a: &str, b: &str, n: usize, seed: u64) -> Literal {
    let text = format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[] constant({a})\n  b = {ty}[] constant({b})\n  \
         ROOT r = {ty}[{n}] rng(a, b), distribution={distribution}\n}}\n"
    );
    let module: HloModule = text.parse().unwrap();
    let options = RunOptions {
        rng_seed: seed,
        ..RunOptions::default()
    };
    let mut out = Interpreter::new()
        .execute(
            &module,
            &[vec![]],
            DeviceAssignment::single(),
            &options,
            &mut [],
        )
        .unwrap();
    out.swap_remove(0)
}

fn mean_and_deviation(v: &[f64]) -> (f64, f64) {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let variance = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64;
    (mean, variance.sqrt())
}

#[test]
fn uniform_floats() {
    let n = 20_000;
    let v: Vec<f64> = rng("rng_uniform", "f32", "-2", "3", n, 1)
        .to_vec::<f32>()
        .unwrap()
        .into_iter()
        .map(f64::from)
        .collect();
    assert!(v.iter().all(|&x| (-2.0..3.0).contains(&x)));
    let (mean, deviation) = mean_and_deviation(&v);
    // Uniform on [-2, 3): mean 0.5, deviation 5/√12 ≈ 1.443; the bounds are
    // several standard errors wide.
    assert!((mean - 0.5).abs() < 0.05, "mean {mean}");
    assert!((deviation - 1.4434).abs() < 0.03, "deviation {deviation}");
    // Narrow types never round up to b.
    let h = rng("rng_uniform", "bf16", "0", "1", n, 2);
    assert!(h
        .to_vec::<half::bf16>()
        .unwrap()
        .iter()
        .all(|x| (0.0..1.0).contains(&x.to_f32())));
    let d = rng("rng_uniform", "f64", "5", "5", 4, 3);
    assert_eq!(d.to_vec::<f64>().unwrap(), [5.0; 4]);
}

#[test]
fn uniform_integers() {
    let v = rng("rng_uniform", "s32", "-3", "4", 7_000, 4)
        .to_vec::<i32>()
        .unwrap();
    let mut counts = [0usize; 7];
    for x in &v {
        assert!((-3..4).contains(x), "{x}");
        counts[(x + 3) as usize] += 1;
    }
    // Each of the 7 values has probability 1/7: about 1000 ± 30 times.
    assert!(
        counts.iter().all(|&c| (850..1150).contains(&c)),
        "{counts:?}"
    );
    let full = rng("rng_uniform", "u8", "0", "255", 1_000, 5)
        .to_vec::<u8>()
        .unwrap();
    assert!(full.iter().all(|&x| x < 255));
    assert!(full.iter().any(|&x| x > 250));
}

#[test]
fn normal() {
    let v: Vec<f64> = rng("rng_normal", "f64", "10", "2", 20_000, 6)
        .to_vec::<f64>()
        .unwrap();
    let (mean, deviation) = mean_and_deviation(&v);
    assert!((mean - 10.0).abs() < 0.05, "mean {mean}");
    assert!((deviation - 2.0).abs() < 0.05, "deviation {deviation}");
    let within = v.iter().filter(|&&x| (x - 10.0).abs() < 2.0).count() as f64 / v.len() as f64;
    assert!((within - 0.6827).abs() < 0.015, "{within}");
}

#[test]
fn seeds() {
    let a = rng("rng_uniform", "f32", "0", "1", 8, 7);
    assert_eq!(a, rng("rng_uniform", "f32", "0", "1", 8, 7));
    assert_ne!(a, rng("rng_uniform", "f32", "0", "1", 8, 8));
}
