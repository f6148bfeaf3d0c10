//! Elemental generators: the value of any instruction of a fusion at an
//! [`Index`], composed from its operands' generators (XLA's
//! `ElementalIrEmitter`); the element-wise ops themselves are lowered by
//! `elementwise.rs`.
//!
//! [`Elemental::gen`] is the generator of every instruction at once: an
//! instruction read from a buffer (a fusion input) loads it; a member of
//! the fusion applies its op to its operands' generators at the indices the
//! op maps to (elementwise ops at the same index, data movement at
//! transformed indices, see `data_movement.rs`); a reduce of a row kernel or
//! the dot of an epilogue yields the value its kernel computed
//! ([`Elemental::bind`]). Results are cached per (instruction, index)
//! within a control-flow scope, so an instruction used twice at the same
//! index is computed once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use cranelift_codegen::ir::{types, SourceLoc, Value};
use xla_core::hlo::{ComputationId, Family, Form, HloComputation, InstrId};
use xla_core::{HloModule, Literal, Opcode, PrimitiveType, Shape};

use super::access::{pack, read, read_from, splat_elem, write, Access, BufferSpec};
use super::bitcast_convert::{bitcast_convert, bitcast_convert_resized};
use super::convert::{convert, reduce_precision};
use super::elementwise::{self, splat_pred};
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::ops::{op_of, Op};
use super::repr::{constant, Const};
use super::{convolution, data_movement, gather, reduce_window, Unsupported};
use crate::fusion::RowPass;
use crate::math::UnaryFn;

/// About how many values (each staged math function's carried values and
/// argument, per vector) [`Elemental::staged_step`] keeps live between
/// stages: most of the 16 vector registers, leaving the rest to the code
/// of the stages: ew_gelu (one tanh, 3 values per vector) runs 13–14% faster
/// in groups of 4 vectors than with no staging, while a tanh and an exp
/// staged together in groups of 4 (an earlier version that staged exp)
/// ran 20% slower, as their carried values spilled.
const STAGED_VALUES: usize = 12;

/// Values one staged function keeps live per vector between stages: tanh's
/// two carried values and its argument.
const VALUES_PER_STAGED_OP: usize = 3;

/// A value computed by the kernel itself rather than by a generator.
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    /// The same value at every index the generator is asked for (a reduce
    /// result at the current row), as a scalar.
    Uniform(Value),
    /// The value at the index about to be evaluated, in register form (a
    /// dot result loaded from its output block; the planner guarantees the
    /// epilogue reads it only at the index it computes).
    Here(Value),
}

/// A fusion's inputs: each one's buffer spec and index among the kernel's
/// buffers.
pub type InputBuffers = HashMap<InstrId, (BufferSpec, usize)>;

/// The generators of one fusion.
pub struct Elemental<'m> {
    /// The module (for called computations).
    pub module: &'m HloModule,
    /// The fused computation.
    pub comp: &'m HloComputation,
    /// Inputs read from buffers: their spec and buffer index in the kernel.
    inputs: Arc<InputBuffers>,
    bound: HashMap<InstrId, Bound>,
    /// Values kept in a buffer while a row is processed: stored where
    /// they are computed (`true`) or read back (`false`).
    kept: HashMap<InstrId, (BufferSpec, Value, bool)>,
}

impl<'m> Elemental<'m> {
    /// Generators over `comp`, reading `inputs` from buffers.
    pub fn new(module: &'m HloModule, comp: &'m HloComputation, inputs: Arc<InputBuffers>) -> Self {
        Elemental {
            module,
            comp,
            inputs,
            bound: HashMap::new(),
            kept: HashMap::new(),
        }
    }

    /// Makes `id` evaluate to `value` from now on.
    pub fn bind(&mut self, id: InstrId, value: Bound) {
        self.bound.insert(id, value);
    }

    /// Keeps `id`'s values in the buffer `spec` at `base`: computed and
    /// stored there (`store`), or read back from it.
    pub fn keep(&mut self, id: InstrId, spec: BufferSpec, base: Value, store: bool) {
        self.kept.insert(id, (spec, base, store));
    }

    /// The element type of `id`.
    pub fn ty(&self, id: InstrId) -> PrimitiveType {
        element_type(&self.comp.instr(id).shape)
    }

    /// The value of `id` at `idx`, in register form. At an index that is
    /// the same in every lane the value is computed once, as a scalar, and
    /// splatted.
    pub fn gen(
        &self,
        kb: &mut KernelBuilder,
        id: InstrId,
        idx: &Index,
    ) -> Result<Value, Unsupported> {
        let key = idx.key(id.0);
        if let Some(v) = kb.cached(&key) {
            return Ok(v);
        }
        let v = if idx.lanes > 1 && idx.is_uniform() {
            let scalar = self.gen(kb, id, &Index::new(1, idx.dims.clone()))?;
            splat_elem(kb, self.ty(id), scalar, idx.lanes)
        } else {
            // Tag the instruction's code with its position (`@0005` in the
            // CLIF is instruction 4), for dumps and verifier reports.
            let outer = kb.b.srcloc();
            kb.b.set_srcloc(SourceLoc::new(id.0 + 1));
            let v = self.compute(kb, id, idx);
            kb.b.set_srcloc(outer);
            v?
        };
        kb.cache(key, v);
        Ok(v)
    }

    /// Computes `inv` for the row at `row` (the root's index, outer
    /// dimensions set) and pins it, so loops over the row reuse it instead
    /// of recomputing it.
    pub fn precompute(
        &self,
        kb: &mut KernelBuilder,
        inv: &RowPass,
        row: &[IndexDim],
    ) -> Result<(), Unsupported> {
        let idx = Index::new(1, read_at(inv, row));
        let v = self.gen(kb, inv.instr, &idx)?;
        let pinned = kb.pin(v);
        kb.cache(idx.key(inv.instr.0), pinned);
        Ok(())
    }

    /// Emits `root` at the vectors of one loop step, `idxs`, through
    /// `finish` (which computes and stores one vector). The early stages of
    /// the staged math functions that `root` computes at the same index
    /// (f32 tanh, see [`crate::math::unary_stages`]) are emitted for a
    /// group of vectors at a time: stage 0
    /// of every vector of the group, then stage 1 of every vector, and so
    /// on; `finish` then emits each function's last stage and the rest of
    /// the vector's expression. Groups hold as many vectors as keep about
    /// [`STAGED_VALUES`] staged values live.
    pub fn staged_step(
        &self,
        kb: &mut KernelBuilder,
        root: InstrId,
        idxs: &[Index],
        mut finish: impl FnMut(&mut KernelBuilder, &Index) -> Result<(), Unsupported>,
    ) -> Result<(), Unsupported> {
        let ops = if idxs.len() > 1 {
            self.staged_ops(root)
        } else {
            Vec::new()
        };
        let per_vector = ops.len() * VALUES_PER_STAGED_OP;
        let group = (STAGED_VALUES / per_vector.max(1)).max(1);
        for group in idxs.chunks(group) {
            if group.len() > 1 {
                self.stage_math(kb, &ops, group)?;
            }
            group.iter().try_for_each(|idx| finish(kb, idx))?;
        }
        Ok(())
    }

    /// Stage 0 of `ops` at every index of `idxs`, then stage 1, …, all but
    /// each function's last stage. A function whose argument is the same
    /// value at several indices (a broadcast scalar) is staged once per
    /// round.
    fn stage_math(
        &self,
        kb: &mut KernelBuilder,
        ops: &[(InstrId, UnaryFn)],
        idxs: &[Index],
    ) -> Result<(), Unsupported> {
        let stages = |f| super::transcendental::stages(f, types::F32X4);
        let rounds = ops.iter().map(|&(_, f)| stages(f)).max().unwrap_or(1);
        for round in 1..rounds {
            let mut staged = HashSet::new();
            for idx in idxs {
                for &(id, f) in ops.iter().filter(|&&(_, f)| round < stages(f)) {
                    let x = self.same_index_operand(kb, id, 0, idx)?;
                    if staged.insert((f, x)) {
                        super::transcendental::next_stage(kb, f, x);
                    }
                }
            }
        }
        Ok(())
    }

    /// The members that `root` computes at its own index (through
    /// elementwise ops on operands of the same dimensions) and that apply
    /// a staged math function to an operand computed without another one.
    fn staged_ops(&self, root: InstrId) -> Vec<(InstrId, UnaryFn)> {
        let staged = |id: InstrId| super::transcendental::staged(self.comp.instr(id));
        let mut ops: Vec<(InstrId, UnaryFn)> = self
            .same_index_members(root)
            .into_iter()
            .filter_map(|id| Some((id, staged(id)?)))
            .collect();
        ops.retain(|&(id, _)| {
            let operand = self.comp.instr(id).operands[0];
            !self
                .same_index_members(operand)
                .into_iter()
                .any(|m| staged(m).is_some())
        });
        ops.sort_by_key(|&(id, _)| id.0);
        ops
    }

    /// `id` and the members its value at an index reads at that same index,
    /// through elementwise ops whose operands have the result's dimensions
    /// (buffers read, bound and kept values end the walk).
    fn same_index_members(&self, id: InstrId) -> Vec<InstrId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(i) = stack.pop() {
            let read = self.kept.get(&i).is_some_and(|&(_, _, store)| !store);
            if out.contains(&i)
                || self.inputs.contains_key(&i)
                || self.bound.contains_key(&i)
                || read
            {
                continue;
            }
            let instr = self.comp.instr(i);
            if instr.opcode.family() != Family::Elementwise {
                continue;
            }
            out.push(i);
            let dims = instr.shape.as_array().map(|a| a.dims());
            stack.extend(
                instr
                    .operands
                    .iter()
                    .copied()
                    .filter(|&o| self.comp.instr(o).shape.as_array().map(|a| a.dims()) == dims),
            );
        }
        out
    }

    /// The reduces of the fusion that `id`'s value depends on (through
    /// instructions that are not inputs).
    pub fn reduces_under(&self, id: InstrId) -> Vec<InstrId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        let mut seen = std::collections::HashSet::new();
        while let Some(i) = stack.pop() {
            if !seen.insert(i) || self.inputs.contains_key(&i) {
                continue;
            }
            let instr = self.comp.instr(i);
            if instr.opcode == Opcode::Reduce {
                out.push(i);
                continue;
            }
            stack.extend(instr.operands.iter().copied());
        }
        out
    }

    /// The value of `id` at `idx` computed lane by lane (for index maps
    /// that are not affine in the lane).
    pub fn gen_lanes(
        &self,
        kb: &mut KernelBuilder,
        id: InstrId,
        idx: &Index,
    ) -> Result<Value, Unsupported> {
        if idx.lanes == 1 {
            return self.gen(kb, id, idx);
        }
        let scalars = (0..idx.lanes)
            .map(|l| self.gen(kb, id, &idx.lane(l)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(pack(kb, self.ty(id), &scalars))
    }

    /// Operand `k` of `id` at the same index (rank-0 operands at the scalar
    /// index).
    fn same_index_operand(
        &self,
        kb: &mut KernelBuilder,
        id: InstrId,
        k: usize,
        idx: &Index,
    ) -> Result<Value, Unsupported> {
        let op = self.comp.instr(id).operands[k];
        match &self.comp.instr(op).shape {
            Shape::Array(a) if a.rank() == 0 && !idx.dims.is_empty() => {
                let v = self.gen(kb, op, &Index::scalar(idx.lanes))?;
                Ok(if self.ty(op) == PrimitiveType::Pred {
                    splat_pred(kb, v, idx.lanes)
                } else {
                    v
                })
            }
            _ => self.gen(kb, op, idx),
        }
    }

    fn compute(
        &self,
        kb: &mut KernelBuilder,
        id: InstrId,
        idx: &Index,
    ) -> Result<Value, Unsupported> {
        if let Some((spec, buffer)) = self.inputs.get(&id) {
            let base = kb.buffer(*buffer);
            return Ok(read(kb, spec, base, idx));
        }
        match self.bound.get(&id) {
            Some(&Bound::Uniform(v)) => return Ok(splat_elem(kb, self.ty(id), v, idx.lanes)),
            Some(&Bound::Here(v)) => return Ok(v),
            None => {}
        }
        if let Some((spec, base, store)) = self.kept.get(&id) {
            if !store {
                return Ok(read_from(kb, spec, *base, idx, Access::Output));
            }
            let v = self.compute_op(kb, id, idx)?;
            write(kb, spec, *base, idx, v);
            return Ok(v);
        }
        self.compute_op(kb, id, idx)
    }

    /// The value of member `id` from its operands' values.
    fn compute_op(
        &self,
        kb: &mut KernelBuilder,
        id: InstrId,
        idx: &Index,
    ) -> Result<Value, Unsupported> {
        let instr = self.comp.instr(id);
        let lanes = idx.lanes;
        use Opcode::*;
        match instr.opcode {
            Constant => {
                let literal = instr.attrs.literal.as_ref().ok_or_else(|| {
                    Unsupported::new(Constant, format!("`{}` has no literal", instr.name))
                })?;
                let c = scalar_constant(literal)?;
                Ok(constant(kb, self.ty(id), c, lanes))
            }
            // Compare, select, clamp and the plain unary and binary ops.
            op if matches!(op, Compare | Select | Clamp) || op.form() != Form::Own => {
                let args = (0..instr.operands.len())
                    .map(|k| self.same_index_operand(kb, id, k, idx))
                    .collect::<Result<Vec<_>, _>>()?;
                let tys: Vec<PrimitiveType> = instr.operands.iter().map(|&o| self.ty(o)).collect();
                // Select's predicate comes first; the data type decides.
                let tys = if instr.opcode == Select || instr.opcode == Clamp {
                    vec![tys[1], tys[1], tys[2]]
                } else {
                    tys
                };
                elementwise::emit(kb, instr, &tys, &args, lanes)
            }
            Convert => {
                let x = self.gen(kb, instr.operands[0], idx)?;
                convert(kb, self.ty(instr.operands[0]), self.ty(id), x, lanes)
            }
            BitcastConvert if self.ty(id).byte_size() != self.ty(instr.operands[0]).byte_size() => {
                bitcast_convert_resized(self, kb, id, idx)
            }
            BitcastConvert => {
                let x = self.gen(kb, instr.operands[0], idx)?;
                bitcast_convert(kb, self.ty(instr.operands[0]), self.ty(id), x, lanes)
            }
            ReducePrecision => {
                let x = self.gen(kb, instr.operands[0], idx)?;
                reduce_precision(
                    kb,
                    self.ty(id),
                    x,
                    instr.attrs.exponent_bits.unwrap_or(8),
                    instr.attrs.mantissa_bits.unwrap_or(23),
                )
            }
            Map => {
                let args = (0..instr.operands.len())
                    .map(|k| {
                        let v = self.gen(kb, instr.operands[k], idx)?;
                        Ok((v, self.ty(instr.operands[k])))
                    })
                    .collect::<Result<Vec<_>, Unsupported>>()?;
                let called = *instr
                    .called
                    .first()
                    .ok_or_else(|| Unsupported::new(Map, "no to_apply computation"))?;
                Ok(emit_computation(kb, self.module, called, &args, lanes)?[0])
            }
            Broadcast => data_movement::broadcast(self, kb, id, idx),
            Transpose => data_movement::transpose(self, kb, id, idx),
            Copy => self.gen(kb, instr.operands[0], idx),
            Reshape => data_movement::reshape(self, kb, id, idx),
            Bitcast => data_movement::bitcast(self, kb, id, idx),
            Slice => data_movement::slice(self, kb, id, idx),
            Gather => gather::gather(self, kb, id, idx),
            Convolution => convolution::convolution(self, kb, id, idx),
            ReduceWindow => reduce_window::reduce_window(self, kb, id, idx),
            Reverse => data_movement::reverse(self, kb, id, idx),
            Iota => data_movement::iota(self, kb, id, idx),
            Pad => data_movement::pad(self, kb, id, idx),
            Concatenate => data_movement::concatenate(self, kb, id, idx),
            DynamicSlice => data_movement::dynamic_slice(self, kb, id, idx),
            DynamicUpdateSlice => data_movement::dynamic_update_slice(self, kb, id, idx),
            _ => Err(Unsupported::new(
                instr.opcode,
                format!("`{}` is not computed elementally", instr.name),
            )),
        }
    }
}

/// The element type of an array shape (`pred` for anything else, which
/// kernels never see).
pub fn element_type(shape: &Shape) -> PrimitiveType {
    shape.element_type().unwrap_or(PrimitiveType::Pred)
}

/// The value of a rank-0 literal as a register constant.
pub fn scalar_constant(literal: &Literal) -> Result<Const, Unsupported> {
    let ty = literal
        .element_type()
        .ok_or_else(|| Unsupported::new(Opcode::Constant, "not an array constant"))?;
    let bytes = literal
        .bytes()
        .map_err(|e| Unsupported::new(Opcode::Constant, e.to_string()))?;
    let mut raw = [0u8; 8];
    let n = ty.byte_size();
    if n > 8 || bytes.len() < n {
        return Err(Unsupported::new(
            Opcode::Constant,
            format!("{} constants", ty.name()),
        ));
    }
    raw[..n].copy_from_slice(&bytes[..n]);
    let bits = u64::from_le_bytes(raw);
    Ok(match ty {
        PrimitiveType::F16 => Const::Float(xla_core::half::f16::from_bits(bits as u16).to_f64()),
        PrimitiveType::Bf16 => Const::Float(xla_core::half::bf16::from_bits(bits as u16).to_f64()),
        PrimitiveType::Pred => Const::Bits((bits & 0xFF != 0) as u64),
        _ => Const::Bits(bits),
    })
}

/// Evaluates a scalar computation (a reducer or a map's `to_apply`) on
/// register values: each instruction lane-wise, parameters bound to
/// `args`. Returns the root's value, or the elements of a root tuple.
pub fn emit_computation(
    kb: &mut KernelBuilder,
    module: &HloModule,
    id: ComputationId,
    args: &[(Value, PrimitiveType)],
    lanes: u32,
) -> Result<Vec<Value>, Unsupported> {
    let comp = module.computation(id);
    let mut values: HashMap<InstrId, Value> = HashMap::new();
    for iid in comp.ids() {
        let instr = comp.instr(iid);
        let operand_types: Vec<PrimitiveType> = instr
            .operands
            .iter()
            .map(|&o| element_type(&comp.instr(o).shape))
            .collect();
        let v = if instr.opcode == Opcode::Parameter {
            let n = instr.attrs.parameter_number.unwrap_or(0) as usize;
            args.get(n)
                .ok_or_else(|| Unsupported::new(Opcode::Parameter, "missing argument"))?
                .0
        } else if instr.opcode == Opcode::Tuple {
            continue;
        } else if instr.opcode == Opcode::Constant {
            let literal = instr
                .attrs
                .literal
                .as_ref()
                .ok_or_else(|| Unsupported::new(Opcode::Constant, "no literal"))?;
            constant(
                kb,
                element_type(&instr.shape),
                scalar_constant(literal)?,
                lanes,
            )
        } else {
            let to = element_type(&instr.shape);
            let ops: Vec<Value> = instr.operands.iter().map(|o| values[o]).collect();
            match op_of(instr.opcode) {
                Op::Convert => convert(kb, operand_types[0], to, ops[0], lanes)?,
                Op::BitcastConvert => bitcast_convert(kb, operand_types[0], to, ops[0], lanes)?,
                Op::Select | Op::Clamp => {
                    let tys = [operand_types[1], operand_types[1], operand_types[2]];
                    elementwise::emit(kb, instr, &tys, &ops, lanes)?
                }
                Op::Unary(_)
                | Op::Binary(_)
                | Op::Compare
                | Op::ReducePrecision
                | Op::Map
                | Op::Complex
                | Op::Other => elementwise::emit(kb, instr, &operand_types, &ops, lanes)?,
            }
        };
        values.insert(iid, v);
    }
    let root = comp.root_instr();
    Ok(if root.opcode == Opcode::Tuple {
        root.operands.iter().map(|o| values[o]).collect()
    } else {
        vec![values[&comp.root]]
    })
}

/// Where a row kernel reads `value` (a pass or a row invariant) for the
/// row at `row` (the root's index, outer dimensions set): each of its
/// dimensions at the root dimension it follows, 0 for those of size 1.
pub(super) fn read_at(value: &RowPass, row: &[IndexDim]) -> Vec<IndexDim> {
    value
        .dims
        .iter()
        .map(|d| d.map_or(IndexDim::constant(0), |k| row[k]))
        .collect()
}
