//! Evaluation of computations: values by instruction, freed after their last
//! use, and the one dispatch from opcode to the op family's rule.

use std::borrow::Cow;

use super::{
    collective, control, custom_call, data_movement, dot, dynamic, elementwise, fft, indexing,
    linalg, normalization, random, reduce, side_effect, sort, InterpError, Interpreter,
};
use crate::hlo::{ComputationId, Form, HloInstruction, InstrId, Opcode};
use crate::{CancelToken, HloModule, Literal, Shape};

/// What an op's rule may use besides its operands.
pub(super) struct Ctx<'a> {
    /// The interpreter (custom calls).
    pub interp: &'a Interpreter,
    /// The module being run (called computations).
    pub module: &'a HloModule,
    /// The device this evaluation runs on (replica, partition, collectives).
    pub device: collective::Device,
    /// Infeed/outfeed queues and send/recv channels.
    pub io: side_effect::Io<'a>,
    /// Stops the run between iterations of a `while` loop.
    pub cancel: &'a CancelToken,
}

/// Runs the entry computation on one device.
pub(super) fn run_entry(
    interp: &Interpreter,
    module: &HloModule,
    args: &[&Literal],
    device: collective::Device,
    io: side_effect::Io<'_>,
    cancel: &CancelToken,
) -> Result<Literal, InterpError> {
    let entry = module.entry_computation();
    let params = entry.parameters();
    if params.len() != args.len() {
        return Err(InterpError::ArgumentCount {
            expected: params.len(),
            actual: args.len(),
        });
    }
    for (index, (&param, arg)) in params.iter().zip(args).enumerate() {
        let param = entry.instr(param);
        if !param.shape.eq_ignoring_layout(arg.shape()) {
            return Err(InterpError::ArgumentShape {
                index,
                name: param.name.clone(),
                expected: Box::new(param.shape.clone().without_layouts()),
                actual: Box::new(arg.shape().clone().without_layouts()),
            });
        }
    }
    verify(module)?;
    let mut ctx = Ctx {
        interp,
        module,
        device,
        io,
        cancel,
    };
    let result = ctx.call(module.entry, args)?;
    with_layouts(result, &module.entry_program_shape().result)
}

impl Ctx<'_> {
    /// Evaluates computation `id` on `args` (one per parameter).
    pub fn call(&mut self, id: ComputationId, args: &[&Literal]) -> Result<Literal, InterpError> {
        self.call_with(id, args.iter().map(|&a| Cow::Borrowed(a)).collect())
    }

    /// Evaluates computation `id` on owned `args`, which it may consume
    /// (a loop body passing its state through moves it instead of copying).
    pub fn call_owned(
        &mut self,
        id: ComputationId,
        args: Vec<Literal>,
    ) -> Result<Literal, InterpError> {
        self.call_with(id, args.into_iter().map(Cow::Owned).collect())
    }

    fn call_with(
        &mut self,
        id: ComputationId,
        mut args: Vec<Cow<'_, Literal>>,
    ) -> Result<Literal, InterpError> {
        let computation = self.module.computation(id);
        let mut remaining: Vec<usize> = vec![0; computation.instructions.len()];
        for instr in &computation.instructions {
            for op in &instr.operands {
                remaining[op.index()] += 1;
            }
        }
        let arg_count = args.len();
        let mut values: Vec<Option<Cow<'_, Literal>>> = vec![None; computation.instructions.len()];
        for id in computation.ids() {
            let instr = computation.instr(id);
            let value = if instr.opcode == Opcode::Parameter {
                let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
                let arg = args.get_mut(number).ok_or_else(|| {
                    invalid(
                        instr,
                        format!("parameter {number} of a call with {arg_count} arguments"),
                    )
                })?;
                let arg = std::mem::replace(arg, Cow::Owned(Literal::token()));
                if has_layouts(&arg, &instr.shape) {
                    arg
                } else {
                    Cow::Owned(with_layouts(arg.into_owned(), &instr.shape)?)
                }
            } else if let Some(moved) = forward(instr, &mut values, &remaining, computation.root) {
                Cow::Owned(with_layouts(moved, &instr.shape)?)
            } else {
                let operands: Vec<&Literal> = instr
                    .operands
                    .iter()
                    .map(|op| {
                        values[op.index()]
                            .as_deref()
                            .expect("operands are evaluated before their users")
                    })
                    .collect();
                let value = dispatch(self, instr, &operands)?;
                Cow::Owned(with_layouts(value, &instr.shape)?)
            };
            values[id.index()] = Some(value);
            for op in &instr.operands {
                remaining[op.index()] -= 1;
                if remaining[op.index()] == 0 && *op != computation.root {
                    values[op.index()] = None;
                }
            }
        }
        let root = values[computation.root.index()]
            .take()
            .expect("the root is evaluated");
        Ok(root.into_owned())
    }
}

/// `get-tuple-element` and `tuple` of owned values at their last use,
/// computed by moving the values instead of copying them. `None` when an
/// operand is still needed, borrowed, or the root.
fn forward(
    instr: &HloInstruction,
    values: &mut [Option<Cow<'_, Literal>>],
    remaining: &[usize],
    root: InstrId,
) -> Option<Literal> {
    let last = |op: &InstrId, values: &[Option<Cow<'_, Literal>>]| {
        remaining[op.index()] == 1
            && *op != root
            && matches!(values[op.index()], Some(Cow::Owned(_)))
    };
    let take =
        |op: &InstrId, values: &mut [Option<Cow<'_, Literal>>]| match values[op.index()].take() {
            Some(Cow::Owned(v)) => v,
            _ => unreachable!("checked to be owned"),
        };
    if instr.opcode == Opcode::GetTupleElement && last(&instr.operands[0], values) {
        let index = usize::try_from(instr.attrs.tuple_index?).ok()?;
        if values[instr.operands[0].index()]
            .as_deref()?
            .tuple_elements()?
            .len()
            <= index
        {
            return None;
        }
        let mut elements = take(&instr.operands[0], values).into_tuple_elements()?;
        return Some(elements.swap_remove(index));
    }
    if instr.opcode == Opcode::Tuple && instr.operands.iter().all(|op| last(op, values)) {
        let elements: Vec<Literal> = instr.operands.iter().map(|op| take(op, values)).collect();
        return Some(Literal::tuple(elements));
    }
    None
}

/// Runs the module verifier, so that the rules can rely on their operands'
/// shapes and attributes, and refuses a module with a result larger than
/// the machine's memory (which would otherwise be filled until the system
/// kills the process).
fn verify(module: &HloModule) -> Result<(), InterpError> {
    crate::verify::verify_module(module)?;
    let Some(memory) = crate::literal::physical_memory() else {
        return Ok(());
    };
    let fits = |name: &str, shape: &Shape| {
        let bytes = shape.saturating_byte_size();
        if bytes > memory {
            return Err(InterpError::OutOfMemory {
                instruction: name.to_string(),
                shape: Box::new(shape.clone()),
                bytes,
                memory,
            });
        }
        Ok(())
    };
    for computation in &module.computations {
        for instr in &computation.instructions {
            fits(&instr.name, &instr.shape)?;
        }
    }
    // The entry's arguments and result are relaid into these layouts,
    // whose padding may make them larger than the instructions' buffers.
    if let Some(layout) = &module.entry_layout {
        fits("entry_computation_layout (result)", &layout.result)?;
        for (i, parameter) in layout.parameters.iter().enumerate() {
            fits(
                &format!("entry_computation_layout (parameter {i})"),
                parameter,
            )?;
        }
    }
    Ok(())
}

/// `true` if every array leaf of `value` has the layout of the matching
/// leaf of `shape` (the default layout where `shape` has none).
fn has_layouts(value: &Literal, shape: &Shape) -> bool {
    match (value.shape(), shape) {
        (Shape::Array(have), Shape::Array(want)) => {
            have.layout_or_default() == want.layout_or_default()
        }
        (Shape::Tuple(_), Shape::Tuple(shapes)) => value
            .tuple_elements()
            .is_some_and(|e| e.iter().zip(shapes).all(|(v, s)| has_layouts(v, s))),
        _ => true,
    }
}

/// The operand in the default (row-major) layout: borrowed if it already is,
/// relaid otherwise. Rules that walk buffers directly call this first.
pub(super) fn row_major(literal: &Literal) -> Result<Cow<'_, Literal>, InterpError> {
    match literal.shape() {
        Shape::Array(a) if !a.layout_or_default().is_default() => Ok(Cow::Owned(
            literal.relayout(&crate::Layout::default_for_rank(a.rank()))?,
        )),
        _ => Ok(Cow::Borrowed(literal)),
    }
}

/// Gives every array leaf of `value` the layout of the matching leaf of
/// `shape` (default layout where `shape` has none).
pub(super) fn with_layouts(value: Literal, shape: &Shape) -> Result<Literal, InterpError> {
    match shape {
        Shape::Array(a) => {
            let want = a.layout_or_default();
            let have = value.array_shape()?.layout_or_default();
            if want == have {
                return Ok(value);
            }
            // Runtime sizes (set-dimension-size) survive the relayout.
            let mut relaid = value.relayout(&want)?;
            if value.has_dynamic_sizes() {
                for d in 0..a.rank() {
                    relaid = relaid.with_dynamic_size(d, value.dynamic_size(d))?;
                }
            }
            Ok(relaid)
        }
        Shape::Tuple(shapes) => {
            if has_layouts(&value, shape) {
                return Ok(value);
            }
            let elements = value.into_tuple_elements().unwrap_or_default();
            Ok(Literal::tuple(
                elements
                    .into_iter()
                    .zip(shapes)
                    .map(|(e, s)| with_layouts(e, s))
                    .collect::<Result<_, _>>()?,
            ))
        }
        Shape::Token | Shape::Opaque => Ok(value),
    }
}

/// The one place an opcode meets its rule.
fn dispatch(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    use Opcode::*;
    match instr.opcode {
        // element-wise
        Compare => elementwise::compare(instr, operands),
        Select => elementwise::select(instr, operands),
        Clamp => elementwise::clamp(instr, operands),
        Convert => elementwise::convert(instr, operands),
        BitcastConvert => elementwise::bitcast_convert(instr, operands),
        ReducePrecision => elementwise::reduce_precision(instr, operands),
        Map => elementwise::map(ctx, instr, operands),
        // data movement
        Bitcast => data_movement::bitcast(instr, operands),
        Broadcast => data_movement::broadcast(instr, operands),
        Concatenate => data_movement::concatenate(instr, operands),
        Copy => data_movement::copy(instr, operands),
        Iota => data_movement::iota(instr),
        Pad => data_movement::pad(instr, operands),
        Reshape => data_movement::reshape(instr, operands),
        Reverse => data_movement::reverse(instr, operands),
        Slice => data_movement::slice(instr, operands),
        Transpose => data_movement::transpose(instr, operands),
        // indexing
        DynamicSlice => indexing::dynamic_slice(instr, operands),
        DynamicUpdateSlice => indexing::dynamic_update_slice(instr, operands),
        Gather => indexing::gather(instr, operands),
        Scatter => indexing::scatter(ctx, instr, operands),
        // reductions
        Reduce => reduce::reduce(ctx, instr, operands),
        ReduceWindow => reduce::reduce_window(ctx, instr, operands),
        SelectAndScatter => reduce::select_and_scatter(ctx, instr, operands),
        Sort => sort::sort(ctx, instr, operands),
        TopK => sort::topk(instr, operands),
        // dot
        Convolution => dot::convolution(instr, operands),
        Dot => dot::dot(instr, operands),
        // control
        Call | Fusion => control::call(ctx, instr, operands),
        Conditional => control::conditional(ctx, instr, operands),
        Constant => control::constant(instr),
        CustomCall => custom_call::custom_call(ctx, instr, operands),
        GetTupleElement => control::get_tuple_element(instr, operands),
        OptimizationBarrier => control::optimization_barrier(operands),
        Parameter => unreachable!("parameters are bound by Ctx::call"),
        Tuple => control::tuple(operands),
        While => control::while_loop(ctx, instr, operands),
        // collectives
        AllGather => collective::all_gather(ctx, instr, operands),
        AllReduce => collective::all_reduce(ctx, instr, operands),
        AllToAll => collective::all_to_all(ctx, instr, operands),
        CollectivePermute => collective::collective_permute(ctx, instr, operands),
        PartitionId => collective::partition_id(ctx),
        ReduceScatter => collective::reduce_scatter(ctx, instr, operands),
        ReplicaId => collective::replica_id(ctx),
        // side effects
        AfterAll => side_effect::after_all(),
        Infeed => side_effect::infeed(ctx, instr),
        Outfeed => side_effect::outfeed(ctx, instr, operands),
        Recv => side_effect::recv(ctx, instr),
        RecvDone => side_effect::recv_done(ctx, instr, operands),
        Send => side_effect::send(ctx, instr, operands),
        SendDone => side_effect::send_done(ctx, instr, operands),
        // random numbers
        Rng => random::rng(ctx, instr, operands),
        RngBitGenerator => random::rng_bit_generator(instr, operands),
        // linear algebra
        Cholesky => linalg::cholesky(instr, operands),
        Fft => fft::fft(instr, operands),
        TriangularSolve => linalg::triangular_solve(instr, operands),
        // batch normalisation
        BatchNormGrad => normalization::batch_norm_grad(instr, operands),
        BatchNormInference => normalization::batch_norm_inference(instr, operands),
        BatchNormTraining => normalization::batch_norm_training(instr, operands),
        // dynamic sizes
        GetDimensionSize => dynamic::get_dimension_size(instr, operands),
        SetDimensionSize => dynamic::set_dimension_size(instr, operands),
        // the plain unary and binary element-wise ops: the table in
        // `elementwise` has their functions
        op => match op.form() {
            Form::Unary(..) => elementwise::unary(instr, operands, op),
            Form::Binary(..) => elementwise::binary(instr, operands, op),
            Form::Own => unreachable!("{op} has its own arm above"),
        },
    }
}

/// The error for an op (or case) a rule does not implement.
pub(super) fn unsupported(instr: &HloInstruction, what: impl Into<String>) -> InterpError {
    InterpError::Unsupported {
        instruction: instr.name.clone(),
        op: instr.opcode,
        what: what.into(),
    }
}

/// The error for an instruction that is invalid at run time.
pub(super) fn invalid(instr: &HloInstruction, message: impl Into<String>) -> InterpError {
    InterpError::Invalid {
        instruction: instr.name.clone(),
        op: instr.opcode,
        message: message.into(),
    }
}
