//! Special functions: `erfc`, `erf_inv`, `lgamma`, `digamma`, `zeta`,
//! `polygamma`, `bessel_i1e` and `next_after`, as
//! `ChloLegalizeToStablehlo.cpp` expands them (Cephes-based polynomial and
//! Lanczos approximations).

// The constants are StableHLO's, digit for digit, so that a reader can
// compare them with the source.
#![allow(clippy::excessive_precision)]

use std::f64::consts::PI;

use super::{OpResult, G};
use crate::hlo::ComparisonDirection::{Eq, Gt, Le, Lt, Ne};
use crate::{PrimitiveType, XlaOp};

/// `f64` erfc for `f64`, the `f32` one (upcast) for narrower floats.
pub(super) fn erfc(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    if g.ty(x)? == PrimitiveType::F64 {
        return erfc_f64(g, x);
    }
    g.upcast(&[x], |g, a| erfc_f32(g, a[0]))
}

/// `f64` erf_inv for `f64`, the `f32` one (upcast) for narrower floats.
pub(super) fn erf_inv(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    if g.ty(x)? == PrimitiveType::F64 {
        return erf_inv_f64(g, x);
    }
    g.upcast(&[x], |g, a| erf_inv_f32(g, a[0]))
}

/// `f64` bessel_i1e for `f64`, the `f32` one (upcast) for narrower floats.
pub(super) fn bessel_i1e(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    if g.ty(x)? == PrimitiveType::F64 {
        return bessel_i1e_with(g, x, &I1E_A_F64, &I1E_B_F64);
    }
    g.upcast(&[x], |g, a| {
        let wide = |c: &[f32]| c.iter().map(|&v| f64::from(v)).collect::<Vec<_>>();
        bessel_i1e_with(g, a[0], &wide(&I1E_A_F32), &wide(&I1E_B_F32))
    })
}

/// Horner: `((c0·x + c1)·x + c2)…`.
fn polynomial(g: &G, x: XlaOp, coefficients: &[f64]) -> OpResult<XlaOp> {
    let Some((&first, rest)) = coefficients.split_first() else {
        return g.k(x, 0.0);
    };
    let mut p = g.k(x, first)?;
    for &c in rest {
        p = g.add(g.mul(p, x)?, g.k(x, c)?)?;
    }
    Ok(p)
}

/// `f32` coefficients as the `f64` values they widen to.
fn widen<const N: usize>(c: [f32; N]) -> [f64; N] {
    c.map(f64::from)
}

/// erfc for `|x| ≥ 1` in `f64` (Cephes).
fn erfc_f64_ge_one(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    const MAXLOG: f64 = 7.09782712893383996843E2;
    const P: [f64; 9] = [
        2.46196981473530512524E-10,
        5.64189564831068821977E-1,
        7.46321056442269912687E0,
        4.86371970985681366614E1,
        1.96520832956077098242E2,
        5.26445194995477358631E2,
        9.34528527171957607540E2,
        1.02755188689515710272E3,
        5.57535335369399327526E2,
    ];
    const Q: [f64; 9] = [
        1.00000000000000000000E0,
        1.32281951154744992508E1,
        8.67072140885989742329E1,
        3.54937778887819891062E2,
        9.75708501743205489753E2,
        1.82390916687909736289E3,
        2.24633760818710981792E3,
        1.65666309194161350182E3,
        5.57535340817727675546E2,
    ];
    const R: [f64; 6] = [
        5.64189583547755073984E-1,
        1.27536670759978104416E0,
        5.01905042251180477414E0,
        6.16021097993053585195E0,
        7.40974269950448939160E0,
        2.97886665372100240670E0,
    ];
    const S: [f64; 7] = [
        1.00000000000000000000E0,
        2.26052863220117276590E0,
        9.39603524938001434673E0,
        1.20489539808096656605E1,
        1.70814450747565897222E1,
        9.60896809063285878198E0,
        3.36907645100081516050E0,
    ];
    let z = g.neg(g.mul(x, x)?)?;
    let exp_z = g.exp(z)?;
    let abs_x = g.abs(x)?;
    let p = polynomial(g, abs_x, &P)?;
    let q = polynomial(g, abs_x, &Q)?;
    let approx_1_8 = g.div(g.mul(exp_z, p)?, q)?;
    let r = polynomial(g, abs_x, &R)?;
    let s = polynomial(g, abs_x, &S)?;
    let approx_8_inf = g.div(g.mul(exp_z, r)?, s)?;
    let lt8 = g.cmp(abs_x, g.k(x, 8.0)?, Lt)?;
    let approx = g.select(lt8, approx_1_8, approx_8_inf)?;
    let underflow = g.cmp(z, g.k(x, -MAXLOG)?, Lt)?;
    let zero = g.k(x, 0.0)?;
    let clamped = g.select(underflow, zero, approx)?;
    let negative = g.cmp(x, zero, Lt)?;
    g.select(negative, g.sub(g.k(x, 2.0)?, clamped)?, clamped)
}

/// erf for `|x| ≤ 1` in `f64` (Cephes).
fn erf_f64_le_one(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    const T: [f64; 5] = [
        9.60497373987051638749E0,
        9.00260197203842689217E1,
        2.23200534594684319226E3,
        7.00332514112805075473E3,
        5.55923013010394962768E4,
    ];
    const U: [f64; 6] = [
        1.00000000000000000000E0,
        3.35617141647503099647E1,
        5.21357949780152679795E2,
        4.59432382970980127987E3,
        2.26290000613890934246E4,
        4.92673942608635921086E4,
    ];
    let x2 = g.mul(x, x)?;
    let t = polynomial(g, x2, &T)?;
    let u = polynomial(g, x2, &U)?;
    g.div(g.mul(x, t)?, u)
}

fn erfc_f64(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    let erfc = erfc_f64_ge_one(g, x)?;
    let one = g.k(x, 1.0)?;
    let erf_based = g.sub(one, erf_f64_le_one(g, x)?)?;
    let lt1 = g.cmp(g.abs(x)?, one, Lt)?;
    g.select(lt1, erf_based, erfc)
}

/// erfc for `|x| ≥ 1` in `f32` (Cephes).
fn erfc_f32_ge_one(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    const MAXLOG: f64 = 88.72283905206835;
    const P: [f32; 9] = [
        2.326819970068386E-2,
        -1.387039388740657E-1,
        3.687424674597105E-1,
        -5.824733027278666E-1,
        6.210004621745983E-1,
        -4.944515323274145E-1,
        3.404879937665872E-1,
        -2.741127028184656E-1,
        5.638259427386472E-1,
    ];
    const R: [f32; 8] = [
        -1.047766399936249E+1,
        1.297719955372516E+1,
        -7.495518717768503E+0,
        2.921019019210786E+0,
        -1.015265279202700E+0,
        4.218463358204948E-1,
        -2.820767439740514E-1,
        5.641895067754075E-1,
    ];
    let x2 = g.mul(x, x)?;
    let z = g.neg(x2)?;
    let abs_x = g.abs(x)?;
    let one = g.k(x, 1.0)?;
    let inv_x2 = g.div(one, x2)?;
    let exp_z = g.exp(z)?;
    let inv_abs_x = g.div(one, abs_x)?;
    let exp_z_over_x = g.mul(exp_z, inv_abs_x)?;
    let two = g.k(x, 2.0)?;
    let lt2 = g.cmp(abs_x, two, Lt)?;
    let p = polynomial(g, inv_x2, &widen(P))?;
    let r = polynomial(g, inv_x2, &widen(R))?;
    let poly = g.select(lt2, p, r)?;
    let approx = g.mul(exp_z_over_x, poly)?;
    let underflow = g.cmp(z, g.k(x, -MAXLOG)?, Lt)?;
    let zero = g.k(x, 0.0)?;
    let clamped = g.select(underflow, zero, approx)?;
    let negative = g.cmp(x, zero, Lt)?;
    g.select(negative, g.sub(two, clamped)?, clamped)
}

/// erf for `|x| ≤ 1` in `f32` (Cephes).
fn erf_f32_le_one(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    const T: [f32; 7] = [
        7.853861353153693E-5,
        -8.010193625184903E-4,
        5.188327685732524E-3,
        -2.685381193529856E-2,
        1.128358514861418E-1,
        -3.761262582423300E-1,
        1.128379165726710E+0,
    ];
    let x2 = g.mul(x, x)?;
    let t = polynomial(g, x2, &widen(T))?;
    g.mul(x, t)
}

fn erfc_f32(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    let erfc = erfc_f32_ge_one(g, x)?;
    let one = g.k(x, 1.0)?;
    let erf_based = g.sub(one, erf_f32_le_one(g, x)?)?;
    let lt1 = g.cmp(g.abs(x)?, one, Lt)?;
    g.select(lt1, erf_based, erfc)
}

/// `w = -log1p(-x²)`; the value `x·∞` where `|x| = 1`, else `p·x`.
fn erf_inv_w(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    g.neg(g.log1p(g.mul(x, g.neg(x)?)?)?)
}

fn erf_inv_edges(g: &G, x: XlaOp, p: XlaOp) -> OpResult<XlaOp> {
    let result = g.mul(p, x)?;
    let at_one = g.cmp(g.abs(x)?, g.k(x, 1.0)?, Eq)?;
    g.select(at_one, g.mul(x, g.inf(x, false)?)?, result)
}

fn erf_inv_f32(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    const LT5: [f32; 9] = [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ];
    const GE5: [f32; 9] = [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ];
    let w = erf_inv_w(g, x)?;
    let lt = g.cmp(w, g.k(x, 5.0)?, Lt)?;
    let coefficient = |i: usize| -> OpResult<XlaOp> {
        g.select(lt, g.k(x, f64::from(LT5[i]))?, g.k(x, f64::from(GE5[i]))?)
    };
    let w = g.select(
        lt,
        g.sub(w, g.k(x, 2.5)?)?,
        g.sub(g.sqrt(w)?, g.k(x, 3.0)?)?,
    )?;
    let mut p = coefficient(0)?;
    for i in 1..9 {
        p = g.add(coefficient(i)?, g.mul(p, w)?)?;
    }
    erf_inv_edges(g, x, p)
}

fn erf_inv_f64(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    const LT625: [f64; 23] = [
        -3.6444120640178196996e-21,
        -1.685059138182016589e-19,
        1.2858480715256400167e-18,
        1.115787767802518096e-17,
        -1.333171662854620906e-16,
        2.0972767875968561637e-17,
        6.6376381343583238325e-15,
        -4.0545662729752068639e-14,
        -8.1519341976054721522e-14,
        2.6335093153082322977e-12,
        -1.2975133253453532498e-11,
        -5.4154120542946279317e-11,
        1.051212273321532285e-09,
        -4.1126339803469836976e-09,
        -2.9070369957882005086e-08,
        4.2347877827932403518e-07,
        -1.3654692000834678645e-06,
        -1.3882523362786468719e-05,
        0.0001867342080340571352,
        -0.00074070253416626697512,
        -0.0060336708714301490533,
        0.24015818242558961693,
        1.6536545626831027356,
    ];
    const LT16: [f64; 19] = [
        2.2137376921775787049e-09,
        9.0756561938885390979e-08,
        -2.7517406297064545428e-07,
        1.8239629214389227755e-08,
        1.5027403968909827627e-06,
        -4.013867526981545969e-06,
        2.9234449089955446044e-06,
        1.2475304481671778723e-05,
        -4.7318229009055733981e-05,
        6.8284851459573175448e-05,
        2.4031110387097893999e-05,
        -0.0003550375203628474796,
        0.00095328937973738049703,
        -0.0016882755560235047313,
        0.0024914420961078508066,
        -0.0037512085075692412107,
        0.005370914553590063617,
        1.0052589676941592334,
        3.0838856104922207635,
    ];
    const GE16: [f64; 17] = [
        -2.7109920616438573243e-11,
        -2.5556418169965252055e-10,
        1.5076572693500548083e-09,
        -3.7894654401267369937e-09,
        7.6157012080783393804e-09,
        -1.4960026627149240478e-08,
        2.9147953450901080826e-08,
        -6.7711997758452339498e-08,
        2.2900482228026654717e-07,
        -9.9298272942317002539e-07,
        4.5260625972231537039e-06,
        -1.9681778105531670567e-05,
        7.5995277030017761139e-05,
        -0.00021503011930044477347,
        -0.00013871931833623122026,
        1.0103004648645343977,
        4.8499064014085844221,
    ];
    let w = erf_inv_w(g, x)?;
    let lt625 = g.cmp(w, g.k(x, 6.25)?, Lt)?;
    let lt16 = g.cmp(w, g.k(x, 16.0)?, Lt)?;
    let coefficient = |i: usize| -> OpResult<XlaOp> {
        let mut c = g.k(x, LT625[i])?;
        if i < 19 {
            c = g.select(lt625, c, g.k(x, LT16[i])?)?;
        }
        if i < 17 {
            c = g.select(lt16, c, g.k(x, GE16[i])?)?;
        }
        Ok(c)
    };
    let sqrt_w = g.sqrt(w)?;
    let w_minus = g.sub(w, g.k(x, 3.125)?)?;
    let offset = g.select(lt16, g.k(w, 3.25)?, g.k(w, 5.0)?)?;
    let w = g.select(lt625, w_minus, g.sub(sqrt_w, offset)?)?;
    let mut p = coefficient(0)?;
    for i in 1..17 {
        p = g.add(coefficient(i)?, g.mul(p, w)?)?;
    }
    for i in 17..19 {
        p = g.select(lt16, g.add(coefficient(i)?, g.mul(p, w)?)?, p)?;
    }
    for i in 19..23 {
        p = g.select(lt625, g.add(coefficient(i)?, g.mul(p, w)?)?, p)?;
    }
    erf_inv_edges(g, x, p)
}

/// The Lanczos approximation's `g` (`kLanczosGamma`).
const LANCZOS_GAMMA: f64 = 7.0;
/// `kBaseLanczosCoeff`.
const LANCZOS_BASE: f64 = 0.99999999999980993227684700473478;
/// `kLanczosCoefficients`.
const LANCZOS: [f64; 8] = [
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
];

/// `z = -x` where `x < 1/2` (reflection), else `x - 1`; returns the
/// reflection predicate and `z`.
fn lanczos_z(g: &G, x: XlaOp) -> OpResult<(XlaOp, XlaOp)> {
    let reflect = g.cmp(x, g.k(x, 0.5)?, Lt)?;
    let z = g.select(reflect, g.neg(x)?, g.sub(x, g.k(x, 1.0)?)?)?;
    Ok((reflect, z))
}

/// `t = z + g + 1/2` and `log(t)` as `log(g + 1/2) + log1p(z / (g + 1/2))`.
fn lanczos_t(g: &G, x: XlaOp, z: XlaOp) -> OpResult<(XlaOp, XlaOp)> {
    let plus_half = g.k(x, LANCZOS_GAMMA + 0.5)?;
    let t = g.add(plus_half, z)?;
    let log_t = g.add(
        g.k(x, (LANCZOS_GAMMA + 0.5).ln())?,
        g.log1p(g.div(z, plus_half)?)?,
    )?;
    Ok((t, log_t))
}

/// `materializeLgamma` on `f32` or `f64`.
pub(super) fn lgamma(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    let half = g.k(x, 0.5)?;
    let one = g.k(x, 1.0)?;
    let (reflect, z) = lanczos_z(g, x)?;
    let mut a = g.k(x, LANCZOS_BASE)?;
    for (i, &c) in LANCZOS.iter().enumerate() {
        let term = g.div(g.k(x, c)?, g.add(z, g.k(x, (i + 1) as f64)?)?)?;
        a = g.add(a, term)?;
    }
    let (t, log_t) = lanczos_t(g, x, z)?;
    let sum = g.sub(g.add(z, half)?, g.div(t, log_t)?)?;
    let r = g.mul(sum, log_t)?;
    let log_a = g.log(a)?;
    let lgamma = g.add(g.add(g.k(x, (2f64.ln() + PI.ln()) / 2.0)?, r)?, log_a)?;

    let abs = g.abs(x)?;
    let abs_frac = g.sub(abs, g.floor(abs)?)?;
    let reduce = g.cmp(half, abs_frac, Lt)?;
    let abs_frac = g.select(reduce, g.sub(one, abs_frac)?, abs_frac)?;
    let denominator = g.log(g.sin(g.mul(g.k(x, PI)?, abs_frac)?)?)?;
    let reflection = g.sub(g.sub(g.k(x, PI.ln())?, denominator)?, lgamma)?;
    let finite = g.is_finite(denominator)?;
    let reflection = g.select(finite, reflection, g.neg(denominator)?)?;
    let lgamma = g.select(reflect, reflection, lgamma)?;
    let inf = g.inf(x, false)?;
    let is_inf = g.cmp(g.abs(x)?, inf, Eq)?;
    g.select(is_inf, inf, lgamma)
}

/// `materializeDigamma` on `f32` or `f64`.
pub(super) fn digamma(g: &G, x: XlaOp) -> OpResult<XlaOp> {
    let (reflect, z) = lanczos_z(g, x)?;
    let zero = g.k(x, 0.0)?;
    let mut a = g.k(x, LANCZOS_BASE)?;
    let mut a_prime = zero;
    for (i, &c) in LANCZOS.iter().enumerate() {
        let coefficient = g.k(x, c)?;
        let zk = g.add(z, g.k(x, (i + 1) as f64)?)?;
        a_prime = g.sub(a_prime, g.div(coefficient, g.mul(zk, zk)?)?)?;
        a = g.add(a, g.div(coefficient, zk)?)?;
    }
    let (t, log_t) = lanczos_t(g, x, z)?;
    let digamma = g.sub(
        g.add(log_t, g.div(a_prime, a)?)?,
        g.div(g.k(x, LANCZOS_GAMMA)?, t)?,
    )?;
    let reduced = g.add(x, g.abs(g.floor(g.add(x, g.k(x, 0.5)?)?)?)?)?;
    let pi = g.k(x, PI)?;
    let pi_x = g.mul(pi, reduced)?;
    let (cos, sin) = (g.cos(pi_x)?, g.sin(pi_x)?);
    let reflection = g.sub(digamma, g.div(g.mul(pi, cos)?, sin)?)?;
    let digamma = g.select(reflect, reflection, digamma)?;
    let le_zero = g.cmp(x, zero, Le)?;
    let is_int = g.cmp(x, g.floor(x)?, Eq)?;
    let pole = g.and(le_zero, is_int)?;
    g.select(pole, g.k(x, f64::NAN)?, digamma)
}

/// `materializeZeta` (Hurwitz zeta, Johansson's Euler–Maclaurin form) on
/// `f32` or `f64`.
pub(super) fn zeta(g: &G, x: XlaOp, q: XlaOp) -> OpResult<XlaOp> {
    const TERMS: usize = 12;
    const ITERS: usize = 9;
    const TWO_TERMS_MINUS_ONE: i64 = 2 * TERMS as i64 - 1;
    const COEFFS: [f64; TERMS] = [
        -7.1661652561756670113e18,
        1.8152105401943546773e17,
        -4.5979787224074726105e15,
        1.1646782814350067249e14,
        -2.950130727918164224e12,
        7.47242496e10,
        -1.8924375803183791606e9,
        47900160.0,
        -1209600.0,
        30240.0,
        -720.0,
        12.0,
    ];
    let zero = g.k(q, 0.0)?;
    let one = g.k(q, 1.0)?;
    let neg_x = g.neg(x)?;
    let mut acc = q;
    let mut power_sum = g.pow(q, neg_x)?;
    for _ in 0..ITERS {
        acc = g.add(acc, one)?;
        power_sum = g.add(power_sum, g.pow(acc, neg_x)?)?;
    }
    acc = g.add(acc, one)?;
    let q_neg_power = g.pow(acc, neg_x)?;
    let one_like_x = g.k(x, 1.0)?;
    let correction = g.div(g.mul(q_neg_power, acc)?, g.sub(x, one_like_x)?)?;
    let rsqrt_acc = g.div(one, g.mul(acc, acc)?)?;
    let mut horner_sum = zero;
    for (i, &c) in COEFFS[..TERMS - 1].iter().enumerate() {
        let i = i as i64;
        let lhs = g.add(x, g.k(x, (TWO_TERMS_MINUS_ONE - 1 - 2 * i) as f64)?)?;
        let rhs = g.add(x, g.k(x, (TWO_TERMS_MINUS_ONE - 2 - 2 * i) as f64)?)?;
        let product = g.mul(lhs, rhs)?;
        let inner = g.add(horner_sum, g.k(acc, 1.0 / c)?)?;
        horner_sum = g.mul(product, g.mul(rsqrt_acc, inner)?)?;
    }
    let x_div_acc = g.div(x, acc)?;
    let tail = g.mul(
        q_neg_power,
        g.add(
            g.k(q_neg_power, 0.5)?,
            g.mul(
                x_div_acc,
                g.add(g.k(acc, 1.0 / COEFFS[TERMS - 1])?, horner_sum)?,
            )?,
        )?,
    )?;
    let accurate = g.add(g.add(power_sum, correction)?, tail)?;
    let smallest = smallest_subnormal(g, acc)?;
    let small = g.cmp(g.abs(q_neg_power)?, g.mul(g.abs(power_sum)?, smallest)?, Lt)?;
    let mut output = g.select(small, power_sum, accurate)?;
    let nan = g.k(x, f64::NAN)?;
    output = g.select(g.cmp(x, one_like_x, Lt)?, nan, output)?;
    let q_le_zero = g.cmp(q, zero, Le)?;
    let x_not_int = g.cmp(x, g.floor(x)?, Ne)?;
    output = g.select(g.and(q_le_zero, x_not_int)?, nan, output)?;
    let inf = g.k(x, f64::INFINITY)?;
    let q_is_int = g.cmp(q, g.floor(q)?, Eq)?;
    let at_pole = g.and(q_le_zero, q_is_int)?;
    let two = g.k(x, 2.0)?;
    let x_is_int = g.cmp(x, g.floor(x)?, Eq)?;
    let x_is_even = g.cmp(g.rem(x, two)?, zero, Eq)?;
    let even_int = g.and(x_is_int, x_is_even)?;
    output = g.select(at_pole, g.select(even_int, inf, nan)?, output)?;
    g.select(g.cmp(x, one, Eq)?, inf, output)
}

/// `APFloat::getSmallest`: the smallest positive subnormal, like `like`.
fn smallest_subnormal(g: &G, like: XlaOp) -> OpResult<XlaOp> {
    let v = match g.ty(like)? {
        PrimitiveType::F32 => f64::from(f32::from_bits(1)),
        PrimitiveType::F64 => f64::from_bits(1),
        t => return Err(format!("no subnormal of {t}")),
    };
    g.k(like, v)
}

/// `materializePolygamma` on `f32` or `f64`.
pub(super) fn polygamma(g: &G, n: XlaOp, x: XlaOp) -> OpResult<XlaOp> {
    let one = g.k(x, 1.0)?;
    let two = g.k(x, 2.0)?;
    let sign = g.sub(g.mul(two, g.rem(n, two)?)?, one)?;
    let n_plus_one = g.add(n, one)?;
    let exp_lgamma = g.exp(lgamma(g, n_plus_one)?)?;
    let zeta = zeta(g, n_plus_one, x)?;
    let result = g.mul(g.mul(sign, exp_lgamma)?, zeta)?;
    let zero = g.k(x, 0.0)?;
    let n_is_zero = g.cmp(n, zero, Eq)?;
    let result = g.select(n_is_zero, digamma(g, x)?, result)?;
    let non_int = g.cmp(n, g.floor(n)?, Ne)?;
    let negative = g.cmp(n, zero, Lt)?;
    let non_natural = g.or(non_int, negative)?;
    g.select(non_natural, g.k(x, f64::NAN)?, result)
}

/// The `f32` Chebyshev coefficients of `i1e` for `|x| ≤ 8`.
const I1E_A_F32: [f32; 17] = [
    9.38153738649577178388E-9,
    -4.44505912879632808065E-8,
    2.00329475355213526229E-7,
    -8.56872026469545474066E-7,
    3.47025130813767847674E-6,
    -1.32731636560394358279E-5,
    4.78156510755005422638E-5,
    -1.61760815825896745588E-4,
    5.12285956168575772895E-4,
    -1.51357245063125314899E-3,
    4.15642294431288815669E-3,
    -1.05640848946261981558E-2,
    2.47264490306265168283E-2,
    -5.29459812080949914269E-2,
    1.02643658689847095384E-1,
    -1.76416518357834055153E-1,
    2.52587186443633654823E-1,
];

/// The `f32` Chebyshev coefficients of `i1e` for `|x| > 8`.
const I1E_B_F32: [f32; 7] = [
    -3.83538038596423702205E-9,
    -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,
    -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
];

/// The `f64` Chebyshev coefficients of `i1e` for `|x| ≤ 8`.
const I1E_A_F64: [f64; 29] = [
    2.77791411276104639959E-18,
    -2.11142121435816608115E-17,
    1.55363195773620046921E-16,
    -1.10559694773538630805E-15,
    7.60068429473540693410E-15,
    -5.04218550472791168711E-14,
    3.22379336594557470981E-13,
    -1.98397439776494371520E-12,
    1.17361862988909016308E-11,
    -6.66348972350202774223E-11,
    3.62559028155211703701E-10,
    -1.88724975172282928790E-9,
    9.38153738649577178388E-9,
    -4.44505912879632808065E-8,
    2.00329475355213526229E-7,
    -8.56872026469545474066E-7,
    3.47025130813767847674E-6,
    -1.32731636560394358279E-5,
    4.78156510755005422638E-5,
    -1.61760815825896745588E-4,
    5.12285956168575772895E-4,
    -1.51357245063125314899E-3,
    4.15642294431288815669E-3,
    -1.05640848946261981558E-2,
    2.47264490306265168283E-2,
    -5.29459812080949914269E-2,
    1.02643658689847095384E-1,
    -1.76416518357834055153E-1,
    2.52587186443633654823E-1,
];

/// The `f64` Chebyshev coefficients of `i1e` for `|x| > 8`.
const I1E_B_F64: [f64; 25] = [
    7.51729631084210481353E-18,
    4.41434832307170791151E-18,
    -4.65030536848935832153E-17,
    -3.20952592199342395980E-17,
    2.96262899764595013876E-16,
    3.30820231092092828324E-16,
    -1.88035477551078244854E-15,
    -3.81440307243700780478E-15,
    1.04202769841288027642E-14,
    4.27244001671195135429E-14,
    -2.10154184277266431302E-14,
    -4.08355111109219731823E-13,
    -7.19855177624590851209E-13,
    2.03562854414708950722E-12,
    1.41258074366137813316E-11,
    3.25260358301548823856E-11,
    -1.89749581235054123450E-11,
    -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,
    -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,
    -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
];

/// Clenshaw's recurrence for a Chebyshev series at `x`.
fn chebyshev(g: &G, x: XlaOp, coefficients: &[f64]) -> OpResult<XlaOp> {
    let mut b0 = g.k(x, 0.0)?;
    let mut b1 = g.k(x, 0.0)?;
    let mut b2 = g.k(x, 0.0)?;
    for &c in coefficients {
        b2 = b1;
        b1 = b0;
        b0 = g.add(g.sub(g.mul(x, b1)?, b2)?, g.k(x, c)?)?;
    }
    g.mul(g.sub(b0, b2)?, g.k(x, 0.5)?)
}

/// `materializeBesselI1eApproximation` with one type's coefficients.
fn bessel_i1e_with(g: &G, x: XlaOp, a: &[f64], b: &[f64]) -> OpResult<XlaOp> {
    let z = g.abs(x)?;
    let two = g.k(x, 2.0)?;
    let le8 = g.mul(z, chebyshev(g, g.sub(g.mul(g.k(x, 0.5)?, z)?, two)?, a)?)?;
    let t = g.sub(g.div(g.k(x, 32.0)?, z)?, two)?;
    let gt8 = g.div(chebyshev(g, t, b)?, g.sqrt(z)?)?;
    let is_le8 = g.cmp(z, g.k(x, 8.0)?, Le)?;
    g.mul(g.sign(x)?, g.select(is_le8, le8, gt8)?)
}

/// `materializeNextAfter`: bit manipulation on the integer of the float's
/// width.
pub(super) fn next_after(g: &G, x: XlaOp, y: XlaOp) -> OpResult<XlaOp> {
    let float = g.ty(x)?;
    let (int, bits) = match float {
        PrimitiveType::F16 | PrimitiveType::Bf16 => (PrimitiveType::S16, 16),
        PrimitiveType::F32 => (PrimitiveType::S32, 32),
        PrimitiveType::F64 => (PrimitiveType::S64, 64),
        t => return Err(format!("element type {t} is not supported")),
    };
    let b = g.0;
    let bitcast = |v: XlaOp, t| super::built(b.bitcast_convert_type(v, t));
    let x_int = bitcast(x, int)?;
    let y_int = bitcast(y, int)?;
    let nan_input = g.or(g.cmp(x, x, Ne)?, g.cmp(y, y, Ne)?)?;
    let nan_int = bitcast(g.k(x, f64::NAN)?, int)?;
    let sign_bit = 1i64 << (bits - 1);
    let sign_mask = g.ki(x_int, sign_bit)?;
    let magnitude_mask = g.ki(x_int, !sign_bit)?;
    let x_abs = g.and(x_int, magnitude_mask)?;
    let y_abs = g.and(y_int, magnitude_mask)?;
    let equal = g.cmp(x, y, Eq)?;
    let zero = g.ki(x_int, 0)?;
    let x_zero = g.cmp(x_abs, zero, Eq)?;
    let y_zero = g.cmp(y_abs, zero, Eq)?;
    let x_sign = g.and(x_int, sign_mask)?;
    let y_sign = g.and(y_int, sign_mask)?;
    let one = g.ki(x_int, 1)?;
    let from_zero = g.or(y_sign, one)?;
    let signs_disagree = g.cmp(x_sign, y_sign, Ne)?;
    let x_larger = g.cmp(x_abs, y_abs, Gt)?;
    let smaller = g.or(x_larger, signs_disagree)?;
    let adjustment = g.select(smaller, g.ki(x_int, -1)?, one)?;
    let mut result = g.add(x_int, adjustment)?;
    result = g.select(x_zero, g.select(y_zero, y_int, from_zero)?, result)?;
    result = g.select(equal, y_int, result)?;
    result = g.select(nan_input, nan_int, result)?;
    bitcast(result, float)
}
