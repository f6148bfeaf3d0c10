//! What the emitters can compile, asked by the fusion planner before it
//! fuses anything: whatever fails here runs through the interpreter.

use xla_core::hlo::{ComputationId, Form, HloComputation, HloInstruction, InstrId};
use xla_core::layout::COMBINE_DIM;
use xla_core::{HloModule, Opcode, PrimitiveType, Shape};

use super::ops::{op_of, Op};
use super::Unsupported;

/// `Ok` if instruction `id` of `comp` can be computed inside a kernel (as
/// a fusion member or root).
pub fn check(module: &HloModule, comp: &HloComputation, id: InstrId) -> Result<(), Unsupported> {
    let instr = comp.instr(id);
    let op = instr.opcode;
    check_shape(op, &instr.shape)?;
    for &o in &instr.operands {
        check_shape(op, &comp.instr(o).shape)?;
    }
    let first = instr
        .operands
        .first()
        .and_then(|&o| comp.instr(o).shape.element_type());
    let complex = instr
        .shape
        .array_leaves()
        .iter()
        .map(|a| a.element_type())
        .chain(first)
        .any(|t| t.is_complex());
    if complex {
        match op_of(op) {
            Op::Unary(_) | Op::Binary(_) | Op::Compare | Op::Clamp | Op::Complex => {
                return super::complex::check(instr, first.unwrap_or(PrimitiveType::Pred));
            }
            Op::ReducePrecision => {
                return Err(Unsupported::new(op, "complex values"));
            }
            Op::Map | Op::Select | Op::Convert | Op::BitcastConvert | Op::Other => {}
        }
    }
    use Opcode::*;
    match op {
        // `c128` constants (16 bytes) are read from buffers.
        Constant => match &instr.shape {
            Shape::Array(a) if a.rank() == 0 && a.element_type().byte_size() <= 8 => Ok(()),
            _ => Err(Unsupported::new(op, "array constants live in buffers")),
        },
        BitcastConvert | Clamp | Compare | Convert | ReducePrecision | Select => Ok(()),
        _ if op.form() != Form::Own => Ok(()),
        Map => check_scalar_computation(module, op, instr.called.first().copied()),
        Reduce => check_scalar_computation(module, op, instr.called.first().copied()),
        Gather if collapses_an_empty_slice(instr) => Err(Unsupported::new(
            op,
            "a collapsed slice dimension of size 0 (the result is all zeros)",
        )),
        Broadcast | Concatenate | Copy | DynamicSlice | DynamicUpdateSlice | Gather | Iota
        | Pad | Reshape | Reverse | Slice | Transpose => Ok(()),
        Convolution => super::convolution::check(instr),
        ReduceWindow => {
            super::reduce_window::check(instr)?;
            check_scalar_computation(module, op, instr.called.first().copied())
        }
        Scatter => {
            let indices = instr.operands.get(1).map(|&o| &comp.instr(o).shape);
            let index_type = indices.and_then(|s| s.element_type());
            super::scatter::check(instr, index_type.unwrap_or(PrimitiveType::Pred))?;
            check_scalar_computation(module, op, instr.called.first().copied())
        }
        SelectAndScatter => {
            super::select_and_scatter::check(instr)?;
            check_scalar_computation(module, op, instr.called.first().copied())?;
            check_scalar_computation(module, op, instr.called.get(1).copied())
        }
        Sort | TopK => {
            let operand = instr.operands.first().map(|&o| &comp.instr(o).shape);
            let dims = operand.and_then(|s| s.as_array()).map(|a| a.dims());
            super::sort::check(instr, dims.unwrap_or_default())?;
            match op {
                Sort => check_scalar_computation(module, op, instr.called.first().copied()),
                _ => Ok(()),
            }
        }
        RngBitGenerator => {
            let state = instr.operands.first().map(|&o| &comp.instr(o).shape);
            state.map_or(Ok(()), |s| super::rng_bit_generator::check(instr, s))
        }
        Bitcast => {
            let dense = |s: &Shape| {
                s.as_array()
                    .is_some_and(|a| a.layout_or_default().is_dense())
            };
            let operand = instr.operands.first().map(|&o| &comp.instr(o).shape);
            if !(dense(&instr.shape) && operand.is_some_and(dense)) {
                Err(Unsupported::new(
                    op,
                    "bitcast between tiled or padded layouts",
                ))
            } else if operand.and_then(Shape::element_type) != instr.shape.element_type() {
                // Kernels read a bitcast's elements as its operand's.
                Err(Unsupported::new(
                    op,
                    "bitcast that changes the element type",
                ))
            } else {
                Ok(())
            }
        }
        _ => Err(Unsupported::new(op, "not computed by kernels")),
    }
}

/// Element types the kernels handle, and layouts they can address.
fn check_shape(op: Opcode, shape: &Shape) -> Result<(), Unsupported> {
    for a in shape.array_leaves() {
        if a.is_dynamic() {
            return Err(Unsupported::new(
                op,
                format!("{shape} has dynamic dimension sizes, which kernels do not read"),
            ));
        }
        let layout = a.layout_or_default();
        if layout.tiles.iter().any(|t| t.dims.contains(&COMBINE_DIM)) {
            return Err(Unsupported::new(
                op,
                format!("layout of {shape} combines dimensions in a tile"),
            ));
        }
    }
    if shape.is_token() {
        return Err(Unsupported::new(op, "token values"));
    }
    Ok(())
}

/// A reducer or map computation: scalar parameters, scalar constants and
/// elementwise ops the kernels compile.
fn check_scalar_computation(
    module: &HloModule,
    op: Opcode,
    called: Option<ComputationId>,
) -> Result<(), Unsupported> {
    let called = called.ok_or_else(|| Unsupported::new(op, "no called computation"))?;
    let comp = module.computation(called);
    for id in comp.ids() {
        let instr = comp.instr(id);
        let scalar = instr.shape.as_array().is_some_and(|a| a.rank() == 0);
        let ok = if instr.opcode == Opcode::Parameter || instr.opcode == Opcode::Constant {
            scalar
        } else if instr.opcode == Opcode::Tuple {
            id == comp.root
        } else {
            let elementwise = match op_of(instr.opcode) {
                Op::Unary(_)
                | Op::Binary(_)
                | Op::Compare
                | Op::Select
                | Op::Clamp
                | Op::Convert
                | Op::BitcastConvert => true,
                Op::ReducePrecision | Op::Map | Op::Complex | Op::Other => false,
            };
            scalar && elementwise && check(module, comp, id).is_ok()
        };
        if !ok {
            return Err(Unsupported::new(
                op,
                format!(
                    "computation `{}` uses `{}` ({}), which kernels do not compile",
                    comp.name, instr.name, instr.opcode
                ),
            ));
        }
    }
    Ok(())
}

/// A gather whose collapsed slice dimension has size 0: its result is not
/// empty, but there is nothing to read at the clamped start (which may be
/// one past the end); XLA and the interpreter give zeros.
fn collapses_an_empty_slice(instr: &HloInstruction) -> bool {
    let (Some(dims), Some(sizes)) = (&instr.attrs.gather_dims, &instr.attrs.gather_slice_sizes)
    else {
        return false;
    };
    dims.collapsed_slice_dims
        .iter()
        .any(|&d| usize::try_from(d).is_ok_and(|d| sizes.get(d) == Some(&0)))
}
