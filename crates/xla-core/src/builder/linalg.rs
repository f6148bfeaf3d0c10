//! Linear algebra: cholesky, triangular-solve, fft.

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, FftType, Opcode, TriangularSolveOptions};
use crate::infer;
use crate::Result;

impl XlaBuilder {
    /// `Cholesky(a, lower)` (`docs/semantics.md`, *Cholesky*).
    pub fn cholesky(&self, a: XlaOp, lower: bool) -> Result<XlaOp> {
        let x = self.array("cholesky", a, 0)?;
        let shape = infer::cholesky(&x)?;
        let attrs = Attrs {
            cholesky_lower: Some(lower),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Cholesky, shape, &[a], attrs, vec![]))
    }

    /// `TriangularSolve(a, b, left_side, lower, unit_diagonal,
    /// transpose_a)` (`docs/semantics.md`, *Triangular solve*), the flags in `options`.
    pub fn triangular_solve(
        &self,
        a: XlaOp,
        b: XlaOp,
        options: TriangularSolveOptions,
    ) -> Result<XlaOp> {
        let s = self.arrays("triangular-solve", &[a, b])?;
        let shape = infer::triangular_solve(&s[0], &s[1], &options)?;
        let attrs = Attrs {
            triangular_solve: Some(options),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::TriangularSolve, shape, &[a, b], attrs, vec![]))
    }

    /// `Fft(operand, fft_type, fft_length)` (`docs/semantics.md`, *FFT*).
    pub fn fft(&self, operand: XlaOp, fft_type: FftType, fft_length: &[i64]) -> Result<XlaOp> {
        let x = self.array("fft", operand, 0)?;
        let shape = infer::fft(&x, fft_type, fft_length)?;
        let attrs = Attrs {
            fft_type: Some(fft_type),
            fft_length: Some(fft_length.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Fft, shape, &[operand], attrs, vec![]))
    }
}
