//! `sort` and `topk` kernels (`docs/semantics.md`, *Sort and top-k*): every 1-D slice
//! along the sort dimension (a *row*; the other dimensions index the rows)
//! is sorted independently, so the kernel's iterations are rows and the
//! runtime may split them across threads.
//!
//! A row is sorted by permuting an array of positions `0..n` with the
//! interpreter's bottom-up stable merge sort (widths 1, 2, 4, …; an element
//! of the right run is taken only if `less(right, left)` holds), so every
//! comparator — even one that is not a strict weak order — gives exactly
//! the interpreter's permutation; `is_stable=false` sorts stably too. Then
//! every operand is gathered through the permutation into its output.
//! `less` is the compiled comparator for `sort` (parameters `2k`, `2k+1`
//! are operand `k` at the two positions) and the float total order for
//! `topk` (`>` for `largest`, else `<`), which keeps the first `k`
//! positions and writes them as the `s32` indices.
//!
//! Example: keys `[3, 1, 2, 1]` with `lt`: width 1 merges `[3 | 1]` →
//! positions `[1, 0]` and `[2 | 1]` → `[3, 2]`; width 2 merges
//! `[1, 0 | 3, 2]` → `[1, 3, 2, 0]` (the equal keys at 1 and 3 keep their
//! order), so the sorted keys are `[1, 1, 2, 3]`.
//!
//! Positions live in the scratch buffer: two `i32` arrays of `n` per row
//! (`8·n` bytes at `8·n·row`), the merge passes alternating between them.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use xla_core::hlo::{ComparisonDirection, ComparisonType, HloInstruction};
use xla_core::{Opcode, PrimitiveType};

use super::access::write;
use super::elemental::{emit_computation, Elemental};
use super::elementwise::{compare, total_order_key};
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::loop_kernel::elemental;
use super::repr::scalar_pred;
use super::{cost, host, Emit, KernelInfo, KernelPlan, Unsupported};

/// The rows of a sort or top-k: the operands' dimension sizes and the
/// dimension sorted along.
#[derive(Clone, Debug)]
struct Rows {
    dims: Vec<i64>,
    d: usize,
}

impl Rows {
    fn of(instr: &HloInstruction, operand: &[i64]) -> Result<Rows, Unsupported> {
        let op = instr.opcode;
        let rank = operand.len();
        let d = match op {
            Opcode::TopK => rank.checked_sub(1),
            _ => match instr.attrs.dimensions.as_deref() {
                Some([d]) => xla_core::shape::normalize_dim(*d, rank),
                _ => None,
            },
        }
        .ok_or_else(|| {
            Unsupported::new(
                op,
                format!(
                    "`{}` has no dimension of its rank-{rank} operand to sort",
                    instr.name
                ),
            )
        })?;
        if operand[d] > i64::from(i32::MAX) {
            return Err(Unsupported::new(
                op,
                format!(
                    "`{}` sorts {} elements, more than 2^31",
                    instr.name, operand[d]
                ),
            ));
        }
        Ok(Rows {
            dims: operand.to_vec(),
            d,
        })
    }

    /// Elements in a row.
    fn n(&self) -> i64 {
        self.dims[self.d]
    }

    /// The number of rows.
    fn count(&self) -> i64 {
        self.dims
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != self.d)
            .map(|(_, &s)| s)
            .product()
    }

    /// The index of every dimension but `d` for row `r` (rows are
    /// row-major over those dimensions: for dims `[2, 5, 3]` sorted along
    /// 1, row 4 is `(1, ·, 1)`).
    fn outer(&self, kb: &mut KernelBuilder, r: Value) -> Vec<Option<Value>> {
        let mut stride = 1;
        let mut index = vec![None; self.dims.len()];
        for k in (0..self.dims.len()).rev().filter(|&k| k != self.d) {
            let q = kb.b.ins().udiv_imm_u(r, stride);
            index[k] = Some(kb.b.ins().urem_imm_u(q, self.dims[k]));
            stride *= self.dims[k];
        }
        index
    }
}

/// The index of position `pos` (an `i64`) of the row at `outer`.
fn at(outer: &[Option<Value>], pos: Value) -> Index {
    let dims = outer
        .iter()
        .map(|v| IndexDim::uniform(v.unwrap_or(pos)))
        .collect();
    Index::new(1, dims)
}

/// What the kernels handle: one sort dimension of at most 2^31 elements;
/// top-k of non-complex values with `0 ≤ k ≤ n`.
pub(super) fn check(instr: &HloInstruction, operand: &[i64]) -> Result<(), Unsupported> {
    let rows = Rows::of(instr, operand)?;
    if instr.opcode == Opcode::TopK {
        let k = instr.attrs.k.unwrap_or(-1);
        if !(0..=rows.n()).contains(&k) {
            return Err(Unsupported::new(
                Opcode::TopK,
                format!("`{}` has k={k} outside 0..={}", instr.name, rows.n()),
            ));
        }
        if instr.shape.element_type().is_some_and(|t| t.is_complex()) {
            return Err(Unsupported::new(Opcode::TopK, "complex values"));
        }
    } else if instr.called.is_empty() {
        return Err(Unsupported::new(
            Opcode::Sort,
            format!("`{}` has no comparator", instr.name),
        ));
    }
    Ok(())
}

/// The kernel of a fusion whose root is a `sort` or a `topk`: one
/// iteration per row.
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let operand = info.comp.instr(root.operands[0]);
    let dims = operand
        .shape
        .as_array()
        .map(|a| a.dims().to_vec())
        .ok_or_else(|| {
            Unsupported::new(root.opcode, format!("`{}` is not an array", operand.name))
        })?;
    let rows = Rows::of(root, &dims)?;
    let n = rows.n();
    let count = rows.count();
    let passes = (64 - (n.max(1) - 1).leading_zeros()) as f64;
    let topk = root.opcode == Opcode::TopK;
    // Top-k: `n` u64 keys, then `n` i32 positions in room for `2n` (so
    // that every row's keys stay 8-byte aligned); sort: two position
    // arrays.
    let row_bytes = if topk { 16 * n } else { 8 * n };
    Ok(vec![KernelPlan {
        part: if topk { "topk" } else { "sort" },
        iterations: count,
        cost_per_iteration: n as f64 * (passes + 1.0) * cost::per_element(info, 1),
        scratch_bytes: (row_bytes * count) as usize,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            if n == 0 || count == 0 {
                return Ok(());
            }
            let el = elemental(info);
            let scratch = kb.buffer(info.buffers.len());
            let (start, end) = (kb.param(1), kb.param(2));
            kb.try_for_range(start, end, 1, |kb, r| {
                let outer = rows.outer(kb, r);
                let offset = kb.b.ins().imul_imm_s(r, row_bytes);
                let row_scratch = kb.b.ins().iadd(scratch, offset);
                let row = if topk { topk_row } else { sort_row };
                row(kb, info, &el, n, &outer, row_scratch)
            })
        })),
    }])
}

/// Sorts the row of `n` elements at `outer` (its scratch at `scratch`: two
/// position arrays) and writes its outputs.
fn sort_row(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    n: i64,
    outer: &[Option<Value>],
    scratch: Value,
) -> Result<(), Unsupported> {
    let mut src = scratch;
    let mut dst = kb.b.ins().iadd_imm_s(src, 4 * n);
    let zero = kb.iconst(0);
    let end = kb.iconst(n);
    kb.for_range(zero, end, 1, |kb, i| {
        let p = kb.b.ins().ireduce(types::I32, i);
        let addr = kb.b.ins().imul_imm_s(i, 4);
        let addr = kb.b.ins().iadd(src, addr);
        kb.store(p, addr, 0);
    });
    let mut width = 1;
    while width < n {
        merge_pass(kb, info, el, outer, src, dst, width, n)?;
        std::mem::swap(&mut src, &mut dst);
        width *= 2;
    }
    write_outputs(kb, info, el, outer, src, n)
}

/// Top-k of the row of `n` elements at `outer` (its scratch at `scratch`:
/// `n` keys, then positions): each value's order key (a `u64` whose
/// unsigned order is the float total order, or the integer order; inverted
/// for the smallest) goes to the scratch, [`host::topk_row`] selects and
/// sorts the `k` best positions, and the outputs are gathered through them.
fn topk_row(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    n: i64,
    outer: &[Option<Value>],
    scratch: Value,
) -> Result<(), Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let (x, k) = (root.operands[0], root.attrs.k.unwrap_or(0));
    let largest = root.attrs.largest.unwrap_or(true);
    let ty = el.ty(x);
    let keys = scratch;
    let positions = kb.b.ins().iadd_imm_s(keys, 8 * n);
    let zero = kb.iconst(0);
    let end = kb.iconst(n);
    kb.try_for_range(zero, end, 1, |kb, i| {
        let v = el.gen(kb, x, &at(outer, i))?;
        let key = order_key(kb, ty, v);
        let key = if largest { key } else { kb.b.ins().bnot(key) };
        let addr = kb.b.ins().imul_imm_s(i, 8);
        let addr = kb.b.ins().iadd(keys, addr);
        kb.store(key, addr, 0);
        Ok(())
    })?;
    let (n_arg, k_arg) = (kb.iconst(n), kb.iconst(k));
    let f = host::topk_row as extern "C" fn(*const u64, i64, i64, *mut i32) as usize;
    let ptr = kb.ptr;
    kb.call_host(
        f,
        &[ptr, types::I64, types::I64, ptr],
        &[],
        &[keys, n_arg, k_arg, positions],
    );
    write_outputs(kb, info, el, outer, positions, n)
}

/// A `u64` whose unsigned order is the order `topk` ranks `v` (of element
/// type `ty`, in its register form) by: the float total order's signed
/// key ([`total_order_key`]) or the integer's own order, made unsigned by
/// flipping the sign bit of signed keys.
fn order_key(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value) -> Value {
    let (key, signed) = if ty.is_floating() {
        (total_order_key(kb, v), true)
    } else {
        (v, ty.is_signed_integral())
    };
    let kty = kb.ty(key);
    let bits = kty.bits();
    let key = if signed {
        let sign = kb.int(kty, i64::MIN >> (64 - bits));
        kb.b.ins().bxor(key, sign)
    } else {
        key
    };
    if bits == 64 {
        key
    } else {
        kb.b.ins().uextend(types::I64, key)
    }
}

/// Position `i` (an `i64`) of the positions array at `base`, as an `i64`.
fn position(kb: &mut KernelBuilder, base: Value, i: Value) -> Value {
    let addr = kb.b.ins().imul_imm_s(i, 4);
    let addr = kb.b.ins().iadd(base, addr);
    let p = kb.load_mut(types::I32, addr, 0);
    kb.b.ins().uextend(types::I64, p)
}

/// Stores position `p` (an `i64`) at `i` of the positions array at `base`.
fn set_position(kb: &mut KernelBuilder, base: Value, i: Value, p: Value) {
    let addr = kb.b.ins().imul_imm_s(i, 4);
    let addr = kb.b.ins().iadd(base, addr);
    let p = kb.b.ins().ireduce(types::I32, p);
    kb.store(p, addr, 0);
}

/// Whether the element at position `a` goes before the one at `b`
/// (an `i8` 0/1).
fn less(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    outer: &[Option<Value>],
    a: Value,
    b: Value,
) -> Result<Value, Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let (ia, ib) = (at(outer, a), at(outer, b));
    if root.opcode == Opcode::TopK {
        let x = root.operands[0];
        let ty = el.ty(x);
        let (va, vb) = (el.gen(kb, x, &ia)?, el.gen(kb, x, &ib)?);
        let direction = if root.attrs.largest.unwrap_or(true) {
            ComparisonDirection::Gt
        } else {
            ComparisonDirection::Lt
        };
        let c = compare(kb, direction, Some(ComparisonType::TotalOrder), ty, va, vb);
        return Ok(scalar_pred(kb, c));
    }
    let mut args = Vec::with_capacity(2 * root.operands.len());
    for &x in &root.operands {
        let ty = el.ty(x);
        args.push((el.gen(kb, x, &ia)?, ty));
        args.push((el.gen(kb, x, &ib)?, ty));
    }
    let c = emit_computation(kb, info.module, root.called[0], &args, 1)?;
    Ok(scalar_pred(kb, c[0]))
}

/// One bottom-up merge pass: the sorted runs of `width` positions in `src`
/// are merged pairwise into `dst`.
#[allow(clippy::too_many_arguments)]
fn merge_pass(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    outer: &[Option<Value>],
    src: Value,
    dst: Value,
    width: i64,
    n: i64,
) -> Result<(), Unsupported> {
    let zero = kb.iconst(0);
    let total = kb.iconst(n);
    kb.try_for_range(zero, total, 2 * width, |kb, start| {
        let mid = kb.b.ins().iadd_imm_s(start, width);
        let mid = kb.b.ins().smin(mid, total);
        let end = kb.b.ins().iadd_imm_s(start, 2 * width);
        let end = kb.b.ins().smin(end, total);
        let vars = [start, mid, start].map(|v| {
            let var = kb.b.declare_var(types::I64);
            kb.b.def_var(var, v);
            var
        });
        let [vi, vj, vk] = vars;
        let header = kb.b.create_block();
        let body = kb.b.create_block();
        let exit = kb.b.create_block();
        kb.b.ins().jump(header, &[]);
        kb.b.switch_to_block(header);
        let (i, j) = (kb.b.use_var(vi), kb.b.use_var(vj));
        let left = kb.b.ins().icmp(IntCC::SignedLessThan, i, mid);
        let right = kb.b.ins().icmp(IntCC::SignedLessThan, j, end);
        let both = kb.b.ins().band(left, right);
        kb.b.ins().brif(both, body, &[], exit, &[]);
        kb.b.switch_to_block(body);
        kb.b.seal_block(body);
        kb.push_scope();
        let (pi, pj) = (position(kb, src, i), position(kb, src, j));
        let take = less(kb, info, el, outer, pj, pi);
        kb.pop_scope();
        let take = take?;
        let k = kb.b.use_var(vk);
        let p = kb.b.ins().select(take, pj, pi);
        set_position(kb, dst, k, p);
        let step = kb.b.ins().uextend(types::I64, take);
        let j = kb.b.ins().iadd(j, step);
        let i = kb.b.ins().iadd_imm_s(i, 1);
        let i = kb.b.ins().isub(i, step);
        let k = kb.b.ins().iadd_imm_s(k, 1);
        kb.b.def_var(vi, i);
        kb.b.def_var(vj, j);
        kb.b.def_var(vk, k);
        kb.b.ins().jump(header, &[]);
        kb.b.seal_block(header);
        kb.b.switch_to_block(exit);
        kb.b.seal_block(exit);
        // One run is exhausted: copy the rest of the other.
        let (i, j, k) = (kb.b.use_var(vi), kb.b.use_var(vj), kb.b.use_var(vk));
        let k_j = kb.b.ins().iadd(k, mid);
        let k_j = kb.b.ins().isub(k_j, i);
        for (from, to, k) in [(i, mid, k), (j, end, k_j)] {
            let shift = kb.b.ins().isub(k, from);
            kb.for_range(from, to, 1, |kb, t| {
                let p = position(kb, src, t);
                let target = kb.b.ins().iadd(t, shift);
                set_position(kb, dst, target, p);
            });
        }
        Ok(())
    })
}

/// Gathers every operand through the sorted positions at `order` into its
/// output (top-k: the first `k` of the `n` values and their positions as
/// `s32`).
fn write_outputs(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    outer: &[Option<Value>],
    order: Value,
    n: i64,
) -> Result<(), Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let out = info.fusion.inputs.len();
    let zero = kb.iconst(0);
    let topk = root.opcode == Opcode::TopK;
    let len = if topk { root.attrs.k.unwrap_or(0) } else { n };
    let end = kb.iconst(len);
    kb.try_for_range(zero, end, 1, |kb, i| {
        let p = position(kb, order, i);
        let from = at(outer, p);
        let to = at(outer, i);
        for (k, &x) in root.operands.iter().enumerate() {
            let v = el.gen(kb, x, &from)?;
            let base = kb.buffer(out + k);
            write(kb, &info.buffers[out + k], base, &to, v);
        }
        if topk {
            let v = kb.b.ins().ireduce(types::I32, p);
            let base = kb.buffer(out + 1);
            write(kb, &info.buffers[out + 1], base, &to, v);
        }
        Ok(())
    })
}
