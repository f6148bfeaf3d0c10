//! `select-and-scatter` kernels (`docs/semantics.md`, *Select-and-scatter*): the output is filled
//! with the init value, then for each source position (row-major) the
//! kernel scans its window in lexicographic order with the `select`
//! computation and combines the source value into the selected element
//! with `scatter`, exactly in the interpreter's order.
//!
//! The scan keeps the selected value and position in variables: tap `p`
//! replaces the selection unless one exists and `select(selected, p)`
//! holds, so with `select = ≥` the first of equal maxima stays selected.
//! Taps on padding are never selected. Example (`docs/semantics.md`, *Select-and-scatter* example
//! 3): operand `[1,9,3,7,5,6]`, window 3, stride 1: the windows at 0 and 1 select the 9
//! at position 1, those at 2 and 3 the 7 at position 3.
//!
//! The pass runs on one thread: overlapping windows may select the same
//! element, whose scatter results then accumulate in order.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder};
use xla_core::hlo::{ComputationId, HloInstruction};
use xla_core::Opcode;

use super::access::{read_from, write, Access};
use super::data_movement::dims_of;
use super::elemental::{emit_computation, Elemental};
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fill_output, fusion_lanes};
use super::reduce_window::window_of;
use super::repr::scalar_pred;
use super::scatter::nest_loops;
use super::{cost, Emit, KernelInfo, KernelPlan, Unsupported};

/// What the kernel handles: windows without dilation or reversal (the
/// interpreter runs the others), non-complex values.
pub(super) fn check(instr: &HloInstruction) -> Result<(), Unsupported> {
    let window = window_of(instr)?;
    if window
        .iter()
        .any(|w| w.window_dilation != 1 || w.base_dilation != 1 || w.window_reversal)
    {
        return Err(Unsupported::new(
            Opcode::SelectAndScatter,
            "dilated or reversed windows",
        ));
    }
    if instr.shape.element_type().is_some_and(|t| t.is_complex()) {
        return Err(Unsupported::new(Opcode::SelectAndScatter, "complex values"));
    }
    if instr.called.len() != 2 {
        return Err(Unsupported::new(
            Opcode::SelectAndScatter,
            format!("`{}` lacks select or scatter", instr.name),
        ));
    }
    Ok(())
}

/// The kernel of a fusion whose root is a `select-and-scatter`: one
/// iteration (overlapping windows combine in order).
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let fusion = info.fusion;
    let root = info.comp.instr(fusion.root);
    let taps: i64 = window_of(root)?.iter().map(|w| w.size).product();
    let source = info.comp.instr(root.operands[1]);
    let count = source.shape.as_array().map_or(0, |a| a.element_count());
    let out = fusion.inputs.len();
    let lanes = fusion_lanes(info);
    Ok(vec![KernelPlan {
        part: "select_and_scatter",
        iterations: 1,
        cost_per_iteration: (count * taps) as f64 * cost::per_element(info, 1),
        scratch_bytes: 0,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            let el = elemental(info);
            let (start, end) = (kb.param(1), kb.param(2));
            kb.try_for_range(start, end, 1, |kb, _| {
                let init = info.comp.instr(info.fusion.root).operands[2];
                fill_output(kb, info, out, lanes, |kb, idx| {
                    el.gen(kb, init, &Index::scalar(idx.lanes))
                })?;
                emit_windows(kb, info, &el, out)
            })
        })),
    }])
}

/// For each source position: select in its window, scatter into the
/// selected output element.
fn emit_windows(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    el: &Elemental,
    out: usize,
) -> Result<(), Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let window = window_of(root)?;
    let (select, scatter): (ComputationId, ComputationId) = (root.called[0], root.called[1]);
    let (operand, source, init) = (root.operands[0], root.operands[1], root.operands[2]);
    let dims = dims_of(el, operand);
    let source_dims = dims_of(el, source);
    let sizes: Vec<i64> = window.iter().map(|w| w.size).collect();
    let ty = el.ty(operand);
    let spec = &info.buffers[out];
    let base = kb.buffer(out);
    nest_loops(kb, &source_dims, &mut Vec::new(), &mut |kb, w| {
        // The selection so far: none yet, its value and its position.
        let have = kb.b.declare_var(types::I8);
        let none = kb.b.ins().iconst(types::I8, 0);
        kb.b.def_var(have, none);
        let first = el.gen(kb, init, &Index::scalar(1))?;
        let value = kb.b.declare_var(kb.ty(first));
        kb.b.def_var(value, first);
        let zero = kb.iconst(0);
        let position: Vec<_> = dims
            .iter()
            .map(|_| {
                let v = kb.b.declare_var(types::I64);
                kb.b.def_var(v, zero);
                v
            })
            .collect();
        nest_loops(kb, &sizes, &mut Vec::new(), &mut |kb, k| {
            let mut p = Vec::with_capacity(dims.len());
            let mut inside = kb.b.ins().iconst(types::I8, 1);
            for (d, wd) in window.iter().enumerate() {
                let at = kb.b.ins().imul_imm_s(w[d], wd.stride);
                let at = kb.b.ins().iadd(at, k[d]);
                let at = kb.b.ins().iadd_imm_s(at, -wd.padding_low);
                let ok = kb.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, at, dims[d]);
                inside = kb.b.ins().band(inside, ok);
                p.push(at);
            }
            kb.branch(inside, |kb, taken| {
                if !taken {
                    return Ok(());
                }
                let at = Index::new(1, p.iter().map(|&v| IndexDim::uniform(v)).collect());
                let x = el.gen(kb, operand, &at)?;
                let current = kb.b.use_var(value);
                let chosen = emit_computation(kb, el.module, select, &[(current, ty), (x, ty)], 1)?;
                let chosen = scalar_pred(kb, chosen[0]);
                let had = kb.b.use_var(have);
                let keep = kb.b.ins().band(had, chosen);
                let kept = kb.b.ins().select(keep, current, x);
                kb.b.def_var(value, kept);
                for (d, &var) in position.iter().enumerate() {
                    let old = kb.b.use_var(var);
                    let pos = kb.b.ins().select(keep, old, p[d]);
                    kb.b.def_var(var, pos);
                }
                let one = kb.b.ins().iconst(types::I8, 1);
                kb.b.def_var(have, one);
                Ok(())
            })
        })?;
        let had = kb.b.use_var(have);
        kb.branch(had, |kb, taken| {
            if !taken {
                return Ok(());
            }
            let target: Vec<IndexDim> = position
                .iter()
                .map(|&v| IndexDim::uniform(kb.b.use_var(v)))
                .collect();
            let target = Index::new(1, target);
            let old = read_from(kb, spec, base, &target, Access::Output);
            let at = Index::new(1, w.iter().map(|&v| IndexDim::uniform(v)).collect());
            let s = el.gen(kb, source, &at)?;
            let combined = emit_computation(kb, el.module, scatter, &[(old, ty), (s, ty)], 1)?;
            write(kb, spec, base, &target, combined[0]);
            Ok(())
        })
    })
}
