//! Copies the runtime makes instead of kernels: pads, slices, dynamic
//! slices and in-place dynamic updates of one input, and fills of a
//! constant, each checked bit for bit against the interpreter.

use xla_core::literal::Tolerance;
use xla_core::HloModule;

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A fusion that is only `pad(x, constant)`, or a slice of `x` stepping
/// by one under bitcasts, runs as the runtime's copy (no kernel): padding
/// and cropping on every side, a column-major layout, a non-zero value,
/// 1-byte, 2-byte and 8-byte elements, rank 1, a pad that crops
/// everything, a result large enough to split across the pool, unpadded
/// minor dimensions copied with the one above, and the query of a fused
/// projection sliced and split into heads; each as the interpreter
/// computes it, bit for bit.
#[test]
fn pads_and_slices_are_copied_by_the_runtime() {
    use crate::runtime_support::{check_against_interpreter, random_args};
    let pads = [
        (
            "f32[4,5,3]{2,1,0}",
            "f32[7,3,5]{2,1,0}",
            "0",
            "1_2x-1_-1x1_1",
        ),
        (
            "f32[4,5,3]{0,1,2}",
            "f32[7,3,5]{0,1,2}",
            "-inf",
            "1_2x-1_-1x1_1",
        ),
        ("f32[6]{0}", "f32[9]{0}", "2.5", "-1_4"),
        ("f32[6]{0}", "f32[2]{0}", "7", "-8_4"),
        ("pred[3,4]{1,0}", "pred[5,4]{1,0}", "true", "1_1x0_0"),
        ("bf16[2,8]{1,0}", "bf16[2,12]{1,0}", "-1", "0_0x3_1"),
        ("f64[3,2]{1,0}", "f64[3,5]{1,0}", "0.5", "0_0x2_1"),
        (
            "f32[16,230,30]{2,1,0}",
            "f32[16,236,36]{2,1,0}",
            "0",
            "0_0x3_3x3_3",
        ),
        (
            "f32[2,5,4,3]{3,2,1,0}",
            "f32[2,7,8,3]{3,2,1,0}",
            "1",
            "0_0x1_1x2_2x0_0",
        ),
        (
            "s8[2,5,4,3]{1,0,3,2}",
            "s8[3,4,4,3]{1,0,3,2}",
            "-2",
            "1_0x0_-1x0_0x0_0",
        ),
    ];
    let mut modules: Vec<String> = pads
        .iter()
        .map(|(x, out, value, padding)| {
            let ty = &x[..x.find('[').unwrap()];
            format!(
                "HloModule m\nENTRY e {{\n  x = {x} parameter(0)\n  c = {ty}[] constant({value})\n  \
                 ROOT p = {out} pad(x, c), padding={padding}\n}}"
            )
        })
        .collect();
    modules.push(
        "HloModule m\nENTRY e {\n  x = f32[6,10]{0,1} parameter(0)\n  \
         ROOT s = f32[3,4]{0,1} slice(x), slice={[2:5], [1:5]}\n}"
            .into(),
    );
    modules.push(
        "HloModule m\nENTRY e {\n  x = f32[1,16,96]{2,1,0} parameter(0)\n  \
         q = f32[1,16,32]{2,1,0} slice(x), slice={[0:1], [0:16], [32:64]}\n  \
         h = f32[1,16,4,8]{3,2,1,0} bitcast(q)\n  \
         ROOT t = f32[1,4,16,8]{3,1,2,0} bitcast(h)\n}"
            .into(),
    );
    // Slices stepping through dimensions above the minor one (a
    // transposed convolution's taps of its weights), whole minor
    // dimensions merged into the runs below a step of one only.
    for (x, out, bounds) in [
        (
            "f32[3,3,16,8]{3,2,1,0}",
            "f32[2,2,16,8]{3,2,1,0}",
            "[0:3:2], [0:3:2], [0:16], [0:8]",
        ),
        (
            "f32[3,3,16,8]{3,2,1,0}",
            "f32[1,2,16,8]{3,2,1,0}",
            "[1:2:2], [0:3:2], [0:16], [0:8]",
        ),
        (
            "f32[5,7,6]{2,1,0}",
            "f32[2,4,4]{2,1,0}",
            "[1:5:3], [0:7:2], [1:5]",
        ),
        (
            "f32[6,4,8]{2,1,0}",
            "f32[3,4,8]{2,1,0}",
            "[0:6:2], [0:4], [0:8]",
        ),
        (
            "f32[6,4,8]{2,1,0}",
            "f32[6,2,8]{2,1,0}",
            "[0:6], [0:4:3], [0:8]",
        ),
    ] {
        modules.push(format!(
            "HloModule m\nENTRY e {{\n  x = {x} parameter(0)\n  \
             ROOT s = {out} slice(x), slice={{{bounds}}}\n}}"
        ));
    }
    let copied = |text: &str| {
        let m = module(text);
        let exe = check_against_interpreter(&m, &random_args(&m, 3), Tolerance::new(0.0, 0.0));
        exe.dump().contains("the runtime copies")
    };
    for text in modules {
        assert!(copied(&text), "{text}");
    }
    // A step in the minor dimension leaves no runs to copy: a kernel.
    assert!(!copied(
        "HloModule m\nENTRY e {\n  x = f32[4,10]{1,0} parameter(0)\n  \
         ROOT s = f32[4,5]{1,0} slice(x), slice={[0:4], [0:10:2]}\n}"
    ));
}

/// Dynamic slices, and dynamic updates written in place, are copied by
/// the runtime: starts from parameters of every integer type (random
/// values, clamped as XLA clamps them: a `u32` above `i32::MAX` is a large
/// start) and from constants, updates through bitcasts, whole minor
/// dimensions merged into the runs, other layouts and element types.
#[test]
fn dynamic_slices_and_updates_are_copied_by_the_runtime() {
    use crate::runtime_support::{check_against_interpreter, random_args};
    let slices = [
        ("f32[8,6,5]{2,1,0}", "f32[2,6,3]{2,1,0}", "s32", "2,6,3"),
        ("f32[8,6,5]{0,1,2}", "f32[3,2,5]{0,1,2}", "u32", "3,2,5"),
        ("bf16[9,4]{1,0}", "bf16[4,4]{1,0}", "s64", "4,4"),
        ("s8[7,3,2]{2,1,0}", "s8[1,3,2]{2,1,0}", "s8", "1,3,2"),
    ];
    let mut modules = Vec::new();
    for (x, out, ty, sizes) in slices {
        let rank = sizes.split(',').count();
        let starts: Vec<String> = (0..rank).map(|d| format!("i{d}")).collect();
        let params: String = (0..rank)
            .map(|d| match d {
                1 => format!("  i{d} = {ty}[] constant(1)\n"),
                0 => format!("  i{d} = {ty}[] parameter(1)\n"),
                _ => format!("  i{d} = {ty}[] parameter(2)\n"),
            })
            .collect();
        modules.push(format!(
            "HloModule m\nENTRY e {{\n  x = {x} parameter(0)\n{params}  \
             ROOT s = {out} dynamic-slice(x, {}), dynamic_slice_sizes={{{sizes}}}\n}}",
            starts.join(", ")
        ));
    }
    // The update's starts: `i` and `j` parameters, `z` a constant 0.
    let updates = [
        (
            "f32[8,6,5]{2,1,0}",
            "f32[2,6,5]{2,1,0}",
            "f32[2,6,5]{2,1,0}",
            "s32",
            "i, z, j",
        ),
        (
            "f32[8,6,5]{2,1,0}",
            "f32[6,5]{1,0}",
            "f32[1,6,5]{2,1,0}",
            "u32",
            "i, z, j",
        ),
        (
            "f32[8,6,5]{0,1,2}",
            "f32[3,6,2]{0,1,2}",
            "f32[3,6,2]{0,1,2}",
            "s64",
            "i, z, j",
        ),
        (
            "pred[5,7]{1,0}",
            "pred[2,3]{1,0}",
            "pred[2,3]{1,0}",
            "s16",
            "i, j",
        ),
    ];
    for (x, u, bitcast, ty, starts) in updates {
        modules.push(format!(
            "HloModule m\nENTRY e {{\n  x = {x} parameter(0)\n  u = {u} parameter(1)\n  \
             i = {ty}[] parameter(2)\n  j = {ty}[] parameter(3)\n  z = {ty}[] constant(0)\n  \
             b = {bitcast} bitcast(u)\n  \
             ROOT d = {x} dynamic-update-slice(x, b, {starts})\n}}"
        ));
    }
    for text in modules {
        let m = module(&text);
        for seed in 0..4 {
            let exe =
                check_against_interpreter(&m, &random_args(&m, seed), Tolerance::new(0.0, 0.0));
            let dump = exe.dump();
            assert!(dump.contains("the runtime copies"), "{text}\n{dump}");
            assert!(!dump.contains("  kernel "), "{text}\n{dump}");
        }
    }
    // A scan's output written step by step in place: no copy of the
    // output in the loop (the copy that primes it is coalesced away).
    let scan = module(SCAN);
    let exe = check_against_interpreter(&scan, &random_args(&scan, 1), Tolerance::new(0.0, 0.0));
    let dump = exe.dump();
    let program = &dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()];
    assert!(program.contains("window"), "{program}");
    assert!(!program.contains("(512 bytes)"), "{program}");
}

/// A broadcast of a constant is filled by the runtime (a pad of an empty
/// array): every element type's bytes, layouts, through a bitcast.
#[test]
fn broadcasts_of_constants_are_filled_by_the_runtime() {
    use crate::runtime_support::check_against_interpreter;
    for (ty, value, shape) in [
        ("s32", "0", "[128]{0}"),
        ("f32", "-2.5", "[3,5,7]{2,1,0}"),
        ("f32", "inf", "[6,4]{0,1}"),
        ("bf16", "1.5", "[9,2]{1,0}"),
        ("pred", "true", "[5,3]{1,0}"),
        ("s8", "-3", "[2,2,2]{0,2,1}"),
        ("f64", "0.25", "[4]{0}"),
    ] {
        let text = format!(
            "HloModule m\nENTRY e {{\n  c = {ty}[] constant({value})\n  \
             ROOT b = {ty}{shape} broadcast(c), dimensions={{}}\n}}"
        );
        let m = module(&text);
        let exe = check_against_interpreter(&m, &[], Tolerance::new(0.0, 0.0));
        let dump = exe.dump();
        assert!(dump.contains("the runtime copies"), "{text}\n{dump}");
    }
    let text = "HloModule m\nENTRY e {\n  c = f32[1]{0} constant({4})\n  \
                b = f32[6,1]{1,0} broadcast(c), dimensions={1}\n  \
                ROOT r = f32[6]{0} bitcast(b)\n}";
    let m = module(text);
    let exe = check_against_interpreter(&m, &[], Tolerance::new(0.0, 0.0));
    assert!(exe.dump().contains("the runtime copies"), "{}", exe.dump());
}

/// A loop stacking 16 steps of a state into `f32[16,8]` (512 bytes).
const SCAN: &str = "HloModule m
cond {
  c = (s32[], f32[16,8]{1,0}, f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  c = (s32[], f32[16,8]{1,0}, f32[8]{0}) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  acc = f32[16,8]{1,0} get-tuple-element(c), index=1
  h = f32[8]{0} get-tuple-element(c), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  h2 = f32[8]{0} negate(h)
  u = f32[1,8]{1,0} reshape(h2)
  z = s32[] constant(0)
  acc2 = f32[16,8]{1,0} dynamic-update-slice(acc, u, i, z)
  ROOT t = (s32[], f32[16,8]{1,0}, f32[8]{0}) tuple(i1, acc2, h2)
}
ENTRY e {
  h0 = f32[8]{0} parameter(0)
  z = s32[] constant(0)
  zf = f32[] constant(0)
  a0 = f32[16,8]{1,0} broadcast(zf), dimensions={}
  t0 = (s32[], f32[16,8]{1,0}, f32[8]{0}) tuple(z, a0, h0)
  w = (s32[], f32[16,8]{1,0}, f32[8]{0}) while(t0), condition=cond, body=body
  ROOT r = f32[16,8]{1,0} get-tuple-element(w), index=1
}";
