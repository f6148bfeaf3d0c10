//! HLO module text: table-driven round trips over every op and attribute
//! form, the inputs that printing normalizes, and parse errors with their
//! whole messages.

use xla_core::hlo::{ComputationId, InstrId, Opcode};
use xla_core::text::parse_hlo_module;
use xla_core::HloModule;

/// Wraps instruction lines into a module with one entry computation.
fn entry(lines: &str) -> String {
    format!("HloModule m\n\nENTRY main {{\n{lines}\n}}\n\n")
}

/// Binary reducers used by the modules below.
const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\n";
const GE: &str = "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT p = pred[] compare(a, b), direction=GE\n}\n\n";

/// A module with the given computations before an entry computation.
fn with(computations: &[&str], lines: &str) -> String {
    format!(
        "HloModule m\n\n{}ENTRY main {{\n{lines}\n}}\n\n",
        computations.concat()
    )
}

/// Modules that print back exactly as written (XLA's canonical form).
fn round_trip_cases() -> Vec<(&'static str, String)> {
    vec![
        ("unary", entry("  x = f32[4]{0} parameter(0)
  i = s32[4]{0} parameter(1)
  z = c64[4]{0} parameter(2)
  abs.1 = f32[4]{0} abs(x)
  cbrt.1 = f32[4]{0} cbrt(x)
  ceil.1 = f32[4]{0} ceil(x)
  clz.1 = s32[4]{0} count-leading-zeros(i)
  cos.1 = f32[4]{0} cosine(x)
  erf.1 = f32[4]{0} erf(x)
  exp.1 = f32[4]{0} exponential(x)
  expm1.1 = f32[4]{0} exponential-minus-one(x)
  floor.1 = f32[4]{0} floor(x)
  imag.1 = f32[4]{0} imag(z)
  finite.1 = pred[4]{0} is-finite(x)
  log.1 = f32[4]{0} log(x)
  log1p.1 = f32[4]{0} log-plus-one(x)
  logistic.1 = f32[4]{0} logistic(x)
  neg.1 = f32[4]{0} negate(x)
  not.1 = s32[4]{0} not(i)
  popcnt.1 = s32[4]{0} popcnt(i)
  real.1 = f32[4]{0} real(z)
  afz.1 = f32[4]{0} round-nearest-afz(x)
  even.1 = f32[4]{0} round-nearest-even(x)
  rsqrt.1 = f32[4]{0} rsqrt(x)
  sign.1 = f32[4]{0} sign(x)
  sin.1 = f32[4]{0} sine(x)
  sqrt.1 = f32[4]{0} sqrt(x)
  tan.1 = f32[4]{0} tan(x)
  tanh.1 = f32[4]{0} tanh(x)
  copy.1 = f32[4]{0} copy(x)
  bitcast.1 = f32[2,2]{1,0} bitcast(x)
  bits.1 = u32[4]{0} bitcast-convert(x)
  convert.1 = bf16[4]{0} convert(x)
  reshape.1 = f32[2,2]{0,1} reshape(x)
  t = (f32[4]{0}, s32[4]{0}) tuple(x, i)
  ROOT barrier.1 = (f32[4]{0}, s32[4]{0}) opt-barrier(t)")),
        ("binary", entry("  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  i = u8[4]{0} parameter(2)
  add.1 = f32[4]{0} add(x, y)
  atan2.1 = f32[4]{0} atan2(x, y)
  complex.1 = c64[4]{0} complex(x, y)
  div.1 = f32[4]{0} divide(x, y)
  max.1 = f32[4]{0} maximum(x, y)
  min.1 = f32[4]{0} minimum(x, y)
  mul.1 = f32[4]{0} multiply(x, y)
  pow.1 = f32[4]{0} power(x, y)
  rem.1 = f32[4]{0} remainder(x, y)
  sub.1 = f32[4]{0} subtract(x, y)
  and.1 = u8[4]{0} and(i, i)
  or.1 = u8[4]{0} or(i, i)
  xor.1 = u8[4]{0} xor(i, i)
  shl.1 = u8[4]{0} shift-left(i, i)
  sra.1 = u8[4]{0} shift-right-arithmetic(i, i)
  srl.1 = u8[4]{0} shift-right-logical(i, i)
  lt.1 = pred[4]{0} compare(x, y), direction=LT
  total.1 = pred[4]{0} compare(x, y), direction=GE, type=TOTALORDER
  eq.1 = pred[4]{0} compare(i, i), direction=EQ, type=UNSIGNED
  sel.1 = f32[4]{0} select(lt.1, x, y)
  ROOT clamp.1 = f32[4]{0} clamp(x, y, x)")),
        ("data_movement", entry("  x = f32[2,3]{1,0} parameter(0)
  s = f32[] parameter(1)
  i = s32[] parameter(2)
  b.1 = f32[4,2,3]{2,1,0} broadcast(x), dimensions={1,2}
  b.2 = f32[2,3]{1,0} broadcast(s), dimensions={}
  t.1 = f32[3,2]{0,1} transpose(x), dimensions={1,0}
  r.1 = f32[2,3]{1,0} reverse(x), dimensions={0,1}
  c.1 = f32[4,3]{1,0} concatenate(x, b.2), dimensions={0}
  sl.1 = f32[1,2]{1,0} slice(x), slice={[1:2], [0:3:2]}
  ds.1 = f32[1,2]{1,0} dynamic-slice(x, i, i), dynamic_slice_sizes={1,2}
  dus.1 = f32[2,3]{1,0} dynamic-update-slice(x, ds.1, i, i)
  p.1 = f32[5,8]{1,0} pad(x, s), padding=1_2_0x0_-1_2
  p.2 = f32[3,4]{1,0} pad(x, s), padding=0_1x1_0
  p.3 = f32[] pad(s, s), padding=
  iota.1 = s32[2,3]{1,0} iota(), iota_dimension=1
  rp.1 = f32[2,3]{1,0} reduce-precision(x), exponent_bits=5, mantissa_bits=10
  gds.1 = s32[] get-dimension-size(x), dimensions={1}
  sds.1 = f32[2,3]{1,0} set-dimension-size(x, gds.1), dimensions={1}
  tuple.1 = (f32[1,2]{1,0}, f32[]) tuple(sl.1, p.3)
  ROOT gte.1 = f32[1,2]{1,0} get-tuple-element(tuple.1), index=0")),
        ("gather_scatter", with(&[ADD], "  x = f32[4,6]{1,0} parameter(0)
  i = s32[3,1]{1,0} parameter(1)
  u = f32[3,6]{1,0} parameter(2)
  g.1 = f32[3,6]{1,0} gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
  g.2 = f32[4,2]{1,0} gather(x, i), offset_dims={1}, collapsed_slice_dims={}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,2}, indices_are_sorted=true
  s.1 = f32[4,6]{1,0} scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT s.2 = f32[4,6]{1,0} scatter(x, i, u), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=add")),
        ("reductions", with(&[ADD, GE, "argmax {\n  v0 = f32[] parameter(0)\n  i0 = s32[] parameter(1)\n  v1 = f32[] parameter(2)\n  i1 = s32[] parameter(3)\n  gt = pred[] compare(v0, v1), direction=GT\n  v = f32[] select(gt, v0, v1)\n  i = s32[] select(gt, i0, i1)\n  ROOT r = (f32[], s32[]) tuple(v, i)\n}\n\n", "less {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n\n"], "  x = f32[4,8]{1,0} parameter(0)
  k = s32[4,8]{1,0} parameter(1)
  zero = f32[] constant(0)
  m1 = s32[] constant(-1)
  r.1 = f32[4]{0} reduce(x, zero), dimensions={1}, to_apply=add
  r.2 = (f32[8]{0}, s32[8]{0}) reduce(x, k, zero, m1), dimensions={0}, to_apply=argmax
  rw.1 = f32[4,4]{1,0} reduce-window(x, zero), window={size=1x2 stride=1x2}, to_apply=add
  rw.2 = f32[6,9]{1,0} reduce-window(x, zero), window={size=2x3 pad=1_2x0_1 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, to_apply=add
  sas.1 = f32[4,8]{1,0} select-and-scatter(x, rw.1, zero), window={size=1x2 stride=1x2}, select=ge, scatter=add
  map.1 = f32[4,8]{1,0} map(x, x), dimensions={0,1}, to_apply=add
  sort.1 = (f32[4,8]{1,0}, s32[4,8]{1,0}) sort(x, k), dimensions={1}, is_stable=true, to_apply=less
  ROOT topk.1 = (f32[4,3]{1,0}, s32[4,3]{1,0}) topk(x), k=3, largest=true")),
        ("dot_conv", entry("  a = f32[2,4,3]{2,1,0} parameter(0)
  b = f32[2,3,5]{2,1,0} parameter(1)
  img = f32[1,8,8,4]{3,2,1,0} parameter(2)
  w = f32[3,3,2,4]{3,2,1,0} parameter(3)
  v = f32[2,3,10]{2,1,0} parameter(4)
  k = f32[4,3,3]{2,1,0} parameter(5)
  dot.1 = f32[2,4,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  dot.2 = f32[4,3,3,5]{3,2,1,0} dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  conv.1 = f32[1,4,4,4]{3,2,1,0} convolution(img, w), window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2
  conv.2 = f32[2,4,5]{2,1,0} convolution(v, k), window={size=3 stride=2 pad=0_1}, dim_labels=bf0_oi0->bf0
  conv.3 = f32[4,3,3]{2,1,0} convolution(v, k), window={size=3 rhs_reversal=1}, dim_labels=f0b_i0o->0bf, batch_group_count=2
  x2 = f32[1,2]{1,0} parameter(6)
  w2 = f32[2,2]{1,0} parameter(7)
  ROOT conv.4 = f32[1,2]{0,1} convolution(x2, w2), dim_labels=bf_io->bf")),
        ("control_flow", with(&[ADD, "cond {\n  c = (s32[], f32[2]{0}) parameter(0)\n  n = s32[] get-tuple-element(c), index=0\n  ten = s32[] constant(10)\n  ROOT lt = pred[] compare(n, ten), direction=LT\n}\n\n", "body {\n  c = (s32[], f32[2]{0}) parameter(0)\n  n = s32[] get-tuple-element(c), index=0\n  one = s32[] constant(1)\n  n1 = s32[] add(n, one)\n  v = f32[2]{0} get-tuple-element(c), index=1\n  ROOT t = (s32[], f32[2]{0}) tuple(n1, v)\n}\n\n", "neg {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n\n", "id {\n  y = f32[] parameter(0)\n  ROOT c = f32[] copy(y)\n}\n\n", "fused {\n  p0 = f32[2]{0} parameter(0)\n  p1 = f32[2]{0} parameter(1)\n  ROOT m = f32[2]{0} multiply(p0, p1)\n}\n\n"], "  v = f32[2]{0} parameter(0)
  s = f32[] parameter(1)
  p = pred[] parameter(2)
  i = s32[] parameter(3)
  zero = s32[] constant(0)
  init = (s32[], f32[2]{0}) tuple(zero, v)
  w.1 = (s32[], f32[2]{0}) while(init), condition=cond, body=body
  call.1 = f32[] call(s, s), to_apply=add
  if.1 = f32[] conditional(p, s, s), true_computation=neg, false_computation=id
  switch.1 = f32[] conditional(i, s, s, s), branch_computations={neg, id, neg}
  fusion.1 = f32[2]{0} fusion(v, v), kind=kLoop, calls=fused
  ROOT fusion.2 = f32[2]{0} fusion(v, v), kind=kOutput, output_to_operand_aliasing={{}: (0, {})}, calls=fused")),
        ("custom_call", with(&[ADD], r#"  x = f32[4,4]{0,1} parameter(0)
  cc.1 = (f32[4,4]{0,1}, s32[]) custom-call(x), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[4,4]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
  cc.2 = f32[4,4]{1,0} custom-call(x, x), window={size=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=2, custom_call_target="conv\"\n", custom_call_has_side_effect=true, backend_config="opaque \"config\""
  cc.3 = f32[4]{0} custom-call(), custom_call_target="with_literal", literal=( s32[2]{0} {1, 2}, pred[] true ), api_version=API_VERSION_STATUS_RETURNING
  cc.4 = f32[] custom-call(x), custom_call_target="reducer", called_computations={add}
  ROOT cc.5 = token[] custom-call(), custom_call_target="", operand_layout_constraints={}, backend_config={"json": [1, {"a": "}"}]}"#)),
        ("collectives", with(&[ADD], "  x = f32[8,4]{1,0} parameter(0)
  ar.1 = f32[8,4]{1,0} all-reduce(x), replica_groups={}, to_apply=add
  ar.2 = f32[8,4]{1,0} all-reduce(x), channel_id=1, replica_groups={{0,2},{1,3}}, constrain_layout=true, use_global_device_ids=true, to_apply=add
  ag.1 = f32[32,4]{1,0} all-gather(x), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  rs.1 = f32[2,4]{1,0} reduce-scatter(x), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  a2a.1 = f32[8,4]{1,0} all-to-all(x), channel_id=4, replica_groups={{0,1,2,3}}, dimensions={1}
  a2a.2 = (f32[8,4]{1,0}, f32[8,4]{1,0}) all-to-all(x, x), replica_groups={{1,2},{3,0}}
  cp.1 = f32[8,4]{1,0} collective-permute(x), channel_id=5, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  replica.1 = u32[] replica-id()
  ROOT partition.1 = u32[] partition-id()")
            .replace("HloModule m\n", "HloModule m, replica_count=4, num_partitions=2\n")),
        ("linalg_fft_norm", entry("  z = c64[4,8]{1,0} parameter(0)
  r = f32[4,16]{1,0} parameter(1)
  a = f32[4,4]{1,0} parameter(2)
  b = f32[4,2]{1,0} parameter(3)
  f.1 = c64[4,8]{1,0} fft(z), fft_type=FFT, fft_length={8}
  f.2 = c64[4,8]{1,0} fft(z), fft_type=IFFT, fft_length={4,8}
  f.3 = c64[4,9]{1,0} fft(r), fft_type=RFFT, fft_length={16}
  f.4 = f32[4,14]{1,0} fft(z), fft_type=IRFFT, fft_length={14}
  chol.1 = f32[4,4]{1,0} cholesky(a), lower=true
  chol.2 = f32[4,4]{1,0} cholesky(a), lower=false
  ts.1 = f32[4,2]{1,0} triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT
  ts.2 = f32[4,2]{1,0} triangular-solve(a, b), transpose_a=NO_TRANSPOSE
  scale = f32[4]{0} parameter(4)
  bnt.1 = (f32[4,4]{1,0}, f32[4]{0}, f32[4]{0}) batch-norm-training(a, scale, scale), epsilon=0.001, feature_index=1
  bni.1 = f32[4,4]{1,0} batch-norm-inference(a, scale, scale, scale, scale), epsilon=1e-05, feature_index=0
  ROOT bng.1 = (f32[4,4]{1,0}, f32[4]{0}, f32[4]{0}) batch-norm-grad(a, scale, scale, scale, a), epsilon=0.1, feature_index=1")),
        ("random_side_effects", entry(r#"  zero = f32[] constant(0)
  one = f32[] constant(1)
  rng.1 = f32[8]{0} rng(zero, one), distribution=rng_uniform
  rng.2 = f32[8]{0} rng(zero, one), distribution=rng_normal
  state = u64[2]{0} parameter(0)
  rbg.1 = (u64[2]{0}, u32[2,3]{1,0}) rng-bit-generator(state), algorithm=rng_three_fry
  rbg.2 = (u64[2]{0}, u32[4]{0}) rng-bit-generator(state), algorithm=rng_philox
  rbg.3 = (u64[2]{0}, u32[4]{0}) rng-bit-generator(state), algorithm=rng_default
  token0 = token[] after-all()
  token1 = token[] after-all(token0, token0)
  infeed.1 = ((u32[3]{0}, pred[]), token[]) infeed(token0), infeed_config="cfg"
  data.1 = (u32[3]{0}, pred[]) get-tuple-element(infeed.1), index=0
  outfeed.1 = token[] outfeed(data.1, token1), outfeed_shape=(u32[3]{0}, pred[]), outfeed_config="out\t"
  recv.1 = (f32[], u32[], token[]) recv(token0), channel_id=15
  recv-done.1 = (f32[], token[]) recv-done(recv.1), channel_id=15
  send.1 = (f32[], u32[], token[]) send(one, token0), channel_id=16, is_host_transfer=true
  ROOT send-done.1 = token[] send-done(send.1), channel_id=16, is_host_transfer=true"#)),
        ("constants", entry("  c.1 = f32[2,3]{1,0} constant({ { 1.5, -0, nan }, { inf, -inf, 1e-05 } })
  c.2 = (f32[2,1]{1,0}, s32[]) constant(( { {1}, {2} }, 42 ))
  c.3 = pred[] constant(true)
  c.4 = u64[2]{0} constant({0, 18446744073709551615})
  c.5 = f32[2,0]{1,0} constant({ {}, {} })
  c.6 = c128[1]{0} constant({(1e+300, -nan(0x1))})
  c.7 = bf16[2]{0} constant({1.102, -3.004e+38})
  c.8 = f32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })
  ROOT c.9 = f32[3,5]{1,0:T(2,2)} constant({ { 0, 1, 2, 3, 4 }, { 5, 6, 7, 8, 9 }, { 10, 11, 12, 13, 14 } })")),
        ("header_and_names", "HloModule jit_f.name-1, entry_computation_layout={(f32[2]{0}, (f32[], s32[]))->f32[2]{0}}\n\nENTRY main.3 {\n  Arg_0.1 = f32[2]{0} parameter(0)\n  ROOT neg.1-x = f32[2]{0} negate(Arg_0.1)\n  p.1 = (f32[], s32[]) parameter(1)\n}\n\n".to_string()),
        ("six_element_tuple", entry("  x = f32[] parameter(0)
  ROOT t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(x, x, x, x, x, x)")),
    ]
}

#[test]
fn modules_round_trip() {
    for (name, text) in round_trip_cases() {
        let module = parse_hlo_module(&text).unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let printed = module.to_string();
        assert_eq!(printed, text, "{name}");
        assert_eq!(parse_hlo_module(&printed).unwrap(), module, "{name}");
    }
}

#[test]
fn every_opcode_is_covered() {
    let mut seen = std::collections::HashSet::new();
    for (_, text) in round_trip_cases() {
        let module = parse_hlo_module(&text).unwrap();
        for c in &module.computations {
            seen.extend(c.instructions.iter().map(|i| i.opcode));
        }
    }
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|op| !seen.contains(op))
        .map(|op| op.name())
        .collect();
    assert!(missing.is_empty(), "no round-trip case uses {missing:?}");
}

/// Inputs that print differently: (what is normalized, input, output).
const NORMALIZED: &[(&str, &str, &str)] = &[
    (
        // XLA's older dumps: `%` names, signatures, operand shapes,
        // `/*index=N*/` and `//` comments.
        "old-style dump",
        "HloModule m, entry_computation_layout={(f32[],f32[2]{0})->f32[2]{0}}\n\n%add.v3 (lhs: f32[], rhs: f32[]) -> f32[] {\n  %lhs = f32[] parameter(0)\n  %rhs = f32[] parameter(1)\n  ROOT %add = f32[] add(f32[] %lhs, f32[] %rhs)\n}\n\n// the entry\nENTRY %main.1 (a: f32[], b: f32[2]) -> f32[2] {\n  %a = f32[] parameter(0)\n  %b = f32[2]{0} parameter(1)\n  %t = (f32[], f32[2]{0}) tuple(f32[] %a, /*index=1*/f32[2]{0} %b)\n  ROOT %r = f32[2]{0} all-reduce(f32[2]{0} %b), replica_groups={}, to_apply=%add.v3\n}\n\n",
        "HloModule m, entry_computation_layout={(f32[], f32[2]{0})->f32[2]{0}}\n\nadd.v3 {\n  lhs = f32[] parameter(0)\n  rhs = f32[] parameter(1)\n  ROOT add = f32[] add(lhs, rhs)\n}\n\nENTRY main.1 {\n  a = f32[] parameter(0)\n  b = f32[2]{0} parameter(1)\n  t = (f32[], f32[2]{0}) tuple(a, b)\n  ROOT r = f32[2]{0} all-reduce(b), replica_groups={}, to_apply=add.v3\n}\n\n",
    ),
    (
        // A module's donated parameters are kept, in XLA's spelling.
        "input_output_alias",
        "HloModule m, input_output_alias={{0}:(0,{},may-alias), {1}: (1, {}, must-alias)}\n\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  y = f32[2]{0} parameter(1)\n  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(y, x)\n}\n\n",
        "HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }\n\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  y = f32[2]{0} parameter(1)\n  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(y, x)\n}\n\n",
    ),
    (
        // Attributes with no meaning here are dropped; backend_config stays.
        "dropped attributes",
        "HloModule m, is_scheduled=true, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<[\"i\"=4]>}}, replica_count=1\n\nENTRY e {\n  x = f32[2]{0} parameter(0), parameter_replication={false}, sharding={replicated}, metadata={op_name=\"jit(f)/x\" source_file=\"a.py\" source_line=3}\n  d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={highest,highest}, algorithm=dot_bf16_bf16_f32\n  ROOT n = f32[] negate(d), frontend_attributes={inlineable=\"false\"}, backend_config=\"{\\\"a\\\": 1}\", control-predecessors={x}, result_accuracy={tolerance={atol=0,rtol=0,ulps=1}}, statistics_viz={}, origin={{\"n\"}}\n}\n\n",
        "HloModule m\n\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n  ROOT n = f32[] negate(d), backend_config={\"a\": 1}\n}\n\n",
    ),
    (
        // `lax.composite` (JAX 0.10.2): a call of the decomposition, marked.
        "composite call",
        "HloModule m\n\nmy.double.1 {\n  x = f32[2]{0} parameter(0)\n  ROOT a = f32[2]{0} add(x, x)\n}\n\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT c = f32[2]{0} call(x), to_apply=my.double.1, is_composite=true, frontend_attributes={composite.attributes={},composite.name=\"my.double\",composite.version=\"0\"}\n}\n\n",
        "HloModule m\n\nmy.double.1 {\n  x = f32[2]{0} parameter(0)\n  ROOT a = f32[2]{0} add(x, x)\n}\n\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT c = f32[2]{0} call(x), to_apply=my.double.1\n}\n\n",
    ),
    (
        // Defaults XLA does not print, attribute order, iota replica groups.
        "defaults and order",
        "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[4,4]{1,0} parameter(0)\n  z = f32[] constant(0)\n  sl = f32[2,4]{1,0} slice(x), slice={[0:4:2], [0:4:1]}\n  p = f32[6,4]{1,0} pad(x, z), padding=1_1_0x0_0_0\n  ar = f32[4,4]{1,0} all-reduce(x), to_apply=add, replica_groups=[2,2]<=[2,2]T(1,0), channel_id=1\n  ROOT ts = f32[4,4]{1,0} triangular-solve(x, x), lower=true, left_side=false\n}\n\n",
        "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[4,4]{1,0} parameter(0)\n  z = f32[] constant(0)\n  sl = f32[2,4]{1,0} slice(x), slice={[0:4:2], [0:4]}\n  p = f32[6,4]{1,0} pad(x, z), padding=1_1x0_0\n  ar = f32[4,4]{1,0} all-reduce(x), channel_id=1, replica_groups={{0,2},{1,3}}, to_apply=add\n  ROOT ts = f32[4,4]{1,0} triangular-solve(x, x), lower=true, transpose_a=NO_TRANSPOSE\n}\n\n",
    ),
    (
        // Without `ENTRY` the last computation is the entry; without `ROOT`
        // the last instruction is the root. Callees print first.
        "implicit entry and root, callers first",
        "HloModule m\n\nmain {\n  x = f32[] parameter(0)\n  c = f32[] call(x), to_apply=callee\n}\n\ncallee {\n  y = f32[] parameter(0)\n  ROOT n = f32[] negate(y)\n}\n\nFileNames\n1 \"a.py\"\nFunctionNames\n1 \"f\"\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}\nStackFrames\n1 {file_location_id=1 parent_frame_id=0}\n",
        "HloModule m\n\nENTRY callee {\n  y = f32[] parameter(0)\n  ROOT n = f32[] negate(y)\n}\n\nmain {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), to_apply=callee\n}\n\n",
    ),
];

#[test]
fn normalized_inputs_print_canonically() {
    for (what, input, output) in NORMALIZED {
        let module = parse_hlo_module(input).unwrap_or_else(|e| panic!("{what}:\n{e}"));
        assert_eq!(module.to_string(), *output, "{what}");
        assert_eq!(
            parse_hlo_module(output).unwrap().to_string(),
            *output,
            "{what}"
        );
    }
}

#[test]
fn parsed_structure() {
    let (_, text) = round_trip_cases()
        .into_iter()
        .find(|(n, _)| *n == "control_flow")
        .unwrap();
    let m = parse_hlo_module(&text).unwrap();
    let entry = m.entry_computation();
    let find = |name: &str| entry.instructions.iter().find(|i| i.name == name).unwrap();
    let id = |name: &str| m.find_computation(name).unwrap();
    assert_eq!(find("w.1").called, vec![id("cond"), id("body")]);
    assert_eq!(find("if.1").called, vec![id("neg"), id("id")]);
    assert_eq!(
        find("switch.1").called,
        vec![id("neg"), id("id"), id("neg")]
    );
    assert_eq!(find("w.1").operands, vec![InstrId(5)]);
    assert_eq!(m.entry, ComputationId(m.computations.len() as u32 - 1));
    assert_eq!(entry.root, InstrId(entry.instructions.len() as u32 - 1));
    let m: HloModule = entry_text_with_root_first().parse().unwrap();
    assert_eq!(m.entry_computation().root, InstrId(1));
    assert_eq!(
        m.display_instruction(m.entry, InstrId(1)).to_string(),
        "n = f32[2]{0} negate(x)"
    );
}

fn entry_text_with_root_first() -> &'static str {
    "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(x)\n  y = f32[2]{0} abs(x)\n}\n"
}

fn error(text: &str) -> String {
    parse_hlo_module(text).unwrap_err().to_string()
}

#[test]
fn errors_give_position_and_message() {
    let cases: &[(&str, &str)] = &[
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT a = f32[] add(x, %y)\n}\n",
            "4:25: unknown operand `y`: no instruction of that name is defined earlier in computation `e`\n  ROOT a = f32[] add(x, %y)\n                        ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT a = f32[] add(x x)\n}\n",
            "4:24: expected `)`, found `x)`\n  ROOT a = f32[] add(x x)\n                       ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  x = f32[] negate(x)\n}\n",
            "4:3: instruction `x` is already defined at 3:3\n  x = f32[] negate(x)\n  ^",
        ),
        (
            "HloModule m\nc {\n  ROOT x = f32[] parameter(0)\n}\nENTRY c {\n  ROOT x = f32[] parameter(0)\n}\n",
            "5:7: computation `c` is already defined at 2:1\nENTRY c {\n      ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), to_apply=missing\n}\n",
            "4:36: unknown computation `missing`\n  ROOT c = f32[] call(x), to_apply=missing\n                                   ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x, x)\n}\n",
            "4:18: `negate` takes 1 operand, found 2\n  ROOT n = f32[] negate(x, x)\n                 ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(x), dimensions={0}\n}\n",
            "4:33: `negate` has no attribute `dimensions`\n  ROOT n = f32[2]{0} negate(x), dimensions={0}\n                                ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, sparsity=L.0@2:4\n}\n",
            "4:81: `dot` has no attribute `sparsity`\n  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, sparsity=L.0@2:4\n                                                                                ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} reverse(x), dimensions={0}, dimensions={0}\n}\n",
            "4:50: attribute `dimensions` is given twice\n  ROOT b = f32[2]{0} reverse(x), dimensions={0}, dimensions={0}\n                                                 ^",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n",
            "4:3: a second ROOT in this computation (the first is at 3:3)\n  ROOT y = f32[] negate(x)\n  ^",
        ),
        (
            "HloModule m\nENTRY a {\n  ROOT x = f32[] parameter(0)\n}\nENTRY b {\n  ROOT x = f32[] parameter(0)\n}\n",
            "5:1: a second ENTRY computation (the first is at 2:1)\nENTRY b {\n^",
        ),
        (
            "HloModule m\nc {\n  ROOT p = pred[] parameter(0)\n}\nENTRY e {\n  x = pred[] parameter(0)\n  ROOT w = pred[] while(x), condition=c\n}\n",
            "7:19: `while` needs attribute `body`\n  ROOT w = pred[] while(x), condition=c\n                  ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] frobnicate(x)\n}\n",
            "4:18: unknown opcode `frobnicate`\n  ROOT y = f32[] frobnicate(x)\n                 ^",
        ),
        (
            "HloModule m, entry_layout={()->f32[]}\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n",
            "1:14: unknown module attribute `entry_layout`\nHloModule m, entry_layout={()->f32[]}\n             ^",
        ),
        (
            "HloModule m, replica_count= 0\nENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n",
            "1:29: expected a positive replica_count, found `0`\nHloModule m, replica_count= 0\n                            ^",
        ),
        (
            "HloModule m\nENTRY e {\n}\n",
            "2:7: computation `e` has no instructions\nENTRY e {\n      ^",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT c = f32[2]{0} constant({1, 2, 3})\n}\n",
            "3:36: expected `}` after the 2 elements of dimension 0 of f32[2]{0}, found `, 3})`\n  ROOT c = f32[2]{0} constant({1, 2, 3})\n                                   ^",
        ),
        (
            "ENTRY e {\n  ROOT x = f32[] parameter(0)\n}\n",
            "1:1: expected `HloModule`, found `ENTRY e {`\nENTRY e {\n^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT c = pred[2]{0} compare(x, x), direction=LESS\n}\n",
            "4:48: expected a comparison direction (EQ, NE, GE, GT, LE, LT), found `LESS`\n  ROOT c = pred[2]{0} compare(x, x), direction=LESS\n                                               ^",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0)\n",
            "4:1: expected `}` closing computation `e`, found end of input\n\n^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={bogus,default}\n}\n",
            "4:100: unknown precision `bogus` (one of default, high, highest, packed_nibble)\n  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={bogus,default}\n                                                                                                   ^",
        ),
        (
            "HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={highest}\n}\n",
            "4:99: `dot` has 2 operands but operand_precision names 1\n  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}, operand_precision={highest}\n                                                                                                  ^",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[2,3]{1,0:P(2)P(3)} parameter(0)\n}\n",
            "3:29: a layout has at most one `P(…)` item\n  ROOT x = f32[2,3]{1,0:P(2)P(3)} parameter(0)\n                            ^",
        ),
        (
            "HloModule m\nENTRY e {\n  ROOT x = f32[2,3]{1,0:S(-1)} parameter(0)\n}\n",
            "3:27: expected a memory space ≥ 0, found `-1)} parameter(0`\n  ROOT x = f32[2,3]{1,0:S(-1)} parameter(0)\n                          ^",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(error(text), *message, "\n{text}");
    }
    // Precisions are read in any case, and a dot may name none.
    for precision in ["{HIGHEST,default}", "{}", "{packed_nibble,high}"] {
        let text = format!(
            "HloModule m\nENTRY e {{\n  x = f32[2]{{0}} parameter(0)\n  ROOT d = f32[] dot(x, x), \
             lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}, operand_precision={precision}\n}}\n"
        );
        parse_hlo_module(&text).unwrap();
    }
}

/// Tuples nested deeper than the parser reads (in a shape, an operand's
/// parentheses, the entry layout or a literal) are an error, not a stack
/// overflow; 1000 levels still parse.
#[test]
fn deep_nesting_is_an_error() {
    let nest =
        |depth: usize, inner: &str| format!("{}{inner}{}", "(".repeat(depth), ")".repeat(depth));
    let shape_module = |depth: usize| {
        format!(
            "HloModule m\n\nENTRY e {{\n  ROOT p = {} parameter(0)\n}}\n",
            nest(depth, "f32[]")
        )
    };
    assert!(parse_hlo_module(&shape_module(1000)).is_ok());
    for depth in [1001, 100_000] {
        let message = parse_hlo_module(&shape_module(depth))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("tuples nested more than 1000 deep"),
            "{message}"
        );
        let operand = entry(&format!(
            "p = f32[] parameter(0)\n  ROOT r = f32[] negate({})",
            nest(depth, "p")
        ));
        assert!(error(&operand).contains("nested more than 1000"));
        let layout = format!(
            "HloModule m, entry_computation_layout={{{}->f32[]}}\n\nENTRY e {{\n  ROOT p = f32[] parameter(0)\n}}\n",
            // The outermost parentheses hold the parameter list.
            nest(depth + 1, "f32[]")
        );
        assert!(error(&layout).contains("nested more than 1000"));
        let literal = entry(&format!(
            "ROOT c = {} constant({})",
            nest(depth, "f32[]"),
            nest(depth, "f32[] 1")
        ));
        assert!(error(&literal).contains("nested more than 1000"));
    }
}
