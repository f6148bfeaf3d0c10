//! The interpreter's control flow: call, while, conditional (both forms),
//! custom-call, tuples and opt-barrier (`docs/semantics.md`, *Tuples*, *Computations and control
//! flow*, *Custom calls*).

use crate::interp_common;

use interp_common::*;
use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal};

#[test]
fn while_loop_example() {
    // `docs/semantics.md`, *While*: (0, zeros) → (1000, 1000·c).
    let extra = "cond {\n  s = (s32[], f32[10]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
                 n = s32[] constant(1000)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\
                 body {\n  s = (s32[], f32[10]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
                 v = f32[10] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  \
                 c = f32[10] constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})\n  w = f32[10] add(v, c)\n  \
                 ROOT t = (s32[], f32[10]) tuple(j, w)\n}";
    let body =
        "z = f32[10] parameter(0)\ni = s32[] constant(0)\nt = (s32[], f32[10]) tuple(i, z)\n\
                r = (s32[], f32[10]) while(t), condition=cond, body=body";
    let r = run_with(extra, body, &[&Literal::vector(&[0.0f32; 10])]);
    let parts = r.tuple_elements().unwrap();
    assert_eq!(parts[0].to_vec::<i32>().unwrap(), [1000]);
    assert_eq!(
        parts[1].to_vec::<f32>().unwrap(),
        (0..10).map(|x| 1000.0 * x as f32).collect::<Vec<_>>()
    );
    // Zero iterations return the init.
    let never = "never {\n  s = s32[] parameter(0)\n  ROOT f = pred[] constant(false)\n}\n\
                 inc {\n  s = s32[] parameter(0)\n  one = s32[] constant(1)\n  ROOT r = s32[] add(s, one)\n}";
    let r = run_with(
        never,
        "x = s32[] parameter(0)\nr = s32[] while(x), condition=never, body=inc",
        &[&Literal::scalar(7i32)],
    );
    assert_eq!(r.to_vec::<i32>().unwrap(), [7]);
}

fn branches() -> String {
    "neg {\n  x = s32[] parameter(0)\n  ROOT r = s32[] negate(x)\n}\n\
     double {\n  x = s32[] parameter(0)\n  ROOT r = s32[] add(x, x)\n}\n\
     ten {\n  x = f32[] parameter(0)\n  ROOT r = s32[] constant(10)\n}"
        .to_string()
}

#[test]
fn conditional_forms() {
    let body = "p = pred[] parameter(0)\na = s32[] parameter(1)\nb = s32[] parameter(2)\n\
                r = s32[] conditional(p, a, b), true_computation=neg, false_computation=double";
    let (a, b) = (Literal::scalar(3i32), Literal::scalar(5i32));
    assert_eq!(
        run_with(&branches(), body, &[&Literal::scalar(true), &a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [-3]
    );
    assert_eq!(
        run_with(&branches(), body, &[&Literal::scalar(false), &a, &b])
            .to_vec::<i32>()
            .unwrap(),
        [10]
    );
    // Indexed: out-of-range indices (either side) run the last branch.
    let body = "i = s32[] parameter(0)\na = s32[] parameter(1)\nb = s32[] parameter(2)\nc = f32[] parameter(3)\n\
                r = s32[] conditional(i, a, b, c), branch_computations={neg, double, ten}";
    let c = Literal::scalar(0.5f32);
    let at = |i: i32| {
        run_with(&branches(), body, &[&Literal::scalar(i), &a, &b, &c])
            .to_vec::<i32>()
            .unwrap()[0]
    };
    assert_eq!(
        [at(0), at(1), at(2), at(3), at(-1), at(i32::MAX)],
        [-3, 10, 10, 10, 10, 10]
    );
}

#[test]
fn call_tuples_and_barriers() {
    let extra = "swap {\n  a = s32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT t = (f32[], s32[]) tuple(b, a)\n}";
    let body = "a = s32[] parameter(0)\nb = f32[] parameter(1)\nc = (f32[], s32[]) call(a, b), to_apply=swap\n\
                o = (f32[], s32[]) opt-barrier(c)\ng = s32[] get-tuple-element(o), index=1\nr = s32[] negate(g)";
    let r = run_with(
        extra,
        body,
        &[&Literal::scalar(4i32), &Literal::scalar(1.5f32)],
    );
    assert_eq!(r.to_vec::<i32>().unwrap(), [-4]);
}

#[test]
fn custom_calls() {
    let text = module(
        "",
        "x = f32[2] parameter(0)\nr = f32[2] custom-call(x), custom_call_target=\"twice\"",
    );
    let m: HloModule = text.parse().unwrap();
    let x = Literal::vector(&[1.0f32, -2.0]);
    let err = Interpreter::new().run(&m, &[&x]).unwrap_err().to_string();
    assert_eq!(err, "r: no custom-call target named `twice` is registered");
    let mut interp = Interpreter::new();
    interp.custom_calls_mut().register("twice", |args, _shape| {
        let v = args[0].to_vec::<f32>().map_err(|e| e.to_string())?;
        Ok(Literal::vector(
            &v.iter().map(|x| 2.0 * x).collect::<Vec<_>>(),
        ))
    });
    assert_eq!(
        interp.run(&m, &[&x]).unwrap().to_vec::<f32>().unwrap(),
        [2.0, -4.0]
    );
    interp
        .custom_calls_mut()
        .register("twice", |_, _| Err("out of ink".to_string()));
    let err = interp.run(&m, &[&x]).unwrap_err().to_string();
    assert_eq!(err, "r: custom call `twice` failed: out of ink");
    interp
        .custom_calls_mut()
        .register("twice", |_, _| Ok(Literal::scalar(1i32)));
    let err = interp.run(&m, &[&x]).unwrap_err().to_string();
    assert_eq!(
        err,
        "r: custom call `twice` failed: returned a value of shape s32[], but the instruction's shape is f32[2]"
    );
}

#[test]
fn entry_layouts_and_argument_checks() {
    let text = "HloModule m, entry_computation_layout={(s32[2,2]{1,0})->s32[2,2]{0,1}}\n\n\
                ENTRY e {\n  x = s32[2,2]{1,0} parameter(0)\n  ROOT r = s32[2,2]{1,0} negate(x)\n}\n";
    let m: HloModule = text.parse().unwrap();
    let x = Literal::matrix(&[[1i32, 2], [3, 4]]);
    let r = Interpreter::new().run(&m, &[&x]).unwrap();
    assert_eq!(r.shape().to_string(), "s32[2,2]{0,1}");
    assert_eq!(r.to_vec::<i32>().unwrap(), [-1, -2, -3, -4]);
    let err = Interpreter::new().run(&m, &[]).unwrap_err().to_string();
    assert_eq!(
        err,
        "the entry computation takes 1 arguments, but 0 were given"
    );
    let err = Interpreter::new()
        .run(&m, &[&Literal::vector(&[1i32])])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "argument 0 has shape s32[1], but parameter 0 (x) is s32[2,2]"
    );
}

/// A result larger than the machine's memory is an error before anything
/// runs (the interpreter would otherwise fill memory until the system kills
/// the process).
#[cfg(target_os = "linux")]
#[test]
fn a_result_beyond_memory_is_refused() {
    let message = run_err(
        "",
        "c = f32[] constant(1)\nb = f32[1000000000000000000] broadcast(c), dimensions={}",
        &[],
    );
    assert!(
        message.contains("b: its result f32[1000000000000000000] needs 4000000000000000000 bytes"),
        "{message}"
    );
}

/// An entry layout whose tiles pad a small result beyond the machine's
/// memory is refused like an instruction's result (fuzzing found the
/// interpreter aborting while relaying the result into it).
#[cfg(target_os = "linux")]
#[test]
fn an_entry_layout_beyond_memory_is_refused() {
    let text = "HloModule m, entry_computation_layout={(f32[31]{0})->f32[31]{0:T(4)(2,1099511627776)}}\n\n\
                ENTRY e {\n  x = f32[31]{0} parameter(0)\n  ROOT n = f32[31]{0} negate(x)\n}\n";
    let module: HloModule = text.parse().unwrap();
    let x = Literal::vector(&[0.5f32; 31]);
    let message = Interpreter::new()
        .run(&module, &[&x])
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(
            "entry_computation_layout (result): its result f32[31]{0:T(4)(2,1099511627776)} \
             needs 35184372088832 bytes, more than this machine's"
        ),
        "{message}"
    );
}

/// `levels` computations over an f32 scalar, each calling the one before
/// (the first negates): through `call`, or through a conditional whose
/// two branches are both the one before (so each level doubles what
/// inlining every call site would copy).
fn nested(levels: usize, conditional: bool) -> HloModule {
    let mut text = String::from(
        "HloModule m\n\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}\n",
    );
    for i in 1..levels {
        let before = i - 1;
        let call = if conditional {
            format!(
                "t = pred[] constant({})\n  ROOT r = f32[] conditional(t, p, p), \
                 true_computation=c{before}, false_computation=c{before}",
                i % 2 == 0
            )
        } else {
            format!("ROOT r = f32[] call(p), to_apply=c{before}")
        };
        text.push_str(&format!(
            "c{i} {{\n  p = f32[] parameter(0)\n  {call}\n}}\n"
        ));
    }
    text.push_str(&format!(
        "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{}\n}}\n",
        levels - 1
    ));
    text.parse().unwrap()
}

#[test]
fn call_depth_and_expanded_sizes() {
    let calls = nested(4, false);
    assert_eq!(calls.call_depth(), Some(5));
    let conditionals = nested(4, true);
    assert_eq!(conditionals.call_depth(), Some(5));
    // c0: 2; c1: 3 + 2·2; c2: 3 + 2·7; c3: 3 + 2·17; entry: 2 + 37.
    let sizes = conditionals.expanded_sizes().unwrap();
    let entry = conditionals.entry.index();
    assert_eq!(sizes[entry], 39);
    // 2^66 copies saturate.
    let deep = nested(70, true);
    let c66 = deep
        .computations
        .iter()
        .position(|c| c.name == "c66")
        .unwrap();
    assert_eq!(deep.expanded_sizes().unwrap()[c66], u64::MAX);
}

/// Computations nested thousands deep run (on a thread whose stack grows
/// with the depth: 5000 levels overflowed the caller's stack before), and
/// a depth beyond the interpreter's limit is an error, not an abort.
#[test]
fn deeply_nested_computations() {
    let x = Literal::scalar(1.5f32);
    for conditional in [false, true] {
        let module = nested(5000, conditional);
        let r = Interpreter::new().run(&module, &[&x]).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), [-1.5]);
    }
    let levels = xla_core::interp::MAX_CALL_DEPTH + 1;
    let message = Interpreter::new()
        .run(&nested(levels, false), &[&x])
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        format!(
            "computations nest {} deep (calls, loops and branches within each other); \
             the interpreter runs at most {} levels",
            levels + 1,
            levels - 1
        )
    );
}
