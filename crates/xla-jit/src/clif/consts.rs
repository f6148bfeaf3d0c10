//! `ConstTable`: vector constants that instructions read as memory
//! operands, or that a loop holds in registers.
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
//!
//! A loop may instead hold its first few constants in registers
//! (`held` of [`ConstTable::enter_loop`]): those are loaded through the
//! enclosing body's address, once per value, so the optimizer hoists them
//! out of the loop and merges repeated requests. This pays where an
//! instruction needs two constants and only one can be a memory operand
//! (exp's `x log2(e) + magic`), which otherwise costs a load and a copy
//! into a register each: a loop of f32 exp, one vector per step, ran 22%
//! faster holding 4 (0.53 → 0.41 ms for 1M elements on one core).

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The constants of one function being built. Hand it to
/// [`Jit::keep_constants`](crate::codegen::Jit::keep_constants) once the function is compiled: the code
/// reads the table through a cell that is filled then.
pub struct ConstTable {
    /// Holds the table's address, which the code loads from it.
    cell: Box<usize>,
    /// The function body outside loops, then the loop bodies being
    /// emitted, outermost first.
    scopes: Vec<Scope>,
    ptr: Type,
    slots: Vec<u128>,
    /// The constant each [`ConstTable::load`] result holds.
    loaded: HashMap<Value, u128>,
}

/// A body (the function's or a loop's) being emitted.
struct Scope {
    /// The table's address in the body: loaded at the top of the block
    /// on first use.
    base: Base,
    /// Constants the body holds in registers: value and slot offset.
    held: Vec<(u128, i32)>,
    /// How many it may hold.
    budget: usize,
}

/// Where the table's address comes from in a body.
#[derive(Clone, Copy)]
enum Base {
    /// Not loaded yet: the first use loads it at the top of the block.
    Pending(Block),
    /// This value.
    Loaded(Value),
}

/// Bytes of a slot.
const SLOT_BYTES: usize = 16;

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
            scopes: vec![Scope {
                base: Base::Pending(entry),
                held: Vec::new(),
                budget: 0,
            }],
            ptr,
            slots: Vec::new(),
            loaded: HashMap::new(),
        }
    }

    /// The 16 bytes (as a little-endian `u128`) of `v` if [`ConstTable::load`]
    /// made it.
    pub fn bytes_of(&self, v: Value) -> Option<u128> {
        self.loaded.get(&v).copied()
    }

    /// Enters the body of a loop that starts at `block`: the first
    /// constant the body uses loads the table's address at the top of
    /// `block`, so that the optimizer, which hoists loop-invariant loads,
    /// keeps the constants' loads next to their uses. The first `held`
    /// distinct constants the body uses are held in registers instead.
    pub fn enter_loop(&mut self, block: Block, held: usize) {
        self.scopes.push(Scope {
            base: Base::Pending(block),
            held: Vec::new(),
            budget: held,
        });
    }

    /// Leaves the loop body entered last with [`ConstTable::enter_loop`].
    pub fn leave_loop(&mut self) {
        debug_assert!(self.scopes.len() > 1, "leave_loop without enter_loop");
        self.scopes.pop();
    }

    /// The table's address in body `scope` (0 is the function's).
    fn base(&mut self, b: &mut FunctionBuilder<'_>, scope: usize) -> Value {
        let block = match self.scopes[scope].base {
            Base::Loaded(v) => return v,
            Base::Pending(block) => block,
        };
        let ptr = self.ptr;
        let cell = &*self.cell as *const usize as i64;
        let pos = FuncCursor::new(b.func);
        let mut pos = match pos.layout().first_inst(block) {
            Some(first) => pos.at_inst(first),
            None => pos.at_bottom(block),
        };
        let cell_address = pos.ins().iconst(ptr, cell);
        let base = pos
            .ins()
            .load(ptr, MemFlagsData::new().with_notrap(), cell_address, 0);
        self.scopes[scope].base = Base::Loaded(base);
        base
    }

    /// A new slot holding `value`; its offset.
    fn slot(&mut self, value: u128) -> i32 {
        let offset = i32::try_from(self.slots.len() * SLOT_BYTES)
            .expect("a function has fewer than 2^27 vector constants");
        self.slots.push(value);
        offset
    }

    /// The 16 bytes `bytes` (little-endian) as a vector of type `ty`: held
    /// in a register if the current loop holds it or may hold one more,
    /// else loaded from a slot of its own.
    pub fn load(&mut self, b: &mut FunctionBuilder<'_>, ty: Type, bytes: [u8; 16]) -> Value {
        let value = u128::from_le_bytes(bytes);
        let depth = self.scopes.len() - 1;
        let scope = &self.scopes[depth];
        let held = match scope.held.iter().find(|h| h.0 == value) {
            Some(&(_, offset)) => Some(offset),
            None if scope.held.len() < scope.budget => {
                let offset = self.slot(value);
                self.scopes[depth].held.push((value, offset));
                Some(offset)
            }
            None => None,
        };
        let (scope, offset) = match held {
            Some(offset) => (depth - 1, offset),
            None => (depth, self.slot(value)),
        };
        let base = self.base(b, scope);
        let v = b.ins().load(ty, slot_flags(), base, offset);
        self.loaded.insert(v, value);
        v
    }

    /// The table's memory, with the cell now holding its address.
    pub(crate) fn into_memory(self) -> (Box<usize>, Box<[u128]>) {
        let mut cell = self.cell;
        let slots = self.slots.into_boxed_slice();
        *cell = slots.as_ptr() as usize;
        (cell, slots)
    }
}
