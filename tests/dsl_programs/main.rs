//! Programs written with `xla!` as a JAX user writes them (models, vision,
//! indexing, numerics, control flow), run on the JIT and on the reference
//! interpreter, and compared with JAX's results (`gen.py` writes the inputs
//! and JAX's outputs to `expected.safetensors`) or with values computed by
//! hand. Each test states its tolerance.

mod algorithms;
mod control;
mod coverage;
mod edges;
mod errors;
mod indexing;
mod models;
mod numerics;
mod porting;
mod vision;

use std::collections::HashMap;
use std::sync::OnceLock;

use xla::prelude::*;
use xla::NativeType;

/// The backends every program runs on: the default one (the JIT on the
/// CPUs it supports) and the reference interpreter.
pub fn backends() -> [(&'static str, &'static dyn Backend); 2] {
    static INTERPRETER: OnceLock<Interpreter> = OnceLock::new();
    [
        ("default backend (JIT)", default_backend()),
        ("interpreter", INTERPRETER.get_or_init(Interpreter::new)),
    ]
}

/// The tensor `name` (`"mlp/x"`, `"mlp/out0"`) of `expected.safetensors`.
pub fn fx(name: &str) -> &'static Literal {
    static FIXTURES: OnceLock<HashMap<String, Literal>> = OnceLock::new();
    let fixtures = FIXTURES.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/dsl_programs/expected.safetensors"
        );
        xla::io::read_safetensors(path)
            .expect("tests/dsl_programs/expected.safetensors (run gen.py)")
            .into_iter()
            .collect()
    });
    fixtures
        .get(name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

/// A literal from dimensions and values.
pub fn lit<T: NativeType>(dims: &[i64], values: &[T]) -> Literal {
    Literal::from_vec(dims, values.to_vec()).unwrap()
}

/// The values of a literal, in row-major order.
pub fn vals<T: NativeType>(l: &Literal) -> Vec<T> {
    l.to_vec::<T>().unwrap()
}

/// Asserts that `got` has `want`'s shape and values within `atol + rtol *
/// |want|` (both zero: exactly; NaN equals NaN), after converting both to
/// f64. `what` names the program and output in the message.
pub fn assert_close(what: &str, got: &Literal, want: &Literal, rtol: f64, atol: f64) {
    assert_eq!(
        got.shape().clone().without_layouts(),
        want.shape().clone().without_layouts(),
        "{what}: shape"
    );
    let g = as_f64(got);
    let w = as_f64(want);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= atol + rtol * b.abs();
        assert!(
            ok,
            "{what}: element {i} is {a}, expected {b}\n got {g:?}\nwant {w:?}"
        );
    }
}

/// Asserts that `got` equals the fixture `name` within the tolerances.
pub fn check(backend: &str, name: &str, got: &Literal, rtol: f64, atol: f64) {
    assert_close(
        &format!("{name} on the {backend}"),
        got,
        fx(name),
        rtol,
        atol,
    );
}

/// A literal's values as f64 (integers and pred exactly).
fn as_f64(l: &Literal) -> Vec<f64> {
    use xla::PrimitiveType as P;
    let ty = l.shape().as_array().expect("an array").element_type();
    match ty {
        P::Pred => vals::<bool>(l)
            .into_iter()
            .map(|v| v as u8 as f64)
            .collect(),
        P::S8 => vals::<i8>(l).into_iter().map(f64::from).collect(),
        P::S16 => vals::<i16>(l).into_iter().map(f64::from).collect(),
        P::S32 => vals::<i32>(l).into_iter().map(f64::from).collect(),
        P::S64 => vals::<i64>(l).into_iter().map(|v| v as f64).collect(),
        P::U8 => vals::<u8>(l).into_iter().map(f64::from).collect(),
        P::U16 => vals::<u16>(l).into_iter().map(f64::from).collect(),
        P::U32 => vals::<u32>(l).into_iter().map(f64::from).collect(),
        P::U64 => vals::<u64>(l).into_iter().map(|v| v as f64).collect(),
        P::F16 => vals::<xla::half::f16>(l)
            .into_iter()
            .map(f64::from)
            .collect(),
        P::Bf16 => vals::<xla::half::bf16>(l)
            .into_iter()
            .map(f64::from)
            .collect(),
        P::F32 => vals::<f32>(l).into_iter().map(f64::from).collect(),
        P::F64 => vals::<f64>(l),
        other => panic!("compare {other} literals by their parts"),
    }
}
