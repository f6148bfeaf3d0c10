//! `jax.export` artifacts of symbolic shapes (`symbolic_shape("b, 8")`) and
//! their StableHLO text, loaded for concrete arguments: the symbols are
//! bound from the arguments' shapes, the shape computations evaluated, and
//! the module computes what JAX computes for those shapes
//! (`tests/data/symbolic/gen.py` wrote the files).

use std::path::PathBuf;

use xla_core::interp::Interpreter;
use xla_core::io::{read_npy, NpyOptions};
use xla_core::{load_module, load_module_for_arguments, Literal, LoadError, Shape};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/symbolic")
        .join(name)
}

fn npy(name: &str) -> Literal {
    read_npy(data(name), &NpyOptions::default()).unwrap()
}

#[test]
fn symbols_are_bound_from_the_arguments() {
    for (case, args) in [("mlp", 3), ("norm", 1), ("pairs", 1), ("unused", 3)] {
        for form in ["jax_export", "mlir"] {
            let bytes = std::fs::read(data(&format!("{case}.{form}"))).unwrap();
            match load_module(&bytes) {
                // `unused` has static shapes; its module takes two
                // arguments, the artifact loads as the function's three.
                Ok(module) if case == "unused" => {
                    let params = module.entry_program_shape().parameters.len();
                    assert_eq!(params, if form == "mlir" { 2 } else { 3 }, "{case}.{form}");
                    if form == "mlir" {
                        continue;
                    }
                }
                Ok(_) => panic!("{case}.{form} loaded without argument shapes"),
                Err(e) => assert!(
                    matches!(e, LoadError::NeedsArgumentShapes(_)),
                    "{case}.{form}: {e}"
                ),
            }
            for binding in 0..2 {
                let inputs: Vec<Literal> = (0..args)
                    .map(|i| npy(&format!("{case}.{binding}.arg{i}.npy")))
                    .collect();
                let shapes: Vec<Shape> = inputs.iter().map(|l| l.shape().clone()).collect();
                let module = load_module_for_arguments(&bytes, &shapes)
                    .unwrap_or_else(|e| panic!("{case}.{form} for {shapes:?}: {e}"));
                let refs: Vec<&Literal> = inputs.iter().collect();
                let got = Interpreter::new().run(&module, &refs).unwrap();
                let want = npy(&format!("{case}.{binding}.out.npy"));
                assert_eq!(got.shape(), want.shape(), "{case}.{form}.{binding}");
                let (got, want) = (got.data::<f32>().unwrap(), want.data::<f32>().unwrap());
                for (i, (g, w)) in got.iter().zip(want).enumerate() {
                    assert!(
                        (g - w).abs() <= 1e-5 + 1e-5 * w.abs(),
                        "{case}.{form}.{binding}[{i}]: {g} vs {w}"
                    );
                }
            }
        }
    }
}

#[test]
fn an_argument_that_breaks_the_symbolic_shapes_is_refused() {
    let bytes = std::fs::read(data("mlp.jax_export")).unwrap();
    let f32 = |dims: &[i64]| Shape::array(xla_core::PrimitiveType::F32, dims.to_vec());
    // `b` must be at least 1: JAX's own shape assertion says so.
    let e = load_module_for_arguments(&bytes, &[f32(&[0, 8]), f32(&[8, 16]), f32(&[16, 4])])
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("Expected value >= 1 for dimension variable 'b'"),
        "{e}"
    );
    assert!(e.to_string().contains("'b' = 0"), "{e}");
    // A static dimension must match.
    let e = load_module_for_arguments(&bytes, &[f32(&[3, 9]), f32(&[8, 16]), f32(&[16, 4])])
        .unwrap_err();
    assert!(
        e.to_string().contains("f32[3,9] does not fit f32[?,8]"),
        "{e}"
    );
}

#[test]
fn an_artifact_for_several_platforms_runs_its_cpu_branch() {
    // Exported for cuda and cpu: the module's first argument is the
    // platform index, bound to the CPU's; the cuSOLVER branch is never run.
    let bytes = std::fs::read(data("platforms.jax_export")).unwrap();
    let module = load_module(&bytes).unwrap();
    assert_eq!(module.entry_program_shape().parameters.len(), 1);
    let input = npy("platforms.0.arg0.npy");
    let got = Interpreter::new().run(&module, &[&input]).unwrap();
    let want = npy("platforms.0.out.npy");
    for (g, w) in got
        .data::<f32>()
        .unwrap()
        .iter()
        .zip(want.data::<f32>().unwrap())
    {
        assert!((g - w).abs() <= 1e-5 + 1e-5 * w.abs(), "{g} vs {w}");
    }
}
