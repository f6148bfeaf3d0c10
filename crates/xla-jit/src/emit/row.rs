//! Row fusions (reduce–broadcast–consume): softmax, layernorm,
//! log-softmax, variance, … as one kernel over rows.
//!
//! The runtime's iterations cover groups of rows (a row = one index of the
//! root's row dimensions, the ones the reduces keep). For each row the
//! kernel runs one pass per reduce, in order: the pass reduces the row
//! (vector accumulators, as a row reduction) and binds the result, so
//! later passes and the output see it as a value that is the same at
//! every index of the row. The output pass then walks the row's remaining
//! (column) dimensions in vectors and stores the root. A softmax row of
//! 1024 floats is read three times, but from L1: `x` comes from memory
//! once.
//!
//! Expensive values that a pass computes element by element and a later
//! pass or the output needs again (softmax's `exp(x − max)`) are kept in a
//! stack buffer for the row (up to [`KEPT_BYTES`]) instead of being
//! recomputed.
//!
//! Fusions that compute vector math run their rows as a pipeline
//! ([`pipelined`]): one loop over the columns runs each pass on a
//! different row, so that streaming rows in and out overlaps the math.
//!
//! Example (softmax over `f32[4096,1024]{1,0}`): passes `max` and
//! `sum(exp(x − max))`, the latter storing each `exp(x − max)` in a 4 KiB
//! stack buffer, and the output `e / sum`. Pipelined, loop step `t` reads
//! row `t` for its max, computes the exps of row `t − 1` and divides and
//! stores row `t − 2`, with a ring of three exp buffers: one core runs it
//! in 2.55 ms instead of 3.2 (the computation alone, on rows in L2, takes
//! as long).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value};
use cranelift_frontend::Variable;
use xla_core::hlo::{Flags, InstrId};
use xla_core::Shape;

use super::access::{write, Addressing, BufferSpec};
use super::combine::{
    operand_index, operand_rank, reduce_at, reduced_dims, Accumulators, Combiner, Signs,
};
use super::elemental::{element_type, read_at, Bound, Elemental};
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner, emit_inner_steps, unroll_for, IterSpace};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fusion_lanes};
use super::{cost, Emit, KernelInfo, KernelPlan, Unsupported};
use crate::fusion::RowPass;

/// Bytes of stack a row kernel may use to keep values of the row.
pub const KEPT_BYTES: i64 = 128 * 1024;

/// A value kept in a stack buffer for the current row.
#[derive(Clone)]
struct Kept {
    instr: InstrId,
    /// The phase that computes it (a pass index); later phases read it.
    first: usize,
    spec: BufferSpec,
    bytes: u32,
}

/// Expensive members (same shape as the root) that two phases of the row
/// compute at the same elements: reachable through same-shape elementwise
/// ops both from a pass's reduce operand and from a later pass or the root.
fn kept_values(info: &KernelInfo, passes: &[RowPass], rows: &[usize]) -> Vec<Kept> {
    let comp = info.comp;
    let root = comp.instr(info.fusion.root);
    let Shape::Array(shape) = &root.shape else {
        return Vec::new();
    };
    let dims = shape.dims();
    let chain = |start: InstrId| -> Vec<InstrId> {
        let mut out = Vec::new();
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            let instr = comp.instr(i);
            let same_shape = instr.shape.as_array().is_some_and(|a| a.dims() == dims);
            let elementwise = instr.opcode.family() == xla_core::hlo::Family::Elementwise;
            if out.contains(&i) || !info.fusion.contains(i) || !same_shape || !elementwise {
                continue;
            }
            out.push(i);
            stack.extend(instr.operands.iter().copied());
        }
        out
    };
    let mut phases: Vec<Vec<InstrId>> = passes
        .iter()
        .map(|p| chain(comp.instr(p.instr).operands[0]))
        .collect();
    phases.push(chain(info.fusion.root));
    let expensive = |i: InstrId| comp.instr(i).opcode.has(Flags::EXPENSIVE);
    // Column strides in the root's physical order (row dimensions 0).
    let mut strides = vec![0i64; dims.len()];
    let mut elements = 1i64;
    for &d in &shape.layout_or_default().minor_to_major {
        let d = d as usize;
        if !rows.contains(&d) {
            strides[d] = elements;
            elements *= dims[d];
        }
    }
    let mut budget = KEPT_BYTES;
    let mut kept = Vec::new();
    for (first, phase) in phases.iter().enumerate() {
        for &m in phase {
            let later = phases[first + 1..].iter().any(|p| p.contains(&m));
            if !later || !expensive(m) || kept.iter().any(|k: &Kept| k.instr == m) {
                continue;
            }
            let ty = element_type(&comp.instr(m).shape);
            let bytes = elements * ty.byte_size() as i64;
            if bytes > budget {
                continue;
            }
            budget -= bytes;
            kept.push(Kept {
                instr: m,
                first,
                spec: BufferSpec {
                    ty,
                    dims: dims.to_vec(),
                    addressing: Addressing::Dense(strides.clone()),
                },
                bytes: bytes as u32,
            });
        }
    }
    kept
}

/// The kernel of a row fusion.
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let fusion = info.fusion;
    let root = info.comp.instr(fusion.root);
    let shape = match &root.shape {
        Shape::Array(a) => a.clone(),
        _ => return Err(Unsupported::layout("a row fusion with a tuple result")),
    };
    let dims = shape.dims().to_vec();
    let rows: Vec<usize> = fusion
        .passes
        .iter()
        .flat_map(|p| p.dims.iter().flatten().copied())
        .collect();
    // The row space: the root with its column dimensions collapsed to 1.
    let row_dims: Vec<i64> = (0..dims.len())
        .map(|d| if rows.contains(&d) { dims[d] } else { 1 })
        .collect();
    let layout = shape.layout_or_default();
    let columns: Vec<(usize, i64)> = layout
        .major_to_minor()
        .filter(|&d| !rows.contains(&d) && dims[d] != 1)
        .map(|d| (d, dims[d]))
        .collect();
    let row_elements: i64 = fusion
        .passes
        .iter()
        .map(|p| reduced_elements(info, p.instr))
        .chain(std::iter::once(columns.iter().map(|&(_, n)| n).product()))
        .max()
        .unwrap_or(1);
    let space = IterSpace::of_positions(&row_dims, &layout, info.iteration_elements, row_elements);
    let lanes = fusion_lanes(info);
    let passes_cost = (fusion.passes.len() + 1) as f64;
    let cost_per_iteration = (space.elements_per_iteration() * row_elements) as f64
        * cost::per_element(info, lanes)
        * passes_cost;
    let passes = fusion.passes.clone();
    let root_id = fusion.root;
    let kept = kept_values(info, &passes, &rows);
    let pipeline = {
        let layout = RowLayout {
            root: root_id,
            space: &space,
            passes: &passes,
            columns: &columns,
            kept: &kept,
        };
        pipelined_unroll(info, &layout, lanes)?
    };
    Ok(vec![KernelPlan {
        part: if pipeline.is_some() {
            "pipelined_rows"
        } else {
            "row"
        },
        iterations: space.iterations(),
        cost_per_iteration,
        scratch_bytes: 0,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            let layout = RowLayout {
                root: root_id,
                space: &space,
                passes: &passes,
                columns: &columns,
                kept: &kept,
            };
            let mut el = elemental(info);
            let combiners = combiners(info, &passes)?;
            match pipeline {
                Some(unroll) => pipelined(kb, info, &layout, &mut el, &combiners, (lanes, unroll)),
                None => one_row_at_a_time(kb, info, &layout, &mut el, &combiners, lanes),
            }
        })),
    }])
}

/// Elements a reduce reduces per result.
fn reduced_elements(info: &KernelInfo, reduce: InstrId) -> i64 {
    let instr = info.comp.instr(reduce);
    let operand = info.comp.instr(instr.operands[0]);
    let total = operand.shape.as_array().map_or(1, |a| a.element_count());
    let out = instr.shape.as_array().map_or(1, |a| a.element_count());
    total / out.max(1)
}

/// What a row kernel walks.
struct RowLayout<'a> {
    root: InstrId,
    space: &'a IterSpace,
    passes: &'a [RowPass],
    /// The root's column dimensions (size > 1), physical order.
    columns: &'a [(usize, i64)],
    kept: &'a [Kept],
}

/// The combiners of the passes' reduces.
fn combiners<'m>(
    info: &KernelInfo<'m>,
    passes: &[RowPass],
) -> Result<Vec<Combiner<'m>>, Unsupported> {
    passes
        .iter()
        .map(|p| Combiner::new(info.module, info.comp, info.comp.instr(p.instr)))
        .collect()
}

/// The row kernel that finishes each row before it starts the next.
fn one_row_at_a_time(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    layout: &RowLayout,
    el: &mut Elemental,
    combiners: &[Combiner],
    lanes: u32,
) -> Result<(), Unsupported> {
    let RowLayout {
        root,
        space,
        passes,
        columns,
        kept,
    } = *layout;
    let slots = kept_slots(kb, kept, 1);
    let out = info.fusion.inputs.len();
    let spec = info.buffers[out].clone();
    let (start, end) = (kb.param(1), kb.param(2));
    // Row-invariant values, each computed as soon as the reduces it reads
    // are bound (before the pass or output loop that needs it).
    let needs = invariant_needs(info, el);
    let one_row = |kb: &mut KernelBuilder, row: Vec<IndexDim>| -> Result<(), Unsupported> {
        let mut bound: Vec<InstrId> = Vec::new();
        let mut done = vec![false; needs.len()];
        let mut ready = |kb: &mut KernelBuilder, el: &Elemental, bound: &[InstrId]| {
            for (k, inv) in info.fusion.invariants.iter().enumerate() {
                if !done[k] && needs[k].iter().all(|r| bound.contains(r)) {
                    el.precompute(kb, inv, &row)?;
                    done[k] = true;
                }
            }
            Ok::<(), Unsupported>(())
        };
        ready(kb, el, &bound)?;
        let bases: Vec<Value> = slots
            .iter()
            .map(|&slot| kb.b.ins().stack_addr(kb.ptr, slot, 0))
            .collect();
        let phase = |el: &mut Elemental, p: usize| {
            for (k, &base) in kept.iter().zip(&bases) {
                if k.first <= p {
                    el.keep(k.instr, k.spec.clone(), base, k.first == p);
                }
            }
        };
        for (p, (pass, comb)) in passes.iter().zip(combiners).enumerate() {
            phase(el, p);
            let reduce = info.comp.instr(pass.instr);
            let base = pass_base(info, pass, &row);
            let max_unroll = cost::max_unroll(info, pass.instr);
            let v = reduce_at(el, kb, comb, reduce, &base, (lanes, max_unroll))?;
            let v = kb.pin(v[0]);
            el.bind(pass.instr, Bound::Uniform(v));
            bound.push(pass.instr);
            ready(kb, el, &bound)?;
        }
        phase(el, passes.len());
        let base = kb.buffer(out);
        if columns.is_empty() {
            let v = el.gen(kb, root, &Index::new(1, row.clone()))?;
            write(kb, &spec, base, &Index::new(1, row), v);
            return Ok(());
        }
        let (last, outer) = columns.split_last().expect("columns");
        let lanes = if last.1 >= lanes as i64 { lanes } else { 1 };
        let unroll = unroll_for(last.1, lanes).min(cost::max_unroll(info, root));
        nest_columns(kb, outer, row, &mut |kb, idx| {
            let (zero, n) = (kb.iconst(0), kb.iconst(last.1));
            emit_inner(kb, zero, n, lanes, unroll, |kb, inner, l| {
                let mut at = idx.clone();
                at[last.0] = inner;
                let at = Index::new(l, at);
                let v = el.gen(kb, root, &at)?;
                write(kb, &spec, base, &at, v);
                Ok(())
            })
        })
    };
    space.emit_positions(kb, start, end, one_row)
}

/// Stack slots for the kept values, `copies` rows of each.
fn kept_slots(kb: &mut KernelBuilder, kept: &[Kept], copies: u32) -> Vec<StackSlot> {
    kept.iter()
        .map(|k| {
            kb.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                k.bytes * copies,
                4,
            ))
        })
        .collect()
}

/// For each row invariant, the reduces it reads.
fn invariant_needs(info: &KernelInfo, el: &Elemental) -> Vec<Vec<InstrId>> {
    info.fusion
        .invariants
        .iter()
        .map(|inv| el.reduces_under(inv.instr))
        .collect()
}

/// The index of `pass`'s operand at the row `row` with its reduced
/// dimensions at 0.
fn pass_base(info: &KernelInfo, pass: &RowPass, row: &[IndexDim]) -> Index {
    let reduce = info.comp.instr(pass.instr);
    operand_index(
        reduce,
        operand_rank(info.comp, reduce),
        &Index::new(1, read_at(pass, row)),
    )
}

/// Rows per stage a row fusion needs for the pipelined kernel, which runs
/// its passes on `P` rows more than each call covers.
const PIPELINED_ROWS_PER_STAGE: i64 = 8;

/// The loop unroll of the pipelined kernel, if this row fusion is worth
/// pipelining and can be: it computes vector math (so its passes over
/// rows in L1 take longer than streaming the rows; layernorm, which
/// computes none, runs at the memory's rate either way and slower
/// pipelined, as its unrolled passes' accumulators spill); one column
/// dimension of at least four vectors, which every pass reduces (as its
/// only reduced dimension of size > 1) with vector accumulators; enough
/// rows; room on the stack for a copy of each kept value per stage.
fn pipelined_unroll(
    info: &KernelInfo,
    layout: &RowLayout,
    lanes: u32,
) -> Result<Option<u32>, Unsupported> {
    let &[(_, n)] = layout.columns else {
        return Ok(None);
    };
    let combiners = combiners(info, layout.passes)?;
    let stages = layout.passes.len() as i64;
    let kept_bytes: i64 = layout.kept.iter().map(|k| i64::from(k.bytes)).sum();
    let positions = layout.space.rows * layout.space.inner.map_or(1, |(_, n)| n);
    let fits = stages > 0
        && cost::computes_heavy_ops(info)
        && lanes > 1
        && n >= 4 * i64::from(lanes)
        && positions >= PIPELINED_ROWS_PER_STAGE * (stages + 1)
        && kept_bytes * (stages + 1) <= KEPT_BYTES;
    let passes_fit = layout.passes.iter().zip(&combiners).all(|(pass, comb)| {
        let reduce = info.comp.instr(pass.instr);
        reduce.operands.len() == 2
            && comb.identity().is_some()
            && matches!(reduced_dims(info.comp, reduce)[..], [(_, m)] if m == n)
    });
    if !fits || !passes_fit {
        return Ok(None);
    }
    let unroll = layout
        .passes
        .iter()
        .map(|p| cost::max_unroll(info, p.instr))
        .chain([cost::max_unroll(info, layout.root), unroll_for(n, lanes)])
        .min()
        .unwrap_or(1);
    Ok(Some(unroll))
}

/// The row kernel as a pipeline over rows: with `P` passes, loop step `t`
/// runs pass `k` on row `t − k` and the output on row `t − P`, all in one
/// loop over the columns. The first pass streams a new row in from memory
/// while the later ones compute on rows already in L1 and the output
/// streams an old row out, so memory traffic overlaps the math instead of
/// alternating with it (softmax: 3.4 → 2.3 ms on one core in a hand-written
/// model of this loop). Each pass's results move down a chain of variables
/// by one step per row; kept values live in a ring of `P + 1` row buffers.
/// Steps before the first row and after the last run their missing stages
/// on the nearest row of the call's range and drop the results (the output
/// of the call's first row is written `P + 1` times, the last time right).
fn pipelined(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    layout: &RowLayout,
    el: &mut Elemental,
    combiners: &[Combiner],
    (lanes, unroll): (u32, u32),
) -> Result<(), Unsupported> {
    let RowLayout {
        root,
        space,
        passes,
        columns,
        kept,
    } = *layout;
    let stages = passes.len();
    let ring = stages as i64 + 1;
    let slots = kept_slots(kb, kept, ring as u32);
    let (column, n) = columns[0];
    let out = info.fusion.inputs.len();
    let spec = info.buffers[out].clone();
    let needs = invariant_needs(info, el);
    let (start, end) = (kb.param(1), kb.param(2));
    let first = space.first_position(kb, start);
    let end = space.first_position(kb, end);
    let last = kb.b.ins().iadd_imm_s(end, -1);
    // An empty range runs no step.
    let nonempty = kb.b.ins().icmp(IntCC::SignedLessThan, first, end);
    let drained = kb.b.ins().iadd_imm_s(end, stages as i64);
    let steps_end = kb.b.ins().select(nonempty, drained, first);
    // The dimension each pass reduces (its operand's only one of size > 1).
    let reduced: Vec<usize> = passes
        .iter()
        .map(|p| reduced_dims(info.comp, info.comp.instr(p.instr))[0].0)
        .collect();
    let inits = passes
        .iter()
        .map(|p| {
            let reduce = info.comp.instr(p.instr);
            el.gen(kb, reduce.operands[1], &Index::scalar(1))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // `results[j][d]`: pass `j`'s result of `d + 1` steps ago.
    let results: Vec<Vec<Variable>> = inits
        .iter()
        .enumerate()
        .map(|(j, &init)| {
            (j..stages)
                .map(|_| {
                    let var = kb.b.declare_var(kb.ty(init));
                    kb.b.def_var(var, init);
                    var
                })
                .collect()
        })
        .collect();
    kb.try_for_range(first, steps_end, 1, |kb, t| {
        let rows: Vec<Vec<IndexDim>> = (0..=stages)
            .map(|k| {
                let p = kb.b.ins().iadd_imm_s(t, -(k as i64));
                let p = kb.b.ins().smax(p, first);
                let p = kb.b.ins().smin(p, last);
                space.position_index(kb, p)
            })
            .collect();
        let bases: Vec<Vec<Value>> = (0..=stages)
            .map(|k| {
                let u = kb.b.ins().iadd_imm_s(t, ring - k as i64);
                let copy = kb.b.ins().urem_imm_u(u, ring);
                kept.iter()
                    .zip(&slots)
                    .map(|(m, &slot)| {
                        let base = kb.b.ins().stack_addr(kb.ptr, slot, 0);
                        let offset = kb.b.ins().imul_imm_s(copy, i64::from(m.bytes));
                        kb.b.ins().iadd(base, offset)
                    })
                    .collect()
            })
            .collect();
        let bound: Vec<Vec<Value>> = results
            .iter()
            .map(|vars| vars.iter().map(|&v| kb.b.use_var(v)).collect())
            .collect();
        // Binds what stage `k` (at row `t − k`) reads of the passes before
        // it and of the kept values.
        let enter = |el: &mut Elemental, k: usize| {
            for (j, pass) in passes[..k].iter().enumerate() {
                el.bind(pass.instr, Bound::Uniform(bound[j][k - j - 1]));
            }
            for (m, &base) in kept.iter().zip(&bases[k]) {
                if m.first <= k {
                    el.keep(m.instr, m.spec.clone(), base, m.first == k);
                }
            }
        };
        for (k, row) in rows.iter().enumerate() {
            enter(el, k);
            for (inv, need) in info.fusion.invariants.iter().zip(&needs) {
                if need
                    .iter()
                    .all(|r| passes[..k].iter().any(|p| p.instr == *r))
                {
                    el.precompute(kb, inv, row)?;
                }
            }
        }
        let operand_bases: Vec<Index> = passes
            .iter()
            .zip(&rows)
            .map(|(pass, row)| pass_base(info, pass, row))
            .collect();
        let mut accs: Vec<Accumulators> = combiners
            .iter()
            .zip(&inits)
            .map(|(comb, &init)| Accumulators::new(kb, comb, (lanes, unroll), &[init], Signs::Kept))
            .collect();
        let base = kb.buffer(out);
        let (zero, len) = (kb.iconst(0), kb.iconst(n));
        emit_inner_steps(kb, zero, len, lanes, unroll, |kb, step, l| {
            for (k, (pass, comb)) in passes.iter().zip(combiners).enumerate() {
                enter(el, k);
                let reduce = info.comp.instr(pass.instr);
                let idxs: Vec<Index> = step
                    .iter()
                    .map(|&col| {
                        let mut at = operand_bases[k].clone();
                        at.dims[reduced[k]] = col;
                        at.lanes = l;
                        at
                    })
                    .collect();
                let acc = &mut accs[k];
                el.staged_step(kb, reduce.operands[0], &idxs, |kb, idx| {
                    let x = el.gen(kb, reduce.operands[0], idx)?;
                    acc.add(kb, comb, &[x], idx.lanes)
                })?;
                acc.end_step(kb);
            }
            enter(el, stages);
            let idxs: Vec<Index> = step
                .iter()
                .map(|&col| {
                    let mut at = rows[stages].clone();
                    at[column] = col;
                    Index::new(l, at)
                })
                .collect();
            el.staged_step(kb, root, &idxs, |kb, at| {
                let v = el.gen(kb, root, at)?;
                write(kb, &spec, base, at, v);
                Ok(())
            })
        })?;
        for (j, (acc, comb)) in accs.iter().zip(combiners).enumerate() {
            let total = acc.finish(kb, comb)?;
            let v = comb.with_init(kb, &[inits[j]], total)?;
            let v = kb.pin(v[0]);
            for d in (1..results[j].len()).rev() {
                let older = kb.b.use_var(results[j][d - 1]);
                kb.b.def_var(results[j][d], older);
            }
            kb.b.def_var(results[j][0], v);
        }
        Ok(())
    })
}

/// A loop body receiving the index of one position.
type PositionBody<'a> =
    dyn FnMut(&mut KernelBuilder, Vec<IndexDim>) -> Result<(), Unsupported> + 'a;

/// Scalar loops over the outer column dimensions.
fn nest_columns(
    kb: &mut KernelBuilder,
    dims: &[(usize, i64)],
    idx: Vec<IndexDim>,
    body: &mut PositionBody,
) -> Result<(), Unsupported> {
    match dims.split_first() {
        None => body(kb, idx),
        Some((&(d, n), rest)) => {
            let (zero, end) = (kb.iconst(0), kb.iconst(n));
            kb.try_for_range(zero, end, 1, |kb, i| {
                let mut at = idx.clone();
                at[d] = IndexDim::uniform(i);
                nest_columns(kb, rest, at, body)
            })
        }
    }
}
