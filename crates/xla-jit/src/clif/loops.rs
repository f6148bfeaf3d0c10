//! Structured loops. Op code never wires blocks by hand.

use std::borrow::BorrowMut;

use cranelift_codegen::ir::{condcodes::IntCC, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

/// Emits `for i in (start..end).step_by(step) { body(i) }` over pointer-sized
/// integers. `step` must be positive. The body is emitted once; the header is
/// sealed only after the back edge exists.
///
/// `cx` is a [`FunctionBuilder`] or a context struct that owns one (such as
/// the kernel emitters' `KernelBuilder`); the body receives it back, so
/// loop bodies can use the context's helpers. Values that change across
/// iterations live in Cranelift `Variable`s: the header is sealed after the
/// back edge, so their block parameters are complete.
pub fn for_range<'f, C: BorrowMut<FunctionBuilder<'f>>>(
    cx: &mut C,
    start: Value,
    end: Value,
    step: i64,
    body: impl FnOnce(&mut C, Value),
) {
    debug_assert!(step > 0, "for_range needs a positive step");
    let b: &mut FunctionBuilder<'f> = cx.borrow_mut();
    let ty = b.func.dfg.value_type(start);
    let header = b.create_block();
    let body_block = b.create_block();
    let exit = b.create_block();
    b.append_block_param(header, ty);
    b.ins().jump(header, &[start.into()]);

    b.switch_to_block(header);
    let i = b.block_params(header)[0];
    let done = b.ins().icmp(IntCC::SignedGreaterThanOrEqual, i, end);
    b.ins().brif(done, exit, &[], body_block, &[]);

    b.switch_to_block(body_block);
    b.seal_block(body_block);
    body(cx, i);
    let b: &mut FunctionBuilder<'f> = cx.borrow_mut();
    let next = b.ins().iadd_imm_s(i, step);
    b.ins().jump(header, &[next.into()]);
    b.seal_block(header);

    b.switch_to_block(exit);
    b.seal_block(exit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::{CodegenOptions, Jit};
    use cranelift_codegen::ir::types;

    #[test]
    fn sums_a_range() {
        let mut jit = Jit::new(CodegenOptions {
            verify: true,
            keep_clif: true,
            ..CodegenOptions::default()
        })
        .unwrap();
        let sig = jit.signature(&[types::I64, types::I64], &[types::I64]);
        let id = jit
            .compile("sum", sig, |b| {
                let entry = b.current_block().unwrap();
                let (lo, hi) = (b.block_params(entry)[0], b.block_params(entry)[1]);
                let slot = b.create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                    cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                    8,
                    3,
                ));
                let zero = b.ins().iconst(types::I64, 0);
                b.ins().stack_store(types::I64, zero, slot, 0);
                for_range(b, lo, hi, 2, |b, i| {
                    let acc = b.ins().stack_load(types::I64, types::I64, slot, 0);
                    let acc = b.ins().iadd(acc, i);
                    b.ins().stack_store(types::I64, acc, slot, 0);
                });
                let acc = b.ins().stack_load(types::I64, types::I64, slot, 0);
                b.ins().return_(&[acc]);
            })
            .unwrap();
        jit.finalize().unwrap();
        // SAFETY: the function was compiled with this signature.
        let f: extern "C" fn(i64, i64) -> i64 =
            unsafe { std::mem::transmute(jit.function_ptr(id)) };
        assert_eq!(f(0, 10), 2 + 4 + 6 + 8);
        assert_eq!(f(5, 5), 0);
        assert!(jit.clif()[0].1.contains("function"));
    }
}
