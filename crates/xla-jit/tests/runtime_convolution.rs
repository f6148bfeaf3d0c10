//! Convolutions through the whole JIT pipeline against the interpreter:
//! large ones without groups run as a dot on the engine reading the
//! patches as a window of the input (the im2col is never written)
//! (floats within a tolerance: the engine sums in another order), small
//! or grouped ones as direct convolution kernels; none falls back to the
//! interpreter.

use crate::runtime_support;

use runtime_support::{check_against_interpreter, random_args};
use xla_core::literal::Tolerance;

const F32_TOLERANCE: Tolerance = Tolerance::new(1e-4, 1e-4);
/// A 16-bit result may round the other way after another summation order.
const HALF_TOLERANCE: Tolerance = Tolerance::new(1e-2, 1e-2);

/// One entry convolution of `lhs` and `rhs` (shapes with layouts) into
/// `out`; `attrs` follow the operands.
fn conv_module(lhs: &str, rhs: &str, out: &str, attrs: &str) -> String {
    format!(
        "HloModule m, entry_computation_layout={{({lhs}, {rhs})->{out}}}
ENTRY e {{
  a = {lhs} parameter(0)
  b = {rhs} parameter(1)
  ROOT c = {out} convolution(a, b), {attrs}
}}"
    )
}

/// How a convolution ran.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    /// A direct convolution kernel.
    Direct,
    /// A dot on the engine over a materialized or plain operand (a 1×1
    /// window: the input itself, or a strided slice of it).
    Dot,
    /// A dot on the engine reading the patches as a window of the input:
    /// the im2col is never written.
    Window,
}

/// Runs the module on the JIT and the interpreter for two random argument
/// sets; how the JIT ran it.
fn check(lhs: &str, rhs: &str, out: &str, attrs: &str) -> Route {
    check_within(lhs, rhs, out, attrs, F32_TOLERANCE)
}

/// [`check`] with a tolerance.
fn check_within(lhs: &str, rhs: &str, out: &str, attrs: &str, tolerance: Tolerance) -> Route {
    let text = conv_module(lhs, rhs, out, attrs);
    let module = runtime_support::parse(&text);
    let mut route = Route::Direct;
    for seed in 0..2 {
        let args = random_args(&module, seed);
        let exe = check_against_interpreter(&module, &args, tolerance);
        assert!(
            exe.fallback_ops().is_empty(),
            "interpreted: {:?}\n{text}",
            exe.fallback_ops()
        );
        let dump = exe.dump();
        let program = &dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()];
        route = if !program.contains("  dot ") {
            Route::Direct
        } else if dump.contains("patches read as a window") {
            Route::Window
        } else {
            Route::Dot
        };
    }
    route
}

#[test]
fn im2col_nhwc_and_nchw() {
    let same = "window={size=3x3 pad=1_1x1_1}";
    assert_eq!(
        Route::Window,
        check(
            "f32[2,12,12,32]{3,2,1,0}",
            "f32[3,3,32,24]{3,2,1,0}",
            "f32[2,12,12,24]{3,2,1,0}",
            &format!("{same}, dim_labels=b01f_01io->b01f"),
        )
    );
    assert_eq!(
        Route::Window,
        check(
            "f32[2,32,12,12]{3,2,1,0}",
            "f32[24,32,3,3]{3,2,1,0}",
            "f32[2,24,12,12]{3,2,1,0}",
            &format!("{same}, dim_labels=bf01_oi01->bf01"),
        )
    );
    // Small (147k multiply-adds) but already faster as a dot.
    assert_eq!(
        Route::Window,
        check(
            "f32[1,8,8,16]{3,2,1,0}",
            "f32[3,3,16,16]{3,2,1,0}",
            "f32[1,8,8,16]{3,2,1,0}",
            &format!("{same}, dim_labels=b01f_01io->b01f"),
        )
    );
    // Non-default layouts everywhere.
    assert_eq!(
        Route::Window,
        check(
            "f32[2,12,12,32]{0,1,2,3}",
            "f32[3,3,32,24]{2,3,0,1}",
            "f32[2,12,12,24]{1,3,2,0}",
            &format!("{same}, dim_labels=b01f_01io->b01f"),
        )
    );
}

#[test]
fn im2col_windows() {
    // Strides, negative padding, and both dilations.
    assert_eq!(
        Route::Window,
        check(
            "f32[8,17,15,24]{3,2,1,0}",
            "f32[3,2,24,16]{3,2,1,0}",
            "f32[8,8,8,16]{3,2,1,0}",
            "window={size=3x2 stride=2x2 pad=1_0x2_-1}, dim_labels=b01f_01io->b01f",
        )
    );
    assert_eq!(Route::Window, check(
        "f32[1,24,9,11]{3,2,1,0}",
        "f32[32,24,2,3]{3,2,1,0}",
        "f32[1,32,17,19]{3,2,1,0}",
        "window={size=2x3 pad=1_0x1_1 lhs_dilate=2x2 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01",
    ));
    // 1×1 windows: the whole input is the patches matrix, or a strided
    // slice of it.
    assert_eq!(
        Route::Dot,
        check(
            "f32[2,10,10,32]{3,2,1,0}",
            "f32[1,1,32,32]{3,2,1,0}",
            "f32[2,10,10,32]{3,2,1,0}",
            "window={size=1x1}, dim_labels=b01f_01io->b01f",
        )
    );
    assert_eq!(
        Route::Dot,
        check(
            "f32[4,32,10,10]{3,2,1,0}",
            "f32[32,32,1,1]{3,2,1,0}",
            "f32[4,32,5,5]{3,2,1,0}",
            "window={size=1x1 stride=2x2}, dim_labels=bf01_oi01->bf01",
        )
    );
    // 1-D and 3-D, f64.
    assert_eq!(
        Route::Window,
        check(
            "f64[4,64,48]{2,1,0}",
            "f64[5,48,32]{2,1,0}",
            "f64[4,60,32]{2,1,0}",
            "window={size=5}, dim_labels=b0f_0io->b0f",
        )
    );
    assert_eq!(
        Route::Window,
        check(
            "f32[1,8,8,8,16]{4,3,2,1,0}",
            "f32[3,3,3,16,16]{4,3,2,1,0}",
            "f32[1,8,8,8,16]{4,3,2,1,0}",
            "window={size=3x3x3 pad=1_1x1_1x1_1}, dim_labels=b012f_012io->b012f",
        )
    );
}

/// f16/bf16 operands convert to f32 exactly; a 16-bit result is the f32
/// dot rounded once.
#[test]
fn im2col_half_precision() {
    let attrs = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
    for (operands, result) in [
        ("bf16", "bf16"),
        ("f16", "f16"),
        ("bf16", "f32"),
        ("f16", "f32"),
    ] {
        assert_eq!(
            Route::Window,
            check_within(
                &format!("{operands}[2,12,12,32]{{3,2,1,0}}"),
                &format!("{operands}[3,3,32,24]{{3,2,1,0}}"),
                &format!("{result}[2,12,12,24]{{3,2,1,0}}"),
                attrs,
                HALF_TOLERANCE,
            )
        );
    }
}

#[test]
fn direct_kernels_where_im2col_does_not_pay() {
    // Small, grouped, bf16, or integer: direct convolution kernels.
    assert_eq!(
        Route::Direct,
        check(
            "f32[1,6,6,4]{3,2,1,0}",
            "f32[3,3,4,4]{3,2,1,0}",
            "f32[1,6,6,4]{3,2,1,0}",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        )
    );
    assert_eq!(
        Route::Direct,
        check(
            "f32[2,12,12,32]{3,2,1,0}",
            "f32[3,3,1,32]{3,2,1,0}",
            "f32[2,12,12,32]{3,2,1,0}",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32",
        )
    );
    assert_eq!(
        Route::Direct,
        check(
            "s32[2,12,12,32]{3,2,1,0}",
            "s32[3,3,32,24]{3,2,1,0}",
            "s32[2,12,12,24]{3,2,1,0}",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        )
    );
}

/// How many times `op` (e.g. `" slice("`) occurs in the JIT's optimized
/// module of the convolution.
fn count(lhs: &str, rhs: &str, out: &str, attrs: &str, op: &str) -> usize {
    let module = runtime_support::parse(&conv_module(lhs, rhs, out, attrs));
    let dump = runtime_support::compile_all(&module).dump();
    let optimized = &dump[..dump.find("== fusion plan").unwrap()];
    optimized.matches(op).count()
}

/// How many slices the JIT's optimized module of the convolution holds
/// (the im2col's, one per tap or per output position).
fn slices(lhs: &str, rhs: &str, out: &str, attrs: &str) -> usize {
    count(lhs, rhs, out, attrs, " slice(")
}

/// Transposed convolutions (a base dilation, as JAX's `conv_transpose`
/// and the input gradient of a strided convolution have) run as one
/// convolution per phase of the output, each a dot over only the taps
/// that meet real inputs: none multiplies the inserted zeros.
#[test]
fn transposed_convolutions_by_phases() {
    let cases = [
        // JAX's conv_transpose, stride 2, 3×3, SAME: phases of 4, 2, 2
        // and 1 taps.
        (
            "f32[2,8,8,32]{3,2,1,0}",
            "f32[3,3,32,24]{3,2,1,0}",
            "f32[2,16,16,24]{3,2,1,0}",
            "window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f",
            4,
        ),
        // A kernel shorter than the dilation (a phase meets no input: its
        // outputs are zeros), negative padding, an output cut short, and a
        // stride in the undilated dimension.
        (
            "f32[2,9,10,16]{3,2,1,0}",
            "f32[2,3,16,24]{3,2,1,0}",
            "f32[2,25,5,24]{3,2,1,0}",
            "window={size=2x3 stride=1x2 pad=-1_2x1_1 lhs_dilate=3x1}, dim_labels=b01f_01io->b01f",
            2,
        ),
        // NCHW in, a non-default layout out, outputs cut in one dimension.
        (
            "f32[2,32,6,7]{3,2,1,0}",
            "f32[24,32,4,4]{3,2,1,0}",
            "f32[2,24,12,13]{1,3,2,0}",
            "window={size=4x4 pad=2_2x1_2 lhs_dilate=2x2}, dim_labels=bf01_oi01->bf01",
            4,
        ),
        // 1-D, f64, dilation 3: phases of 2, 1 and 1 taps.
        (
            "f64[16,20,32]{2,1,0}",
            "f64[4,32,16]{2,1,0}",
            "f64[16,61,16]{2,1,0}",
            "window={size=4 pad=3_3 lhs_dilate=3}, dim_labels=b0f_0io->b0f",
            3,
        ),
    ];
    for (lhs, rhs, out, attrs, phases) in cases {
        assert_ne!(Route::Direct, check(lhs, rhs, out, attrs), "{attrs}");
        assert_eq!(count(lhs, rhs, out, attrs, " dot("), phases, "{attrs}");
        assert_eq!(count(lhs, rhs, out, attrs, " convolution("), 0, "{attrs}");
    }
    let (lhs, rhs, out, attrs, _) = cases[0];
    let bf16 = |s: &str| s.replace("f32", "bf16");
    assert_ne!(
        Route::Direct,
        check_within(&bf16(lhs), &bf16(rhs), out, attrs, HALF_TOLERANCE)
    );
}

/// Weight gradients, whose window is as large as the input and whose
/// output has a few positions: im2col slices the input once per output
/// position instead of once per tap.
#[test]
fn im2col_by_output_positions() {
    let cases = [
        // A 3×3 SAME convolution's weight gradient (as JAX emits it).
        (
            "f32[4,10,10,8]{3,2,1,0}",
            "f32[4,10,10,16]{3,2,1,0}",
            "f32[3,3,8,16]{3,2,1,0}",
            "window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf",
            9,
        ),
        // A stride-2 convolution's: the window dilated; with a stride too.
        (
            "f32[4,11,11,8]{3,2,1,0}",
            "f32[4,5,5,16]{3,2,1,0}",
            "f32[3,3,8,16]{3,2,1,0}",
            "window={size=5x5 rhs_dilate=2x2}, dim_labels=f01b_i01o->01bf",
            9,
        ),
        (
            "f32[4,12,11,8]{3,2,1,0}",
            "f32[4,5,5,16]{3,2,1,0}",
            "f32[3,2,8,16]{3,2,1,0}",
            "window={size=5x5 stride=2x2 pad=0_1x0_0 rhs_dilate=2x2}, dim_labels=f01b_i01o->01bf",
            6,
        ),
        // Non-default layouts everywhere.
        (
            "f32[4,10,10,8]{0,1,2,3}",
            "f32[4,10,10,16]{2,3,0,1}",
            "f32[3,3,8,16]{1,3,2,0}",
            "window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf",
            9,
        ),
        // 1-D, f64, and a window as large as the padded input: one
        // position, the padded input itself.
        (
            "f64[4,50,8]{2,1,0}",
            "f64[4,48,16]{2,1,0}",
            "f64[3,8,16]{2,1,0}",
            "window={size=48}, dim_labels=f0b_i0o->0bf",
            3,
        ),
        (
            "f32[16,30,8]{2,1,0}",
            "f32[16,32,16]{2,1,0}",
            "f32[1,8,16]{2,1,0}",
            "window={size=32 pad=1_1}, dim_labels=f0b_i0o->0bf",
            0,
        ),
    ];
    for (lhs, rhs, out, attrs, positions) in cases {
        let route = if positions > 0 {
            Route::Window
        } else {
            Route::Dot
        };
        assert_eq!(route, check(lhs, rhs, out, attrs), "{attrs}");
        assert_eq!(slices(lhs, rhs, out, attrs), positions, "{attrs}");
    }
}

/// A convolution whose dot reads the patches as a window of its input,
/// followed by a batch norm and a ReLU: the epilogue is a native kernel on
/// a CPU with native kernels (the patches' slices belong to the dot's
/// operand, not to the epilogue). The same convolution alone compiles no
/// epilogue kernel.
#[test]
fn window_convolutions_with_and_without_epilogues() {
    let o = "f32[2,12,12,24]{3,2,1,0}";
    let conv = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
    let text = format!(
        "HloModule m
ENTRY e {{
  a = f32[2,12,12,32]{{3,2,1,0}} parameter(0)
  b = f32[3,3,32,24]{{3,2,1,0}} parameter(1)
  c = {o} convolution(a, b), {conv}
  s = f32[24]{{0}} parameter(2)
  sb = {o} broadcast(s), dimensions={{3}}
  m = {o} multiply(c, sb)
  t = f32[24]{{0}} parameter(3)
  tb = {o} broadcast(t), dimensions={{3}}
  y = {o} add(m, tb)
  z = f32[] constant(0)
  zb = {o} broadcast(z), dimensions={{}}
  ROOT r = {o} maximum(y, zb)
}}"
    );
    let kernels = |text: &str| {
        let module = runtime_support::parse(text);
        let args = random_args(&module, 3);
        let exe = check_against_interpreter(&module, &args, F32_TOLERANCE);
        let dump = exe.dump();
        assert!(dump.contains("patches read as a window"), "{dump}");
        dump.lines()
            .filter_map(|l| l.strip_prefix("  kernel "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let with = kernels(&text);
    let native = match xla_jit::wide::native_width() {
        Some(xla_jit::wide::Width::Zmm) => "_avx512_epilogue",
        Some(xla_jit::wide::Width::Ymm) => "_avx2_epilogue",
        None => "_epilogue",
    };
    assert!(with.iter().any(|k| k.contains(native)), "{with:?}");
    let alone = kernels(&conv_module(
        "f32[2,12,12,32]{3,2,1,0}",
        "f32[3,3,32,24]{3,2,1,0}",
        o,
        conv,
    ));
    assert!(alone.iter().all(|k| !k.contains("epilogue")), "{alone:?}");
}
