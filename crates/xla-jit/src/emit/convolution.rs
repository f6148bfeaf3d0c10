//! `convolution` as an elemental generator (`docs/semantics.md`, *Convolution*): the value
//! at an output index `(b, o, y…)` is the sum, over the kernel input
//! features `c` of `o`'s feature group and the kernel positions `k…`
//! (row-major, in the interpreter's order), of `lhs · rhs` in the result
//! type (operands converted to it first, as the interpreter does); f16 and
//! bf16 sums are kept in f32 and rounded once at the end.
//!
//! Kernel position `k` of output position `y` along a spatial dimension
//! with stride `s`, window dilation `wd`, base dilation `bd` and low
//! padding `lo` reads position `p = y·s + k'·wd − lo` of the base-dilated
//! input (`k' = K − 1 − k` when the window is reversed), which is input
//! element `p / bd` when `p ≥ 0`, `p mod bd = 0` and `p / bd` is below the
//! input size; other taps add nothing. Example (`docs/semantics.md`, *Convolution*,
//! input 3×3, kernel `[[1,0],[0,−1]]`, stride 2, padding `(1,1)`): output
//! `(0,0)` reads `p = (−1,−1), (−1,0), (0,−1), (0,0)`: only the last is
//! inside, giving `in(0,0) · −1 = −1`.
//!
//! Lanes walk the output's minor dimension. Along the output feature (the
//! NHWC case) the input read is the same in every lane and the kernel read
//! keeps the lane stride (a vector load when the kernel's output feature
//! is its minor dimension); along a spatial dimension the input read keeps
//! the output's lane stride times the window stride, and a vector whose
//! lanes straddle the padding is computed lane by lane. In a depthwise
//! convolution (one output feature per group) lanes along the output
//! feature read consecutive input features. Lanes that cross feature
//! groups of several output features or batch groups, or walk a
//! base-dilated dimension, are computed one at a time.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::Variable;
use xla_core::hlo::{ConvDimensionNumbers, HloInstruction, InstrId, WindowDim};
use xla_core::{Opcode, PrimitiveType};

use super::access::pack;
use super::convert::convert;
use super::data_movement::pad_dim;
use super::elemental::Elemental;
use super::float16::round_to;
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::reduce_window::may_miss;
use super::repr::{constant, value_type, Const};
use super::Unsupported;

/// The dimension numbers, window and group counts of a convolution.
struct Conv<'a> {
    numbers: &'a ConvDimensionNumbers,
    window: &'a [WindowDim],
    feature_groups: i64,
    batch_groups: i64,
}

impl<'a> Conv<'a> {
    fn of(instr: &'a HloInstruction) -> Result<Conv<'a>, Unsupported> {
        let unsupported =
            |what: &str| Unsupported::new(Opcode::Convolution, format!("`{}` {what}", instr.name));
        let numbers = instr
            .attrs
            .conv_dims
            .as_ref()
            .ok_or_else(|| unsupported("has no dim_labels"))?;
        let window = instr.attrs.window.as_ref().map_or(&[][..], |w| &w.dims[..]);
        if window.len() != numbers.input_spatial.len() {
            return Err(unsupported("has a window unlike its spatial dimensions"));
        }
        let (feature_groups, batch_groups) = (
            instr.attrs.feature_group_count.unwrap_or(1),
            instr.attrs.batch_group_count.unwrap_or(1),
        );
        if feature_groups < 1 || batch_groups < 1 {
            return Err(unsupported("has a group count below 1"));
        }
        Ok(Conv {
            numbers,
            window,
            feature_groups,
            batch_groups,
        })
    }
}

/// What a kernel needs of a convolution: dimension numbers, a window per
/// spatial dimension, and real or integer array values.
pub(super) fn check(instr: &HloInstruction) -> Result<(), Unsupported> {
    Conv::of(instr)?;
    let ty = instr
        .shape
        .as_array()
        .map(|a| a.element_type())
        .ok_or_else(|| {
            Unsupported::new(
                Opcode::Convolution,
                format!("`{}` is not an array", instr.name),
            )
        })?;
    if ty == PrimitiveType::Pred || ty.is_complex() {
        return Err(Unsupported::new(
            Opcode::Convolution,
            format!("{} values", ty.name()),
        ));
    }
    Ok(())
}

/// Multiply-adds per output element of a convolution (1 for any other
/// instruction), for cost estimates.
pub(super) fn taps(instr: &HloInstruction, kernel_dims: Option<&[i64]>) -> i64 {
    match (instr.opcode, &instr.attrs.conv_dims, kernel_dims) {
        (Opcode::Convolution, Some(n), Some(dims)) => {
            let spatial: i64 = n.kernel_spatial.iter().map(|&d| dims[d as usize]).product();
            spatial * dims[n.kernel_input_feature as usize]
        }
        _ => 1,
    }
}

/// `v` (an `i64`) added to the index `d`.
fn add(kb: &mut KernelBuilder, d: IndexDim, v: Value) -> IndexDim {
    IndexDim {
        var: Some(match d.var {
            Some(x) => kb.b.ins().iadd(x, v),
            None => v,
        }),
        aligned: false,
        ..d
    }
}

/// The value of convolution instruction `id` at `idx`.
pub(super) fn convolution(
    el: &Elemental,
    kb: &mut KernelBuilder,
    id: InstrId,
    idx: &Index,
) -> Result<Value, Unsupported> {
    let instr = el.comp.instr(id);
    let conv = Conv::of(instr)?;
    let n = conv.numbers;
    let (o, b) = (
        idx.dims[n.output_feature as usize],
        idx.dims[n.output_batch as usize],
    );
    let out_dims = instr.shape.as_array().map(|a| a.dims()).unwrap_or_default();
    let out_features = out_dims[n.output_feature as usize];
    // Output features per feature group and per batch group (the spec's
    // `OF / G` and `OF / BG`); shape inference makes both exact.
    let per_group = (out_features / conv.feature_groups).max(1);
    let per_batch_group = (out_features / conv.batch_groups).max(1);
    // With one output feature per group (depthwise), the input feature is
    // affine in the output feature.
    let lanes_cross_groups =
        o.lane_stride != 0 && (conv.batch_groups > 1 || (conv.feature_groups > 1 && per_group > 1));
    let lanes_walk_holes = n
        .output_spatial
        .iter()
        .zip(conv.window)
        .any(|(&d, w)| idx.dims[d as usize].lane_stride != 0 && w.base_dilation > 1);
    if idx.lanes > 1 && (lanes_cross_groups || lanes_walk_holes) {
        return el.gen_lanes(kb, id, idx);
    }
    let (lhs, rhs) = (instr.operands[0], instr.operands[1]);
    let rhs_dims = el.comp.instr(rhs).shape.as_array().map(|a| a.dims());
    let rhs_dims = rhs_dims.unwrap_or_default();
    let lhs_dims = el.comp.instr(lhs).shape.as_array().map(|a| a.dims());
    let lhs_dims = lhs_dims.unwrap_or_default();
    let kernel_features = rhs_dims[n.kernel_input_feature as usize];
    let out_batch = out_dims[n.output_batch as usize];
    // Lane 0's output feature; with batch groups every lane has the same
    // one.
    let o0 = o.lane(0).value(kb);
    let batch = if conv.batch_groups > 1 {
        let h = kb.b.ins().udiv_imm_u(o0, per_batch_group);
        let first = kb.b.ins().imul_imm_s(h, out_batch);
        add(kb, b, first)
    } else {
        b
    };
    // The group's first input feature: `(o / per_group) · KIF`.
    let first_feature = if conv.feature_groups == 1 {
        IndexDim::constant(0)
    } else if per_group == 1 {
        o.times(kb, kernel_features)
    } else {
        let g = kb.b.ins().udiv_imm_u(o0, per_group);
        IndexDim::uniform(kb.b.ins().imul_imm_s(g, kernel_features))
    };
    let ty = el.ty(id);
    let zero = constant(kb, ty, Const::Bits(0), idx.lanes);
    let acc = kb.b.declare_var(value_type(ty, idx.lanes));
    kb.b.def_var(acc, zero);
    let f = Taps {
        lhs,
        rhs,
        ty,
        conv: &conv,
        lhs_rank: lhs_dims.len(),
        rhs_rank: rhs_dims.len(),
        in_sizes: n
            .input_spatial
            .iter()
            .map(|&d| lhs_dims[d as usize])
            .collect(),
        kernel_sizes: n
            .kernel_spatial
            .iter()
            .map(|&d| rhs_dims[d as usize])
            .collect(),
        acc,
    };
    if !f.kernel_sizes.contains(&0) {
        let (start, end) = (kb.iconst(0), kb.iconst(kernel_features));
        kb.try_for_range(start, end, 1, |kb, c| {
            let at = At {
                idx,
                batch,
                o,
                feature: add(kb, first_feature, c),
            };
            let mut k = Vec::with_capacity(f.kernel_sizes.len());
            window_loops(el, kb, &f, &at, c, &mut k)
        })?;
    }
    let sum = kb.b.use_var(acc);
    Ok(round_to(kb, ty, sum))
}

/// One output element's (or vector's) accumulation.
struct Taps<'a> {
    lhs: InstrId,
    rhs: InstrId,
    /// The result type, in which products are summed.
    ty: PrimitiveType,
    conv: &'a Conv<'a>,
    lhs_rank: usize,
    rhs_rank: usize,
    /// Input and kernel sizes per spatial dimension.
    in_sizes: Vec<i64>,
    kernel_sizes: Vec<i64>,
    acc: Variable,
}

/// Where taps are read: the output index, its input batch and its output
/// feature.
struct At<'a> {
    idx: &'a Index,
    batch: IndexDim,
    o: IndexDim,
    /// The input feature read (of kernel input feature `c`).
    feature: IndexDim,
}

/// Loops over the kernel's spatial dimensions from `k.len()` on, then adds
/// the tap's product to the accumulator. Each entry of `k` is a kernel
/// index and whether its loop was clipped to the taps inside the input.
///
/// Where every lane has the same output position `y` along a padded
/// dimension without holes or reversal, the loop runs only over the taps
/// that read the input: `0 ≤ y·s + k·wd − lo < in` gives
/// `k ∈ [⌈(lo − y·s)/wd⌉, ⌈(in + lo − y·s)/wd⌉) ∩ [0, K)`, and the taps
/// need no check. Skipped taps added nothing, so the sum and its order are
/// unchanged. Example: `in = 5`, `K = 3`, `s = wd = 1`, `lo = 1`: output 0
/// runs `k ∈ [1, 3)`, output 4 runs `k ∈ [0, 2)`.
fn window_loops(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Taps,
    at: &At,
    c: Value,
    k: &mut Vec<(Value, bool)>,
) -> Result<(), Unsupported> {
    let d = k.len();
    if d == f.kernel_sizes.len() {
        let product = tap(el, kb, f, at, c, k)?;
        let sum = kb.b.use_var(f.acc);
        let sum = if f.ty.is_floating() {
            kb.b.ins().fadd(sum, product)
        } else {
            kb.b.ins().iadd(sum, product)
        };
        kb.b.def_var(f.acc, sum);
        return Ok(());
    }
    let size = f.kernel_sizes[d];
    let w = &f.conv.window[d];
    let y = at.idx.dims[f.conv.numbers.output_spatial[d] as usize];
    let clip = may_miss(w)
        && w.base_dilation == 1
        && !w.window_reversal
        && (at.idx.lanes == 1 || y.lane_stride == 0);
    if size == 1 && !clip {
        k.push((kb.iconst(0), false));
        let r = window_loops(el, kb, f, at, c, k);
        k.pop();
        return r;
    }
    let (start, end) = if clip {
        // `t = y·s − lo`; the taps are `k ∈ [⌈−t/wd⌉, ⌈(in − t)/wd⌉)`
        // (truncating division is the ceiling for positive numerators;
        // otherwise the bound is ≤ 0 and the range is clamped or empty).
        let ys = y.lane(0).times(kb, w.stride).value(kb);
        let minus = kb.b.ins().ineg(ys);
        let neg_t = kb.b.ins().iadd_imm_s(minus, w.padding_low);
        let ceil_div = |kb: &mut KernelBuilder, x: Value| {
            if w.window_dilation == 1 {
                x
            } else {
                let x = kb.b.ins().iadd_imm_s(x, w.window_dilation - 1);
                kb.b.ins().sdiv_imm_s(x, w.window_dilation)
            }
        };
        let first = ceil_div(kb, neg_t);
        let zero = kb.iconst(0);
        let first = kb.b.ins().smax(first, zero);
        let room = kb.b.ins().iadd_imm_s(neg_t, f.in_sizes[d]);
        let last = ceil_div(kb, room);
        let size = kb.iconst(size);
        (first, kb.b.ins().smin(last, size))
    } else {
        (kb.iconst(0), kb.iconst(size))
    };
    kb.try_for_range(start, end, 1, |kb, kd| {
        k.push((kd, clip));
        let r = window_loops(el, kb, f, at, c, k);
        k.pop();
        r
    })
}

/// The product `lhs · rhs` of kernel position `k` and kernel input feature
/// `c` at `at`, in the result type; zero where the
/// tap falls on padding or a dilation hole.
fn tap(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Taps,
    at: &At,
    c: Value,
    k: &[(Value, bool)],
) -> Result<Value, Unsupported> {
    let n = f.conv.numbers;
    let idx = at.idx;
    let lanes = idx.lanes;
    let mut lhs_at = vec![IndexDim::constant(0); f.lhs_rank];
    let mut rhs_at = vec![IndexDim::constant(0); f.rhs_rank];
    lhs_at[n.input_feature as usize] = at.feature;
    rhs_at[n.kernel_input_feature as usize] = IndexDim::uniform(c);
    lhs_at[n.input_batch as usize] = at.batch;
    rhs_at[n.kernel_output_feature as usize] = at.o;
    // All lanes read the input, when some dimension may miss it.
    let mut inside: Option<Value> = None;
    // Some lanes may read it while others do not.
    let mut straddles = false;
    for (i, w) in f.conv.window.iter().enumerate() {
        let y = idx.dims[n.output_spatial[i] as usize];
        let (ki, clipped) = k[i];
        rhs_at[n.kernel_spatial[i] as usize] = IndexDim::uniform(ki);
        let size = f.kernel_sizes[i];
        let kk = if w.window_reversal {
            let minus = kb.b.ins().ineg(ki);
            kb.b.ins().iadd_imm_s(minus, size - 1)
        } else {
            ki
        };
        let kk = if w.window_dilation == 1 {
            kk
        } else {
            kb.b.ins().imul_imm_s(kk, w.window_dilation)
        };
        // Lane 0's position in the base-dilated input, before padding.
        let scaled = y.times(kb, w.stride);
        let p = add(kb, scaled, kk);
        let q = &mut lhs_at[n.input_spatial[i] as usize];
        let ok = if !may_miss(w) || clipped {
            *q = p.plus(-w.padding_low);
            continue;
        } else if lanes == 1 || p.lane_stride == 0 {
            let pv = p.value(kb);
            let (ok, at) = pad_dim(kb, pv, w.padding_low, w.base_dilation - 1, f.in_sizes[i]);
            *q = IndexDim::uniform(at);
            ok
        } else {
            // Lanes walk this dimension and there are no holes (see
            // `convolution`): check the first and last lanes.
            let shifted = p.plus(-w.padding_low);
            let first = shifted.value(kb);
            let last =
                kb.b.ins()
                    .iadd_imm_s(first, (lanes as i64 - 1) * shifted.lane_stride);
            let first_in = in_range(kb, first, f.in_sizes[i]);
            let last_in = in_range(kb, last, f.in_sizes[i]);
            *q = shifted;
            straddles = true;
            kb.b.ins().band(first_in, last_in)
        };
        inside = Some(match inside {
            Some(all) => kb.b.ins().band(all, ok),
            None => ok,
        });
    }
    let read = |kb: &mut KernelBuilder| -> Result<Vec<Value>, Unsupported> {
        let x = el.gen(kb, f.lhs, &Index::new(lanes, lhs_at.clone()))?;
        let x = convert(kb, el.ty(f.lhs), f.ty, x, lanes)?;
        let w = el.gen(kb, f.rhs, &Index::new(lanes, rhs_at.clone()))?;
        let w = convert(kb, el.ty(f.rhs), f.ty, w, lanes)?;
        Ok(vec![if f.ty.is_floating() {
            kb.b.ins().fmul(x, w)
        } else {
            kb.b.ins().imul(x, w)
        }])
    };
    let Some(inside) = inside else {
        return Ok(read(kb)?[0]);
    };
    Ok(kb.if_else(inside, &[value_type(f.ty, lanes)], read, |kb| {
        if straddles {
            per_lane(el, kb, f, at, c, k)
        } else {
            Ok(vec![constant(kb, f.ty, Const::Bits(0), lanes)])
        }
    })?[0])
}

/// [`tap`] computed lane by lane (a vector straddling the padding).
fn per_lane(
    el: &Elemental,
    kb: &mut KernelBuilder,
    f: &Taps,
    at: &At,
    c: Value,
    k: &[(Value, bool)],
) -> Result<Vec<Value>, Unsupported> {
    let scalars = (0..at.idx.lanes)
        .map(|l| {
            let idx = at.idx.lane(l);
            let lane = At {
                idx: &idx,
                batch: at.batch.lane(l),
                o: at.o.lane(l),
                feature: at.feature.lane(l),
            };
            tap(el, kb, f, &lane, c, k)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![pack(kb, f.ty, &scalars)])
}

/// `0 ≤ i < n` as an `i8` truth value.
fn in_range(kb: &mut KernelBuilder, i: Value, n: i64) -> Value {
    let nonneg = kb.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, i, 0);
    let below = kb.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, n);
    kb.b.ins().band(nonneg, below)
}
