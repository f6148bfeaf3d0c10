//! Vectorized math for the JIT's elementwise kernels.
//!
//! [`emit_unary`] and [`emit_binary`] emit Cranelift code for a
//! transcendental function of `f32x4`, `f64x2`, `f32` or `f64` values. The
//! code is branch-free vector arithmetic: Cody–Waite argument reduction,
//! minimax polynomials evaluated with FMA, exponent manipulation on the
//! integer view of the lanes, and lane masks (`select`) for the special
//! values. Nothing calls libm. The scalar forms, used by loop tails, run the
//! same vector code on lane 0, so tails and main loops agree bit for bit.
//! [`UnaryKernel`](crate::codegen::UnaryKernel) and
//! [`BinaryKernel`](crate::codegen::BinaryKernel) wrap one function in a
//! compiled slice loop (vector main loop, scalar tail): the tests, the
//! accuracy report and the benchmark use them.
//!
//! ```
//! use xla_jit::codegen::{CodegenOptions, UnaryKernel};
//! use xla_jit::math::UnaryFn;
//!
//! let exp = UnaryKernel::<f32>::compile(&CodegenOptions::default(), UnaryFn::Exp).unwrap();
//! let y = exp.map(&[0.0, 1.0, 88.0, 89.0, -104.0, f32::NEG_INFINITY, f32::NAN]);
//! assert_eq!(y[..6], [1.0, std::f32::consts::E, 1.6516363e38, f32::INFINITY, 0.0, 0.0]);
//! assert!(y[6].is_nan());
//! ```
//!
//! # Special values
//!
//! Every function follows IEEE 754 and C99 Annex F: NaN in gives NaN out
//! (except `pow(x, ±0) = pow(1, y) = 1`); infinities and signed zeros map as
//! in C (`sin(-0) = -0`, `tanh(-0) = -0`, `expm1(-0) = -0`, `log(0) = -inf`,
//! `log(-1) = NaN`, `log1p(-1) = -inf`, `cbrt(-8) = -2`, the `atan2`
//! quadrant rules, `pow(-8, 1/3) = NaN`, `pow(-2, 3) = -8`,
//! `pow(0, -1) = inf`, …); results overflow to ±inf and underflow through
//! the subnormals (rounded once) to ±0. Subnormal inputs are ordinary values
//! here: the kernel emitter applies the project's flush-to-zero rule around
//! these functions.
//!
//! # How each function works
//!
//! | function | algorithm |
//! |---|---|
//! | exp | `x = n ln2 + r` (ln2 split so `n ln2_hi` is exact), `e^r = 1 + r + r^2 P(r)` (degree 6 f32, 11 f64) summed as a double-word, `2^n` applied in two halves |
//! | expm1 | same reduction, `2 (2^(n-1) r + (2^(n-1) - 1/2) + 2^(n-1) r^2 P(r))` with the large terms exact |
//! | log, log1p | `x = 2^k (1 + f)` by integer arithmetic; f32: `f + f^2 P(f)` (`\|f\| <= 1/3`), f64: fdlibm's `s = f/(2+f)` series; `k ln2 + …` with the rounding of the sum kept; log1p adds `((1+x) - u)/u` for the rounding of `u = 1 + x` |
//! | tanh | `x + x^3 P(x^2)` below 0.875 (f32) / 0.5625 (f64), `1 - 2/(e^(2\|x\|) + 1)` above (f64: double-word quotient), sign restored last |
//! | logistic | `e = e^-\|x\|`, `1/(1+e)` or `e/(1+e)` (no overflow, subnormal results), quotient corrected by its residual |
//! | erf | `x + x P(x^2)` below 0.921875; above, `1 - exp(P(\|x\|))` (f32) or `1 - exp(-x^2 + P(t))` with `x^2` split exactly (f64) |
//! | sin, cos, tan | `x = j pi/2 + r`: f32 arguments up to 2^17 in f32 lanes (pi/2 in three f32 parts, the reduced value a double-word), larger ones in f64 lanes (then rounded to an f32 double-word) behind a branch; in f64 lanes by a Cody–Waite split into 33-bit parts for `\|x\| <= 2^20` (f64: 4 parts), else Payne–Hanek with 1280 bits of 2/pi in a copy of the code behind a branch taken only when some lane needs it; sin/cos polynomials on `\|r\| <= pi/4` as double-words, `tan = sin/cos` corrected by its residual |
//! | atan2 | `t = min/max` of `\|x\|, \|y\|`, shifted next to 0, 1/2 or 1 (one division, corrected by its residual), odd polynomial on `\|t'\| <= 7/16`, octant `0, pi/2, pi` added in two parts |
//! | pow | f32 in f64 lanes: `exp(y log\|x\|)`; f64: double-word `log\|x\|` (~2^-100) times `y` fed to exp as a double-word, so exact results stay exact; C99 special cases by masks |
//! | cbrt | `x = m 2^(3k+j)`, polynomial seed times `2^(j/3)`, Newton steps with an exact residual |
//! | sqrt | the hardware instruction (correctly rounded) |
//! | rsqrt | `1/sqrt(x)` then one Newton step on the exact residual `1 - (x r) r` |
//!
//! The coefficients come from `crates/xla-jit/scripts/remez.py` (a Remez
//! exchange in Python `decimal`, rounded coefficients re-checked), which
//! writes `coefficients.rs`.
//!
//! # Accuracy and throughput (measured)
//!
//! Maximum error in ulp of the result type, measured by
//! `cargo run --release -p xla-jit --example math_ulp`:
//!
//! - f32 unary functions: all 2^32 inputs, against the f64 result of Rust's
//!   `std` (`libm` for erf), the error measured against the unrounded f64
//!   value; subnormal inputs and results included;
//! - f32 binary functions: a 2048 x 2048 grid over the core domain, 2^23
//!   random pairs (half random bit patterns), function-specific pairs
//!   (integer powers, bases near 1, extreme ratios) and every pair of
//!   special values;
//! - f64: 2^22 random bit patterns, 2^22 values in the core range and the
//!   special values per function (binary: as for f32). The first figure is
//!   the maximum error against exact values computed by `scripts/accuracy.py`
//!   (Python `decimal`) on every sample whose result differs from `std` plus
//!   a random subset; the figure in parentheses is the largest difference
//!   from `std`/`libm` (glibc), itself not always correctly rounded.
//!
//! Throughput: the f32x4 kernel (vector loop plus scalar tail), one thread,
//! 16384 elements in L2, on the 2-core AMD EPYC (Zen 5, ~4 GHz) of
//! DESIGN.md, best of repeated runs while other jobs loaded the machine
//! (load average 8 to 13): lower bounds. Compile time: the whole kernel,
//! verifier off.
//!
//! | function | f32 max ulp (at) | f64 max ulp vs exact (vs std) | f32x4 elem/ns | compile ms |
//! |---|---|---|---|---|
//! | exp | 0.782 (x = -87.644, subnormal result) | 0.658 (1) | 1.23 | 0.21 |
//! | expm1 | 0.956 (x = 0.35425) | 1.078 (1) | 1.04 | 0.24 |
//! | log | 0.961 (x = 1.3344) | 0.767 (1) | 0.95 | 0.24 |
//! | log1p | 1.011 (x = 0.27996) | 0.772 (1) | 0.79 | 0.26 |
//! | logistic | 0.862 (x = -86.264, subnormal result) | 0.611 (1) | 0.60 | 0.26 |
//! | tanh | 0.996 (x = 0.97724) | 1.008 (2: glibc's tanh is 2.04 ulp off) | 0.75 | 0.26 |
//! | erf | 1.231 (x = 0.92559) | 1.140 (1) | 0.71 | 0.26 |
//! | sin | 0.920 (x = 49.481) | 0.728 (1) | 0.62* | 0.81* |
//! | cos | 0.924 (x = 21.204) | 0.703 (1) | 0.70* | 0.75* |
//! | tan | 0.907 (x = 8.6408) | 0.803 (1) | 0.43* | 0.77* |
//! | cbrt | 0.501 (x = 1.1104e-38) | 0.500 (1) | 0.70 | 0.30 |
//! | sqrt | 0.500 | 0.500 (0) | 3.77 | 0.07 |
//! | rsqrt | 0.500 | 0.500 (0) | 1.84 | 0.11 |
//! | atan2 | 0.925 (y = 2.4523, x = 1.6947), sampled | 0.833 (1) | 0.37 | 0.45 |
//! | pow | 0.507 (x = 0.90722, y = 24.927), sampled | 0.651 (2) | 0.14 | 0.93 |
//!
//! (* sin, cos, tan: measured on the 2-core Intel Xeon (Emerald Rapids)
//! with the other core idle, since f32 sin and cos evaluate one
//! polynomial per lane (2026-12-07; before, 0.760 and 0.750 ulp, 0.48 and
//! 0.52 elem/ns); not comparable with the Zen 5 figures of the other rows.)
//!
//! exp, tanh, logistic (at [`Accuracy::Xla`]), log and f32 sin, cos, tan
//! and erf are written over `LaneOps`, so the native kernels (`crate::wide`) run the
//! same operations on 16 (or 8) lanes and give the same bits as the
//! `f32x4` code; sin, cos and tan call out of line (`LaneOps::lanes_call`)
//! for the lanes above 2^17, infinities and NaNs. At [`Accuracy::Xla`] f32
//! sin and cos flush by themselves (a subnormal argument gives the result
//! of a zero of its sign), so the kernels do not multiply by 1 around
//! them: `math_ulp --xla sin cos` measures the same 0.920 and 0.924 ulp.
//!
//! The kernels compile f32 exp, tanh and logistic at [`Accuracy::Xla`]
//! (`math_ulp --xla`: all 2^32 inputs except subnormal inputs and results,
//! which those forms flush; idle machine):
//!
//! | function (f32, `Accuracy::Xla`) | max ulp (at) | XLA:CPU max ulp | f32x4 elem/ns (before the rare-case branch; Full) |
//! |---|---|---|---|
//! | exp | 1.046 (x = -5.8381) | 5.12 | 2.11 (1.62; 1.19) |
//! | tanh | 4.896 (x = 5.1260) | 4.90 | 2.01 (1.71–1.86; 0.75) |
//! | logistic | 2.402 (x = -4.1573) | 2.48 | 1.56 (1.38–1.41; 0.61) |
//!
//! (elem/ns on one core with the other core busy; the figures in
//! parentheses are an earlier idle-machine run, before the special cases
//! moved behind a branch taken only for vectors that need them.)
//!
//! (XLA's tanh is the same rational function, so it reaches the same
//! 4.896 ulp at the same input. XLA's tanh and logistic figures come from
//! a dense scan of 2^22 points over [4, 8] and [-20, 0] (`jnp.tanh`,
//! `jax.nn.sigmoid`), larger than the every-16th-pattern sample quoted
//! below; its exp figure is that sample's.)
//!
//! sin, cos and tan compile two copies of their code (ordinary and large
//! arguments); f32 pow runs its logarithm and exponential as two f64
//! pipelines per vector, hence its cost.
//!
//! For comparison, XLA:CPU through JAX 0.10.2 on this machine: its own f32
//! errors (every 16th bit pattern; normal-range inputs and results, as XLA
//! flushes subnormals; `scripts/xla_ulp.py`) are exp 5.12 ulp, tanh 4.52,
//! logistic 2.34, log 1.14, erf 6.64; its single-thread throughput on
//! 2^18-element arrays, with AVX-512 vectors four times as wide as
//! Cranelift's, is about exp 2.9, tanh 2.8, logistic 1.9, log 2.4, erf
//! 3.0 and sin 0.06 elem/ns (sin calls scalar libm).

mod coefficients;
mod exp_log;
mod fast;
mod hyperbolic;
mod lanes;
mod power;
mod special;
mod trig;
mod trig_reduce;

use crate::clif::ConstTable;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Type, Value};
use cranelift_frontend::FunctionBuilder;
use xla_core::Opcode;

use lanes::{bitcast_flags, Lanes};
pub(crate) use lanes::{LaneOps, LanesFn};
use trig::Trig;

/// A unary function the math library emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryFn {
    /// `e^x`.
    Exp,
    /// `e^x - 1`, accurate near 0.
    Expm1,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`, accurate near 0.
    Log1p,
    /// The logistic sigmoid `1 / (1 + e^-x)`.
    Logistic,
    /// Hyperbolic tangent.
    Tanh,
    /// The error function `2/sqrt(pi) * integral_0^x e^(-t^2) dt`.
    Erf,
    /// Sine (radians).
    Sin,
    /// Cosine (radians).
    Cos,
    /// Tangent (radians).
    Tan,
    /// Cube root (`cbrt(-8) = -2`).
    Cbrt,
    /// Square root (the hardware instruction, correctly rounded).
    Sqrt,
    /// `1 / sqrt(x)`, within 1 ulp.
    Rsqrt,
}

impl UnaryFn {
    /// The function an element-wise op computes through the library, if
    /// it is one of the transcendentals (`sqrt` and `rsqrt` are
    /// instructions to the emitters, not library calls).
    pub fn of(op: Opcode) -> Option<UnaryFn> {
        Some(match op {
            Opcode::Exp => UnaryFn::Exp,
            Opcode::Expm1 => UnaryFn::Expm1,
            Opcode::Log => UnaryFn::Log,
            Opcode::Log1p => UnaryFn::Log1p,
            Opcode::Logistic => UnaryFn::Logistic,
            Opcode::Tanh => UnaryFn::Tanh,
            Opcode::Erf => UnaryFn::Erf,
            Opcode::Sin => UnaryFn::Sin,
            Opcode::Cos => UnaryFn::Cos,
            Opcode::Tan => UnaryFn::Tan,
            Opcode::Cbrt => UnaryFn::Cbrt,
            _ => return None,
        })
    }

    /// Every unary function, in declaration order.
    pub const ALL: [UnaryFn; 13] = [
        UnaryFn::Exp,
        UnaryFn::Expm1,
        UnaryFn::Log,
        UnaryFn::Log1p,
        UnaryFn::Logistic,
        UnaryFn::Tanh,
        UnaryFn::Erf,
        UnaryFn::Sin,
        UnaryFn::Cos,
        UnaryFn::Tan,
        UnaryFn::Cbrt,
        UnaryFn::Sqrt,
        UnaryFn::Rsqrt,
    ];

    /// The function's name as in C (`exp`, `log1p`, …; `logistic`, `rsqrt`).
    pub fn name(self) -> &'static str {
        match self {
            UnaryFn::Exp => "exp",
            UnaryFn::Expm1 => "expm1",
            UnaryFn::Log => "log",
            UnaryFn::Log1p => "log1p",
            UnaryFn::Logistic => "logistic",
            UnaryFn::Tanh => "tanh",
            UnaryFn::Erf => "erf",
            UnaryFn::Sin => "sin",
            UnaryFn::Cos => "cos",
            UnaryFn::Tan => "tan",
            UnaryFn::Cbrt => "cbrt",
            UnaryFn::Sqrt => "sqrt",
            UnaryFn::Rsqrt => "rsqrt",
        }
    }
}

/// How accurately [`emit_unary`] computes: the kernels use [`Accuracy::Xla`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Accuracy {
    /// Every function within the documented ~1.2 ulp, subnormal results
    /// rounded once.
    Full,
    /// f32 `exp`, `tanh` and `logistic` in about half the instructions,
    /// within XLA:CPU's own errors for them (5.1, 4.5 and 2.3 ulp) and with
    /// subnormal results flushed to zero; every other function and type as
    /// [`Accuracy::Full`].
    #[default]
    Xla,
}

/// A binary function the math library emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryFn {
    /// `atan2(y, x)`: the angle of the point `(x, y)` in `[-pi, pi]`; the
    /// first operand is `y`, as in C and XLA's `Atan2(lhs, rhs)`.
    Atan2,
    /// `pow(x, y) = x^y` with C99's special cases.
    Pow,
}

impl BinaryFn {
    /// Every binary function, in declaration order.
    pub const ALL: [BinaryFn; 2] = [BinaryFn::Atan2, BinaryFn::Pow];

    /// The function's name as in C.
    pub fn name(self) -> &'static str {
        match self {
            BinaryFn::Atan2 => "atan2",
            BinaryFn::Pow => "pow",
        }
    }
}

/// Emits `f(x)` for `x` of type `f32x4`, `f64x2`, `f32` or `f64`, returning a
/// value of the same type. Functions that evaluate f32 in f64 lanes (sin,
/// cos, tan) widen and narrow internally.
///
/// # Panics
///
/// If `x` has another type (an emitter bug: callers dispatch on float types).
pub fn emit_unary(
    b: &mut FunctionBuilder<'_>,
    consts: &mut ConstTable,
    f: UnaryFn,
    x: Value,
    accuracy: Accuracy,
) -> Value {
    let ty = b.func.dfg.value_type(x);
    on_vectors(b, consts, ty, f.name(), &[x], |l, v| {
        unary(l, f, v[0], accuracy)
    })
}

/// How many stages [`emit_unary_stage`] splits `f` at `accuracy` on values
/// of type `ty` into: 3 for the f32x4 tanh of [`Accuracy::Xla`], 1 (the
/// whole function) otherwise.
///
/// A stage's dependency chain is a fraction of the function's. A kernel
/// that computes several vectors per loop step emits stage `k` of all of
/// them before stage `k + 1`, so that the core's scheduler holds
/// independent work rather than one long chain per vector. (Staged the
/// same way, exp alone ran no faster, and softmax's exp-sum pass
/// slower.)
pub fn unary_stages(f: UnaryFn, accuracy: Accuracy, ty: Type) -> usize {
    let staged = f == UnaryFn::Tanh && ty == types::F32X4;
    if staged && flushes_subnormals(f, accuracy, types::F32) {
        fast::TANH_STAGES
    } else {
        1
    }
}

/// Emits stage `stage` of the f32x4 `f(x)` (at [`Accuracy::Xla`]) on the
/// values the previous stage returned (none for stage 0). The last stage
/// returns `[f(x)]`; running every stage in turn emits what [`emit_unary`]
/// emits. The last value a stage returns depends on all the others.
///
/// # Panics
///
/// If `f` has fewer than two stages (see [`unary_stages`]) or `values` is
/// not what stage `stage` takes (emitter bugs).
pub fn emit_unary_stage(
    b: &mut FunctionBuilder<'_>,
    consts: &mut ConstTable,
    f: UnaryFn,
    stage: usize,
    x: Value,
    values: &[Value],
) -> Vec<Value> {
    assert_eq!(f, UnaryFn::Tanh, "math::{}: no stages", f.name());
    fast::tanh_stage(&mut Lanes::new(b, consts, types::F32X4), stage, x, values)
}

/// `true` if `f` at `accuracy` on lanes of type `lane` (`F32` or `F64`)
/// already follows the flush-to-zero rule by itself, whatever the MXCSR
/// mode: a subnormal input gives the result of a zero of its sign, and no
/// result is subnormal. The kernels flush around the other functions.
pub fn flushes_subnormals(f: UnaryFn, accuracy: Accuracy, lane: Type) -> bool {
    accuracy == Accuracy::Xla
        && lane == types::F32
        && matches!(
            f,
            UnaryFn::Exp | UnaryFn::Tanh | UnaryFn::Logistic | UnaryFn::Sin | UnaryFn::Cos
        )
}

/// `f(x)` as the kernels compute it ([`Accuracy::Xla`]) on f32 lanes of any
/// width, for the functions written over [`LaneOps`] (the fast exp, tanh
/// and logistic, log, and f32 sin, cos, tan and erf); `None` for the
/// others.
pub(crate) fn generic_unary<L: LaneOps>(l: &mut L, f: UnaryFn, x: L::V) -> Option<L::V> {
    match f {
        UnaryFn::Exp => Some(fast::exp(l, x)),
        UnaryFn::Tanh => Some(fast::tanh(l, x)),
        UnaryFn::Logistic => Some(fast::logistic(l, x)),
        UnaryFn::Log => Some(exp_log::log(l, x)),
        UnaryFn::Sin if l.is_f32() => Some(trig::sin_cos_f32(l, x, false, true)),
        UnaryFn::Cos if l.is_f32() => Some(trig::sin_cos_f32(l, x, true, true)),
        UnaryFn::Tan if l.is_f32() => Some(trig::tan_f32(l, x)),
        UnaryFn::Erf if l.is_f32() => Some(special::erf_f32(l, x)),
        _ => None,
    }
}

fn unary(l: &mut Lanes, f: UnaryFn, x: Value, accuracy: Accuracy) -> Value {
    let fast = flushes_subnormals(f, accuracy, l.ty.lane_type());
    match f {
        UnaryFn::Exp if fast => fast::exp(l, x),
        UnaryFn::Tanh if fast => fast::tanh(l, x),
        UnaryFn::Logistic if fast => fast::logistic(l, x),
        UnaryFn::Exp => exp_log::exp(l, x),
        UnaryFn::Expm1 => exp_log::expm1(l, x),
        UnaryFn::Log => exp_log::log(l, x),
        UnaryFn::Log1p => exp_log::log1p(l, x),
        UnaryFn::Logistic => hyperbolic::logistic(l, x),
        UnaryFn::Tanh => hyperbolic::tanh(l, x),
        UnaryFn::Erf => special::erf(l, x),
        UnaryFn::Sin => trig::trig(l, x, Trig::Sin, fast),
        UnaryFn::Cos => trig::trig(l, x, Trig::Cos, fast),
        UnaryFn::Tan => trig::trig(l, x, Trig::Tan, false),
        UnaryFn::Cbrt => power::cbrt(l, x),
        UnaryFn::Sqrt => power::sqrt(l, x),
        UnaryFn::Rsqrt => power::rsqrt(l, x),
    }
}

/// Emits `f(x, y)` for `x`, `y` of the same type `f32x4`, `f64x2`, `f32` or
/// `f64`, returning a value of that type.
///
/// # Panics
///
/// If the operands differ in type or have another type (an emitter bug).
pub fn emit_binary(
    b: &mut FunctionBuilder<'_>,
    consts: &mut ConstTable,
    f: BinaryFn,
    x: Value,
    y: Value,
) -> Value {
    let ty = b.func.dfg.value_type(x);
    let ty_y = b.func.dfg.value_type(y);
    assert_eq!(
        ty,
        ty_y,
        "math::{}: operand types {ty} and {ty_y} differ",
        f.name()
    );
    on_vectors(b, consts, ty, f.name(), &[x, y], |l, v| match f {
        BinaryFn::Atan2 => trig::atan2(l, v[0], v[1]),
        BinaryFn::Pow => power::pow(l, v[0], v[1]),
    })
}

/// Runs `body` on the vector forms of `args` (all of type `ty`): vectors
/// directly, scalars in lane 0 of a splat.
fn on_vectors(
    b: &mut FunctionBuilder<'_>,
    consts: &mut ConstTable,
    ty: Type,
    name: &str,
    args: &[Value],
    body: impl FnOnce(&mut Lanes, &[Value]) -> Value,
) -> Value {
    match ty {
        types::F32X4 | types::F64X2 => body(&mut Lanes::new(b, consts, ty), args),
        types::F32 | types::F64 => {
            let vty = crate::clif::vector_of(ty);
            let v: Vec<Value> = args.iter().map(|&a| b.ins().splat(vty, a)).collect();
            let y = body(&mut Lanes::new(b, consts, vty), &v);
            b.ins().extractlane(y, 0)
        }
        _ => panic!("math::{name}: operand type {ty} is not f32, f64, f32x4 or f64x2"),
    }
}

/// Evaluates an f32x4 computation in f64 lanes: each argument is widened
/// into two f64x2 halves, `body` runs on both, and the results are rounded
/// back to f32 (once) and joined.
fn via_f64(l: &mut Lanes, args: &[Value], body: impl Fn(&mut Lanes, &[Value]) -> Value) -> Value {
    let (lo_args, hi_args): (Vec<Value>, Vec<Value>) = args.iter().map(|&a| widen(l, a)).unzip();
    let mut l64 = l.with_type(types::F64X2);
    let lo = body(&mut l64, &lo_args);
    let hi = body(&mut l64, &hi_args);
    let lo = l.b.ins().fvdemote(lo);
    let hi = l.b.ins().fvdemote(hi);
    join_halves(l, lo, hi)
}

/// The f32x4 `x` as two f64x2 values: lanes 0, 1 and lanes 2, 3.
fn widen(l: &mut Lanes, x: Value) -> (Value, Value) {
    let b = &mut *l.b;
    let lanes_23: Vec<u8> = (8..16).chain(8..16).collect();
    let high = b.func.dfg.immediates.push(ConstantData::from(lanes_23));
    let lo = b.ins().fvpromote_low(x);
    let bytes = b.ins().bitcast(types::I8X16, bitcast_flags(), x);
    let upper = b.ins().shuffle(bytes, bytes, high);
    let upper = b.ins().bitcast(types::F32X4, bitcast_flags(), upper);
    (lo, b.ins().fvpromote_low(upper))
}

/// Lanes 0, 1 of `lo` and lanes 0, 1 of `hi` (both f32x4, as produced by
/// `fvdemote`) as one f32x4.
fn join_halves(l: &mut Lanes, lo: Value, hi: Value) -> Value {
    shuffle_bytes(l, lo, hi, (0..8).chain(16..24), types::F32X4)
}

/// Bytes of `a` (0..16) and `b` (16..32) picked by `order`, typed `ty`.
fn shuffle_bytes(
    l: &mut Lanes,
    a: Value,
    b: Value,
    order: impl Iterator<Item = u8>,
    ty: Type,
) -> Value {
    let bld = &mut *l.b;
    let mask = bld
        .func
        .dfg
        .immediates
        .push(ConstantData::from(order.collect::<Vec<u8>>()));
    let a = bld.ins().bitcast(types::I8X16, bitcast_flags(), a);
    let b = bld.ins().bitcast(types::I8X16, bitcast_flags(), b);
    let v = bld.ins().shuffle(a, b, mask);
    bld.ins().bitcast(ty, bitcast_flags(), v)
}
