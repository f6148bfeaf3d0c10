//! Batch norm through the JIT (expanded by `BatchNormExpander` into
//! reduction and loop kernels) against the interpreter's direct
//! implementation: every op, non-default layouts, a middle feature
//! dimension, `f64`, and `bf16` / `f16` computed in `f32`.

use crate::runtime_support;

use runtime_support::{check_against_interpreter, random_args};
use xla_core::literal::Tolerance;
use xla_core::HloModule;

/// The three ops on `x` (`shape`, e.g. `f32[4,3,5]{0,2,1}`) with features
/// along `feature`; variances are squares plus one, so positive.
fn module(ty: &str, shape: &str, c: i64, feature: usize) -> HloModule {
    let text = format!(
        "HloModule m\n\nENTRY e {{\n  x = {shape} parameter(0)\n  g = {ty}[{c}] parameter(1)\n  \
         b = {ty}[{c}] parameter(2)\n  v = {ty}[{c}] parameter(3)\n  dy = {shape} parameter(4)\n  \
         one = {ty}[] constant(1)\n  ones = {ty}[{c}] broadcast(one), dimensions={{}}\n  \
         vv = {ty}[{c}] multiply(v, v)\n  var = {ty}[{c}] add(vv, ones)\n  \
         t = ({shape}, {ty}[{c}], {ty}[{c}]) batch-norm-training(x, g, b), epsilon=0.001, \
         feature_index={feature}\n  \
         y = {shape} batch-norm-inference(x, g, b, b, var), epsilon=0.01, feature_index={feature}\n  \
         d = ({shape}, {ty}[{c}], {ty}[{c}]) batch-norm-grad(x, g, b, var, dy), epsilon=0.001, \
         feature_index={feature}\n  \
         ROOT r = (({shape}, {ty}[{c}], {ty}[{c}]), {shape}, ({shape}, {ty}[{c}], {ty}[{c}])) \
         tuple(t, y, d)\n}}\n"
    );
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn batch_norm_matches_the_interpreter() {
    let cases = [
        ("f32", "f32[4,3,5]{2,1,0}", 3, 1, Tolerance::new(1e-5, 1e-4)),
        ("f32", "f32[4,3,5]{0,2,1}", 3, 1, Tolerance::new(1e-5, 1e-4)),
        ("f32", "f32[6,7]{0,1}", 6, 0, Tolerance::new(1e-5, 1e-4)),
        (
            "f64",
            "f64[2,5,3,4]{3,2,1,0}",
            4,
            3,
            Tolerance::new(1e-12, 1e-10),
        ),
        ("bf16", "bf16[8,3]{1,0}", 3, 1, Tolerance::new(2e-2, 2e-2)),
        ("f16", "f16[3,8]{1,0}", 8, 1, Tolerance::new(4e-3, 4e-3)),
    ];
    for (seed, (ty, shape, c, feature, tolerance)) in cases.into_iter().enumerate() {
        let module = module(ty, shape, c, feature);
        let exe = check_against_interpreter(&module, &random_args(&module, seed as u64), tolerance);
        assert!(!exe.dump().contains("batch-norm"), "{}", exe.dump());
    }
}

/// A batch norm at the root of a module without `entry_computation_layout`
/// whose operand is tiled: the result keeps the root's written layout
/// (fuzzing found the expander's replacement lending the operand's tiled
/// layout to the signature). `check_against_interpreter` checks the
/// result's layout too.
#[test]
fn a_root_batch_norm_keeps_the_written_result_layout() {
    let text = "HloModule m\n\nENTRY e {\n  a = f32[4,2]{1,0:T(2,2)} parameter(0)\n  \
                s = f32[2]{0} parameter(1)\n  o = f32[2]{0} parameter(2)\n  \
                m = f32[2]{0} parameter(3)\n  v = f32[2]{0} parameter(4)\n  \
                ROOT y = f32[4,2]{1,0} batch-norm-inference(a, s, o, m, v), epsilon=1, \
                feature_index=1\n}\n";
    let module: HloModule = text.parse().unwrap();
    let args = random_args(&module, 7);
    let exe = check_against_interpreter(&module, &args, Tolerance::new(1e-5, 1e-4));
    assert_eq!(exe.signature().result.to_string(), "f32[4,2]{1,0}");
}
