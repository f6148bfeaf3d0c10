//! `reduce-window` as an elemental generator (`spec/OPS.md` §2.6): the
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
//! output's lane stride times the window stride. Where lanes could fall on
//! different sides of the padding (a padded or base-dilated dimension the
//! lanes walk), each lane is computed on its own.

use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::hlo::{HloInstruction, InstrId, WindowDim};
use xla_core::{Opcode, PrimitiveType, Shape};

use super::combine::Combiner;
use super::data_movement::pad_dim;
use super::elemental::Elemental;
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::Unsupported;

/// The window of a reduce-window instruction.
fn window_of(instr: &HloInstruction) -> Result<&[WindowDim], Unsupported> {
    instr
        .attrs
        .window
        .as_ref()
        .map(|w| w.dims.as_slice())
        .ok_or_else(|| {
            Unsupported::new(
                Opcode::ReduceWindow,
                format!("`{}` has no window", instr.name),
            )
        })
}

/// What a kernel needs of a reduce-window: one operand (variadic ones stay
/// interpreted) and no window reversal.
pub(super) fn check(instr: &HloInstruction) -> Result<(), Unsupported> {
    let window = window_of(instr)?;
    if instr.operands.len() != 2 || !matches!(instr.shape, Shape::Array(_)) {
        return Err(Unsupported::new(
            Opcode::ReduceWindow,
            "variadic reduce-window",
        ));
    }
    if instr.shape.element_type() == Some(PrimitiveType::Pred) {
        return Err(Unsupported::new(Opcode::ReduceWindow, "pred values"));
    }
    if window.iter().any(|w| w.window_reversal) {
        return Err(Unsupported::new(Opcode::ReduceWindow, "reversed windows"));
    }
    Ok(())
}

/// Taps per output element: how many times a reduce-window folds (1 for
/// any other instruction), for cost estimates.
pub(super) fn taps(instr: &HloInstruction) -> i64 {
    match (instr.opcode, &instr.attrs.window) {
        (Opcode::ReduceWindow, Some(w)) => w.dims.iter().map(|d| d.size).product(),
        _ => 1,
    }
}

/// `true` if the taps along `w` can miss the operand (padding or holes).
fn may_miss(w: &WindowDim) -> bool {
    w.padding_low > 0 || w.padding_high > 0 || w.base_dilation > 1
}

/// The value of reduce-window instruction `id` at `idx`.
pub(super) fn reduce_window(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let window = window_of(instr)?;
    let (src, init) = (instr.operands[0], instr.operands[1]);
    let lanes = idx.lanes;
    let uniform_checks = idx
        .dims
        .iter()
        .zip(window)
        .all(|(x, w)| x.lane_stride == 0 || !may_miss(w));
    if lanes > 1 && !uniform_checks {
        return el.gen_lanes(kb, id, idx);
    }
    let in_dims = el
        .comp
        .instr(src)
        .shape
        .as_array()
        .map(|a| a.dims().to_vec())
        .unwrap_or_default();
    let comb = Combiner::new(el.module, el, instr)?;
    let init_value = el.gen(kb, init, &Index::scalar(lanes))?;
    let acc = kb.b.declare_var(kb.ty(init_value));
    kb.b.def_var(acc, init_value);
    let mut taps = Vec::with_capacity(window.len());
    fold(
        el,
        kb,
        &Fold {
            comb: &comb,
            src,
            window,
            in_dims: &in_dims,
            idx,
            init: init_value,
            acc,
        },
        &mut taps,
    )?;
    Ok(kb.b.use_var(acc))
}

/// The loop nest of one window.
struct Fold<'a> {
    comb: &'a Combiner<'a>,
    src: InstrId,
    window: &'a [WindowDim],
    in_dims: &'a [i64],
    idx: &'a Index,
    /// The init value in register form.
    init: Value,
    acc: cranelift_frontend::Variable,
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
    let lanes = f.idx.lanes;
    let mut inside: Option<Value> = None;
    let mut dims = Vec::with_capacity(taps.len());
    for (((x, w), &k), &n) in f.idx.dims.iter().zip(f.window).zip(taps).zip(f.in_dims) {
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
        if !may_miss(w) {
            dims.push(IndexDim {
                var: Some(var),
                offset: o.offset - w.padding_low,
                aligned: false,
                ..o
            });
            continue;
        }
        let p = kb.b.ins().iadd_imm_s(var, o.offset);
        let (ok, at) = pad_dim(kb, p, w.padding_low, w.base_dilation - 1, n);
        inside = Some(match inside {
            Some(i) => kb.b.ins().band(i, ok),
            None => ok,
        });
        dims.push(IndexDim::uniform(at));
    }
    let at = Index::new(lanes, dims);
    let ty = kb.ty(f.init);
    let x = match inside {
        None => el.gen(kb, f.src, &at)?,
        Some(inside) => kb.if_else(
            inside,
            &[ty],
            |kb| Ok(vec![el.gen(kb, f.src, &at)?]),
            |_| Ok(vec![f.init]),
        )?[0],
    };
    let acc = kb.b.use_var(f.acc);
    let r = f.comb.combine(kb, &[acc], &[x], lanes)?;
    kb.b.def_var(f.acc, r[0]);
    Ok(())
}
