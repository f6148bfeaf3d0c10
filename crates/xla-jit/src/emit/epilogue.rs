//! Dot epilogues: the elementwise consumers of a dot's result, applied by
//! the dot engine to each finished block of the output while it is in
//! cache.
//!
//! The kernel (an [`EpilogueFn`](super::EpilogueFn)) receives the fusion's
//! buffers and one [`EpilogueBlock`](super::EpilogueBlock). It walks the
//! block's rows; for each element it loads the dot's value from the block,
//! evaluates the epilogue's root there (bias broadcasts and other inputs
//! read at the element's output index) and stores the result back in
//! place. The block's `(batch, row, column)` coordinates map to the dot's
//! output index by splitting `batch` over the batch dimensions, the row
//! over the lhs's free dimensions and the column over the rhs's. Blocks
//! whose columns are contiguous run in vectors; others element by element.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use xla_core::hlo::HloInstruction;
use xla_core::Opcode;

use super::access::{load_scalar, load_vector, store_scalar, store_vector, Access};
use super::data_movement::reshape_index;
use super::elemental::Bound;
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner, unroll_for};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fusion_lanes};
use super::{cost, Emit, KernelInfo, KernelPlan, Unsupported};

/// The dot output's dimension groups: batch, lhs free, rhs free (sizes).
pub(super) struct Groups {
    pub batch: Vec<i64>,
    pub rows: Vec<i64>,
    pub cols: Vec<i64>,
}

/// Splits the dot's output dimensions `[batch…, lhs free…, rhs free…]`.
pub(super) fn groups(info: &KernelInfo, dot: &HloInstruction) -> Result<Groups, Unsupported> {
    let dims = dot
        .shape
        .as_array()
        .ok_or_else(|| Unsupported::new(Opcode::Dot, "tuple result"))?
        .dims()
        .to_vec();
    let dd = dot
        .attrs
        .dot_dims
        .clone()
        .ok_or_else(|| Unsupported::new(Opcode::Dot, "no dot dimension numbers"))?;
    let lhs_rank = info
        .comp
        .instr(dot.operands[0])
        .shape
        .as_array()
        .map_or(0, |a| a.rank());
    let nb = dd.lhs_batch.len();
    let lhs_free = lhs_rank - nb - dd.lhs_contracting.len();
    Ok(Groups {
        batch: dims[..nb].to_vec(),
        rows: dims[nb..nb + lhs_free].to_vec(),
        cols: dims[nb + lhs_free..].to_vec(),
    })
}

/// The epilogue kernel of a dot fusion, if the fusion has an epilogue.
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let fusion = info.fusion;
    let dot_ops = fusion
        .dot
        .as_ref()
        .ok_or_else(|| Unsupported::new(Opcode::Dot, "a dot fusion without its dot"))?;
    // The members other than the dot then are all read by it (a transpose
    // or a convolution's patches, read as the dot's operand views).
    if fusion.root == dot_ops.dot {
        return Ok(Vec::new());
    }
    let dot = info.comp.instr(dot_ops.dot);
    let g = groups(info, dot)?;
    // Columns spread over several dimensions are split per element.
    let lanes = if g.cols.len() == 1 {
        fusion_lanes(info)
    } else {
        1
    };
    let per_element = cost::per_element(info, lanes);
    let root = fusion.root;
    // As loop kernels: an expensive body is not unrolled.
    let max_unroll = cost::max_unroll(info, root);
    let dot_id = dot_ops.dot;
    Ok(vec![KernelPlan {
        part: "epilogue",
        iterations: 1,
        cost_per_iteration: per_element,
        scratch_bytes: 0,
        epilogue: true,
        emit: Emit::Clif(Box::new(move |kb, info| {
            let mut el = elemental(info);
            let ty = el.ty(dot_id);
            let block = kb.param(1);
            let field = |kb: &mut KernelBuilder, k: i64| kb.load(types::I64, block, 8 * k);
            let c = field(kb, 0);
            let (row_stride, col_stride) = (field(kb, 1), field(kb, 2));
            let (rows, cols) = (field(kb, 3), field(kb, 4));
            let (batch, row0, col0) = (field(kb, 5), field(kb, 6), field(kb, 7));
            let size = ty.byte_size() as i64;
            let batch_idx = split(kb, batch, &g.batch);
            let total_cols: i64 = g.cols.iter().product();
            let lanes = if total_cols >= lanes as i64 { lanes } else { 1 };
            let unroll = unroll_for(total_cols, lanes).min(max_unroll);
            let zero = kb.iconst(0);
            kb.try_for_range(zero, rows, 1, |kb, i| {
                let m = kb.b.ins().iadd(row0, i);
                let row_idx = split(kb, m, &g.rows);
                let row_off = kb.b.ins().imul(i, row_stride);
                let row_off = kb.b.ins().imul_imm_s(row_off, size);
                let row_ptr = kb.b.ins().iadd(c, row_off);
                let contiguous = kb.b.ins().icmp_imm_s(IntCC::Equal, col_stride, 1);
                let mut walk = |kb: &mut KernelBuilder, lanes: u32| -> Result<(), Unsupported> {
                    emit_inner(kb, zero, cols, lanes, unroll, |kb, j, l| {
                        let n = IndexDim {
                            var: Some(col0),
                            ..j
                        };
                        let n = match j.var {
                            Some(v) => IndexDim {
                                var: Some(kb.b.ins().iadd(col0, v)),
                                aligned: false,
                                ..n
                            },
                            None => n,
                        };
                        let col_idx = split_index(kb, n, &g.cols, l);
                        let idx = Index::new(
                            l,
                            batch_idx
                                .iter()
                                .chain(&row_idx)
                                .chain(&col_idx)
                                .copied()
                                .collect(),
                        );
                        let (addr, offset) = element_address(kb, row_ptr, &j, col_stride, size);
                        let v = if l == 1 {
                            load_scalar(kb, ty, addr, offset, Access::Output)
                        } else {
                            load_vector(kb, ty, l, addr, offset, Access::Output)
                        };
                        el.bind(dot_id, Bound::Here(v));
                        let r = el.gen(kb, root, &idx)?;
                        if l == 1 {
                            store_scalar(kb, ty, r, addr, offset);
                        } else {
                            store_vector(kb, ty, l, r, addr, offset);
                        }
                        Ok(())
                    })
                };
                if lanes > 1 {
                    kb.branch(contiguous, |kb, vector| {
                        walk(kb, if vector { lanes } else { 1 })
                    })
                } else {
                    walk(kb, 1)
                }
            })
        })),
    }])
}

/// The address (and constant byte offset) of column `j` of a block row:
/// contiguous columns when `j` walks lanes, strided otherwise.
fn element_address(
    kb: &mut KernelBuilder,
    row_ptr: Value,
    j: &IndexDim,
    col_stride: Value,
    size: i64,
) -> (Value, i64) {
    match j.var {
        None => (row_ptr, j.offset * size),
        Some(v) if j.lane_stride == 1 => {
            // Vector path: the caller checked col_stride == 1.
            let bytes = kb.b.ins().imul_imm_s(v, size);
            (kb.b.ins().iadd(row_ptr, bytes), j.offset * size)
        }
        Some(v) => {
            let at = kb.b.ins().iadd_imm_s(v, j.offset);
            let elems = kb.b.ins().imul(at, col_stride);
            let bytes = kb.b.ins().imul_imm_s(elems, size);
            (kb.b.ins().iadd(row_ptr, bytes), 0)
        }
    }
}

/// Splits a uniform flat index over `sizes` (row-major).
fn split(kb: &mut KernelBuilder, flat: Value, sizes: &[i64]) -> Vec<IndexDim> {
    split_index(kb, IndexDim::uniform(flat), sizes, 1)
}

/// Splits a flat index over `sizes` (row-major): unchanged for one
/// dimension; for several, only scalar indices are split (the caller runs
/// such blocks element by element).
fn split_index(kb: &mut KernelBuilder, flat: IndexDim, sizes: &[i64], lanes: u32) -> Vec<IndexDim> {
    match sizes.len() {
        0 => Vec::new(),
        1 => vec![flat],
        _ => {
            debug_assert_eq!(lanes, 1);
            let total: i64 = sizes.iter().product();
            reshape_index(kb, &[total], sizes, &Index::new(1, vec![flat]))
                .expect("a scalar index always maps")
                .dims
        }
    }
}
