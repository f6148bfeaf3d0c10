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
//! Example (softmax over `f32[4096,1024]{1,0}`): 4096 rows, 16 per
//! iteration; per row: `max` pass, `sum(exp(x − max))` pass storing each
//! `exp(x − max)` in a 4 KiB stack buffer, then `e / sum` stored for the
//! 1024 columns.

use cranelift_codegen::ir::{InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value};
use xla_core::hlo::InstrId;
use xla_core::Shape;

use super::access::{write, Addressing, BufferSpec};
use super::combine::{operand_index, reduce_at, Combiner};
use super::elemental::{element_type, Bound, Elemental};
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner, unroll_for, IterSpace};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fusion_lanes};
use super::{cost, KernelInfo, KernelPlan, Unsupported};
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
    let expensive = |i: InstrId| {
        matches!(
            crate::fusion::classify(info.module, comp, i),
            crate::fusion::Role::Elementwise { expensive: true }
        )
    };
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
    let space = IterSpace::new(
        &row_dims,
        &layout,
        (info.iteration_elements / row_elements.max(1)).max(1),
    );
    let lanes = fusion_lanes(info);
    let passes_cost = (fusion.passes.len() + 1) as f64;
    let cost_per_iteration = (space.elements_per_iteration() * row_elements) as f64
        * cost::per_element(info, lanes)
        * passes_cost;
    let passes = fusion.passes.clone();
    let root_id = fusion.root;
    let kept = kept_values(info, &passes, &rows);
    Ok(vec![KernelPlan {
        part: "row",
        iterations: space.iterations(),
        cost_per_iteration,
        scratch_bytes: 0,
        epilogue: false,
        emit: Box::new(move |kb, info| {
            let layout = RowLayout {
                root: root_id,
                space: &space,
                passes: &passes,
                columns: &columns,
                kept: &kept,
            };
            row_kernel(kb, info, &layout, lanes)
        }),
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

fn row_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    layout: &RowLayout,
    lanes: u32,
) -> Result<(), Unsupported> {
    let RowLayout {
        root,
        space,
        passes,
        columns,
        kept,
    } = *layout;
    let mut el = elemental(info, kb);
    let slots: Vec<StackSlot> = kept
        .iter()
        .map(|k| {
            kb.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                k.bytes,
                4,
            ))
        })
        .collect();
    let combiners = passes
        .iter()
        .map(|p| Combiner::new(info.module, &el, info.comp.instr(p.instr)))
        .collect::<Result<Vec<_>, _>>()?;
    let out = info.fusion.inputs.len();
    let spec = info.buffers[out].clone();
    let (start, end) = (kb.param(1), kb.param(2));
    // Row-invariant values, each computed as soon as the reduces it reads
    // are bound (before the pass or output loop that needs it).
    let needs: Vec<Vec<InstrId>> = info
        .fusion
        .invariants
        .iter()
        .map(|inv| el.reduces_under(inv.instr))
        .collect();
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
        ready(kb, &el, &bound)?;
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
        for (p, (pass, comb)) in passes.iter().zip(&combiners).enumerate() {
            phase(&mut el, p);
            let reduce = info.comp.instr(pass.instr);
            let kept: Vec<IndexDim> = pass
                .dims
                .iter()
                .map(|d| d.map_or(IndexDim::constant(0), |k| row[k]))
                .collect();
            let rank = info
                .comp
                .instr(reduce.operands[0])
                .shape
                .as_array()
                .map_or(0, |a| a.rank());
            let base = operand_index(reduce, rank, &Index::new(1, kept));
            let max_unroll = cost::max_unroll(info, pass.instr);
            let v = reduce_at(&el, kb, comb, reduce, &base, (lanes, max_unroll))?;
            let v = kb.pin(v[0]);
            el.bind(pass.instr, Bound::Uniform(v));
            bound.push(pass.instr);
            ready(kb, &el, &bound)?;
        }
        phase(&mut el, passes.len());
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
