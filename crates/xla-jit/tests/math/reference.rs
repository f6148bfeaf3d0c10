//! Reference values and ulp bookkeeping for the math library's tests and its
//! accuracy report (`examples/math_ulp.rs` includes this file).

#![allow(dead_code)]

use xla_jit::math::{BinaryFn, UnaryFn};

/// The f64 reference of a unary function (Rust's `std`, `libm` for erf).
pub fn unary_reference(f: UnaryFn) -> fn(f64) -> f64 {
    match f {
        UnaryFn::Exp => f64::exp,
        UnaryFn::Expm1 => f64::exp_m1,
        UnaryFn::Log => f64::ln,
        UnaryFn::Log1p => f64::ln_1p,
        UnaryFn::Logistic => logistic,
        UnaryFn::Tanh => f64::tanh,
        UnaryFn::Erf => libm::erf,
        UnaryFn::Sin => f64::sin,
        UnaryFn::Cos => f64::cos,
        UnaryFn::Tan => f64::tan,
        UnaryFn::Cbrt => f64::cbrt,
        UnaryFn::Sqrt => f64::sqrt,
        UnaryFn::Rsqrt => rsqrt,
    }
}

/// `1 / (1 + e^-x)` from `exp(-|x|)`, with the rounding of `1 + e` and of
/// the division corrected (so the reference is as good as `exp`).
fn logistic(x: f64) -> f64 {
    let e = (-x.abs()).exp();
    let d = 1.0 + e;
    let d_lo = (1.0 - d) + e;
    let n = if x < 0.0 { e } else { 1.0 };
    let q = n / d;
    let r = q.mul_add(-d, n) - q * d_lo;
    q + r / d
}

/// `1 / sqrt(x)` with one Newton correction on the residual `1 - (x r) r`.
fn rsqrt(x: f64) -> f64 {
    let r = 1.0 / x.sqrt();
    if !(x > 0.0 && x < f64::INFINITY) {
        return r;
    }
    let xr = x * r;
    let xr_lo = x.mul_add(r, -xr);
    let rho = (-xr_lo).mul_add(r, (-xr).mul_add(r, 1.0));
    (0.5 * r).mul_add(rho, r)
}

/// The f64 reference of a binary function (first operand first:
/// `atan2(y, x)`, `pow(x, y)`).
pub fn binary_reference(f: BinaryFn) -> fn(f64, f64) -> f64 {
    match f {
        BinaryFn::Atan2 => f64::atan2,
        BinaryFn::Pow => f64::powf,
    }
}

/// The arguments where a unary function does its work (benchmark inputs and
/// the dense part of the samples).
pub fn unary_range(f: UnaryFn) -> (f64, f64) {
    match f {
        UnaryFn::Exp => (-80.0, 80.0),
        UnaryFn::Expm1 => (-20.0, 20.0),
        UnaryFn::Log => (0.0, 100.0),
        UnaryFn::Log1p => (-1.0, 10.0),
        UnaryFn::Logistic => (-20.0, 20.0),
        UnaryFn::Tanh => (-10.0, 10.0),
        UnaryFn::Erf => (-5.0, 5.0),
        UnaryFn::Sin | UnaryFn::Cos | UnaryFn::Tan => (-10.0, 10.0),
        UnaryFn::Cbrt => (-1000.0, 1000.0),
        UnaryFn::Sqrt | UnaryFn::Rsqrt => (0.0, 1000.0),
    }
}

/// The core domain of a binary function: `(x range, y range)`.
pub fn binary_range(f: BinaryFn) -> ((f64, f64), (f64, f64)) {
    match f {
        BinaryFn::Atan2 => ((-4.0, 4.0), (-4.0, 4.0)),
        BinaryFn::Pow => ((0.0, 4.0), (-30.0, 30.0)),
    }
}

/// Special arguments: signed zeros, subnormals, the edges of the normal and
/// finite ranges, infinities, NaN, and small integers and halves.
pub fn special_values() -> Vec<f64> {
    let mut v = vec![
        0.0,
        f64::MIN_POSITIVE,
        f64::MIN_POSITIVE / 4.0,
        f64::from_bits(1),
        f32::MIN_POSITIVE as f64,
        f32::from_bits(1) as f64,
        f32::MAX as f64,
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
        f64::EPSILON,
        f32::EPSILON as f64,
        1e-300,
        1e-30,
        1e-10,
        1e-5,
        0.5,
        1.0,
        1.5,
        2.0,
        3.0,
        8.0,
        10.0,
        100.0,
        1e5,
        1e10,
        1e22,
        1e300,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::FRAC_PI_4,
        std::f64::consts::LN_2,
        88.72283,
        88.72284,
        89.0,
        709.78,
        709.79,
        -103.97,
        -745.13,
        -745.14,
    ];
    let negated: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(negated);
    v
}

/// Every pair of special values.
pub fn special_pairs(_f: BinaryFn) -> (Vec<f64>, Vec<f64>) {
    let s = special_values();
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for &x in &s {
        for &y in &s {
            xs.push(x);
            ys.push(y);
        }
    }
    (xs, ys)
}

/// Function-specific pairs beyond the grid and the random ones.
pub fn binary_extra_pairs(f: BinaryFn, rng: &mut Rng, xs: &mut Vec<f64>, ys: &mut Vec<f64>) {
    let mut push = |x: f64, y: f64| {
        xs.push(x);
        ys.push(y);
    };
    match f {
        BinaryFn::Atan2 => {
            // Extreme ratios and points near the axes and diagonals.
            for _ in 0..100_000 {
                let a = rng.uniform(-1.0, 1.0) * 2f64.powi((rng.next() % 200) as i32 - 100);
                let b = rng.uniform(-1.0, 1.0);
                push(a, b);
                push(b, a);
                push(b, b * (1.0 + rng.uniform(-1e-6, 1e-6)));
            }
        }
        BinaryFn::Pow => {
            // Integer powers (exact results), bases near 1 with large
            // exponents, negative bases, and results near over/underflow.
            for x in -12..=12 {
                for y in -40..=40 {
                    push(f64::from(x), f64::from(y));
                    push(f64::from(x) + 0.5, f64::from(y));
                }
            }
            push(-8.0, 1.0 / 3.0);
            for _ in 0..100_000 {
                let x = 1.0 + rng.uniform(-1e-3, 1e-3);
                push(x, rng.uniform(-1e6, 1e6));
                push(-rng.uniform(0.0, 10.0), (rng.next() % 61) as f64 - 30.0);
                let x = rng.uniform(0.5, 4.0);
                let lim = if rng.next().is_multiple_of(2) {
                    88.0
                } else {
                    709.0
                };
                push(x, lim / x.ln() * rng.uniform(0.98, 1.02));
                push(x, -lim / x.ln() * rng.uniform(0.98, 1.2));
            }
        }
    }
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[a, b)`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// The error of `got` against the reference `want`, in ulp of the result
/// type (f32 or f64). NaN-ness, infinities and the sign of zero results
/// must match exactly: a mismatch is an infinite error.
pub fn ulp_error(got: f64, want: f64, f32: bool) -> f64 {
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got == 0.0 && got.is_sign_negative() != want.is_sign_negative() {
        return f64::INFINITY;
    }
    if got == want {
        return 0.0;
    }
    let (mant, emin, emax) = if f32 {
        (23, -126, 127)
    } else {
        (52, -1022, 1023)
    };
    // Infinities count as 2^(emax+1), so that a result that overflows just
    // beyond the largest finite value is measured, not failed.
    let top = 2f64.powi(emax) * 2.0;
    let clamp = |v: f64| if v.abs() >= top { top.copysign(v) } else { v };
    let (g, w) = (clamp(got), clamp(want));
    if got.is_infinite() != want.is_infinite() && (w.abs() < top / 2.0 || g.abs() < top / 2.0) {
        return f64::INFINITY;
    }
    let e = if w == 0.0 {
        emin
    } else {
        exponent(w).clamp(emin, emax)
    };
    // 2^(e - mant), in two factors: powi(-1074) alone is not exact.
    let ulp = 2f64.powi(e) * 2f64.powi(-mant);
    // (g - w) may overflow for f64 near the top: scale first.
    (g / ulp - w / ulp).abs()
}

/// The binary exponent of a finite nonzero f64 (subnormals included).
fn exponent(v: f64) -> i32 {
    let v = v.abs();
    if v < f64::MIN_POSITIVE {
        return exponent(v * 2f64.powi(64)) - 64;
    }
    ((v.to_bits() >> 52) as i32) - 1023
}

/// The largest error seen and where.
#[derive(Clone, Debug, Default)]
pub struct Worst {
    pub ulp: f64,
    pub x: f64,
    pub y: f64,
    pub got: f64,
    pub want: f64,
    pub failures: u64,
    pub first_failure: Option<(f64, f64, f64, f64)>,
    pub count: u64,
}

impl Worst {
    pub fn add(&mut self, got: f64, want: f64, x: f64, y: f64, f32: bool) {
        self.count += 1;
        let e = ulp_error(got, want, f32);
        if e.is_infinite() {
            self.failures += 1;
            if self.first_failure.is_none() {
                self.first_failure = Some((x, y, got, want));
            }
        } else if e > self.ulp {
            *self = Worst {
                ulp: e,
                x,
                y,
                got,
                want,
                ..self.clone()
            };
        }
    }

    pub fn add_f32(&mut self, got: f32, want: f64, x: f64, y: f64) {
        self.add(f64::from(got), want, x, y, true);
    }

    pub fn merge(self, other: Worst) -> Worst {
        let (mut a, b) = if self.ulp >= other.ulp {
            (self, other)
        } else {
            (other, self)
        };
        a.failures += b.failures;
        a.count += b.count;
        a.first_failure = a.first_failure.or(b.first_failure);
        a
    }

    pub fn report(&self) -> String {
        let at = if self.y == 0.0 {
            format!("x={:e}", self.x)
        } else {
            format!("x={:e} y={:e}", self.x, self.y)
        };
        let mut s = format!("{:>8.3}  {:<40} {:>9}", self.ulp, at, self.failures);
        if let Some((x, y, got, want)) = self.first_failure {
            s += &format!("  [first failure: f({x:e}, {y:e}) = {got:e}, want {want:e}]");
        }
        s
    }
}
