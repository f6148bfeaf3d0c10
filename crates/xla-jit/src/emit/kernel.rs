//! `KernelBuilder`: the context every emitter works through.
//!
//! It owns the Cranelift `FunctionBuilder`, the pointer type, the base
//! pointers of the kernel's buffers (loaded once in the entry block, or
//! where they are used when a kernel has too many to keep in registers), the
//! math library's constant table and the generator cache, and offers the helpers op code uses instead of wiring
//! blocks by hand: [`KernelBuilder::for_range`], [`KernelBuilder::if_else`],
//! loads and stores with constant offsets in the immediate, vector
//! constants, shuffles and calls to host helper functions.

use std::borrow::{Borrow, BorrowMut};
use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::{
    self, types, AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use crate::math::UnaryFn;

/// Flags of loads from a kernel's buffers: in bounds, and free of stores
/// from the same kernel (outputs never alias inputs except in place, where
/// the aliased input is never read), so the optimizer may hoist them out of
/// loops.
pub(crate) fn load_flags() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_readonly()
        .with_can_move()
}

/// Flags of stores to a kernel's buffers (and of loads of outputs, which
/// accumulating kernels read back).
pub(crate) fn store_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Flags for `bitcast` between vector types of different lane shapes.
pub(crate) fn bitcast_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Kernels with at most this many buffers load every base pointer once in
/// the entry block. Kernels with more (a concatenate of hundreds of
/// operands) load each pointer where it is used: the registers could not
/// hold them all through the loop anyway, and hundreds of values live across
/// every block made register allocation grow with the square of the
/// operand count (1000 operands took 15 s to compile).
const HOISTED_BUFFERS: usize = 16;

/// Loads entry `i` of the kernel's pointer array. A plain load stays where
/// it is (the optimizer would hoist a movable one out of every loop).
fn load_pointer(b: &mut FunctionBuilder, ptr: Type, array: Value, i: usize) -> Value {
    b.ins()
        .load(ptr, store_flags(), array, (i * ptr.bytes() as usize) as i32)
}

/// The key of one generator evaluation: an instruction at an index.
pub(crate) type CacheKey = (u32, Vec<(Option<Value>, i64, i64)>, u32);

/// The emitters' context for one kernel function.
pub struct KernelBuilder<'a, 'b> {
    /// The Cranelift builder, positioned where code is being emitted.
    pub b: &'a mut FunctionBuilder<'b>,
    /// The native pointer type (`i64` on x86-64).
    pub ptr: Type,
    /// The vector constants of the math library.
    pub consts: crate::clif::ConstTable,
    call_conv: CallConv,
    /// The function's entry block (in the layout only once an instruction
    /// is emitted there); its first parameter is the array of base
    /// pointers.
    entry: ir::Block,
    /// The base pointers loaded in the entry block (empty when the kernel
    /// has more than [`HOISTED_BUFFERS`]).
    buffers: Vec<Value>,
    /// Generator results, one map per open control-flow scope: a value
    /// computed inside a branch must not be reused after the branch.
    scopes: Vec<HashMap<CacheKey, Value>>,
    /// Math functions emitted in stages, by (function, argument): the stage
    /// to emit next and the values the previous one returned.
    staged: HashMap<(UnaryFn, Value), (usize, Vec<Value>)>,
    /// The stack slot [`KernelBuilder::order_before_next`] stores to.
    order_slot: Option<ir::StackSlot>,
    /// Float values known to hold no subnormal: flushed, or selected from
    /// flushed values and normal constants.
    flushed: HashSet<Value>,
}

impl<'b> Borrow<FunctionBuilder<'b>> for KernelBuilder<'_, 'b> {
    fn borrow(&self) -> &FunctionBuilder<'b> {
        self.b
    }
}

impl<'b> BorrowMut<FunctionBuilder<'b>> for KernelBuilder<'_, 'b> {
    fn borrow_mut(&mut self) -> &mut FunctionBuilder<'b> {
        self.b
    }
}

impl<'a, 'b> KernelBuilder<'a, 'b> {
    /// A builder for a function whose first parameter is the array of
    /// `buffers` base pointers; loads them in the current (entry) block
    /// unless there are more than `HOISTED_BUFFERS`.
    pub fn new(
        b: &'a mut FunctionBuilder<'b>,
        ptr: Type,
        call_conv: CallConv,
        buffers: usize,
    ) -> Self {
        let entry = b.current_block().expect("positioned in the entry block");
        let array = b.block_params(entry)[0];
        let hoisted = if buffers <= HOISTED_BUFFERS {
            buffers
        } else {
            0
        };
        let buffers = (0..hoisted)
            .map(|i| load_pointer(b, ptr, array, i))
            .collect();
        let consts = crate::clif::ConstTable::new(b, ptr);
        KernelBuilder {
            b,
            ptr,
            consts,
            call_conv,
            entry,
            buffers,
            scopes: vec![HashMap::new()],
            staged: HashMap::new(),
            order_slot: None,
            flushed: HashSet::new(),
        }
    }

    /// Parameter `i` of the function (0 is the buffer array).
    pub fn param(&self, i: usize) -> Value {
        self.b.block_params(self.entry)[i]
    }

    /// The base pointer of buffer `i`: the entry block's load, or a load
    /// at the current position in kernels with many buffers.
    pub fn buffer(&mut self, i: usize) -> Value {
        match self.buffers.get(i) {
            Some(&v) => v,
            None => {
                let array = self.param(0);
                load_pointer(self.b, self.ptr, array, i)
            }
        }
    }

    /// A pointer-sized integer constant.
    pub fn iconst(&mut self, v: i64) -> Value {
        self.b.ins().iconst(self.ptr, v)
    }

    /// The integer constant `v` of scalar type `ty`, truncated to its width
    /// (Cranelift wants narrow immediates zero-extended: `-1` as `i8` is
    /// `0xff`).
    pub fn int(&mut self, ty: Type, v: i64) -> Value {
        let bits = ty.bits();
        let v = if bits >= 64 {
            v
        } else {
            v & ((1i64 << bits) - 1)
        };
        self.b.ins().iconst(ty, v)
    }

    /// `for i in (start..end).step_by(step) { body(self, i) }`.
    pub fn for_range(
        &mut self,
        start: Value,
        end: Value,
        step: i64,
        body: impl FnOnce(&mut Self, Value),
    ) {
        self.for_range_holding(start, end, step, 0, body);
    }

    /// [`KernelBuilder::for_range`] whose body holds its first `held`
    /// distinct vector constants in registers (see
    /// [`crate::clif::ConstTable::enter_loop`]).
    fn for_range_holding(
        &mut self,
        start: Value,
        end: Value,
        step: i64,
        held: usize,
        body: impl FnOnce(&mut Self, Value),
    ) {
        self.push_scope();
        crate::clif::for_range(self, start, end, step, |kb, i| {
            let block = kb.b.current_block().expect("in the loop body");
            kb.consts.enter_loop(block, held);
            body(kb, i);
            kb.consts.leave_loop();
        });
        self.pop_scope();
    }

    /// [`KernelBuilder::for_range`] with a body that can fail.
    pub fn try_for_range<E>(
        &mut self,
        start: Value,
        end: Value,
        step: i64,
        body: impl FnOnce(&mut Self, Value) -> Result<(), E>,
    ) -> Result<(), E> {
        self.try_for_range_holding(start, end, step, 0, body)
    }

    /// A loop like [`KernelBuilder::try_for_range`] whose body holds its
    /// first `held` distinct vector constants in registers.
    pub fn try_for_range_holding<E>(
        &mut self,
        start: Value,
        end: Value,
        step: i64,
        held: usize,
        body: impl FnOnce(&mut Self, Value) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut result = Ok(());
        self.for_range_holding(start, end, step, held, |kb, i| result = body(kb, i));
        result
    }

    /// `if cond { then } else { otherwise }`, merging the values both arms
    /// return (of types `tys`). Generator results computed inside an arm
    /// are not visible after it.
    pub fn if_else<E>(
        &mut self,
        cond: Value,
        tys: &[Type],
        then: impl FnOnce(&mut Self) -> Result<Vec<Value>, E>,
        otherwise: impl FnOnce(&mut Self) -> Result<Vec<Value>, E>,
    ) -> Result<Vec<Value>, E> {
        let then_block = self.b.create_block();
        let else_block = self.b.create_block();
        let join = self.b.create_block();
        for &ty in tys {
            self.b.append_block_param(join, ty);
        }
        self.b.ins().brif(cond, then_block, &[], else_block, &[]);
        self.b.switch_to_block(then_block);
        self.b.seal_block(then_block);
        let t = self.arm(then, join)?;
        self.b.switch_to_block(else_block);
        self.b.seal_block(else_block);
        let e = self.arm(otherwise, join)?;
        debug_assert_eq!((t, e), (tys.len(), tys.len()));
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        Ok(self.b.block_params(join).to_vec())
    }

    /// `if cond { arm(true) } else { arm(false) }` for statements: one
    /// closure emits both arms (useful when both need the same mutable
    /// state).
    pub fn branch<E>(
        &mut self,
        cond: Value,
        mut arm: impl FnMut(&mut Self, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let then_block = self.b.create_block();
        let else_block = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(cond, then_block, &[], else_block, &[]);
        for (block, taken) in [(then_block, true), (else_block, false)] {
            self.b.switch_to_block(block);
            self.b.seal_block(block);
            self.push_scope();
            let result = arm(self, taken);
            self.pop_scope();
            result?;
            self.b.ins().jump(join, &[]);
        }
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        Ok(())
    }

    fn arm<E>(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<Vec<Value>, E>,
        join: ir::Block,
    ) -> Result<usize, E> {
        self.push_scope();
        let values = body(self);
        self.pop_scope();
        let values = values?;
        let args: Vec<ir::BlockArg> = values.iter().map(|&v| v.into()).collect();
        self.b.ins().jump(join, &args);
        Ok(values.len())
    }

    /// Opens a generator-cache scope.
    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    /// Closes the innermost generator-cache scope.
    pub fn pop_scope(&mut self) {
        self.scopes.pop();
        debug_assert!(!self.scopes.is_empty(), "unbalanced generator scopes");
    }

    /// A cached generator result.
    pub(crate) fn cached(&self, key: &CacheKey) -> Option<Value> {
        self.scopes.iter().rev().find_map(|s| s.get(key).copied())
    }

    /// Caches a generator result in the innermost scope.
    pub(crate) fn cache(&mut self, key: CacheKey, v: Value) {
        self.scopes.last_mut().expect("a scope").insert(key, v);
    }

    /// Records that `f(x)` has been emitted up to stage `next` (exclusive),
    /// which returned `values`.
    pub(crate) fn put_staged(&mut self, f: UnaryFn, x: Value, next: usize, values: Vec<Value>) {
        self.staged.insert((f, x), (next, values));
    }

    /// The stage to emit next for `f(x)` and the previous stage's values,
    /// if `f(x)` has been emitted in part; forgets them.
    pub(crate) fn take_staged(&mut self, f: UnaryFn, x: Value) -> Option<(usize, Vec<Value>)> {
        self.staged.remove(&(f, x))
    }

    /// Stores `v` (16 bytes at most) to a scratch stack slot that nothing
    /// reads. The optimizer places each pure value at its first use, so the
    /// store makes it compute `v` (and what `v` depends on) here, before
    /// the code emitted next, instead of where later code uses `v`.
    pub fn order_before_next(&mut self, v: Value) {
        let slot = *self.order_slot.get_or_insert_with(|| {
            self.b.create_sized_stack_slot(ir::StackSlotData::new(
                ir::StackSlotKind::ExplicitSlot,
                16,
                4,
            ))
        });
        let ptr = self.ptr;
        self.b.ins().stack_store(ptr, v, slot, 0);
    }

    /// `base + offset` where `offset` is a byte count; constant offsets that
    /// fit go into the memory instruction's immediate instead.
    fn split_offset(&mut self, base: Value, offset: i64) -> (Value, i32) {
        match i32::try_from(offset) {
            Ok(imm) => (base, imm),
            Err(_) => (self.b.ins().iadd_imm_s(base, offset), 0),
        }
    }

    /// Loads `ty` from an input buffer at `base + offset` bytes.
    pub fn load(&mut self, ty: Type, base: Value, offset: i64) -> Value {
        let (p, imm) = self.split_offset(base, offset);
        self.b.ins().load(ty, load_flags(), p, imm)
    }

    /// Loads `ty` from an output buffer (one the kernel also writes).
    pub fn load_mut(&mut self, ty: Type, base: Value, offset: i64) -> Value {
        let (p, imm) = self.split_offset(base, offset);
        self.b.ins().load(ty, store_flags(), p, imm)
    }

    /// Stores `v` at `base + offset` bytes.
    pub fn store(&mut self, v: Value, base: Value, offset: i64) {
        let (p, imm) = self.split_offset(base, offset);
        self.b.ins().store(store_flags(), v, p, imm);
    }

    /// A 128-bit vector constant of type `ty` from its little-endian bytes.
    pub fn vconst(&mut self, ty: Type, bytes: Vec<u8>) -> Value {
        debug_assert_eq!(bytes.len(), 16);
        let handle = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(ty, handle)
    }

    /// Reinterprets `v` as `ty` (same size).
    pub fn bitcast(&mut self, ty: Type, v: Value) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            return v;
        }
        self.b.ins().bitcast(ty, bitcast_flags(), v)
    }

    /// Byte shuffle of the 16 bytes of `a` (indices 0–15) and `b` (16–31),
    /// giving an `i8x16`.
    pub fn shuffle_bytes(&mut self, a: Value, b: Value, mask: [u8; 16]) -> Value {
        let a = self.bitcast(types::I8X16, a);
        let b = self.bitcast(types::I8X16, b);
        let mask = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(mask.to_vec()));
        self.b.ins().shuffle(a, b, mask)
    }

    /// Calls the host function at `address` with the host calling
    /// convention.
    pub fn call_host(
        &mut self,
        address: usize,
        params: &[Type],
        returns: &[Type],
        args: &[Value],
    ) -> Vec<Value> {
        let mut sig = ir::Signature::new(self.call_conv);
        sig.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        sig.returns
            .extend(returns.iter().map(|&t| AbiParam::new(t)));
        let sig = self.b.import_signature(sig);
        let callee = self.b.ins().iconst(self.ptr, address as i64);
        let call = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(call).to_vec()
    }

    /// `v` recomputed nowhere else: stored to a stack slot and loaded
    /// back, so the optimizer, which places pure values at their uses (it
    /// does not hoist them out of loops), computes `v` here, before the
    /// loops that use it.
    pub fn pin(&mut self, v: Value) -> Value {
        let ty = self.ty(v);
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            ty.bytes(),
            ty.bytes().trailing_zeros() as u8,
        ));
        let ptr = self.ptr;
        self.b.ins().stack_store(ptr, v, slot, 0);
        self.b.ins().stack_load(ptr, ty, slot, 0)
    }

    /// The scalar `s` if `v` is `splat(s)`.
    pub fn splat_source(&self, v: Value) -> Option<Value> {
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            ir::InstructionData::Unary {
                opcode: ir::Opcode::Splat,
                arg,
            } => Some(arg),
            _ => None,
        }
    }

    /// The bit pattern of `v` if an `iconst`, `f32const` or `f64const`
    /// defines it.
    pub fn constant_bits(&self, v: Value) -> Option<u64> {
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            ir::InstructionData::UnaryImm { imm, .. } => Some(imm.bits() as u64),
            ir::InstructionData::UnaryIeee32 { imm, .. } => Some(u64::from(imm.bits())),
            ir::InstructionData::UnaryIeee64 { imm, .. } => Some(imm.bits()),
            _ => None,
        }
    }

    /// The bits of one lane of `v` if every lane holds the same constant:
    /// a constant-table vector with equal lanes, or a splat of a constant
    /// (for a scalar, the constant itself).
    pub fn uniform_constant(&self, v: Value) -> Option<u64> {
        let ty = self.ty(v);
        if !ty.is_vector() {
            return self.constant_bits(v);
        }
        if let Some(source) = self.splat_source(v) {
            return self.constant_bits(source);
        }
        let bytes = self.consts.bytes_of(v)?;
        let bits = ty.lane_bits();
        let mask = u128::MAX >> (128 - bits);
        let lane = bytes & mask;
        (1..ty.lane_count())
            .all(|l| (bytes >> (l * bits)) & mask == lane)
            .then_some(lane as u64)
    }

    /// The value of `v` if it is an integer constant.
    pub fn constant(&self, v: Value) -> Option<i64> {
        let inst = self.b.func.dfg.value_def(v).inst()?;
        match self.b.func.dfg.insts[inst] {
            ir::InstructionData::UnaryImm {
                opcode: ir::Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// `end − begin` when it is known at compile time: both are constants,
    /// or `end` was made as `begin` plus a constant.
    pub fn distance(&self, begin: Value, end: Value) -> Option<i64> {
        if let Some(d) = self
            .constant(begin)
            .zip(self.constant(end))
            .map(|(b, e)| e - b)
        {
            return Some(d);
        }
        let inst = self.b.func.dfg.value_def(end).inst()?;
        match self.b.func.dfg.insts[inst] {
            ir::InstructionData::Binary {
                opcode: ir::Opcode::Iadd,
                args: [a, b],
            } if a == begin => self.constant(b),
            _ => None,
        }
    }

    /// Records that `v` holds no subnormal float.
    pub fn mark_flushed(&mut self, v: Value) {
        self.flushed.insert(v);
    }

    /// Whether `v` is known to hold no subnormal float.
    pub fn is_flushed(&self, v: Value) -> bool {
        self.flushed.contains(&v)
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> Type {
        self.b.func.dfg.value_type(v)
    }
}
