//! Flat elementwise loop fusions.
//!
//! A loop fusion is *flat* when every array it reads or writes walks the
//! same elements in the same physical order (same dimensions, same dense
//! layout) and every other value is a scalar: then element `i` of the
//! output needs element `i` of each input and nothing else, and the kernel
//! is one loop over the buffers' bytes, sixteen f32 lanes at a time (eight
//! at 256 bits).
//!
//! The kernel covers iterations `[start, end)` of chunks of `chunk`
//! elements: a loop of two vectors per step, then one vector, then the
//! remaining elements (fewer than a vector) through a lane mask (masked
//! loads never touch the memory of their masked lanes).
//!
//! A full reduction of a flat operand (every dimension reduced) runs as
//! the first of the reduction's two kernels ([`compile_partials`]): each
//! iteration reduces its chunk with two accumulators, across their lanes,
//! into one partial in the scratch buffer, which Cranelift's combine
//! kernel folds into the init value.

use std::collections::HashMap;

use xla_core::arith::ceil_div;
use xla_core::hlo::{HloInstruction, InstrId};
use xla_core::{ArrayShape, Opcode, PrimitiveType};

use super::{
    acc, constant, element_loop, elementwise, enter, leave, load_bases, lowering, tail_masks,
    Accumulation, NativeKernel, Reducer, Val, LANES, UNROLL,
};
use crate::emit::KernelInfo;
use crate::wide::asm::{gpr::*, Asm, Cond, Gpr, Mem};
use crate::wide::ir::{ConstPool, Func, Operand, TAIL_MASK};
use crate::wide::Width;

/// The registers holding the buffers' base addresses, in buffer order: a
/// fusion with more buffers is left to the 128-bit emitters.
const BASES: [Gpr; 10] = [R8, R9, R10, RDI, RBX, RBP, R12, R13, R14, R15];

/// The kernel of `info`'s loop fusion at `width`, or `None` if the fusion
/// is not flat f32, uses an op this emitter lacks, or needs more registers
/// than there are.
pub(super) fn compile(info: &KernelInfo, width: Width) -> Option<NativeKernel> {
    let fusion = info.fusion;
    if fusion.outputs.len() != 1 || fusion.in_place.is_some() {
        return None;
    }
    let root = info.comp.instr(fusion.root).shape.as_array()?;
    let n = root.element_count();
    if root.element_type() != PrimitiveType::F32 || n == 0 {
        return None;
    }
    let out = fusion.inputs.len();
    if out + 1 > BASES.len() || info.buffers.len() != out + 1 {
        return None;
    }
    let flat = Flat {
        info,
        root,
        target: fusion.root,
    };
    if !fusion
        .inputs
        .iter()
        .all(|&id| flat.same_walk(id) || flat.scalar(id))
    {
        return None;
    }
    let lanes = width.lanes();
    let chunk = (info.iteration_elements.max(lanes) / lanes) * lanes;
    // Chunks are 32-bit immediates.
    if chunk > i64::from(i32::MAX) {
        return None;
    }
    let mut consts = ConstPool::new(width);
    let tail_masks = tail_masks(&mut consts, width);
    let mut asm = Asm::default();
    let buffers = &BASES[..=out];
    let saved = enter(&mut asm, buffers, 0);
    // rsi, rdx = [start, end) in elements, end clamped to n.
    asm.imul_imm(RSI, RSI, chunk as i32);
    asm.imul_imm(RDX, RDX, chunk as i32);
    asm.mov_imm64(RCX, n as u64);
    asm.cmp(RDX, RCX);
    asm.cmovg(RDX, RCX);
    let table = asm.label();
    load_bases(&mut asm, buffers, table);
    let body = |vectors: i32| -> Option<Func> {
        let mut f = Func::default();
        for v in 0..vectors {
            let value = flat.step(&mut f, v)?.float()?;
            f.store(value, out, v);
        }
        Some(f)
    };
    let (step, single) = (body(UNROLL)?, body(1)?);
    let mut lowered = lowering(buffers, 0, &mut consts, width);
    element_loop(
        &mut asm,
        &mut lowered,
        RDX,
        (&step, &single, &single),
        (width, tail_masks),
    )?;
    drop(lowered);
    leave(&mut asm, &saved, 0, table, &consts.bytes());
    let code = asm.finish();
    Some(NativeKernel {
        code,
        elements_per_iteration: chunk,
        iterations: ceil_div(n, chunk),
    })
}

/// A fusion being checked and translated.
struct Flat<'a, 'm> {
    info: &'a KernelInfo<'m>,
    /// The array the kernel walks.
    root: &'a ArrayShape,
    /// The value it computes per element.
    target: InstrId,
}

impl Flat<'_, '_> {
    fn shape(&self, id: InstrId) -> Option<&ArrayShape> {
        self.info.comp.instr(id).shape.as_array()
    }

    /// `true` if `id` is a dense array walked in the root's order.
    fn same_walk(&self, id: InstrId) -> bool {
        let Some(a) = self.shape(id) else {
            return false;
        };
        let physical = |s: &ArrayShape| -> Vec<usize> {
            let layout = s.layout_or_default();
            layout
                .major_to_minor()
                .filter(|&d| s.dims()[d] != 1)
                .collect()
        };
        a.dims() == self.root.dims()
            && a.layout_or_default().is_dense()
            && self.root.layout_or_default().is_dense()
            && physical(a) == physical(self.root)
    }

    /// `true` if `id` is an array of one element.
    fn scalar(&self, id: InstrId) -> bool {
        self.shape(id).is_some_and(|a| a.element_count() == 1)
    }

    /// Emits vector `vector` of a loop step of the target into `f`; `None`
    /// if the fusion has something this emitter does not compile.
    fn step(&self, f: &mut Func, vector: i32) -> Option<Val> {
        let fusion = self.info.fusion;
        // The members the target needs.
        let mut needed = std::collections::HashSet::new();
        let mut stack = vec![self.target];
        while let Some(id) = stack.pop() {
            if fusion.contains(id) && needed.insert(id) {
                stack.extend(self.info.comp.instr(id).operands.iter().copied());
            }
        }
        let mut vals: HashMap<InstrId, Val> = HashMap::new();
        for &id in &fusion.inputs {
            let (_, buffer) = self.info.inputs[&id];
            if self.shape(id)?.element_type() != PrimitiveType::F32 {
                return None;
            }
            let v = if self.scalar(id) && !self.same_walk(id) {
                Operand::Scalar(buffer)
            } else {
                f.load(buffer, vector)
            };
            vals.insert(id, Val::F32(v));
        }
        for &id in fusion.instructions.iter().filter(|id| needed.contains(id)) {
            let instr = self.info.comp.instr(id);
            let v = self.value(f, instr, &vals)?;
            vals.insert(id, v);
        }
        vals.get(&self.target).copied()
    }

    /// The value of a member from its operands' values.
    fn value(
        &self,
        f: &mut Func,
        instr: &HloInstruction,
        vals: &HashMap<InstrId, Val>,
    ) -> Option<Val> {
        let shape = instr.shape.as_array()?;
        let uniform = shape.element_count() == 1;
        if !uniform && shape.dims() != self.root.dims() {
            return None;
        }
        let args: Vec<Val> = instr
            .operands
            .iter()
            .map(|o| vals.get(o).copied())
            .collect::<Option<_>>()?;
        match instr.opcode {
            Opcode::Constant => return constant(instr).map(Val::F32),
            Opcode::Broadcast => {
                let operand = self.shape(instr.operands[0])?;
                let identity = operand.dims() == shape.dims()
                    && instr
                        .attrs
                        .dimensions
                        .as_ref()
                        .is_some_and(|d| d.iter().copied().eq(0..shape.rank() as i64));
                return (operand.element_count() == 1 || identity).then_some(args[0]);
            }
            _ => {}
        }
        // Computed values are per element: a computed scalar (an op on
        // scalars feeding a broadcast) is not flat.
        if uniform && self.root.element_count() != 1 {
            return None;
        }
        elementwise(f, self.info.comp, instr, &args)
    }
}

/// The registers holding a partials kernel's buffer bases (inputs, the
/// reduction's output, the scratch buffer).
const PARTIAL_BASES: [Gpr; 8] = [R8, R9, R10, RDI, RBX, RBP, R12, R13];

/// The end of the current iteration's elements.
const CHUNK_END: Gpr = R14;

/// The current iteration.
const ITERATION: Gpr = R15;

/// The kernel of a full reduction's partials (see the module's docs):
/// each iteration of `[start, end)` reduces `chunk` elements of the
/// reduce's flat operand into `scratch[iteration]`. Returns the kernel
/// and the number of partials; `None` if the reduction is not that.
pub(super) fn compile_partials(info: &KernelInfo) -> Option<(NativeKernel, i64)> {
    let fusion = info.fusion;
    let reduce = info.comp.instr(fusion.root);
    if reduce.opcode != Opcode::Reduce
        || reduce.operands.len() != 2
        || fusion.outputs.len() != 1
        || fusion.in_place.is_some()
    {
        return None;
    }
    let out = reduce.shape.as_array()?;
    let operand = info.comp.instr(reduce.operands[0]).shape.as_array()?;
    let n = operand.element_count();
    if out.element_count() != 1 || operand.element_type() != PrimitiveType::F32 || n == 0 {
        return None;
    }
    let reducer = Reducer::of(info.module, *reduce.called.first()?)?;
    let out_buffer = fusion.inputs.len();
    let scratch = info.buffers.len();
    if scratch + 1 > PARTIAL_BASES.len() || out_buffer + 1 != scratch {
        return None;
    }
    let flat = Flat {
        info,
        root: operand,
        target: reduce.operands[0],
    };
    if !operand.layout_or_default().is_dense()
        || !fusion
            .inputs
            .iter()
            .all(|&id| flat.same_walk(id) || flat.scalar(id))
    {
        return None;
    }
    let chunk = (info.iteration_elements.max(LANES) / LANES) * LANES;
    // Chunks are 32-bit immediates.
    if chunk > i64::from(i32::MAX) {
        return None;
    }
    let partials = ceil_div(n, chunk);
    let buffers = &PARTIAL_BASES[..=scratch];
    let mut asm = Asm::default();
    let mut consts = ConstPool::new(Width::Zmm);
    let mut used = buffers.to_vec();
    used.extend([CHUNK_END, ITERATION]);
    let saved = enter(&mut asm, &used, 0);
    // ITERATION, rdx = [start, end).
    asm.mov(ITERATION, RSI);
    let table = asm.label();
    load_bases(&mut asm, buffers, table);
    let mut lowered = lowering(buffers, 0, &mut consts, Width::Zmm);
    let loops = Accumulation::new(reducer, Width::Zmm, |f, v| flat.step(f, v)?.float())?;
    let mut fin = Func::default();
    let all = Accumulation::result(reducer, Width::Zmm, &mut fin);
    let [first_acc, _] = acc(Width::Zmm);
    let first = fin.fixed(first_acc);
    fin.set(first, all);
    let (top, done) = (asm.label(), asm.label());
    asm.bind(top);
    asm.cmp(ITERATION, RDX);
    asm.jcc(Cond::Ge, done);
    // This iteration's elements: [it * chunk, min(it * chunk + chunk, n)).
    asm.imul_imm(RSI, ITERATION, chunk as i32);
    asm.lea(CHUNK_END, Mem::at(RSI, chunk as i32));
    asm.mov_imm64(RCX, n as u64);
    asm.cmp(CHUNK_END, RCX);
    asm.cmovg(CHUNK_END, RCX);
    lowered(&mut asm, &loops.init, false)?;
    element_loop(
        &mut asm,
        &mut lowered,
        CHUNK_END,
        (&loops.two, &loops.one, &loops.tail),
        (Width::Zmm, 0),
    )?;
    lowered(&mut asm, &fin, false)?;
    // Lane 0 of the partial to scratch[it].
    asm.mov_imm32(R11, 1);
    asm.kmovw_from_gpr(TAIL_MASK, R11);
    asm.vmovups_store(
        Mem::indexed(buffers[scratch], ITERATION, 4, 0),
        first_acc,
        Some(TAIL_MASK),
    );
    asm.add_imm(ITERATION, 1);
    asm.jmp(top);
    asm.bind(done);
    drop(lowered);
    leave(&mut asm, &saved, 0, table, &consts.bytes());
    let code = asm.finish();
    Some((
        NativeKernel {
            code,
            elements_per_iteration: chunk,
            iterations: partials,
        },
        partials,
    ))
}
