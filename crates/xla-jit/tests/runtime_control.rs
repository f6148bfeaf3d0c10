//! Control flow in the runtime: while loops over buffers of their state,
//! conditionals, calls; state permutations and passthroughs.

use xla_core::{HloModule, Literal};
use xla_jit::Client;

fn run(text: &str, args: &[&Literal]) -> Literal {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    exe.execute(args).unwrap()
}

fn elements(literal: &Literal) -> &[Literal] {
    literal.tuple_elements().expect("a tuple")
}

/// A loop that runs while its flag is set; the body clears the flag and
/// squares the matrix (so it runs once or never).
const SQUARE_ONCE: &str = "HloModule m
cond {
  cs = (pred[], f32[2,2]{1,0}, s32[3]{0}) parameter(0)
  ROOT cflag = pred[] get-tuple-element(cs), index=0
}
body {
  bs = (pred[], f32[2,2]{1,0}, s32[3]{0}) parameter(0)
  bx = f32[2,2]{1,0} get-tuple-element(bs), index=1
  bkeep = s32[3]{0} get-tuple-element(bs), index=2
  sq = f32[2,2]{1,0} dot(bx, bx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  no = pred[] constant(false)
  ROOT next = (pred[], f32[2,2]{1,0}, s32[3]{0}) tuple(no, sq, bkeep)
}
ENTRY e {
  flag = pred[] parameter(0)
  x = f32[2,2]{1,0} parameter(1)
  keep = s32[3]{0} parameter(2)
  init = (pred[], f32[2,2]{1,0}, s32[3]{0}) tuple(flag, x, keep)
  ROOT w = (pred[], f32[2,2]{1,0}, s32[3]{0}) while(init), condition=cond, body=body
}";

#[test]
fn a_while_loop_runs_its_body_while_the_condition_holds() {
    let x = Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]]);
    let keep = Literal::vector(&[5i32, -6, 7]);
    let out = run(SQUARE_ONCE, &[&Literal::scalar(true), &x, &keep]);
    let out = elements(&out);
    assert_eq!(out[0].to_vec::<bool>().unwrap(), [false]);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), [7.0, 10.0, 15.0, 22.0]);
    assert_eq!(out[2].to_vec::<i32>().unwrap(), [5, -6, 7]);
    // The arguments are untouched: the loop state is a copy.
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);

    let out = run(SQUARE_ONCE, &[&Literal::scalar(false), &x, &keep]);
    assert_eq!(
        elements(&out)[1].to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0]
    );
}

#[test]
fn a_body_that_permutes_its_state_reads_the_old_values() {
    let text = "HloModule m
cond {
  cs = (pred[], f32[2]{0}, f32[2]{0}, f32[2]{0}) parameter(0)
  ROOT flag = pred[] get-tuple-element(cs), index=0
}
body {
  bs = (pred[], f32[2]{0}, f32[2]{0}, f32[2]{0}) parameter(0)
  ba = f32[2]{0} get-tuple-element(bs), index=1
  bb = f32[2]{0} get-tuple-element(bs), index=2
  bc = f32[2]{0} get-tuple-element(bs), index=3
  no = pred[] constant(false)
  ROOT next = (pred[], f32[2]{0}, f32[2]{0}, f32[2]{0}) tuple(no, bc, ba, bb)
}
ENTRY e {
  a = f32[2]{0} parameter(0)
  b = f32[2]{0} parameter(1)
  c = f32[2]{0} parameter(2)
  yes = pred[] constant(true)
  init = (pred[], f32[2]{0}, f32[2]{0}, f32[2]{0}) tuple(yes, a, b, c)
  ROOT w = (pred[], f32[2]{0}, f32[2]{0}, f32[2]{0}) while(init), condition=cond, body=body
}";
    let (a, b, c) = (
        Literal::vector(&[1.0f32, 2.0]),
        Literal::vector(&[3.0f32, 4.0]),
        Literal::vector(&[5.0f32, 6.0]),
    );
    let out = run(text, &[&a, &b, &c]);
    let out = elements(&out);
    assert_eq!(out[1].to_vec::<f32>().unwrap(), [5.0, 6.0]);
    assert_eq!(out[2].to_vec::<f32>().unwrap(), [1.0, 2.0]);
    assert_eq!(out[3].to_vec::<f32>().unwrap(), [3.0, 4.0]);
}

#[test]
fn conditionals_pick_a_branch_by_predicate_or_index() {
    let by_predicate = "HloModule m
square {
  sx = f32[2,2]{1,0} parameter(0)
  ROOT sq = f32[2,2]{1,0} dot(sx, sx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
same {
  ROOT same_x = f32[2,2]{1,0} parameter(0)
}
ENTRY e {
  p = pred[] parameter(0)
  x = f32[2,2]{1,0} parameter(1)
  ROOT c = f32[2,2]{1,0} conditional(p, x, x), true_computation=square, false_computation=same
}";
    let x = Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]]);
    let out = run(by_predicate, &[&Literal::scalar(true), &x]);
    assert_eq!(out.to_vec::<f32>().unwrap(), [7.0, 10.0, 15.0, 22.0]);
    let out = run(by_predicate, &[&Literal::scalar(false), &x]);
    assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);

    let by_index = "HloModule m
zero {
  zx = s32[2]{0} parameter(0)
  ROOT z = s32[2]{0} constant({0, 0})
}
same {
  ROOT same_x = s32[2]{0} parameter(0)
}
ENTRY e {
  i = s32[] parameter(0)
  x = s32[2]{0} parameter(1)
  ROOT c = s32[2]{0} conditional(i, x, x), branch_computations={zero, same}
}";
    let x = Literal::vector(&[3i32, 4]);
    for (index, want) in [(0, [0, 0]), (1, [3, 4]), (7, [3, 4]), (-1, [3, 4])] {
        let out = run(by_index, &[&Literal::scalar(index), &x]);
        assert_eq!(out.to_vec::<i32>().unwrap(), want, "index {index}");
    }
}

#[test]
fn calls_run_their_computation_inline() {
    let text = "HloModule m
square {
  sx = f32[2,2]{1,0} parameter(0)
  ROOT sq = f32[2,2]{1,0} dot(sx, sx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  x = f32[2,2]{1,0} parameter(0)
  y = f32[2,2]{1,0} call(x), to_apply=square
  ROOT z = f32[2,2]{1,0} call(y), to_apply=square
}";
    let x = Literal::matrix(&[[1.0f32, 1.0], [0.0, 1.0]]);
    let out = run(text, &[&x]);
    assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 4.0, 0.0, 1.0]);
}

/// A loop writing row `i` of its state with `i`: the update runs in place
/// on the loop state, which is the result's own buffer.
const FILL_ROWS: &str = "HloModule m

cond {
  cs = (s32[], f32[8,4]{1,0}) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(ci, n), direction=LT
}

body {
  bs = (s32[], f32[8,4]{1,0}) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  buf = f32[8,4]{1,0} get-tuple-element(bs), index=1
  fi = f32[] convert(bi)
  row = f32[1,4]{1,0} broadcast(fi), dimensions={}
  zero = s32[] constant(0)
  upd = f32[8,4]{1,0} dynamic-update-slice(buf, row, bi, zero)
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  ROOT t = (s32[], f32[8,4]{1,0}) tuple(next, upd)
}

ENTRY e {
  buf0 = f32[8,4]{1,0} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[8,4]{1,0}) tuple(z, buf0)
  w = (s32[], f32[8,4]{1,0}) while(init), condition=cond, body=body
  ROOT r = f32[8,4]{1,0} get-tuple-element(w), index=1
}
";

#[test]
fn an_in_place_update_in_a_loop_writes_the_result_directly() {
    let module: HloModule = FILL_ROWS.parse().unwrap();
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    let buf = Literal::from_slice(&[8, 4], &[-1.0f32; 32]).unwrap();
    let out = exe.execute(&[&buf]).unwrap();
    let want: Vec<f32> = (0..32).map(|i| (i / 4) as f32).collect();
    assert_eq!(out.to_vec::<f32>().unwrap(), want);
    assert!(exe.fallback_ops().is_empty());
    // The only copy of the 128-byte state is the one out of the (read-only)
    // argument, before the loop; the body updates the result in place.
    let dump = exe.dump();
    let program = &dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()];
    let state_copies: Vec<&str> = program
        .lines()
        .filter(|l| l.contains("(128 bytes)"))
        .collect();
    assert_eq!(state_copies.len(), 1, "{program}");
    assert!(
        program.find("(128 bytes)").unwrap() < program.find("while").unwrap(),
        "{program}"
    );
}

/// `levels` computations `c0(x) = x·x`, `cᵢ(x) = (x > 0 ? cᵢ₋₁(x) :
/// cᵢ₋₁(x)) + 1`: both branches share the level below, so lowering each
/// call site separately needs `2^levels` copies of `c0`.
fn shared_branches(levels: usize) -> HloModule {
    let mut text = String::from(
        "HloModule m\n\nc0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] multiply(p, p)\n}\n",
    );
    for i in 1..levels {
        let before = i - 1;
        text.push_str(&format!(
            "c{i} {{\n  p = f32[] parameter(0)\n  zero = f32[] constant(0)\n  \
             one = f32[] constant(1)\n  t = pred[] compare(p, zero), direction=GT\n  \
             c = f32[] conditional(t, p, p), true_computation=c{before}, \
             false_computation=c{before}\n  ROOT r = f32[] add(c, one)\n}}\n"
        ));
    }
    text.push_str(&format!(
        "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{}\n}}\n",
        levels - 1
    ));
    text.parse().unwrap()
}

/// Computations that share their branches lower once per call site while
/// the copies stay few; past the lowering budget the outermost conditional
/// runs through the interpreter, visibly (40 levels exhausted the
/// machine's memory before).
#[test]
fn shared_branches_lower_within_a_budget() {
    for (levels, falls_back) in [(10, false), (40, true)] {
        let exe = Client::cpu()
            .unwrap()
            .compile(&shared_branches(levels))
            .unwrap();
        let fallbacks: Vec<&str> = exe.fallback_ops().iter().map(|f| f.opcode.name()).collect();
        assert_eq!(fallbacks.len(), usize::from(falls_back), "{fallbacks:?}");
        assert!(fallbacks.iter().all(|&op| op == "conditional"));
        for x in [3.0f32, -2.0] {
            let y = exe.execute(&[&Literal::scalar(x)]).unwrap();
            assert_eq!(y.to_vec::<f32>().unwrap(), [x * x + (levels - 1) as f32]);
        }
    }
}

/// Conditionals nested 10000 deep (each false branch its own computation)
/// compile and run from a test thread's small stack: running a program
/// recurses a level per nested computation, and deep programs run on a
/// thread of their own (30000 levels overflowed the main thread's stack).
#[test]
fn deeply_nested_conditionals_run() {
    let levels = 10000;
    let state = "(pred[], f32[])";
    let mut text = format!(
        "HloModule m\n\nc0 {{\n  s = {state} parameter(0)\n  \
         x = f32[] get-tuple-element(s), index=1\n  ROOT r = f32[] negate(x)\n}}\n"
    );
    for i in 1..levels {
        let before = i - 1;
        text.push_str(&format!(
            "n{before} {{\n  s = {state} parameter(0)\n  \
             ROOT x = f32[] get-tuple-element(s), index=1\n}}\n\
             c{i} {{\n  s = {state} parameter(0)\n  \
             t = pred[] get-tuple-element(s), index=0\n  \
             ROOT r = f32[] conditional(t, s, s), true_computation=c{before}, \
             false_computation=n{before}\n}}\n"
        ));
    }
    text.push_str(&format!(
        "ENTRY e {{\n  p = pred[] parameter(0)\n  x = f32[] parameter(1)\n  \
         s = {state} tuple(p, x)\n  ROOT r = f32[] call(s), to_apply=c{}\n}}\n",
        levels - 1
    ));
    // `true` takes every true branch down to c0's negate; `false` the
    // first level's false branch.
    let module: HloModule = text.parse().unwrap();
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    let x = Literal::scalar(2.5f32);
    for (p, y) in [(true, -2.5f32), (false, 2.5)] {
        let r = exe.execute(&[&Literal::scalar(p), &x]).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), [y]);
    }
    // The dump prints the thunk tree without recursing (it overflowed the
    // stack) and stops indenting at 16 levels, naming the level instead.
    let dump = exe.dump();
    let deepest = format!("[{}] conditional", 2 * (levels - 2) + 1);
    assert!(dump.contains(&deepest), "{deepest}");
    assert!(dump.lines().all(|l| l.len() < 200));
}

/// A loop that never ends stops when another thread cancels its token,
/// and the executable runs normally afterwards.
#[test]
fn a_cancelled_token_stops_a_runaway_loop() {
    use std::time::Duration;
    use xla_core::{CancelToken, Stopped};
    use xla_jit::{ExecuteOptions, JitError};
    let module: HloModule = "HloModule m
cond {
  s = s32[] parameter(0)
  limit = s32[] constant(-1)
  ROOT t = pred[] compare(s, limit), direction=NE
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] parameter(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}"
    .parse()
    .unwrap();
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    let options = ExecuteOptions {
        cancel: CancelToken::new(),
        ..ExecuteOptions::default()
    };
    let cancel = options.cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        cancel.cancel();
    });
    // From 0 the loop counts through every s32 but -1 (and wraps past it:
    // about 4 billion steps).
    let start = Literal::scalar(0i32);
    let stopped = exe.execute_with(&[&start], &options);
    canceller.join().unwrap();
    assert!(
        matches!(stopped, Err(JitError::Stopped(Stopped::Cancelled))),
        "{stopped:?}"
    );
    let near = Literal::scalar(-5i32);
    let done = exe.execute(&[&near]).unwrap();
    assert_eq!(done, Literal::scalar(-1i32));
}

/// A profile counts every step of every run: the loop once per run, the
/// steps of its body once per iteration, and the dot with its shape.
#[test]
fn a_profile_times_every_step() {
    use std::sync::Arc;
    use xla_jit::{ExecuteOptions, Profile};
    let module: HloModule = "HloModule m
cond {
  s = (s32[], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT t = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], f32[8,8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[8,8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  n = s32[] add(i, one)
  d = f32[8,8] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (s32[], f32[8,8]) tuple(n, d)
}
ENTRY e {
  x = f32[8,8] parameter(0)
  z = s32[] constant(0)
  s = (s32[], f32[8,8]) tuple(z, x)
  ROOT w = (s32[], f32[8,8]) while(s), condition=cond, body=body
}"
    .parse()
    .unwrap();
    let exe = Client::cpu().unwrap().compile(&module).unwrap();
    let profile = Arc::new(Profile::new());
    let options = ExecuteOptions {
        profile: Some(Arc::clone(&profile)),
        ..ExecuteOptions::default()
    };
    let x = Literal::from_vec(&[8, 8], vec![0.5f32; 64]).unwrap();
    for _ in 0..2 {
        exe.execute_with(&[&x], &options).unwrap();
    }
    let steps = profile.steps();
    let find = |prefix: &str| {
        steps
            .iter()
            .find(|s| s.label.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {steps:?}"))
    };
    let looped = find("while");
    assert_eq!((looped.count, looped.depth), (2, 0));
    let dot = find("dot d (8×8 · 8×8, f32)");
    assert_eq!((dot.count, dot.depth), (6, 1));
    assert!(looped.total >= dot.total);
    let report = profile.report();
    assert!(
        report.starts_with("  total ms   share      runs  step\n"),
        "{report}"
    );
    assert!(report.contains("  dot d (8×8 · 8×8, f32)"), "{report}");
}

/// A loop whose body updates its `f32[n]` state by `f(state)`, where `f`
/// is `update` over the state `x` (and the counter `i`), 5 iterations.
fn elementwise_loop(n: usize, update: &str) -> HloModule {
    let text = format!(
        "HloModule m
cond {{
  cs = (s32[], f32[{n}]{{0}}) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(ci, five), direction=LT
}}
body {{
  bs = (s32[], f32[{n}]{{0}}) parameter(0)
  i = s32[] get-tuple-element(bs), index=0
  x = f32[{n}]{{0}} get-tuple-element(bs), index=1
{update}
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[{n}]{{0}}) tuple(next, y)
}}
ENTRY e {{
  x0 = f32[{n}]{{0}} parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[{n}]{{0}}) tuple(z, x0)
  w = (s32[], f32[{n}]{{0}}) while(init), condition=cond, body=body
  ROOT r = f32[{n}]{{0}} get-tuple-element(w), index=1
}}
"
    );
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The loop's body copies: lines of the program's `while` naming a copy of
/// the state (`bytes` bytes).
fn body_copies(dump: &str, bytes: usize) -> usize {
    let program = &dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()];
    let body = &program[program.find("body:").expect("a loop body")..];
    body.lines()
        .filter(|l| l.contains(&format!("({bytes} bytes")))
        .count()
}

/// [`elementwise_loop`] of `n` and `update` on seeded random arguments,
/// checked against the interpreter: its body's copies of the state.
fn checked_body_copies(n: usize, update: &str, seed: u64) -> usize {
    use crate::runtime_support::{check_against_interpreter, random_args, CLOSE};
    let module = elementwise_loop(n, update);
    let exe = check_against_interpreter(&module, &random_args(&module, seed), CLOSE);
    body_copies(&exe.dump(), 4 * n)
}

/// An elementwise body reads each element of the state only where it
/// writes it: the kernel updates the state in place (no copy back per
/// iteration), on every size (vector remainders, pool tasks), with the
/// interpreter's results.
#[test]
fn an_elementwise_body_updates_its_state_in_place() {
    let update = "  k = f32[] constant(0.999)
  kb = f32[N]{0} broadcast(k), dimensions={}
  s = f32[N]{0} sine(x)
  m = f32[N]{0} multiply(x, kb)
  y = f32[N]{0} add(m, s)";
    for n in [1, 8, 13, 100, 1000, 100_003] {
        let update = update.replace('N', &n.to_string());
        assert_eq!(checked_body_copies(n, &update, n as u64), 0, "n = {n}");
    }
}

/// A body that reads the state at other indices than it writes (reversed,
/// shifted by a slice) keeps its copy: writing in place would clobber
/// elements still to be read.
#[test]
fn a_body_reading_other_elements_keeps_its_copy() {
    let n = 1000;
    let reversed = "  r = f32[N]{0} reverse(x), dimensions={0}
  y = f32[N]{0} add(x, r)";
    let shifted = "  zero = f32[] constant(0)
  p = f32[M]{0} pad(x, zero), padding=1_0
  sh = f32[N]{0} slice(p), slice={[0:N]}
  y = f32[N]{0} add(x, sh)";
    for update in [reversed, shifted] {
        let update = update
            .replace('M', &(n + 1).to_string())
            .replace('N', &n.to_string());
        assert_eq!(checked_body_copies(n, &update, 7), 1, "{update}");
    }
}

/// A loop whose condition is `i < constant` compares its counter in place
/// (no condition kernel): the dump shows it, and the results are the
/// interpreter's for s32 and s64 counters, a start past the limit (no
/// iteration), a negative limit and a body that reads the counter. Any
/// other condition (`<=`, an unsigned counter) runs as steps.
#[test]
fn counted_loops_compare_their_counter_in_place() {
    use crate::runtime_support::{check_against_interpreter, CLOSE};
    let program = |ty: &str, start: i64, limit: i64, direction: &str| -> HloModule {
        let text = format!(
            "HloModule m
cond {{
  cs = ({ty}[], f32[4]{{0}}) parameter(0)
  ci = {ty}[] get-tuple-element(cs), index=0
  n = {ty}[] constant({limit})
  ROOT lt = pred[] compare(ci, n), direction={direction}
}}
body {{
  bs = ({ty}[], f32[4]{{0}}) parameter(0)
  i = {ty}[] get-tuple-element(bs), index=0
  x = f32[4]{{0}} get-tuple-element(bs), index=1
  fi = f32[] convert(i)
  fb = f32[4]{{0}} broadcast(fi), dimensions={{}}
  y = f32[4]{{0}} add(x, fb)
  one = {ty}[] constant(1)
  next = {ty}[] add(i, one)
  ROOT t = ({ty}[], f32[4]{{0}}) tuple(next, y)
}}
ENTRY e {{
  x0 = f32[4]{{0}} parameter(0)
  z = {ty}[] constant({start})
  init = ({ty}[], f32[4]{{0}}) tuple(z, x0)
  ROOT w = ({ty}[], f32[4]{{0}}) while(init), condition=cond, body=body
}}
"
        );
        text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let x = Literal::from_vec(&[4], vec![1.0f32, -2.0, 0.5, 8.0]).unwrap();
    for (ty, start, limit) in [
        ("s32", 0, 100),
        ("s64", 0, 100),
        ("s32", 7, 3),
        ("s32", -20, -5),
        ("s64", 5_000_000_000, 5_000_000_010),
    ] {
        let module = program(ty, start, limit, "LT");
        let exe = check_against_interpreter(&module, std::slice::from_ref(&x), CLOSE);
        let dump = exe.dump();
        assert!(dump.contains(&format!(" < {limit})")), "{dump}");
        assert!(!dump.contains("condition:"), "{dump}");
    }
    let le = program("s32", 0, 10, "LE");
    let exe = check_against_interpreter(&le, std::slice::from_ref(&x), CLOSE);
    assert!(exe.dump().contains("while (predicate"), "{}", exe.dump());
    let unsigned = program("u32", 0, 10, "LT");
    let exe = check_against_interpreter(&unsigned, &[x], CLOSE);
    assert!(exe.dump().contains("while (predicate"), "{}", exe.dump());
}

/// An integer scalar plus a constant (a loop counter's step, here also an
/// accumulator that wraps, with the constant on either side, s32 and s64),
/// or minus one, is added by the runtime, not by a kernel: the dump shows the adds and
/// no kernel for them, and the results are the interpreter's (integers
/// compare exactly).
#[test]
fn scalar_adds_of_a_constant_are_runtime_steps() {
    use crate::runtime_support::{check_against_interpreter, CLOSE};
    let program = |ty: &str, by: i64, subtract: bool| -> HloModule {
        let sum = match subtract {
            false => format!("{ty}[] add(by, a)"),
            true => format!("{ty}[] subtract(a, by)"),
        };
        let text = format!(
            "HloModule m
cond {{
  cs = (s32[], {ty}[]) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(ci, n), direction=LT
}}
body {{
  bs = (s32[], {ty}[]) parameter(0)
  i = s32[] get-tuple-element(bs), index=0
  a = {ty}[] get-tuple-element(bs), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  by = {ty}[] constant({by})
  sum = {sum}
  ROOT t = (s32[], {ty}[]) tuple(next, sum)
}}
ENTRY e {{
  a0 = {ty}[] parameter(0)
  z = s32[] constant(0)
  init = (s32[], {ty}[]) tuple(z, a0)
  ROOT w = (s32[], {ty}[]) while(init), condition=cond, body=body
}}
"
        );
        text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let cases = [
        (
            "s32",
            1_000_000_000,
            Literal::scalar(2_000_000_000i32),
            false,
        ),
        ("s32", -7, Literal::scalar(i32::MIN + 20), false),
        ("s64", -3_000_000_000, Literal::scalar(i64::MIN + 5), false),
        ("s64", 1, Literal::scalar(41i64), false),
        ("s32", 7, Literal::scalar(i32::MIN + 20), true),
        ("s32", i64::from(i32::MIN), Literal::scalar(3i32), true),
        ("s64", -3_000_000_000, Literal::scalar(i64::MAX - 5), true),
    ];
    for (ty, by, a0, subtract) in cases {
        let module = program(ty, by, subtract);
        let exe = check_against_interpreter(&module, std::slice::from_ref(&a0), CLOSE);
        let dump = exe.dump();
        let step = if subtract { by.wrapping_neg() } else { by };
        assert!(dump.contains(" + 1 -> b"), "{dump}");
        assert!(dump.contains(&format!(" + {step} -> b")), "{dump}");
        assert!(!dump.contains("kernel "), "{dump}");
    }
}
