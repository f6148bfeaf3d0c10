//! Sorts by one key run as a library routine (no kernel): JAX's float
//! comparator (NaNs as one NaN, `−0` as `+0`, subnormals as zeros), the
//! total order and the IEEE comparison (whose NaNs make it no strict weak
//! order: the permutation is still the interpreter's), integer keys,
//! descending and swapped comparators, values carried along (argsort),
//! every sort dimension; each against the interpreter, bit for bit.

use xla_core::{HloModule, Literal};
use xla_jit::Client;

use crate::emit_harness::f32_edges;
use crate::runtime_support::{random_args, Rng};

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Compiles `text`, checks it sorts in a library routine (not in a
/// kernel), and compares every result leaf's bytes with the
/// interpreter's.
fn check(text: &str, args: &[&Literal]) {
    let m = module(text);
    let exe = Client::cpu().unwrap().compile(&m).unwrap();
    let dump = exe.dump();
    assert!(dump.contains("  s: sort thunk"), "{text}\n{dump}");
    assert!(dump.contains("library s (sort "), "{text}\n{dump}");
    let want = xla_core::interp::Interpreter::new().run(&m, args).unwrap();
    let got = exe.execute(args).unwrap();
    let leaves = |l: &Literal| -> Vec<Literal> {
        l.tuple_elements()
            .map_or_else(|| vec![l.clone()], <[Literal]>::to_vec)
    };
    let (want, got) = (leaves(&want), leaves(&got));
    assert_eq!(want.len(), got.len());
    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(
            w.bytes().unwrap(),
            g.bytes().unwrap(),
            "leaf {k} of\n{text}"
        );
    }
}

/// JAX's comparator for `f32` keys: `select(x ≠ x, nan, select(x = 0, 0,
/// x))` of both, compared `direction` under `ty`; parameters `2k`, `2k+1`
/// for each of `operands` (`f32` first, the rest `s32`).
fn comparator(direction: &str, ty: &str, operands: usize, swapped: bool) -> String {
    let (a, b) = if swapped { ("q", "p") } else { ("p", "q") };
    let rest: String = (1..operands)
        .map(|k| {
            format!(
                "  u{k} = s32[] parameter({})\n  v{k} = s32[] parameter({})\n",
                2 * k,
                2 * k + 1
            )
        })
        .collect();
    format!(
        "cmp {{
  p = f32[] parameter(0)
  q = f32[] parameter(1)
{rest}  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  pn = pred[] compare(p, p), direction=NE
  pz = pred[] compare(p, zero), direction=EQ
  p0 = f32[] select(pz, zero, p)
  pc = f32[] select(pn, nan, p0)
  qn = pred[] compare(q, q), direction=NE
  qz = pred[] compare(q, zero), direction=EQ
  q0 = f32[] select(qz, zero, q)
  qc = f32[] select(qn, nan, q0)
  ROOT lt = pred[] compare({a}c, {b}c), direction={direction}{ty}
}}"
    )
}

/// The harness's `f32` edge values (signed NaNs, infinities, zeros,
/// subnormals) among ordinary values, with repeats.
fn specials(count: usize, salt: u64) -> Vec<f32> {
    let edges = f32_edges();
    let mut rng = Rng(salt);
    (0..count)
        .map(|_| match rng.below(3) {
            0 => edges[rng.below(edges.len())],
            _ => rng.uniform(10.0) as f32,
        })
        .collect()
}

#[test]
fn jax_float_sorts_every_dimension() {
    for (direction, ty) in [
        ("LT", ", type=TOTALORDER"),
        ("GT", ", type=TOTALORDER"),
        ("LT", ""),
    ] {
        for dim in 0..3 {
            let text = format!(
                "HloModule m\n{}\nENTRY e {{
  x = f32[5,37,3]{{2,1,0}} parameter(0)
  ROOT s = f32[5,37,3]{{2,1,0}} sort(x), dimensions={{{dim}}}, is_stable=true, to_apply=cmp
}}",
                comparator(direction, ty, 1, false)
            );
            let x = Literal::from_vec(&[5, 37, 3], specials(555, dim as u64)).unwrap();
            check(&text, &[&x]);
        }
    }
}

#[test]
fn argsort_carries_indices_and_swapped_comparators() {
    for swapped in [false, true] {
        let text = format!(
            "HloModule m\n{}\nENTRY e {{
  x = f32[300,4]{{1,0}} parameter(0)
  i = s32[300,4]{{1,0}} iota(), iota_dimension=0
  ROOT s = (f32[300,4]{{1,0}}, s32[300,4]{{1,0}}) sort(x, i), dimensions={{0}}, is_stable=true, to_apply=cmp
}}",
            comparator("LT", ", type=TOTALORDER", 2, swapped)
        );
        let x = Literal::from_vec(&[300, 4], specials(1200, 7)).unwrap();
        check(&text, &[&x]);
    }
}

#[test]
fn integer_keys_with_payloads() {
    for (ty, direction, compare) in [
        ("s32", "GT", ""),
        ("u32", "LT", ", type=UNSIGNED"),
        ("s8", "LE", ", type=SIGNED"),
        ("u64", "GE", ""),
    ] {
        let text = format!(
            "HloModule m
cmp {{
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  c = f64[] parameter(2)
  d = f64[] parameter(3)
  ROOT r = pred[] compare(a, b), direction={direction}{compare}
}}
ENTRY e {{
  k = {ty}[64,129]{{1,0}} parameter(0)
  v = f64[64,129]{{1,0}} parameter(1)
  ROOT s = ({ty}[64,129]{{1,0}}, f64[64,129]{{1,0}}) sort(k, v), dimensions={{1}}, to_apply=cmp
}}"
        );
        let m = module(&text);
        let args = random_args(&m, 11);
        let refs: Vec<&Literal> = args.iter().collect();
        check(&text, &refs);
    }
}

/// Unsigned 64-bit keys above `i64::MAX` sort above the others.
#[test]
fn large_unsigned_keys() {
    let text = "HloModule m
cmp {
  a = u64[] parameter(0)
  b = u64[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = u64[2,6]{1,0} parameter(0)
  ROOT s = u64[2,6]{1,0} sort(k), dimensions={1}, to_apply=cmp
}";
    let keys = vec![
        u64::MAX,
        0,
        1 << 63,
        5,
        (1 << 63) - 1,
        7,
        3,
        u64::MAX - 1,
        1,
        1 << 62,
        0,
        9,
    ];
    let k = Literal::from_vec(&[2, 6], keys).unwrap();
    check(text, &[&k]);
}
