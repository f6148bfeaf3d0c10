//! Column reductions as native kernels, at 512 bits (AVX-512) or 256
//! (AVX2): reduces that keep only the operand's minor-most dimension,
//! such as `logsumexp` over axis 0 or a bias gradient's sum over the
//! batch.
//!
//! The operand is the *space* (see `space.rs`): its minor-most dimension
//! of `N` elements is the column, the others, all reduced, make `R` rows.
//! Values of the fused prologue are read per element, per column (a
//! broadcast of a value of the output's shape), per row or uniformly.
//!
//! As Cranelift's column kernels (`column.rs`) do, a kernel holds its
//! accumulators in memory, a chunk of up to [`CHUNK`] columns that stays in
//! L1, and folds whole rows into them in memory order (reading rows in
//! pieces narrower than a row defeats the prefetchers). When the chunks are
//! too few to keep the threads busy, the rows are split into groups: the
//! first kernel folds each group into its own partial (output-shaped, in
//! the scratch buffer, starting from the reducer's identity), the second
//! folds the init value and the partials, in group order, into the output.
//! The result does not depend on how the runtime splits either kernel.

use std::collections::{HashMap, HashSet};

use xla_core::arith::ceil_div;
use xla_core::hlo::InstrId;
use xla_core::{Opcode, PrimitiveType};

use super::space::{identity, maps, row_strides, Class, Space};
use super::{
    constant, element_loop, elementwise, enter, leave, load_bases, lowering, tail_masks,
    NativeKernel, Reducer, Val, UNROLL,
};
use crate::emit::{Emit, KernelInfo, KernelPlan};
use crate::fusion::FusionKind;
use crate::wide::asm::{gpr::*, Asm, Cond, Gpr, Mem};
use crate::wide::ir::{ConstPool, Func, Operand};
use crate::wide::Width;

/// The registers holding the buffers' base addresses (inputs, the output,
/// the scratch buffer), in buffer order.
const BASES: [Gpr; 9] = [R8, R9, R10, RDI, RBX, RBP, R12, R13, R14];

/// The current row.
const ROW: Gpr = R15;

/// Columns per chunk: 16 KiB of f32 accumulators stay in the 48 KiB L1
/// with room for the streamed rows.
const CHUNK: i64 = 4096;

/// Below this many chunks the rows are split into groups.
const PARALLEL_UNITS: i64 = 16;

/// Fewest rows per group.
const MIN_GROUP_ROWS: i64 = 64;

/// The stack slots of a kernel's loop state, after the buffers' bases.
#[derive(Clone, Copy)]
enum State {
    /// The end of the call's iterations.
    End,
    /// The current iteration.
    Iteration,
    /// The current iteration's chunk.
    Unit,
    /// The current iteration's group.
    Group,
    /// The chunk's first column.
    First,
    /// The group's end row.
    RowEnd,
}

const STATES: i32 = 6;

/// The kernels of `info`'s fusion if it is a column reduction this
/// emitter takes: one kernel, or the partials and their fold.
pub(super) fn plan(info: &KernelInfo, width: Width, per_element: f64) -> Option<Vec<KernelPlan>> {
    let columns = Columns::new(info, width)?;
    let (n, rows, groups) = (columns.space.n, columns.space.rows, columns.groups);
    let part = |one: &'static str, two: &'static str| match width {
        Width::Zmm => one,
        Width::Ymm => two,
    };
    let plan = |part, kernel: NativeKernel, cost: f64, scratch_bytes| KernelPlan {
        part,
        iterations: kernel.iterations,
        cost_per_iteration: cost,
        scratch_bytes,
        epilogue: false,
        emit: Emit::Native(kernel),
    };
    let per_unit = (columns.chunk.min(n) * rows) as f64 * per_element;
    if groups == 1 {
        let kernel = columns.emit(Fold::Direct)?;
        return Some(vec![plan(
            part("avx512_columns", "avx2_columns"),
            kernel,
            per_unit,
            0,
        )]);
    }
    let scratch_bytes = (4 * n * groups) as usize;
    let partials = columns.emit(Fold::Partials)?;
    let combine = columns.emit(Fold::Combine)?;
    Some(vec![
        plan(
            part("avx512_column_partials", "avx2_column_partials"),
            partials,
            per_unit / groups as f64,
            scratch_bytes,
        ),
        plan(
            part("avx512_column_combine", "avx2_column_combine"),
            combine,
            (columns.chunk.min(n) * groups) as f64 * 0.5,
            scratch_bytes,
        ),
    ])
}

/// Which of a column reduction's folds a kernel runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fold {
    /// The init value and every row into the output (one group).
    Direct,
    /// Each group's rows into its partial, from the reducer's identity.
    Partials,
    /// The init value and the partials into the output.
    Combine,
}

/// A column reduction, checked.
struct Columns<'a, 'm> {
    info: &'a KernelInfo<'m>,
    space: Space,
    classes: HashMap<InstrId, Class>,
    reducer: Reducer,
    /// The reduce's operand and init value.
    operand: InstrId,
    init: InstrId,
    /// Each buffer's bytes from one row to the next (the output's 0).
    strides: Vec<i64>,
    /// Columns per chunk (a multiple of 64 unless it is the whole row).
    chunk: i64,
    /// Groups of rows (1: no partials).
    groups: i64,
    width: Width,
}

impl<'a, 'm> Columns<'a, 'm> {
    fn new(info: &'a KernelInfo<'m>, width: Width) -> Option<Self> {
        let fusion = info.fusion;
        let comp = info.comp;
        if fusion.kind != FusionKind::Reduction
            || fusion.outputs.len() != 1
            || fusion.in_place.is_some()
        {
            return None;
        }
        let reduce = comp.instr(fusion.root);
        if reduce.opcode != Opcode::Reduce || reduce.operands.len() != 2 {
            return None;
        }
        let reducer = Reducer::of(info.module, *reduce.called.first()?)?;
        let (operand, init) = (reduce.operands[0], reduce.operands[1]);
        let shape = comp.instr(operand).shape.as_array()?;
        let out = reduce.shape.as_array()?;
        if shape.element_type() != PrimitiveType::F32
            || out.element_type() != PrimitiveType::F32
            || !out.layout_or_default().is_dense()
        {
            return None;
        }
        let space = Space::new(shape)?;
        // Every dimension but the column is reduced (or of size 1), the
        // column is not.
        let reduced: Vec<usize> = reduce
            .attrs
            .dimensions
            .as_deref()?
            .iter()
            .map(|&d| d as usize)
            .collect();
        let column = space.column();
        if reduced.contains(&column)
            || space
                .order
                .iter()
                .any(|d| *d != column && !reduced.contains(d))
        {
            return None;
        }
        let init_rank = comp.instr(init).shape.as_array()?.rank();
        let seeds = vec![(operand, identity(shape)), (init, vec![None; init_rank])];
        let maps = maps(info, &space, seeds, None)?;
        let mut classes = HashMap::new();
        for (&id, map) in &maps {
            classes.insert(id, space.class(map)?);
        }
        for &id in &fusion.instructions {
            if id != fusion.root
                && (!maps.contains_key(&id) || comp.instr(id).opcode == Opcode::Reduce)
            {
                return None;
            }
        }
        if classes.get(&init) != Some(&Class::Uniform) {
            return None;
        }
        let row_bytes = 4 * space.n;
        let mut strides = row_strides(info, &space, &maps, &classes, fusion.inputs.clone())?;
        strides.push(0);
        if strides.len() != info.buffers.len() {
            return None;
        }
        let chunk = if space.n <= CHUNK {
            space.n
        } else {
            (info.iteration_elements / 64 * 64).clamp(64, CHUNK)
        };
        let units = ceil_div(space.n, chunk);
        let rows = space.rows;
        let groups = if units >= PARALLEL_UNITS || rows < 2 * MIN_GROUP_ROWS {
            1
        } else {
            ceil_div(PARALLEL_UNITS, units).min(rows / MIN_GROUP_ROWS)
        };
        if groups > 1 {
            // The scratch buffer's partials, `row_bytes` apart.
            strides.push(row_bytes);
        }
        if strides.len() > BASES.len() {
            return None;
        }
        Some(Columns {
            info,
            space,
            classes,
            reducer,
            operand,
            init,
            strides,
            chunk,
            groups,
            width,
        })
    }

    /// The value of `target` (the reduce's operand or init value) at
    /// vector `vector` of the loop step.
    fn value(&self, f: &mut Func, target: InstrId, vector: i32) -> Option<Operand> {
        let info = self.info;
        let comp = info.comp;
        let mut needed = HashSet::new();
        let mut stack = vec![target];
        while let Some(id) = stack.pop() {
            if info.fusion.contains(id) && needed.insert(id) {
                stack.extend(comp.instr(id).operands.iter().copied());
            }
        }
        let mut vals: HashMap<InstrId, Val> = HashMap::new();
        let read = |f: &mut Func, vals: &HashMap<InstrId, Val>, id: InstrId| -> Option<Val> {
            if let Some(v) = vals.get(&id) {
                return Some(*v);
            }
            let &(_, buffer) = info.inputs.get(&id)?;
            Some(Val::F32(match self.classes[&id] {
                Class::Element | Class::Column => f.load(buffer, vector),
                Class::Row | Class::Uniform => Operand::Scalar(buffer),
            }))
        };
        for &id in info
            .fusion
            .instructions
            .iter()
            .filter(|id| needed.contains(id))
        {
            let instr = comp.instr(id);
            let v = match instr.opcode {
                Opcode::Constant => Val::F32(constant(instr)?),
                Opcode::Broadcast | Opcode::Reshape | Opcode::Bitcast => {
                    read(f, &vals, instr.operands[0])?
                }
                _ => {
                    let args: Vec<Val> = instr
                        .operands
                        .iter()
                        .map(|&o| read(f, &vals, o))
                        .collect::<Option<_>>()?;
                    elementwise(f, comp, instr, &args)?
                }
            };
            vals.insert(id, v);
        }
        read(f, &vals, target)?.float()
    }

    /// The kernel of `fold`: iteration `group · chunks + chunk` folds the
    /// rows of `group` (of the rows, or of the partials for
    /// [`Fold::Combine`]) into the chunk's accumulators.
    fn emit(&self, fold: Fold) -> Option<NativeKernel> {
        let space = &self.space;
        let (n, width) = (space.n, self.width);
        let out = self.info.fusion.inputs.len();
        let scratch = out + 1;
        let buffers = &BASES[..self.strides.len()];
        let units = ceil_div(n, self.chunk);
        // The accumulators' buffer and its bytes from group to group; the
        // rows folded, per group; the groups.
        let (acc, acc_stride, rows, per_group, groups) = match fold {
            Fold::Direct => (out, 0, space.rows, space.rows, 1),
            Fold::Partials => {
                let per_group = ceil_div(space.rows, self.groups);
                (scratch, 4 * n, space.rows, per_group, self.groups)
            }
            Fold::Combine => (out, 0, self.groups, self.groups, 1),
        };
        // Each buffer's stride from one folded row to the next.
        let strides: Vec<i64> = match fold {
            Fold::Combine => (0..buffers.len())
                .map(|b| if b == scratch { 4 * n } else { 0 })
                .collect(),
            _ => self.strides.clone(),
        };
        for v in [self.chunk, per_group, 4 * n, units] {
            if v > i64::from(i32::MAX) {
                return None;
            }
        }
        let init = |f: &mut Func, v: i32| match fold {
            Fold::Partials => Some(self.reducer.identity()),
            Fold::Direct | Fold::Combine => self.value(f, self.init, v),
        };
        let value = |f: &mut Func, v: i32| match fold {
            Fold::Combine => Some(f.load(scratch, v)),
            Fold::Direct | Fold::Partials => self.value(f, self.operand, v),
        };
        let steps = |body: &dyn Fn(&mut Func, i32) -> Option<()>| -> Option<[Func; 3]> {
            let step = |vectors: i32| -> Option<Func> {
                let mut f = Func::default();
                for v in 0..vectors {
                    body(&mut f, v)?;
                }
                Some(f)
            };
            Some([step(UNROLL)?, step(1)?, step(1)?])
        };
        let set = steps(&|f, v| {
            let x = init(f, v)?;
            f.store(x, acc, v);
            Some(())
        })?;
        let add = steps(&|f, v| {
            let a = f.load(acc, v);
            let x = value(f, v)?;
            let r = self.reducer.combine(f, a, x);
            f.store(r, acc, v);
            Some(())
        })?;

        let base_bytes = 8 * buffers.len() as i32;
        let state = |s: State| Mem::at(RSP, base_bytes + 8 * s as i32);
        let frame_bytes = base_bytes + 8 * STATES;
        let mut asm = Asm::default();
        let mut consts = ConstPool::new(width);
        let tail_masks = tail_masks(&mut consts, width);
        let mut used = buffers.to_vec();
        used.push(ROW);
        let saved = enter(&mut asm, &used, frame_bytes);
        asm.mov_store(state(State::End), RDX);
        asm.mov_store(state(State::Iteration), RSI);
        let table = asm.label();
        load_bases(&mut asm, buffers, table);
        for (b, &r) in buffers.iter().enumerate() {
            asm.mov_store(Mem::at(RSP, 8 * b as i32), r);
        }
        // The first iteration's chunk and group: it = group · units + unit.
        let (split, split_done) = (asm.label(), asm.label());
        asm.mov(RCX, RSI);
        asm.mov_imm32(R11, 0);
        asm.bind(split);
        asm.cmp_imm(RCX, units as i32);
        asm.jcc(Cond::L, split_done);
        asm.add_imm(RCX, -(units as i32));
        asm.add_imm(R11, 1);
        asm.jmp(split);
        asm.bind(split_done);
        asm.mov_store(state(State::Unit), RCX);
        asm.mov_store(state(State::Group), R11);

        let mut lowered = lowering(buffers, frame_bytes, &mut consts, width);
        // The loop over the chunk's columns, [rsi, rdx).
        let chunk_loop = |asm: &mut Asm, lowered: &mut _, [two, one, tail]: &[Func; 3]| {
            element_loop(asm, lowered, RDX, (two, one, tail), (width, tail_masks))
        };
        let (top, done) = (asm.label(), asm.label());
        asm.bind(top);
        asm.mov_load(RCX, state(State::Iteration));
        asm.mov_load(R11, state(State::End));
        asm.cmp(RCX, R11);
        asm.jcc(Cond::Ge, done);
        // The chunk's columns: rsi = first, rdx = end.
        asm.mov_load(RCX, state(State::Unit));
        asm.imul_imm(RSI, RCX, self.chunk as i32);
        asm.mov_store(state(State::First), RSI);
        asm.lea(RDX, Mem::at(RSI, self.chunk as i32));
        asm.mov_imm64(RCX, n as u64);
        asm.cmp(RDX, RCX);
        asm.cmovg(RDX, RCX);
        if acc_stride != 0 {
            asm.mov_load(R11, state(State::Group));
            asm.imul_imm(RCX, R11, acc_stride as i32);
            asm.mov_load(buffers[acc], Mem::at(RSP, 8 * acc as i32));
            asm.add(buffers[acc], RCX);
        }
        chunk_loop(&mut asm, &mut lowered, &set)?;
        // The group's rows: ROW = first, RowEnd = end.
        asm.mov_load(R11, state(State::Group));
        asm.imul_imm(ROW, R11, per_group as i32);
        asm.mov(RCX, ROW);
        asm.add_imm(RCX, per_group as i32);
        asm.mov_imm64(R11, rows as u64);
        asm.cmp(RCX, R11);
        asm.cmovg(RCX, R11);
        asm.mov_store(state(State::RowEnd), RCX);
        let (row_top, row_done) = (asm.label(), asm.label());
        asm.bind(row_top);
        asm.mov_load(RCX, state(State::RowEnd));
        asm.cmp(ROW, RCX);
        asm.jcc(Cond::Ge, row_done);
        for (b, (&r, &stride)) in buffers.iter().zip(&strides).enumerate() {
            if stride != 0 && b != acc {
                asm.imul_imm(RCX, ROW, stride as i32);
                asm.mov_load(r, Mem::at(RSP, 8 * b as i32));
                asm.add(r, RCX);
            }
        }
        asm.mov_load(RSI, state(State::First));
        chunk_loop(&mut asm, &mut lowered, &add)?;
        asm.add_imm(ROW, 1);
        asm.jmp(row_top);
        asm.bind(row_done);
        // The next iteration: the next chunk, or the next group's first.
        asm.mov_load(RCX, state(State::Iteration));
        asm.add_imm(RCX, 1);
        asm.mov_store(state(State::Iteration), RCX);
        let same_group = asm.label();
        asm.mov_load(RCX, state(State::Unit));
        asm.add_imm(RCX, 1);
        asm.cmp_imm(RCX, units as i32);
        asm.jcc(Cond::L, same_group);
        asm.mov_imm32(RCX, 0);
        asm.mov_load(R11, state(State::Group));
        asm.add_imm(R11, 1);
        asm.mov_store(state(State::Group), R11);
        asm.bind(same_group);
        asm.mov_store(state(State::Unit), RCX);
        asm.jmp(top);
        asm.bind(done);
        drop(lowered);
        leave(&mut asm, &saved, frame_bytes, table, &consts.bytes());
        Some(NativeKernel {
            code: asm.finish(),
            elements_per_iteration: self.chunk.min(n) * per_group,
            iterations: units * groups,
        })
    }
}
