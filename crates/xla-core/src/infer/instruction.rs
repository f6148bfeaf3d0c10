//! The concrete adapter: infers the shape of one HLO instruction from its
//! operands' shapes, its attributes and its called computations, by reading
//! the attributes the op needs and calling the op's generic rule.
//!
//! Some HLO instructions carry (part of) their arguments in their own shape
//! rather than in attributes; for them the instruction's shape is an input:
//!
//! | op                                   | what the shape supplies                 |
//! |--------------------------------------|-----------------------------------------|
//! | `broadcast`, `reshape`, `iota`, `rng`, `bitcast` | the result dimensions       |
//! | `convert`, `bitcast-convert`         | the new element type                    |
//! | `infeed`, `recv`                     | the data shape (tuple element 0)        |
//! | `rng-bit-generator`                  | the bits shape (tuple element 1)        |
//! | `all-gather`, `reduce-scatter`       | the shard count, when `replica_groups` is empty |
//! | `parameter`, `custom-call`           | everything: the shape is trusted        |
//!
//! `constant` returns its literal's shape.

use std::cell::Cell;

use super::check::{self, bare};
use super::error::InferError;
use super::parts::Count;
use super::{Signature, *};
use crate::hlo::{Attrs, DotDimensionNumbers, Form, Opcode, ProgramShape, RngAlgorithm, Window};
use crate::{ArrayShape, Shape};

/// The shape of an instruction `opcode` with these operand shapes,
/// attributes and called-computation signatures. `shape` is the
/// instruction's own shape, read only by the ops in the module docs' table.
/// Layouts are ignored and the result has none.
pub fn infer_instruction(
    opcode: Opcode,
    operands: &[&Shape],
    attrs: &Attrs,
    called: &[ProgramShape],
    shape: &Shape,
) -> Result<Shape, InferError> {
    let cx = Context {
        op: opcode.name(),
        operands,
        attrs,
        called,
        declared: shape,
        calls_checked: Cell::new(false),
    };
    let result = infer(opcode, &cx)?;
    if !cx.calls_checked.get() && !called.is_empty() {
        return Err(InferError::CalledCount {
            op: cx.op,
            expected: Count::Exactly(0),
            actual: called.len(),
        });
    }
    Ok(result)
}

/// What one instruction provides, with accessors that turn absences into
/// typed errors.
struct Context<'a> {
    op: &'static str,
    operands: &'a [&'a Shape],
    attrs: &'a Attrs,
    called: &'a [ProgramShape],
    declared: &'a Shape,
    /// Set once an arm has checked the called computations.
    calls_checked: Cell<bool>,
}

impl<'a> Context<'a> {
    fn count(&self, expected: Count) -> Result<(), InferError> {
        check::operand_count(self.op, self.operands.len(), expected)
    }

    fn array(&self, i: usize) -> Result<&'a ArrayShape, InferError> {
        check::array(self.op, i, self.operands[i])
    }

    fn arrays(&self, from: usize) -> Result<Vec<&'a ArrayShape>, InferError> {
        (from..self.operands.len()).map(|i| self.array(i)).collect()
    }

    fn attr<T>(&self, value: &'a Option<T>, attribute: &'static str) -> Result<&'a T, InferError> {
        value.as_ref().ok_or(InferError::MissingAttribute {
            op: self.op,
            attribute,
        })
    }

    /// The single entry of `dimensions={d}`.
    fn dimension(&self) -> Result<i64, InferError> {
        match self.attr(&self.attrs.dimensions, "dimensions")?.as_slice() {
            [d] => Ok(*d),
            other => Err(InferError::InvalidAttribute {
                op: self.op,
                attribute: "dimensions",
                value: DimList(other.to_vec()).to_string(),
                requirement: "it must name exactly one dimension",
            }),
        }
    }

    fn calls(&self, expected: Count) -> Result<Vec<Signature<'a>>, InferError> {
        self.calls_checked.set(true);
        let actual = self.called.len();
        if !expected.admits(actual) {
            return Err(InferError::CalledCount {
                op: self.op,
                expected,
                actual,
            });
        }
        Ok(self.called.iter().map(Signature::from).collect())
    }

    fn call(&self) -> Result<Signature<'a>, InferError> {
        Ok(self.calls(Count::Exactly(1))?[0])
    }

    /// The element type the instruction declares for itself, if an array.
    fn declared_element_type(&self) -> Option<crate::PrimitiveType> {
        self.declared.element_type()
    }

    fn declared_array(&self) -> Result<&'a ArrayShape, InferError> {
        self.declared
            .as_array()
            .ok_or_else(|| self.declared_error("an array"))
    }

    /// Element `i` of a tuple shape of `len` elements.
    fn declared_element(
        &self,
        i: usize,
        len: usize,
        expected: &'static str,
    ) -> Result<&'a Shape, InferError> {
        match self.declared {
            Shape::Tuple(t) if t.len() == len => Ok(&t[i]),
            _ => Err(self.declared_error(expected)),
        }
    }

    fn declared_error(&self, expected: &'static str) -> InferError {
        InferError::DeclaredShape {
            op: self.op,
            shape: bare(self.declared),
            expected,
        }
    }

    /// The group size given by `replica_groups`, if any.
    fn group_size(&self) -> Result<Option<usize>, InferError> {
        let groups = self.attrs.replica_groups.as_deref().unwrap_or(&[]);
        replica_group_size(self.op, groups)
    }

    /// The shard count of all-gather (`gather = true`) or reduce-scatter:
    /// the group size, or else the ratio of the operand's and the declared
    /// shape's dimension `d` (1 when that ratio is not a whole number, so
    /// the verifier then reports the mismatch).
    fn shard_count(&self, d: i64, gather: bool) -> Result<i64, InferError> {
        if let Some(size) = self.group_size()? {
            return Ok(size as i64);
        }
        let declared = match self.declared {
            Shape::Tuple(t) => t.first(),
            other => Some(other),
        };
        let size_at = |s: Option<&Shape>| {
            s.and_then(Shape::as_array)
                .and_then(|a| a.dims().get(usize::try_from(d).ok()?).copied())
        };
        let operand = size_at(self.operands.first().copied());
        let (small, big) = match (operand, size_at(declared)) {
            (Some(o), Some(r)) if gather => (o, r),
            (Some(o), Some(r)) => (r, o),
            _ => return Ok(1),
        };
        Ok(if small > 0 && big % small == 0 {
            big / small
        } else {
            1
        })
    }
}

/// Operands of an HLO element-wise op must have the result's dimensions:
/// implicit broadcasting happens only in the builder, which emits explicit
/// broadcasts.
fn same_operand_dims(
    op: &'static str,
    lhs: &ArrayShape,
    rhs: &ArrayShape,
) -> Result<(), InferError> {
    if lhs.rank() != rhs.rank() {
        return Err(InferError::RankMismatch {
            op,
            index: 1,
            shape: check::bare_array(rhs),
            rank: rhs.rank(),
            other_index: 0,
            other: check::bare_array(lhs),
            other_rank: lhs.rank(),
        });
    }
    match lhs.dims().iter().zip(rhs.dims()).position(|(a, b)| a != b) {
        Some(dim) => Err(InferError::Incompatible {
            op,
            lhs: check::bare_array(lhs),
            rhs: check::bare_array(rhs),
            dim,
            lhs_size: lhs.dims()[dim],
            rhs_size: rhs.dims()[dim],
        }),
        None => Ok(()),
    }
}

fn infer(opcode: Opcode, cx: &Context<'_>) -> Result<Shape, InferError> {
    use Opcode::*;
    let attrs = cx.attrs;
    let exactly = |n| cx.count(Count::Exactly(n));
    let shape = match opcode {
        Compare => {
            exactly(2)?;
            let (lhs, rhs) = (cx.array(0)?, cx.array(1)?);
            let direction = *cx.attr(&attrs.comparison_direction, "direction")?;
            let out = compare(lhs, rhs, None, direction, attrs.comparison_type)?;
            same_operand_dims(cx.op, lhs, rhs)?;
            out.into()
        }
        Select => {
            exactly(3)?;
            select(cx.operands[0], cx.operands[1], cx.operands[2])?
        }
        Clamp => {
            exactly(3)?;
            clamp(cx.array(0)?, cx.array(1)?, cx.array(2)?)?.into()
        }
        Convert => {
            exactly(1)?;
            convert(cx.array(0)?, cx.declared_array()?.element_type())?.into()
        }
        BitcastConvert => {
            exactly(1)?;
            bitcast_convert(cx.array(0)?, cx.declared_array()?.element_type())?.into()
        }
        ReducePrecision => {
            exactly(1)?;
            let exponent_bits = *cx.attr(&attrs.exponent_bits, "exponent_bits")?;
            let mantissa_bits = *cx.attr(&attrs.mantissa_bits, "mantissa_bits")?;
            reduce_precision(cx.array(0)?, exponent_bits, mantissa_bits)?.into()
        }
        Map => {
            cx.count(Count::AtLeast(1))?;
            let arrays = cx.arrays(0)?;
            // XLA's text may omit `dimensions`: a map applies to all of them.
            let all: Vec<i64> = (0..arrays[0].rank() as i64).collect();
            let dimensions = attrs.dimensions.as_deref().unwrap_or(&all);
            map(&arrays, cx.call()?, dimensions)?.into()
        }
        Bitcast => {
            exactly(1)?;
            bitcast(cx.array(0)?, cx.declared_array()?)?.into()
        }
        Broadcast => {
            exactly(1)?;
            let dimensions = cx.attr(&attrs.dimensions, "dimensions")?;
            in_dim_broadcast(cx.array(0)?, cx.declared_array()?.dims(), dimensions)?.into()
        }
        Concatenate => {
            cx.count(Count::AtLeast(1))?;
            concatenate(&cx.arrays(0)?, cx.dimension()?)?.into()
        }
        Copy => {
            exactly(1)?;
            copy(cx.operands[0])
        }
        Iota => {
            exactly(0)?;
            let dimension = *cx.attr(&attrs.iota_dimension, "iota_dimension")?;
            iota(cx.declared_array()?, dimension)?.into()
        }
        Pad => {
            exactly(2)?;
            let config: Vec<PadAmounts> = cx
                .attr(&attrs.padding, "padding")?
                .iter()
                .map(PadAmounts::from)
                .collect();
            pad(cx.array(0)?, cx.array(1)?, &config)?.into()
        }
        Reshape => {
            exactly(1)?;
            reshape(cx.array(0)?, cx.declared_array()?.dims())?.into()
        }
        Reverse => {
            exactly(1)?;
            reverse(cx.array(0)?, cx.attr(&attrs.dimensions, "dimensions")?)?.into()
        }
        Slice => {
            exactly(1)?;
            let dims = cx.attr(&attrs.slice, "slice")?;
            let starts: Vec<i64> = dims.iter().map(|d| d.start).collect();
            let limits: Vec<i64> = dims.iter().map(|d| d.limit).collect();
            let strides: Vec<i64> = dims.iter().map(|d| d.stride).collect();
            slice(cx.array(0)?, &starts, &limits, &strides)?.into()
        }
        Transpose => {
            exactly(1)?;
            transpose(cx.array(0)?, cx.attr(&attrs.dimensions, "dimensions")?)?.into()
        }
        DynamicSlice => {
            cx.count(Count::AtLeast(1))?;
            let sizes = cx.attr(&attrs.dynamic_slice_sizes, "dynamic_slice_sizes")?;
            dynamic_slice(cx.array(0)?, &cx.arrays(1)?, sizes)?.into()
        }
        DynamicUpdateSlice => {
            cx.count(Count::AtLeast(2))?;
            dynamic_update_slice(cx.array(0)?, cx.array(1)?, &cx.arrays(2)?)?.into()
        }
        Gather => {
            exactly(2)?;
            let dims = cx.attr(&attrs.gather_dims, "offset_dims")?;
            let sizes = cx.attr(&attrs.gather_slice_sizes, "slice_sizes")?;
            gather(cx.array(0)?, cx.array(1)?, dims, sizes)?.into()
        }
        Scatter => {
            cx.count(Count::OperandsIndicesUpdates)?;
            let dims = cx.attr(&attrs.scatter_dims, "update_window_dims")?;
            let arrays = cx.arrays(0)?;
            let n = arrays.len() / 2;
            scatter(&arrays[..n], arrays[n], &arrays[n + 1..], cx.call()?, dims)?
        }
        Reduce => {
            cx.count(Count::InputsAndInits)?;
            let dimensions = cx.attr(&attrs.dimensions, "dimensions")?;
            let arrays = cx.arrays(0)?;
            let (inputs, inits) = arrays.split_at(arrays.len() / 2);
            reduce(inputs, inits, cx.call()?, dimensions)?
        }
        ReduceWindow => {
            cx.count(Count::InputsAndInits)?;
            let window = cx.attr(&attrs.window, "window")?;
            let arrays = cx.arrays(0)?;
            let (inputs, inits) = arrays.split_at(arrays.len() / 2);
            reduce_window(inputs, inits, cx.call()?, window)?
        }
        SelectAndScatter => {
            exactly(3)?;
            let window = cx.attr(&attrs.window, "window")?;
            let calls = cx.calls(Count::Exactly(2))?;
            let (operand, source, init) = (cx.array(0)?, cx.array(1)?, cx.array(2)?);
            select_and_scatter(operand, calls[0], window, source, init, calls[1])?.into()
        }
        Sort => {
            cx.count(Count::AtLeast(1))?;
            sort(&cx.arrays(0)?, cx.dimension()?, cx.call()?)?
        }
        TopK => {
            exactly(1)?;
            topk(cx.array(0)?, cx.attr(&attrs.k, "k")?)?
        }
        Dot => {
            exactly(2)?;
            let none = DotDimensionNumbers::default();
            let dims = attrs.dot_dims.as_ref().unwrap_or(&none);
            let shape = dot_general(cx.array(0)?, cx.array(1)?, dims)?;
            with_preferred_element_type(Dot, shape, cx.declared_element_type())?.into()
        }
        Convolution => {
            exactly(2)?;
            let none = Window::default();
            let window = attrs.window.as_ref().unwrap_or(&none);
            let dims = cx.attr(&attrs.conv_dims, "dim_labels")?;
            let feature_groups = attrs.feature_group_count.unwrap_or(1);
            let batch_groups = attrs.batch_group_count.unwrap_or(1);
            let (lhs, rhs) = (cx.array(0)?, cx.array(1)?);
            let shape = convolution(lhs, rhs, window, dims, feature_groups, batch_groups)?;
            with_preferred_element_type(Convolution, shape, cx.declared_element_type())?.into()
        }
        Call => call(cx.operands, cx.call()?)?,
        Fusion => fusion(cx.operands, cx.call()?)?,
        While => {
            exactly(1)?;
            let calls = cx.calls(Count::Exactly(2))?;
            while_loop(calls[0], calls[1], cx.operands[0])?
        }
        Conditional => {
            cx.count(Count::AtLeast(1))?;
            let branches = cx.calls(Count::AtLeast(1))?;
            conditional(cx.operands[0], &branches, &cx.operands[1..])?
        }
        Tuple => tuple(cx.operands),
        GetTupleElement => {
            exactly(1)?;
            let index = *cx.attr(&attrs.tuple_index, "index")?;
            get_tuple_element(cx.operands[0], index)?
        }
        OptimizationBarrier => {
            exactly(1)?;
            optimization_barrier(cx.operands[0])
        }
        Constant => {
            exactly(0)?;
            let literal = cx.attr(&attrs.literal, "literal")?;
            literal.shape().clone().without_layouts()
        }
        Parameter => {
            exactly(0)?;
            cx.attr(&attrs.parameter_number, "parameter number")?;
            check::plain(cx.declared)
        }
        CustomCall => {
            cx.calls_checked.set(true);
            custom_call(
                cx.operands,
                attrs.operand_layout_constraints.as_deref(),
                cx.declared,
            )?
        }
        AfterAll => after_all(cx.operands)?,
        Infeed => {
            exactly(1)?;
            let data = cx.declared_element(0, 2, "a tuple (data, token[])")?;
            infeed(cx.operands[0], data)?
        }
        Outfeed => {
            exactly(2)?;
            outfeed(cx.operands[0], cx.operands[1], attrs.outfeed_shape.as_ref())?
        }
        Send => {
            exactly(2)?;
            send(cx.operands[0], cx.operands[1])?
        }
        SendDone => {
            exactly(1)?;
            send_done(cx.operands[0])?
        }
        Recv => {
            exactly(1)?;
            let data = cx.declared_element(0, 3, "a tuple (data, u32[], token[])")?;
            recv(cx.operands[0], data)?
        }
        RecvDone => {
            exactly(1)?;
            recv_done(cx.operands[0])?
        }
        AllGather => {
            cx.count(Count::AtLeast(1))?;
            let d = cx.dimension()?;
            all_gather(cx.operands, d, cx.shard_count(d, true)?)?
        }
        AllReduce => {
            cx.count(Count::AtLeast(1))?;
            all_reduce(cx.operands, cx.call()?)?
        }
        ReduceScatter => {
            cx.count(Count::AtLeast(1))?;
            let d = cx.dimension()?;
            let shards = cx.shard_count(d, false)?;
            reduce_scatter(cx.operands, cx.call()?, d, shards)?
        }
        AllToAll => {
            let split = match attrs.dimensions {
                Some(_) => Some(cx.dimension()?),
                None => None,
            };
            all_to_all_instruction(cx.operands, split, cx.group_size()?)?
        }
        CollectivePermute => {
            exactly(1)?;
            let pairs = cx.attr(&attrs.source_target_pairs, "source_target_pairs")?;
            collective_permute(cx.operands[0], pairs)?
        }
        ReplicaId => {
            exactly(0)?;
            replica_id().into()
        }
        PartitionId => {
            exactly(0)?;
            partition_id().into()
        }
        Rng => {
            exactly(2)?;
            let distribution = *cx.attr(&attrs.rng_distribution, "distribution")?;
            rng(
                distribution,
                cx.array(0)?,
                cx.array(1)?,
                cx.declared_array()?,
            )?
            .into()
        }
        RngBitGenerator => {
            exactly(1)?;
            let algorithm = attrs.rng_algorithm.unwrap_or(RngAlgorithm::Default);
            let bits = cx.declared_element(1, 2, "a tuple (state, bits)")?;
            let bits = bits
                .as_array()
                .ok_or_else(|| cx.declared_error("a tuple (state, bits) with array bits"))?;
            rng_bit_generator(algorithm, cx.array(0)?, bits)?
        }
        Cholesky => {
            exactly(1)?;
            cholesky(cx.array(0)?)?.into()
        }
        TriangularSolve => {
            exactly(2)?;
            let options = cx.attr(&attrs.triangular_solve, "left_side")?;
            triangular_solve(cx.array(0)?, cx.array(1)?, options)?.into()
        }
        Fft => {
            exactly(1)?;
            let fft_type = *cx.attr(&attrs.fft_type, "fft_type")?;
            let length = cx.attr(&attrs.fft_length, "fft_length")?;
            fft(cx.array(0)?, fft_type, length)?.into()
        }
        BatchNormTraining => {
            exactly(3)?;
            let f = *cx.attr(&attrs.feature_index, "feature_index")?;
            batch_norm_training(cx.array(0)?, cx.array(1)?, cx.array(2)?, f)?
        }
        BatchNormInference => {
            exactly(5)?;
            let f = *cx.attr(&attrs.feature_index, "feature_index")?;
            let a = cx.arrays(0)?;
            batch_norm_inference(a[0], a[1], a[2], a[3], a[4], f)?.into()
        }
        BatchNormGrad => {
            exactly(5)?;
            let f = *cx.attr(&attrs.feature_index, "feature_index")?;
            let a = cx.arrays(0)?;
            batch_norm_grad(a[0], a[1], a[2], a[3], a[4], f)?
        }
        GetDimensionSize => {
            exactly(1)?;
            get_dimension_size(cx.array(0)?, cx.dimension()?)?.into()
        }
        SetDimensionSize => {
            exactly(2)?;
            set_dimension_size(cx.array(0)?, cx.array(1)?, cx.dimension()?)?.into()
        }
        // The plain element-wise ops: the form on their row is their rule.
        _ => match opcode.form() {
            Form::Unary(..) => {
                exactly(1)?;
                unary(opcode, cx.array(0)?)?.into()
            }
            Form::Binary(..) => {
                exactly(2)?;
                let (lhs, rhs) = (cx.array(0)?, cx.array(1)?);
                let out = binary(opcode, lhs, rhs, None)?;
                same_operand_dims(cx.op, lhs, rhs)?;
                out.into()
            }
            Form::Own => unreachable!("{opcode} has its own arm above"),
        },
    };
    Ok(shape)
}
