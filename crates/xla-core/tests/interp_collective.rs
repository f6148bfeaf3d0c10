//! Collectives on several devices (`docs/semantics.md`, *Collectives*): every worked
//! example, XLA's group modes, and runs that fail instead of hanging.

use std::time::Duration;

use xla_core::interp::{DeviceAssignment, Interpreter, RunOptions};
use xla_core::{HloModule, Literal, Shape};

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A module whose entry takes `f32[n]` and applies `op` (one instruction
/// named `r` whose operand is `x`), with the `sum` computation available.
fn collective(param: &str, result: &str, op: &str) -> HloModule {
    module(&format!(
        "HloModule m\n\nsum {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         ROOT c = f32[] add(a, b)\n}}\n\nENTRY e {{\n  x = {param} parameter(0)\n  \
         ROOT r = {result} {op}\n}}\n"
    ))
}

fn vectors(values: &[&[f32]]) -> Vec<Vec<Literal>> {
    values.iter().map(|v| vec![Literal::vector(v)]).collect()
}

fn run(m: &HloModule, args: Vec<Vec<Literal>>, replicas: usize, partitions: usize) -> Vec<Literal> {
    Interpreter::new()
        .run_partitioned(m, args, DeviceAssignment::new(replicas, partitions))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn run_err(m: &HloModule, args: Vec<Vec<Literal>>, replicas: usize, partitions: usize) -> String {
    Interpreter::new()
        .run_partitioned(m, args, DeviceAssignment::new(replicas, partitions))
        .unwrap_err()
        .to_string()
}

fn f32s(results: &[Literal]) -> Vec<Vec<f32>> {
    results.iter().map(|r| r.to_vec::<f32>().unwrap()).collect()
}

/// `docs/semantics.md`, *All-reduce and all-gather*: AllGather of `[1.0, 2.5]` and `[3.0, 5.25]`.
#[test]
fn all_gather_two_replicas() {
    let m = collective(
        "f32[2]",
        "f32[4]",
        "all-gather(x), dimensions={0}, replica_groups={}",
    );
    let out = run(&m, vectors(&[&[1.0, 2.5], &[3.0, 5.25]]), 2, 1);
    assert_eq!(f32s(&out), [[1.0, 2.5, 3.0, 5.25], [1.0, 2.5, 3.0, 5.25]]);
}

/// `docs/semantics.md`, *All-reduce and all-gather*: groups `{{0,2},{1,3}}` of 4 replicas.
#[test]
fn all_gather_groups() {
    let m = collective(
        "f32[1]",
        "f32[2]",
        "all-gather(x), dimensions={0}, replica_groups={{0,2},{1,3}}",
    );
    let out = run(&m, vectors(&[&[1.0], &[2.0], &[3.0], &[4.0]]), 4, 1);
    assert_eq!(f32s(&out), [[1.0, 3.0], [2.0, 4.0], [1.0, 3.0], [2.0, 4.0]]);
}

/// The group order, not the device order, decides the concatenation.
#[test]
fn all_gather_group_order_and_dimension() {
    let m = collective(
        "f32[2,1]",
        "f32[2,2]",
        "all-gather(x), dimensions={1}, replica_groups={{1,0}}",
    );
    let args = vec![
        vec![Literal::matrix(&[[1.0f32], [2.0]])],
        vec![Literal::matrix(&[[3.0f32], [4.0]])],
    ];
    let out = run(&m, args, 2, 1);
    assert_eq!(f32s(&out), [[3.0, 1.0, 4.0, 2.0], [3.0, 1.0, 4.0, 2.0]]);
}

/// `docs/semantics.md`, *All-to-all* with the HLO array form (`dimensions={d}` splits and
/// concatenates along `d`): 2 replicas split `[[1,2],[3,4]]` and `[[5,6],[7,8]]` along 0.
#[test]
fn all_to_all_array_form() {
    let m = collective(
        "f32[2,2]",
        "f32[2,2]",
        "all-to-all(x), dimensions={0}, replica_groups={}",
    );
    let args = vec![
        vec![Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]])],
        vec![Literal::matrix(&[[5.0f32, 6.0], [7.0, 8.0]])],
    ];
    let out = run(&m, args, 2, 1);
    assert_eq!(f32s(&out), [[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]);
    let m = collective(
        "f32[2,2]",
        "f32[2,2]",
        "all-to-all(x), dimensions={1}, replica_groups={}",
    );
    let args = vec![
        vec![Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]])],
        vec![Literal::matrix(&[[5.0f32, 6.0], [7.0, 8.0]])],
    ];
    let out = run(&m, args, 2, 1);
    assert_eq!(f32s(&out), [[1.0, 5.0, 3.0, 7.0], [2.0, 6.0, 4.0, 8.0]]);
}

/// `docs/semantics.md`, *All-to-all*: groups `{{1,2,3},{4,5,0}}` run separate all-to-alls in their
/// own orders.
#[test]
fn all_to_all_groups() {
    let m = collective(
        "f32[3]",
        "f32[3]",
        "all-to-all(x), dimensions={0}, replica_groups={{1,2,3},{4,5,0}}",
    );
    let args: Vec<Vec<Literal>> = (0..6)
        .map(|r| {
            let base = 10.0 * r as f32;
            vec![Literal::vector(&[base, base + 1.0, base + 2.0])]
        })
        .collect();
    let out = run(&m, args, 6, 1);
    // Replica 1 (position 0 of {1,2,3}) receives block 0 of 1, 2, 3.
    assert_eq!(out[1].to_vec::<f32>().unwrap(), [10.0, 20.0, 30.0]);
    assert_eq!(out[3].to_vec::<f32>().unwrap(), [12.0, 22.0, 32.0]);
    // Replica 0 is position 2 of {4,5,0}: block 2 of 4, 5, 0.
    assert_eq!(out[0].to_vec::<f32>().unwrap(), [42.0, 52.0, 2.0]);
    assert_eq!(out[4].to_vec::<f32>().unwrap(), [40.0, 50.0, 0.0]);
}

/// The tuple form: operand `i` goes to member `i`.
#[test]
fn all_to_all_tuple_form() {
    let m = module(
        "HloModule m\n\nENTRY e {\n  x = f32[1] parameter(0)\n  y = f32[1] parameter(1)\n  \
         ROOT r = (f32[1], f32[1]) all-to-all(x, y), replica_groups={}\n}\n",
    );
    let args = vec![
        vec![Literal::vector(&[1.0f32]), Literal::vector(&[2.0f32])],
        vec![Literal::vector(&[3.0f32]), Literal::vector(&[4.0f32])],
    ];
    let out = run(&m, args, 2, 1);
    let elements = |l: &Literal| f32s(l.tuple_elements().unwrap());
    assert_eq!(elements(&out[0]), [[1.0], [3.0]]);
    assert_eq!(elements(&out[1]), [[2.0], [4.0]]);
}

/// `docs/semantics.md`, *Collective-permute*: pairs `{(0,1), (1,2)}`; replica 0 is no target and
/// gets zeros.
#[test]
fn collective_permute() {
    let m = collective(
        "f32[2]",
        "f32[2]",
        "collective-permute(x), source_target_pairs={{0,1},{1,2}}",
    );
    let out = run(&m, vectors(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 6.0]]), 3, 1);
    assert_eq!(f32s(&out), [[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]);
}

/// `docs/semantics.md`, *All-reduce and all-gather*: one replica makes every collective the
/// identity (or zeros for a permute whose pairs do not target replica 0).
#[test]
fn single_replica_identities() {
    let one = vectors(&[&[1.5, -2.0]]);
    for op in [
        "all-gather(x), dimensions={0}, replica_groups={}",
        "all-to-all(x), dimensions={0}, replica_groups={}",
        "collective-permute(x), source_target_pairs={{0,0}}",
    ] {
        let m = collective("f32[2]", "f32[2]", op);
        assert_eq!(f32s(&run(&m, one.clone(), 1, 1)), [[1.5, -2.0]], "{op}");
        let single = Interpreter::new().run(&m, &[&one[0][0]]).unwrap();
        assert_eq!(single.to_vec::<f32>().unwrap(), [1.5, -2.0], "{op}");
    }
    let m = collective(
        "f32[2]",
        "f32[2]",
        "collective-permute(x), source_target_pairs={}",
    );
    assert_eq!(f32s(&run(&m, one, 1, 1)), [[0.0, 0.0]]);
}

#[test]
fn replica_and_partition_ids() {
    let m = module(
        "HloModule m\n\nENTRY e {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  \
         ROOT t = (u32[], u32[]) tuple(r, p)\n}\n",
    );
    let out = run(&m, vec![vec![]; 6], 2, 3);
    let ids: Vec<(u32, u32)> = out
        .iter()
        .map(|t| {
            let e = t.tuple_elements().unwrap();
            (e[0].get(&[]).unwrap(), e[1].get(&[]).unwrap())
        })
        .collect();
    assert_eq!(ids, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
}

/// An all-reduce of `d + 1` on device `d` of 2 replicas × 2 partitions
/// with `f(a, b) = 10·a + b`: the result's digits are the group's devices
/// (plus one) in group order.
fn group_digits(options: &str) -> Vec<i32> {
    let m = module(&format!(
        "HloModule m\n\ndigits {{\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  \
         ten = s32[] constant(10)\n  t = s32[] multiply(a, ten)\n  ROOT r = s32[] add(t, b)\n}}\n\n\
         ENTRY e {{\n  x = s32[] parameter(0)\n  \
         ROOT r = s32[] all-reduce(x), {options}, to_apply=digits\n}}\n"
    ));
    let args = (1..=4).map(|v| vec![Literal::scalar(v)]).collect();
    run(&m, args, 2, 2)
        .iter()
        .map(|l| l.get(&[]).unwrap())
        .collect()
}

#[test]
fn group_modes() {
    // No channel: replica ids, the replicas of this partition.
    assert_eq!(group_digits("replica_groups={}"), [13, 24, 13, 24]);
    assert_eq!(group_digits("replica_groups={{1,0}}"), [31, 42, 31, 42]);
    // A channel without global ids: those replicas × every partition,
    // replica-major.
    assert_eq!(group_digits("channel_id=1, replica_groups={}"), [1234; 4]);
    assert_eq!(
        group_digits("channel_id=1, replica_groups={{1,0}}"),
        [3412; 4]
    );
    // Global ids: flattened ids r·P + p.
    assert_eq!(
        group_digits("channel_id=1, replica_groups={{0,3},{2,1}}, use_global_device_ids=true"),
        [14, 32, 32, 14]
    );
    // All-to-all and collective-permute with a channel: partition ids, the
    // partitions of this replica.
    let m = collective(
        "f32[2]",
        "f32[2]",
        "all-to-all(x), channel_id=1, dimensions={0}, replica_groups={}",
    );
    let out = run(
        &m,
        vectors(&[&[0.0, 0.5], &[1.0, 1.5], &[2.0, 2.5], &[3.0, 3.5]]),
        2,
        2,
    );
    assert_eq!(f32s(&out), [[0.0, 1.0], [0.5, 1.5], [2.0, 3.0], [2.5, 3.5]]);
    let m = collective(
        "f32[1]",
        "f32[1]",
        "collective-permute(x), channel_id=1, source_target_pairs={{0,1}}",
    );
    let out = run(&m, vectors(&[&[0.0], &[1.0], &[2.0], &[3.0]]), 2, 2);
    assert_eq!(f32s(&out), [[0.0], [0.0], [0.0], [2.0]]);
    let m = collective(
        "f32[1]",
        "f32[1]",
        "collective-permute(x), source_target_pairs={{0,1}}",
    );
    let out = run(&m, vectors(&[&[5.0], &[6.0], &[7.0], &[8.0]]), 2, 2);
    assert_eq!(f32s(&out), [[0.0], [0.0], [5.0], [6.0]]);
}

/// `docs/semantics.md`, *All-reduce and all-gather*: AllReduce with add (CrossReplicaSum) of
/// `[1.0, 2.5]` and `[3.0, 5.25]`.
#[test]
fn all_reduce_two_replicas() {
    let m = collective(
        "f32[2]",
        "f32[2]",
        "all-reduce(x), replica_groups={}, to_apply=sum",
    );
    let out = run(&m, vectors(&[&[1.0, 2.5], &[3.0, 5.25]]), 2, 1);
    assert_eq!(f32s(&out), [[4.0, 7.75], [4.0, 7.75]]);
}

/// `docs/semantics.md`, *All-reduce and all-gather*: groups `{{0,2},{1,3}}` of 4 replicas.
#[test]
fn all_reduce_groups() {
    let m = collective(
        "f32[1]",
        "f32[1]",
        "all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=sum",
    );
    let out = run(&m, vectors(&[&[1.0], &[2.0], &[3.0], &[4.0]]), 4, 1);
    assert_eq!(f32s(&out), [[4.0], [6.0], [4.0], [6.0]]);
}

/// A tuple operand reduces each element; the association order is the
/// group order, `f(f(x₀, x₁), x₂)`, visible with a non-commutative `f`.
#[test]
fn all_reduce_tuple_and_order() {
    let m = module(
        "HloModule m\n\nminus {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         ROOT c = f32[] subtract(a, b)\n}\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
         y = f32[] parameter(1)\n  \
         ROOT r = (f32[2], f32[]) all-reduce(x, y), replica_groups={{2,0,1}}, to_apply=minus\n}\n",
    );
    let args = (0..3)
        .map(|r| {
            let v = 10f32.powi(r);
            vec![Literal::vector(&[v, -v]), Literal::scalar(v)]
        })
        .collect();
    let out = run(&m, args, 3, 1);
    for device in &out {
        let t = device.tuple_elements().unwrap();
        // (100 − 1) − 10 and (−100 + 1) + 10.
        assert_eq!(t[0].to_vec::<f32>().unwrap(), [89.0, -89.0]);
        assert_eq!(t[1].get::<f32>(&[]).unwrap(), 89.0);
    }
}

/// `docs/semantics.md`, *Reduce-scatter*: `[1.0, 2.25]` and `[3.0, 5.25]` summed, then split.
#[test]
fn reduce_scatter() {
    let m = collective(
        "f32[2]",
        "f32[1]",
        "reduce-scatter(x), dimensions={0}, replica_groups={}, to_apply=sum",
    );
    let out = run(&m, vectors(&[&[1.0, 2.25], &[3.0, 5.25]]), 2, 1);
    assert_eq!(f32s(&out), [[4.0], [7.5]]);
    // Group order decides who keeps which block.
    let m = collective(
        "f32[4]",
        "f32[2]",
        "reduce-scatter(x), dimensions={0}, replica_groups={{1,0}}, to_apply=sum",
    );
    let out = run(
        &m,
        vectors(&[&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]]),
        2,
        1,
    );
    assert_eq!(f32s(&out), [[33.0, 44.0], [11.0, 22.0]]);
}

/// The client AllToAll of `docs/semantics.md`, *All-to-all*, with different split and concat
/// dimensions, as XLA's builder lowers it: reshape the split dimension into a major
/// dimension, all-to-all along it, then move the received blocks into the
/// concat dimension.
#[test]
fn all_to_all_split_and_concat() {
    let two = vec![
        vec![Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]])],
        vec![Literal::matrix(&[[5.0f32, 6.0], [7.0, 8.0]])],
    ];
    // split 1, concat 0: [2,2] → [2,1,2]ᵀ = [2(block),2,1] → exchange → [4,1].
    let m = module(
        "HloModule m\n\nENTRY e {\n  x = f32[2,2] parameter(0)\n  \
         r = f32[2,2,1] reshape(x)\n  t = f32[2,2,1] transpose(r), dimensions={1,0,2}\n  \
         a = f32[2,2,1] all-to-all(t), dimensions={0}, replica_groups={}\n  \
         ROOT y = f32[4,1] reshape(a)\n}\n",
    );
    let out = run(&m, two.clone(), 2, 1);
    assert_eq!(f32s(&out), [[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]]);
    // split 0, concat 1: [2,2] → [2(block),1,2] → exchange → [1,4].
    let m = module(
        "HloModule m\n\nENTRY e {\n  x = f32[2,2] parameter(0)\n  \
         r = f32[2,1,2] reshape(x)\n  \
         a = f32[2,1,2] all-to-all(r), dimensions={0}, replica_groups={}\n  \
         t = f32[1,2,2] transpose(a), dimensions={1,0,2}\n  \
         ROOT y = f32[1,4] reshape(t)\n}\n",
    );
    let out = run(&m, two, 2, 1);
    assert_eq!(f32s(&out), [[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]);
    // 4 replicas, f32[4,16] split 1 and concatenated on 0 → f32[16,4].
    let m = module(
        "HloModule m\n\nENTRY e {\n  x = f32[4,16] parameter(0)\n  \
         r = f32[4,4,4] reshape(x)\n  t = f32[4,4,4] transpose(r), dimensions={1,0,2}\n  \
         a = f32[4,4,4] all-to-all(t), dimensions={0}, replica_groups={}\n  \
         ROOT y = f32[16,4] reshape(a)\n}\n",
    );
    let args = (0..4)
        .map(|r| {
            let values: Vec<f32> = (0..64).map(|e| (100 * r + e) as f32).collect();
            vec![Literal::from_vec(&[4, 16], values).unwrap()]
        })
        .collect();
    let out = run(&m, args, 4, 1);
    for (i, result) in out.iter().enumerate() {
        // Rows 4j..4j+4 are replica j's columns 4i..4i+4.
        assert_eq!(result.array_shape().unwrap().dims(), [16, 4]);
        for j in 0..4 {
            for row in 0..4 {
                for col in 0..4 {
                    let want = (100 * j + row * 16 + 4 * i + col) as f32;
                    let got: f32 = result.get(&[(4 * j + row) as i64, col as i64]).unwrap();
                    assert_eq!(got, want);
                }
            }
        }
    }
}

/// Devices that wait at different collectives: the run fails at once,
/// naming what each device waits for.
#[test]
fn different_collectives_deadlock() {
    let m = module(
        "HloModule m\n\nfirst {\n  x = f32[1] parameter(0)\n  \
         ROOT g = f32[2] all-gather(x), dimensions={0}, replica_groups={}\n}\n\n\
         second {\n  x = f32[1] parameter(0)\n  \
         ROOT h = f32[2] all-gather(x), dimensions={0}, replica_groups={}\n}\n\n\
         ENTRY e {\n  x = f32[1] parameter(0)\n  r = u32[] replica-id()\n  \
         zero = u32[] constant(0)\n  p = pred[] compare(r, zero), direction=EQ\n  \
         ROOT c = f32[2] conditional(p, x, x), true_computation=first, false_computation=second\n}\n",
    );
    // The device that starts waiting second sees the deadlock.
    let err = run_err(&m, vectors(&[&[1.0], &[2.0]]), 2, 1);
    let waiting = |at: &str, on: usize, other: usize, there: &str| {
        format!(
            "{at} (all-gather): on replica {on}: deadlock: 1 device of its group [replica 0, \
             replica 1] did not arrive (replica {other} is waiting at {there})"
        )
    };
    assert!(
        err == waiting("g", 0, 1, "h") || err == waiting("h", 1, 0, "g"),
        "{err}"
    );
}

/// A device that finishes without reaching a collective its group waits
/// at: the others fail instead of waiting.
#[test]
fn missing_device_fails() {
    let m = module(
        "HloModule m\n\ngather {\n  x = f32[1] parameter(0)\n  \
         ROOT g = f32[2] all-gather(x), dimensions={0}, replica_groups={}\n}\n\n\
         skip {\n  x = f32[1] parameter(0)\n  ROOT y = f32[2] concatenate(x, x), dimensions={0}\n}\n\n\
         ENTRY e {\n  x = f32[1] parameter(0)\n  r = u32[] replica-id()\n  \
         zero = u32[] constant(0)\n  p = pred[] compare(r, zero), direction=EQ\n  \
         ROOT c = f32[2] conditional(p, x, x), true_computation=gather, false_computation=skip\n}\n",
    );
    assert_eq!(
        run_err(&m, vectors(&[&[1.0], &[2.0]]), 2, 1),
        "g (all-gather): on replica 0: replica 1 finished without reaching it"
    );
}

#[test]
fn invalid_groups() {
    let gather = |groups: &str| {
        collective(
            "f32[1]",
            "f32[2]",
            &format!("all-gather(x), dimensions={{0}}, replica_groups={groups}"),
        )
    };
    assert_eq!(
        run_err(&gather("{{0,2}}"), vectors(&[&[0.0], &[1.0]]), 2, 1),
        "r (all-gather): replica_groups name replica 2, but the run has 2 replicas"
    );
    let reduce = collective(
        "f32[1]",
        "f32[1]",
        "all-reduce(x), replica_groups={{0}}, to_apply=sum",
    );
    assert_eq!(
        run_err(&reduce, vectors(&[&[0.0], &[1.0]]), 2, 1),
        "r (all-reduce): replica 1 is in no replica group"
    );
    let m = collective(
        "f32[1]",
        "f32[2]",
        "all-gather(x), dimensions={0}, replica_groups={}, use_global_device_ids=true",
    );
    assert_eq!(
        run_err(&m, vectors(&[&[0.0], &[1.0]]), 2, 1),
        "r (all-gather): use_global_device_ids=true needs a channel_id"
    );
    let m = collective(
        "f32[2]",
        "f32[2]",
        "all-to-all(x), dimensions={0}, replica_groups={}",
    );
    assert_eq!(
        run_err(&m, vectors(&[&[0.0, 1.0], &[2.0, 3.0], &[4.0, 5.0]]), 3, 1),
        "r (all-to-all): dimension 0 of f32[2]{0} does not split into 3 blocks"
    );
    assert_eq!(
        run_err(&m, vectors(&[&[0.0, 1.0]]), 2, 1),
        "the run has 2 devices, but 1 argument lists were given"
    );
    assert_eq!(
        run_err(&m, vec![], 0, 1),
        "a run needs at least one replica and one partition, not 0 × 1"
    );
}

/// A custom call that fails on partition 1, sleeps on partition 2 and
/// passes its second operand through.
fn flaky_interpreter() -> Interpreter {
    let mut interp = Interpreter::new();
    interp
        .custom_calls_mut()
        .register(
            "flaky",
            |operands: &[&Literal], _shape: &Shape| match operands[0].get::<u32>(&[]).unwrap() {
                1 => Err("partition 1 fails".to_string()),
                2 => {
                    std::thread::sleep(Duration::from_millis(300));
                    Ok(operands[1].clone())
                }
                _ => Ok(operands[1].clone()),
            },
        );
    interp
}

const FLAKY: &str = "HloModule m\n\nENTRY e {\n  x = f32[1] parameter(0)\n  \
    p = u32[] partition-id()\n  \
    y = f32[1] custom-call(p, x), custom_call_target=\"flaky\"\n  \
    ROOT r = f32[2] all-gather(y), channel_id=1, dimensions={0}, replica_groups=GROUPS, use_global_device_ids=true\n}\n";

fn flaky(groups: &str, timeout_ms: u64) -> String {
    let m = module(&FLAKY.replace("GROUPS", groups));
    let options = RunOptions {
        timeout: Duration::from_millis(timeout_ms),
        ..RunOptions::default()
    };
    let args = vectors(&[&[0.0], &[1.0], &[2.0], &[3.0]]);
    flaky_interpreter()
        .execute(&m, &args, DeviceAssignment::new(1, 4), &options, &mut [])
        .unwrap_err()
        .to_string()
}

/// An error on one device stops the others at their next collective; the
/// run reports the error that caused it.
#[test]
fn failure_does_not_hang() {
    assert_eq!(
        flaky("{{0,1},{2,3}}", 10_000),
        "y: custom call `flaky` failed: partition 1 fails"
    );
}

/// A device slower than the timeout: the device waiting for it fails,
/// naming the op and who is missing.
#[test]
fn timeout_names_the_missing_devices() {
    let m = module(&FLAKY.replace("GROUPS", "{{0,2},{3,1}}"));
    let options = RunOptions {
        timeout: Duration::from_millis(20),
        ..RunOptions::default()
    };
    let mut interp = flaky_interpreter();
    interp
        .custom_calls_mut()
        .register("flaky", |operands: &[&Literal], _shape: &Shape| {
            if operands[0].get::<u32>(&[]).unwrap() == 2 {
                std::thread::sleep(Duration::from_millis(300));
            }
            Ok(operands[1].clone())
        });
    let args = vectors(&[&[0.0], &[1.0], &[2.0], &[3.0]]);
    let err = interp
        .execute(&m, &args, DeviceAssignment::new(1, 4), &options, &mut [])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "r (all-gather): on partition 0: 1 device of its group [partition 0, partition 2] did not \
         arrive (partition 2 is still running) after waiting 20ms"
    );
}

/// A run on more devices than the interpreter has threads for is an error
/// before any thread starts (fuzzing `xla run --num-replicas 100000` found
/// the process aborting while starting threads), also when the device
/// count overflows.
#[test]
fn too_many_devices_is_an_error() {
    let m = module("HloModule m\n\nENTRY e {\n  ROOT r = u32[] replica-id()\n}\n");
    assert_eq!(
        run_err(&m, vec![Vec::new(); 100_000], 100_000, 1),
        "a run on 100000 × 1 devices is beyond the 1024 one run can have (one thread per device)"
    );
    assert_eq!(
        run_err(&m, Vec::new(), 1 << 40, 1 << 40),
        "a run on 1099511627776 × 1099511627776 devices is beyond the 1024 one run can have \
         (one thread per device)"
    );
    assert_eq!(
        run_err(&m, vec![Vec::new(); 1025], 1, 1025),
        "a run on 1 × 1025 devices is beyond the 1024 one run can have (one thread per device)"
    );
}
