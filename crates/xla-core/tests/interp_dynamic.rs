//! Dynamic dimension sizes (`docs/semantics.md`, *Dynamic dimension sizes*).

use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal};

fn run(text: &str, args: &[&Literal]) -> Result<Literal, String> {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    Interpreter::new()
        .run(&module, args)
        .map_err(|e| e.to_string())
}

const SET_GET: &str = "HloModule m\n\nENTRY e {\n  x = f32[10,3] parameter(0)\n  \
    n = s32[] parameter(1)\n  \
    d = f32[<=10,3] set-dimension-size(x, n), dimensions={0}\n  \
    a = s32[] get-dimension-size(d), dimensions={0}\n  \
    b = s32[] get-dimension-size(d), dimensions={1}\n  \
    s = s32[] get-dimension-size(x), dimensions={0}\n  \
    ROOT t = (s32[], s32[], s32[]) tuple(a, b, s)\n}\n";

#[test]
fn set_then_get() {
    let x = Literal::from_vec(&[10, 3], vec![0.0f32; 30]).unwrap();
    let out = run(SET_GET, &[&x, &Literal::scalar(5i32)]).unwrap();
    let sizes: Vec<i32> = out
        .tuple_elements()
        .unwrap()
        .iter()
        .map(|l| l.get(&[]).unwrap())
        .collect();
    assert_eq!(sizes, [5, 3, 10]);
}

#[test]
fn sizes_out_of_range() {
    let x = Literal::from_vec(&[10, 3], vec![0.0f32; 30]).unwrap();
    assert_eq!(
        run(SET_GET, &[&x, &Literal::scalar(11i32)]).unwrap_err(),
        "dimension 0 of f32[10,3]{1,0} cannot have the runtime size 11"
    );
    assert_eq!(
        run(SET_GET, &[&x, &Literal::scalar(-1i32)]).unwrap_err(),
        "dimension 0 of f32[10,3]{1,0} cannot have the runtime size -1"
    );
}

/// The value passes through unchanged; only the runtime size is recorded.
#[test]
fn set_keeps_the_buffer() {
    let x = Literal::vector(&[1.0f32, 2.0, 3.0]);
    let out = run(
        "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  n = s32[] constant(2)\n  \
         ROOT d = f32[<=3] set-dimension-size(x, n), dimensions={0}\n}\n",
        &[&x],
    )
    .unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
    assert_eq!(out.dynamic_size(0), 2);
}

/// `docs/semantics.md`, *Dynamic dimension sizes*: reductions ignore the elements past the runtime
/// size.
#[test]
fn reductions_honour_the_runtime_size() {
    let reduce = |computation: &str, init: &str, size: i32| {
        let text = format!(
            "HloModule m\n\nf {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
             ROOT c = f32[] {computation}(a, b)\n}}\n\nENTRY e {{\n  v = f32[10] parameter(0)\n  \
             n = s32[] parameter(1)\n  d = f32[<=10] set-dimension-size(v, n), dimensions={{0}}\n  \
             i = f32[] constant({init})\n  ROOT r = f32[] reduce(d, i), dimensions={{0}}, to_apply=f\n}}\n"
        );
        let v = Literal::vector(&(1..=10).map(|i| i as f32).collect::<Vec<_>>());
        run(&text, &[&v, &Literal::scalar(size)])
            .unwrap()
            .get::<f32>(&[])
            .unwrap()
    };
    assert_eq!(reduce("add", "0", 5), 15.0);
    assert_eq!(reduce("multiply", "1", 5), 120.0);
    assert_eq!(reduce("add", "0", 6), 21.0);
    assert_eq!(reduce("add", "0", 10), 55.0);
}
