//! Parameters, constants, tuples, calls, loops, conditionals, custom calls
//! and optimization barriers.

use super::{sanitize, BuilderError, XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{Attrs, Opcode, ProgramShape};
use crate::infer::{self, Signature};
use crate::{Literal, NativeType, Result, Shape};

impl XlaBuilder {
    /// `parameter(number)` of `shape` (its layout is kept; arrays without
    /// one get the default), named `name.N`. Numbers must end up `0…k−1`.
    pub fn parameter(&self, number: i64, shape: &Shape, name: &str) -> Result<XlaOp> {
        if number < 0 {
            return Err(BuilderError::NegativeParameter { number }.into());
        }
        shape.validate()?;
        if let Some(&id) = self.state.borrow().parameters.get(&number) {
            let existing = self.state.borrow().instructions[id.index()].name.clone();
            return Err(BuilderError::ParameterReused {
                number,
                existing,
                builder: self.name.clone(),
            }
            .into());
        }
        let base = if name.is_empty() { "parameter" } else { name };
        let attrs = Attrs {
            parameter_number: Some(number),
            ..Attrs::default()
        };
        let name = self.next_name(&sanitize(base));
        let op = self.emit_named(name, Opcode::Parameter, shape.clone(), &[], attrs, vec![]);
        self.state.borrow_mut().parameters.insert(number, op.id);
        Ok(op)
    }

    /// `constant(literal)`: the literal's shape, layout included.
    pub fn constant(&self, literal: &Literal) -> Result<XlaOp> {
        literal.shape().validate()?;
        let attrs = Attrs {
            literal: Some(literal.clone()),
            ..Attrs::default()
        };
        Ok(self.emit(
            Opcode::Constant,
            literal.shape().clone(),
            &[],
            attrs,
            vec![],
        ))
    }

    /// A scalar constant (XLA's `ConstantR0`).
    pub fn constant_r0<T: NativeType>(&self, value: T) -> Result<XlaOp> {
        self.constant(&Literal::scalar(value))
    }

    /// A rank-1 constant (XLA's `ConstantR1`).
    pub fn constant_r1<T: NativeType>(&self, values: &[T]) -> Result<XlaOp> {
        self.constant(&Literal::vector(values))
    }

    /// `tuple(elements…)`.
    pub fn tuple(&self, elements: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shapes("tuple", elements)?;
        let refs: Vec<&Shape> = shapes.iter().collect();
        infer::tuple(&refs);
        // Structural ops keep their operands' layouts.
        let shape = Shape::Tuple(shapes);
        Ok(self.emit(Opcode::Tuple, shape, elements, Attrs::default(), vec![]))
    }

    /// `get-tuple-element(tuple), index=index`.
    pub fn get_tuple_element(&self, tuple: XlaOp, index: i64) -> Result<XlaOp> {
        let s = self.shapes("get-tuple-element", &[tuple])?;
        infer::get_tuple_element(&s[0], index)?;
        let shape = s[0].tuple_shapes().expect("checked to be a tuple")[index as usize].clone();
        let attrs = Attrs {
            tuple_index: Some(index),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::GetTupleElement, shape, &[tuple], attrs, vec![]))
    }

    /// `call(operands…), to_apply=computation`.
    pub fn call(&self, computation: &XlaComputation, operands: &[XlaOp]) -> Result<XlaOp> {
        let shapes = self.shapes("call", operands)?;
        let refs: Vec<&Shape> = shapes.iter().collect();
        let program = computation.program_shape();
        infer::call(&refs, Signature::from(&program))?;
        let shape = program.result;
        let called = vec![self.embed(computation)];
        Ok(self.emit(Opcode::Call, shape, operands, Attrs::default(), called))
    }

    /// `while(init), condition=…, body=…`: runs `body` while `condition`
    /// holds; `condition: T → pred[]`, `body: T → T`.
    pub fn while_loop(
        &self,
        condition: &XlaComputation,
        body: &XlaComputation,
        init: XlaOp,
    ) -> Result<XlaOp> {
        let s = self.shapes("while", &[init])?;
        let (c, b) = (condition.program_shape(), body.program_shape());
        infer::while_loop(Signature::from(&c), Signature::from(&b), &s[0])?;
        let shape = s[0].clone();
        let called = vec![self.embed(condition), self.embed(body)];
        Ok(self.emit(Opcode::While, shape, &[init], Attrs::default(), called))
    }

    /// `Conditional(pred, true_operand, true_computation, false_operand,
    /// false_computation)`: runs one branch on its operand.
    pub fn conditional(
        &self,
        pred: XlaOp,
        true_operand: XlaOp,
        true_computation: &XlaComputation,
        false_operand: XlaOp,
        false_computation: &XlaComputation,
    ) -> Result<XlaOp> {
        self.conditional_indexed(
            pred,
            &[true_computation, false_computation],
            &[true_operand, false_operand],
        )
    }

    /// `Conditional(branch_index, branch_computations, branch_operands)`:
    /// runs branch `branch_index` (out of range: the last) on its operand.
    /// A `pred` index selects between exactly two branches, true first.
    pub fn conditional_indexed(
        &self,
        branch_index: XlaOp,
        branch_computations: &[&XlaComputation],
        branch_operands: &[XlaOp],
    ) -> Result<XlaOp> {
        let mut operands = vec![branch_index];
        operands.extend_from_slice(branch_operands);
        let shapes = self.shapes("conditional", &operands)?;
        let programs: Vec<ProgramShape> = branch_computations
            .iter()
            .map(|c| c.program_shape())
            .collect();
        let signatures: Vec<Signature> = programs.iter().map(Signature::from).collect();
        let refs: Vec<&Shape> = shapes[1..].iter().collect();
        infer::conditional(&shapes[0], &signatures, &refs)?;
        let shape = programs[0].result.clone();
        let called = branch_computations.iter().map(|c| self.embed(c)).collect();
        Ok(self.emit(
            Opcode::Conditional,
            shape,
            &operands,
            Attrs::default(),
            called,
        ))
    }

    /// `custom-call(operands…), custom_call_target="target"` returning
    /// `shape`; `opaque` (if not empty) travels as `backend_config`.
    pub fn custom_call(
        &self,
        target: &str,
        operands: &[XlaOp],
        shape: &Shape,
        opaque: &str,
    ) -> Result<XlaOp> {
        self.shapes("custom-call", operands)?;
        shape.validate()?;
        let attrs = Attrs {
            custom_call_target: Some(target.to_string()),
            backend_config: (!opaque.is_empty()).then(|| opaque.to_string()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::CustomCall, shape.clone(), operands, attrs, vec![]))
    }

    /// `opt-barrier(operand)`: the identity, but no computation moves across
    /// it.
    pub fn optimization_barrier(&self, operand: XlaOp) -> Result<XlaOp> {
        let s = self.shapes("opt-barrier", &[operand])?;
        let shape = s[0].clone();
        Ok(self.emit(
            Opcode::OptimizationBarrier,
            shape,
            &[operand],
            Attrs::default(),
            vec![],
        ))
    }
}
