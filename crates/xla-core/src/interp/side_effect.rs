//! Tokens, infeed/outfeed and send/recv (`docs/semantics.md`, *Tokens and side effects*), with
//! XLA's HLO shapes: `infeed` gives `(data, token[])`, `send` and `recv` give the
//! context `(data, u32[] request id, token[])`, `recv-done` gives
//! `(data, token[])`, `outfeed` and `send-done` give `token[]`.
//!
//! Instructions run in the order of the computation, which respects the
//! tokens. Infeed and outfeed use the device's [`Feeds`]. A `send` delivers
//! at once into the receiving device's mailbox for its channel (the route in
//! [`RunOptions::channel_routes`], else the sending device itself), and
//! `send-done` completes at once; `recv` only allocates a request, and
//! `recv-done` waits until data arrived on the channel. A `recv-done` whose
//! data is never sent fails (a deadlock or the run's timeout), it does not
//! hang. With `is_host_transfer=true`, `send` writes to
//! [`Feeds::to_host`] and `recv-done` reads [`Feeds::from_host`].

use std::collections::HashMap;

use super::devices::{Feeds, RunOptions};
use super::eval::{invalid, with_layouts, Ctx};
use super::random::RngStream;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::{Literal, Shape};

/// The host data and channel state of one device's evaluation.
pub(super) struct Io<'a> {
    feeds: &'a mut Feeds,
    routes: &'a HashMap<i64, Vec<(usize, usize)>>,
    /// The generator of the `rng` instruction.
    pub rng: RngStream,
    /// Open `recv` requests: request id → (channel, host transfer).
    receives: HashMap<u32, (i64, bool)>,
    next_request: u32,
}

impl<'a> Io<'a> {
    /// The state of a device that exchanges `feeds` with the host.
    pub fn new(feeds: &'a mut Feeds, options: &'a RunOptions) -> Self {
        Io {
            feeds,
            routes: &options.channel_routes,
            rng: RngStream::new(options.rng_seed),
            receives: HashMap::new(),
            next_request: 0,
        }
    }

    fn request_id(&mut self) -> u32 {
        self.next_request += 1;
        self.next_request
    }
}

/// `after-all`: a token.
pub(super) fn after_all() -> Result<Literal, InterpError> {
    Ok(Literal::token())
}

/// The first element of a `(data, …)` result shape.
fn data_shape(instr: &HloInstruction) -> Result<&Shape, InterpError> {
    match &instr.shape {
        Shape::Tuple(elements) if !elements.is_empty() => Ok(&elements[0]),
        other => Err(invalid(
            instr,
            format!("the result shape {other} is not a (data, …) tuple"),
        )),
    }
}

fn channel(instr: &HloInstruction) -> Result<i64, InterpError> {
    instr
        .attrs
        .channel_id
        .ok_or_else(|| invalid(instr, "needs a channel_id"))
}

fn feed_error(ctx: &Ctx<'_>, instr: &HloInstruction, what: String) -> InterpError {
    let device = ctx.device.hub().assignment().describe(ctx.device.index());
    InterpError::Feed {
        instruction: instr.name.clone(),
        op: instr.opcode,
        message: format!("{what} on {device}"),
    }
}

/// Checks that `data` has the shape `expected` (layouts aside) and gives it
/// `expected`'s layouts.
fn conform(
    ctx: &Ctx<'_>,
    instr: &HloInstruction,
    data: Literal,
    expected: &Shape,
    source: &str,
) -> Result<Literal, InterpError> {
    if !data.shape().eq_ignoring_layout(expected) {
        return Err(feed_error(
            ctx,
            instr,
            format!(
                "{source} holds {}, but the instruction reads {}",
                data.shape().clone().without_layouts(),
                expected.clone().without_layouts()
            ),
        ));
    }
    with_layouts(data, expected)
}

/// `infeed(token)`: the next literal of the device's infeed, read with the
/// instruction's shape and layout; an empty tuple shape reads nothing.
pub(super) fn infeed(ctx: &mut Ctx<'_>, instr: &HloInstruction) -> Result<Literal, InterpError> {
    let shape = data_shape(instr)?;
    let data = if matches!(shape, Shape::Tuple(t) if t.is_empty()) {
        Literal::tuple(Vec::new())
    } else {
        let next = ctx
            .io
            .feeds
            .infeed
            .pop_front()
            .ok_or_else(|| feed_error(ctx, instr, format!("no infeed data for {shape}")))?;
        conform(ctx, instr, next, shape, "the infeed data")?
    };
    Ok(Literal::tuple(vec![data, Literal::token()]))
}

/// `outfeed(data, token)`: appends the data to the device's outfeed, in the
/// layout of `outfeed_shape` when given.
pub(super) fn outfeed(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let data = match &instr.attrs.outfeed_shape {
        Some(shape) => conform(ctx, instr, operands[0].clone(), shape, "operand 0")?,
        None => operands[0].clone(),
    };
    ctx.io.feeds.outfeed.push(data);
    Ok(Literal::token())
}

/// `send(data, token)`: delivers the data and returns the context.
pub(super) fn send(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let channel = channel(instr)?;
    let data = operands[0].clone();
    if instr.attrs.is_host_transfer {
        ctx.io
            .feeds
            .to_host
            .entry(channel)
            .or_default()
            .push(data.clone());
    } else {
        let source = ctx.device.index();
        let target = match ctx.io.routes.get(&channel) {
            None => source,
            Some(routes) => routes
                .iter()
                .find(|&&(s, _)| s == source)
                .map(|&(_, t)| t)
                .ok_or_else(|| {
                    invalid(
                        instr,
                        format!("channel {channel} has no route from device {source}"),
                    )
                })?,
        };
        let devices = ctx.device.hub().assignment().device_count();
        if target >= devices {
            return Err(invalid(
                instr,
                format!("channel {channel} routes to device {target}, but the run has {devices}"),
            ));
        }
        ctx.device.hub().post(channel, target, data.clone());
    }
    let id = ctx.io.request_id();
    Ok(Literal::tuple(vec![
        data,
        Literal::scalar(id),
        Literal::token(),
    ]))
}

/// `send-done(context)`: the data was delivered by `send`.
pub(super) fn send_done(
    _ctx: &mut Ctx<'_>,
    _instr: &HloInstruction,
    _operands: &[&Literal],
) -> Result<Literal, InterpError> {
    Ok(Literal::token())
}

/// `recv(token)`: opens a request; the context's buffer is zeros until
/// `recv-done`.
pub(super) fn recv(ctx: &mut Ctx<'_>, instr: &HloInstruction) -> Result<Literal, InterpError> {
    let channel = channel(instr)?;
    let buffer = Literal::zeros(data_shape(instr)?)?;
    let id = ctx.io.request_id();
    ctx.io
        .receives
        .insert(id, (channel, instr.attrs.is_host_transfer));
    Ok(Literal::tuple(vec![
        buffer,
        Literal::scalar(id),
        Literal::token(),
    ]))
}

/// `recv-done(context)`: waits for the data of the `recv` that made the
/// context.
pub(super) fn recv_done(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let context = operands[0]
        .tuple_elements()
        .filter(|t| t.len() == 3)
        .ok_or_else(|| invalid(instr, "operand 0 is not a recv context"))?;
    let id = context[1].get::<u32>(&[])?;
    let (channel, host) = ctx
        .io
        .receives
        .remove(&id)
        .ok_or_else(|| invalid(instr, format!("no open recv has request id {id}")))?;
    let expected = data_shape(instr)?;
    let data = if host {
        ctx.io
            .feeds
            .from_host
            .get_mut(&channel)
            .and_then(|queue| queue.pop_front())
            .ok_or_else(|| feed_error(ctx, instr, format!("no host data on channel {channel}")))?
    } else {
        ctx.device
            .hub()
            .collect(channel, ctx.device.index(), instr)?
    };
    let data = conform(ctx, instr, data, expected, "the received data")?;
    Ok(Literal::tuple(vec![data, Literal::token()]))
}
