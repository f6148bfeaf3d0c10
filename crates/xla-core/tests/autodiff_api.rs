//! The differentiation API around the rules: what `vjp` and
//! `value_and_grad` return, and the errors for modules that cannot be
//! differentiated as asked (each names the instruction or parameter).

use xla_core::autodiff::{grad, value_and_grad, vjp};
use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal};

fn parse(text: &str) -> HloModule {
    text.parse().unwrap()
}

const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n";

#[test]
fn vjp_takes_one_cotangent_per_result_element() {
    // f(x, y) = (x·y, sin x): the vjp with cotangents (u, v) is
    // (u·y + v·cos x, u·x).
    let f = parse(
        "HloModule f\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] parameter(1)\n  \
         m = f32[2] multiply(x, y)\n  s = f32[2] sine(x)\n  ROOT t = (f32[2], f32[2]) tuple(m, s)\n}\n",
    );
    let back = vjp(&f, None).unwrap();
    assert_eq!(
        back.entry_program_shape().to_string(),
        "(f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}) -> (f32[2]{0}, f32[2]{0})"
    );
    let (x, y) = (
        Literal::vector(&[0.5f32, -1.0]),
        Literal::vector(&[2.0f32, 3.0]),
    );
    let (u, v) = (
        Literal::vector(&[1.0f32, 10.0]),
        Literal::vector(&[0.25f32, -2.0]),
    );
    let out = Interpreter::new().run(&back, &[&x, &y, &u, &v]).unwrap();
    let parts = out.into_tuple_elements().unwrap();
    let dx = parts[0].to_vec::<f32>().unwrap();
    let dy = parts[1].to_vec::<f32>().unwrap();
    let want_dx = [2.0 + 0.25 * 0.5f32.cos(), 30.0 - 2.0 * (-1.0f32).cos()];
    for (got, want) in dx.iter().zip(want_dx) {
        assert!((got - want).abs() < 1e-6, "{dx:?} against {want_dx:?}");
    }
    assert_eq!(dy, [0.5, -10.0]);
}

#[test]
fn value_and_grad_returns_the_value_first() {
    let f = parse(&format!(
        "HloModule f\n{ADD}ENTRY e {{\n  x = f32[3] parameter(0)\n  s = f32[3] multiply(x, x)\n  \
         z = f32[] constant(0)\n  ROOT r = f32[] reduce(s, z), dimensions={{0}}, to_apply=add\n}}\n"
    ));
    let both = value_and_grad(&f, None).unwrap();
    let x = Literal::vector(&[1.0f32, -2.0, 3.0]);
    let out = Interpreter::new().run(&both, &[&x]).unwrap();
    let parts = out.into_tuple_elements().unwrap();
    assert_eq!(parts[0].to_vec::<f32>().unwrap(), [14.0]);
    assert_eq!(parts[1].to_vec::<f32>().unwrap(), [2.0, -4.0, 6.0]);
}

#[test]
fn gradients_of_unused_parameters_are_zero_and_integers_are_skipped() {
    let f = parse(
        "HloModule f\nENTRY e {\n  x = f32[] parameter(0)\n  i = s32[] parameter(1)\n  \
         w = f32[2] parameter(2)\n  c = f32[] convert(i)\n  ROOT m = f32[] multiply(x, c)\n}\n",
    );
    let g = grad(&f, None).unwrap();
    assert_eq!(
        g.entry_program_shape().to_string(),
        "(f32[], s32[], f32[2]{0}) -> (f32[], f32[2]{0})"
    );
    let out = Interpreter::new()
        .run(
            &g,
            &[
                &Literal::scalar(2.0f32),
                &Literal::scalar(3i32),
                &Literal::vector(&[1.0f32, 1.0]),
            ],
        )
        .unwrap();
    let parts = out.into_tuple_elements().unwrap();
    assert_eq!(parts[0].to_vec::<f32>().unwrap(), [3.0]);
    assert_eq!(parts[1].to_vec::<f32>().unwrap(), [0.0, 0.0]);
}

fn error(module: &HloModule, wrt: Option<&[usize]>) -> String {
    grad(module, wrt).unwrap_err().to_string()
}

#[test]
fn a_loop_of_data_dependent_length_is_refused_by_name() {
    let f = parse(&format!(
        "HloModule f\n{ADD}cond {{\n  p = (f32[], f32[]) parameter(0)\n  x = f32[] get-tuple-element(p), index=0\n  \
         lim = f32[] get-tuple-element(p), index=1\n  ROOT lt = pred[] compare(x, lim), direction=LT\n}}\n\
         body {{\n  p = (f32[], f32[]) parameter(0)\n  x = f32[] get-tuple-element(p), index=0\n  \
         lim = f32[] get-tuple-element(p), index=1\n  d = f32[] add(x, x)\n  ROOT t = (f32[], f32[]) tuple(d, lim)\n}}\n\
         ENTRY e {{\n  x = f32[] parameter(0)\n  lim = f32[] constant(100)\n  init = (f32[], f32[]) tuple(x, lim)\n  \
         doubling = (f32[], f32[]) while(init), condition=cond, body=body\n  \
         ROOT r = f32[] get-tuple-element(doubling), index=0\n}}\n"
    ));
    let message = error(&f, None);
    assert!(
        message.contains("doubling") && message.contains("trip count"),
        "{message}"
    );
}

#[test]
fn ops_without_a_rule_are_refused_by_name() {
    let f = parse(
        "HloModule f\nENTRY e {\n  x = f32[] parameter(0)\n  one = f32[] constant(1)\n  \
         noise = f32[] rng(x, one), distribution=rng_uniform\n  ROOT m = f32[] multiply(noise, x)\n}\n",
    );
    let message = error(&f, None);
    assert!(
        message.contains("noise") && message.contains("rng"),
        "{message}"
    );
}

#[test]
fn bad_requests_are_errors() {
    let f = parse(
        "HloModule f\nENTRY e {\n  x = f32[3] parameter(0)\n  i = s32[] parameter(1)\n  ROOT n = f32[3] negate(x)\n}\n",
    );
    assert!(
        error(&f, None).contains("scalar result"),
        "{}",
        error(&f, None)
    );
    let s = parse("HloModule f\nENTRY e {\n  x = f32[] parameter(0)\n  i = s32[] parameter(1)\n  ROOT n = f32[] negate(x)\n}\n");
    assert!(
        error(&s, Some(&[1])).contains("parameter 1 is s32[]"),
        "{}",
        error(&s, Some(&[1]))
    );
    assert!(
        error(&s, Some(&[4])).contains("no parameter 4"),
        "{}",
        error(&s, Some(&[4]))
    );
}
