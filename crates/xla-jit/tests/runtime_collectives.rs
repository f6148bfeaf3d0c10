//! Multi-device runs on the JIT ([`Executable::execute_devices`]): every
//! collective a step of the program, each device's result bit for bit the
//! reference interpreter's (`run_partitioned`), over reducers and element
//! types, group modes, layouts, loops, sizes that do not split evenly
//! between the devices; and failures that stop every device with an
//! error instead of a hang.

use std::time::{Duration, Instant};

use xla_core::interp::{DeviceAssignment, Interpreter};
use xla_core::{CancelToken, HloModule, Literal, Shape};
use xla_jit::collectives::InProcess;
use xla_jit::{Client, Executable, ExecuteOptions, JitError};
use xla_testkit::random::random_literal;

fn compile(text: &str) -> (HloModule, Executable) {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let executable = Client::cpu().unwrap().compile(&module).unwrap();
    (module, executable)
}

/// Random arguments of the entry's parameter shapes for every device.
fn arguments(module: &HloModule, devices: usize, seed: u64) -> Vec<Vec<Literal>> {
    let params = module.entry_program_shape().parameters;
    let mut seed = seed;
    (0..devices)
        .map(|_| {
            params
                .iter()
                .map(|p: &Shape| random_literal(p, &mut seed))
                .collect()
        })
        .collect()
}

/// Runs `text` on `assignment` on the JIT (twice: the second run reuses
/// the first's buffers) and on the interpreter, and compares every
/// device's result bit for bit; returns the JIT's results.
fn check(text: &str, assignment: DeviceAssignment) -> Vec<Literal> {
    let (module, executable) = compile(text);
    assert!(
        executable.fallback_ops().is_empty(),
        "interpreted: {:?}",
        executable.fallback_ops()
    );
    let args = arguments(&module, assignment.device_count(), 7);
    let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
    let expected = Interpreter::new()
        .run_partitioned(&module, args.clone(), assignment)
        .unwrap();
    let mut last = Vec::new();
    for _ in 0..2 {
        last = executable
            .execute_devices(&refs, assignment, &ExecuteOptions::default())
            .unwrap();
        for (d, (got, want)) in last.iter().zip(&expected).enumerate() {
            assert!(
                same_bits(got, want),
                "device {d}:\n{got}\ninterpreter:\n{want}\n{text}"
            );
        }
    }
    last
}

/// Equal shapes (ignoring layouts) and equal row-major bits.
fn same_bits(a: &Literal, b: &Literal) -> bool {
    match (a.tuple_elements(), b.tuple_elements()) {
        (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_bits(a, b)),
        (None, None) => {
            let row_major = |l: &Literal| {
                let layout = l.shape().clone().with_row_major_layouts();
                l.relayout(&layout.as_array().unwrap().layout_or_default())
                    .unwrap()
            };
            a.shape().eq_ignoring_layout(b.shape())
                && row_major(a).bytes().unwrap() == row_major(b).bytes().unwrap()
        }
        _ => false,
    }
}

/// A module of `replicas` replicas whose entry applies `body` (HLO text
/// reading `x`, the parameter of `param`) with a reducer `red` of `op`
/// on `ty`.
fn module(header: &str, ty: &str, op: &str, param: &str, body: &str) -> String {
    format!(
        "HloModule m{header}\n\n\
         red {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {op}(a, b)\n}}\n\n\
         ENTRY e {{\n  x = {param} parameter(0)\n  {body}\n}}\n"
    )
}

fn replicas(n: usize) -> DeviceAssignment {
    DeviceAssignment::new(n, 1)
}

#[test]
fn all_reduce_every_reducer_and_element_type() {
    let cases = [
        ("f32", "add"),
        ("f32", "maximum"),
        ("f32", "minimum"),
        ("f32", "multiply"),
        ("f64", "add"),
        ("bf16", "add"),
        ("f16", "maximum"),
        ("s32", "add"),
        ("s8", "multiply"),
        ("u16", "minimum"),
        ("s64", "maximum"),
        ("u8", "and"),
        ("s32", "or"),
        ("u32", "xor"),
        ("pred", "and"),
        ("pred", "or"),
        ("c64", "add"),
        ("c128", "multiply"),
    ];
    for (ty, op) in cases {
        let text = module(
            ", replica_count=3",
            ty,
            op,
            &format!("{ty}[5,7]"),
            &format!("ROOT y = {ty}[5,7] all-reduce(x), to_apply=red"),
        );
        check(&text, replicas(3));
    }
}

/// Sizes around the devices' shares and the combining block: elements
/// that do not split evenly, fewer elements than devices, none, and a
/// buffer of several combining blocks per share.
#[test]
fn all_reduce_shares_of_any_size() {
    for n in [0, 1, 2, 3, 5, 4099, 70_001] {
        for devices in [2, 3, 4] {
            let text = module(
                &format!(", replica_count={devices}"),
                "f32",
                "add",
                &format!("f32[{n}]"),
                &format!("ROOT y = f32[{n}] all-reduce(x), to_apply=red"),
            );
            check(&text, replicas(devices));
        }
    }
}

/// A sum over devices is the same on every device, in group order: with
/// values whose sum depends on the order, every device agrees bit for bit.
#[test]
fn all_reduce_is_the_same_on_every_device() {
    let text = module(
        ", replica_count=4",
        "f32",
        "add",
        "f32[100000]",
        "ROOT y = f32[100000] all-reduce(x), to_apply=red",
    );
    let results = check(&text, replicas(4));
    for r in &results[1..] {
        assert_eq!(r, &results[0]);
    }
}

#[test]
fn all_reduce_of_several_operands_and_groups() {
    let text = "HloModule m, replica_count=4\n\n\
        add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }\n\n\
        ENTRY e {\n  x = f32[3,4] parameter(0)\n  y = f32[6] parameter(1)\n  \
        ROOT t = (f32[3,4], f32[6]) all-reduce(x, y), replica_groups={{0,2},{3,1}}, to_apply=add\n}\n";
    check(text, replicas(4));
}

/// The group modes: replicas of a partition, partitions of a replica
/// (a channel), replicas × partitions, and flattened ids.
#[test]
fn group_modes_over_replicas_and_partitions() {
    let add =
        "add { a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[] add(a, b) }";
    let header = "HloModule m, replica_count=2, num_partitions=2";
    for attrs in [
        "replica_groups={}",
        "channel_id=1, replica_groups={{0,1}}",
        "channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true",
        "channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true",
    ] {
        let text = format!(
            "{header}\n\n{add}\n\nENTRY e {{\n  x = s32[4] parameter(0)\n  \
             ROOT y = s32[4] all-reduce(x), {attrs}, to_apply=add\n}}\n"
        );
        check(&text, DeviceAssignment::new(2, 2));
    }
    let ids = "HloModule m, replica_count=2, num_partitions=3\n\nENTRY e {\n  \
        r = u32[] replica-id()\n  p = u32[] partition-id()\n  ROOT t = (u32[], u32[]) tuple(r, p)\n}\n";
    let results = check(ids, DeviceAssignment::new(2, 3));
    for (d, result) in results.iter().enumerate() {
        let parts = result.tuple_elements().unwrap();
        assert_eq!(parts[0].to_vec::<u32>().unwrap(), [d as u32 / 3]);
        assert_eq!(parts[1].to_vec::<u32>().unwrap(), [d as u32 % 3]);
    }
}

#[test]
fn gathers_scatters_and_exchanges() {
    let add =
        "add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }";
    let entries = [
        "x = f32[2,3] parameter(0)\n  ROOT y = f32[8,3] all-gather(x), dimensions={0}",
        "x = f32[2,3] parameter(0)\n  ROOT y = f32[2,12] all-gather(x), dimensions={1}",
        "x = f32[2,3] parameter(0)\n  ROOT y = f32[4,3] all-gather(x), replica_groups={{0,1},{2,3}}, dimensions={0}",
        "x = f32[4,8,2] parameter(0)\n  ROOT y = f32[4,2,2] reduce-scatter(x), dimensions={1}, to_apply=add",
        "x = f32[8,3] parameter(0)\n  ROOT y = f32[2,3] reduce-scatter(x), dimensions={0}, to_apply=add",
        "x = f32[8,3] parameter(0)\n  ROOT y = f32[8,3] all-to-all(x), dimensions={0}",
        "x = f32[3,8,2] parameter(0)\n  ROOT y = f32[3,8,2] all-to-all(x), dimensions={1}",
        "x = f32[2,2] parameter(0)\n  c = f32[2,2] negate(x)\n  d = f32[2,2] abs(x)\n  e = f32[2,2] exponential(x)\n  \
         ROOT y = (f32[2,2], f32[2,2], f32[2,2], f32[2,2]) all-to-all(x, c, d, e)",
        "x = f32[5] parameter(0)\n  ROOT y = f32[5] collective-permute(x), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}",
        "x = f32[5] parameter(0)\n  ROOT y = f32[5] collective-permute(x), source_target_pairs={{0,2},{1,0}}",
    ];
    for entry in entries {
        let text = format!("HloModule m, replica_count=4\n\n{add}\n\nENTRY e {{\n  {entry}\n}}\n");
        check(&text, replicas(4));
    }
}

/// Operands and results in other layouts than row-major are relaid into
/// and out of the step.
#[test]
fn operands_in_other_layouts() {
    let add =
        "add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }";
    for entry in [
        "x = f32[4,6]{0,1} parameter(0)\n  ROOT y = f32[4,6]{0,1} all-reduce(x), to_apply=add",
        "x = f32[4,6]{0,1} parameter(0)\n  ROOT y = f32[8,6]{0,1} all-gather(x), dimensions={0}",
        "x = f32[4,6]{0,1} parameter(0)\n  ROOT y = f32[4,3]{1,0} reduce-scatter(x), dimensions={1}, to_apply=add",
    ] {
        let text = format!("HloModule m, replica_count=2\n\n{add}\n\nENTRY e {{\n  {entry}\n}}\n");
        check(&text, replicas(2));
    }
}

/// A collective in a loop meets once per iteration: each device counts
/// its calls at the step, so the n-th iterations meet.
#[test]
fn collectives_in_a_loop() {
    let text = "HloModule m, replica_count=3\n\n\
        add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }\n\n\
        cond { s = (s32[], f32[16]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
        n = s32[] constant(5)\n  ROOT c = pred[] compare(i, n), direction=LT }\n\n\
        body { s = (s32[], f32[16]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  \
        v = f32[16] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  \
        h = f32[] constant(0.5)\n  hb = f32[16] broadcast(h), dimensions={}\n  w = f32[16] multiply(v, hb)\n  \
        r = f32[16] all-reduce(w), to_apply=add\n  \
        p = f32[16] collective-permute(r), source_target_pairs={{0,1},{1,2},{2,0}}\n  \
        ROOT t = (s32[], f32[16]) tuple(j, p) }\n\n\
        ENTRY e {\n  x = f32[16] parameter(0)\n  z = s32[] constant(0)\n  s = (s32[], f32[16]) tuple(z, x)\n  \
        w = (s32[], f32[16]) while(s), condition=cond, body=body\n  ROOT v = f32[16] get-tuple-element(w), index=1\n}\n";
    check(text, replicas(3));
}

/// A reducer that is not one binary op runs on the interpreter fallback,
/// which reaches one device: a run on several is refused, naming it.
#[test]
fn a_collective_the_jit_cannot_run_is_refused_on_several_devices() {
    let text = "HloModule m, replica_count=2\n\n\
        red { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  s = f32[] add(a, b)\n  \
        ROOT r = f32[] multiply(s, s) }\n\n\
        ENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] all-reduce(x), to_apply=red\n}\n";
    let (module, executable) = compile(text);
    let args = arguments(&module, 2, 1);
    let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
    let error = executable
        .execute_devices(&refs, replicas(2), &ExecuteOptions::default())
        .unwrap_err();
    assert!(
        matches!(&error, JitError::NotOnDevices { instruction, .. } if instruction == "y"),
        "{error}"
    );
    let error = executable
        .execute_devices(&refs[..1], replicas(2), &ExecuteOptions::default())
        .unwrap_err();
    assert!(
        matches!(
            error,
            JitError::DeviceCount {
                expected: 2,
                actual: 1
            }
        ),
        "{error}"
    );
    // Devices outside the communicator's run, or twice, are refused.
    let communicator = InProcess::new(replicas(2), Duration::from_secs(1));
    for devices in [[0, 2], [1, 1]] {
        let error = executable
            .execute_local(&refs, &devices, &*communicator, &ExecuteOptions::default())
            .unwrap_err();
        assert!(matches!(error, JitError::InvalidConfig(_)), "{error}");
    }
}

/// A device that stops (here: cancelled in a loop only it runs) stops the
/// others waiting for it at a collective at once, with the first
/// device's error; devices at different collectives are a deadlock,
/// reported at once, not after the timeout.
#[test]
fn failures_stop_every_device() {
    let looping = "HloModule m, replica_count=2\n\n\
        add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }\n\n\
        cond { s = u32[] parameter(0)\n  r = u32[] replica-id()\n  one = u32[] constant(1)\n  \
        ROOT c = pred[] compare(r, one), direction=EQ }\n\n\
        body { s = u32[] parameter(0)\n  one = u32[] constant(1)\n  ROOT n = u32[] add(s, one) }\n\n\
        ENTRY e {\n  x = f32[4] parameter(0)\n  z = u32[] constant(0)\n  \
        w = u32[] while(z), condition=cond, body=body\n  \
        y = f32[4] all-reduce(x), to_apply=add\n  ROOT t = (f32[4], u32[]) tuple(y, w)\n}\n";
    let (module, executable) = compile(looping);
    let args = arguments(&module, 2, 3);
    let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
    let options = ExecuteOptions {
        cancel: CancelToken::with_timeout(Duration::from_millis(200)),
        ..ExecuteOptions::default()
    };
    let started = Instant::now();
    let error = executable
        .execute_devices(&refs, replicas(2), &options)
        .unwrap_err();
    assert!(matches!(error, JitError::Stopped(_)), "{error}");
    assert!(started.elapsed() < Duration::from_secs(30));

    let deadlock = "HloModule m, replica_count=2\n\n\
        add { a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b) }\n\n\
        one { x1 = f32[4] parameter(0)\n  ROOT y1 = f32[4] all-reduce(x1), to_apply=add }\n\n\
        two { x2 = f32[4] parameter(0)\n  ROOT y2 = f32[4] all-gather(x2), replica_groups={{0},{1}}, dimensions={0} }\n\n\
        ENTRY e {\n  x = f32[4] parameter(0)\n  r = u32[] replica-id()\n  zero = u32[] constant(0)\n  \
        p = pred[] compare(r, zero), direction=EQ\n  \
        c = f32[4] conditional(p, x, x), true_computation=one, false_computation=two\n  \
        ROOT y = f32[4] all-reduce(c), to_apply=add\n}\n";
    let (module, executable) = compile(deadlock);
    let args = arguments(&module, 2, 4);
    let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
    let options = ExecuteOptions {
        collective_timeout: Some(Duration::from_secs(600)),
        ..ExecuteOptions::default()
    };
    let started = Instant::now();
    let error = executable
        .execute_devices(&refs, replicas(2), &options)
        .unwrap_err();
    assert!(
        error.to_string().contains("deadlock") || error.to_string().contains("finished"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// The data-parallel training step JAX writes (`tests/collectives/`: one
/// SGD step of an MLP under `shard_map`, each device on its slice of the
/// batch, gradients averaged by an all-reduce) on 1, 2 and 4 devices:
/// every device ends with the parameters and loss XLA:CPU computes for
/// that device count, and the device counts agree up to the order of the
/// reduction.
#[test]
fn data_parallel_training_step_on_1_2_and_4_devices() {
    use xla_core::PrimitiveType::{F32, S32};
    use xla_testkit::case::read_array;
    use xla_testkit::compare::Rule;

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/collectives");
    let read = |name: &str, ty| read_array(&dir.join(name), ty).unwrap();
    let params: Vec<Literal> = ["w1", "b1", "w2", "b2"]
        .iter()
        .map(|n| read(&format!("small_{n}.npy"), F32))
        .collect();
    let x = read("small_x.npy", F32).to_vec::<f32>().unwrap();
    let y = read("small_y.npy", S32).to_vec::<i32>().unwrap();
    let (batch, features) = (y.len(), x.len() / y.len());
    let close = Rule {
        exact: false,
        atol: 1e-6,
        rtol: 1e-5,
        ulp: None,
        nan_bits: false,
    };
    let mut losses = Vec::new();
    for n in [1usize, 2, 4] {
        let text = std::fs::read_to_string(dir.join(format!("dp_mlp_small_{n}.hlo"))).unwrap();
        let module = xla_core::spmd::per_device(text.parse().unwrap())
            .unwrap()
            .module;
        let executable = Client::cpu().unwrap().compile(&module).unwrap();
        assert!(executable.fallback_ops().is_empty());
        let rows = batch / n;
        let args: Vec<Vec<Literal>> = (0..n)
            .map(|d| {
                let mut args = params.clone();
                let xs = x[d * rows * features..(d + 1) * rows * features].to_vec();
                args.push(Literal::from_vec(&[rows as i64, features as i64], xs).unwrap());
                let ys = y[d * rows..(d + 1) * rows].to_vec();
                args.push(Literal::from_vec(&[rows as i64], ys).unwrap());
                args
            })
            .collect();
        let refs: Vec<Vec<&Literal>> = args.iter().map(|a| a.iter().collect()).collect();
        let results = executable
            .execute_devices(
                &refs,
                DeviceAssignment::new(1, n),
                &ExecuteOptions::default(),
            )
            .unwrap();
        for (d, result) in results.iter().enumerate() {
            assert_eq!(
                result, &results[0],
                "device {d} of {n} differs from device 0"
            );
        }
        let outs = results[0].tuple_elements().unwrap();
        for (j, out) in outs[..4].iter().enumerate() {
            let want = read(&format!("small_out{j}_{n}.npy"), F32);
            close
                .compare(out, &want, &[])
                .unwrap_or_else(|e| panic!("parameter {j} on {n} devices: {e}"));
        }
        let want = read(&format!("small_loss_{n}.npy"), F32);
        close
            .compare(&outs[4], &want, &[])
            .unwrap_or_else(|e| panic!("loss on {n} devices: {e}"));
        losses.push(outs[4].to_vec::<f32>().unwrap()[0]);
    }
    for loss in &losses[1..] {
        assert!(
            (loss - losses[0]).abs() <= 1e-6 * losses[0].abs(),
            "{losses:?}"
        );
    }
}
