//! `sin`, `cos`, `tan` and `atan2`.
//!
//! sin/cos/tan: `x = j pi/2 + r + r_lo`, then both `sin(r)` and `cos(r)`
//! by odd/even polynomials on `|r| <= pi/4` corrected by `r_lo` (fdlibm's
//! `__kernel_sin`/`__kernel_cos` forms) and carried as double-words, then
//! the quadrant `j mod 4` selects and signs them (`tan = sin/cos` or
//! `-cos/sin`, a double-word quotient). f32 sin and cos instead evaluate
//! one polynomial per lane, the sine's or the cosine's by the quadrant
//! ([`sin_or_cos_of_reduced`]): fewer dependent operations, for loops
//! whose steps wait on them. f32 arguments up to
//! [`F32_LIMIT`] are reduced in f32 lanes ([`reduce_f32_lanes`]); the
//! others (and infinities and NaNs), behind a branch taken only when a
//! vector has one, by a call per vector to [`large`], which reduces them
//! in f64 (Payne–Hanek above 2^20) and evaluates the f64 polynomials.
//! f32 sin and cos are written over [`LaneOps`], so the native kernels run
//! the same code and give the same bits. f64 arguments are reduced in f64
//! lanes ([`reduce_pio2`]).
//!
//! atan2: `t = min(|x|,|y|) / max(|x|,|y|)` in `[0, 1]`, shifted next to
//! `c` = 0, 1/2 or 1 (`atan(t) = atan(c) + atan((t - c) / (1 + c t))`, one
//! division in all), an odd polynomial on `|t'| <= 7/16`, and the octant
//! added as `0`, `pi/2` or `pi`, all constants in two parts (hi + lo), the
//! sign of `y` restored last.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::Value;

use super::coefficients::*;
use super::lanes::{LaneOps, Lanes, LanesFn};
use super::trig_reduce::{reduce_large_parts, reduce_pio2, FAST_LIMIT};

/// Which of the three functions of the reduced argument to produce.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Trig {
    Sin,
    Cos,
    Tan,
}

/// `sin`, `cos` or `tan` of `x` (f32x4 or f64x2); `flush` as in
/// [`sin_cos_f32`].
pub(super) fn trig(l: &mut Lanes, x: Value, which: Trig, flush: bool) -> Value {
    if !l.is_f32() {
        return trig_f64(l, x, which);
    }
    match which {
        Trig::Sin => sin_cos_f32(l, x, false, flush),
        Trig::Cos => sin_cos_f32(l, x, true, flush),
        Trig::Tan => tan_f32(l, x),
    }
}

/// `sin(x)` (`cos`, when `cos` is set) of f32 lanes. With `flush`, a
/// subnormal `x` gives the result of a zero of its sign whatever the
/// MXCSR mode, so the kernels need not flush around the function (`cos`
/// does so anyway, and no result of either is subnormal); without, `sin`
/// of a subnormal is itself.
pub(crate) fn sin_cos_f32<L: LaneOps>(l: &mut L, x: L::V, cos: bool, flush: bool) -> L::V {
    let red = reduce_f32_lanes(l, x);
    // cos(x) = sin(x + pi/2): one quadrant further.
    let q = if cos { l.iadd_c(red.q, 1) } else { red.q };
    let v = sin_or_cos_of_reduced(l, &red, q);
    let sign = quadrant_sign(l, q, 0);
    let v = if cos {
        l.xor(v, sign)
    } else {
        // sin is odd and sin(x) = x below the smallest normal: those lanes
        // (zeros included) take x itself, or the zero of its sign when
        // flushing, through the last two bit operations. Their reduction
        // gives q = 0, so their quadrant sign is +0 and need not be kept.
        // |x| is at least the smallest normal (or is not a number) where
        // the integer view of 0x007fffff - |x| is negative: those lanes
        // keep v and their quadrant's sign, the others take `small`.
        let ax = l.abs(x);
        let largest_subnormal = l.c_bits(0x007f_ffff);
        let (lb, ab) = (l.bits(largest_subnormal), l.bits(ax));
        let below = l.isub(lb, ab);
        let normal = l.negative(below);
        let small = if flush { l.sign_bit(x) } else { x };
        let sign = l.select(normal, sign, small);
        let keep = l.sshr(below, 31);
        let vb = l.bits(v);
        let kept = l.and(vb, keep);
        let kept = l.float_bits(kept);
        l.xor(kept, sign)
    };
    let f: LanesFn = if cos { cos_large } else { sin_large };
    out_of_line(l, f, x, red.special, v)
}

/// `sin(r + r_lo)` in the lanes whose quadrant `q` is even and
/// `cos(r + r_lo)` where it is odd (before the quadrant's sign), for
/// `|r| <= pi/4`, as `A + (b P(z) + lo)` with `z = r^2` and one polynomial
/// `P` of degree 3 (Estrin's scheme) whose coefficients each lane selects:
/// sin is `r + (r z S(z) + r_lo)`; cos is `w + (z^2 C(z) - zl/2 - r r_lo)`
/// where `w = 1 - zh/2` is exact (`zh` is `r1^2` rounded to a multiple of
/// 2^-23, computed from the reduction's first part while the rest goes
/// on) and `zl = r^2 - zh`, so that the large part of cos is rounded once.
/// A lane's result is one sum away from the polynomial, where computing
/// both functions and selecting took three more dependent operations (a
/// loop of dependent steps waits for each).
fn sin_or_cos_of_reduced<L: LaneOps>(l: &mut L, red: &Reduced<L::V>, q: L::V) -> L::V {
    let r = red.r;
    // The quadrant's low bit in the sign, as a mask and as all-ones bits.
    let low = l.shl(q, l.pick(31, 63));
    let odd = l.negative(low);
    let odd_bits = l.sshr(low, l.pick(31, 63));
    let odd_bits = l.float_bits(odd_bits);
    // w = 1 - zh/2 = (3 - u)/2 with u = 1 + zh, exactly.
    let one = l.c(1.0);
    let u = l.fma(red.r1, red.r1, one);
    let three_halves = l.c(1.5);
    let w = l.fma_c(u, -0.5, three_halves);
    let nzh = l.sub(one, u);
    let zl = l.fma(r, r, nzh);
    let zl = l.and(zl, odd_bits);
    let a = l.select(odd, w, r);
    let z = l.mul(r, r);
    let zr = l.select(odd, z, r);
    let b = l.mul(z, zr);
    // r_lo, or -r r_lo: m r_lo = m lo + m (j C3), so that the reduction's
    // last part ends in an FMA here.
    let nr = l.neg(r);
    let m = l.select(odd, nr, one);
    let c3 = l.mul_c(red.nj, PIO2_F32[2]);
    let c3 = l.mul(m, c3);
    let lo = l.fma(m, red.lo, c3);
    let lo = l.fma_c(zl, -0.5, lo);
    // Each coefficient is the sine's, or the cosine's where the lane is
    // odd: `s ^ (odd & (s ^ c))`, two single-micro-op bit operations where
    // a blend takes three micro-ops on recent Intel cores.
    let cos_p = [COS_SHORT_F32[0], COS_SHORT_F32[1], COS_SHORT_F32[2], 0.0];
    let k: Vec<L::V> = cos_p
        .iter()
        .zip(SIN_F32)
        .map(|(&c, s)| {
            let flip = (c as f32).to_bits() ^ (s as f32).to_bits();
            let flip = l.c_bits(i64::from(flip));
            let flip = l.and(odd_bits, flip);
            let s = l.c(s);
            l.xor(s, flip)
        })
        .collect();
    let z2 = l.mul(z, z);
    let low = l.fma(k[1], z, k[0]);
    let high = l.fma(k[3], z, k[2]);
    let p = l.fma(high, z2, low);
    let t = l.fma(b, p, lo);
    l.add(a, t)
}

/// `tan(x)` of f32 lanes (over [`LaneOps`], as sin and cos).
pub(crate) fn tan_f32<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let red = reduce_f32_lanes(l, x);
    let r_lo = red.r_lo(l);
    let v = tan_of_reduced(l, x, red.r, r_lo, red.q);
    out_of_line(l, tan_large, x, red.special, v)
}

/// `v`, with the lanes that [`reduce_f32_lanes`] cannot take (marked in
/// `special`) or that exceed [`F32_LIMIT`] (or are infinite or NaN) from
/// `f`, behind a branch taken only when a vector has one.
fn out_of_line<L: LaneOps>(l: &mut L, f: LanesFn, x: L::V, special: L::V, v: L::V) -> L::V {
    let big = large_lanes(l, x);
    let special = l.or(special, big);
    l.rare_branch(special, v, |l, plain| {
        let all = l.lanes_call(f, x, plain);
        let taken = l.negative(special);
        l.select(taken, all, plain)
    })
}

/// f32 arguments up to this magnitude are reduced in f32 lanes.
const F32_LIMIT: f32 = 131072.0;

/// 2/pi rounded to f32 (0x3f22f983).
const TWO_OVER_PI_F32: f64 = 0.6366197466850281;

/// pi/2 as three f32 parts (0x3fc90fdb, 0xb33bbd2e, 0xa6f72ced), each the
/// f32 nearest what the parts before it leave: their sum is pi/2 to
/// 1.06e-23.
const PIO2_F32: [f64; 3] = [
    1.5707963705062866,
    -4.371138828673793e-8,
    -1.7151245100058819e-15,
];

/// Lanes whose sign bit is set where `|x|` exceeds [`F32_LIMIT`] or `x`
/// is infinite or NaN (the integer view of `|x|` is then above the
/// limit's).
fn large_lanes<L: LaneOps>(l: &mut L, x: L::V) -> L::V {
    let ax = l.abs(x);
    let limit = l.c(f64::from(F32_LIMIT));
    let (ab, lb) = (l.bits(ax), l.bits(limit));
    l.isub(lb, ab)
}

/// The reduction of f32 lanes `x` (see [`reduce_f32_lanes`]).
struct Reduced<V> {
    /// `x - j C1`, exactly.
    r1: V,
    /// `x - j C1 - j C2`, rounded.
    r: V,
    /// The rounding error of `r`: `r_lo` without its `j C3` part.
    lo: V,
    /// `-j`.
    nj: V,
    /// `j mod 4` in the low bits.
    q: V,
    /// Sign bit set in the lanes whose reduction is inexact.
    special: V,
}

impl<V: Copy> Reduced<V> {
    /// `r_lo`, with `x = j pi/2 + r + r_lo`.
    fn r_lo<L: LaneOps<V = V>>(&self, l: &mut L) -> V {
        l.fma_c(self.nj, PIO2_F32[2], self.lo)
    }
}

/// The reduction of f32 lanes `x`, `|x| <= F32_LIMIT`, in f32 lanes:
/// `j = round(x 2/pi)` by one FMA, `r1 = x - j C1` exact by an FMA (both
/// are multiples of `ulp(C1)`, or of 2^-24 below 1, and their difference
/// is below 2^24 of them), `r = r1 - j C2` rounded once, and its error
/// `(r1 - r) - j C2 - j C3` (the products by FMA) as `r_lo`, with
/// `C1 + C2 + C3` pi/2 to 2^-76. Four operations deep before the
/// polynomials can start, which matters to loops of dependent steps.
/// `r1 - r` is exact when `|j C2| <= |r1| / 2` (Sterbenz); the lanes
/// where it is not (`x` within `2 |j C2|` of a multiple of pi/2: below
/// 2^-17 of the lanes for `|x| < 100`) have the sign bit of the fourth
/// result set, for the caller to compute otherwise.
fn reduce_f32_lanes<L: LaneOps>(l: &mut L, x: L::V) -> Reduced<L::V> {
    // -j straight from the rounding's sum: 1.5 2^23 - t.
    let (_, q) = l.round_mul(x, TWO_OVER_PI_F32);
    let magic = l.c(12582912.0);
    let t = l.float_bits(q);
    let nj = l.sub(magic, t);
    let r1 = l.fma_c(nj, PIO2_F32[0], x);
    let r = l.fma_c(nj, PIO2_F32[1], r1);
    let d = l.sub(r1, r);
    let lo = l.fma_c(nj, PIO2_F32[1], d);
    let aj = l.abs(nj);
    let bound = l.mul_c(aj, -2.0 * PIO2_F32[1]);
    let ar1 = l.abs(r1);
    let inexact = l.sub(ar1, bound);
    Reduced {
        r1,
        r,
        lo,
        nj,
        q,
        special: l.bits(inexact),
    }
}

/// `sin`, `cos` or `tan` of f64 lanes: one copy of the code for ordinary
/// arguments and one, behind a branch taken only when some lane exceeds
/// [`FAST_LIMIT`] (or is infinite or NaN), with the large-argument
/// reduction.
fn trig_f64(l: &mut Lanes, x: Value, which: Trig) -> Value {
    let ax = l.abs(x);
    let big = l.cmp_c(FloatCC::UnorderedOrGreaterThan, ax, FAST_LIMIT);
    let red = reduce_pio2(l, x, true, false);
    let fast = from_reduced(l, x, which, red.r, red.r_lo, red.q);
    l.rare_branch(big, fast, |l, _| {
        let red = reduce_pio2(l, x, true, true);
        let v = from_reduced(l, x, which, red.r, red.r_lo, red.q);
        // ±inf gives x86's default NaN and a NaN itself, as the
        // interpreter (libm) does; the reduction would give a NaN whose
        // sign the quadrant flips.
        let inf = l.cmp_c(FloatCC::Equal, ax, f64::INFINITY);
        let nan = l.default_nan();
        let v = l.select(inf, nan, v);
        let unordered = l.cmp(FloatCC::Unordered, x, x);
        l.select(unordered, x, v)
    })
}

/// `sin`, `cos` or `tan` of `x` from its reduction `x = j pi/2 + r + r_lo`
/// (`q` holds `j mod 4`).
fn from_reduced(l: &mut Lanes, x: Value, which: Trig, r: Value, r_lo: Value, q: Value) -> Value {
    if which == Trig::Tan {
        return tan_of_reduced(l, x, r, r_lo, q);
    }
    let ((s, _), (c, _)) = kernels(l, r, r_lo);
    sin_or_cos(l, x, which == Trig::Cos, s, c, q)
}

/// `tan(x)` from its reduction `x = j pi/2 + r + r_lo` (`q` holds
/// `j mod 4`): `sin(r)/cos(r)`, or `-cos(r)/sin(r)` for odd `j`.
fn tan_of_reduced<L: LaneOps>(l: &mut L, x: L::V, r: L::V, r_lo: L::V, q: L::V) -> L::V {
    let ((s, s_lo), (c, c_lo)) = kernels(l, r, r_lo);
    // The quotient of the double-word kernels, corrected by its residual:
    // one rounding instead of three.
    let odd = quadrant_odd(l, q);
    let nh = l.select(odd, c, s);
    let nl = l.select(odd, c_lo, s_lo);
    let dh = l.select(odd, s, c);
    let dl = l.select(odd, s_lo, c_lo);
    let (t, t_lo) = l.div_dd(nh, Some(nl), dh, dl);
    let v = l.add(t, t_lo);
    let neg = l.neg(v);
    let v = l.select(odd, neg, v);
    // tan is odd: keep the sign of ±0.
    let zero = l.cmp_c(FloatCC::Equal, x, 0.0);
    l.select(zero, x, v)
}

/// `sin(x)` (`cos(x)` when `cos` is set) of f64 lanes from the kernels'
/// `s = sin(r)` and `c = cos(r)` and the quadrant `q`.
fn sin_or_cos<L: LaneOps>(l: &mut L, x: L::V, cos: bool, s: L::V, c: L::V, q: L::V) -> L::V {
    let odd = quadrant_odd(l, q);
    if cos {
        let v = l.select(odd, s, c);
        let sign = quadrant_sign(l, q, 1);
        return l.xor(v, sign);
    }
    let v = l.select(odd, c, s);
    let sign = quadrant_sign(l, q, 0);
    let v = l.xor(v, sign);
    // sin is odd: keep the sign of ±0.
    let zero = l.cmp_c(FloatCC::Equal, x, 0.0);
    l.select(zero, x, v)
}

/// The lanes whose quadrant `q` is odd.
fn quadrant_odd<L: LaneOps>(l: &mut L, q: L::V) -> L::M {
    let low = l.shl(q, l.pick(31, 63));
    l.negative(low)
}

/// The float whose only possible set bit is the sign, taken from bit 1 of
/// `q` (after adding `add` to `q`): `-0.0` when `((q + add) & 2) != 0`.
fn quadrant_sign<L: LaneOps>(l: &mut L, q: L::V, add: i64) -> L::V {
    let q = if add == 0 { q } else { l.iadd_c(q, add) };
    let bit = l.iand_c(q, 2);
    let s = l.shl(bit, l.pick(30, 62));
    l.float_bits(s)
}

/// `(sin(r + r_lo), cos(r + r_lo))` for the double-word reduced argument,
/// `|r| <= pi/4`, each as a double-word `(hi, lo)` (the rounding error of
/// the last sum). fdlibm's `__kernel_sin`/`__kernel_cos` forms.
#[allow(clippy::type_complexity)]
fn kernels<L: LaneOps>(l: &mut L, r: L::V, r_lo: L::V) -> ((L::V, L::V), (L::V, L::V)) {
    let (sin_p, cos_p) = l.pick((&SIN_F32[..], &COS_F32[..]), (&SIN_F64[..], &COS_F64[..]));
    let (z, z_lo) = l.two_prod(r, r);
    // sin: r + (r^3 S(z) + r_lo (1 - z/2)).
    let sp = l.poly(z, sin_p);
    let v = l.mul(z, r);
    let nhz = l.mul_c(z, -0.5);
    let t = l.fma(nhz, r_lo, r_lo);
    let t = l.fma(v, sp, t);
    let sin = l.fast_two_sum(r, t);
    // cos: w + (((1 - w) - z/2) + (z^2 C(z) - (r r_lo + z_lo/2))) with
    // w = 1 - z/2, so that the rounding of w is recovered.
    let one = l.c(1.0);
    let w = l.add(one, nhz);
    let d = l.sub(one, w);
    let d = l.add(d, nhz);
    let cp = l.poly(z, cos_p);
    let z2 = l.mul(z, z);
    let half_zlo = l.mul_c(z_lo, 0.5);
    let rr = l.fma(r, r_lo, half_zlo);
    let nrr = l.neg(rr);
    let t = l.fma(z2, cp, nrr);
    let t = l.add(d, t);
    let cos = l.fast_two_sum(w, t);
    (sin, cos)
}

extern "C" fn sin_large(x: *const f32, out: *mut f32, lanes: usize) {
    large_into(x, out, lanes, Trig::Sin);
}

extern "C" fn cos_large(x: *const f32, out: *mut f32, lanes: usize) {
    large_into(x, out, lanes, Trig::Cos);
}

extern "C" fn tan_large(x: *const f32, out: *mut f32, lanes: usize) {
    large_into(x, out, lanes, Trig::Tan);
}

/// `out[i] = large(x[i])` for every lane (the caller keeps those it
/// needs).
fn large_into(x: *const f32, out: *mut f32, lanes: usize, which: Trig) {
    // SAFETY: the generated code passes two arrays of `lanes` f32 on its
    // stack.
    let (x, out) = unsafe {
        (
            std::slice::from_raw_parts(x, lanes),
            std::slice::from_raw_parts_mut(out, lanes),
        )
    };
    for (&xi, o) in x.iter().zip(out) {
        *o = large(xi, which);
    }
}

/// `sin`, `cos` or `tan` of one f32 (a NaN gives itself, an infinity
/// x86's default NaN, as the interpreter's libm does): reduced in f64 (by
/// `j pi/2` in two parts up to 2^20, by Payne–Hanek above), the f64
/// kernels, rounded to f32 once.
fn large(x: f32, which: Trig) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return f32::from_bits(0xFFC0_0000);
    }
    let xd = f64::from(x);
    let (r, r_lo, q) = if xd.abs() <= FAST_LIMIT {
        let j = (xd * TWO_OVER_PI).round_ties_even();
        let r1 = (-j).mul_add(PIO2_1, xd);
        ((-j).mul_add(PIO2_1T, r1), 0.0, j as i64 & 3)
    } else {
        reduce_large_parts(xd)
    };
    let poly = |z: f64, c: &[f64]| c.iter().rev().fold(0.0f64, |acc, &k| acc.mul_add(z, k));
    let z = r * r;
    let s = r + (z * r).mul_add(poly(z, &SIN_F64), r_lo * (1.0 - 0.5 * z));
    let w = 1.0 - 0.5 * z;
    let c = w + (((1.0 - w) - 0.5 * z) + (z * z).mul_add(poly(z, &COS_F64), -(r * r_lo)));
    let odd = q & 1 == 1;
    let v = match which {
        Trig::Sin => {
            let v = if odd { c } else { s };
            if q & 2 != 0 {
                -v
            } else {
                v
            }
        }
        Trig::Cos => {
            let v = if odd { s } else { c };
            if (q + 1) & 2 != 0 {
                -v
            } else {
                v
            }
        }
        Trig::Tan => {
            if odd {
                -c / s
            } else {
                s / c
            }
        }
    };
    v as f32
}

/// `atan2(y, x)`: the angle of the point `(x, y)`, in `[-pi, pi]`.
pub(super) fn atan2(l: &mut Lanes, y: Value, x: Value) -> Value {
    let ax = l.abs(x);
    let ay = l.abs(y);
    let swap = l.cmp(FloatCC::GreaterThan, ay, ax);
    let num = l.select(swap, ax, ay);
    let den = l.select(swap, ay, ax);
    // Pairs with a tiny (near subnormal) numerator are scaled up, so that
    // the quotient's residual below does not underflow, and huge ones down,
    // so that den + num cannot overflow; num/den is unchanged (or, when den
    // overflows, the result rounds to 0 anyway).
    let (tiny, up, huge) = l.pick(
        (2f64.powi(-99), 2f64.powi(27), 2f64.powi(125)),
        (2f64.powi(-966), 2f64.powi(56), 2f64.powi(1021)),
    );
    let small = l.cmp_c(FloatCC::LessThan, num, tiny);
    let big = l.cmp_c(FloatCC::GreaterThan, den, huge);
    let (c_up, c_down, c_one) = (l.c(up), l.c(0.25), l.c(1.0));
    let scale = l.select(small, c_up, c_one);
    let scale = l.select(big, c_down, scale);
    let num = l.mul(num, scale);
    let den = l.mul(den, scale);
    // t = num/den in [0, 1] is moved next to c = 0, 1/2 or 1 by
    // atan(t) = atan(c) + atan((t - c) / (1 + c t)), |t'| <= 7/16, with
    // num - c den exact where it cancels (Sterbenz).
    let d7 = l.mul_c(den, 7.0 / 16.0);
    let d11 = l.mul_c(den, 11.0 / 16.0);
    let m1 = l.cmp(FloatCC::GreaterThan, num, d7);
    let m2 = l.cmp(FloatCC::GreaterThan, num, d11);
    // Both infinite: the diagonal (c = 1, t' = 0); num = 0 or den = inf
    // (and num finite): angle 0 (c = 0, t' = 0).
    let num_inf = l.cmp_c(FloatCC::Equal, num, f64::INFINITY);
    let num_zero = l.cmp_c(FloatCC::Equal, num, 0.0);
    let den_inf = l.cmp_c(FloatCC::Equal, den, f64::INFINITY);
    let (zero, half, one) = (l.c(0.0), l.c(0.5), l.c(1.0));
    let c = l.select(m1, half, zero);
    let c = l.select(m2, one, c);
    let c = l.select(num_inf, one, c);
    let nc = l.neg(c);
    let tn = l.fma(nc, den, num);
    let td = l.fma(c, num, den);
    // t + t_lo = tn / td to twice the working precision, so that the
    // rounding of the quotient does not reach the result.
    let (t, t_lo) = l.div_dd(tn, None, td, zero);
    let degenerate = l.or(num_inf, num_zero);
    let degenerate = l.or(degenerate, den_inf);
    let t = l.select(degenerate, zero, t);
    let t_lo = l.select(degenerate, zero, t_lo);
    // atan(t + t_lo) = t + t^3 P(t^2) + t_lo / (1 + t^2).
    let z = l.mul(t, t);
    let p = l.poly(z, l.pick(&ATAN_F32[..], &ATAN_F64[..]));
    let tz = l.mul(t, z);
    let nz = l.neg(z);
    let corr = l.fma(nz, t_lo, t_lo);
    let a = l.fma(tz, p, corr);
    let a = l.add(t, a);
    let (h_half, l_half, h_pio4, l_pio4) = l.pick(
        (ATAN_HALF_HI_F32, ATAN_HALF_LO_F32, PIO4_HI_F32, PIO4_LO_F32),
        (ATAN_HALF_HI_F64, ATAN_HALF_LO_F64, PIO4_HI_F64, PIO4_LO_F64),
    );
    let (ch_half, cl_half, ch_pio4, cl_pio4) = (l.c(h_half), l.c(l_half), l.c(h_pio4), l.c(l_pio4));
    let m2c = l.or(m2, num_inf);
    let at_hi = l.select(m1, ch_half, zero);
    let at_hi = l.select(m2c, ch_pio4, at_hi);
    let at_lo = l.select(m1, cl_half, zero);
    let at_lo = l.select(m2c, cl_pio4, at_lo);
    let at_lo = l.add(at_lo, a);
    // The octant: angle = base ± atan(t), base 0, pi/2 (swapped) or pi
    // (x < 0, including -0), summed with the constants' rounding kept.
    let xb = l.bits(x);
    let izero = l.ci(0);
    let x_neg = l.icmp(IntCC::SignedLessThan, xb, izero);
    let flip = l.xor(swap, x_neg);
    let n_hi = l.neg(at_hi);
    let at_hi = l.select(flip, n_hi, at_hi);
    let n_lo = l.neg(at_lo);
    let at_lo = l.select(flip, n_lo, at_lo);
    let (pio2_hi, pio2_lo, pi_hi, pi_lo) = l.pick(
        (PIO2_HI_F32, PIO2_LO_F32, PI_HI_F32, PI_LO_F32),
        (PIO2_HI_F64, PIO2_LO_F64, PI_HI_F64, PI_LO_F64),
    );
    let (c_pio2_hi, c_pio2_lo) = (l.c(pio2_hi), l.c(pio2_lo));
    let (c_pi_hi, c_pi_lo) = (l.c(pi_hi), l.c(pi_lo));
    let b_hi = l.select(x_neg, c_pi_hi, zero);
    let b_lo = l.select(x_neg, c_pi_lo, zero);
    let b_hi = l.select(swap, c_pio2_hi, b_hi);
    let b_lo = l.select(swap, c_pio2_lo, b_lo);
    let (s, e) = l.two_sum(b_hi, at_hi);
    let lo = l.add(b_lo, at_lo);
    let lo = l.add(lo, e);
    let v = l.add(s, lo);
    let v = l.or_sign(v, y);
    // NaN in either operand gives NaN.
    let nan = l.cmp(FloatCC::Unordered, x, y);
    let sum = l.add(x, y);
    l.select(nan, sum, v)
}
