//! Column reductions: the operand's minor-most dimension is kept (and is
//! the output's minor-most), e.g. summing the columns of
//! `f32[4096,4096]{1,0}`.
//!
//! The accumulators are a chunk of output positions held in memory (up to
//! [`COLUMN_BYTES`], so they stay in L1): set from the init value (or the
//! first reduced row), then every reduced row is combined into them with
//! vector loads and stores, so the operand is read row by row, in memory
//! order. Reading whole rows matters: chunks narrower than a row would read
//! each row in pieces a page apart, which defeats the prefetchers (4x
//! slower measured at 4096 columns).
//!
//! When the output has too few chunks to keep the threads busy, the
//! reduced rows are split into `groups`: a first kernel reduces each
//! (chunk, group) into its own output-shaped partial in the scratch buffer,
//! a second folds the partials, in order, into the init value. The result
//! does not depend on how the runtime splits either kernel.

use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::hlo::{HloInstruction, InstrId};

use super::access::{read_from, write, Access, BufferSpec};
use super::combine::{operand_index, operand_rank, reduced_dims, Combiner};
use super::elemental::Elemental;
use super::elementwise;
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner, unroll_for, IterSpace};
use super::kernel::KernelBuilder;
use super::loop_kernel::elemental;
use super::repr::fit;
use super::{Emit, KernelInfo, KernelPlan, Unsupported};

/// Bytes of accumulators per chunk: 16 KiB (4096 f32) stay in the 48 KiB
/// L1 with room for the streamed rows.
pub const COLUMN_BYTES: i64 = 16 * 1024;

/// Below this many chunks the reduced rows are split into groups.
const PARALLEL_UNITS: i64 = 16;

/// Fewest reduced rows per group.
const MIN_GROUP_ROWS: i64 = 64;

/// What a column kernel needs to know about its reduce.
#[derive(Clone)]
struct Column {
    root: InstrId,
    /// The output dimension that is the operand's minor-most.
    out_dim: usize,
    lanes: u32,
    space: IterSpace,
    /// Reduced rows (product of the reduced sizes).
    rows: i64,
    /// Groups of reduced rows (1: no partials).
    groups: i64,
    /// Bytes of each output buffer.
    out_bytes: Vec<i64>,
}

/// The kernels of a column reduction of the root `root`.
pub(super) fn plan(
    info: &KernelInfo,
    root: InstrId,
    out_dim: usize,
    lanes: u32,
    per_element: f64,
) -> Result<Vec<KernelPlan>, Unsupported> {
    let reduce = info.comp.instr(root);
    let outs = reduce.shape.array_leaves();
    let out = outs[0];
    let widest = outs
        .iter()
        .map(|a| a.element_type().byte_size() as i64)
        .max()
        .unwrap_or(4);
    let chunk = ((COLUMN_BYTES / widest) / 64 * 64)
        .min(info.iteration_elements / 64 * 64)
        .max(64);
    let space = IterSpace::with_chunk(out.dims(), &out.layout_or_default(), chunk);
    let units = space.iterations();
    let operand = info.comp.instr(reduce.operands[0]);
    let rows =
        operand.shape.as_array().map_or(0, |a| a.element_count()) / out.element_count().max(1);
    let groups = if units >= PARALLEL_UNITS || rows < 2 * MIN_GROUP_ROWS {
        1
    } else {
        ((PARALLEL_UNITS + units - 1) / units).min(rows / MIN_GROUP_ROWS)
    };
    let out_bytes = outs
        .iter()
        .map(|a| {
            a.byte_size()
                .map_err(|e| Unsupported::layout(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let col = Column {
        root,
        out_dim,
        lanes,
        space,
        rows,
        groups,
        out_bytes,
    };
    let per_unit = (col.space.elements_per_iteration() * rows) as f64 * per_element;
    if groups == 1 {
        return Ok(vec![KernelPlan {
            part: "column_reduce",
            iterations: units,
            cost_per_iteration: per_unit,
            scratch_bytes: 0,
            epilogue: false,
            emit: Emit::Clif(Box::new(move |kb, info| direct(kb, info, &col))),
        }]);
    }
    let scratch_bytes = (groups * col.out_bytes.iter().sum::<i64>()) as usize;
    let combine = col.clone();
    Ok(vec![
        KernelPlan {
            part: "column_partials",
            iterations: units * groups,
            cost_per_iteration: per_unit / groups as f64,
            scratch_bytes,
            epilogue: false,
            emit: Emit::Clif(Box::new(move |kb, info| partials(kb, info, &col))),
        },
        KernelPlan {
            part: "column_combine",
            iterations: units,
            cost_per_iteration: (col_elements(&combine) * groups) as f64 * 0.5,
            scratch_bytes,
            epilogue: false,
            emit: Emit::Clif(Box::new(move |kb, info| fold_partials(kb, info, &combine))),
        },
    ])
}

fn col_elements(col: &Column) -> i64 {
    col.space.elements_per_iteration()
}

/// The pieces every column kernel uses.
struct Parts<'a, 'm> {
    el: Elemental<'m>,
    comb: Combiner<'m>,
    reduce: &'a HloInstruction,
    rank: usize,
    reduced: Vec<(usize, i64)>,
    n: usize,
    unroll: u32,
    lanes: u32,
}

fn parts<'a, 'm>(info: &'a KernelInfo<'m>, col: &Column) -> Result<Parts<'a, 'm>, Unsupported> {
    let el = elemental(info);
    let reduce = info.comp.instr(col.root);
    let comb = Combiner::new(info.module, info.comp, reduce)?;
    let rank = operand_rank(info.comp, reduce);
    let reduced = reduced_dims(info.comp, reduce);
    let cols = col.space.inner.map_or(1, |(_, c)| c);
    let lanes = if cols >= col.lanes as i64 {
        col.lanes
    } else {
        1
    };
    let unroll = unroll_for(col.space.elements_per_iteration().min(cols), lanes);
    Ok(Parts {
        el,
        comb,
        reduce,
        rank,
        reduced,
        n: reduce.operands.len() / 2,
        unroll,
        lanes,
    })
}

impl Parts<'_, '_> {
    /// The reduced values at output position `out` and reduced row `red`.
    fn operands_at(
        &self,
        kb: &mut KernelBuilder,
        out: &Index,
        red: &[IndexDim],
    ) -> Result<Vec<Value>, Unsupported> {
        let mut idx = operand_index(self.reduce, self.rank, out);
        for &(d, _) in &self.reduced {
            idx.dims[d] = red[d];
        }
        (0..self.n)
            .map(|k| self.el.gen(kb, self.reduce.operands[k], &idx))
            .collect()
    }

    /// The reduced index of flattened reduced row `r` (reduced dimensions
    /// in physical order, others 0).
    fn reduced_row(&self, kb: &mut KernelBuilder, r: Value) -> Vec<IndexDim> {
        let mut idx = vec![IndexDim::constant(0); self.rank];
        let mut rest = r;
        for (k, &(d, size)) in self.reduced.iter().enumerate().rev() {
            if k == 0 {
                idx[d] = IndexDim::uniform(rest);
            } else {
                let i = kb.b.ins().urem_imm_u(rest, size);
                idx[d] = IndexDim::uniform(i);
                rest = kb.b.ins().udiv_imm_u(rest, size);
            }
        }
        idx
    }
}

fn at(row: &[IndexDim], out_dim: usize, inner: IndexDim, lanes: u32) -> Index {
    let mut idx = row.to_vec();
    idx[out_dim] = inner;
    Index::new(lanes, idx)
}

/// One kernel: the output chunk is the accumulator.
fn direct(kb: &mut KernelBuilder, info: &KernelInfo, col: &Column) -> Result<(), Unsupported> {
    let p = parts(info, col)?;
    let outs = info.fusion.inputs.len();
    let (start, end) = (kb.param(1), kb.param(2));
    col.space.emit(kb, start, end, |kb, row, c0, c1| {
        emit_inner(kb, c0, c1, p.lanes, p.unroll, |kb, inner, l| {
            for k in 0..p.n {
                let init =
                    p.el.gen(kb, p.reduce.operands[p.n + k], &Index::scalar(l))?;
                let init = elementwise::splat_pred(kb, init, l);
                let out = at(row, col.out_dim, inner, l);
                let base = kb.buffer(outs + k);
                write(kb, &info.buffers[outs + k], base, &out, init);
            }
            Ok(())
        })?;
        let (zero, rows) = (kb.iconst(0), kb.iconst(col.rows));
        kb.try_for_range(zero, rows, 1, |kb, r| {
            let red = p.reduced_row(kb, r);
            emit_inner(kb, c0, c1, p.lanes, p.unroll, |kb, inner, l| {
                let out = at(row, col.out_dim, inner, l);
                let bufs: Vec<(BufferSpec, Value)> = (0..p.n)
                    .map(|k| (info.buffers[outs + k].clone(), kb.buffer(outs + k)))
                    .collect();
                accumulate(kb, &p, &bufs, &out, &red)
            })
        })
    })
}

/// `buffers[k][out] = combine(buffers[k][out], operand_k[out, red])`.
fn accumulate(
    kb: &mut KernelBuilder,
    p: &Parts,
    buffers: &[(BufferSpec, Value)],
    out: &Index,
    red: &[IndexDim],
) -> Result<(), Unsupported> {
    let accs: Vec<Value> = buffers
        .iter()
        .map(|(spec, base)| read_from(kb, spec, *base, out, Access::Output))
        .collect();
    let xs = p.operands_at(kb, out, red)?;
    let r = p.comb.combine(kb, &accs, &xs, out.lanes)?;
    for ((spec, base), v) in buffers.iter().zip(r) {
        write(kb, spec, *base, out, v);
    }
    Ok(())
}

/// The partial buffers of group `g` (output-shaped, in the scratch
/// buffer: all groups of output 0, then of output 1, …).
fn partial_buffers(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    col: &Column,
    g: Value,
) -> Vec<(BufferSpec, Value)> {
    let outs = info.fusion.inputs.len();
    let scratch = kb.buffer(info.buffers.len());
    let mut region = 0;
    (0..col.out_bytes.len())
        .map(|k| {
            let bytes = col.out_bytes[k];
            let within = kb.b.ins().imul_imm_s(g, bytes);
            let base = kb.b.ins().iadd(scratch, within);
            let base = kb.b.ins().iadd_imm_s(base, region);
            region += bytes * col.groups;
            (info.buffers[outs + k].clone(), base)
        })
        .collect()
}

/// Kernel 1 of 2: iteration `unit · groups + g` reduces rows of group `g`
/// of chunk `unit` into partial `g`, starting from the group's first row.
fn partials(kb: &mut KernelBuilder, info: &KernelInfo, col: &Column) -> Result<(), Unsupported> {
    let p = parts(info, col)?;
    let per_group = (col.rows + col.groups - 1) / col.groups;
    let (start, end) = (kb.param(1), kb.param(2));
    kb.try_for_range(start, end, 1, |kb, it| {
        let unit = kb.b.ins().udiv_imm_u(it, col.groups);
        let first = kb.b.ins().imul_imm_s(unit, col.groups);
        let g = kb.b.ins().isub(it, first);
        let (row, c0, c1) = col.space.segment_of(kb, unit);
        let bufs = partial_buffers(kb, info, col, g);
        let r0 = kb.b.ins().imul_imm_s(g, per_group);
        let r1 = kb.b.ins().iadd_imm_s(r0, per_group);
        let rows = kb.iconst(col.rows);
        let r1 = kb.b.ins().smin(r1, rows);
        let red = p.reduced_row(kb, r0);
        emit_inner(kb, c0, c1, p.lanes, p.unroll, |kb, inner, l| {
            let out = at(&row, col.out_dim, inner, l);
            let xs = p.operands_at(kb, &out, &red)?;
            for ((spec, base), v) in bufs.iter().zip(xs) {
                write(kb, spec, *base, &out, v);
            }
            Ok(())
        })?;
        let next = kb.b.ins().iadd_imm_s(r0, 1);
        kb.try_for_range(next, r1, 1, |kb, r| {
            let red = p.reduced_row(kb, r);
            emit_inner(kb, c0, c1, p.lanes, p.unroll, |kb, inner, l| {
                accumulate(kb, &p, &bufs, &at(&row, col.out_dim, inner, l), &red)
            })
        })
    })
}

/// Kernel 2 of 2: each output position is the init value combined with the
/// partials of groups `0, 1, …` in order.
fn fold_partials(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    col: &Column,
) -> Result<(), Unsupported> {
    let p = parts(info, col)?;
    let outs = info.fusion.inputs.len();
    let (start, end) = (kb.param(1), kb.param(2));
    kb.try_for_range(start, end, 1, |kb, unit| {
        let (row, c0, c1) = col.space.segment_of(kb, unit);
        emit_inner(kb, c0, c1, p.lanes, p.unroll, |kb, inner, l| {
            let out = at(&row, col.out_dim, inner, l);
            let vars = (0..p.n)
                .map(|k| {
                    let init =
                        p.el.gen(kb, p.reduce.operands[p.n + k], &Index::scalar(l))?;
                    let init = elementwise::splat_pred(kb, init, l);
                    let var = kb.b.declare_var(kb.ty(init));
                    kb.b.def_var(var, init);
                    Ok(var)
                })
                .collect::<Result<Vec<_>, Unsupported>>()?;
            let (zero, groups) = (kb.iconst(0), kb.iconst(col.groups));
            kb.try_for_range(zero, groups, 1, |kb, g| {
                let bufs = partial_buffers(kb, info, col, g);
                let xs: Vec<Value> = bufs
                    .iter()
                    .map(|(spec, base)| read_from(kb, spec, *base, &out, Access::Output))
                    .collect();
                let accs: Vec<Value> = vars.iter().map(|&v| kb.b.use_var(v)).collect();
                let r = p.comb.combine(kb, &accs, &xs, l)?;
                for ((&var, v), &old) in vars.iter().zip(r).zip(&accs) {
                    let ty = kb.ty(old);
                    let v = fit(kb, v, ty);
                    kb.b.def_var(var, v);
                }
                Ok(())
            })?;
            for (k, &var) in vars.iter().enumerate() {
                let v = kb.b.use_var(var);
                let base = kb.buffer(outs + k);
                write(kb, &info.buffers[outs + k], base, &out, v);
            }
            Ok(())
        })
    })
}
