//! `reduce-window` as an elemental generator (`docs/semantics.md`, *Reduce-window*): the
//! value at an output index folds the window's taps, in the interpreter's
//! order (lexicographic over the window, the last dimension fastest),
//! starting from the init value; taps on padding or on base-dilation
//! holes contribute the init value, as in the interpreter.
//!
//! Tap `k` of output position `o` along a dimension with stride `s`,
//! window dilation `wd`, base dilation `bd` and low padding `lo` lies at
//! position `p = o·s + k·wd − lo` of the base-dilated operand, which is
//! operand element `p / bd` when `p ≥ 0`, `p mod bd = 0` and `p / bd` is
//! below the operand size. Example (sum, window 2, padding `(1,1)`,
//! operand `[1,2,3,4,5]`): output 0 folds `p = −1` (padding: init 0) and
//! `p = 0` (1), giving 1; output 5 folds 5 and padding, giving 5.
//!
//! Lanes walk the output's minor dimension: each lane folds its own window
//! (the same sequence as one scalar fold), and the operand read keeps the
//! output's lane stride times the window stride. Where a vector's lanes
//! fall on both sides of the padding, or walk a base-dilated dimension,
//! that tap is computed lane by lane.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Type, Value};
use cranelift_frontend::Variable;
use xla_core::hlo::{
    scan_init_is_neutral, HloComputation, HloInstruction, InstrId, Scan, WindowDim,
    REVERSE_SCAN_MIN,
};
use xla_core::{HloModule, Opcode, PrimitiveType, Shape};

use super::access::{pack, write};
use super::combine::Combiner;
use super::data_movement::{dims_of, pad_dim};
use super::elemental::Elemental;
use super::index::{Index, IndexDim};
use super::iterate::{IterSpace, MAX_UNROLL};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fusion_lanes, walk};
use super::{cost, Emit, KernelInfo, KernelPlan, Unsupported};

/// The window of a windowed instruction (reduce-window, select-and-scatter).
pub(super) fn window_of(instr: &HloInstruction) -> Result<&[WindowDim], Unsupported> {
    instr
        .attrs
        .window
        .as_ref()
        .map(|w| w.dims.as_slice())
        .ok_or_else(|| Unsupported::new(instr.opcode, format!("`{}` has no window", instr.name)))
}

/// What a kernel needs of a reduce-window: array results of the same
/// dimensions (one per operand), no pred values, no window reversal.
pub(super) fn check(instr: &HloInstruction) -> Result<(), Unsupported> {
    let window = window_of(instr)?;
    let results = instr.shape.array_leaves();
    let n = instr.operands.len() / 2;
    let same_dims = results.iter().all(|a| a.dims() == results[0].dims());
    if !instr.operands.len().is_multiple_of(2) || results.len() != n || !same_dims {
        return Err(Unsupported::new(
            Opcode::ReduceWindow,
            format!("`{}` has results unlike its operands", instr.name),
        ));
    }
    if results
        .iter()
        .any(|a| a.element_type() == PrimitiveType::Pred)
    {
        return Err(Unsupported::new(Opcode::ReduceWindow, "pred values"));
    }
    if window.iter().any(|w| w.window_reversal) {
        return Err(Unsupported::new(Opcode::ReduceWindow, "reversed windows"));
    }
    Ok(())
}

/// Taps per output element: how many times a reduce-window folds (1 for
/// any other instruction), for cost estimates; saturates (a window of
/// `i64::MAX` taps over an empty operand is valid).
pub(super) fn taps(instr: &HloInstruction) -> i64 {
    match (instr.opcode, &instr.attrs.window) {
        (Opcode::ReduceWindow, Some(w)) => w
            .dims
            .iter()
            .fold(1i64, |taps, d| taps.saturating_mul(d.size)),
        _ => 1,
    }
}

/// `true` if the taps along `w` can miss the operand (padding or holes).
pub(super) fn may_miss(w: &WindowDim) -> bool {
    w.padding_low > 0 || w.padding_high > 0 || w.base_dilation > 1
}

/// The value of single-operand reduce-window instruction `id` at `idx`
/// (a variadic one is a kernel's root, see [`values`]).
pub(super) fn reduce_window(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    if !matches!(instr.shape, Shape::Array(_)) {
        return Err(Unsupported::new(
            Opcode::ReduceWindow,
            format!("variadic `{}` read as one value", instr.name),
        ));
    }
    Ok(values(el, kb, id, idx)?[0])
}

/// The values of reduce-window instruction `id` at `idx`, one per
/// operand.
pub(super) fn values(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Vec<Value>, Unsupported> {
    let instr = el.comp.instr(id);
    let window = window_of(instr)?;
    let n = instr.operands.len() / 2;
    let (srcs, init_instrs) = instr.operands.split_at(n);
    let lanes = idx.lanes;
    let in_dims = dims_of(el, srcs[0]);
    let comb = Combiner::new(el.module, el.comp, instr)?;
    let inits = init_instrs
        .iter()
        .map(|&i| el.gen(kb, i, &Index::scalar(lanes)))
        .collect::<Result<Vec<_>, _>>()?;
    let accs: Vec<Variable> = inits
        .iter()
        .map(|&v| {
            let acc = kb.b.declare_var(kb.ty(v));
            kb.b.def_var(acc, v);
            acc
        })
        .collect();
    let mut taps = Vec::with_capacity(window.len());
    fold(
        el,
        kb,
        &Fold {
            comb: &comb,
            srcs,
            init_instrs,
            window,
            in_dims: &in_dims,
            idx,
            inits: &inits,
            accs: &accs,
        },
        &mut taps,
    )?;
    Ok(accs.iter().map(|&a| kb.b.use_var(a)).collect())
}

/// The loop nest of one window.
struct Fold<'a> {
    comb: &'a Combiner<'a>,
    srcs: &'a [InstrId],
    init_instrs: &'a [InstrId],
    window: &'a [WindowDim],
    in_dims: &'a [i64],
    idx: &'a Index,
    /// The init values in register form.
    inits: &'a [Value],
    accs: &'a [Variable],
}

/// Loops over the window dimensions from `taps.len()` on (the earlier
/// ones' tap indices are in `taps`), then folds the tap.
fn fold(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Fold,
    taps: &mut Vec<Value>,
) -> Result<(), Unsupported> {
    let d = taps.len();
    if d == f.window.len() {
        return fold_tap(el, kb, f, taps);
    }
    let size = f.window[d].size;
    if size == 1 {
        taps.push(kb.iconst(0));
        let r = fold(el, kb, f, taps);
        taps.pop();
        return r;
    }
    let (zero, end) = (kb.iconst(0), kb.iconst(size));
    kb.try_for_range(zero, end, 1, |kb, k| {
        taps.push(k);
        let r = fold(el, kb, f, taps);
        taps.pop();
        r
    })
}

/// `acc = to_apply(acc, tap)` for the tap at window index `taps`.
fn fold_tap(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Fold,
    taps: &[Value],
) -> Result<(), Unsupported> {
    let xs = tap_values(el, kb, f, taps, f.idx, f.inits)?;
    let accs: Vec<Value> = f.accs.iter().map(|&a| kb.b.use_var(a)).collect();
    let r = f.comb.combine(kb, &accs, &xs, f.idx.lanes)?;
    for (&a, v) in f.accs.iter().zip(r) {
        kb.b.def_var(a, v);
    }
    Ok(())
}

/// The values of tap `taps` of the windows at `idx`: the operands'
/// elements, or `inits` (in `idx`'s register form) on padding and holes.
///
/// Along a padded dimension the lanes walk, the vector reads the operand
/// when its first and last lanes are inside; otherwise (the vector
/// straddles the padding, or lanes walk a base-dilated dimension) each
/// lane is computed on its own.
fn tap_values(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Fold,
    taps: &[Value],
    idx: &Index,
    inits: &[Value],
) -> Result<Vec<Value>, Unsupported> {
    let lanes = idx.lanes;
    // All lanes read the operand.
    let mut inside: Option<Value> = None;
    // Some lanes may read it while others do not.
    let mut straddles = false;
    let mut dims = Vec::with_capacity(taps.len());
    for (((x, w), &k), &n) in idx.dims.iter().zip(f.window).zip(taps).zip(f.in_dims) {
        // Lane 0's position in the base-dilated operand, without padding.
        let o = x.times(kb, w.stride);
        let k = if w.window_dilation == 1 {
            k
        } else {
            kb.b.ins().imul_imm_s(k, w.window_dilation)
        };
        let var = match o.var {
            Some(v) => kb.b.ins().iadd(v, k),
            None => k,
        };
        let affine = IndexDim {
            var: Some(var),
            offset: o.offset - w.padding_low,
            aligned: false,
            ..o
        };
        let ok = if !may_miss(w) {
            dims.push(affine);
            continue;
        } else if lanes == 1 || o.lane_stride == 0 {
            let p = kb.b.ins().iadd_imm_s(var, o.offset);
            let (ok, at) = pad_dim(kb, p, w.padding_low, w.base_dilation - 1, n);
            dims.push(IndexDim::uniform(at));
            ok
        } else if w.base_dilation == 1 {
            let first = affine.value(kb);
            let last =
                kb.b.ins()
                    .iadd_imm_s(first, (lanes as i64 - 1) * affine.lane_stride);
            let first_in = in_range(kb, first, n);
            let last_in = in_range(kb, last, n);
            dims.push(affine);
            straddles = true;
            kb.b.ins().band(first_in, last_in)
        } else {
            return per_lane(el, kb, f, taps, idx);
        };
        inside = Some(match inside {
            Some(i) => kb.b.ins().band(i, ok),
            None => ok,
        });
    }
    let at = Index::new(lanes, dims);
    let read = |kb: &mut KernelBuilder| -> Result<Vec<Value>, Unsupported> {
        f.srcs.iter().map(|&s| el.gen(kb, s, &at)).collect()
    };
    let Some(inside) = inside else {
        return read(kb);
    };
    let tys: Vec<Type> = inits.iter().map(|&v| kb.ty(v)).collect();
    kb.if_else(inside, &tys, read, |kb| {
        if straddles {
            per_lane(el, kb, f, taps, idx)
        } else {
            Ok(inits.to_vec())
        }
    })
}

/// [`tap_values`] computed lane by lane.
fn per_lane(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Fold,
    taps: &[Value],
    idx: &Index,
) -> Result<Vec<Value>, Unsupported> {
    let inits = f
        .init_instrs
        .iter()
        .map(|&i| el.gen(kb, i, &Index::scalar(1)))
        .collect::<Result<Vec<_>, _>>()?;
    let lanes = (0..idx.lanes)
        .map(|l| tap_values(el, kb, f, taps, &idx.lane(l), &inits))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(f.srcs
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let scalars: Vec<Value> = lanes.iter().map(|l| l[k]).collect();
            pack(kb, el.ty(s), &scalars)
        })
        .collect())
}

/// `0 ≤ i < n` as an `i8` truth value.
fn in_range(kb: &mut KernelBuilder, i: Value, n: i64) -> Value {
    let nonneg = kb.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, i, 0);
    let below = kb.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, n);
    kb.b.ins().band(nonneg, below)
}

/// The kernel of a variadic reduce-window (the root of its fusion): one
/// loop nest over the first result's elements in its physical order,
/// writing every result at each index.
pub(super) fn plan_variadic(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let root = info.fusion.root;
    let instr = info.comp.instr(root);
    let first = *instr.shape.array_leaves().first().ok_or_else(|| {
        Unsupported::new(
            Opcode::ReduceWindow,
            format!("`{}` has no results", instr.name),
        )
    })?;
    let space = IterSpace::new(
        first.dims(),
        &first.layout_or_default(),
        info.iteration_elements,
    );
    let lanes = fusion_lanes(info);
    let per_element = cost::per_element(info, lanes);
    let out = info.fusion.inputs.len();
    Ok(vec![KernelPlan::over(
        "loop",
        space,
        per_element,
        move |kb, info, space| {
            let el = elemental(info);
            let (start, end) = (kb.param(1), kb.param(2));
            walk(
                kb,
                space,
                (start, end),
                lanes,
                MAX_UNROLL,
                |_, _| Ok(()),
                |kb, idx| {
                    for (k, v) in values(&el, kb, root, idx)?.into_iter().enumerate() {
                        let base = kb.buffer(out + k);
                        write(kb, &info.buffers[out + k], base, idx, v);
                    }
                    Ok(())
                },
            )
        },
    )])
}

/// Forward scans shorter than this stay elemental reduce-windows (fusible
/// and vectorized; `n` taps per element). Reverse scans need
/// [`REVERSE_SCAN_MIN`], as in the interpreter.
const SCAN_MIN: i64 = 64;

/// How reduce-window `instr` is a cumulative reduction that a running fold
/// computes (see [`xla_core::hlo::Window::scan_dim`]): one operand, a
/// single-op computation and a constant init it leaves unchanged
/// ([`scan_init_is_neutral`]), so that the padding taps fold to the init;
/// at least [`SCAN_MIN`] elements forward (then bit for bit the window's
/// fold) or [`REVERSE_SCAN_MIN`] reverse (then folded from the last
/// element, as the interpreter does). Such a reduce-window runs as its own
/// kernel ([`plan_scan`]): `O(n)` per line instead of `O(n²)` (`jnp.cumsum`
/// of 160000 elements took 18 s elementally).
pub(crate) fn scan_dim(
    module: &HloModule,
    comp: &HloComputation,
    instr: &HloInstruction,
) -> Option<Scan> {
    if instr.opcode != Opcode::ReduceWindow || instr.operands.len() != 2 {
        return None;
    }
    let operand = comp.instr(instr.operands[0]).shape.as_array()?;
    let scan = instr.attrs.window.as_ref()?.scan_dim(operand.dims())?;
    let min = if scan.reverse {
        REVERSE_SCAN_MIN
    } else {
        SCAN_MIN
    };
    if operand.dims()[scan.dim] < min || operand.element_type().is_complex() {
        return None;
    }
    let init = comp.instr(instr.operands[1]);
    let value = match (init.opcode, &init.attrs.literal) {
        (Opcode::Constant, Some(l)) => l.convert(PrimitiveType::F64).ok()?.get::<f64>(&[]).ok()?,
        _ => return None,
    };
    let to_apply = module.computation(*instr.called.first()?);
    let root = to_apply.root_instr();
    let params = root.operands.len() == 2
        && root.operands[0] != root.operands[1]
        && root
            .operands
            .iter()
            .all(|&o| to_apply.instr(o).opcode == Opcode::Parameter);
    (params && scan_init_is_neutral(root.opcode, value)).then_some(scan)
}

/// The kernel of a cumulative reduce-window (the root of its fusion, see
/// [`scan_dim`]): per line (an index of the other dimensions) one running
/// fold from the init, forward or from the last element, writing each
/// output as it goes, lane by lane.
pub(super) fn plan_scan(info: &KernelInfo, scan: Scan) -> Result<Vec<KernelPlan>, Unsupported> {
    let d = scan.dim;
    let root = info.fusion.root;
    let instr = info.comp.instr(root);
    let shape = instr.shape.as_array().ok_or_else(|| {
        Unsupported::new(
            Opcode::ReduceWindow,
            format!("`{}` is not an array", instr.name),
        )
    })?;
    let dims = shape.dims().to_vec();
    let n = dims[d];
    let line_dims: Vec<i64> = (0..dims.len())
        .map(|k| if k == d { 1 } else { dims[k] })
        .collect();
    let space = IterSpace::of_positions(
        &line_dims,
        &shape.layout_or_default(),
        info.iteration_elements,
        n,
    );
    let cost_per_iteration =
        (space.elements_per_iteration() * n) as f64 * cost::per_element(info, 1);
    let (src, init) = (instr.operands[0], instr.operands[1]);
    let out = info.fusion.inputs.len();
    Ok(vec![KernelPlan {
        part: "scan",
        iterations: space.iterations(),
        cost_per_iteration,
        scratch_bytes: 0,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            let el = elemental(info);
            let comb = Combiner::new(info.module, info.comp, info.comp.instr(root))?;
            let spec = &info.buffers[out];
            let base = kb.buffer(out);
            let line = |kb: &mut KernelBuilder, at: Vec<IndexDim>| {
                let start = el.gen(kb, init, &Index::scalar(1))?;
                let acc = kb.b.declare_var(kb.ty(start));
                kb.b.def_var(acc, start);
                let (zero, end) = (kb.iconst(0), kb.iconst(n));
                kb.try_for_range(zero, end, 1, |kb, k| {
                    let k = if scan.reverse {
                        let last = kb.iconst(n - 1);
                        kb.b.ins().isub(last, k)
                    } else {
                        k
                    };
                    let mut at = at.clone();
                    at[d] = IndexDim::uniform(k);
                    let at = Index::new(1, at);
                    let x = el.gen(kb, src, &at)?;
                    let a = kb.b.use_var(acc);
                    let v = comb.combine(kb, &[a], &[x], 1)?[0];
                    kb.b.def_var(acc, v);
                    write(kb, spec, base, &at, v);
                    Ok(())
                })
            };
            let (start, end) = (kb.param(1), kb.param(2));
            space.emit_positions(kb, start, end, line)
        })),
    }])
}
