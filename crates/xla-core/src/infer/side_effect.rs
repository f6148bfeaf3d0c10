//! Tokens and side effects (`docs/semantics.md`, *Tokens and side effects*): after-all, infeed,
//! outfeed, send, send-done, recv, recv-done, with XLA's HLO shapes:
//!
//! | instruction | operands          | shape                             |
//! |-------------|-------------------|-----------------------------------|
//! | `after-all` | tokens (≥ 0)      | `token[]`                         |
//! | `infeed`    | token             | `(data, token[])`                 |
//! | `outfeed`   | data, token       | `token[]`                         |
//! | `send`      | data, token       | `(data, u32[], token[])`          |
//! | `send-done` | send's context    | `token[]`                         |
//! | `recv`      | token             | `(data, u32[], token[])`          |
//! | `recv-done` | recv's context    | `(data, token[])`                 |

use super::check::{self, bare, plain};
use super::error::InferError;
use super::parts::Kind;
use crate::hlo::Opcode;
use crate::{Dim, PrimitiveType, Shape};

/// `after-all(tokens…)`: joins any number of tokens (none: a fresh token,
/// `CreateToken`).
pub fn after_all<D: Dim>(tokens: &[&Shape<D>]) -> Result<Shape<D>, InferError<D>> {
    for (i, t) in tokens.iter().enumerate() {
        check::token(Opcode::AfterAll.name(), i, t)?;
    }
    Ok(Shape::Token)
}

/// Data that infeed, outfeed, send and recv move: an array or a tuple.
fn data<D: Dim>(op: &'static str, index: usize, shape: &Shape<D>) -> Result<(), InferError<D>> {
    if shape.is_array() || shape.is_tuple() {
        Ok(())
    } else {
        Err(InferError::OperandKind {
            op,
            index,
            expected: Kind::ArrayOrTuple,
            shape: bare(shape),
        })
    }
}

/// `(data, u32[], token[])`: the context of send and recv.
fn context<D: Dim>(data: &Shape<D>) -> Shape<D> {
    Shape::Tuple(vec![
        plain(data),
        Shape::scalar(PrimitiveType::U32),
        Shape::Token,
    ])
}

/// `infeed(token)` reading `shape`: `(shape, token[])`. The data is an
/// array or a tuple of arrays (nested tuples are not supported; the empty
/// tuple reads nothing).
pub fn infeed<D: Dim>(token: &Shape<D>, shape: &Shape<D>) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Infeed.name();
    check::token(op, 0, token)?;
    let flat = match shape {
        Shape::Array(_) => true,
        Shape::Tuple(elements) => elements.iter().all(Shape::is_array),
        Shape::Token | Shape::Opaque => false,
    };
    if !flat {
        return Err(InferError::DeclaredShape {
            op,
            shape: bare(shape),
            expected: "an array or a tuple of arrays",
        });
    }
    Ok(Shape::Tuple(vec![plain(shape), Shape::Token]))
}

/// `outfeed(operand, token), outfeed_shape=…`: `token[]`; the outfeed shape,
/// if given, must be the operand's (layouts may differ: the outfeed layout
/// says how the data is written).
pub fn outfeed<D: Dim>(
    operand: &Shape<D>,
    token: &Shape<D>,
    outfeed_shape: Option<&Shape<D>>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Outfeed.name();
    data(op, 0, operand)?;
    check::token(op, 1, token)?;
    if let Some(shape) = outfeed_shape {
        if !check::may_equal(shape, operand) {
            return Err(InferError::InvalidAttribute {
                op,
                attribute: "outfeed_shape",
                value: bare(shape).to_string(),
                requirement: "it must be the shape of operand 0",
            });
        }
    }
    Ok(Shape::Token)
}

/// `send(operand, token)`: the context `(operand, u32[], token[])`.
pub fn send<D: Dim>(operand: &Shape<D>, token: &Shape<D>) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Send.name();
    data(op, 0, operand)?;
    check::token(op, 1, token)?;
    Ok(context(operand))
}

/// The data of a send or recv context `(data, u32[], token[])`.
fn context_data<'a, D: Dim>(
    op: &'static str,
    context: &'a Shape<D>,
) -> Result<&'a Shape<D>, InferError<D>> {
    if let Shape::Tuple(t) = context {
        let request_id = Shape::scalar(PrimitiveType::U32);
        if t.len() == 3 && t[1].eq_ignoring_layout(&request_id) && t[2].is_token() {
            return Ok(&t[0]);
        }
    }
    Err(InferError::OperandKind {
        op,
        index: 0,
        expected: Kind::Context,
        shape: bare(context),
    })
}

/// `send-done(context)`: `token[]`.
pub fn send_done<D: Dim>(context: &Shape<D>) -> Result<Shape<D>, InferError<D>> {
    context_data(Opcode::SendDone.name(), context)?;
    Ok(Shape::Token)
}

/// `recv(token)` receiving `shape`: the context `(shape, u32[], token[])`.
pub fn recv<D: Dim>(token: &Shape<D>, shape: &Shape<D>) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::Recv.name();
    check::token(op, 0, token)?;
    Ok(context(shape))
}

/// `recv-done(context)`: `(data, token[])`.
pub fn recv_done<D: Dim>(context: &Shape<D>) -> Result<Shape<D>, InferError<D>> {
    let data = context_data(Opcode::RecvDone.name(), context)?;
    Ok(Shape::Tuple(vec![plain(data), Shape::Token]))
}
