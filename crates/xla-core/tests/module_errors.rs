//! Bad modules in every form are typed errors that say what and where:
//! the line and column of malformed text, the op (and its source
//! location) that does not lower, the byte of a malformed or truncated
//! binary, the version of a bytecode outside the supported window.

use std::path::PathBuf;

use xla_core::mlir::export::read_jax_export;
use xla_core::{load_module, LoadError};

fn conformance(case: &str, file: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/conformance/cases")
        .join(case)
        .join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A StableHLO module whose `main` body is `body` (taking `%arg0: f32[2]`).
fn module(body: &str) -> String {
    format!(
        "module @m {{\n  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {{\n{body}\n  }}\n}}\n"
    )
}

fn error(text: &str) -> String {
    match load_module(text.as_bytes()) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_text_names_the_line_and_column() {
    let text =
        module("    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32\n    return %0 : tensor<2xf32>");
    let e = load_module(text.as_bytes()).unwrap_err();
    assert!(matches!(e, LoadError::Parse(ref p) if p.line == 4), "{e}");
    assert!(e.to_string().starts_with("4:5: expected `>`"), "{e}");
    let undefined = error(&module("    return %7 : tensor<2xf32>"));
    assert!(
        undefined.starts_with("3:12: use of undefined value `%7`"),
        "{undefined}"
    );
}

#[test]
fn an_unknown_op_is_named_with_its_location() {
    let text = module(
        "    %0 = stablehlo.frobnicate %arg0 : tensor<2xf32> loc(\"model.py\":12:3)\n    return %0 : tensor<2xf32>",
    );
    assert_eq!(
        error(&text),
        "`stablehlo.frobnicate` at model.py:12:3: unknown op `stablehlo.frobnicate`"
    );
}

#[test]
fn a_bad_attribute_is_named() {
    let compare = module(
        "    %0 = stablehlo.compare FOO, %arg0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n    %1 = stablehlo.select %0, %arg0, %arg0 : tensor<2xi1>, tensor<2xf32>\n    return %1 : tensor<2xf32>",
    );
    assert_eq!(
        error(&compare),
        "`stablehlo.compare`: unknown comparison `FOO`"
    );
    let iota = "module @m {\n  func.func public @main() -> tensor<2xf32> {\n    %0 = \"stablehlo.iota\"() : () -> tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n";
    assert_eq!(
        error(iota),
        "`stablehlo.iota`: missing attribute `iota_dimension`"
    );
    let wrong_type = module(
        "    %0 = stablehlo.add %arg0, %arg0 : tensor<3xf32>\n    return %0 : tensor<2xf32>",
    );
    assert!(
        error(&wrong_type).starts_with("`stablehlo.add`: "),
        "{}",
        error(&wrong_type)
    );
    let f8 = module("    %0 = stablehlo.convert %arg0 : (tensor<2xf32>) -> tensor<2xf8E4M3FN>\n    %1 = stablehlo.convert %0 : (tensor<2xf8E4M3FN>) -> tensor<2xf32>\n    return %1 : tensor<2xf32>");
    assert_eq!(
        error(&f8),
        "`stablehlo.convert`: element type `f8E4M3FN` is not supported"
    );
}

#[test]
fn bytecode_outside_the_version_window_is_refused() {
    let artifact = conformance("unary__exp_f32", "module.jax_export");
    let mut bytecode = read_jax_export(&artifact).unwrap().mlir_module_serialized;
    assert!(load_module(&bytecode).is_ok());
    let version = bytecode
        .windows(11)
        .position(|w| w == b"StableHLO_v")
        .unwrap()
        + 11;
    bytecode[version] = b'7';
    let e = load_module(&bytecode).unwrap_err();
    assert!(matches!(e, LoadError::Bytecode(_)), "{e}");
    assert!(e.to_string().starts_with("VHLO version 7."), "{e}");
}

#[test]
fn a_truncated_artifact_names_the_byte() {
    let artifact = conformance("unary__exp_f32", "module.jax_export");
    assert!(load_module(&artifact).is_ok());
    for keep in [artifact.len() / 2, 40, 12] {
        let e = load_module(&artifact[..keep]).unwrap_err();
        assert!(matches!(e, LoadError::Export(_)), "{keep} bytes: {e}");
        assert!(e.to_string().starts_with("at byte "), "{keep} bytes: {e}");
    }
}

#[test]
fn recursion_is_refused_also_when_specialized_to_shapes() {
    let text =
        "module @m {\n  func.func public @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n    \
                %0 = func.call @f(%arg0) : (tensor<?xf32>) -> tensor<?xf32>\n    \
                return %0 : tensor<?xf32>\n  }\n  \
                func.func private @f(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n    \
                %0 = func.call @f(%arg0) : (tensor<?xf32>) -> tensor<?xf32>\n    \
                return %0 : tensor<?xf32>\n  }\n}\n";
    let shape = xla_core::Shape::array(xla_core::PrimitiveType::F32, vec![3]);
    let e = xla_core::load_module_for_arguments(text.as_bytes(), &[shape]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`func.func @f`: recursive calls are not supported"
    );
}
