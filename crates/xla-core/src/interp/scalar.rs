//! Called scalar computations — the `to_apply` of reduce, reduce-window,
//! map, scatter, sort and select-and-scatter — compiled once into a small
//! register program over [`Scalar`]s, so that calling one per element
//! allocates nothing. Computations the compiler does not handle (anything
//! but scalar element-wise ops, constants, tuples at the root) run through
//! the general evaluator instead, one call per element.

use half::{bf16, f16};

use super::elementwise::table::{Elem, Scalar};
use super::eval::{invalid, Ctx};
use super::InterpError;
use crate::hlo::{
    ComparisonDirection, ComparisonType, ComputationId, Form, HloInstruction, HloModule, Opcode,
};
use crate::{dispatch_native, ArrayShape, Literal, PrimitiveType, Shape, C128, C64};

/// One step of a compiled program; operands and results are registers
/// (one per instruction of the computation).
#[derive(Clone, Debug)]
enum Step {
    Unary(Opcode, usize),
    Binary(Opcode, usize, usize),
    Compare(ComparisonDirection, bool, usize, usize),
    Select(usize, usize, usize),
    Clamp(usize, usize, usize),
    Convert(PrimitiveType, usize),
    Bitcast(PrimitiveType, usize),
    Move(usize),
}

/// A compiled computation: registers (parameters and constants preset),
/// steps writing their registers in order, and the result registers.
#[derive(Clone, Debug)]
struct Program {
    regs: Vec<Scalar>,
    params: Vec<usize>,
    steps: Vec<(Step, usize)>,
    results: Vec<usize>,
}

/// A called computation of scalars → scalar (or a tuple of scalars).
pub(super) struct ScalarFn {
    id: ComputationId,
    /// The calling instruction's name and op, for error messages.
    caller: (String, Opcode),
    program: Option<Program>,
    /// The op of a compiled `op(parameter 0, parameter 1)`.
    binary: Option<Opcode>,
}

impl ScalarFn {
    /// Prepares computation `id` of `module`, called by `caller`.
    pub fn new(module: &HloModule, id: ComputationId, caller: &HloInstruction) -> Self {
        let program = compile(module, id);
        let binary = program
            .as_ref()
            .and_then(|_| module.computation(id).binary_of_parameters());
        ScalarFn {
            id,
            program,
            caller: (caller.name.clone(), caller.opcode),
            binary,
        }
    }

    /// `true` if the computation runs as a compiled program.
    #[cfg(test)]
    pub fn is_compiled(&self) -> bool {
        self.program.is_some()
    }

    /// The op if the computation is `op(parameter 0, parameter 1)` (either
    /// order for commutative ops): reductions then run a typed loop.
    pub fn as_binary(&self) -> Option<Opcode> {
        self.binary
    }

    /// `Some(k)` if the computation returns parameter `k` unchanged (the
    /// "replace" computation of scatter).
    pub fn as_parameter(&self) -> Option<usize> {
        let p = self.program.as_ref()?;
        match (p.steps.as_slice(), p.results.as_slice()) {
            ([], [result]) => p.params.iter().position(|r| r == result),
            _ => None,
        }
    }

    /// `(direction, total order)` if the computation is
    /// `compare(parameter 0, parameter 1)`: sorts then compare keys directly.
    pub fn as_compare(&self) -> Option<(ComparisonDirection, bool)> {
        let p = self.program.as_ref()?;
        let [(Step::Compare(direction, total, a, b), out)] = p.steps.as_slice() else {
            return None;
        };
        let params = (*p.params.first()?, *p.params.get(1)?);
        (p.results == [*out] && (*a, *b) == params).then_some((*direction, *total))
    }

    /// Calls the computation on `args`, writing one value per result
    /// (tuple element) into `out`.
    pub fn call(
        &mut self,
        ctx: &mut Ctx<'_>,
        args: &[Scalar],
        out: &mut [Scalar],
    ) -> Result<(), InterpError> {
        match &mut self.program {
            Some(p) => {
                for (&reg, &arg) in p.params.iter().zip(args) {
                    p.regs[reg] = arg;
                }
                for (step, dst) in &p.steps {
                    let r = &p.regs;
                    let value = match *step {
                        Step::Unary(op, x) => r[x].unary(op),
                        Step::Binary(op, a, b) => r[a].binary(op, r[b]),
                        Step::Compare(direction, total, a, b) => {
                            r[a].compare(direction, total, r[b]).map(Scalar::Pred)
                        }
                        Step::Select(p, a, b) => Some(if r[p].is_true() { r[a] } else { r[b] }),
                        Step::Clamp(lo, x, hi) => r[lo]
                            .binary(Opcode::Maximum, r[x])
                            .and_then(|v| v.binary(Opcode::Minimum, r[hi])),
                        Step::Convert(to, x) => r[x].convert(to),
                        Step::Bitcast(to, x) => r[x].bitcast(to),
                        Step::Move(x) => Some(r[x]),
                    };
                    let Some(value) = value else {
                        let message = format!("{step:?} is not defined on its operands");
                        return Err(error(&self.caller, message));
                    };
                    p.regs[*dst] = value;
                }
                for (o, &reg) in out.iter_mut().zip(&p.results) {
                    *o = p.regs[reg];
                }
                Ok(())
            }
            None => {
                let literals: Vec<Literal> = args.iter().map(|a| a.to_literal()).collect();
                let refs: Vec<&Literal> = literals.iter().collect();
                let result = ctx.call(self.id, &refs)?;
                let values = match result.tuple_elements() {
                    Some(elements) => elements.iter().map(Scalar::from_literal).collect(),
                    None => vec![Scalar::from_literal(&result)],
                };
                for (o, v) in out.iter_mut().zip(values) {
                    *o = v.ok_or_else(|| {
                        error(
                            &self.caller,
                            "the called computation returned a non-scalar".into(),
                        )
                    })?;
                }
                Ok(())
            }
        }
    }
}

/// An error of the calling instruction.
fn error((instruction, op): &(String, Opcode), message: String) -> InterpError {
    InterpError::Invalid {
        instruction: instruction.clone(),
        op: *op,
        message,
    }
}

/// The zero of a scalar shape's element type, if `shape` is a scalar.
fn scalar_type(shape: &Shape) -> Option<PrimitiveType> {
    shape
        .as_array()
        .filter(|a| a.rank() == 0)
        .map(ArrayShape::element_type)
}

/// Compiles computation `id`, or `None` if it uses anything but scalar
/// element-wise ops, constants and a tuple root.
fn compile(module: &HloModule, id: ComputationId) -> Option<Program> {
    use Opcode::*;
    let computation = module.computation(id);
    let mut program = Program {
        regs: Vec::with_capacity(computation.instructions.len()),
        params: Vec::new(),
        steps: Vec::new(),
        results: vec![computation.root.index()],
    };
    for (index, instr) in computation.instructions.iter().enumerate() {
        let ops: Vec<usize> = instr.operands.iter().map(|o| o.index()).collect();
        if instr.opcode == Tuple {
            if index != computation.root.index() {
                return None;
            }
            program.results = ops;
            program.regs.push(Scalar::Pred(false));
            continue;
        }
        let ty = scalar_type(&instr.shape)?;
        let zero = dispatch_native!(ty, T => T::default().into_scalar());
        program.regs.push(zero);
        let step = match instr.opcode {
            Parameter => {
                let number = usize::try_from(instr.attrs.parameter_number?).ok()?;
                if program.params.len() <= number {
                    program.params.resize(number + 1, usize::MAX);
                }
                program.params[number] = index;
                continue;
            }
            Constant => {
                program.regs[index] = Scalar::from_literal(instr.attrs.literal.as_ref()?)?;
                continue;
            }
            op if matches!(op.form(), Form::Unary(..)) => Step::Unary(op, ops[0]),
            op if matches!(op.form(), Form::Binary(..)) => Step::Binary(op, ops[0], ops[1]),
            Compare => {
                let total = instr.attrs.comparison_type == Some(ComparisonType::TotalOrder);
                Step::Compare(instr.attrs.comparison_direction?, total, ops[0], ops[1])
            }
            Select => Step::Select(ops[0], ops[1], ops[2]),
            Clamp => Step::Clamp(ops[0], ops[1], ops[2]),
            Convert => Step::Convert(ty, ops[0]),
            // XLA's optimized modules bitcast between element types of one
            // size (`s32[] bitcast(f32[])` in sort comparators).
            Bitcast | BitcastConvert
                if scalar_type(&computation.instructions.get(ops[0])?.shape)? != ty =>
            {
                Step::Bitcast(ty, ops[0])
            }
            Copy | Reshape | Bitcast | BitcastConvert | OptimizationBarrier => Step::Move(ops[0]),
            GetTupleElement => {
                let tuple = computation.instructions.get(ops[0])?;
                if tuple.opcode != Tuple {
                    return None;
                }
                let index = usize::try_from(instr.attrs.tuple_index?).ok()?;
                Step::Move(tuple.operands.get(index)?.index())
            }
            _ => return None,
        };
        program.steps.push((step, index));
    }
    if program.params.contains(&usize::MAX) {
        return None;
    }
    let results = program.results.clone();
    // A tuple of tuples, or a result that is not a scalar register.
    for r in results {
        scalar_type(&computation.instructions.get(r)?.shape)?;
    }
    Some(program)
}

/// The elements of an array literal, in memory order, readable as
/// [`Scalar`]s.
pub(super) enum Elements<'a> {
    Pred(&'a [bool]),
    S8(&'a [i8]),
    S16(&'a [i16]),
    S32(&'a [i32]),
    S64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F16(&'a [f16]),
    Bf16(&'a [bf16]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    C64(&'a [C64]),
    C128(&'a [C128]),
}

macro_rules! elements_variants {
    ($m:ident) => {
        $m!(Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, Bf16, F32, F64, C64, C128)
    };
}

impl<'a> Elements<'a> {
    /// A view of `literal`'s buffer.
    pub fn of(literal: &'a Literal) -> Result<Self, InterpError> {
        use PrimitiveType as P;
        macro_rules! view {
            ($($v:ident),*) => {
                match literal.array_shape()?.element_type() {
                    $(P::$v => Elements::$v(literal.data()?),)*
                }
            };
        }
        Ok(elements_variants!(view))
    }

    /// Element `i` (in memory order).
    #[inline]
    pub fn get(&self, i: usize) -> Scalar {
        macro_rules! get {
            ($($v:ident),*) => {
                match self {
                    $(Elements::$v(s) => Scalar::$v(s[i]),)*
                }
            };
        }
        elements_variants!(get)
    }
}

/// A row-major literal of `shape` holding `values` (which must have its
/// element type).
pub(super) fn literal_of(
    shape: &ArrayShape,
    values: &[Scalar],
    caller: &HloInstruction,
) -> Result<Literal, InterpError> {
    let shape = shape.clone().with_default_layout();
    let mut out = Literal::zeros(&shape.clone().into())?;
    dispatch_native!(shape.element_type(), T => {
        let data = out.data_mut::<T>()?;
        for (d, v) in data.iter_mut().zip(values) {
            *d = T::from_scalar(*v).ok_or_else(|| {
                invalid(caller, format!("a computation produced {v:?} for an array of {shape}"))
            })?;
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> HloModule {
        text.parse().unwrap()
    }

    #[test]
    fn compiles_element_wise_computations() {
        let m = module(
            "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
             ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  x = f32[] parameter(0)\n  \
             ROOT c = f32[] call(x, x), to_apply=add\n}",
        );
        let id = m.find_computation("add").unwrap();
        let caller = m.entry_computation().root_instr();
        let f = ScalarFn::new(&m, id, caller);
        assert!(f.is_compiled());
        assert_eq!(f.as_binary(), Some(Opcode::Add));
        assert_eq!(f.as_compare(), None);
    }
}
