#![allow(clippy::needless_range_loop)] // element-by-element comparisons

//! Row kernels (reduce–broadcast–consume) against sequential references.

mod emit_harness;

use emit_harness::*;
use xla_core::Literal;
use xla_jit::fusion::FusionKind;

fn bench(name: &str) -> String {
    std::fs::read_to_string(format!("/work/shared/bench/hlo/{name}.hlo"))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn layernorm_is_one_row_kernel() {
    for (rows, cols) in [(37usize, 100usize), (5, 1024), (3, 7)] {
        let text = bench("layernorm")
            .replace("4096", &rows.to_string())
            .replace("1024", &cols.to_string());
        let c = compile(&text);
        assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
        assert_eq!(c.plan.fusions[0].kind, FusionKind::Row);
        let x: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 31) % 97) as f32 * 0.25 - 10.0)
            .collect();
        let scale: Vec<f32> = (0..cols).map(|i| 1.0 + i as f32 * 0.01).collect();
        let bias: Vec<f32> = (0..cols).map(|i| i as f32 * -0.5).collect();
        let out = run(
            &c,
            &[
                &Literal::from_vec(&[rows as i64, cols as i64], x.clone()).unwrap(),
                &Literal::vector(&scale),
                &Literal::vector(&bias),
            ],
        );
        let got = out.to_vec::<f32>().unwrap();
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let mean = row.iter().map(|&v| v as f64).sum::<f64>() / cols as f64;
            let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / cols as f64;
            let inv = 1.0 / (var + 1e-5).sqrt();
            for j in 0..cols {
                let want = ((row[j] as f64 - mean) * inv * scale[j] as f64 + bias[j] as f64) as f32;
                let g = got[r * cols + j];
                assert!(
                    (g - want).abs() <= 1e-4 * want.abs().max(1.0),
                    "({r},{j}) {g} vs {want}"
                );
            }
        }
    }
}

#[test]
fn row_minus_its_max_is_exact() {
    let text = "HloModule m
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[6,19]{1,0} parameter(0)
  lo = f32[] constant(-inf)
  m = f32[6]{0} reduce(x, lo), dimensions={1}, to_apply=mx
  mb = f32[6,19]{1,0} broadcast(m), dimensions={0}
  ROOT d = f32[6,19]{1,0} subtract(x, mb)
}";
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1);
    assert_eq!(c.plan.fusions[0].kind, FusionKind::Row);
    let x: Vec<f32> = (0..6 * 19).map(|i| ((i * 13) % 29) as f32).collect();
    let got = run(&c, &[&Literal::from_vec(&[6, 19], x.clone()).unwrap()])
        .to_vec::<f32>()
        .unwrap();
    for r in 0..6 {
        let m = x[r * 19..(r + 1) * 19]
            .iter()
            .cloned()
            .fold(f32::NEG_INFINITY, f32::max);
        for j in 0..19 {
            assert_eq!(got[r * 19 + j], x[r * 19 + j] - m);
        }
    }
}

#[test]
fn variance_is_a_row_kernel_with_a_reduce_root() {
    let text = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,3,8]{2,1,0} parameter(0)
  z = f32[] constant(0)
  s = f32[4,3]{1,0} reduce(x, z), dimensions={2}, to_apply=add
  n = f32[] constant(8)
  nb = f32[4,3]{1,0} broadcast(n), dimensions={}
  mean = f32[4,3]{1,0} divide(s, nb)
  mb = f32[4,3,8]{2,1,0} broadcast(mean), dimensions={0,1}
  d = f32[4,3,8]{2,1,0} subtract(x, mb)
  sq = f32[4,3,8]{2,1,0} multiply(d, d)
  ROOT v = f32[4,3]{1,0} reduce(sq, z), dimensions={2}, to_apply=add
}";
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
    assert_eq!(c.plan.fusions[0].kind, FusionKind::Row);
    let x: Vec<f32> = (0..96).map(|i| ((i * 5) % 16) as f32).collect();
    let out = run(&c, &[&Literal::from_vec(&[4, 3, 8], x.clone()).unwrap()]);
    let got = out.to_vec::<f32>().unwrap();
    for r in 0..12 {
        let row = &x[r * 8..r * 8 + 8];
        let mean = row.iter().sum::<f32>() / 8.0;
        let var: f32 = row.iter().map(|v| (v - mean) * (v - mean)).sum();
        assert_eq!(got[r], var, "row {r}");
    }
}

#[test]
fn expensive_values_are_kept_for_the_row() {
    // y = x / 4 is computed by the sum pass and needed by the output: it is
    // kept in a stack buffer (the CLIF divides once per element).
    let text = "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,70]{1,0} parameter(0)
  c = f32[] constant(4)
  cb = f32[5,70]{1,0} broadcast(c), dimensions={}
  y = f32[5,70]{1,0} divide(x, cb)
  z = f32[] constant(0)
  s = f32[5]{0} reduce(y, z), dimensions={1}, to_apply=add
  sb = f32[5,70]{1,0} broadcast(s), dimensions={0}
  ROOT o = f32[5,70]{1,0} divide(y, sb)
}";
    let x: Vec<f32> = (0..350).map(|i| ((i * 13) % 17) as f32 + 1.0).collect();
    let x = Literal::from_vec(&[5, 70], x).unwrap();
    assert_eq!(check(text, &[&x]), Checked::Same);
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1);
    let clif = &c.jit.clif()[0].1;
    // One vector division for y per unrolled copy and the vector tail in
    // the pass, and the same for o in the output pass: no recomputation
    // of y in the output pass.
    let divides = clif.matches("fdiv").count();
    assert_eq!(divides, 2 * (4 + 1 + 1), "{clif}");
}
