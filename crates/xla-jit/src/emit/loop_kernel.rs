//! Loop fusions: one loop nest over the root's elements, each computed by
//! the root's generator and stored; and in-place dynamic-update-slice,
//! which walks only the update window of a buffer that already holds the
//! operand.

use std::sync::Arc;

use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::hlo::InstrId;
use xla_core::{ArrayShape, Opcode, PrimitiveType};

use super::access::write;
use super::data_movement::{clamped_start, concatenate_dim};
use super::elemental::Elemental;
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner_steps, unroll_for, Chunking, IterSpace, MAX_UNROLL};
use super::kernel::KernelBuilder;
use super::repr::lanes_for;
use super::{cost, KernelInfo, KernelPlan, Unsupported};

/// The generators of a fusion, reading its inputs from the kernel's
/// buffers.
pub(super) fn elemental<'m>(info: &KernelInfo<'m>) -> Elemental<'m> {
    Elemental::new(info.module, info.comp, Arc::clone(&info.inputs))
}

/// The lane count of a fusion: a 128-bit vector of the widest type it
/// computes or reads.
pub(super) fn fusion_lanes(info: &KernelInfo) -> u32 {
    let types = info
        .fusion
        .instructions
        .iter()
        .chain(&info.fusion.inputs)
        .flat_map(|&id| {
            info.comp
                .instr(id)
                .shape
                .array_leaves()
                .into_iter()
                .map(|a| a.element_type())
                .collect::<Vec<PrimitiveType>>()
        });
    lanes_for(types)
}

fn array_shape<'a>(info: &'a KernelInfo, id: InstrId) -> Result<&'a ArrayShape, Unsupported> {
    let instr = info.comp.instr(id);
    instr
        .shape
        .as_array()
        .ok_or_else(|| Unsupported::new(instr.opcode, format!("`{}` is not an array", instr.name)))
}

/// The kernel of a loop fusion.
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let fusion = info.fusion;
    let root = fusion.root;
    let opcode = info.comp.instr(root).opcode;
    if opcode == Opcode::Scatter {
        return super::scatter::plan(info);
    }
    if opcode == Opcode::RngBitGenerator {
        return super::rng_bit_generator::plan(info);
    }
    if matches!(opcode, Opcode::Sort | Opcode::TopK) {
        return super::sort::plan(info);
    }
    if opcode == Opcode::SelectAndScatter {
        return super::select_and_scatter::plan(info);
    }
    if let Some(in_place) = fusion.in_place {
        return in_place_update(info, in_place.input);
    }
    if info.comp.instr(root).opcode == Opcode::ReduceWindow
        && info.comp.instr(root).shape.is_tuple()
    {
        return super::reduce_window::plan_variadic(info);
    }
    if let Some(scan) =
        super::reduce_window::scan_dim(info.module, info.comp, info.comp.instr(root))
    {
        return super::reduce_window::plan_scan(info, scan);
    }
    let shape = array_shape(info, root)?;
    if opcode == Opcode::Concatenate
        && info.comp.instr(root).operands.len() >= CONCAT_PIECES_FROM
        && info.fusion.outputs.len() == 1
        && shape.element_count() > 0
    {
        return concatenate_pieces(info);
    }
    let mut space = IterSpace::new(
        shape.dims(),
        &shape.layout_or_default(),
        info.iteration_elements,
    );
    if let Some(stride) = fusion.transposed_read_stride {
        space = space.tiled(stride);
    }
    let lanes = fusion_lanes(info);
    let per_element = cost::per_element(info, lanes);
    let max_unroll = cost::max_unroll(info, root);
    let out = fusion.inputs.len();
    Ok(vec![storing_kernel(
        "loop",
        space,
        per_element,
        (lanes, max_unroll),
        out,
        root,
        None,
    )])
}

/// A kernel that walks `space` computing `value` (the fusion's root, or,
/// with `shift = Some((dim, at))`, an operand of a concatenate root whose
/// elements go `at` further along `dim`) and stores it to output buffer
/// `out`. The root's kernel precomputes the fusion's row invariants.
fn storing_kernel(
    part: &'static str,
    space: IterSpace,
    per_element: f64,
    (lanes, max_unroll): (u32, u32),
    out: usize,
    value: InstrId,
    shift: Option<(usize, i64)>,
) -> KernelPlan {
    KernelPlan::over(part, space, per_element, move |kb, info, space| {
        let el = elemental(info);
        let spec = &info.buffers[out];
        let base = kb.buffer(out);
        let (start, end) = (kb.param(1), kb.param(2));
        let invariants: &[_] = match shift {
            None => &info.fusion.invariants,
            Some(_) => &[],
        };
        walk_steps(
            kb,
            space,
            (start, end),
            lanes,
            max_unroll,
            |kb, row| {
                invariants
                    .iter()
                    .try_for_each(|inv| el.precompute(kb, inv, row))
            },
            |kb, step| {
                el.staged_step(kb, value, step, |kb, idx| {
                    let v = el.gen(kb, value, idx)?;
                    match shift {
                        None => write(kb, spec, base, idx, v),
                        Some((dim, at)) => {
                            let mut place = idx.clone();
                            place.dims[dim] = idx.dims[dim].plus(at);
                            write(kb, spec, base, &place, v);
                        }
                    }
                    Ok(())
                })
            },
        )
    })
}

/// A concatenate root with at least this many operands runs one kernel per
/// operand, each walking its operand and storing at its place in the
/// output (as XLA's CPU backend copies each operand of a concatenate); one
/// with fewer chooses the operand per element by bisection in one loop
/// (whose code, and compile time, grows with the operand count times the
/// unrolled vectors and lanes).
const CONCAT_PIECES_FROM: usize = 8;

/// The kernels of a concatenate with many operands: one per operand
/// holding elements, each computing its operand's fused expression.
fn concatenate_pieces(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let root = info.fusion.root;
    let concat = info.comp.instr(root);
    let dim = concatenate_dim(concat);
    let layout = array_shape(info, root)?.layout_or_default();
    let lanes = fusion_lanes(info);
    let out = info.fusion.inputs.len();
    let mut offset = 0;
    let mut plans = Vec::new();
    for &operand in &concat.operands {
        let dims = array_shape(info, operand)?.dims().to_vec();
        let at = offset;
        offset += dims[dim];
        if dims.contains(&0) {
            continue;
        }
        let space = IterSpace::new(&dims, &layout, info.iteration_elements);
        let per_element = cost::per_element_of(info, operand, lanes);
        let max_unroll = cost::max_unroll(info, operand);
        plans.push(storing_kernel(
            "piece",
            space,
            per_element,
            (lanes, max_unroll),
            out,
            operand,
            Some((dim, at)),
        ));
    }
    Ok(plans)
}

/// Stores `value` at every element of output buffer `out` (the fusion
/// root's), walking the whole array in the calling task: the first phase of
/// a kernel that then updates the buffer in place (scatter's copy of its
/// operand, select-and-scatter's init value).
pub(super) fn fill_output(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    out: usize,
    lanes: u32,
    mut value: impl FnMut(&mut KernelBuilder, &Index) -> Result<Value, Unsupported>,
) -> Result<(), Unsupported> {
    let shape = array_shape(info, info.fusion.root)?;
    let space = IterSpace::new(
        shape.dims(),
        &shape.layout_or_default(),
        info.iteration_elements,
    );
    let (start, end) = (kb.iconst(0), kb.iconst(space.iterations()));
    let (spec, base) = (&info.buffers[out], kb.buffer(out));
    walk(
        kb,
        &space,
        (start, end),
        lanes,
        MAX_UNROLL,
        |_, _| Ok(()),
        |kb, idx| {
            let v = value(kb, idx)?;
            write(kb, spec, base, idx, v);
            Ok(())
        },
    )
}

/// Walks iterations `[start, end)` of `space`: `row` runs once per row
/// (with the row's index), then `body` for each vector (and tail element)
/// of the row with its index, up to `max_unroll` vectors per loop step.
pub(super) fn walk(
    kb: &mut KernelBuilder,
    space: &IterSpace,
    range: (Value, Value),
    lanes: u32,
    max_unroll: u32,
    row: impl FnMut(&mut KernelBuilder, &[IndexDim]) -> Result<(), Unsupported>,
    mut body: impl FnMut(&mut KernelBuilder, &Index) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    walk_steps(kb, space, range, lanes, max_unroll, row, |kb, step| {
        step.iter().try_for_each(|idx| body(kb, idx))
    })
}

/// [`walk`] with a body that receives the indices of a whole loop step at
/// once (see [`emit_inner_steps`]).
fn walk_steps(
    kb: &mut KernelBuilder,
    space: &IterSpace,
    (start, end): (Value, Value),
    lanes: u32,
    max_unroll: u32,
    mut row: impl FnMut(&mut KernelBuilder, &[IndexDim]) -> Result<(), Unsupported>,
    mut body: impl FnMut(&mut KernelBuilder, &[Index]) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    match space.inner {
        None => space.emit(kb, start, end, |kb, at, _, _| {
            row(kb, at)?;
            body(kb, &[Index::new(1, at.to_vec())])
        }),
        Some((dim, n)) => {
            let step_span = match space.chunking {
                Chunking::Chunks { chunk, .. } => chunk,
                Chunking::Tiles { tile, .. } => tile,
                Chunking::Rows { .. } => n,
            };
            let lanes = if n >= lanes as i64 { lanes } else { 1 };
            let unroll = unroll_for(step_span, lanes).min(max_unroll);
            space.emit(kb, start, end, |kb, at, c0, c1| {
                row(kb, at)?;
                emit_inner_steps(kb, c0, c1, lanes, unroll, |kb, step, l| {
                    let idxs: Vec<Index> = step
                        .iter()
                        .map(|&inner| {
                            let mut idx = Index::new(l, at.to_vec());
                            idx.dims[dim] = inner;
                            idx
                        })
                        .collect();
                    body(kb, &idxs)
                })
            })
        }
    }
}

/// An in-place dynamic-update-slice: the output buffer already holds the
/// operand (the runtime aliases or copies it); the kernel writes the update
/// window only, walking the update in the output's physical order.
fn in_place_update(
    info: &KernelInfo,
    operand_input: usize,
) -> Result<Vec<KernelPlan>, Unsupported> {
    let fusion = info.fusion;
    let dus = info.comp.instr(fusion.root);
    debug_assert_eq!(dus.opcode, Opcode::DynamicUpdateSlice);
    debug_assert_eq!(fusion.inputs[operand_input], dus.operands[0]);
    let update = dus.operands[1];
    let out_shape = array_shape(info, fusion.root)?;
    let upd_dims = array_shape(info, update)?.dims().to_vec();
    let space = IterSpace::new(
        &upd_dims,
        &out_shape.layout_or_default(),
        info.iteration_elements,
    );
    let lanes = fusion_lanes(info);
    let per_element = cost::per_element(info, lanes);
    let out_dims = out_shape.dims().to_vec();
    let root = fusion.root;
    let out = fusion.inputs.len();
    Ok(vec![KernelPlan::over(
        "update_in_place",
        space,
        per_element,
        move |kb, info, space| {
            let el = elemental(info);
            let dus = info.comp.instr(root);
            let spec = &info.buffers[out];
            let base = kb.buffer(out);
            let starts = (0..out_dims.len())
                .map(|d| clamped_start(&el, kb, dus.operands[d + 2], out_dims[d] - upd_dims[d]))
                .collect::<Result<Vec<_>, _>>()?;
            let (start, end) = (kb.param(1), kb.param(2));
            walk(
                kb,
                space,
                (start, end),
                lanes,
                MAX_UNROLL,
                |_, _| Ok(()),
                |kb, idx| {
                    let v = el.gen(kb, update, idx)?;
                    let dims = idx
                        .dims
                        .iter()
                        .zip(&starts)
                        .map(|(x, &s)| IndexDim {
                            var: Some(match x.var {
                                Some(v) => kb.b.ins().iadd(v, s),
                                None => s,
                            }),
                            aligned: false,
                            ..*x
                        })
                        .collect();
                    write(kb, spec, base, &Index::new(idx.lanes, dims), v);
                    Ok(())
                },
            )
        },
    )])
}
