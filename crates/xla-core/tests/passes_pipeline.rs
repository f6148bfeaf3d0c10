//! The pipeline: verification after every pass, fixed points, and whole
//! modules through `optimize`.

use crate::passes_support;

use passes_support::{canonical, parse};
use xla_core::hlo::Opcode;
use xla_core::passes::{optimize, run_pass, Changed, Looped, Pass, PipelineOptions};
use xla_core::{HloModule, Result, Shape};

/// A pass with a bug: it gives the root a wrong shape.
struct BreakRootShape;

impl Pass for BreakRootShape {
    const NAME: &'static str = "break-root-shape";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let entry = module.entry;
        let computation = module.computation_mut(entry);
        let root = computation.root;
        computation.instr_mut(root).shape = "f32[3]".parse::<Shape>().unwrap();
        Ok(Changed::Yes)
    }
}

const NEGATE: &str = "HloModule m

ENTRY e {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}";

#[test]
fn a_broken_module_names_the_pass_that_broke_it() {
    let mut module = parse(NEGATE);
    let err = run_pass(&mut BreakRootShape, &mut module, true).unwrap_err();
    assert_eq!(
        err.to_string(),
        "after break-root-shape: instruction n (negate): inferred f32[2] but the instruction says f32[3]"
    );
    // Without verification the pass's result is returned as it is.
    let mut module = parse(NEGATE);
    assert_eq!(
        run_pass(&mut BreakRootShape, &mut module, false).unwrap(),
        Changed::Yes
    );
}

#[test]
fn an_invalid_module_is_rejected_before_any_pass() {
    let mut module = parse(NEGATE);
    let root = module.entry_computation().root;
    let entry = module.entry;
    module.computation_mut(entry).instr_mut(root).opcode = Opcode::Add;
    let err = optimize(&mut module, &PipelineOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the module to optimize is invalid: instruction n: add: expected 2 operands, got 1"
    );
}

/// Changes the module `remaining` more times, then reports no change.
struct Countdown {
    remaining: usize,
    runs: usize,
}

impl Pass for Countdown {
    const NAME: &'static str = "countdown";

    fn run(&mut self, _module: &mut HloModule) -> Result<Changed> {
        self.runs += 1;
        let changed = Changed::from(self.remaining > 0);
        self.remaining = self.remaining.saturating_sub(1);
        Ok(changed)
    }
}

#[test]
fn looped_passes_stop_at_a_fixed_point_or_the_limit() {
    let mut module = parse(NEGATE);
    let mut looped = Looped::new(
        Countdown {
            remaining: 3,
            runs: 0,
        },
        10,
    );
    assert_eq!(looped.run(&mut module).unwrap(), Changed::Yes);
    assert_eq!(Looped::<Countdown>::NAME, "countdown");
    let mut looped = Looped::new(
        Countdown {
            remaining: 0,
            runs: 0,
        },
        10,
    );
    assert_eq!(looped.run(&mut module).unwrap(), Changed::No);
    let mut capped = Countdown {
        remaining: 100,
        runs: 0,
    };
    let mut looped = Looped::new(&mut capped, 4);
    assert_eq!(looped.run(&mut module).unwrap(), Changed::Yes);
    assert_eq!(capped.runs, 4);
}

impl Pass for &mut Countdown {
    const NAME: &'static str = "countdown";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        (**self).run(module)
    }
}

#[test]
fn the_entry_signature_is_recorded_before_optimizing() {
    let mut module = parse(
        "HloModule m

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  y = f32[2,3] copy(x)
  ROOT t = f32[3,2] transpose(y), dimensions={1,0}
}",
    );
    let _ = optimize(&mut module, &PipelineOptions::default()).unwrap();
    assert_eq!(
        module.to_string(),
        canonical(
            "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[3,2]{1,0}}

ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT t = f32[3,2]{1,0} bitcast(x)
}"
        )
    );
}

#[test]
fn optimizing_twice_changes_nothing_the_second_time() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hlo/custom_jvp_call.hlo"
    ))
    .unwrap();
    let mut module = parse(&text);
    assert_eq!(
        optimize(&mut module, &PipelineOptions::default()).unwrap(),
        Changed::Yes
    );
    let once = module.to_string();
    assert_eq!(
        optimize(&mut module, &PipelineOptions::default()).unwrap(),
        Changed::No
    );
    assert_eq!(module.to_string(), once);
}

#[test]
fn softmax_as_jax_prints_it() {
    // JAX's softmax keeps the reduced dimension as a size-1 dimension and
    // broadcasts through it: the reshapes and the identity broadcasts go.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/bench/softmax.hlo"
    ))
    .unwrap();
    let mut module = parse(&text);
    let _ = optimize(&mut module, &PipelineOptions::default()).unwrap();
    assert_eq!(
        module.to_string(),
        canonical(
            "HloModule jit_f, entry_computation_layout={(f32[4096,1024]{1,0})->f32[4096,1024]{1,0}}

region_0.1 {
  reduce_max.3 = f32[] parameter(0)
  reduce_max.4 = f32[] parameter(1)
  ROOT reduce_max.5 = f32[] maximum(reduce_max.3, reduce_max.4)
}

region_1.2 {
  reduce_sum.3 = f32[] parameter(0)
  reduce_sum.4 = f32[] parameter(1)
  ROOT reduce_sum.5 = f32[] add(reduce_sum.3, reduce_sum.4)
}

ENTRY main.3 {
  x.1 = f32[4096,1024]{1,0} parameter(0)
  constant.3 = f32[] constant(-inf)
  reduce_max.7 = f32[4096]{0} reduce(x.1, constant.3), dimensions={1}, to_apply=region_0.1
  sub.6 = f32[4096,1024]{1,0} broadcast(reduce_max.7), dimensions={0}
  sub.7 = f32[4096,1024]{1,0} subtract(x.1, sub.6)
  exp.1 = f32[4096,1024]{1,0} exponential(sub.7)
  constant.2 = f32[] constant(0)
  reduce_sum.7 = f32[4096]{0} reduce(exp.1, constant.2), dimensions={1}, to_apply=region_1.2
  div.6 = f32[4096,1024]{1,0} broadcast(reduce_sum.7), dimensions={0}
  ROOT div.7 = f32[4096,1024]{1,0} divide(exp.1, div.6)
}"
        )
    );
}

#[test]
fn calls_are_inlined_and_their_common_parts_merged() {
    let mut module = parse(
        "HloModule m

relu {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  zb = f32[4] broadcast(z), dimensions={}
  ROOT m = f32[4] maximum(a, zb)
}

softplus_ish {
  b = f32[4] parameter(0)
  z2 = f32[] constant(0)
  zb2 = f32[4] broadcast(z2), dimensions={}
  m2 = f32[4] maximum(b, zb2)
  e = f32[4] exponential(b)
  ROOT s = f32[4] add(m2, e)
}

ENTRY main {
  x = f32[4] parameter(0)
  r = f32[4] call(x), to_apply=relu
  p = f32[4] call(x), to_apply=softplus_ish
  ROOT t = f32[4] add(r, p)
}",
    );
    let _ = optimize(&mut module, &PipelineOptions::default()).unwrap();
    assert_eq!(
        module.to_string(),
        canonical(
            "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  x = f32[4]{0} parameter(0)
  z.1 = f32[] constant(0)
  zb.1 = f32[4]{0} broadcast(z.1), dimensions={}
  m.1 = f32[4]{0} maximum(x, zb.1)
  e.1 = f32[4]{0} exponential(x)
  s.1 = f32[4]{0} add(m.1, e.1)
  ROOT t = f32[4]{0} add(m.1, s.1)
}"
        )
    );
}
