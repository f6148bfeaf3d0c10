//! Random numbers: rng (uniform, normal) and rng-bit-generator.

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, Opcode, RngAlgorithm, RngDistribution};
use crate::infer;
use crate::{ArrayShape, PrimitiveType, Result};

impl XlaBuilder {
    fn rng(
        &self,
        distribution: RngDistribution,
        a: XlaOp,
        b: XlaOp,
        shape: &ArrayShape,
    ) -> Result<XlaOp> {
        let s = self.arrays("rng", &[a, b])?;
        let result = infer::rng(distribution, &s[0], &s[1], shape)?;
        let attrs = Attrs {
            rng_distribution: Some(distribution),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Rng, result, &[a, b], attrs, vec![]))
    }

    /// `RngUniform(a, b, shape)`: samples uniform on `[a, b)`.
    pub fn rng_uniform(&self, a: XlaOp, b: XlaOp, shape: &ArrayShape) -> Result<XlaOp> {
        self.rng(RngDistribution::Uniform, a, b, shape)
    }

    /// `RngNormal(mu, sigma, shape)`: samples of a normal distribution.
    pub fn rng_normal(&self, mu: XlaOp, sigma: XlaOp, shape: &ArrayShape) -> Result<XlaOp> {
        self.rng(RngDistribution::Normal, mu, sigma, shape)
    }

    /// `RngBitGenerator(algorithm, initial_state, shape)`: `(new_state,
    /// bits)`. As in XLA, the bits have the unsigned integer type of the
    /// requested type's width (`f32[4]` gives `u32[4]`).
    pub fn rng_bit_generator(
        &self,
        algorithm: RngAlgorithm,
        initial_state: XlaOp,
        shape: &ArrayShape,
    ) -> Result<XlaOp> {
        let state = self.array("rng-bit-generator", initial_state, 0)?;
        let unsigned = match shape.element_type().bit_width() {
            8 => PrimitiveType::U8,
            16 => PrimitiveType::U16,
            32 => PrimitiveType::U32,
            64 => PrimitiveType::U64,
            _ => shape.element_type(),
        };
        let bits = shape.clone().with_element_type(unsigned);
        let result = infer::rng_bit_generator(algorithm, &state, &bits)?;
        let attrs = Attrs {
            rng_algorithm: Some(algorithm),
            ..Attrs::default()
        };
        Ok(self.emit(
            Opcode::RngBitGenerator,
            result,
            &[initial_state],
            attrs,
            vec![],
        ))
    }
}
