//! The StableHLO text reader against StableHLO's own test files
//! (`tests/data/vhlo/README.md`): every op of every form parses, and each
//! function lowers to the same HLO whether read from its text or from the
//! bytecode StableHLO serialized it to.

use std::path::PathBuf;

use xla_core::mlir::bytecode::read_bytecode;
use xla_core::mlir::ir::{Attr, Module};
use xla_core::mlir::{lower_function, parse_stablehlo};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/vhlo")
        .join(name)
}

/// The names of a module's functions.
fn functions(module: &Module) -> Vec<String> {
    module
        .ops
        .iter()
        .filter(|op| op.name == "func.func")
        .filter_map(|op| match op.attr("sym_name") {
            Some(Attr::String(name)) => Some(String::from_utf8_lossy(name).into_owned()),
            _ => None,
        })
        .collect()
}

#[test]
fn text_and_bytecode_of_every_op_lower_alike() {
    for version in ["1_0_0", "1_20_0"] {
        let name = format!("stablehlo_legalize_to_vhlo.{version}.mlir");
        let text = std::fs::read_to_string(data(&name)).unwrap();
        let text = parse_stablehlo(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = std::fs::read(data(&format!("{name}.bc"))).unwrap();
        let bytecode = read_bytecode(&bytes).unwrap();
        let names = functions(&text);
        assert_eq!(names, functions(&bytecode), "{name}: the functions differ");
        let (mut lowered, mut refused, mut disagree) = (0, 0, Vec::new());
        for f in &names {
            let from_text = lower_function(&text, f).map(|m| m.to_string());
            let from_bytecode = lower_function(&bytecode, f).map(|m| m.to_string());
            match (from_text, from_bytecode) {
                (Ok(a), Ok(b)) if a == b => lowered += 1,
                (Err(_), Err(_)) => refused += 1,
                (a, b) => disagree.push(format!("{f}:\n  text: {a:?}\n  bytecode: {b:?}")),
            }
        }
        assert!(disagree.is_empty(), "{name}:\n{}", disagree.join("\n"));
        // Every op the HLO side has lowers: what is refused is quantized,
        // dynamically shaped, f8/i4 and other types HLO lacks, and ops HLO
        // has no instruction for (einsum, async collectives, …).
        assert!(
            lowered > 150,
            "{name}: only {lowered} functions lowered ({refused} refused)"
        );
    }
}

#[test]
fn every_pretty_form_parses() {
    let text = std::fs::read_to_string(data("print_stablehlo.mlir")).unwrap();
    let module = parse_stablehlo(&text).unwrap_or_else(|e| panic!("print_stablehlo.mlir: {e}"));
    assert_eq!(functions(&module).len(), 23);
}

#[test]
fn sharding_hints_are_the_value_on_one_device() {
    // `jax.lax.with_sharding_constraint` as JAX 0.10 prints it; `sdy.reshard`
    // has the same form.
    let text = r#"
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=1]> {stablehlo.mesh = {axes = [{name = "i", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"i"}]> : tensor<4xf32>
    %3 = sdy.reshard %2 <@mesh, [{}]> : tensor<4xf32>
    %4 = stablehlo.add %3, %arg0 : tensor<4xf32>
    return %4 : tensor<4xf32>
  }
}
"#;
    let module = xla_core::load_module(text.as_bytes()).unwrap();
    let x = xla_core::Literal::vector(&[1.0f32, -2.0, 0.5, 4.0]);
    let out = xla_core::interp::Interpreter::new()
        .run(&module, &[&x])
        .unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [3.0, -6.0, 1.5, 12.0]);
}
