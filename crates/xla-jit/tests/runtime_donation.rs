//! Donated arguments (`input_output_alias`, JAX's `donate_argnums`): a
//! result leaf written into the donated argument's memory when that is safe,
//! the same values as without donation either way.

use xla_core::{HloModule, Literal};
use xla_jit::Client;

/// A step updating `w` and `m` in place from a gradient `g`, and a loss.
const STEP: &str =
    "HloModule step, input_output_alias={ {0}: (0, {}, may-alias), {1}: (2, {}, may-alias) }
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  w = f32[4096] parameter(0)
  g = f32[4096] parameter(1)
  m = f32[4096] parameter(2)
  nine = f32[] constant(0.9)
  tenth = f32[] constant(0.1)
  rate = f32[] constant(0.01)
  nb = f32[4096] broadcast(nine), dimensions={}
  tb = f32[4096] broadcast(tenth), dimensions={}
  rb = f32[4096] broadcast(rate), dimensions={}
  m9 = f32[4096] multiply(m, nb)
  g1 = f32[4096] multiply(g, tb)
  m2 = f32[4096] add(m9, g1)
  step = f32[4096] multiply(m2, rb)
  w2 = f32[4096] subtract(w, step)
  gg = f32[4096] multiply(g, g)
  z = f32[] constant(0)
  loss = f32[] reduce(gg, z), dimensions={0}, to_apply=add
  ROOT t = (f32[4096], f32[4096], f32[]) tuple(w2, m2, loss)
}
";

fn ramp(n: usize, scale: f32) -> Literal {
    Literal::vector(&(0..n).map(|i| (i as f32 * scale).sin()).collect::<Vec<_>>())
}

fn address(l: &Literal) -> usize {
    l.bytes().unwrap().as_ptr() as usize
}

#[test]
fn a_parameter_update_is_written_into_the_donated_argument() {
    let module: HloModule = STEP.parse().unwrap();
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    let (w, g, m) = (ramp(4096, 0.01), ramp(4096, 0.03), ramp(4096, 0.07));
    let want = exe.execute(&[&w, &g, &m]).unwrap();
    let (w_at, m_at) = (address(&w), address(&m));
    let got = exe.execute_donated(vec![w, g, m]).unwrap();
    assert_eq!(got, want);
    let parts = got.tuple_elements().unwrap();
    assert_eq!(address(&parts[0]), w_at, "w's update reuses w's memory");
    assert_eq!(address(&parts[1]), m_at, "m's update reuses m's memory");
}

#[test]
fn a_donation_that_would_overwrite_a_value_still_read_is_not_taken() {
    // The result `n` may take `x`'s buffer, but `x` is read again by a
    // later step (the reduction after a sort forces an order): the values
    // must be those of a run without donation whatever the schedule.
    let text = "HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[512] parameter(0)
  n = f32[512] negate(x)
  s = f32[512] sort(n), dimensions={0}, to_apply=less
  y = f32[512] multiply(s, x)
  z = f32[] constant(0)
  r = f32[] reduce(y, z), dimensions={0}, to_apply=add
  ROOT t = (f32[512], f32[]) tuple(n, r)
}
";
    let module: HloModule = text.parse().unwrap();
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    let x = ramp(512, 0.05);
    let want = exe.execute(&[&x]).unwrap();
    assert_eq!(exe.execute_donated(vec![x]).unwrap(), want);
}

#[test]
fn the_alias_survives_printing_and_a_bad_one_is_refused() {
    let module: HloModule = STEP.parse().unwrap();
    let again: HloModule = module.to_string().parse().unwrap();
    assert_eq!(again.input_output_alias, module.input_output_alias);
    assert!(module
        .to_string()
        .contains("input_output_alias={ {0}: (0, {}, may-alias), {1}: (2, {}, may-alias) }"));
    let bad = STEP.replace("{1}: (2, {}, may-alias)", "{2}: (2, {}, must-alias)");
    let err = xla_core::verify::verify_module(&bad.parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("input_output_alias"), "{err}");
}
