//! Tokens, infeed/outfeed and send/recv (`docs/semantics.md`, *Tokens and side effects*).

use std::collections::HashMap;

use xla_core::interp::{DeviceAssignment, Feeds, Interpreter, RunOptions};
use xla_core::{HloModule, Literal};

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn execute(
    m: &HloModule,
    devices: usize,
    options: &RunOptions,
    feeds: &mut [Feeds],
) -> Result<Vec<Literal>, String> {
    Interpreter::new()
        .execute(
            m,
            &vec![vec![]; devices],
            DeviceAssignment::new(devices, 1),
            options,
            feeds,
        )
        .map_err(|e| e.to_string())
}

/// Two infeeds ordered by their tokens, each written back to the outfeed
/// in another order.
const FEEDS: &str = "HloModule m\n\nENTRY e {\n  t0 = token[] after-all()\n  \
    in1 = (f32[2], token[]) infeed(t0)\n  d1 = f32[2] get-tuple-element(in1), index=0\n  \
    t1 = token[] get-tuple-element(in1), index=1\n  \
    in2 = (s32[], token[]) infeed(t1)\n  d2 = s32[] get-tuple-element(in2), index=0\n  \
    t2 = token[] get-tuple-element(in2), index=1\n  \
    o1 = token[] outfeed(d2, t2)\n  o2 = token[] outfeed(d1, o1)\n  \
    ROOT r = f32[2] get-tuple-element(in1), index=0\n}\n";

#[test]
fn infeed_and_outfeed() {
    let m = module(FEEDS);
    let mut feeds = [Feeds {
        infeed: [Literal::vector(&[1.5f32, 2.5]), Literal::scalar(7i32)].into(),
        ..Feeds::default()
    }];
    let out = execute(&m, 1, &RunOptions::default(), &mut feeds).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), [1.5, 2.5]);
    assert!(feeds[0].infeed.is_empty());
    assert_eq!(
        feeds[0].outfeed,
        [Literal::scalar(7i32), Literal::vector(&[1.5f32, 2.5])]
    );
}

#[test]
fn infeed_errors() {
    let m = module(FEEDS);
    let mut feeds = [Feeds {
        infeed: [Literal::vector(&[1.5f32, 2.5])].into(),
        ..Feeds::default()
    }];
    assert_eq!(
        execute(&m, 1, &RunOptions::default(), &mut feeds).unwrap_err(),
        "in2 (infeed): no infeed data for s32[] on replica 0"
    );
    let mut feeds = [Feeds {
        infeed: [Literal::vector(&[1.5f32])].into(),
        ..Feeds::default()
    }];
    assert_eq!(
        execute(&m, 1, &RunOptions::default(), &mut feeds).unwrap_err(),
        "in1 (infeed): the infeed data holds f32[1], but the instruction reads f32[2] on replica 0"
    );
    assert_eq!(
        execute(&m, 2, &RunOptions::default(), &mut [Feeds::default()]).unwrap_err(),
        "the run has 2 devices, but 1 feeds were given"
    );
}

/// An infeed of an empty tuple reads nothing.
#[test]
fn empty_infeed() {
    let m = module(
        "HloModule m\n\nENTRY e {\n  t = token[] after-all()\n  \
         ROOT i = ((), token[]) infeed(t)\n}\n",
    );
    let out = execute(&m, 1, &RunOptions::default(), &mut []).unwrap();
    assert_eq!(
        out[0],
        Literal::tuple(vec![Literal::tuple(vec![]), Literal::token()])
    );
}

/// `recv` before `send` in one program; `recv-done` gets the data.
const SEND_RECV: &str = "HloModule m\n\nENTRY e {\n  t = token[] after-all()\n  \
    x = u32[] replica-id()\n  \
    recv = (u32[], u32[], token[]) recv(t), channel_id=1\n  \
    send = (u32[], u32[], token[]) send(x, t), channel_id=1\n  \
    send-done = token[] send-done(send), channel_id=1\n  \
    recv-done = (u32[], token[]) recv-done(recv), channel_id=1\n  \
    ROOT d = u32[] get-tuple-element(recv-done), index=0\n}\n";

fn received(out: &[Literal]) -> Vec<u32> {
    out.iter().map(|l| l.get(&[]).unwrap()).collect()
}

#[test]
fn send_and_recv_in_one_program() {
    let m = module(SEND_RECV);
    let out = execute(&m, 3, &RunOptions::default(), &mut []).unwrap();
    assert_eq!(received(&out), [0, 1, 2]);
}

#[test]
fn send_and_recv_across_devices() {
    let m = module(SEND_RECV);
    let options = RunOptions {
        channel_routes: HashMap::from([(1, vec![(0, 1), (1, 2), (2, 0)])]),
        ..RunOptions::default()
    };
    let out = execute(&m, 3, &options, &mut []).unwrap();
    assert_eq!(received(&out), [2, 0, 1]);
}

/// `recv-done` before any `send` of its channel cannot complete: the run
/// fails at once instead of hanging.
#[test]
fn recv_done_before_send_is_a_deadlock() {
    let m = module(&SEND_RECV.replace(
        "  send = (u32[], u32[], token[]) send(x, t), channel_id=1\n  \
         send-done = token[] send-done(send), channel_id=1\n  \
         recv-done = (u32[], token[]) recv-done(recv), channel_id=1\n",
        "  recv-done = (u32[], token[]) recv-done(recv), channel_id=1\n  \
         send = (u32[], u32[], token[]) send(x, t), channel_id=1\n  \
         send-done = token[] send-done(send), channel_id=1\n",
    ));
    assert_eq!(
        execute(&m, 1, &RunOptions::default(), &mut []).unwrap_err(),
        "recv-done (recv-done): on replica 0: deadlock: no data was sent to it on channel 1 \
         (replica 0 is waiting at recv-done)"
    );
}

#[test]
fn host_transfers() {
    let m = module(
        "HloModule m\n\nENTRY e {\n  t = token[] after-all()\n  \
         recv = (f32[2], u32[], token[]) recv(t), channel_id=3, is_host_transfer=true\n  \
         recv-done = (f32[2], token[]) recv-done(recv), channel_id=3, is_host_transfer=true\n  \
         d = f32[2] get-tuple-element(recv-done), index=0\n  \
         send = (f32[2], u32[], token[]) send(d, t), channel_id=4, is_host_transfer=true\n  \
         ROOT send-done = token[] send-done(send), channel_id=4, is_host_transfer=true\n}\n",
    );
    let data = Literal::vector(&[3.0f32, 4.0]);
    let mut feeds = [Feeds::default()];
    feeds[0].from_host.insert(3, [data.clone()].into());
    execute(&m, 1, &RunOptions::default(), &mut feeds).unwrap();
    assert_eq!(feeds[0].to_host[&4], [data]);
    assert_eq!(
        execute(&m, 1, &RunOptions::default(), &mut []).unwrap_err(),
        "recv-done (recv-done): no host data on channel 3 on replica 0"
    );
}
