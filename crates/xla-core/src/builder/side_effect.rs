//! Tokens and side effects: after-all, infeed, outfeed, send and recv, with
//! XLA's HLO instructions (`send`/`send-done`, `recv`/`recv-done`).

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, Opcode};
use crate::infer;
use crate::{Result, Shape};

impl XlaBuilder {
    /// `CreateToken()`: a fresh token (an `after-all` of nothing).
    pub fn create_token(&self) -> Result<XlaOp> {
        self.after_all(&[])
    }

    /// `AfterAll(tokens)`: a token ordered after every operand token.
    pub fn after_all(&self, tokens: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shapes("after-all", tokens)?;
        let refs: Vec<&Shape> = shapes.iter().collect();
        let shape = infer::after_all(&refs)?;
        Ok(self.emit(Opcode::AfterAll, shape, tokens, Attrs::default(), vec![]))
    }

    /// `Infeed(shape, config)`: reads one value of `shape` (layout included)
    /// from the infeed, ordered after a fresh token.
    pub fn infeed(&self, shape: &Shape, config: &str) -> Result<XlaOp> {
        let token = self.create_token()?;
        let data_and_token = self.infeed_with_token(token, shape, config)?;
        self.get_tuple_element(data_and_token, 0)
    }

    /// `InfeedWithToken(token, shape, config)`: `(data, token)`.
    pub fn infeed_with_token(&self, token: XlaOp, shape: &Shape, config: &str) -> Result<XlaOp> {
        let s = self.shapes("infeed", &[token])?;
        shape.validate()?;
        infer::infeed(&s[0], shape)?;
        // The data keeps its layout: it says how the fed bytes are laid out.
        let result = Shape::Tuple(vec![shape.clone(), Shape::Token]);
        let attrs = Attrs {
            infeed_config: (!config.is_empty()).then(|| config.to_string()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Infeed, result, &[token], attrs, vec![]))
    }

    /// `Outfeed(operand, shape_with_layout, config)`: writes the operand,
    /// ordered after a fresh token; returns the outfeed's token.
    pub fn outfeed(
        &self,
        operand: XlaOp,
        shape_with_layout: &Shape,
        config: &str,
    ) -> Result<XlaOp> {
        let token = self.create_token()?;
        self.outfeed_with_token(operand, token, shape_with_layout, config)
    }

    /// `OutfeedWithToken(operand, token, shape_with_layout, config)`: a
    /// token ordered after the write.
    pub fn outfeed_with_token(
        &self,
        operand: XlaOp,
        token: XlaOp,
        shape_with_layout: &Shape,
        config: &str,
    ) -> Result<XlaOp> {
        let s = self.shapes("outfeed", &[operand, token])?;
        shape_with_layout.validate()?;
        let shape = infer::outfeed(&s[0], &s[1], Some(shape_with_layout))?;
        let attrs = Attrs {
            outfeed_shape: Some(shape_with_layout.clone()),
            outfeed_config: (!config.is_empty()).then(|| config.to_string()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Outfeed, shape, &[operand, token], attrs, vec![]))
    }

    /// `Send(operand, channel_id)`: sends to the `Recv` of the channel;
    /// returns the `send-done` token.
    pub fn send(&self, operand: XlaOp, channel_id: i64) -> Result<XlaOp> {
        let token = self.create_token()?;
        self.send_with_token(operand, token, channel_id)
    }

    /// `SendWithToken(operand, token, channel_id)`: `send` then `send-done`;
    /// returns the `send-done` token.
    pub fn send_with_token(&self, operand: XlaOp, token: XlaOp, channel_id: i64) -> Result<XlaOp> {
        let s = self.shapes("send", &[operand, token])?;
        let context = infer::send(&s[0], &s[1])?;
        let attrs = Attrs {
            channel_id: Some(channel_id),
            ..Attrs::default()
        };
        let send = self.emit(
            Opcode::Send,
            context.clone(),
            &[operand, token],
            attrs.clone(),
            vec![],
        );
        let shape = infer::send_done(&context)?;
        Ok(self.emit(Opcode::SendDone, shape, &[send], attrs, vec![]))
    }

    /// `Recv(shape, channel_id)`: the value the channel's `Send` sends.
    pub fn recv(&self, shape: &Shape, channel_id: i64) -> Result<XlaOp> {
        let token = self.create_token()?;
        let data_and_token = self.recv_with_token(token, shape, channel_id)?;
        self.get_tuple_element(data_and_token, 0)
    }

    /// `RecvWithToken(token, shape, channel_id)`: `recv` then `recv-done`;
    /// returns `(data, token)`.
    pub fn recv_with_token(&self, token: XlaOp, shape: &Shape, channel_id: i64) -> Result<XlaOp> {
        let s = self.shapes("recv", &[token])?;
        shape.validate()?;
        let context = infer::recv(&s[0], shape)?;
        let attrs = Attrs {
            channel_id: Some(channel_id),
            ..Attrs::default()
        };
        let recv = self.emit(
            Opcode::Recv,
            context.clone(),
            &[token],
            attrs.clone(),
            vec![],
        );
        let done = infer::recv_done(&context)?;
        Ok(self.emit(Opcode::RecvDone, done, &[recv], attrs, vec![]))
    }
}
