//! `ConstTable`: vector constants that instructions read as memory
//! operands.
//!
//! Cranelift's x86-64 backend gives every `vconst` its own `movups` from the
//! function's constant pool into a register; it never folds one into the
//! instruction that uses it. A `load` that has one use, emitted right
//! before that use, is folded (`vfmadd213ps 0x40(%r10), …`). So the math
//! library reads its constants from a table: each request gets a slot of
//! its own (GVN would merge loads of one slot into a value with several
//! uses, which is not folded). A polynomial then costs one instruction per
//! coefficient instead of two, and no register holds a coefficient.
//!
//! Each loop body that uses a constant loads the table's address from a
//! cell at its top ([`ConstTable::enter_loop`]). The address is then not
//! loop-invariant, so the optimizer, which hoists invariant loads out of
//! loops, leaves the constants' loads at their uses; hoisted, they would
//! take one register each across the loop and spill.

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The constants of one function being built. Hand it to
/// [`super::Jit::keep_constants`] once the function is compiled: the code
/// reads the table through a cell that is filled then.
pub struct ConstTable {
    /// Holds the table's address, which the code loads from it.
    cell: Box<usize>,
    /// The table's address in the current loop body (or function body).
    base: Base,
    ptr: Type,
    slots: Vec<u128>,
}

/// Where the table's address comes from in a loop body.
#[derive(Clone, Copy)]
pub enum Base {
    /// Not loaded yet: the first use loads it at the top of the block.
    Pending(Block),
    /// This value.
    Loaded(Value),
}

/// Flags of loads from the table: in bounds, aligned, never written while
/// the code runs, so free to move (each slot has one load, so nothing
/// merges them).
fn slot_flags() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_aligned()
        .with_readonly()
        .with_can_move()
}

impl ConstTable {
    /// A table for the function `b` builds, positioned in its entry block
    /// (where code outside loops loads the table's address; `ptr` is the
    /// pointer type).
    pub fn new(b: &mut FunctionBuilder<'_>, ptr: Type) -> Self {
        let entry = b.current_block().expect("positioned in the entry block");
        ConstTable {
            cell: Box::new(0),
            base: Base::Pending(entry),
            ptr,
            slots: Vec::new(),
        }
    }

    /// Enters the body of a loop that starts at `block`: the first
    /// constant the body uses loads the table's address at the top of
    /// `block`, so that the optimizer, which hoists loop-invariant loads,
    /// keeps the constants' loads next to their uses. Returns the state to
    /// [`ConstTable::leave_loop`] with.
    pub fn enter_loop(&mut self, block: Block) -> Base {
        std::mem::replace(&mut self.base, Base::Pending(block))
    }

    /// Leaves a loop body entered with [`ConstTable::enter_loop`].
    pub fn leave_loop(&mut self, outer: Base) {
        self.base = outer;
    }

    /// The table's address as seen from the current loop body.
    fn base(&mut self, b: &mut FunctionBuilder<'_>) -> Value {
        let block = match self.base {
            Base::Loaded(v) => return v,
            Base::Pending(block) => block,
        };
        let ptr = self.ptr;
        let pos = FuncCursor::new(b.func);
        let mut pos = match pos.layout().first_inst(block) {
            Some(first) => pos.at_inst(first),
            None => pos.at_bottom(block),
        };
        let cell_address = pos.ins().iconst(ptr, &*self.cell as *const usize as i64);
        let base = pos
            .ins()
            .load(ptr, MemFlagsData::new().with_notrap(), cell_address, 0);
        self.base = Base::Loaded(base);
        base
    }

    /// The 16 bytes `bytes` (little-endian) as a vector of type `ty`, loaded
    /// from a slot of their own.
    pub fn load(&mut self, b: &mut FunctionBuilder<'_>, ty: Type, bytes: [u8; 16]) -> Value {
        let offset = i32::try_from(self.slots.len() * 16)
            .expect("a function has fewer than 2^27 vector constants");
        self.slots.push(u128::from_le_bytes(bytes));
        let base = self.base(b);
        b.ins().load(ty, slot_flags(), base, offset)
    }

    /// The table's memory, with the cell now holding its address.
    pub(super) fn into_memory(self) -> (Box<usize>, Box<[u128]>) {
        let mut cell = self.cell;
        let slots = self.slots.into_boxed_slice();
        *cell = slots.as_ptr() as usize;
        (cell, slots)
    }
}
