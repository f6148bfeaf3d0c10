//! Flat elementwise loop fusions.
//!
//! A loop fusion is *flat* when every array it reads or writes walks the
//! same elements in the same physical order (same dimensions, same dense
//! layout) and every other value is a scalar: then element `i` of the
//! output needs element `i` of each input and nothing else, and the kernel
//! is one loop over the buffers' bytes, sixteen f32 lanes at a time.
//!
//! The kernel covers iterations `[start, end)` of chunks of `chunk`
//! elements: a loop of two vectors per step, then one vector, then the
//! remaining 1–15 elements through a lane mask (masked loads never touch
//! the memory of their masked lanes).

use std::collections::HashMap;

use xla_core::hlo::{HloInstruction, InstrId};
use xla_core::shape::ceil_div;
use xla_core::{ArrayShape, Opcode, PrimitiveType};

use super::{constant, elementwise, enter, leave, load_bases, NativeKernel, Val, LANES, UNROLL};
use crate::emit::KernelInfo;
use crate::wide::asm::{gpr::*, Asm, Cond, Gpr, Mem};
use crate::wide::ir::{ConstPool, Frame, Func, Operand, TAIL_MASK};

/// The registers holding the buffers' base addresses, in buffer order: a
/// fusion with more buffers is left to the 128-bit emitters.
const BASES: [Gpr; 10] = [R8, R9, R10, RDI, RBX, RBP, R12, R13, R14, R15];

/// The kernel of `info`'s loop fusion, or `None` if the fusion is not flat
/// f32, uses an op this emitter lacks, or needs more registers than there
/// are.
pub(super) fn compile(info: &KernelInfo) -> Option<NativeKernel> {
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
    let flat = Flat { info, root };
    if !fusion
        .inputs
        .iter()
        .all(|&id| flat.same_walk(id) || flat.scalar(id))
    {
        return None;
    }
    let chunk = (info.iteration_elements.max(LANES) / LANES) * LANES;
    let mut consts = ConstPool::default();
    let mut asm = Asm::with_listing(info.listing);
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
    let frame = |masked| Frame {
        buffers,
        index: RSI,
        consts: RAX,
        masked,
        slots: 0,
    };
    let body = |vectors: i32| -> Option<Func> {
        let mut f = Func::default();
        for v in 0..vectors {
            let value = flat.step(&mut f, v)?;
            f.store(value, out, v);
        }
        Some(f)
    };
    let (step, single) = (body(UNROLL)?, body(1)?);
    let (main, ones, tail, done) = (asm.label(), asm.label(), asm.label(), asm.label());
    // Two vectors per step while they fit.
    asm.bind(main);
    asm.lea(RCX, Mem::at(RSI, (LANES * UNROLL as i64) as i32));
    asm.cmp(RCX, RDX);
    asm.jcc(Cond::G, ones);
    step.lower(&mut asm, &frame(false), &mut consts).ok()?;
    asm.add_imm(RSI, (LANES * UNROLL as i64) as i32);
    asm.jmp(main);
    // Then one.
    asm.bind(ones);
    asm.lea(RCX, Mem::at(RSI, LANES as i32));
    asm.cmp(RCX, RDX);
    asm.jcc(Cond::G, tail);
    single.lower(&mut asm, &frame(false), &mut consts).ok()?;
    asm.add_imm(RSI, LANES as i32);
    // Then the 1–15 elements left, through the tail mask.
    asm.bind(tail);
    asm.mov(RCX, RDX);
    asm.sub(RCX, RSI);
    asm.jcc(Cond::Le, done);
    asm.low_bits_mask(R11);
    asm.kmovw_from_gpr(TAIL_MASK, R11);
    single.lower(&mut asm, &frame(true), &mut consts).ok()?;
    asm.bind(done);
    leave(&mut asm, &saved, 0, table, &consts.bytes());
    let (code, listing) = asm.finish();
    Some(NativeKernel {
        code,
        listing,
        elements_per_iteration: chunk,
        iterations: ceil_div(n, chunk),
    })
}

/// A fusion being checked and translated.
struct Flat<'a, 'm> {
    info: &'a KernelInfo<'m>,
    root: &'a ArrayShape,
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

    /// Emits vector `vector` of a loop step of the root into `f`; `None`
    /// if the fusion has something this emitter does not compile.
    fn step(&self, f: &mut Func, vector: i32) -> Option<Operand> {
        let fusion = self.info.fusion;
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
        for &id in &fusion.instructions {
            let instr = self.info.comp.instr(id);
            let v = self.value(f, instr, &vals)?;
            vals.insert(id, v);
        }
        vals.get(&fusion.root)?.float()
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
