//! Every gradient rule against central finite differences in f64: each case
//! is a small module around one op (the entry returns `Σ sin(result)`, so
//! every element of the op's result is weighted differently), run on
//! random inputs; `autodiff::grad` run on the interpreter must agree with
//! `(f(x + h·eᵢ) − f(x − h·eᵢ)) / 2h` for every element of every
//! floating-point parameter.

use xla_core::autodiff::grad;
use xla_core::interp::Interpreter;
use xla_core::verify::verify_module;
use xla_core::{HloModule, Literal, PrimitiveType};
use xla_testkit::random_literal;

/// One case: parameters, body lines (ending in an instruction named `r`),
/// and `r`'s shape.
struct Case {
    name: &'static str,
    params: &'static [&'static str],
    body: &'static str,
    result: &'static str,
}

const CASES: &[Case] = &[
    Case { name: "smooth unary", params: &["f64[3,4]"], result: "f64[3,4]", body: "
  e = f64[3,4] exponential(p0)
  t = f64[3,4] tanh(p0)
  l = f64[3,4] logistic(p0)
  s = f64[3,4] sine(p0)
  c = f64[3,4] cosine(p0)
  f = f64[3,4] erf(p0)
  m = f64[3,4] exponential-minus-one(p0)
  n = f64[3,4] negate(p0)
  half = f64[] constant(0.5)
  hb = f64[3,4] broadcast(half), dimensions={}
  ph = f64[3,4] multiply(p0, hb)
  q = f64[3,4] tan(ph)
  a1 = f64[3,4] add(e, t)
  a2 = f64[3,4] add(l, s)
  a3 = f64[3,4] add(c, f)
  a4 = f64[3,4] add(m, n)
  a5 = f64[3,4] add(a1, a2)
  a6 = f64[3,4] add(a3, a4)
  a7 = f64[3,4] add(a5, a6)
  r = f64[3,4] multiply(a7, q)" },
    Case { name: "positive-domain unary", params: &["f64[5]"], result: "f64[5]", body: "
  a = f64[5] abs(p0)
  h = f64[] constant(0.5)
  hb = f64[5] broadcast(h), dimensions={}
  x = f64[5] add(a, hb)
  l = f64[5] log(x)
  lp = f64[5] log-plus-one(x)
  s = f64[5] sqrt(x)
  rs = f64[5] rsqrt(x)
  cb = f64[5] cbrt(x)
  a1 = f64[5] add(l, lp)
  a2 = f64[5] add(s, rs)
  a3 = f64[5] add(a1, a2)
  r = f64[5] add(a3, cb)" },
    Case { name: "binary arithmetic", params: &["f64[6]", "f64[6]"], result: "f64[6]", body: "
  a = f64[6] add(p0, p1)
  s = f64[6] subtract(p0, p1)
  m = f64[6] multiply(a, s)
  ab = f64[6] abs(p1)
  one = f64[] constant(1)
  ob = f64[6] broadcast(one), dimensions={}
  d = f64[6] add(ab, ob)
  q = f64[6] divide(m, d)
  w = f64[6] power(d, p0)
  t = f64[6] atan2(p0, p1)
  mx = f64[6] maximum(p0, p1)
  mn = f64[6] minimum(q, p1)
  rm = f64[6] remainder(p0, d)
  a1 = f64[6] add(q, w)
  a2 = f64[6] add(t, mx)
  a3 = f64[6] add(mn, rm)
  a4 = f64[6] add(a1, a2)
  r = f64[6] add(a3, a4)" },
    Case { name: "select and clamp", params: &["f64[7]", "f64[7]", "f64[7]"], result: "f64[7]", body: "
  p = pred[7] compare(p0, p1), direction=GT
  s = f64[7] select(p, p0, p2)
  lo = f64[] constant(-0.7)
  hi = f64[] constant(0.9)
  c = f64[7] clamp(lo, p2, hi)
  lob = f64[7] broadcast(lo), dimensions={}
  ap = f64[7] abs(p0)
  c2 = f64[7] clamp(lob, p1, ap)
  a = f64[7] add(s, c)
  r = f64[7] add(a, c2)" },
    Case { name: "broadcast, reshape, transpose, reverse", params: &["f64[2,3]", "f64[3]"], result: "f64[3,2,4]", body: "
  b = f64[2,3,4] broadcast(p0), dimensions={0,1}
  v = f64[2,3,4] broadcast(p1), dimensions={1}
  m = f64[2,3,4] multiply(b, v)
  s = f64[4,6] reshape(m)
  t = f64[6,4] transpose(s), dimensions={1,0}
  rv = f64[6,4] reverse(t), dimensions={0}
  rs = f64[2,3,4] reshape(rv)
  r = f64[3,2,4] transpose(rs), dimensions={1,0,2}" },
    Case { name: "slice, pad, concatenate", params: &["f64[7,5]", "f64[]"], result: "f64[10,5]", body: "
  s = f64[3,2] slice(p0), slice={[1:7:2], [0:5:3]}
  pd = f64[5,5] pad(s, p1), padding=1_-1_1x2_-1_2
  c = f64[10,5] concatenate(pd, pd), dimensions={0}
  sq = f64[10,5] multiply(c, c)
  r = f64[10,5] add(sq, c)" },
    Case { name: "dynamic slice and update", params: &["f64[6,4]", "f64[2,3]", "s32[]"], result: "f64[6,4]", body: "
  one = s32[] constant(1)
  d = f64[3,4] dynamic-slice(p0, p2, one), dynamic_slice_sizes={3,4}
  u = f64[6,4] dynamic-update-slice(p0, p1, p2, one)
  z = f64[] constant(0)
  sd = f64[] reduce(d, z), dimensions={0,1}, to_apply=add
  sb = f64[6,4] broadcast(sd), dimensions={}
  r = f64[6,4] multiply(u, sb)" },
    Case { name: "gather", params: &["f64[5,4]", "s32[3,1]"], result: "f64[3,2]", body: "
  r = f64[3,2] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}" },
    Case { name: "scatter add and replace", params: &["f64[5,3]", "s32[4]", "f64[4,3]"], result: "f64[5,3]", body: "
  a = f64[5,3] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  i2 = s32[2] slice(p1), slice={[0:2]}
  u2 = f64[2,3] slice(p2), slice={[2:4], [0:3]}
  iota = s32[2] iota(), iota_dimension=0
  two = s32[] constant(2)
  twob = s32[2] broadcast(two), dimensions={}
  uniq = s32[2] multiply(iota, twob)
  s = f64[5,3] scatter(a, uniq, u2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=second
  m = f64[5,3] scatter(s, uniq, u2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul
  x = f64[5,3] scatter(m, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=max
  r = f64[5,3] multiply(x, s)" },
    Case { name: "reductions", params: &["f64[4,5]"], result: "f64[4]", body: "
  z = f64[] constant(0)
  ninf = f64[] constant(-inf)
  inf = f64[] constant(inf)
  one = f64[] constant(1)
  s = f64[4] reduce(p0, z), dimensions={1}, to_apply=add
  m = f64[4] reduce(p0, ninf), dimensions={1}, to_apply=max
  n = f64[4] reduce(p0, inf), dimensions={1}, to_apply=min
  pr = f64[4] reduce(p0, one), dimensions={1}, to_apply=mul
  a = f64[4] add(s, m)
  b = f64[4] add(n, pr)
  r = f64[4] add(a, b)" },
    Case { name: "argmax-style reduce", params: &["f64[3,6]"], result: "f64[3]", body: "
  idx = s32[3,6] iota(), iota_dimension=1
  ninf = f64[] constant(-inf)
  z = s32[] constant(0)
  red = (f64[3], s32[3]) reduce(p0, idx, ninf, z), dimensions={1}, to_apply=argmax
  r = f64[3] get-tuple-element(red), index=0" },
    Case { name: "window sums and maxima", params: &["f64[2,7,6]"], result: "f64[2,4,3]", body: "
  z = f64[] constant(0)
  ninf = f64[] constant(-inf)
  s = f64[2,4,3] reduce-window(p0, z), window={size=1x3x2 stride=1x2x2 pad=0_0x1_1x0_0}, to_apply=add
  d = f64[2,4,3] reduce-window(p0, z), window={size=1x2x2 stride=1x2x2 pad=0_0x1_1x0_1 rhs_dilate=1x2x2}, to_apply=add
  e = f64[2,4,3] reduce-window(p0, z), window={size=1x2x3 stride=1x2x4 pad=0_0x0_1x0_0 lhs_dilate=1x1x2}, to_apply=add
  m = f64[2,4,3] reduce-window(p0, ninf), window={size=1x3x3 stride=1x2x2 pad=0_0x1_1x1_0}, to_apply=max
  a = f64[2,4,3] add(s, d)
  b = f64[2,4,3] add(e, m)
  r = f64[2,4,3] add(a, b)" },
    Case { name: "cumulative logsumexp", params: &["f64[2,7]"], result: "f64[2,7]", body: "
  ninf = f64[] constant(-inf)
  r = f64[2,7] reduce-window(p0, ninf), window={size=1x7 pad=0_0x6_0}, to_apply=logaddexp" },
    Case { name: "map", params: &["f64[3,4]", "f64[3,4]"], result: "f64[3,4]", body: "
  r = f64[3,4] map(p0, p1), dimensions={0,1}, to_apply=logaddexp" },
    Case { name: "select-and-scatter", params: &["f64[6,6]", "f64[3,3]"], result: "f64[6,6]", body: "
  z = f64[] constant(0)
  r = f64[6,6] select-and-scatter(p0, p1, z), window={size=2x2 stride=2x2}, select=ge, scatter=add" },
    Case { name: "cumulative sum and product", params: &["f64[3,5]"], result: "f64[3,5]", body: "
  z = f64[] constant(0)
  one = f64[] constant(1)
  s = f64[3,5] reduce-window(p0, z), window={size=1x5 pad=0_0x4_0}, to_apply=add
  p = f64[3,5] reduce-window(p0, one), window={size=1x5 pad=0_0x4_0}, to_apply=mul
  q = f64[3,5] reduce-window(p0, one), window={size=1x5 pad=0_0x0_4}, to_apply=mul
  a = f64[3,5] add(s, p)
  r = f64[3,5] add(a, q)" },
    Case { name: "dot general", params: &["f64[2,3,4]", "f64[2,4,5]"], result: "f64[2,3,5]", body: "
  r = f64[2,3,5] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}" },
    Case { name: "dot transposed", params: &["f64[4,3]", "f64[5,4]"], result: "f64[3,5]", body: "
  r = f64[3,5] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={1}" },
    Case { name: "convolution strided dilated", params: &["f64[1,7,6,2]", "f64[2,2,2,3]"], result: "f64[1,4,3,3]", body: "
  r = f64[1,4,3,3] convolution(p0, p1), window={size=2x2 stride=2x2 pad=1_1x0_1 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f" },
    Case { name: "convolution base dilation", params: &["f64[1,2,4,3]", "f64[3,2,2,2]"], result: "f64[1,3,8,2]", body: "
  r = f64[1,3,8,2] convolution(p0, p1), window={size=2x2 pad=1_1x0_0 lhs_dilate=2x1}, dim_labels=bf01_oi01->bf01" },
    Case { name: "convolution feature groups", params: &["f64[2,4,4,4]", "f64[2,2,2,6]"], result: "f64[2,3,3,6]", body: "
  r = f64[2,3,3,6] convolution(p0, p1), window={size=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2" },
    Case { name: "convolution batch groups", params: &["f64[4,3,3,2]", "f64[2,2,2,4]"], result: "f64[2,2,2,4]", body: "
  r = f64[2,2,2,4] convolution(p0, p1), window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2" },
    Case { name: "sort with values", params: &["f64[3,5]", "f64[3,5]"], result: "f64[3,5]", body: "
  s = (f64[3,5], f64[3,5]) sort(p0, p1), dimensions={1}, to_apply=less
  k = f64[3,5] get-tuple-element(s), index=0
  v = f64[3,5] get-tuple-element(s), index=1
  r = f64[3,5] multiply(k, v)" },
    Case { name: "top-k", params: &["f64[2,6]"], result: "f64[2,3]", body: "
  t = (f64[2,3], s32[2,3]) topk(p0), k=3, largest=true
  r = f64[2,3] get-tuple-element(t), index=0" },
    Case { name: "counted loop", params: &["f64[3]", "f64[3]"], result: "f64[3]", body: "
  z = s32[] constant(0)
  init = (s32[], f64[3], f64[3]) tuple(z, p0, p1)
  w = (s32[], f64[3], f64[3]) while(init), condition=below4, body=step
  r = f64[3] get-tuple-element(w), index=1" },
    Case { name: "conditional", params: &["f64[4]", "f64[4]"], result: "f64[4]", body: "
  z = f64[] constant(0)
  s = f64[] reduce(p1, z), dimensions={0}, to_apply=add
  p = pred[] compare(s, z), direction=GT
  r = f64[4] conditional(p, p0, p1), true_computation=double_sine, false_computation=cube" },
    Case { name: "cholesky", params: &["f64[3,3]"], result: "f64[3,3]", body: "
  t = f64[3,3] dot(p0, p0), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  i0 = s32[3,3] iota(), iota_dimension=0
  i1 = s32[3,3] iota(), iota_dimension=1
  eq = pred[3,3] compare(i0, i1), direction=EQ
  four = f64[] constant(4)
  fb = f64[3,3] broadcast(four), dimensions={}
  z = f64[] constant(0)
  zb = f64[3,3] broadcast(z), dimensions={}
  d = f64[3,3] select(eq, fb, zb)
  spd = f64[3,3] add(t, d)
  c = f64[3,3] cholesky(spd), lower=true
  lo = pred[3,3] compare(i0, i1), direction=GE
  r = f64[3,3] select(lo, c, zb)" },
    Case { name: "triangular solve", params: &["f64[2,3,3]", "f64[2,3,2]", "f64[2,2,3]"], result: "f64[2,3,2]", body: "
  i0 = s32[2,3,3] iota(), iota_dimension=1
  i1 = s32[2,3,3] iota(), iota_dimension=2
  eq = pred[2,3,3] compare(i0, i1), direction=EQ
  three = f64[] constant(3)
  tb = f64[2,3,3] broadcast(three), dimensions={}
  z = f64[] constant(0)
  zb = f64[2,3,3] broadcast(z), dimensions={}
  d = f64[2,3,3] select(eq, tb, zb)
  a = f64[2,3,3] add(p0, d)
  x = f64[2,3,2] triangular-solve(a, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  y = f64[2,2,3] triangular-solve(a, p2), left_side=false, lower=false, unit_diagonal=true, transpose_a=TRANSPOSE
  yt = f64[2,3,2] transpose(y), dimensions={0,2,1}
  r = f64[2,3,2] multiply(x, yt)" },
    Case { name: "fft and complex values", params: &["f64[8]", "f64[8]"], result: "f64[8]", body: "
  c = c128[8] complex(p0, p1)
  f = c128[8] fft(c), fft_type=FFT, fft_length={8}
  i = c128[8] fft(f), fft_type=IFFT, fft_length={8}
  m = c128[8] multiply(f, i)
  re = f64[8] real(m)
  im = f64[8] imag(f)
  a = f64[8] abs(i)
  r5 = c128[5] fft(p0), fft_type=RFFT, fft_length={8}
  back = f64[8] fft(r5), fft_type=IRFFT, fft_length={8}
  s1 = f64[8] add(re, im)
  s2 = f64[8] add(a, back)
  r = f64[8] add(s1, s2)" },
    Case { name: "call", params: &["f64[4]"], result: "f64[4]", body: "
  r = f64[4] call(p0), to_apply=cube" },
];

/// The computations the cases call.
const CALLEES: &str = "
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[] add(a, b)
}
max {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[] maximum(a, b)
}
min {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[] minimum(a, b)
}
mul {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[] multiply(a, b)
}
second {
  a = f64[] parameter(0)
  ROOT b = f64[] parameter(1)
}
logaddexp {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  m = f64[] maximum(a, b)
  d = f64[] subtract(a, b)
  ad = f64[] abs(d)
  nd = f64[] negate(ad)
  e = f64[] exponential(nd)
  l = f64[] log-plus-one(e)
  ROOT r = f64[] add(m, l)
}
ge {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GE
}
less {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  c = f64[] parameter(2)
  d = f64[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
argmax {
  a = f64[] parameter(0)
  i = s32[] parameter(1)
  b = f64[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f64[] select(gt, a, b)
  k = s32[] select(gt, i, j)
  ROOT r = (f64[], s32[]) tuple(v, k)
}
below4 {
  p = (s32[], f64[3], f64[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
step {
  p = (s32[], f64[3], f64[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f64[3] get-tuple-element(p), index=1
  w = f64[3] get-tuple-element(p), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  m = f64[3] multiply(x, w)
  s = f64[3] sine(m)
  y = f64[3] add(s, x)
  ROOT t = (s32[], f64[3], f64[3]) tuple(j, y, w)
}
double_sine {
  x = f64[4] parameter(0)
  s = f64[4] sine(x)
  ROOT d = f64[4] add(s, s)
}
cube {
  x = f64[4] parameter(0)
  s = f64[4] multiply(x, x)
  ROOT c = f64[4] multiply(s, x)
}
";

/// The case as a module returning `Σ sin(r)`.
fn module(case: &Case) -> HloModule {
    let params: String = (case.params.iter().enumerate())
        .map(|(i, s)| format!("  p{i} = {s} parameter({i})\n"))
        .collect();
    let shape: xla_core::Shape = case.result.parse().unwrap();
    let rank = shape.as_array().unwrap().rank();
    let dims: Vec<String> = (0..rank).map(|d| d.to_string()).collect();
    let text = format!(
        "HloModule fd\n{CALLEES}\nENTRY e {{\n{params}{}\n  sn = {} sine(r)\n  zero = f64[] constant(0)\n  \
         ROOT out = f64[] reduce(sn, zero), dimensions={{{}}}, to_apply=add\n}}\n",
        case.body,
        case.result,
        dims.join(",")
    );
    let module: HloModule = text
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.name));
    verify_module(&module).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    module
}

fn value(module: &HloModule, args: &[Literal]) -> f64 {
    let refs: Vec<&Literal> = args.iter().collect();
    let out = Interpreter::new().run(module, &refs).unwrap();
    out.to_vec::<f64>().unwrap()[0]
}

#[test]
fn every_rule_matches_central_differences() {
    let mut failures = Vec::new();
    for (c, case) in CASES.iter().enumerate() {
        let forward = module(case);
        let derived = grad(&forward, None).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let mut seed = 0x9e37_79b9 + c as u64;
        for round in 0..3 {
            let args: Vec<Literal> = (case.params.iter())
                .map(|s| random_literal(&s.parse().unwrap(), &mut seed))
                .collect();
            let refs: Vec<&Literal> = args.iter().collect();
            let grads = Interpreter::new().run(&derived, &refs).unwrap();
            let grads = grads.into_tuple_elements().unwrap();
            let floats: Vec<usize> = (0..args.len())
                .filter(|&i| args[i].element_type() == Some(PrimitiveType::F64))
                .collect();
            assert_eq!(grads.len(), floats.len(), "{}", case.name);
            for (g, &i) in grads.iter().zip(&floats) {
                let analytic = g.to_vec::<f64>().unwrap();
                let x = args[i].to_vec::<f64>().unwrap();
                for e in 0..x.len() {
                    let h = 1e-6 * x[e].abs().max(1.0);
                    let at = |delta: f64| {
                        let mut moved = args.clone();
                        moved[i].data_mut::<f64>().unwrap()[e] = x[e] + delta;
                        value(&forward, &moved)
                    };
                    let numeric = (at(h) - at(-h)) / (2.0 * h);
                    let tolerance = 1e-5 * (1.0 + numeric.abs());
                    if (numeric - analytic[e]).abs() > tolerance {
                        failures.push(format!(
                            "{} (round {round}): d/dp{i}[{e}] is {} by differences, {} by grad",
                            case.name, numeric, analytic[e]
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
