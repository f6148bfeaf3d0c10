//! `ConstTable`: vector constants that instructions read as memory
//! operands.
//!
//! Cranelift's x86-64 backend gives every `vconst` its own `movups` from the
//! function's constant pool into a register; it never folds one into the
//! instruction that uses it. A `load` that has one use, emitted right
//! before that use, is folded (`vfmadd213ps 0x40(%r10), …`). So the math
//! library reads its constants from a table: each request gets a slot of
//! its own (GVN would merge loads of one slot into a value with several
//! uses, which is not folded), and the entry block loads the table's
//! address once. A polynomial then costs one instruction per coefficient
//! instead of two, and no register holds a coefficient.

use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The constants of one function being built. Hand it to
/// [`super::Jit::keep_constants`] once the function is compiled: the code
/// reads the table through a cell that is filled then.
pub struct ConstTable {
    /// Holds the table's address; the code loads it in its entry block.
    cell: Box<usize>,
    /// The table's address, as loaded by the entry block.
    base: Value,
    slots: Vec<u128>,
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
    /// A table for the function `b` builds; `b` must be positioned in the
    /// entry block, where the load of the table's address is emitted. The
    /// load stays there (it may not move into the loops that use it).
    pub fn new(b: &mut FunctionBuilder<'_>, ptr: Type) -> Self {
        let cell = Box::new(0usize);
        let cell_address = b.ins().iconst(ptr, &*cell as *const usize as i64);
        let base = b
            .ins()
            .load(ptr, MemFlagsData::new().with_notrap(), cell_address, 0);
        ConstTable {
            cell,
            base,
            slots: Vec::new(),
        }
    }

    /// The 16 bytes `bytes` (little-endian) as a vector of type `ty`, loaded
    /// from a slot of their own.
    pub fn load(&mut self, b: &mut FunctionBuilder<'_>, ty: Type, bytes: [u8; 16]) -> Value {
        let offset = i32::try_from(self.slots.len() * 16)
            .expect("a function has fewer than 2^27 vector constants");
        self.slots.push(u128::from_le_bytes(bytes));
        b.ins().load(ty, slot_flags(), self.base, offset)
    }

    /// The table's memory, with the cell now holding its address.
    pub(super) fn into_memory(self) -> (Box<usize>, Box<[u128]>) {
        let mut cell = self.cell;
        let slots = self.slots.into_boxed_slice();
        *cell = slots.as_ptr() as usize;
        (cell, slots)
    }
}
