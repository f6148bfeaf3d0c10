//! Dot epilogues (a bias, a residual, an activation on a dot's output)
//! as native kernels: the row kernel of the epilogue's elementwise part,
//! over one block of the dot's output at a time.
//!
//! The space is the dot's output, walked row-major: its rows number the
//! batch and the lhs's free dimensions, its column is the rhs's one free
//! dimension, so a block's `(batch, row0 + i, col0 + j)` is the space's
//! row `batch · M + row0 + i` and column `col0 + j`. The kernel walks the
//! block's rows; each buffer's row starts where a row kernel's would, one
//! block column `col0` on for the values that vary along the column; the
//! dot's values are read from the block and the root's written back over
//! them. Columns one element apart run in vectors, the last through the
//! tail mask; others (a transposed output's blocks) one element at a
//! time.

use xla_core::hlo::InstrId;
use xla_core::PrimitiveType;

use super::super::{element_loop, enter, leave, lowering, tail_masks};
use super::{identity, Class, NativeKernel, Rows, Space, BASES, ROW};
use crate::emit::epilogue::groups;
use crate::emit::KernelInfo;
use crate::fusion::FusionKind;
use crate::wide::asm::{gpr::*, Asm, Cond, Gpr, Mem};
use crate::wide::ir::{ConstPool, TAIL_MASK, YMM_TAIL};
use crate::wide::Width;

/// Stack slots of the block's fields, after the buffers' base addresses:
/// the row to stop at, the columns, the bytes between columns, the bytes
/// between rows, and the address of the current row of the block.
const END: i32 = 0;
const COLUMNS: i32 = 8;
const COLUMN_BYTES: i32 = 16;
const ROW_BYTES: i32 = 24;
const BLOCK_ROW: i32 = 32;

/// The native kernel of `info`'s dot epilogue at `width`, if this emitter
/// takes it (it follows the epilogue ABI: buffers in `rdi`, the
/// [`EpilogueBlock`](crate::emit::EpilogueBlock) in `rsi`).
pub(in super::super) fn compile(info: &KernelInfo, width: Width) -> Option<NativeKernel> {
    let fusion = info.fusion;
    let comp = info.comp;
    let dot = fusion.dot.as_ref()?.dot;
    if fusion.kind != FusionKind::DotEpilogue
        || fusion.outputs.len() != 1
        || fusion.in_place.is_some()
        || fusion.root == dot
    {
        return None;
    }
    let shape = comp.instr(fusion.root).shape.as_array()?;
    let dot_shape = comp.instr(dot).shape.as_array()?;
    if shape.element_type() != PrimitiveType::F32
        || dot_shape.element_type() != PrimitiveType::F32
        || dot_shape.dims() != shape.dims()
    {
        return None;
    }
    let space = Space::new(shape)?;
    // The space's rows in the engine's order, its column the dot's only
    // column dimension.
    let g = groups(info, comp.instr(dot)).ok()?;
    let rank = shape.rank();
    if g.cols.len() != 1 || space.column() != rank - 1 || !space.order.is_sorted() {
        return None;
    }
    let rows_per_batch: i64 = g.rows.iter().product();
    let rows = Rows::analyse(info, width, space, identity(shape), false, Some(dot))?;
    // The dot's values are read at their own element, no slice shifts the
    // block's columns, and no reduce spans blocks.
    let whole = rows.classes.get(&dot) == Some(&Class::Element) && rows.firsts.is_empty();
    if !whole || !rows.passes.is_empty() {
        return None;
    }
    rows.emit_epilogue(i32::try_from(rows_per_batch).ok()?)
}

impl Rows<'_, '_> {
    /// `true` for buffer `b` if the kernel reads it along the column: its
    /// address moves with the block's columns.
    fn along_column(&self, b: usize) -> bool {
        let info = self.info;
        let id: Option<InstrId> = match b.checked_sub(info.buffers.len()) {
            None => info.fusion.inputs.get(b).copied(),
            Some(k) => self.tables.get(k).map(|&(id, _)| id),
        };
        id.and_then(|id| self.classes.get(&id))
            .is_some_and(|c| matches!(c, Class::Element | Class::Column))
    }

    /// Emits the epilogue kernel; a batch holds `rows_per_batch` rows.
    fn emit_epilogue(&self, rows_per_batch: i32) -> Option<NativeKernel> {
        let fusion = self.info.fusion;
        let buffers = &BASES[..self.strides.len()];
        let block = self.strides.len() - 1;
        let block_reg = buffers[block];
        let base_bytes = 8 * buffers.len() as i32;
        let field = |at: i32| Mem::at(RSP, base_bytes + at);
        let slots = base_bytes + 64;
        let frame_bytes = slots + 64 * self.slots.len() as i32;
        let width = self.width;
        let mut asm = Asm::default();
        let mut consts = ConstPool::new(width);
        let tail_masks = tail_masks(&mut consts, width);
        let mut used = buffers.to_vec();
        used.push(ROW);
        let saved = enter(&mut asm, &used, frame_bytes);
        // The block's fields (`rsi` points at them), before `rdi` and
        // `rsi` are reused.
        let load = |asm: &mut Asm, r: Gpr, k: i32| asm.mov_load(r, Mem::at(RSI, 8 * k));
        load(&mut asm, RCX, 0);
        asm.mov_store(field(BLOCK_ROW), RCX);
        for (k, at) in [(1, ROW_BYTES), (2, COLUMN_BYTES)] {
            load(&mut asm, RCX, k);
            asm.imul_imm(RCX, RCX, 4);
            asm.mov_store(field(at), RCX);
        }
        load(&mut asm, RCX, 4);
        asm.mov_store(field(COLUMNS), RCX);
        // The first row: batch · M + row0; the last: that plus the rows.
        load(&mut asm, ROW, 5);
        asm.imul_imm(ROW, ROW, rows_per_batch);
        load(&mut asm, RCX, 6);
        asm.add(ROW, RCX);
        load(&mut asm, RCX, 3);
        asm.add(RCX, ROW);
        asm.mov_store(field(END), RCX);
        // col0 in bytes.
        load(&mut asm, RDX, 7);
        asm.imul_imm(RDX, RDX, 4);
        let table = asm.label();
        self.load_buffers(&mut asm, buffers, &mut consts, table);
        let along: Vec<usize> = (0..block).filter(|&b| self.along_column(b)).collect();
        for &b in &along {
            asm.add(buffers[b], RDX);
        }
        for (b, &r) in buffers[..block].iter().enumerate() {
            asm.mov_store(Mem::at(RSP, 8 * b as i32), r);
        }
        let (top, strided, next, done) = (asm.label(), asm.label(), asm.label(), asm.label());
        asm.bind(top);
        asm.mov_load(RCX, field(END));
        asm.cmp(ROW, RCX);
        asm.jcc(Cond::Ge, done);
        // (The block's stride is 0: it moves by the block's row bytes.)
        self.row_bases(&mut asm, buffers);
        asm.mov_load(block_reg, field(BLOCK_ROW));
        let mut lowered = lowering(buffers, slots, &mut consts, width);
        let mut done_values = Default::default();
        let order_len = fusion.instructions.len();
        self.per_row_values(&mut asm, &mut lowered, &mut done_values, order_len)?;
        let (two, one) = self.output_steps(&done_values, block)?;
        asm.mov_load(RCX, field(COLUMN_BYTES));
        asm.cmp_imm(RCX, 4);
        asm.jcc(Cond::Nz, strided);
        asm.mov_imm32(RSI, 0);
        asm.mov_load(RDX, field(COLUMNS));
        element_loop(
            &mut asm,
            &mut lowered,
            RDX,
            (&two, &one, &one),
            (width, tail_masks),
        )?;
        asm.jmp(next);
        // Columns apart: one lane at a time at index 0, the addresses
        // moved on by a column after each.
        asm.bind(strided);
        match width {
            Width::Zmm => {
                asm.mov_imm32(R11, 1);
                asm.kmovw_from_gpr(TAIL_MASK, R11);
            }
            Width::Ymm => asm.ymovups_load(YMM_TAIL, Mem::at(RAX, tail_masks + 28)),
        }
        asm.mov_imm32(RSI, 0);
        asm.mov_load(RDX, field(COLUMNS));
        let (column, columns_done) = (asm.label(), asm.label());
        asm.bind(column);
        asm.cmp_imm(RDX, 0);
        asm.jcc(Cond::Le, columns_done);
        lowered(&mut asm, &one, true)?;
        for &b in &along {
            asm.add_imm(buffers[b], 4);
        }
        asm.mov_load(RCX, field(COLUMN_BYTES));
        asm.add(block_reg, RCX);
        asm.add_imm(RDX, -1);
        asm.jmp(column);
        asm.bind(columns_done);
        // Values along the column that no row stride moves start each row
        // where the block's columns start.
        for &b in &along {
            if self.strides[b] == 0 {
                asm.mov_load(buffers[b], Mem::at(RSP, 8 * b as i32));
            }
        }
        asm.bind(next);
        asm.mov_load(RCX, field(BLOCK_ROW));
        asm.mov_load(R11, field(ROW_BYTES));
        asm.add(RCX, R11);
        asm.mov_store(field(BLOCK_ROW), RCX);
        asm.add_imm(ROW, 1);
        asm.jmp(top);
        asm.bind(done);
        drop(lowered);
        leave(&mut asm, &saved, frame_bytes, table, &consts.bytes());
        Some(NativeKernel {
            code: asm.finish(),
            elements_per_iteration: 1,
            iterations: 1,
        })
    }
}
