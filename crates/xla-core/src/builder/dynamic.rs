//! Dynamic dimension sizes: get-dimension-size and set-dimension-size.

use super::{XlaBuilder, XlaOp};
use crate::hlo::{Attrs, Opcode};
use crate::infer;
use crate::Result;

impl XlaBuilder {
    /// `GetDimensionSize(operand, dimension)`: the (runtime) size, `s32[]`.
    pub fn get_dimension_size(&self, operand: XlaOp, dimension: i64) -> Result<XlaOp> {
        let x = self.array("get-dimension-size", operand, 0)?;
        let shape = infer::get_dimension_size(&x, dimension)?;
        let attrs = Attrs {
            dimensions: Some(vec![dimension]),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::GetDimensionSize, shape, &[operand], attrs, vec![]))
    }

    /// `SetDimensionSize(operand, size, dimension)`: the operand with
    /// `dimension` marked dynamic, of runtime size `size` (`s32[]`).
    pub fn set_dimension_size(&self, operand: XlaOp, size: XlaOp, dimension: i64) -> Result<XlaOp> {
        let s = self.arrays("set-dimension-size", &[operand, size])?;
        let shape = infer::set_dimension_size(&s[0], &s[1], dimension)?;
        let attrs = Attrs {
            dimensions: Some(vec![dimension]),
            ..Attrs::default()
        };
        Ok(self.emit(
            Opcode::SetDimensionSize,
            shape,
            &[operand, size],
            attrs,
            vec![],
        ))
    }
}
