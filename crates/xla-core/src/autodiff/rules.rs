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

/// Whether `instr`'s rule holds when it has complex operands or result:
/// JAX's rules are linear transposes (no conjugation), so the rules of
/// holomorphic functions and of data movement hold as they are; `real`,
/// `imag`, `complex`, complex `abs`, conversions and `fft` have rules of
/// their own. Anything else on complex values has none.
fn complex_aware(instr: &HloInstruction, comp: &crate::HloComputation) -> bool {
    use crate::hlo::Family;
    use Opcode::*;
    let complex = |shape: &crate::Shape| shape.element_type().is_some_and(|t| t.is_complex());
    let involved = complex(&instr.shape)
        || instr
            .operands
            .iter()
            .any(|&o| complex(&comp.instr(o).shape));
    !involved
        || matches!(
            instr.opcode.family(),
            Family::DataMovement | Family::Indexing | Family::Dot
        )
        || matches!(
            instr.opcode,
            Add | Subtract
                | Multiply
                | Divide
                | Negate
                | Exp
                | Expm1
                | Log
                | Log1p
                | Sqrt
                | Rsqrt
                | Sin
                | Cos
                | Tan
                | Tanh
                | Abs
                | Real
                | Imag
                | Complex
                | Convert
                | Copy
                | Select
                | Fft
                | Power
        )
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
                if !complex_aware(instr, self.comp) {
                    return Err(no_rule(instr, "it has no gradient rule for complex values"));
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
            DynamicSlice | DynamicUpdateSlice | Gather | Scatter => {
                self.indexing(instr, y, g, wanted)
            }
            Fft => Ok(vec![Some(self.fft(instr, g)?)]),
            ReduceWindow => self.reduce_window(instr, y, g),
            SelectAndScatter => self.select_and_scatter(instr, g),
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
