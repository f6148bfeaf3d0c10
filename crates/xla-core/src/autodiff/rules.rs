//! Which rule differentiates each opcode.

use super::{Ct, GradError, Tape};
use crate::builder::XlaOp;
use crate::hlo::{Form, HloInstruction, InstrId, Opcode};
use crate::Result;

/// The error for an instruction the gradient cannot pass through.
pub(super) fn no_rule(instr: &HloInstruction, reason: &'static str) -> crate::Error {
    GradError::NoRule {
        instruction: instr.name.clone(),
        opcode: instr.opcode.name(),
        reason,
    }
    .into()
}

impl Tape<'_> {
    /// The cotangent contribution of instruction `id`, whose cotangent is
    /// `ct`, to each of its operands (`None`: none); `wanted` says which
    /// operands need one.
    pub(super) fn rule(&self, id: InstrId, ct: Ct, wanted: &[bool]) -> Result<Vec<Option<Ct>>> {
        let instr = self.comp.instr(id);
        match instr.opcode {
            Opcode::Tuple => match ct {
                Ct::Tuple(parts) => Ok(parts),
                Ct::Array(_) => Err(no_rule(instr, "an array cotangent for a tuple")),
            },
            Opcode::GetTupleElement => {
                let arity = self
                    .comp
                    .instr(instr.operands[0])
                    .shape
                    .tuple_shapes()
                    .map_or(0, <[_]>::len);
                let mut parts = vec![None; arity];
                parts[instr.attrs.tuple_index.unwrap_or(0) as usize] = Some(ct);
                Ok(vec![Some(Ct::Tuple(parts))])
            }
            Opcode::OptimizationBarrier => Ok(vec![Some(ct)]),
            Opcode::While => self.while_rule(id, instr, ct),
            Opcode::Conditional => self.conditional_rule(instr, ct, wanted),
            Opcode::CustomCall | Opcode::Cholesky | Opcode::TriangularSolve => {
                self.linalg_rule(instr, self.value(id)?, ct)
            }
            Opcode::Sort | Opcode::TopK | Opcode::Reduce => {
                let arrays = self.multi_output_rule(instr, self.value(id)?, ct)?;
                Ok(arrays.into_iter().map(|a| a.map(Ct::Array)).collect())
            }
            _ => {
                let g = ct.array(instr)?;
                let complex =
                    |shape: &crate::Shape| shape.element_type().is_some_and(|t| t.is_complex());
                let operands = instr.operands.iter().map(|&o| &self.comp.instr(o).shape);
                if complex(&instr.shape) || operands.into_iter().any(complex) {
                    return Err(no_rule(instr, "complex values are not differentiated"));
                }
                let arrays = self.array_rule(instr, self.value(id)?, g, wanted)?;
                Ok(arrays.into_iter().map(|a| a.map(Ct::Array)).collect())
            }
        }
    }

    /// The rule of an instruction with an array result.
    fn array_rule(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        g: XlaOp,
        wanted: &[bool],
    ) -> Result<Vec<Option<XlaOp>>> {
        use Opcode::*;
        match instr.opcode {
            Select | Clamp | Convert | Copy | ReducePrecision => self.elementwise_special(instr, g),
            Broadcast | Reshape | Bitcast | Transpose | Slice | Pad | Concatenate | Reverse => {
                self.data_movement(instr, g)
            }
            DynamicSlice | DynamicUpdateSlice | Gather | Scatter => self.indexing(instr, g, wanted),
            ReduceWindow => self.reduce_window(instr, y, g),
            Dot => self.dot(instr, g, wanted),
            Convolution => self.convolution(instr, g, wanted),
            _ => match instr.opcode.form() {
                Form::Unary(..) => Ok(vec![self.unary(instr, y, g)?]),
                Form::Binary(..) => self.binary(instr, y, g, wanted),
                _ => Err(no_rule(instr, "it has no gradient rule")),
            },
        }
    }
}
