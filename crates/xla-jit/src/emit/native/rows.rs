//! Row fusions (softmax, layernorm, RMSNorm, row reductions), and loop
//! fusions the flat emitter does not take (broadcasts along rows or
//! columns, slices of the columns), as native kernels, at 512 bits
//! (AVX-512) or 256 (AVX2).
//!
//! The *space* `S` is the array the fusion walks: the root's for a row
//! fusion, the reduce operand's for a reduction. Its minor-most physical
//! dimension (of `N` elements) is the *column*, the others make the rows.
//! Every value of the fusion is read, through elementwise ops, broadcasts,
//! reshapes that only add or drop dimensions of size 1, reduces over
//! the column and slices of an input's columns (read in place, from their
//! first column on), at an index map into `S` (found top-down from the root);
//! by which dimensions of `S` it depends on, a value is
//!
//! * per element: computed in a loop over the row's columns (an input
//!   of `S`'s dimensions and walk is read at the element);
//! * per column: an input read at the column (layernorm's scale);
//! * per row: computed once per row, between the loops, into a 64-byte
//!   stack slot that later code reads as a broadcast memory operand (a
//!   reduce of a per-element value, or what is computed from reduces);
//! * uniform: a constant or a scalar input.
//!
//! Each row runs one loop over its columns per reduce, in order (two
//! accumulators held in `zmm30`/`zmm31`, at 256 bits `ymm12`/`ymm13`, then
//! combined across lanes), and
//! then the output loop (a row fusion) or the store of the reduced value
//! (a reduction). An expensive per-element value that a later loop needs
//! again (softmax's `exp(x − max)`) is kept in a row buffer on the stack
//! (up to [`KEPT_BYTES`] in all) instead of being computed twice. A fusion
//! whose values have any other map, or an op, type or layout this emitter
//! lacks, is left to the 128-bit emitters.

use std::collections::{HashMap, HashSet};

use xla_core::arith::ceil_div;
use xla_core::hlo::{Flags, InstrId};
use xla_core::{Opcode, PrimitiveType};

pub(super) mod epilogue;

use super::space::{
    first_column, identity, index_dimension, maps, row_elements, row_strides, Class, Map, Space,
};
use super::{
    compare_lanes, constant, elementwise, enter, leave, load_bases, lowering, tail_masks,
    Accumulation, NativeKernel, Reducer, Val, UNROLL,
};
use crate::emit::row::KEPT_BYTES;
use crate::emit::KernelInfo;
use crate::fusion::FusionKind;
use crate::wide::asm::{gpr::*, Asm, Cond, Gpr, Kreg, Label, Mem, Zmm};
use crate::wide::ir::{ConstPool, Func, Operand, Place, YMM_TAIL};
use crate::wide::Width;

/// The registers holding the buffers' base addresses, in buffer order.
const BASES: [Gpr; 9] = [R8, R9, R10, RDI, RBX, RBP, R12, R13, R14];

/// The current row.
const ROW: Gpr = R15;

/// The kernel of `info`'s row fusion or row reduction at `width`, if this
/// emitter takes it.
pub(super) fn compile(info: &KernelInfo, width: Width) -> Option<NativeKernel> {
    let rows = Rows::new(info, width)?;
    rows.emit()
}

/// A fusion being checked and translated.
struct Rows<'a, 'm> {
    info: &'a KernelInfo<'m>,
    space: Space,
    /// Each member's position in the fusion's order (the kernel's).
    positions: HashMap<InstrId, usize>,
    classes: HashMap<InstrId, Class>,
    /// The first column of each slice's window of its operand.
    firsts: HashMap<InstrId, i64>,
    /// The values, as f32, of each index of the space (an iota or a
    /// broadcast of one) at each row (a row index) or column (a column
    /// index), in the constant table; buffer `k` after the fusion's is
    /// the `k`th.
    tables: Vec<(InstrId, Vec<u32>)>,
    /// The reduces, in the order the kernel computes them.
    passes: Vec<InstrId>,
    /// Members computed once per row (reduces aside), in order.
    per_row: Vec<InstrId>,
    /// The slot of each per-row value.
    slots: HashMap<InstrId, u32>,
    /// Per-element values a loop keeps for later loops of the row: their
    /// row buffers' offsets after the slots, by the reduce whose loop
    /// computes them.
    kept: HashMap<InstrId, (InstrId, i32)>,
    /// Each buffer's bytes from one row to the next.
    strides: Vec<i64>,
    /// The root is a reduce: the kernel stores one value per row.
    reduce_root: bool,
    /// The dot of an epilogue fusion, whose values the kernel reads from
    /// the dot's block (`epilogue.rs`).
    dot: Option<InstrId>,
    /// The vectors' width.
    width: Width,
}

impl<'a, 'm> Rows<'a, 'm> {
    fn new(info: &'a KernelInfo<'m>, width: Width) -> Option<Self> {
        let fusion = info.fusion;
        let comp = info.comp;
        if fusion.outputs.len() != 1 || fusion.in_place.is_some() {
            return None;
        }
        let root = comp.instr(fusion.root);
        let reduce_root = root.opcode == Opcode::Reduce;
        // A loop fusion is a row fusion without reduces (one the flat
        // emitter does not take: broadcasts along rows or columns, slices
        // of the columns).
        if !matches!(
            fusion.kind,
            FusionKind::Loop | FusionKind::Row | FusionKind::Reduction
        ) {
            return None;
        }
        let (shape, root_map) = match reduce_root {
            false => {
                let shape = root.shape.as_array()?;
                (shape, identity(shape))
            }
            true if root.operands.len() == 2 => {
                let shape = comp.instr(root.operands[0]).shape.as_array()?;
                let [r] = root.attrs.dimensions.as_deref()? else {
                    return None;
                };
                let kept: Map = identity(shape)
                    .into_iter()
                    .enumerate()
                    .filter(|&(d, _)| d as i64 != *r)
                    .map(|(_, m)| m)
                    .collect();
                (shape, kept)
            }
            _ => return None,
        };
        if shape.element_type() != PrimitiveType::F32 {
            return None;
        }
        let space = Space::new(shape)?;
        // A row shorter than a vector is one masked step per row: the
        // 128-bit emitters' flat loop does better.
        if fusion.kind == FusionKind::Loop && space.n < width.lanes() {
            return None;
        }
        Self::analyse(info, width, space, root_map, reduce_root, None)
    }

    /// The classes, passes and per-row values of a fusion walking `space`
    /// from its root, read at `root_map`; `dot` is an epilogue's dot.
    fn analyse(
        info: &'a KernelInfo<'m>,
        width: Width,
        space: Space,
        root_map: Map,
        reduce_root: bool,
        dot: Option<InstrId>,
    ) -> Option<Self> {
        let (fusion, comp) = (info.fusion, info.comp);
        let maps = maps(info, &space, vec![(fusion.root, root_map)], dot)?;
        let mut classes = HashMap::new();
        let mut tables = Vec::new();
        // In the fusion's order, so that the tables' (and the code's) order
        // does not depend on the hash map's.
        for &id in fusion.instructions.iter().chain(&fusion.inputs) {
            let Some(map) = maps.get(&id) else {
                continue;
            };
            let instr = comp.instr(id);
            let class = match index_dimension(comp, instr, map) {
                Ok(dimension) => {
                    let (class, table) =
                        index_table(&space, instr.shape.as_array()?, map, dimension)?;
                    tables.push((id, table));
                    class
                }
                Err(()) if fusion.contains(id) => space.member_class(map)?,
                Err(()) => space.class(map)?,
            };
            classes.insert(id, class);
        }
        let mut passes = Vec::new();
        let mut per_row = Vec::new();
        for &id in &fusion.instructions {
            let instr = comp.instr(id);
            let index = tables.iter().any(|&(t, _)| t == id);
            // Indices are read from their tables; an iota only a broadcast
            // reads is not read at all.
            if index || (instr.opcode == Opcode::Iota && !maps.contains_key(&id)) {
                continue;
            }
            // An epilogue's dot operands are not read.
            let Some(class) = classes.get(&id) else {
                continue;
            };
            match (instr.opcode, class) {
                (Opcode::Reduce, &class) if space.per_row(class) => passes.push(id),
                (Opcode::Reduce, _) => return None,
                (Opcode::Constant | Opcode::Broadcast | Opcode::Reshape | Opcode::Bitcast, _) => {}
                (_, Class::Row | Class::Uniform) => {
                    if instr.shape.as_array()?.element_type() != PrimitiveType::F32 {
                        return None;
                    }
                    per_row.push(id);
                }
                _ => {}
            }
        }
        let root_class = classes[&fusion.root];
        let right = match reduce_root {
            true => space.per_row(root_class),
            false => root_class == Class::Element,
        };
        if !right {
            return None;
        }
        let mut firsts = HashMap::new();
        for &id in &fusion.instructions {
            let instr = comp.instr(id);
            // (An epilogue's dot may read a convolution's patches through
            // slices, which have no map.)
            if let (Opcode::Slice, Some(map)) = (instr.opcode, maps.get(&id)) {
                let operand = comp.instr(instr.operands[0]).shape.as_array()?;
                firsts.insert(id, first_column(instr, operand, map, &space)?);
            }
        }
        // An epilogue writes the dot's block, not its output buffer, and
        // may leave the dot's operands unread.
        let unused =
            |id: &InstrId| dot.is_some() && (fusion.outputs.contains(id) || !maps.contains_key(id));
        let mut strides = Vec::new();
        for &id in fusion.inputs.iter().chain(&fusion.outputs) {
            strides.push(match unused(&id) {
                true => 0,
                false => row_strides(info, &space, &maps, &classes, [id])?[0],
            });
        }
        if strides.len() != info.buffers.len() {
            return None;
        }
        // Each index table is one more buffer after the fusion's: a row
        // index advances with the row, a column index does not.
        strides.extend(tables.iter().map(|(id, _)| match classes[id] {
            Class::Row => 4,
            _ => 0,
        }));
        // An epilogue's block is the last, its rows a runtime stride apart.
        if dot.is_some() {
            strides.push(0);
        }
        if strides.len() > BASES.len() {
            return None;
        }
        let slots: HashMap<InstrId, u32> = passes
            .iter()
            .chain(&per_row)
            .enumerate()
            .map(|(k, &id)| (id, k as u32))
            .collect();
        let positions = fusion
            .instructions
            .iter()
            .enumerate()
            .map(|(k, &id)| (id, k))
            .collect();
        let mut rows = Rows {
            info,
            space,
            positions,
            classes,
            firsts,
            tables,
            passes,
            per_row,
            slots,
            kept: HashMap::new(),
            strides,
            reduce_root,
            dot,
            width,
        };
        rows.kept = rows.kept_values();
        Some(rows)
    }

    /// The expensive per-element members a reduce's loop computes that a
    /// later loop needs again, with their row buffers (within
    /// [`KEPT_BYTES`]).
    fn kept_values(&self) -> HashMap<InstrId, (InstrId, i32)> {
        // A kept buffer holds a row's values from column 0 on, which a
        // slice would read a window of: with slices, values are computed
        // again.
        if !self.firsts.is_empty() {
            return HashMap::new();
        }
        let info = self.info;
        let expensive = |id: InstrId| {
            info.comp.instr(id).opcode.has(Flags::EXPENSIVE)
                && self.classes.get(&id) == Some(&Class::Element)
        };
        let row_bytes = 4 * self.space.n;
        let start = 64 * self.slots.len() as i32;
        let mut kept = HashMap::new();
        let mut done: HashSet<InstrId> = HashSet::new();
        let mut used = 0;
        for (k, &pass) in self.passes.iter().enumerate() {
            let operand = info.comp.instr(pass).operands[0];
            let mut later: HashSet<InstrId> = self.passes[k + 1..]
                .iter()
                .flat_map(|&p| self.needed(info.comp.instr(p).operands[0], &done))
                .map(|(id, _)| id)
                .collect();
            if !self.reduce_root {
                later.extend(self.needed(info.fusion.root, &done).map(|(id, _)| id));
            }
            for (id, _) in self.needed(operand, &done) {
                if expensive(id) && later.contains(&id) && used + row_bytes <= KEPT_BYTES {
                    kept.insert(id, (pass, start + used as i32));
                    used += row_bytes;
                }
            }
            done.insert(pass);
            done.extend(kept.keys().copied());
        }
        kept
    }

    /// Stack bytes of the kept row buffers.
    fn kept_bytes(&self) -> i32 {
        4 * self.space.n as i32 * self.kept.len() as i32
    }

    /// The position of `id`'s table among the index tables, if it is an
    /// index of the space.
    fn table(&self, id: InstrId) -> Option<usize> {
        self.tables.iter().position(|&(t, _)| t == id)
    }

    /// The slot of a per-row value (a reduce or a member computed once per
    /// row).
    fn slot(&self, id: InstrId) -> Option<u32> {
        self.slots.get(&id).copied()
    }

    /// The members `target` needs, each with the columns it is read from
    /// (its first column in the row: 0, or where slices start), in the
    /// kernel's order, stopping at per-row values computed in earlier code
    /// (`done`) and inputs.
    fn needed(
        &self,
        target: InstrId,
        done: &HashSet<InstrId>,
    ) -> impl Iterator<Item = (InstrId, i64)> + '_ {
        let fusion = self.info.fusion;
        let mut seen: HashSet<(InstrId, i64)> = HashSet::new();
        let mut stack = vec![(target, 0)];
        while let Some((id, first)) = stack.pop() {
            if !fusion.contains(id)
                || Some(id) == self.dot
                || done.contains(&id)
                || self.table(id).is_some()
                || !seen.insert((id, first))
            {
                continue;
            }
            for &o in &self.info.comp.instr(id).operands {
                stack.push((o, self.operand_column(id, o, first)));
            }
        }
        let mut needed: Vec<(InstrId, i64)> = seen.into_iter().collect();
        needed.sort_by_key(|&(id, first)| (self.positions[&id], first));
        needed.into_iter()
    }

    /// The first column `operand` is read from for `reader` read from
    /// column `first`: a slice's start further on, and 0 for a value that
    /// does not vary along the row.
    fn operand_column(&self, reader: InstrId, operand: InstrId, first: i64) -> i64 {
        match self.classes.get(&operand) {
            Some(Class::Element | Class::Column) => first + self.firsts.get(&reader).unwrap_or(&0),
            _ => 0,
        }
    }

    /// The value of `target` at vector `vector` of the loop step: per-row
    /// values in `done` are read from their slots, kept values in `done`
    /// from their row buffers, and kept values that `pass` computes are
    /// stored to theirs.
    fn value(
        &self,
        f: &mut Func,
        target: InstrId,
        vector: i32,
        done: &HashSet<InstrId>,
        pass: Option<InstrId>,
    ) -> Option<Val> {
        let comp = self.info.comp;
        let mut vals: HashMap<(InstrId, i64), Val> = HashMap::new();
        let read = |f: &mut Func,
                    vals: &HashMap<(InstrId, i64), Val>,
                    id: InstrId,
                    first: i64|
         -> Option<Val> {
            if let Some(v) = vals.get(&(id, first)) {
                return Some(*v);
            }
            if done.contains(&id) {
                return Some(Val::F32(match self.kept.get(&id) {
                    Some(&(_, offset)) => f.load_from(Place::Stack(offset), vector),
                    None => Operand::Slot(self.slot(id)?),
                }));
            }
            let buffer = match self.table(id) {
                Some(k) => self.info.buffers.len() + k,
                None if Some(id) == self.dot => self.strides.len() - 1,
                None => self.info.inputs.get(&id)?.1,
            };
            Some(Val::F32(match self.classes[&id] {
                Class::Element | Class::Column => {
                    let offset = i32::try_from(4 * first).ok()?;
                    f.load_from(Place::Window(buffer, offset), vector)
                }
                Class::Row | Class::Uniform => Operand::Scalar(buffer),
            }))
        };
        for (id, first) in self.needed(target, done) {
            let instr = comp.instr(id);
            let operand = |k: usize| {
                let o = instr.operands[k];
                (o, self.operand_column(id, o, first))
            };
            let index = |k: usize| self.table(instr.operands[k]).is_some();
            let index_value = |f: &mut Func, k: usize| {
                let (o, at) = operand(k);
                read(f, &vals, o, at)?.float()
            };
            let v = match instr.opcode {
                Opcode::Constant => Val::F32(constant(instr)?),
                // Indices compare as f32 values, which they are exactly.
                Opcode::Compare if index(0) && index(1) => {
                    let (a, b) = (index_value(f, 0)?, index_value(f, 1)?);
                    Val::Mask(compare_lanes(f, instr, a, b)?)
                }
                Opcode::Broadcast | Opcode::Reshape | Opcode::Bitcast | Opcode::Slice => {
                    let (o, at) = operand(0);
                    read(f, &vals, o, at)?
                }
                Opcode::Reduce => return None,
                _ => {
                    let args: Vec<Val> = (0..instr.operands.len())
                        .map(|k| {
                            let (o, at) = operand(k);
                            read(f, &vals, o, at)
                        })
                        .collect::<Option<_>>()?;
                    elementwise(f, comp, instr, &args)?
                }
            };
            if let Some(&(by, offset)) = self.kept.get(&id) {
                if Some(by) == pass {
                    f.store_to(v.float()?, Place::Stack(offset), vector);
                }
            }
            vals.insert((id, first), v);
        }
        read(f, &vals, target, 0)
    }

    /// Emits the kernel.
    fn emit(&self) -> Option<NativeKernel> {
        let fusion = self.info.fusion;
        let space = &self.space;
        let buffers = &BASES[..self.strides.len()];
        let base_bytes = 8 * buffers.len() as i32;
        let frame_bytes = base_bytes + 64 * self.slots.len() as i32 + self.kept_bytes();
        let rows_per_iteration = (self.info.iteration_elements / space.n).max(1);
        let mut asm = Asm::default();
        let width = self.width;
        let lanes = width.lanes();
        let mut consts = ConstPool::new(width);
        let tail_masks = tail_masks(&mut consts, width);
        let mut used = buffers.to_vec();
        used.push(ROW);
        let saved = enter(&mut asm, &used, frame_bytes);
        // ROW, rdx = [start, end) in rows, end clamped to the row count.
        asm.imul_imm(ROW, RSI, rows_per_iteration as i32);
        asm.imul_imm(RDX, RDX, rows_per_iteration as i32);
        asm.mov_imm64(RCX, space.rows as u64);
        asm.cmp(RDX, RCX);
        asm.cmovg(RDX, RCX);
        let table = asm.label();
        self.load_buffers(&mut asm, buffers, &mut consts, table);
        for (b, &r) in buffers.iter().enumerate() {
            asm.mov_store(Mem::at(RSP, 8 * b as i32), r);
        }
        let tail = space.n % lanes;
        if tail != 0 {
            match width {
                Width::Zmm => {
                    asm.mov_imm32(RCX, tail as u32);
                    asm.low_bits_mask(R11);
                    asm.kmovw_from_gpr(crate::wide::ir::TAIL_MASK, R11);
                }
                Width::Ymm => {
                    let at = tail_masks + 32 - 4 * tail as i32;
                    asm.ymovups_load(YMM_TAIL, Mem::at(RAX, at));
                }
            }
        }
        let (top, done) = (asm.label(), asm.label());
        asm.cmp(ROW, RDX);
        asm.jcc(Cond::Ge, done);
        asm.bind(top);
        self.row_bases(&mut asm, buffers);
        let mut lowered = lowering(buffers, base_bytes, &mut consts, width);
        let mut done_values: HashSet<InstrId> = HashSet::new();
        let order = &fusion.instructions;
        let position = |id: InstrId| order.iter().position(|&i| i == id);
        for &pass in &self.passes {
            self.per_row_values(&mut asm, &mut lowered, &mut done_values, position(pass)?)?;
            self.reduce_pass(&mut asm, &mut lowered, pass, &done_values)?;
            done_values.insert(pass);
            done_values.extend(
                self.kept
                    .iter()
                    .filter(|&(_, &(by, _))| by == pass)
                    .map(|(&id, _)| id),
            );
        }
        self.per_row_values(&mut asm, &mut lowered, &mut done_values, order.len())?;
        let out = fusion.inputs.len();
        if !self.reduce_root {
            let (two, one) = self.output_steps(&done_values, out)?;
            self.columns(&mut asm, &mut lowered, &two, &one, &one)?;
        } else {
            // The row's reduced value, lane 0 of its slot, to the output.
            let slot = base_bytes + 64 * self.slot(fusion.root)? as i32;
            match width {
                Width::Zmm => {
                    asm.mov_imm32(R11, 1);
                    asm.kmovw_from_gpr(Kreg(1), R11);
                    asm.vmovups_load(Zmm(0), Mem::at(RSP, slot), None);
                    asm.vmovups_store(Mem::at(buffers[out], 0), Zmm(0), Some(Kreg(1)));
                }
                Width::Ymm => {
                    // The mask of one lane: the ones block's last lane on.
                    asm.ymovups_load(Zmm(1), Mem::at(RAX, tail_masks + 28));
                    asm.ymovups_load(Zmm(0), Mem::at(RSP, slot));
                    asm.vmaskmovps_store(Mem::at(buffers[out], 0), Zmm(1), Zmm(0));
                }
            }
        }
        asm.add_imm(ROW, 1);
        asm.cmp(ROW, RDX);
        asm.jcc(Cond::L, top);
        asm.bind(done);
        drop(lowered);
        leave(&mut asm, &saved, frame_bytes, table, &consts.bytes());
        let code = asm.finish();
        Some(NativeKernel {
            code,
            elements_per_iteration: rows_per_iteration * space.n,
            iterations: ceil_div(space.rows, rows_per_iteration),
        })
    }

    /// Loads the buffers' base addresses (the fusion's from the pointer
    /// array in `rdi`, the index tables' in the constant pool) and the
    /// constant table's address (at `table`) into `rax`.
    fn load_buffers(&self, asm: &mut Asm, buffers: &[Gpr], consts: &mut ConstPool, table: Label) {
        let real = self.info.buffers.len();
        load_bases(asm, &buffers[..real], table);
        for (&r, (_, values)) in buffers[real..].iter().zip(&self.tables) {
            asm.lea(r, Mem::at(RAX, consts.table(values)));
        }
    }

    /// Points each buffer that moves with the row at row `ROW`: its base
    /// address kept on the stack plus `ROW` times its row stride.
    fn row_bases(&self, asm: &mut Asm, buffers: &[Gpr]) {
        for (b, (&r, &stride)) in buffers.iter().zip(&self.strides).enumerate() {
            if stride != 0 {
                asm.imul_imm(RCX, ROW, stride as i32);
                asm.mov_load(r, Mem::at(RSP, 8 * b as i32));
                asm.add(r, RCX);
            }
        }
    }

    /// The output loop's steps of two vectors and of one: the root's
    /// values (per-row values in `done` read from their slots) stored to
    /// buffer `out`.
    fn output_steps(&self, done: &HashSet<InstrId>, out: usize) -> Option<(Func, Func)> {
        let step = |vectors: i32| -> Option<Func> {
            let mut f = Func::default();
            for v in 0..vectors {
                let root = self.info.fusion.root;
                let x = self.value(&mut f, root, v, done, None)?.float()?;
                f.store(x, out, v);
            }
            Some(f)
        };
        Some((step(UNROLL)?, step(1)?))
    }

    /// Computes the per-row members before position `before` of the
    /// fusion's order that are not computed yet, into their slots.
    fn per_row_values(
        &self,
        asm: &mut Asm,
        lowered: &mut impl FnMut(&mut Asm, &Func, bool) -> Option<()>,
        done: &mut HashSet<InstrId>,
        before: usize,
    ) -> Option<()> {
        let order = &self.info.fusion.instructions;
        let ready: Vec<InstrId> = self
            .per_row
            .iter()
            .copied()
            .filter(|id| {
                !done.contains(id)
                    && order
                        .iter()
                        .position(|i| i == id)
                        .is_some_and(|p| p < before)
            })
            .collect();
        if ready.is_empty() {
            return Some(());
        }
        let mut f = Func::default();
        for id in ready {
            let v = self.value(&mut f, id, 0, done, None)?.float()?;
            f.store_slot(v, self.slot(id)?);
            done.insert(id);
        }
        lowered(asm, &f, false)
    }

    /// The loop over a reduce's operand along the row, into its slot.
    fn reduce_pass(
        &self,
        asm: &mut Asm,
        lowered: &mut impl FnMut(&mut Asm, &Func, bool) -> Option<()>,
        pass: InstrId,
        done: &HashSet<InstrId>,
    ) -> Option<()> {
        let instr = self.info.comp.instr(pass);
        let reducer = Reducer::of(self.info.module, *instr.called.first()?)?;
        let operand = instr.operands[0];
        let loops = Accumulation::new(reducer, self.width, |f, v| {
            self.value(f, operand, v, done, Some(pass))?.float()
        })?;
        lowered(asm, &loops.init, false)?;
        self.columns(asm, lowered, &loops.two, &loops.one, &loops.tail)?;
        let mut fin = Func::default();
        let all = Accumulation::result(reducer, self.width, &mut fin);
        let init_value = self
            .value(&mut fin, instr.operands[1], 0, done, None)?
            .float()?;
        let result = reducer.combine(&mut fin, init_value, all);
        fin.store_slot(result, self.slot(pass)?);
        lowered(asm, &fin, false)
    }

    /// A loop over the row's columns: `two` per two vectors, then `one`
    /// for a last whole vector, then `tail` through the tail mask (the
    /// column count is known, so only the steps it needs are emitted).
    fn columns(
        &self,
        asm: &mut Asm,
        lowered: &mut impl FnMut(&mut Asm, &Func, bool) -> Option<()>,
        two: &Func,
        one: &Func,
        tail: &Func,
    ) -> Option<()> {
        let n = self.space.n;
        let lanes = self.width.lanes();
        let step = lanes * UNROLL as i64;
        asm.mov_imm32(RSI, 0);
        if n >= step {
            let top = asm.label();
            asm.bind(top);
            lowered(asm, two, false)?;
            asm.add_imm(RSI, step as i32);
            asm.cmp_imm(RSI, (n / step * step) as i32);
            asm.jcc(Cond::L, top);
        }
        if n % step >= lanes {
            lowered(asm, one, false)?;
            asm.add_imm(RSI, lanes as i32);
        }
        if n % lanes != 0 {
            lowered(asm, tail, true)?;
        }
        Some(())
    }
}

/// The most numbers an index table holds (256 KiB of constants).
const MOST_NUMBERS: i64 = 1 << 16;

/// The class and table of an index of `space` read at `map` (an array of
/// `shape`) that counts along `dimension`: uniform 0, each column's number
/// (as many as its rows hold: a slice may read a window), or each row's
/// coordinate in that dimension. `None` for a table longer than
/// [`MOST_NUMBERS`] (whose numbers are then exact in f32), or an element
/// type whose numbers the f32 ones do not stand for.
fn index_table(
    space: &Space,
    shape: &xla_core::ArrayShape,
    map: &Map,
    dimension: Option<usize>,
) -> Option<(Class, Vec<u32>)> {
    let exact = matches!(
        shape.element_type(),
        PrimitiveType::S32
            | PrimitiveType::S64
            | PrimitiveType::U32
            | PrimitiveType::U64
            | PrimitiveType::F32
    );
    if !exact {
        return None;
    }
    let number = |i: i64| (i as f32).to_bits();
    Some(match dimension {
        None => (Class::Uniform, vec![0]),
        Some(d) if d == space.column() => {
            let columns = row_elements(shape, map, space)?;
            if columns > MOST_NUMBERS {
                return None;
            }
            (Class::Column, (0..columns).map(number).collect())
        }
        Some(d) => {
            if space.rows > MOST_NUMBERS {
                return None;
            }
            // Rows number the dimensions before the column in the space's
            // order, the last fastest.
            let rows = &space.order[..space.order.len() - 1];
            let at = rows.iter().position(|&r| r == d)?;
            let inner: i64 = rows[at + 1..].iter().map(|&r| space.dims[r]).product();
            let size = space.dims[d];
            (
                Class::Row,
                (0..space.rows).map(|r| number(r / inner % size)).collect(),
            )
        }
    })
}
