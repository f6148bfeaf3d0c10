//! `scatter` kernels (`docs/semantics.md`, *Scatter*): the output buffer starts as the
//! operand (the runtime aliases or copies it for an in-place fusion; the
//! kernel copies it otherwise), then one pass applies the updates one at a
//! time in row-major order of the update index, as the interpreter does:
//! the combiner reads the output element, combines it with the update and
//! stores it back, so duplicate indices accumulate and, for a "set"
//! computation, the last update wins.
//!
//! The loops over the update dimensions nest in row-major order. The index
//! vector depends only on the update's scatter dimensions, so the window
//! start and the "window fits" test are computed once the loops have fixed
//! the last of them; the loops inside walk the window. Example (`docs/semantics.md`, *Scatter*
//! example 1): `updates = s32[2,3]`, `update_window_dims = {1}`: the outer
//! loop over dimension 0 reads the index vector, checks that the row fits
//! and, if so, the inner loop over dimension 1 combines three elements.
//!
//! The pass runs on one thread: updates that hit the same element must be
//! applied in order.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use xla_core::hlo::{HloInstruction, InstrId, ScatterDimensionNumbers};
use xla_core::{Opcode, PrimitiveType};

use super::access::{read_from, write, Access};
use super::data_movement::dims_of;
use super::elemental::{emit_computation, Elemental};
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fill_output, fusion_lanes};
use super::{cost, Emit, KernelInfo, KernelPlan, Unsupported};

fn dimension_numbers(instr: &HloInstruction) -> Result<&ScatterDimensionNumbers, Unsupported> {
    instr.attrs.scatter_dims.as_ref().ok_or_else(|| {
        Unsupported::new(
            Opcode::Scatter,
            format!("`{}` has no dimension numbers", instr.name),
        )
    })
}

/// What the kernel handles: one operand (variadic scatters run through
/// the interpreter) and integer indices.
pub(super) fn check(instr: &HloInstruction, index_type: PrimitiveType) -> Result<(), Unsupported> {
    dimension_numbers(instr)?;
    if instr.operands.len() != 3 {
        return Err(Unsupported::new(
            Opcode::Scatter,
            format!("variadic `{}`", instr.name),
        ));
    }
    if !index_type.is_integral() {
        return Err(Unsupported::new(
            Opcode::Scatter,
            format!("{} indices", index_type.name()),
        ));
    }
    Ok(())
}

/// The kernel of a fusion whose root is a `scatter`: one iteration (the
/// updates are applied in order).
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let fusion = info.fusion;
    let root = fusion.root;
    let instr = info.comp.instr(root);
    let updates = info.comp.instr(instr.operands[2]);
    let count = updates.shape.as_array().map_or(0, |a| a.element_count());
    let out = fusion.inputs.len();
    let copy_operand = fusion.in_place.is_none();
    let lanes = fusion_lanes(info);
    Ok(vec![KernelPlan {
        part: "scatter",
        iterations: 1,
        cost_per_iteration: count as f64 * cost::per_element(info, 1),
        scratch_bytes: 0,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            let el = elemental(info);
            let (start, end) = (kb.param(1), kb.param(2));
            kb.try_for_range(start, end, 1, |kb, _| {
                if copy_operand {
                    // Not in place (the operand is read elsewhere in the
                    // fusion): the output starts as a copy of the operand.
                    let operand = info.comp.instr(root).operands[0];
                    fill_output(kb, info, out, lanes, |kb, idx| el.gen(kb, operand, idx))?;
                }
                emit_updates(kb, info, &el, root, out, lanes)
            })
        })),
    }])
}

/// Applies every update whose window fits, in row-major order of the
/// update index.
fn emit_updates(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    root: InstrId,
    out: usize,
    lanes: u32,
) -> Result<(), Unsupported> {
    let instr = info.comp.instr(root);
    let dn = dimension_numbers(instr)?;
    let to_apply = *instr
        .called
        .first()
        .ok_or_else(|| Unsupported::new(Opcode::Scatter, "no to_apply"))?;
    let (operand, indices, updates) = (instr.operands[0], instr.operands[1], instr.operands[2]);
    let operand_dims = dims_of(el, operand);
    let update_dims = dims_of(el, updates);
    let indices_rank = dims_of(el, indices).len();
    let index_type = el.ty(indices);
    let ty = el.ty(operand);
    let rank = operand_dims.len();
    let window_dims: Vec<usize> = dn.update_window_dims.iter().map(|&d| d as usize).collect();
    let scatter_dims: Vec<usize> = (0..update_dims.len())
        .filter(|d| !window_dims.contains(d))
        .collect();
    // Operand dimension of each window dimension (in order).
    let window_to_operand: Vec<usize> = (0..rank as i64)
        .filter(|d| !dn.inserted_window_dims.contains(d) && !dn.input_batching_dims.contains(d))
        .map(|d| d as usize)
        .collect();
    let mut full_window = vec![1i64; rank];
    for (k, &u) in window_dims.iter().enumerate() {
        full_window[window_to_operand[k]] = update_dims[u];
    }
    // Loops over update dimensions `..split` fix the index vector.
    let split = scatter_dims.last().map_or(0, |&d| d + 1);
    let ivd = dn.index_vector_dim as usize;
    let spec = &info.buffers[out];
    let base = kb.buffer(out);
    let vector_combiner = combines_lanewise(el.module.computation(to_apply));
    nest_loops(
        kb,
        &update_dims[..split],
        &mut Vec::new(),
        &mut |kb, outer| {
            // Batch coordinate `b` indexes indices dimension `b` below
            // `index_vector_dim` and `b + 1` from it on.
            let g: Vec<Value> = scatter_dims.iter().map(|&d| outer[d]).collect();
            let batch_coordinate = |i: usize| g[if i < ivd { i } else { i - 1 }];
            let mut start: Vec<Option<Value>> = vec![None; rank];
            for (k, &d) in dn.scatter_dims_to_operand_dims.iter().enumerate() {
                let at = (0..indices_rank)
                    .map(|i| {
                        if i == ivd {
                            IndexDim::constant(k as i64)
                        } else {
                            IndexDim::uniform(batch_coordinate(i))
                        }
                    })
                    .collect();
                let v = el.gen(kb, indices, &Index::new(1, at))?;
                start[d as usize] = Some(widen_index(kb, index_type, v));
            }
            for (&d, &i) in dn
                .input_batching_dims
                .iter()
                .zip(&dn.scatter_indices_batching_dims)
            {
                start[d as usize] = Some(batch_coordinate(i as usize));
            }
            // The window fits iff `0 ≤ start ≤ size − window` (unsigned: a
            // negative start is huge). A window larger than its dimension
            // (an inserted dimension of size 0) fits nowhere: its negative
            // bound must not become a huge unsigned one.
            let mut fits = kb.b.ins().iconst(types::I8, 1);
            for d in 0..rank {
                if let Some(s) = start[d] {
                    let max = operand_dims[d] - full_window[d];
                    let ok = if max < 0 {
                        kb.b.ins().iconst(types::I8, 0)
                    } else {
                        kb.b.ins()
                            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, s, max)
                    };
                    fits = kb.b.ins().band(fits, ok);
                }
            }
            kb.branch(fits, |kb, taken| {
                if !taken {
                    return Ok(());
                }
                // Combines the update at `u` (one index per update
                // dimension, `lanes` wide) into the output.
                let combine = |kb: &mut KernelBuilder, u: &[IndexDim], lanes: u32| {
                    let mut target: Vec<IndexDim> = start
                        .iter()
                        .map(|s| s.map_or(IndexDim::constant(0), IndexDim::uniform))
                        .collect();
                    for (k, &w) in window_dims.iter().enumerate() {
                        let d = window_to_operand[k];
                        // The window start plus the update's index.
                        target[d] = match start[d] {
                            Some(s) => IndexDim {
                                var: Some(u[w].var.map_or(s, |v| kb.b.ins().iadd(s, v))),
                                aligned: false,
                                ..u[w]
                            },
                            None => u[w],
                        };
                    }
                    let target = Index::new(lanes, target);
                    let old = read_from(kb, spec, base, &target, Access::Output);
                    let new = el.gen(kb, updates, &Index::new(lanes, u.to_vec()))?;
                    let combined =
                        emit_computation(kb, el.module, to_apply, &[(old, ty), (new, ty)], lanes)?;
                    write(kb, spec, base, &target, combined[0]);
                    Ok(())
                };
                let mut at = outer.to_vec();
                let window = &update_dims[split..];
                match window.split_last() {
                    // The window's last dimension in vectors (its elements
                    // are distinct output elements), then a scalar tail.
                    Some((&m, rows)) if lanes > 1 && m >= i64::from(lanes) && vector_combiner => {
                        nest_loops(kb, rows, &mut at, &mut |kb, u| {
                            let uniform: Vec<IndexDim> =
                                u.iter().map(|&v| IndexDim::uniform(v)).collect();
                            let zero = kb.iconst(0);
                            let body_end = m - m % i64::from(lanes);
                            let end = kb.iconst(body_end);
                            kb.try_for_range(zero, end, i64::from(lanes), |kb, j| {
                                let mut at = uniform.clone();
                                at.push(IndexDim::consecutive(j, true));
                                combine(kb, &at, lanes)
                            })?;
                            let (from, end) = (kb.iconst(body_end), kb.iconst(m));
                            kb.try_for_range(from, end, 1, |kb, j| {
                                let mut at = uniform.clone();
                                at.push(IndexDim::uniform(j));
                                combine(kb, &at, 1)
                            })
                        })
                    }
                    _ => nest_loops(kb, window, &mut at, &mut |kb, u| {
                        let at: Vec<IndexDim> = u.iter().map(|&v| IndexDim::uniform(v)).collect();
                        combine(kb, &at, 1)
                    }),
                }
            })
        },
    )
}

/// Whether `to_apply` combines `(old, update)` with one lane-wise op the
/// vector emitters have for every real type (add, multiply, max, min,
/// and, or, xor) or keeps the update (a "set" scatter): then the window's
/// elements, which are distinct output elements, combine in vectors.
fn combines_lanewise(to_apply: &xla_core::hlo::HloComputation) -> bool {
    let root = to_apply.root_instr();
    let is_parameter = |id: InstrId| to_apply.instr(id).opcode == Opcode::Parameter;
    match root.opcode {
        Opcode::Parameter => true,
        Opcode::Add
        | Opcode::Multiply
        | Opcode::Maximum
        | Opcode::Minimum
        | Opcode::And
        | Opcode::Or
        | Opcode::Xor => root.operands.iter().all(|&o| is_parameter(o)),
        _ => false,
    }
}

/// The body of [`nest_loops`]: called with the loops' indices.
pub(super) type LoopBody<'a> =
    dyn FnMut(&mut KernelBuilder, &[Value]) -> Result<(), Unsupported> + 'a;

/// Nested loops over `dims` (row-major: the last dimension innermost),
/// appending each loop's `i64` index to `at` and calling `body` with the
/// indices of the enclosing loops and these.
pub(super) fn nest_loops(
    kb: &mut KernelBuilder,
    dims: &[i64],
    at: &mut Vec<Value>,
    body: &mut LoopBody,
) -> Result<(), Unsupported> {
    let Some((&n, rest)) = dims.split_first() else {
        return body(kb, at);
    };
    let zero = kb.iconst(0);
    let end = kb.iconst(n);
    kb.try_for_range(zero, end, 1, |kb, i| {
        at.push(i);
        let result = nest_loops(kb, rest, at, body);
        at.pop();
        result
    })
}

/// An index value of integer type `ty` as an `i64` (signed types sign-,
/// unsigned ones zero-extended).
fn widen_index(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value) -> Value {
    if kb.ty(v) == types::I64 {
        v
    } else if ty.is_signed_integral() {
        kb.b.ins().sextend(types::I64, v)
    } else {
        kb.b.ins().uextend(types::I64, v)
    }
}
